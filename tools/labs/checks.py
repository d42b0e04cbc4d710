"""The kinds of check a lab's grader makes, each worth some points.

A check is given the Boot (tools/tests/harness.py) of the boot it names and
returns None when it passes, else the reason it failed, in words a student
can act on. A reason of type Missing says that what the check reads was
never printed: after a boot that hung or panicked, such a check was lost
to the boot's end, and the report says so; whatever was printed before
still counts.

Each check has an id, unique in its lab, and may name the ids of checks it
`needs`: it counts only when they pass. A negative check ("ring 3 cannot
write the page") passes when nothing is there at all, so it needs the
positive check of the same object ("ring 3 reads the page"): an untouched
stub scores nothing but its answers file (tools/tests/test_labs.py).
"""
import dataclasses
import os
import re

PTDUMP = re.compile(r"^ptdump: ([0-9a-f]{16})-([0-9a-f]{16}) +\d+[KM] (USR|   ) (RW|ro) (NX|x ) "
                    r"(PCD|   ) (PWT|   ) (pte|pmd)\b.*$", re.MULTILINE)
PTDUMP_END = re.compile(r"^ptdump: end$", re.MULTILINE)
KERNEL_HALF = 0xffff800000000000
FIXMAP = {0xffffffffff5fe000, 0xffffffffff5ff000, 0xffffffffff600000}


class Missing(str):
    """A failure because what the check reads is not in the log (never printed)."""


@dataclasses.dataclass(frozen=True)
class Check:
    points: int
    name: str
    boot: str               # a key of catalog.BOOTS, or None
    judge: object           # judge(boot, ctx) -> None or the reason it failed
    id: str                 # unique in its lab: what `needs` and the mutants name
    needs: tuple = ()       # ids of checks (earlier in the lab) that must pass for this one to count


def _ktap_result(boot, name):
    for doc in boot.ktap:
        for r in doc.results:
            if r.name == name:
                return r
    return None


def ktap(points, name, boot, result, needs=(), id=None):
    """A ring-3 test's KTAP result, by its name: it must be `ok` (a SKIP is not)."""
    def judge(b, ctx):
        r = _ktap_result(b, result)
        if r is None:
            return Missing("no KTAP result named %s: the test program stopped or never ran" % result)
        if r.skipped:
            return "%s was skipped: %s" % (result, r.reason)
        if r.failed:
            return "%s failed%s" % (result, ": " + r.reason if r.reason else "")
        return None
    return Check(points, name, boot, judge, id or result, tuple(needs))


def line(points, name, boot, pattern, id, needs=()):
    """A line of the console matching a regular expression."""
    def judge(b, ctx):
        if re.search(pattern, b.log, re.MULTILINE):
            return None
        return Missing("no console line matches %r" % pattern)
    return Check(points, name, boot, judge, id, tuple(needs))


def count_between(points, name, boot, begin, end, pattern, least, most, id, needs=()):
    """Between a begin and an end line of the console, least..most lines matching pattern."""
    def judge(b, ctx):
        lines = b.log.splitlines()
        if begin not in lines or end not in lines[lines.index(begin):]:
            return Missing("no %r ... %r lines on the console: the test program stopped before"
                           % (begin, end))
        part = lines[lines.index(begin):]
        part = part[:part.index(end)]
        n = sum(1 for l in part if re.search(pattern, l))
        if not least <= n <= most:
            return "%d lines match %r between %r and %r; expected %d to %d" % (n, pattern, begin, end,
                                                                          least, most)
        return None
    return Check(points, name, boot, judge, id, tuple(needs))


def ptdump_ranges(log):
    """(start, end, flags) of each ptdump line; flags a set of USR RW NX PCD PWT."""
    out = []
    for m in PTDUMP.finditer(log):
        flags = {f for f in m.group(3, 4, 5, 6, 7) if f.strip() and f not in ("ro", "x ")}
        out.append((int(m.group(1), 16), int(m.group(2), 16), flags))
    return out


def _whole_ptdump(log):
    """The ptdump ranges, or Missing when the dump is absent or cut short."""
    if not PTDUMP_END.search(log):
        return Missing("no complete ptdump on the console (the boot passes `ptdump`; "
                       "its last line is `ptdump: end`)")
    return ptdump_ranges(log)


