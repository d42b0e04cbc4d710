"""KTAP as the harness reads it from a serial log: the documents and their results
(parse_ktap), and the problems that make a boot a failure (classify).
"""
import dataclasses
import re

_VERSION = re.compile(r"^K?TAP version \d+\s*$")
_PLAN = re.compile(r"^1\.\.(\d+)\s*(?:#.*)?$")
_RESULT = re.compile(r"^(ok|not ok) (\d+)(?: - | |$)([^#]*?)\s*(?:#\s*(.*?))?\s*$")


@dataclasses.dataclass
class Result:
    """One top-level KTAP result line."""
    ok: bool
    number: int
    name: str
    directive: str = ""     # "SKIP" or "TODO", else empty
    reason: str = ""        # after "#" (and after the directive)
    line: str = ""
    details: list = dataclasses.field(default_factory=list)  # lines printed since the last result

    @property
    def skipped(self):
        return self.directive in ("SKIP", "TODO")

    @property
    def failed(self):
        return not self.ok and not self.skipped


@dataclasses.dataclass
class Document:
    """One KTAP document: from a `KTAP version 1` line to the next."""
    plan: int = None
    results: list = dataclasses.field(default_factory=list)


def parse_result(line):
    m = _RESULT.match(line)
    if not m:
        return None
    ok, number, name, comment = m.group(1) == "ok", int(m.group(2)), m.group(3), m.group(4) or ""
    directive = ""
    d = re.match(r"(SKIP|TODO)\b\s*(.*)$", comment, re.IGNORECASE)
    if d:
        directive, comment = d.group(1).upper(), d.group(2)
    return Result(ok, number, name.strip(), directive, comment, line)


def parse_ktap(text):
    """The top-level KTAP documents in a log, in order.

    Only lines that start in column 0 count; indented lines (nested subtests,
    a test's own messages) and any other lines are kept as the details of
    the result that follows them, to be shown when it fails.
    """
    docs, pending = [], []
    for line in text.splitlines():
        if _VERSION.match(line):
            docs.append(Document())
            pending = []
            continue
        if not docs:
            continue
        doc = docs[-1]
        m = _PLAN.match(line)
        if m and doc.plan is None and not doc.results:
            doc.plan = int(m.group(1))
            continue
        r = parse_result(line)
        if r:
            r.details = pending
            pending = []
            doc.results.append(r)
        elif line.strip():
            pending.append(line)
    return docs


def _ranges(numbers):
    """[3, 4, 5, 9] -> '3-5, 9'"""
    out, numbers = [], sorted(numbers)
    i = 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        out.append(str(numbers[i]) if i == j else "%d-%d" % (numbers[i], numbers[j]))
        i = j + 1
    return ", ".join(out)


def ktap_problems(docs):
    """What is wrong with the KTAP of a boot that should have printed some."""
    if not docs:
        return ["no KTAP output: no 'KTAP version 1' line in the log"]
    problems = []
    for i, doc in enumerate(docs, 1):
        where = "KTAP document %d" % i if len(docs) > 1 else "KTAP"
        if doc.plan is None:
            problems.append("%s: no plan line ('1..N') after 'KTAP version 1'" % where)
            continue
        numbers = [r.number for r in doc.results]
        if numbers != list(range(1, len(numbers) + 1)):
            problems.append("%s: results are numbered %s, not 1..%d in order"
                            % (where, _ranges(numbers) if numbers else "nothing", len(numbers)))
        missing = set(range(1, doc.plan + 1)) - set(numbers)
        if missing:
            problems.append("%s: planned %d results, got %d; missing %s (the boot stopped early?)"
                            % (where, doc.plan, len(doc.results), _ranges(missing)))
        extra = [n for n in numbers if n > doc.plan]
        if extra:
            problems.append("%s: planned %d results, got more: %s" % (where, doc.plan, _ranges(extra)))
    return problems


def classify(log, status, *, ktap=False, hung=None, expect_status=None, qemu_output=""):
    """The problems that make a boot a failure (empty: it passed).

    log: the serial log text; status: what ccos wrote to isa-debug-exit, or
    None when QEMU exited without it; ktap: the boot must print KTAP;
    hung: why the watchdog killed QEMU, or None; expect_status: the exit status wanted; None: 0, except that with ktap
    it must be non-zero exactly when a KTAP result failed.
    """
    problems = []
    panic = re.search(r"^.*Kernel panic.*$", log, re.MULTILINE)
    if panic:
        problems.append(panic.group(0).strip())
    if hung:
        problems.append("hung (%s): the kernel stopped or never powered off" % hung)
    elif status is None:
        problems.append("QEMU exited without an isa-debug-exit status: a triple fault or a"
                        " reset (QEMU runs with -no-reboot), or QEMU itself failed")
    if "ccos: booting" not in log:
        problems.append("the kernel never started: no 'ccos: booting' line in the log")
    if qemu_output.strip():
        problems.append("QEMU said: " + qemu_output.strip())
    docs = parse_ktap(log)
    if ktap:
        problems += ktap_problems(docs)
    if status is not None and not hung and not panic:
        failed = [r for d in docs for r in d.results if r.failed]
        if expect_status is not None or not ktap:
            want = expect_status or 0
            if status != want:
                problems.append("exit status %d, expected %d" % (status, want))
        elif failed and status == 0:
            problems.append("exit status 0 although %d KTAP result(s) failed" % len(failed))
        elif not failed and status != 0:
            problems.append("exit status %d although no KTAP result failed" % status)
    return problems
