"""Hand-in tarballs: a student's tree packed for a lab, with the grade of exactly those sources.

The grade report (build/grade/NN-name.txt) names the digest of the files
it graded (sources.py). `make handin` packs it only when the tree's files
still have that digest; otherwise it builds and grades the tree first, so
the report in the tarball is always the grade of the sources beside it.
"""
import io
import os
import subprocess
import sys
import tarfile
import time

import grade
import sources


def fresh_report(root, lab):
    """The lab's last grade report if it is of the tree's current files, else None; and why not."""
    path = grade.report_path(root, lab)
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None, "no grade report yet"
    if sources.of_report(text) != sources.digest(root)[0]:
        return None, "the last grade report is of other sources than the tree's"
    return path, None


def regrade(root, lab):
    """Build and grade the tree for lab; the report's path, or None if it does not build."""
    r = subprocess.run(["make", "-C", root, "--no-print-directory", "all", "GRUB_TIMEOUT=0"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        print(r.stdout[-3000:])
        return None
    grade.grade_tree(root, [lab], root, sys.stdout.write)
    return fresh_report(root, lab)[0]


def handin(root, lab):
    """Write handin-NN-name.tar.gz in root: the tree's files, the answers, the grade of those files."""
    name = "handin-%s.tar.gz" % lab.slug
    if not os.path.exists(os.path.join(root, lab.answers)):
        print("handin: warning: %s is missing; the grader will take its points off" % lab.answers)
    report, why = fresh_report(root, lab)
    if not report:
        print("handin: %s: grading these sources first" % why)
        report = regrade(root, lab)
    contents = sources.read(root)       # packed as read here: the digest is of these bytes
    if report:
        with open(report, "rb") as f:
            graded = f.read()
        if sources.of_report(graded.decode("utf-8", "replace")) == sources.digest_of(contents)[0]:
            contents.append((os.path.relpath(report, root), graded))
        else:
            report = None
    if not report:
        print("handin: warning: the tree does not build, or changed while it was graded: "
              "packing it without a grade report")
    with tarfile.open(os.path.join(root, name), "w:gz") as tar:
        for p, data in contents:
            info = tarfile.TarInfo(os.path.join(lab.slug, p))
            info.size, info.mtime = len(data), time.time()
            info.mode = os.stat(os.path.join(root, p)).st_mode & 0o777
            tar.addfile(info, io.BytesIO(data))
    print("handin: wrote %s (%d files%s)" % (name, len(contents), ", and the grade of exactly these"
                                             if report else ""))
    return name
