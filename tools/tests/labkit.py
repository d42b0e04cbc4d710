"""The course kit's student trees for the tests (test_labs.py, test_labs_kit.py): one per
graded lab, and one per lab of RESTORED with its solution put back, built once a session."""
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

import harness

sys.path.insert(0, os.path.join(harness.ROOT, "tools", "labs"))
import catalog  # noqa: E402
import grade  # noqa: E402
import regions  # noqa: E402
import results  # noqa: E402
import tree  # noqa: E402

LABS = catalog.graded()
LAB_DIR = os.path.join(harness.BUILD, "labs")
RESTORED = os.environ.get("CCOS_LABS_RESTORED", "emulate").split()   # the labs whose solution
                                                                    # is put back into their tree


def make(path):
    r = subprocess.run(["make", "-C", path, "boot-files"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout


def restore(path, lab):
    """Put lab's solution back into the student tree at path."""
    for rel in tree.all_regions(harness.ROOT):
        with open(os.path.join(harness.ROOT, rel)) as f:
            full = f.read()
        with open(os.path.join(path, rel)) as f:
            student = f.read()
        fixed = regions.restore(student, full, lab.name, rel)
        if fixed != student:
            with open(os.path.join(path, rel), "w") as f:
                f.write(fixed)


def _new_tree(lab, name, restored=False, boots=True, base=None):
    """Write, seed and build one student tree, then queue its boots (with boots): (lab, path,
    make status, make output, its boots' configurations). Its build is seeded from base's (a
    Future of another tree's answer) if that tree built, else from the full tree's."""
    path = os.path.join(LAB_DIR, name)
    shutil.rmtree(path, ignore_errors=True)
    tree.write_tree(harness.ROOT, lab, path)
    if restored:
        restore(path, lab)
    seed = base.result() if base else None
    tree.seed_build(seed[1] if seed and seed[2] == 0 else harness.ROOT, path)
    status, output = make(path)
    configs = {k: grade.config(k, path, "labs-" + name) for k in lab.boots}
    if status == 0 and boots:
        harness.prefetch(configs.values())
    return lab, path, status, output, configs


# One at a time, in the labs' order: lab N's tree differs from lab N-1's only in lab N-1's
# regions, so each builds from the one before in seconds (tree.seed_build); the first from
# the full tree rebuilds everything that includes a region's file.
_builds = ThreadPoolExecutor(max_workers=1, thread_name_prefix="labtree")
_trees = {}         # name -> Future of _new_tree's answer


def _jobs():
    """tree name -> (lab, whether its solution is put back, the tree its build starts from)"""
    jobs, before = {}, None
    for lab in LABS:
        jobs[lab.slug] = (lab, False, before)
        before = lab.slug
    # Lab N's tree with its solution put back has the regions of lab N+1's: it builds from that.
    after = {lab.number: lab.slug for lab in LABS}
    for name in RESTORED:
        lab = catalog.find(name)
        jobs["restored-" + name] = (lab, True, after.get(lab.number + 1, lab.slug))
    return jobs


def start():
    """Queue the full tree's grading boots and start building every student tree, two at
    a time, each queueing its boots once built. Once a session, as early as the suite
    knows it will grade (conftest.py), so that the builds overlap the matrix's boots."""
    if _trees or not tree.all_regions(harness.ROOT):
        return
    harness.prefetch(grade.config(k) for lab in LABS for k in lab.boots)
    for name, (lab, restored, base) in _jobs().items():
        _trees[name] = _builds.submit(_new_tree, lab, name, restored, True, _trees.get(base))


def student_tree(name):
    """The answer of _new_tree for one tree, built now if start() has not queued it (make
    test-course's tests want two trees, not their boots)."""
    if name not in _trees:
        lab, restored, _ = _jobs()[name]
        _trees[name] = _builds.submit(_new_tree, lab, name, restored, False)
    return _trees[name].result()


def shutdown():
    """Build no tree not yet started (the end of the session, or ^C)."""
    _builds.shutdown(wait=False, cancel_futures=True)


@pytest.fixture(scope="session")
def kit():
    """The answers files, the full tree's boot configurations; the student trees come from
    student_tree (built() below), all of them queued at collection under make test."""
    if not tree.all_regions(harness.ROOT):
        pytest.skip("no solution regions here: this is a student tree")
    answers = os.path.join(LAB_DIR, "answers")
    os.makedirs(answers, exist_ok=True)
    for lab in LABS:
        with open(os.path.join(answers, lab.answers), "w") as f:
            f.write("the grader only checks that this file is here\n")
    full = {k: grade.config(k) for lab in LABS for k in lab.boots}
    return {"answers": answers, "full": full}


def grade_with(kit, lab, configs, root):
    boots = {k: harness.boot(c) for k, c in configs.items()}
    r = grade.grade_lab(lab, boots, kit["answers"], root, lambda s: None)
    return r, boots


def built(kit, name):
    lab, path, status, output, configs = student_tree(name)
    assert status == 0, "make failed in the student tree %s:\n%s" % (path, output[-3000:])
    return lab, path, configs
