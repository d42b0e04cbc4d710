"""Student trees: the starting point of a lab, written as a git repository of its own."""
import filecmp
import os
import shutil
import subprocess
import time

import leaks
import regions
from catalog import LABS

LAB_FILE = ".ccos-lab"      # in a student tree: the lab it is the starting point of
HERE = os.path.dirname(os.path.abspath(__file__))
WORKFLOW = ".github/workflows/grade.yml"    # in a student tree: tools/labs/classroom/grade.yml
TEACHER_ONLY = ("tools/labs/mutants/",)     # never in a student tree: wrong and right solutions


def _is_repository(root):
    r = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return r.returncode == 0 and os.path.samefile(r.stdout.strip(), root)


def tracked_files(root):
    """The files of the tree as git knows them (tracked, and new ones not ignored); in a
    tree that is no repository of its own (a hand-in unpacked), every file but build/'s."""
    if not _is_repository(root):
        found = []
        for d, dirs, files in os.walk(root):
            if d == root:
                dirs[:] = [x for x in dirs if x not in ("build", ".git")]
            found += [os.path.relpath(os.path.join(d, f), root) for f in files]
        return sorted(p for p in found if os.path.isfile(os.path.join(root, p)))
    out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard"], check=True, stdout=subprocess.PIPE).stdout
    return sorted(p for p in out.decode().split("\0") if p and os.path.isfile(os.path.join(root, p)))


def all_regions(root):
    """path -> its regions, for every source file that has one; checks every lab name."""
    names = {lab.name for lab in LABS}
    found = {}
    for path in tracked_files(root):
        if not regions.is_source(path):
            continue
        with open(os.path.join(root, path), encoding="utf-8") as f:
            rs = regions.scan(f.read(), path)
        for r in rs:
            if r.lab not in names:
                raise regions.RegionError("%s: LAB %s: no such lab (tools/labs/catalog.py)" % (path, r.lab))
        if rs:
            found[path] = rs
    return found


def written_lines(root, lab):
    """What a student of lab writes, as its handout counts it: the lines of its regions'
    solutions that hold code (not blank, not only a comment), {"C": n, "NASM": n}."""
    counts = {"C": 0, "NASM": 0}
    for path, rs in all_regions(root).items():
        nasm = path.endswith((".asm", ".inc"))
        comment = (";",) if nasm else ("/*", "*", "//")
        for r in rs:
            if r.lab == lab.name:
                counts["NASM" if nasm else "C"] += sum(
                    1 for line in r.solution if line.strip() and not line.strip().startswith(comment))
    return counts


def student_files(root):
    """The files of root that a student tree has (as the student gets them)."""
    return [p for p in tracked_files(root) if not p.startswith(TEACHER_ONLY)]


def stubbed_labs(lab):
    """The labs whose regions a student tree of `lab` has as stubs: it and every later one."""
    return {l.name for l in LABS if l.number >= lab.number}


def student_readme(lab, readme):
    return ("# Lab %d: %s\n\n"
            "This tree is the starting point of lab %d, `%s`. Read the handout, "
            "`%s`, then build and grade as you go:\n\n"
            "```sh\nmake            # build\nmake run        # boot it\n"
            "make grade      # this lab's checks, ending with Score: N/M\n"
            "make handin     # your tree, %s and its grade, in one tarball\n```\n\n"
            "The console's `LAB TODO:` lines name the functions still to write: "
            "this lab's and those of the labs after it.\n\n---\n\n%s"
            % (lab.number, lab.title, lab.number, lab.name, lab.handout, lab.answers, readme))


def check_leaks(root, lab):
    """RegionError if the student tree of lab would hold a line of a stubbed solution."""
    def rewrite(path, text):
        return student_readme(lab, text) if path == "README.md" else None
    found = leaks.find(root, student_files(root), all_regions(root), stubbed_labs(lab), rewrite)
    if found:
        raise regions.RegionError("the student tree of %s would show solution lines (leaks.py):\n  %s"
                                  % (lab.name, "\n  ".join(found)))


def write_tree(root, lab, out):
    """Write the student tree of `lab` from the full tree at root into out (a new git repository)."""
    if os.path.exists(out) and os.listdir(out):
        raise FileExistsError("%s exists and is not empty" % out)
    check_leaks(root, lab)
    found = all_regions(root)
    stubbed = stubbed_labs(lab)
    for path in student_files(root):
        src, dst = os.path.join(root, path), os.path.join(out, path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if path in found:
            with open(src, encoding="utf-8") as f:
                text = regions.render(f.read(), stubbed, path)
            with open(dst, "w", encoding="utf-8") as f:
                f.write(text)
            shutil.copymode(src, dst)
        elif path == "README.md":
            with open(src, encoding="utf-8") as f:
                text = student_readme(lab, f.read())
            with open(dst, "w", encoding="utf-8") as f:
                f.write(text)
        else:
            shutil.copy2(src, dst)      # the time too: a seeded build/ stays valid for it
    with open(os.path.join(out, LAB_FILE), "w") as f:
        f.write(lab.name + "\n")
    os.makedirs(os.path.dirname(os.path.join(out, WORKFLOW)), exist_ok=True)
    shutil.copy2(os.path.join(HERE, "classroom", "grade.yml"), os.path.join(out, WORKFLOW))
    git = ["git", "-C", out, "-c", "user.name=ccos labs", "-c", "user.email=labs@ccos.invalid"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "Lab %d %s: the starting point" % (lab.number, lab.name)],
                   check=True)


def seed_build(src, out):
    """Copy src's build/ into the tree at out, times kept, and give each file of
    out that is the same as src's src's time, any other file now: `make` there
    rebuilds exactly what differs from src (src is the full tree, a kit, or the
    student tree of the lab before, whose stubs are all but one the same)."""
    skip = {"test", "labs", "mutants", "attack", "grade", "ccos.iso", "ccos-root"}
    build = os.path.join(src, "build")
    if os.path.isdir(build):
        shutil.copytree(build, os.path.join(out, "build"), symlinks=True,
                        ignore=lambda d, names: [n for n in names if d == build and n in skip])
    now = time.time()
    for d, dirs, files in os.walk(out):
        if d == out:
            dirs[:] = [x for x in dirs if x not in ("build", ".git")]
        for f in files:
            mine = os.path.join(d, f)
            theirs = os.path.join(src, os.path.relpath(mine, out))
            same = os.path.isfile(theirs) and filecmp.cmp(mine, theirs, shallow=False)
            t = os.stat(theirs).st_mtime if same else now
            os.utime(mine, (t, t))
