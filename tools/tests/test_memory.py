"""The kernel's page tables, read from its ptdump: W^X, no user page but the fixmap's, and
no writable alias of a frame of code or of the descriptor tables."""
import os
import re

import pytest

import harness

VVAR = 0xffffffffff5ff000
VSYSCALL = 0xffffffffff600000
HPET = 0xffffffffff5fe000
KERNEL_HALF = 0xffff800000000000
KERNEL_VMA = 0xffffffff80000000
PAGE = 4096

LINE = re.compile(r"^ptdump: ([0-9a-f]{16})-([0-9a-f]{16}) +\d+[KM] (USR|   ) (RW|ro) (NX|x ) (PCD|   ) (PWT|   ) (pte|pmd) phys ([0-9a-f]+)$")
OVERFLOW = re.compile(r"^double fault: kernel stack overflow: the (.+) ran into its guard page "
                      r"at [0-9a-f]+ \(CR2 [0-9a-f]+\)$")


@pytest.fixture(scope="module")
def ranges():
    b = harness.boot("ptdump-bios")
    out = []
    for line in b.lines():
        m = LINE.match(line)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3) == "USR",
                        m.group(4) == "RW", m.group(5) == "NX", m.group(6) == "PCD", m.group(7) == "PWT",
                        int(m.group(9), 16)))
    assert len(out) > 3, b.report("too few ptdump lines")
    return out


def test_kernel_half_is_w_xor_x(ranges):
    bad = [r for r in ranges if r[0] >= KERNEL_HALF and r[3] and not r[4]]
    assert not bad, "writable and executable kernel ranges: %s" % ["%x-%x" % r[:2] for r in bad]


def test_only_fixmap_pages_are_user(ranges):
    for start, end, user, *_ in ranges:
        if start >= KERNEL_HALF and user:
            pages = set(range(start, end, 4096))
            assert pages <= {VVAR, VSYSCALL, HPET}, "user-accessible kernel range %x-%x" % (start, end)


def test_vvar_page_user_read_only_nx(ranges):
    hit = [r for r in ranges if r[0] <= VVAR < r[1]]
    assert hit, "the vvar page is not mapped"
    _, _, user, rw, nx, *_ = hit[0]
    assert user and not rw and nx, "vvar flags: user %s, write %s, nx %s" % (user, rw, nx)


def test_hpet_page_uncached_nx(ranges):
    hit = [r for r in ranges if r[0] <= HPET < r[1]]
    if not hit:
        pytest.skip("no HPET page mapped (this QEMU machine has no HPET)")
    _, _, user, rw, nx, pcd, pwt, _ = hit[0]
    assert user and not rw and nx and pcd and pwt, "HPET page flags wrong: %s" % (hit[0],)


def test_kernel_text_is_executable_read_only(ranges):
    # The vsyscall page (emulate mode here) is executable too, but user code: its own test below.
    text = [r for r in ranges if r[0] >= 0xffffffff80000000 and not r[4] and r[0] != VSYSCALL]
    assert text and all(not r[3] and not r[2] for r in text), "kernel text ranges: %s" % text


def test_vsyscall_page_user_read_execute(ranges):
    """design.md, emulate mode: the vsyscall page is user, read-only and executable."""
    hit = [r for r in ranges if r[0] <= VSYSCALL < r[1]]
    assert hit, "the vsyscall page is not mapped"
    _, _, user, rw, nx, *_ = hit[0]
    assert user and not rw and not nx, "vsyscall flags: user %s, write %s, nx %s" % (user, rw, nx)


def kernel_symbols():
    """name -> address, from the symbol table of the kernel that the test booted."""
    syms = {}
    with open(os.path.join(harness.BUILD, "kernel.sym")) as f:
        for line in f:
            addr, _, name = line.split()
            syms[name] = int(addr, 16)
    return syms


