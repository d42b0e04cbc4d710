"""The vsyscall page in each mode (design.md, "vsyscall modes"), read from the boots of configs.py.

user/vsyscalltest checks the page from user space and prints KTAP, which
test_ktap.py turns into a case per result. Here: that it found the mode the
boot asked for, what the kernel said at boot, and the kernel's warnings,
which only the serial log shows: each one provoked by vsyscalltest, in the
format design.md gives, and at most 10 for its burst of 100 illegal int 0xcc.
"""
import re

import pytest

import harness

# config name -> (vsyscall mode, CPU model's getcpu instruction, clocksource or None)
BOOTS = {
    "init-bios": ("emulate", "rdtscp", None),
    "init-uefi": ("emulate", "rdtscp", None),
    "vsyscall-native-bios": ("native", "rdtscp", "tsc"),
    "vsyscall-xonly-bios": ("xonly", "rdtscp", None),
    "vsyscall-none-bios": ("none", "rdtscp", None),
    "vsyscall-native-uefi": ("native", "rdtscp", None),
    "vsyscall-emulate-qemu64": ("emulate", "lsl", None),
    "vsyscall-native-qemu64": ("native", "lsl", None),
    "vsyscall-native-hpet": ("native", "rdtscp", "hpet"),
    "vsyscall-native-jiffies": ("native", "rdtscp", "jiffies"),
}

PROGRAM = "vsyscalltest"
ENTRY = "ffffffffff600000"
NON_ENTRY = "ffffffffff600100"

# COMM[PID] MESSAGE ip:.. sp:.. ax:.. si:.. di:.. (hex), as Linux's warn_bad_vsyscall
WARNING = re.compile(r"^(\S+)\[(\d+)\] (.+?) ip:([0-9a-f]+) sp:([0-9a-f]+) ax:([0-9a-f]+) "
                     r"si:([0-9a-f]+) di:([0-9a-f]+)$")
MESSAGES = {
    "illegal int 0xcc (exploit attempt?)",
    "int 0xcc with bad stack (exploit attempt?)",
    "vsyscall fault (exploit attempt?)",
    "vsyscall read attempt denied",
    "vsyscall attempted with vsyscall=none",
}
SUPPRESSED = re.compile(r"^vsyscall: \d+ warnings suppressed$")

# What test_warning_formats provokes between its markers, in order, per mode.
FORMAT_WARNINGS = {
    "emulate": ["vsyscall fault (exploit attempt?)", "int 0xcc with bad stack (exploit attempt?)"],
    "xonly": ["vsyscall fault (exploit attempt?)", "int 0xcc with bad stack (exploit attempt?)",
              "vsyscall read attempt denied", "illegal int 0xcc (exploit attempt?)"],
    "none": ["vsyscall read attempt denied", "vsyscall attempted with vsyscall=none"],
    "native": [],
}


def between(b, begin, end):
    """The log lines between the line `begin` and the next line `end`."""
    lines = b.lines()
    try:
        i = lines.index(begin)
        j = lines.index(end, i + 1)
    except ValueError:
        raise harness.BootFailure(b.report("no %r ... %r markers in the log" % (begin, end)))
    return lines[i + 1:j]


@pytest.fixture(params=sorted(BOOTS))
def vboot(request):
    return request.param, harness.boot(request.param)


def test_mode_found_by_user_space(vboot):
    """vsyscalltest, reading /proc/self/maps and the page, finds the mode the kernel booted with."""
    name, b = vboot
    mode = BOOTS[name][0]
    assert b.config.mode == mode
    b.expect(r"^# vsyscall mode: %s " % mode, "vsyscalltest's mode line")
    b.expect(r"^ok \d+ /bin/%s$" % PROGRAM, "init's result line for it")


def test_boot_lines(vboot):
    """At boot the kernel says what the page is and how getcpu reads the CPU number."""
    name, b = vboot
    mode, getcpu, clocksource = BOOTS[name]
    b.expect(r"^vsyscall: %s: page at ffffffffff600000: " % mode, "the page's boot line")
    b.expect(r"^vsyscall: getcpu reads node << 12 \| cpu = 0x0 with %s" % getcpu, "getcpu's boot line")
    if clocksource:
        b.expect(r"^clocksource: %s " % clocksource, "the clocksource asked for")


def test_warnings_are_provoked_and_well_formed(vboot):
    """Every vsyscall warning comes from vsyscalltest, in the design's format; no other warning."""
    name, b = vboot
    bad = []
    lines = b.lines()
    # From the kernel's first line on: the firmware and GRUB have their own warnings.
    start = lines.index("ccos: booting") if "ccos: booting" in lines else 0
    for line in lines[start:]:
        m = WARNING.match(line)
        if m:
            if m.group(1) != PROGRAM or m.group(3) not in MESSAGES:
                bad.append(line)
        elif (line.startswith("warning") or "exploit attempt" in line or "WARNING" in line
              or ("vsyscall" in line and "suppressed" in line and not SUPPRESSED.match(line))):
            bad.append(line)
    assert not bad, b.report("unexpected kernel warnings:\n  " + "\n  ".join(bad))


def test_one_warning_of_each_kind(vboot):
    """test_warning_formats: each call it makes gives exactly its warning, ip at the page."""
    name, b = vboot
    mode = BOOTS[name][0]
    lines = between(b, "# warnings: begin", "# warnings: end")
    got = [WARNING.match(l) for l in lines if WARNING.match(l)]
    assert [m.group(3) for m in got] == FORMAT_WARNINGS[mode], \
        b.report("warnings between the markers:\n  " + "\n  ".join(lines))
    for m in got:
        # the read's ip is the load's; xonly's illegal call is a fetch at +0x100, no entry
        want = {"vsyscall read attempt denied": None, "illegal int 0xcc (exploit attempt?)": NON_ENTRY}
        if want.get(m.group(3), ENTRY):
            assert m.group(4) == want.get(m.group(3), ENTRY), \
                b.report("ip:%s, expected %s" % (m.group(4), want.get(m.group(3), ENTRY)))


def test_illegal_int_burst_rate_limited(vboot):
    """100 illegal int 0xcc: some warnings, and never more than the burst of 10."""
    name, b = vboot
    lines = between(b, "# illegal int 0xcc burst: begin", "# illegal int 0xcc burst: end")
    illegal = [l for l in lines if WARNING.match(l)
               and WARNING.match(l).group(3) == "illegal int 0xcc (exploit attempt?)"]
    earlier = len(FORMAT_WARNINGS[BOOTS[name][0]])
    assert 1 <= len(illegal) <= 10 - earlier, \
        b.report("%d illegal-int warnings for 100 int 0xcc (%d warned just before)"
                 % (len(illegal), earlier))
    for l in illegal:
        assert WARNING.match(l).group(4) != ENTRY, b.report("an illegal int reported at the entry")
