"""Grading: boot what the labs need, run their checks, print each with its points and `Score: N/M`.

The boots are the test harness's (tools/tests/harness.py): the same ISO
builder, QEMU command and classifier, so a panic, a triple fault, a hang
or a missing power-off fails every check of that boot, with the reason and
the serial log's place.
"""
import dataclasses
import os
import re

import harness
import ktap
from catalog import BOOTS

TODO = re.compile(r"^.*LAB TODO: .*$", re.MULTILINE)


@dataclasses.dataclass
class Context:
    lab: object
    answers_dir: str


def config(key, tree=None, prefix="lab"):
    """The harness configuration of one of the graders' boots (catalog.BOOTS)."""
    spec = BOOTS[key]
    build = os.path.join(tree or harness.ROOT, "build")
    return harness.Config("%s-%s" % (prefix, key), mode=spec.mode, cmdline=spec.cmdline,
                          modules=tuple(os.path.join(build, m) for m in spec.modules),
                          tree=tree)


def fatal(boot):
    """What makes a boot unusable as a whole: panic, triple fault, hang, no kernel."""
    want = boot.status if boot.status is not None else 0
    return ktap.classify(boot.log, boot.status, hung=boot.hung, expect_status=want,
                          qemu_output=boot.qemu_output)


def grade_lab(lab, boots, answers_dir, root, write):
    """Run one lab's checks on its boots (key -> harness.Boot); returns (score, points)."""
    write("Lab %d %s: %s (%s)\n" % (lab.number, lab.name, lab.title, lab.handout))
    if not lab.checks:
        write("  not graded yet: see the handout\n")
        return 0, 0
    problems = {}
    for key in lab.boots:
        b = boots[key]
        problems[key] = fatal(b)
        write("  boot %-8s %5.1f s  serial log %s%s\n" % (
            key, b.seconds, os.path.relpath(b.log_path, root),
            "  FAILED: " + "; ".join(problems[key]) if problems[key] else ""))
    score = 0
    ctx = Context(lab, answers_dir)
    for c in lab.checks:
        if c.boot and problems[c.boot]:
            why = "the boot failed: " + "; ".join(problems[c.boot])
        else:
            why = c.judge(boots.get(c.boot), ctx)
        got = 0 if why else c.points
        score += got
        write("  %s %3d/%-3d %s\n" % ("pass" if not why else "FAIL", got, c.points, c.name))
        if why:
            write("               %s\n" % why)
    if score < lab.points:
        todo = sorted({m.group(0).strip() for key in lab.boots for m in TODO.finditer(boots[key].log)
                       if lab.handout in m.group(0)})
        if todo:
            write("  the console says where to start:\n")
            for t in todo:
                write("    %s\n" % t)
        if any(problems.values()):
            for key in lab.boots:
                if problems[key]:
                    write("  last lines of the %s boot:\n%s\n" % (key, boots[key].tail(15)))
    write("Lab %d %s: %d/%d\n\n" % (lab.number, lab.name, score, lab.points))
    return score, lab.points


def boot_all(labs, tree=None, prefix="lab"):
    """Boot every configuration the labs need, two at a time; key -> Boot."""
    keys = sorted({k for lab in labs for k in lab.boots})
    configs = {k: config(k, tree, prefix) for k in keys}
    harness.prefetch(configs.values())
    return {k: harness.boot(c) for k, c in configs.items()}
