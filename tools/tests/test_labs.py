"""The course kit proves itself (docs/teaching.md).

For every graded lab: its student tree builds, boots, and scores exactly
its answers file's points, with the stub's `LAB TODO:` message among the
failures (no free points); no line of a stubbed solution survives in it,
docs included; the full tree scores full marks. One student tree with its
lab's solution put back scores full marks; and the grade is a Gradescope
results.json as its specification gives it. The grader's rules, the
hand-in, the platforms and a class graded in a batch are checked in
test_labs_kit.py; the mutation suite (`make mutants`) is not part of
`make test`: it builds a tree per mutant (test_labs_kit.py checks that
each still applies).

The student trees (labkit.py) live in build/labs/; each starts from a
copy of this tree's build/, so that `make` there rebuilds only what the
stubs change. Their boots share the harness's two QEMUs with the rest of
the suite.
"""
import os

import pytest

import harness
from labkit import LABS, RESTORED, catalog, grade, regions, results, tree, grade_with, built  # noqa: F401


@pytest.mark.parametrize("lab", [lab.name for lab in LABS])
def test_full_tree_full_marks(kit, lab):
    lab = catalog.find(lab)
    r, _ = grade_with(kit, lab, {k: kit["full"][k] for k in lab.boots}, harness.ROOT)
    assert r.score == r.points, "the full tree scores %d/%d on lab %s:\n%s" % (r.score, r.points,
                                                                             lab.name, r.report)


@pytest.mark.parametrize("lab", [lab.name for lab in LABS])
def test_untouched_stub_scores_only_its_answers(kit, lab):
    """No free points: the starting point earns the answers file's points and nothing else."""
    lab, path, configs = built(kit, catalog.find(lab).slug)
    r, boots = grade_with(kit, lab, configs, path)
    for key, b in boots.items():
        assert not grade.fatal(b), "the %s boot of the student tree failed:\n%s" % (key, r.report)
    answers = sum(c.points for c in lab.checks if c.id == "answers")
    assert r.score == answers, "the untouched student tree of %s scores %d, not %d (its answers):\n%s" % (
        lab.name, r.score, answers, r.report)
    assert "LAB TODO: " in r.report and lab.handout in r.report, \
        "the stub's message is not among the failures:\n%s" % r.report


@pytest.mark.parametrize("lab", [lab.name for lab in LABS])
def test_no_solution_survives(kit, lab):
    """No marker, no line of a stubbed solution that is not elsewhere in the full file, no
    solution line anywhere in the tree (docs too: tree.check_leaks), no mutant."""
    lab, path, _ = built(kit, catalog.find(lab).slug)
    tree.check_leaks(harness.ROOT, lab)
    assert not [p for p in tree.tracked_files(path) if p.startswith(tree.TEACHER_ONLY)]
    stubbed = tree.stubbed_labs(lab)
    for rel, rs in tree.all_regions(harness.ROOT).items():
        with open(os.path.join(harness.ROOT, rel)) as f:
            full = f.read()
        with open(os.path.join(path, rel)) as f:
            student = f.read()
        assert not regions.ANY.search(student), "%s: a LAB marker is left in the student tree" % rel
        outside = regions.render(full, {r.lab for r in rs})    # the file with every region stubbed
        for r in rs:
            if r.lab not in stubbed:
                continue
            for line in r.solution:
                text = line.strip()
                if len(text) < 12 or text in outside:
                    continue        # a brace, a short or shared line: not the solution's own
                assert text not in student, "%s: solution line of %s left: %s" % (rel, r.lab, text)


def _samples(handout):
    """The lines of a handout's samples of what the starting point prints: its fenced
    blocks that begin with the stub's `LAB TODO:` message."""
    with open(os.path.join(harness.ROOT, handout)) as f:
        blocks = f.read().split("```")[1::2]
    lines = [b.strip().splitlines() for b in blocks]
    return [line for block in lines if block and block[0].startswith("LAB TODO: ") for line in block]


@pytest.mark.parametrize("lab", [lab.name for lab in LABS if _samples(lab.handout)])
def test_handout_samples_are_what_the_stub_prints(kit, lab):
    """A line a handout shows as the starting point's output is a line one of the untouched
    tree's grading boots printed (docs/labs/08-pti.md once showed an Intel CPU's)."""
    lab, path, configs = built(kit, catalog.find(lab).slug)
    printed = set()
    for b in (harness.boot(c) for c in configs.values()):
        with open(b.log_path, errors="replace") as f:
            printed.update(line.strip() for line in f)
    missing = [line for line in _samples(lab.handout) if line.strip() not in printed]
    assert not missing, "%s shows lines no boot of the starting point printed: %s" % (
        lab.handout, missing)


@pytest.mark.parametrize("lab", RESTORED)
def test_restored_solution_full_marks(kit, lab):
    """Full marks, and no boot of the tree prints a failing case: a case that needs a later
    lab's code skips until that lab is done, and says so."""
    lab, path, configs = built(kit, "restored-" + lab)
    r, boots = grade_with(kit, lab, configs, path)
    assert r.score == r.points, "with its solution put back, %s scores %d/%d:\n%s" % (
        lab.name, r.score, r.points, r.report)
    for key, b in boots.items():
        with open(b.log_path, errors="replace") as f:
            failing = [line.strip() for line in f if line.lstrip().startswith("not ok")]
        assert not failing, "the %s boot of a correct lab %d tree (%s) fails cases:\n%s" % (
            key, lab.number, os.path.relpath(b.log_path, harness.ROOT), "\n".join(failing))


def test_gradescope_results_of_a_grade(kit, tmp_path):
    """`make grade RESULTS=` writes what Gradescope's specification asks (kit_formats.py)."""
    import kit_formats
    lab = catalog.find(RESTORED[0])
    r, _ = grade_with(kit, lab, {k: kit["full"][k] for k in lab.boots}, harness.ROOT)
    stub, _ = grade_with(kit, lab, built(kit, lab.slug)[2], harness.ROOT)
    for rs, full in (([r], True), ([stub], False), ([r, stub], False)):
        obj = results.gradescope(rs, "the report")
        kit_formats.check_gradescope(obj)
        assert obj["score"] == sum(x.score for x in rs)
        assert (obj["score"] == sum(t["max_score"] for t in obj["tests"])) == full
        kit_formats.check_classroom(results.classroom(obj), obj)
    kit_formats.check_gradescope(results.failed_build(lab, "cc: error\n"))
