"""Page-table isolation seen from outside the guest (docs/pti.md).

gdb stops the guest in ring 3 (init's main) and asks QEMU's monitor, its
CPU made the one that stopped (`monitor cpu N`), for `info tlb`: every
page the CPU's CR3, the user page table, maps, walked by QEMU itself. Its kernel half must be exactly the pages the entry needs
(the entry text, the GDTs and IDT, the entry areas, the IST stacks: the
sections and symbols of build/kernel.elf) and the user-visible pages of
the vsyscall mode (the vvar page; the vsyscall page in native and emulate,
read and execute; the HPET with clocksource=hpet), with those
permissions, and nothing else. Then, stopped in syscall_dispatch, the
kernel's CR3 is the same pair's even page, and the kernel's PML4 entry of
the user half is no-execute. And pti=auto decides by the CPU's vendor.
"""
import re

import pytest

import harness
from harness import Config
from ptiaudit import GDB_KERNEL_STOP, GDB_USER_STOP, PAGE, describe, expected_pages, printed_values, tlb_pages
from gdbboot import run_session
from test_gdb import GDB

# (name, vsyscall mode, firmware, CPUs, more kernel arguments)
AUDITS = [
    ("emulate-bios-1", "emulate", "bios", 1, ""),
    ("emulate-uefi-4", "emulate", "uefi", 4, ""),
    ("native-bios-4", "native", "bios", 4, ""),
    ("native-uefi-1", "native", "uefi", 1, "clocksource=hpet"),
    ("xonly-bios-1", "xonly", "bios", 1, ""),
    ("xonly-uefi-4", "xonly", "uefi", 4, ""),
    ("none-bios-4", "none", "bios", 4, ""),
    ("none-uefi-1", "none", "uefi", 1, ""),
]

SCRIPT = GDB_USER_STOP + "echo @@@ comm\\n\nprint $ccos_comm()\n" + GDB_KERNEL_STOP + r"""echo @@@ pti\n
ccos-pti
echo @@@ end\n
"""


def audit_session(name, mode, fw, ncpus, args):
    extra = ("-smp", str(ncpus)) if ncpus > 1 else ()
    config = Config("pti-audit-" + name, fw=fw, mode=mode, cmdline=("pti=on " + args).strip(),
                    extra=extra)
    return run_session(config, SCRIPT)


if GDB is not None:
    for _a in AUDITS:
        harness.register_job("pti-audit-" + _a[0], lambda a=_a: audit_session(*a))


def values(text, n, session):
    """The first n values gdb printed ($N = 0x...) in a step."""
    vals = printed_values(text)
    assert len(vals) >= n, session.report("%d values printed, %d expected" % (len(vals), n))
    return vals[:n]


def session_of(name):
    if GDB is None:
        pytest.skip("gdb is not installed (tools/setup installs it)")
    return harness.job("pti-audit-" + name).result()


@pytest.mark.parametrize("name,mode,fw,ncpus,args", AUDITS, ids=[a[0] for a in AUDITS])
def test_user_table_maps_only_the_entry(name, mode, fw, ncpus, args):
    """Stopped in ring 3: CR3 is the pair's odd page, and its kernel half is exactly the entry's pages."""
    s = session_of(name)
    user = s.step("user")
    cs = values(user, 1, s)[0]
    assert cs & 3 == 3, s.report("stopped with CS %#x, not in ring 3" % cs)
    cr3 = values(user, 2, s)[1]
    assert cr3 & 0x1000, s.report("CR3 %#x in ring 3: bit 12 clear, the kernel's table" % cr3)
    actual = tlb_pages(user)
    assert actual, s.report("`monitor info tlb` printed no kernel-half page")
    expected = expected_pages(mode, "clocksource=hpet" in args)
    missing = {p: v for p, v in expected.items() if p not in actual}
    extra = {p: v for p, v in actual.items() if p not in expected}
    wrong = {p: v for p, v in actual.items() if p in expected and expected[p] != v}
    assert not missing and not extra and not wrong, s.report(
        "the user table's kernel half: %d pages expected, %d mapped; missing: %s; "
        "not the entry's: %s; other permissions (u w x): %s"
        % (len(expected), len(actual), describe(missing), describe(extra), describe(wrong)))


