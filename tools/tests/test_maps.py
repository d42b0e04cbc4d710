"""/proc/self/maps as a student sees it (docs/design.md; the LWN article "On vsyscalls and the vDSO").

user/mapstest checks the lines against the memory from user space (its KTAP
results are cases of test_ktap.py). Here, from the serial logs: that the
[vsyscall] line has the permissions of the boot's vsyscall mode, and the
article's experiment: `cat /proc/self/maps` twice (user/catmaps) shows the
[vdso] at a new address each time and [vsyscall] at the same fixed one.
"""
import re

import pytest

import harness

LINE = re.compile(r"^([0-9a-f]{8,16})-([0-9a-f]{8,16}) ([r-][w-][x-][ps]) ([0-9a-f]{8}) "
                  r"([0-9a-f]{2}:[0-9a-f]{2}) (\d+) ?(?: +(\S.*))?$")
VSYSCALL_LINE = "ffffffffff600000-ffffffffff601000"

# design.md, "vsyscall modes": the page as user space sees it
VSYSCALL_PERMS = {"emulate": "r-xp", "native": "r-xp", "xonly": "--xp", "none": None}


def listings(b):
    """The maps listings that follow each "$ cat /proc/self/maps" line of the log."""
    out, cur = [], None
    for line in b.lines():
        if line == "$ cat /proc/self/maps":
            cur = []
            out.append(cur)
        elif cur is not None:
            m = LINE.match(line)
            if not m:
                cur = None
                continue
            cur.append((m.group(1), m.group(2), m.group(3), m.group(7) or ""))
    return out


@pytest.fixture(scope="module")
def twice():
    b = harness.boot("maps-twice")
    b.check()
    got = listings(b)
    assert len(got) == 2, b.report("expected two listings after \"$ cat /proc/self/maps\"")
    return b, got


def named(listing, name):
    return [l for l in listing if l[3] == name]


def test_cat_sees_itself(twice):
    b, got = twice
    for listing in got:
        segs = named(listing, "/bin/cat")
        assert {l[2] for l in segs} >= {"r--p", "r-xp", "rw-p"}, b.report("cat's own segments: %s" % segs)
        assert len(named(listing, "[stack]")) == 1, b.report("one [stack] line")
        assert named(listing, "[vvar]"), b.report("a [vvar] line")


def test_vsyscall_stays(twice):
    b, got = twice
    lines = [named(listing, "[vsyscall]") for listing in got]
    assert all(len(l) == 1 for l in lines), b.report("one [vsyscall] line in each listing")
    assert lines[0] == lines[1], b.report("the [vsyscall] line moved: %s" % lines)
    assert "%s-%s" % lines[0][0][:2] == VSYSCALL_LINE


def test_vdso_moves(twice):
    b, got = twice
    lines = [named(listing, "[vdso]") for listing in got]
    assert all(len(l) == 1 for l in lines), b.report("one [vdso] line in each listing")
    assert lines[0][0][2] == "r-xp"
    assert lines[0][0][0] != lines[1][0][0], b.report(
        "the [vdso] did not move between two execs (28 bits of randomness)")


@pytest.mark.parametrize("name,mode", [("init-bios", "emulate"), ("vsyscall-xonly-bios", "xonly"),
                                       ("vsyscall-none-bios", "none")])
def test_vsyscall_perms_follow_the_mode(name, mode):
    b = harness.boot(name)
    b.check()
    want = VSYSCALL_PERMS[mode]
    if want:
        b.expect(r"^# \[vsyscall\] %s$" % re.escape(want), "mapstest's [vsyscall] line in %s mode" % mode)
    else:
        b.expect(r"^# no \[vsyscall\] line \(vsyscall=none\)$", "no [vsyscall] line in none mode")