def page(points, name, boot, addr, id, needs=(), **want):
    """The effective flags of the page at addr, as ptdump prints them."""
    names = {"user": "USR", "rw": "RW", "nx": "NX", "pcd": "PCD", "pwt": "PWT"}

    def judge(b, ctx):
        ranges = _whole_ptdump(b.log)
        if isinstance(ranges, Missing):
            return ranges
        hit = [r for r in ranges if r[0] <= addr < r[1]]
        if not hit:
            return "%x is not mapped" % addr
        flags = hit[0][2]
        wrong = ["%s %s" % (names[k], "missing" if v else "set")
                 for k, v in want.items() if (names[k] in flags) != v]
        if wrong:
            return "%x has %s: %s" % (addr, " ".join(sorted(flags)) or "no flags", ", ".join(wrong))
        return None
    return Check(points, name, boot, judge, id, tuple(needs))


def only_fixmap_user(points, name, boot, id, needs=()):
    """No kernel-half page but the three fixmap pages is user-accessible."""
    def judge(b, ctx):
        ranges = _whole_ptdump(b.log)
        if isinstance(ranges, Missing):
            return ranges
        for start, end, flags in ranges:
            if start >= KERNEL_HALF and "USR" in flags and not set(range(start, end, 4096)) <= FIXMAP:
                return "user-accessible kernel range %x-%x" % (start, end)
        return None
    return Check(points, name, boot, judge, id, tuple(needs))


IDTDUMP = re.compile(r"^idtdump: vector 0x([0-9a-f]{2}): P (\d) type 0x([0-9a-f]) \([a-z ]+\) DPL (\d) "
                     r"IST (\d) selector 0x([0-9a-f]+) target (its own stub|another address)$", re.MULTILINE)
IDTDUMP_END = re.compile(r"^idtdump: end$", re.MULTILINE)
GATE_TYPES = {0xe: "an interrupt gate", 0xf: "a trap gate"}


def idt_gates(log):
    """vector -> its gate as idtdump printed it (arch/x86/idt.c), or Missing."""
    if not IDTDUMP_END.search(log):
        return Missing("no complete idtdump on the console (the boot passes `idtdump`; "
                       "its last line is `idtdump: end`)")
    return {int(m.group(1), 16): {"present": m.group(2) == "1", "type": int(m.group(3), 16),
                                  "dpl": int(m.group(4)), "ist": int(m.group(5)),
                                  "selector": int(m.group(6), 16), "own_stub": m.group(7) == "its own stub"}
            for m in IDTDUMP.finditer(log)}


def gate(points, name, boot, vectors, id, needs=(), **want):
    """The IDT gates of vectors as the CPU reads them (idtdump): each field in want as given
    (present, type, dpl, ist, selector, own_stub)."""
    def judge(b, ctx):
        gates = idt_gates(b.log)
        if isinstance(gates, Missing):
            return gates
        for v in vectors:
            g = gates.get(v)
            if g is None:
                return "idtdump printed no gate of vector %#x" % v
            wrong = []
            for k, v_want in want.items():
                if g[k] != v_want:
                    show = (lambda x: GATE_TYPES.get(x, "type %#x" % x)) if k == "type" else repr
                    wrong.append("%s is %s, not %s" % (k, show(g[k]), show(v_want)))
            if wrong:
                return "the gate of vector %#x in vsyscall=%s: %s" % (v, boot_mode(b), "; ".join(wrong))
        return None
    return Check(points, name, boot, judge, id, tuple(needs))


def boot_mode(b):
    m = re.search(r"vsyscall=(\w+)", b.log)
    return m.group(1) if m else "?"


USER_TABLE = re.compile(r"^ptdump: user table entry: level (\d) covers ([0-9a-f]{16})-([0-9a-f]{16})$", re.MULTILINE)


def user_tables_only_to(points, name, boot, addrs, id, needs=()):
    """Every upper-level entry of the kernel half with U (ptdump's `user table entry` lines)
    is on the way to one of addrs: U nowhere else above a leaf."""
    def judge(b, ctx):
        if isinstance(_whole_ptdump(b.log), Missing):
            return _whole_ptdump(b.log)
        for m in USER_TABLE.finditer(b.log):
            lo, hi = int(m.group(2), 16), int(m.group(3), 16)
            if not any(lo <= a <= hi for a in addrs):
                return "the level %s entry covering %x-%x has U, and no user page lies below it" % (
                    m.group(1), lo, hi)
        return None
    return Check(points, name, boot, judge, id, tuple(needs))


def answers(points):
    """The lab's answers file: present and not empty (read by a person)."""
    def judge(b, ctx):
        path = os.path.join(ctx.answers_dir, ctx.lab.answers)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            return "%s is missing: answer the handout's questions in it" % ctx.lab.answers
        if not text.strip():
            return "%s is empty" % ctx.lab.answers
        return None
    return Check(points, "answers file present", None, judge, "answers")
