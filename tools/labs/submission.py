"""A student's submission made gradable: unpacked, the kit's own files put over it, built.

A submission is a hand-in tarball, a folder holding one, or a tree. The
teacher's files replace the student's wherever a student has no business
writing: tools/, user/ and the Makefiles (the graders, the harness, the
ring-3 checks, the build), but for the files that hold a lab's solution
region, which students write in. So a student cannot change the grader.
"""
import os
import shutil
import subprocess
import sys
import tarfile

import catalog
from tree import LAB_FILE, all_regions, student_files, seed_build


def protected(full):
    """The files a grade takes from the kit, whatever the submission holds (from the full tree)."""
    mine = all_regions(full)
    return [p for p in student_files(full)
            if (p.startswith(("tools/", "user/")) or p.endswith(("Makefile", ".mk"))) and p not in mine]


def _extract(tarball, work):
    """Unpack a tarball into work, refusing paths that leave it and links."""
    with tarfile.open(tarball) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(work, filter="data")
            return
        for m in tar.getmembers():
            if m.name.startswith("/") or ".." in m.name.split("/") or not (m.isfile() or m.isdir()):
                raise ValueError("%s: refusing %s" % (tarball, m.name))
        tar.extractall(work)


def _one_tree(folder):
    """The tree in an unpacked submission: the folder itself, or its only subfolder."""
    names = [n for n in os.listdir(folder) if not n.startswith(".") or n == LAB_FILE]
    if len(names) == 1 and os.path.isdir(os.path.join(folder, names[0])):
        return os.path.join(folder, names[0])
    return folder


def unpack(src, work):
    """The submission src (tarball, folder with one tarball, or tree) as a tree under work."""
    os.makedirs(work, exist_ok=True)
    if os.path.isdir(src):
        tarballs = [n for n in os.listdir(src) if n.endswith(".tar.gz")]
        if len(tarballs) == 1 and not os.path.exists(os.path.join(src, "Makefile")):
            src = os.path.join(src, tarballs[0])
    if os.path.isdir(src):
        dst = os.path.join(work, "tree")
        shutil.copytree(_one_tree(src), dst, symlinks=False,
                        ignore=shutil.ignore_patterns("build", ".git"))
        return dst
    _extract(src, os.path.join(work, "unpacked"))
    return _one_tree(os.path.join(work, "unpacked"))


def lab_of(tree):
    """The lab a submission's tree is for: its .ccos-lab, else its folder's NN-name."""
    try:
        with open(os.path.join(tree, LAB_FILE)) as f:
            return catalog.find(f.read().strip())
    except (OSError, KeyError):
        return catalog.find(os.path.basename(tree))


def prepare(kit, paths, tree):
    """Put the kit's files (paths, relative to kit) over the tree; seed its build from kit's
    (tree.seed_build): make rebuilds exactly what the student changed, whatever times the
    hand-in's files came with."""
    shutil.rmtree(os.path.join(tree, "tools"), ignore_errors=True)
    for p in paths:
        os.makedirs(os.path.dirname(os.path.join(tree, p)), exist_ok=True)
        shutil.copy2(os.path.join(kit, p), os.path.join(tree, p))
    shutil.rmtree(os.path.join(tree, "build"), ignore_errors=True)
    seed_build(kit, tree)


def build(tree):
    """make boot-files in the tree (what its boots read); (ok, its output)."""
    r = subprocess.run(["make", "-C", tree, "--no-print-directory", "boot-files"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode == 0, r.stdout


def grade(tree, lab, results, jobs=None):
    """Grade the prepared, built tree on lab, Gradescope's results.json to results; the report.
    jobs: how many of its boots run at once (the harness's CCOS_TEST_JOBS)."""
    env = dict(os.environ)
    if jobs:
        env["CCOS_TEST_JOBS"] = str(jobs)
    r = subprocess.run([sys.executable, os.path.join(tree, "tools", "labs", "labs"), "grade", lab.name,
                        "--answers", tree, "--results", results],
                       cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.stdout