def frames(start, end):
    """The physical frames of the kernel image's virtual range [start, end)."""
    return set(range((start - KERNEL_VMA) & ~(PAGE - 1), end - KERNEL_VMA, PAGE))


def writable_aliases(ranges, wanted):
    """(virtual range, frame) of every writable mapping of a frame in wanted."""
    hits = []
    for start, end, _, rw, *_, phys in ranges:
        if rw:
            hits += [("%x-%x" % (start, end), "%x" % f)
                     for f in wanted if phys <= f < phys + end - start]
    return hits


def test_no_writable_alias_of_code(ranges):
    """No frame of code that anything executes is writable through any mapping, the direct
    map included: the kernel text, every executable page of the dump (the vsyscall page), the
    vDSO (executed by processes, mapped in none of the kernel's tables) and both contents of
    the vsyscall page (native and emulate)."""
    s = kernel_symbols()
    code = frames(s["_text"], s["_etext"]) | frames(s["vdso_image_start"], s["vdso_image_end"])
    code |= frames(s["vsyscall_native_page"], s["vsyscall_native_page"] + PAGE)
    code |= frames(s["vsyscall_emulate_page"], s["vsyscall_emulate_page"] + PAGE)
    for start, end, _, _, nx, *_, phys in ranges:
        if not nx:
            code |= set(range(phys, phys + end - start, PAGE))
    bad = writable_aliases(ranges, code)
    assert not bad, "writable mappings of code frames (range, frame): %s" % bad[:10]


def test_descriptor_tables_read_only(ranges):
    """The GDT, the IDT and the handler table behind it are read-only after boot, through every
    mapping; the TSS stays writable (the scheduler writes RSP0 at every switch)."""
    s = kernel_symbols()
    tables = set()
    for name in ("gdt", "idt", "trap_handlers"):
        tables |= frames(s[name], s[name] + 1)
    bad = writable_aliases(ranges, tables)
    assert not bad, "writable mappings of the GDT, IDT or handler table: %s" % bad[:10]
    tss = frames(s["cpu_entry_areas"], s["cpu_entry_areas"] + 1)    # CPU 0's TSS (asm/entry_area.h)
    assert writable_aliases(ranges, tss), "the TSS is read-only: RSP0 could not be set"


def test_boot_says_what_turned_read_only():
    b = harness.boot("ptdump-bios")
    b.expect(r"^paging: read-only in the image and the direct map: text, rodata and \d+ KiB "
             r"written at boot only \(GDT, IDT, vDSO\); [1-9]\d* 2 MiB pages? split$",
             "mark_ro_after_init's line, with the direct map's 2 MiB page split")


@pytest.mark.parametrize("stack", ["boot", "#DF", "NMI", "#MC", "pid"])
def test_stack_overflow_is_a_reported_double_fault(stack):
    """The ktest every_kernel_stack_overflows_into_a_double_fault runs each stack dry; the #DF
    handler names the stack whose guard page CR2 lies in (ktest-bios's log)."""
    b = harness.boot("ktest-bios")
    what = r"kernel stack of pid \d+" if stack == "pid" else re.escape(stack) + " stack of CPU 0"
    seen = [m.group(1) for m in map(OVERFLOW.match, b.lines()) if m]
    assert any(re.fullmatch(what, s) for s in seen), b.report(
        "no report of an overflow of the %s stack; reports: %s" % (stack, seen))


def test_docs_samples_read_as_the_kernel_prints():
    """docs/memory.md's sample ptdump and double-fault lines have the format the tests above read."""
    with open(os.path.join(harness.ROOT, "docs", "memory.md")) as f:
        samples = [l.rstrip("\n") for l in f if l.startswith(("ptdump: ", "double fault: "))]
    assert len(samples) >= 2, "no ptdump or double fault sample in docs/memory.md"
    for line in samples:
        assert LINE.match(line) or OVERFLOW.match(line), "docs/memory.md: %r" % line
