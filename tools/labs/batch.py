"""A class graded at once: every hand-in tarball under a folder, N at a time.

Each tarball is unpacked, given the kit's graders (submission.py), built
and graded, its boots one at a time, so that N hand-ins run N QEMUs. The
grades go to OUT/grades.csv (student, lab, score, max, the failed checks),
OUT/STUDENT.json (Gradescope's results.json format) and OUT/STUDENT.txt
(the full report, or why the tree did not build).
"""
import csv
import json
import os
import re
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor

import results
import submission


def handins(folder, out):
    """(student, tarball) for each *.tar.gz under folder (not under out): a tarball in a
    subfolder is that folder's student's, one at the top is named after its file."""
    found = []
    for d, dirs, files in os.walk(folder):
        dirs[:] = sorted(x for x in dirs if os.path.join(d, x) != out)
        for f in sorted(files):
            if f.endswith(".tar.gz"):
                rel = os.path.relpath(os.path.join(d, f), folder)
                student = rel.split(os.sep)[0] if os.sep in rel else f[:-len(".tar.gz")]
                found.append((student, os.path.join(d, f)))
    names = [s for s, _ in found]
    dup = sorted({s for s in names if names.count(s) > 1})
    if dup:
        raise ValueError("several tarballs for %s: one per student, in a folder of the student's name"
                         % ", ".join(dup))
    return found


def grade_one(kit, paths, tarball, lab, out, student):
    """Grade one hand-in; (lab, score, max, failed check names). Writes STUDENT.json and .txt.
    A tarball that cannot be read scores 0 when the lab is known (--lab), else stops the batch."""
    json_path = os.path.join(out, student + ".json")
    with tempfile.TemporaryDirectory(prefix="ccos-batch-") as work:
        try:
            tree = submission.unpack(tarball, work)
            lab = lab or submission.lab_of(tree)
        except (ValueError, KeyError, OSError, tarfile.TarError) as e:
            if not lab:
                raise ValueError("%s: %s (--lab names the lab of a class)" % (tarball, e.args[0] if e.args else e))
            tree, ok, log = None, False, "%s cannot be unpacked: %s" % (tarball, e)
        if tree:
            submission.prepare(kit, paths, tree)
            ok, log = submission.build(tree)
        if ok:
            log = submission.grade(tree, lab, json_path, jobs=1)
        if not ok or not os.path.exists(json_path):
            results.write_gradescope(json_path, results.failed_build(lab, log))
    with open(os.path.join(out, student + ".txt"), "w") as f:
        f.write(log)
    with open(json_path) as f:
        r = json.load(f)
    failed = [re.sub(r"^Lab \d+ \S+: ", "", t["name"]) for t in r["tests"] if t["score"] < t["max_score"]]
    return lab, int(r["score"]), int(sum(t["max_score"] for t in r["tests"])), failed


def batch(kit, folder, lab, jobs, out):
    """Grade the class in folder (lab None: each tarball's own); 0 once every row is written."""
    os.makedirs(out, exist_ok=True)
    todo = handins(folder, out)
    if not todo:
        raise ValueError("no *.tar.gz under %s" % folder)
    paths = submission.protected(kit)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [(s, pool.submit(grade_one, kit, paths, t, lab, out, s)) for s, t in todo]
        rows = []
        for student, fut in futures:
            got_lab, score, total, failed = fut.result()
            rows.append([student, got_lab.name, score, total, "; ".join(failed)])
            print("%s: lab %s %d/%d" % (student, got_lab.name, score, total), flush=True)
    with open(os.path.join(out, "grades.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "lab", "score", "max", "failed checks"])
        w.writerows(rows)
    print("batch: %d hand-ins graded: %s, one STUDENT.json (Gradescope's format) and STUDENT.txt each"
          % (len(rows), os.path.join(out, "grades.csv")))
    return 0
