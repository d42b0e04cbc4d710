"""Hand-in tarballs: a student's tree packed for a lab, and a class's graded in a batch."""
import csv
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

from tree import all_regions, tracked_files, seed_build


def protected(teacher):
    """The files a batch grade takes from the teacher's tree, whatever the
    hand-in holds: the graders, the harness, the ring-3 checks and the build
    (tools/, user/ and the Makefiles), but for the files a student writes in."""
    mine = all_regions(teacher)
    return [p for p in tracked_files(teacher)
            if (p.startswith(("tools/", "user/")) or p.endswith(("Makefile", ".mk"))) and p not in mine]


def grade_log(root, lab):
    return os.path.join(root, "build", "grade", lab.slug + ".txt")


def handin(root, lab):
    """Write handin-NN-name.tar.gz in root: the tree's files, the answers, the last grade log."""
    name = "handin-%s.tar.gz" % lab.slug
    files = [p for p in tracked_files(root) if not p.startswith("handin-")]
    if lab.answers not in files:
        print("handin: warning: %s is missing; the grader will take its points off" % lab.answers)
    log = grade_log(root, lab)
    if not os.path.exists(log):
        print("handin: warning: no grade log yet (run `make grade` first); packing without it")
    with tarfile.open(os.path.join(root, name), "w:gz") as tar:
        for p in files:
            tar.add(os.path.join(root, p), arcname=os.path.join(lab.slug, p))
        if os.path.exists(log):
            tar.add(log, arcname=os.path.join(lab.slug, "build", "grade", lab.slug + ".txt"))
    print("handin: wrote %s (%d files)" % (name, len(files)))
    return name


def _score(text):
    m = re.findall(r"^Score: (\d+)/(\d+)$", text, re.MULTILINE)
    return (int(m[-1][0]), int(m[-1][1])) if m else (0, 0)


def _extract(tar, work):
    """Unpack a student's tarball, refusing paths that leave work and links."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(work, filter="data")
        return
    for m in tar.getmembers():
        if m.name.startswith("/") or ".." in m.name.split("/") or not (m.isfile() or m.isdir()):
            raise ValueError("%s: refusing %s" % (tar.name, m.name))
    tar.extractall(work)


def grade_one(teacher, lab, tarball, work):
    """Unpack one hand-in into work, put the teacher's graders over it, build, grade; (score, max, log)."""
    with tarfile.open(tarball) as tar:
        _extract(tar, work)
    tops = os.listdir(work)
    tree = os.path.join(work, tops[0]) if len(tops) == 1 else work
    shutil.rmtree(os.path.join(tree, "tools"), ignore_errors=True)
    for p in protected(teacher):
        os.makedirs(os.path.dirname(os.path.join(tree, p)), exist_ok=True)
        shutil.copy2(os.path.join(teacher, p), os.path.join(tree, p))
    shutil.rmtree(os.path.join(tree, "build"), ignore_errors=True)
    if os.path.isdir(os.path.join(teacher, "build")):
        seed_build(teacher, tree)
    r = subprocess.run(["make", "-C", tree, "all", "GRUB_TIMEOUT=0"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        return 0, lab.points, "the build failed:\n" + r.stdout[-3000:]
    r = subprocess.run([sys.executable, os.path.join(tree, "tools", "labs", "labs"), "grade", lab.name],
                       cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    score, total = _score(r.stdout)
    return score, total or lab.points, r.stdout


def batch(teacher, lab, folder, csv_path):
    """Grade every handin tarball in folder for lab; one CSV row each, the logs beside the CSV."""
    tarballs = sorted(f for f in os.listdir(folder) if f.endswith(".tar.gz"))
    logs = os.path.splitext(csv_path)[0] + "-logs"
    os.makedirs(logs, exist_ok=True)
    with open(csv_path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["handin", "lab", "score", "max", "failed checks"])
        for t in tarballs:
            with tempfile.TemporaryDirectory(prefix="ccos-grade-") as work:
                score, total, log = grade_one(teacher, lab, os.path.join(folder, t), work)
            failed = [m.group(1) for m in re.finditer(r"^  FAIL +\d+/\d+ +(.*)$", log, re.MULTILINE)]
            out.writerow([t, lab.name, score, total, "; ".join(failed)])
            with open(os.path.join(logs, t[:-len(".tar.gz")] + ".txt"), "w") as lf:
                lf.write(log)
            print("%s: %d/%d" % (t, score, total))
    print("batch: wrote %s, one log per hand-in in %s/" % (csv_path, logs))
