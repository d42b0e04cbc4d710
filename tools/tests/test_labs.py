"""The course kit proves itself (docs/teaching.md).

For every graded lab: its student tree builds, boots, and scores below
full marks with the stub's `LAB TODO:` message among the failures; no line
of a stubbed solution survives in it; the full tree scores full marks.
And one student tree with its lab's solution put back scores full marks.

The student trees live in build/labs/; each starts from a copy of this
tree's build/, so that `make` there rebuilds only what the stubs change.
Their boots share the harness's two QEMUs with the rest of the suite.
"""
import os
import shutil
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor

import pytest

import harness

sys.path.insert(0, os.path.join(harness.ROOT, "tools", "labs"))
import catalog  # noqa: E402
import grade  # noqa: E402
import handin  # noqa: E402
import regions  # noqa: E402
import tree  # noqa: E402

LABS = catalog.graded()
LAB_DIR = os.path.join(harness.BUILD, "labs")
RESTORED = os.environ.get("CCOS_LABS_RESTORED", "emulate").split()   # the labs whose solution
                                                                    # is put back into their tree


def _make(path):
    r = subprocess.run(["make", "-C", path, "all", "GRUB_TIMEOUT=0"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def _new_tree(lab, name, restore=False):
    """Write, seed and build one student tree; (path, make status, make output)."""
    path = os.path.join(LAB_DIR, name)
    shutil.rmtree(path, ignore_errors=True)
    tree.write_tree(harness.ROOT, lab, path)
    if restore:
        for rel in tree.all_regions(harness.ROOT):
            with open(os.path.join(harness.ROOT, rel)) as f:
                full = f.read()
            with open(os.path.join(path, rel)) as f:
                student = f.read()
            fixed = regions.restore(student, full, lab.name, rel)
            if fixed != student:
                with open(os.path.join(path, rel), "w") as f:
                    f.write(fixed)
    tree.seed_build(harness.ROOT, path)
    return (path,) + _make(path)


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """Every student tree built and its boots queued; the full tree's boots queued too."""
    if not tree.all_regions(harness.ROOT):
        pytest.skip("no solution regions here: this is a student tree")
    answers = str(tmp_path_factory.mktemp("answers"))
    for lab in LABS:
        with open(os.path.join(answers, lab.answers), "w") as f:
            f.write("the grader only checks that this file is here\n")
    full = {k: grade.config(k) for lab in LABS for k in lab.boots}
    harness.prefetch(full.values())
    jobs = [(lab, lab.slug, False) for lab in LABS]
    jobs += [(catalog.find(name), "restored-" + name, True) for name in RESTORED]
    trees = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: (lab, pool.submit(_new_tree, lab, name, restore)) for lab, name, restore in jobs}
        for name, (lab, fut) in futures.items():
            path, status, output = fut.result()
            configs = {k: grade.config(k, path, "labs-" + name) for k in lab.boots}
            if status == 0:
                harness.prefetch(configs.values())
            trees[name] = (lab, path, status, output, configs)
    return {"answers": answers, "full": full, "trees": trees}


def _grade(kit, lab, configs, root):
    boots = {k: harness.boot(c) for k, c in configs.items()}
    out = []
    score, points = grade.grade_lab(lab, boots, kit["answers"], root, out.append)
    return score, points, "".join(out), boots


def _built(kit, name):
    lab, path, status, output, configs = kit["trees"][name]
    assert status == 0, "make failed in the student tree %s:\n%s" % (path, output[-3000:])
    return lab, path, configs


@pytest.mark.parametrize("lab", [lab.name for lab in LABS])
def test_full_tree_full_marks(kit, lab):
    lab = catalog.find(lab)
    score, points, out, _ = _grade(kit, lab, {k: kit["full"][k] for k in lab.boots}, harness.ROOT)
    assert score == points, "the full tree scores %d/%d on lab %s:\n%s" % (score, points, lab.name, out)


@pytest.mark.parametrize("lab", [lab.name for lab in LABS])
def test_student_tree_fails_with_stub_message(kit, lab):
    lab, path, configs = _built(kit, catalog.find(lab).slug)
    score, points, out, boots = _grade(kit, lab, configs, path)
    for key, b in boots.items():
        assert not grade.fatal(b), "the %s boot of the student tree failed:\n%s" % (key, out)
    assert score < points, "the student tree of %s scores full marks:\n%s" % (lab.name, out)
    assert "LAB TODO: " in out and lab.handout in out, \
        "the stub's message is not among the failures:\n%s" % out


@pytest.mark.parametrize("lab", [lab.name for lab in LABS])
def test_no_solution_survives(kit, lab):
    """No marker, and no line of a stubbed solution that is not elsewhere in the full file."""
    lab, path, _ = _built(kit, catalog.find(lab).slug)
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


@pytest.mark.parametrize("lab", RESTORED)
def test_restored_solution_full_marks(kit, lab):
    lab, path, configs = _built(kit, "restored-" + lab)
    score, points, out, _ = _grade(kit, lab, configs, path)
    assert score == points, "with its solution put back, %s scores %d/%d:\n%s" % (lab.name, score, points, out)


def test_handin_packs_tree_and_answers(kit, tmp_path):
    """make handin's tarball: the student's files and answers, no build output."""
    lab, path, _ = _built(kit, catalog.find("emulate").slug)
    with open(os.path.join(path, lab.answers), "w") as f:
        f.write("my answers\n")
    name = handin.handin(path, lab)
    try:
        with tarfile.open(os.path.join(path, name)) as tar:
            names = tar.getnames()
    finally:
        os.remove(os.path.join(path, name))
        os.remove(os.path.join(path, lab.answers))
    top = lab.slug + "/"
    for want in (lab.answers, "arch/x86/vsyscall/emulate.c", "tools/labs/labs", tree.LAB_FILE):
        assert top + want in names, "%s is not in %s" % (want, name)
    assert not [n for n in names if n.startswith(top + "build/") and "/grade/" not in n], \
        "build output packed in %s" % name


@pytest.mark.parametrize("text, why", [
    ("/* LAB x: BEGIN */\na\n", "BEGIN without END"),
    ("/* LAB x: BEGIN */\na\n   LAB x: END */\n", "END without its BEGIN and STUB"),
    ("/* LAB x: BEGIN */\na\n/* LAB x: STUB\nb */\n   LAB x: END */\n", "closes its comment early"),
    ("/* LAB x: BEGIN */\n/* LAB y: BEGIN */\n", "inside the region of x"),
    ("a; /* LAB x: BEGIN */\n", "alone on its line"),
])
def test_regions_refuse_malformed_markers(text, why):
    with pytest.raises(regions.RegionError, match=why):
        regions.scan(text, "f.c")


def test_regions_render_and_restore():
    text = "int f(void)\n{\n\t/* LAB x: BEGIN */\n\treturn 42;\n\t/* LAB x: STUB\n\treturn 0;\n\t   LAB x: END */\n}\n"
    assert regions.render(text, set()) == "int f(void)\n{\n\treturn 42;\n}\n"
    student = regions.render(text, {"x"})
    assert student == "int f(void)\n{\n\treturn 0;\n}\n"
    assert regions.restore(student, text, "x") == regions.render(text, set())
