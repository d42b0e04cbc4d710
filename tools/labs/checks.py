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

import gdbboot
import harness
import ptiaudit

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


# --- Page-table isolation seen from outside (lab 8): a boot under gdb (catalog.PTI_SCRIPT)
# stopped in ring 3 at init's main, QEMU's walk of that CPU's CR3 (`info tlb`), then in
# syscall_dispatch. What the user table must map comes from the tree's kernel.elf.

def _gdb_step(b, name, what):
    out = gdbboot.step(b.gdb, name)
    if out is None or not ptiaudit.printed_values(out):
        return Missing("gdb never stopped %s (its output: %s)" % (what, os.path.join(
            os.path.dirname(b.log_path), "gdb.log")))
    return out


def _ring3(b):
    """(CR3, {page: perms} of its kernel half) as gdb and QEMU saw them in ring 3, or a reason."""
    out = _gdb_step(b, "user", "in ring 3 at init's main")
    if isinstance(out, Missing):
        return out
    cs, cr3 = (ptiaudit.printed_values(out) + [0, 0])[:2]
    if cs & 3 != 3:
        return "stopped at init's main with CS %#x, not in ring 3" % cs
    large = []
    pages = ptiaudit.tlb_pages(out, large)
    if large:
        return "ring 3's table (CR3 %#x) maps %d large pages of the kernel half, from %#x: " \
               "the kernel's own table (is PTI on?)" % (cr3, len(large), large[0])
    return cr3, pages


def _expected(b):
    return ptiaudit.expected_pages(b.config.mode, "clocksource=hpet" in b.config.cmdline,
                                   harness.build_dir(b.config))


def ring3_on_user_table(points, name, boot, id, needs=()):
    """In ring 3, CR3 is the odd page of its pair, which maps the entry text and not the
    rest of the kernel (the pages of pti_init and kernel_pml4)."""
    def judge(b, ctx):
        r = _ring3(b)
        if not isinstance(r, tuple):
            return r
        cr3, pages = r
        if not cr3 & 0x1000:
            return "CR3 %#x in ring 3: bit 12 clear, so not the user table of a pair" % cr3
        syms = ptiaudit.kernel_symbols(harness.build_dir(b.config))
        entry = syms["__entry_text_start"][0] & ~0xfff
        if entry not in pages:
            return "the table in CR3 (%#x) in ring 3 lacks the entry text (%#x)" % (cr3, entry)
        for sym in ("pti_init", "kernel_pml4"):
            if syms[sym][0] & ~0xfff in pages:
                return "ring 3's table (CR3 %#x) maps the kernel's %s (%#x)" % (cr3, sym, syms[sym][0])
        return None
    return Check(points, name, boot, judge, id, tuple(needs))


def user_table_pages(points, name, boot, id, which, needs=()):
    """The user table's kernel half, as QEMU walked it in ring 3: `entry` every page the entry
    needs with its permissions; `only` nothing the mode does not need; `exact` both; or an
    address: that page, with the permissions the mode wants, or absent where it wants none."""
    def judge(b, ctx):
        r = _ring3(b)
        if not isinstance(r, tuple):
            return r
        actual, expected = r[1], _expected(b)
        if which == "entry":
            expected = ptiaudit.entry_pages(harness.build_dir(b.config))
        if isinstance(which, int):
            want, got = expected.get(which), actual.get(which)
            if want != got:
                return "%#x in the user table: %s, expected %s" % (
                    which, ptiaudit.describe({which: got}) if got else "absent",
                    ptiaudit.describe({which: want}) if want else "absent")
            return None
        missing = {p: v for p, v in expected.items() if actual.get(p) != v} if which != "only" else {}
        extra = {p: v for p, v in actual.items() if p not in expected} if which != "entry" else {}
        if missing or extra:
            return ("the user table's kernel half in vsyscall=%s: %d pages expected, %d mapped; "
                    "missing or other permissions (u w x): %s; not needed: %s"
                    % (b.config.mode, len(expected), len(actual), ptiaudit.describe(missing) or "none",
                       ptiaudit.describe(extra) or "none"))
        return None
    return Check(points, name, boot, judge, id, tuple(needs))


def kernel_on_its_table(points, name, boot, id, needs=()):
    """In syscall_dispatch: ring 0 on the pair's even page (user CR3 - 0x1000)."""
    def judge(b, ctx):
        r = _ring3(b)
        out = _gdb_step(b, "kernel", "in syscall_dispatch")
        if not isinstance(r, tuple) or isinstance(out, Missing):
            return out if isinstance(out, Missing) else r
        cs, cr3 = (ptiaudit.printed_values(out) + [0, 0])[:2]
        if cs & 3:
            return "CS %#x in syscall_dispatch" % cs
        if cr3 & ~0xfff != (r[0] & ~0xfff) - 0x1000:
            return "CR3 %#x in syscall_dispatch, %#x in ring 3: not the user table's pair" % (cr3, r[0])
        return None
    return Check(points, name, boot, judge, id, tuple(needs))


def exit_on_user_table(points, name, boot, step, what, id, needs=()):
    """Stopped at an exit's last instruction (catalog.PTI_SCRIPT's step), CR3 is the user
    table already: a SYSRET or iretq on the kernel's table would fault on the first fetch of
    the no-execute user half and come back through another exit, unseen by ring 3."""
    def judge(b, ctx):
        out = _gdb_step(b, step, what)
        if isinstance(out, Missing):
            return out
        cr3 = ptiaudit.printed_values(out)[0]
        if not cr3 & 0x1000:
            return "CR3 %#x %s: the kernel's table" % (cr3, what)
        return None
    return Check(points, name, boot, judge, id, tuple(needs))


def kernel_user_half_nx(points, name, boot, id, needs=()):
    """In syscall_dispatch, the kernel's PML4 entry of the user half (0x400000) is NX."""
    def judge(b, ctx):
        out = _gdb_step(b, "kernel", "in syscall_dispatch")
        if isinstance(out, Missing):
            return out
        m = re.search(r"^\s*PML4\[\s*0\].*$", out, re.MULTILINE)
        if not m:
            return Missing("ccos-pt 0x400000 printed no PML4 entry")
        if " NX" not in m.group(0):
            return "the kernel's PML4 entry of 0x400000 lets the kernel run user code: %s" % m.group(0).strip()
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
