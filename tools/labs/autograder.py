"""Gradescope's autograder: the bundle a teacher uploads, and the grade of one submission.

The bundle (`labs gradescope LAB ZIP`) holds, at its root, setup.sh and
run_autograder (tools/labs/gradescope/), and ccos/: the lab's student tree,
which has no solution of the lab or of any later one, with the list of the
files a grade takes from the kit (.ccos-protected). Gradescope unpacks it
in /autograder/source, runs setup.sh once, then run_autograder for each
submission, which calls autograde() here.
"""
import os
import shutil
import stat
import tempfile
import zipfile

import catalog
import results
import submission
import tree

HERE = os.path.dirname(os.path.abspath(__file__))
PROTECTED_FILE = ".ccos-protected"      # in the bundle's tree: the kit's files, one a line


def bundle(full, lab, zip_path):
    """Write Gradescope's autograder zip for lab from the full tree."""
    with tempfile.TemporaryDirectory(prefix="ccos-gradescope-") as work:
        kit = os.path.join(work, "ccos")
        tree.write_tree(full, lab, kit)
        with open(os.path.join(kit, PROTECTED_FILE), "w") as f:
            f.write("".join(p + "\n" for p in submission.protected(full)))
        shutil.rmtree(os.path.join(kit, ".git"))
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
            for name in ("setup.sh", "run_autograder"):
                _add(z, os.path.join(HERE, "gradescope", name), name)
            for d, dirs, files in os.walk(kit):
                dirs.sort()
                for f in sorted(files):
                    path = os.path.join(d, f)
                    _add(z, path, os.path.relpath(path, work))
    print("labs: wrote %s, Gradescope's autograder for lab %d %s" % (zip_path, lab.number, lab.name))


def _add(z, path, name):
    info = zipfile.ZipInfo(name, date_time=(2011, 8, 10, 0, 0, 0))
    info.external_attr = (stat.S_IFREG | (os.stat(path).st_mode & 0o777)) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    with open(path, "rb") as f:
        z.writestr(info, f.read())


def autograde(kit, src, results_path):
    """Grade the submission in src with the kit at `kit` (the bundle's tree) on the kit's lab."""
    with open(os.path.join(kit, tree.LAB_FILE)) as f:
        lab = catalog.find(f.read().strip())
    with open(os.path.join(kit, PROTECTED_FILE)) as f:
        paths = f.read().split()
    with tempfile.TemporaryDirectory(prefix="ccos-autograde-") as work:
        t = submission.unpack(src, work)
        submission.prepare(kit, paths, t)
        ok, log = submission.build(t)
        if ok:
            log = submission.grade(t, lab, results_path)
        if not ok or not os.path.exists(results_path):
            results.write_gradescope(results_path, results.failed_build(lab, log))
    print(log)
    return 0
