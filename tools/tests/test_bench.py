"""make bench's figures (tools/bench) against the cost tables of docs/vsyscall.md.

The bench boots (tools/bench's config) run user/bench as init under QEMU's -icount,
where every figure is an exact count of guest instructions. The table's
"ccos" column must say what the kernel does today: within 3% (or 2
instructions; 5% for a call longer than a tick, which keeps one or two), so
that a change which moves a cost makes the table move too.
"""
import os
import re

import pytest

import harness

# make bench runs these (-m bench), after the goals; make test leaves them out.
pytestmark = pytest.mark.bench

bench = harness._load_tool("bench")
DOC = os.path.join(harness.ROOT, "docs", "vsyscall.md")
# lmbench's paths: the table's row -> bench's (call, path), from the emulate boot.
LMBENCH = {
    "an unknown system call": ("enosys", "syscall"),
    "fork+exit+wait": ("fork", "exit+wait"),
    "fork+execve+wait": ("fork", "exec+wait"),
    "pipe round trip": ("pipe", "roundtrip"),
    "`sched_yield`": ("yield", "syscall"),
    "a signal to its handler": ("signal", "handler"),
    "open+close": ("open+close", "bin"),
    "stat of": ("stat", "bin"),
    "mmap, touch, munmap: one page": ("mmap+touch", "1-page"),
    "mmap, touch, munmap: 64 pages": ("mmap+touch", "64-pages"),
    "mprotect among": ("mprotect", "16k-areas"),
}
# Paths whose figure moves with which of parent and child runs first (which one copies).
FORKS = {"fork+exit+wait", "fork+execve+wait"}
# A call longer than a tick (78,125 instructions) keeps one or two of them, a few thousand
# instructions each (tools/bench).
LONG = {"mmap, touch, munmap: 64 pages"}
# | what | ccos before | ccos | Linux 6.1 | ...
ROW = re.compile(r"^\| (null system call|gettimeofday|time|getcpu|boot|%s)[^|]*\|[^|]*\|([^|]+)\|"
                 % "|".join(re.escape(k) for k in LMBENCH))


def table():
    """{row name: [numbers of the ccos column]}"""
    rows = {}
    with open(DOC) as f:
        for line in f:
            m = ROW.match(line)
            if m:
                rows[m.group(1)] = [float(x.strip().rstrip("M").strip())
                                    for x in m.group(2).split("/")]
    return rows


def measured():
    """{row name: [figures]}, in the table's order: system call, emulate, xonly, vDSO."""
    figs = {}
    for mode in ("emulate", "xonly"):
        b = harness.boot(bench.config(mode))
        b.check()
        f = bench.figures(b)
        assert f, b.report("the bench boot printed no figures")
        figs[mode] = f
    (em, _, boot), (xo, _, _) = figs["emulate"], figs["xonly"]
    rows = {"null system call": [em[("null", "syscall")]], "boot": [boot / 1e6]}
    for call in ("gettimeofday", "time", "getcpu"):
        rows[call] = [em[(call, "syscall")], em[(call, "vsyscall")], xo[(call, "vsyscall")],
                      em[(call, "vdso")]]
    for row, key in LMBENCH.items():
        rows[row] = [em[key]]
    return rows


@pytest.mark.parametrize("row", ["null system call", "gettimeofday", "time", "getcpu", "boot"]
                         + sorted(LMBENCH))
def test_cost_table(row):
    if harness.PTI:
        pytest.skip("make test PTI=%s: docs/vsyscall.md's figures are of the default boot;"
                    " make bench prints PTI's own" % harness.PTI)
    if row == "boot" and harness.cpus(bench.config("emulate")) != 1:
        pytest.skip("make test SMP=%s: the table's boot is of one CPU; each one more"
                    " starts with instructions of its own" % harness.SMP)
    doc, now = table(), measured()
    assert row in doc, "docs/vsyscall.md has no cost-table row for %r" % row
    assert len(doc[row]) == len(now[row]), "docs/vsyscall.md, %s: %d figures, expected %d" % (
        row, len(doc[row]), len(now[row]))
    for said, got in zip(doc[row], now[row]):
        tolerance = (0.05 * got if row == "boot" or row in LONG else 0.25 * got if row in FORKS
                     else max(2, 0.03 * got))
        assert abs(said - got) <= tolerance, (
            "docs/vsyscall.md's cost table, %s: says %s, make bench measures %s now (%s);"
            " run make bench and update the table" % (
                row, " / ".join("%g" % x for x in doc[row]),
                " / ".join("%.2f" % x if row == "boot" else "%d" % round(x) for x in now[row]),
                "M instructions" if row == "boot" else "instructions per call"))
