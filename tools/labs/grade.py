"""Grading: boot what the labs need, run their checks, print each with its points and `Score: N/M`.

The boots are the test harness's (tools/tests/harness.py): the same ISO
builder, QEMU command and classifier. A boot that panics, double- or
triple-faults, hangs or never powers off fails the lab: its score is 0,
with the boot and the reason shown. The checks are still judged and
printed (what passed, what the boot's end lost), so that the student sees
how far it got. A check counts only when the checks it needs pass
(checks.py).
"""
import dataclasses
import os
import re

import harness
import ktap
import sources
from catalog import BOOTS
from checks import Missing

TODO = re.compile(r"^.*LAB TODO: .*$", re.MULTILINE)


@dataclasses.dataclass
class Context:
    lab: object
    answers_dir: str


@dataclasses.dataclass
class Outcome:
    """One check as graded: the points it got and, when none, why."""
    check: object
    got: int
    why: str = None


@dataclasses.dataclass
class LabResult:
    lab: object
    outcomes: list
    report: str             # the lab's part of the grade's output, as printed

    @property
    def score(self):
        return sum(o.got for o in self.outcomes)

    @property
    def points(self):
        return self.lab.points


def config(key, tree=None, prefix="lab"):
    """The harness configuration of one of the graders' boots (catalog.BOOTS)."""
    spec = BOOTS[key]
    build = os.path.join(tree or harness.ROOT, "build")
    # Labs 0 to 7 are the kernel before page-table isolation (2018), whose ring 3 reads the
    # HPET page however the vDSO reads the clock: their boots say pti=off, which make test
    # PTI=on (pti= on every boot that names none) then leaves alone. Lab 8's name pti=on.
    return harness.Config("%s-%s" % (prefix, key), mode=spec.mode,
                          cmdline=harness.with_pti(spec.cmdline, "off"),
                          modules=tuple(os.path.join(build, m) for m in spec.modules),
                          extra=spec.extra, tree=tree, gdb=spec.gdb)


def fatal(boot):
    """What makes a boot unusable as a whole: panic, triple fault, hang, no kernel."""
    want = boot.status if boot.status is not None else 0
    return ktap.classify(boot.log, boot.status, hung=boot.hung, expect_status=want,
                          qemu_output=boot.qemu_output)


def judge(lab, boots, problems, ctx):
    """Every check of the lab, in order: a list of Outcomes."""
    names = {c.id: c.name for c in lab.checks}
    counted, out = {}, []
    for c in lab.checks:
        why = c.judge(boots.get(c.boot), ctx)
        if isinstance(why, Missing) and problems.get(c.boot):
            why = "lost to the boot's end: the %s boot failed (%s) before it printed this: %s" % (
                c.boot, problems[c.boot][0], why)
        if not why:
            unmet = [n for n in c.needs if not counted[n]]
            if unmet:
                why = "passed, but counts only when %s passes" % " and ".join(
                    "'%s'" % names[n] for n in unmet)
        counted[c.id] = not why
        out.append(Outcome(c, 0 if why else c.points, why or None))
    return out


def grade_lab(lab, boots, answers_dir, root, write):
    """Run one lab's checks on its boots (key -> harness.Boot); a LabResult."""
    lines = []

    def say(s):
        lines.append(s)
        write(s)
    say("Lab %d %s: %s (%s)\n" % (lab.number, lab.name, lab.title, lab.handout))
    if not lab.checks:
        say("  not graded yet: see the handout\n")
        return LabResult(lab, [], "".join(lines))
    problems = {}
    for key in lab.boots:
        b = boots[key]
        problems[key] = fatal(b)
        say("  boot %-8s %5.1f s  serial log %s%s\n" % (
            key, b.seconds, os.path.relpath(b.log_path, root),
            "  FAILED: " + "; ".join(problems[key]) if problems[key] else ""))
    outcomes = judge(lab, boots, problems, Context(lab, answers_dir))
    crashed = ["the %s boot failed (%s)" % (k, problems[k][0]) for k in lab.boots if problems[k]]
    if crashed:
        # A kernel that crashes or hangs in one of the lab's boots earns nothing: the lab's
        # code must survive every case the boots make (docs/teaching.md).
        why = "; ".join(crashed) + ": a lab whose kernel panics, faults or hangs in any boot scores 0"
        outcomes = [Outcome(o.check, 0, o.why or "passed, but " + why) for o in outcomes]
    for o in outcomes:
        say("  %s %3d/%-3d %s\n" % ("pass" if not o.why else "FAIL", o.got, o.check.points, o.check.name))
        if o.why:
            say("               %s\n" % o.why)
    result = LabResult(lab, outcomes, "")
    if result.score < lab.points:
        todo = sorted({m.group(0).strip() for key in lab.boots for m in TODO.finditer(boots[key].log)
                       if lab.handout in m.group(0)})
        if todo:
            say("  the console says where to start:\n")
            for t in todo:
                say("    %s\n" % t)
    for key in lab.boots:
        if problems[key]:
            lost = [o.check.name for o in outcomes if o.check.boot == key and o.why
                    and o.why.startswith("lost to the boot's end")]
            say("  the %s boot failed; %s\n  its last lines:\n%s\n" % (
                key, "the checks lost to it: " + "; ".join(lost) if lost else
                "every result this lab reads was printed before", boots[key].tail(15)))
    if crashed:
        say("  score 0: %s\n" % why)
    say("Lab %d %s: %d/%d\n\n" % (lab.number, lab.name, result.score, lab.points))
    result.report = "".join(lines)
    return result


def boot_all(labs, tree=None, prefix="lab"):
    """Boot every configuration the labs need, two at a time; key -> Boot."""
    keys = sorted({k for lab in labs for k in lab.boots})
    configs = {k: config(k, tree, prefix) for k in keys}
    harness.prefetch(configs.values())
    return {k: harness.boot(c) for k, c in configs.items()}


def report_path(root, lab):
    return os.path.join(root, "build", "grade", lab.slug + ".txt")


def grade_tree(root, labs, answers_dir, write):
    """Build nothing, boot, grade each lab and write its report (with the
    digest of the sources graded) to build/grade/NN-name.txt; LabResults."""
    graded_from = sources.line(root)
    os.makedirs(os.path.join(root, "build", "grade"), exist_ok=True)
    try:
        boots = boot_all([l for l in labs if l.checks])
    finally:
        harness.shutdown()
    results = []
    for lab in labs:
        r = grade_lab(lab, boots, answers_dir, root, write)
        with open(report_path(root, lab), "w") as f:
            f.write(r.report + graded_from + "Score: %d/%d\n" % (r.score, r.points))
        results.append(r)
    return results