@pytest.mark.parametrize("name", [a[0] for a in AUDITS[:2]])
def test_kernel_cr3_is_the_even_page(name):
    """In syscall_dispatch: ring 0, CR3 = the user CR3 - 0x1000, and the user half no-execute there."""
    s = session_of(name)
    user_cr3 = values(s.step("user"), 2, s)[1]
    kernel = s.step("kernel")
    cs, cr3 = values(kernel, 2, s)
    assert cs & 3 == 0, s.report("CS %#x in syscall_dispatch" % cs)
    assert cr3 == user_cr3 & ~0x1fff and user_cr3 & ~0xfff == cr3 + 0x1000, s.report(
        "kernel CR3 %#x, user CR3 %#x: not an 8 KiB pair" % (cr3, user_cr3))
    m = re.search(r"^\s*PML4\[\s*0\].*$", kernel, re.MULTILINE)
    assert m and " NX" in m.group(0), s.report("the kernel's PML4 entry of 0x400000 is not NX")


BOOT_LINE = re.compile(r"^pti: (on|off) \((.*)\)", re.MULTILINE)


@pytest.mark.parametrize("name,state", [("pti-auto-intel", "on"), ("vsyscall-none-bios", "off"),
                                        ("pti-init-bios", "on")])
def test_boot_line_says_which_and_why(boot, name, state):
    """pti=auto: on for GenuineIntel, off for QEMU's TCG max (AuthenticAMD); pti=on: on."""
    if harness.PTI is not None and name == "vsyscall-none-bios":
        pytest.skip("make test PTI=%s sets pti= on this boot" % harness.PTI)
    b = boot(name)
    m = b.expect(BOOT_LINE.pattern)
    assert m.group(1) == state, b.report("pti is %s, expected %s" % (m.group(1), state))


@pytest.mark.parametrize("name", [a[0] for a in AUDITS[:1]])
def test_gdb_helpers_see_both_tables(name):
    """Stopped in ring 3, $ccos_comm() still reads the kernel (through the kernel's table of the
    pair); in the kernel, ccos-pti lists as many kernel-half pages of the user table as QEMU saw."""
    s = session_of(name)
    assert '"init"' in s.step("comm"), s.report("$ccos_comm() in ring 3 is not \"init\"")
    m = re.search(r"^ccos-pti: (\d+) kernel-half pages in the user table$", s.step("pti"), re.MULTILINE)
    assert m, s.report("ccos-pti printed no count")
    seen = len(tlb_pages(s.step("user")))
    assert int(m.group(1)) == seen, s.report("ccos-pti: %s pages, QEMU's info tlb: %d"
                                             % (m.group(1), seen))


def test_ptdump_shows_both_tables(boot):
    """pti=on ptdump: the kernel's table, then the user table's kernel half, whose every range
    lies in the kernel half and is the entry's or a user-visible fixmap page."""
    b = boot("pti-ktest-uefi")
    dumps, cur = [], None
    for line in b.lines():
        if line.startswith("ptdump: page tables at"):
            cur = []
            dumps.append(cur)
        elif line.startswith("ptdump: ") and cur is not None and line != "ptdump: end":
            cur.append(line)
    assert len(dumps) == 2, b.report("%d ptdumps, expected the kernel's and the user table's"
                                     % len(dumps))
    user = dumps[1]
    expected = expected_pages("emulate", False)
    for line in user:
        m = re.match(r"^ptdump: user table entry: level \d covers ([0-9a-f]{16})-([0-9a-f]{16})$", line)
        if m:       # an upper entry with U (docs/memory.md): only on the path to a user page
            start, end = int(m.group(1), 16), int(m.group(2), 16)
            assert any(start <= p <= end and perms[0] for p, perms in expected.items()), \
                b.report("U on the way to no user page: " + line)
            continue
        m = re.match(r"^ptdump: ([0-9a-f]{16})-([0-9a-f]{16}) ", line)
        assert m, b.report("unexpected ptdump line: %s" % line)
        start, end = int(m.group(1), 16), int(m.group(2), 16)
        outside = [p for p in range(start, end, PAGE) if p not in expected]
        assert not outside, b.report("the user table maps %#x, not the entry's" % outside[0])
    assert len(dumps[0]) > len(user), b.report("the kernel's dump is not the larger")
