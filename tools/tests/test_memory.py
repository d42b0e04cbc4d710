"""The kernel's page tables, read from its ptdump: W^X, and no user page but the fixmap's."""
import re

import pytest

import harness

VVAR = 0xffffffffff5ff000
VSYSCALL = 0xffffffffff600000
HPET = 0xffffffffff5fe000
KERNEL_HALF = 0xffff800000000000

LINE = re.compile(r"^ptdump: ([0-9a-f]{16})-([0-9a-f]{16}) +\d+[KM] (USR|   ) (RW|ro) (NX|x ) (PCD|   ) (PWT|   ) (pte|pmd)$")


@pytest.fixture(scope="module")
def ranges():
    b = harness.boot("ptdump-bios")
    out = []
    for line in b.lines():
        m = LINE.match(line)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3) == "USR",
                        m.group(4) == "RW", m.group(5) == "NX", m.group(6) == "PCD", m.group(7) == "PWT"))
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
    _, _, user, rw, nx, _, _ = hit[0]
    assert user and not rw and nx, "vvar flags: user %s, write %s, nx %s" % (user, rw, nx)


def test_hpet_page_uncached_nx(ranges):
    hit = [r for r in ranges if r[0] <= HPET < r[1]]
    if not hit:
        pytest.skip("no HPET page mapped (this QEMU machine has no HPET)")
    _, _, user, rw, nx, pcd, pwt = hit[0]
    assert user and not rw and nx and pcd and pwt, "HPET page flags wrong: %s" % (hit[0],)


def test_kernel_text_is_executable_read_only(ranges):
    # The vsyscall page (emulate mode here) is executable too, but user code: its own test below.
    text = [r for r in ranges if r[0] >= 0xffffffff80000000 and not r[4] and r[0] != VSYSCALL]
    assert text and all(not r[3] and not r[2] for r in text), "kernel text ranges: %s" % text


def test_vsyscall_page_user_read_execute(ranges):
    """design.md, emulate mode: the vsyscall page is user, read-only and executable."""
    hit = [r for r in ranges if r[0] <= VSYSCALL < r[1]]
    assert hit, "the vsyscall page is not mapped"
    _, _, user, rw, nx, _, _ = hit[0]
    assert user and not rw and not nx, "vsyscall flags: user %s, write %s, nx %s" % (user, rw, nx)
