"""The mutation suite: wrong solutions the graders must fail, correct ones they must pass.

tools/labs/mutants/LAB/NAME.mut is one change to the full tree, written
without a path or line numbers, so that it survives files moving:

    caught-by: CHECK-ID [CHECK-ID...]
    what: the student's mistake, in a sentence
    @@@ replace
    ...text of the tree, found exactly once among its sources...
    @@@ with
    ...what the student wrote instead...
    @@@ end

(several replace/with blocks may follow each other). A wrong solution
must score below full marks in its lab, and one of the checks it names
must be among the failed. A file named correct-*.mut has no caught-by: it
is a solution written differently from the tree's, which must score full
marks in its lab and in every later lab. `labs mutants [LAB...]` applies
each to a fresh copy of the full tree, builds and grades them, two at a
time (docs/teaching.md, "Proving the graders").
"""
import dataclasses
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor

import catalog
import grade
import harness
import regions
import submission
from tree import tracked_files, seed_build

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mutants")


@dataclasses.dataclass
class Mutant:
    lab: object
    name: str
    what: str
    caught_by: tuple            # empty: a correct solution
    edits: list                 # [(old text, new text)]

    @property
    def correct(self):
        return self.name.startswith("correct-")

    @property
    def key(self):
        return "%s/%s" % (self.lab.name, self.name)


def parse(text, lab, name):
    """A Mutant from a .mut file's text; ValueError naming what is wrong."""
    head, _, body = text.partition("\n@@@ replace\n")
    fields = {}
    for l in head.splitlines():
        if l.strip() and not l.startswith("#"):
            k, sep, v = l.partition(":")
            if not sep:
                raise ValueError("%s/%s: not a `key: value` line: %r" % (lab.name, name, l))
            fields[k.strip()] = v.strip()
    edits = []
    for block in ("@@@ replace\n" + body).split("@@@ replace\n")[1:]:
        old, sep, rest = block.partition("@@@ with\n")
        new, sep2, tail = rest.partition("@@@ end\n")
        if not sep or not sep2 or tail.strip():
            raise ValueError("%s/%s: each `@@@ replace` needs its `@@@ with` and `@@@ end`" % (lab.name, name))
        edits.append((old, new))
    m = Mutant(lab, name, fields.get("what", ""), tuple(fields.get("caught-by", "").split()), edits)
    if not edits or not m.what:
        raise ValueError("%s/%s: a mutant needs `what:` and at least one replace block" % (lab.name, name))
    ids = {c.id for c in lab.checks}
    if m.correct == bool(m.caught_by) or not set(m.caught_by) <= ids:
        raise ValueError("%s/%s: caught-by must name checks of lab %s (%s), and only a wrong solution has it"
                         % (lab.name, name, lab.name, " ".join(sorted(ids))))
    return m


def load(labs):
    """Every mutant of the labs, in order."""
    out = []
    for lab in labs:
        folder = os.path.join(HERE, lab.name)
        for f in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if f.endswith(".mut"):
                with open(os.path.join(folder, f)) as fh:
                    out.append(parse(fh.read(), lab, f[:-len(".mut")]))
    return out


def apply(m, root):
    """Make the mutant's edits in the tree at root (its sources); ValueError unless each old
    text is found exactly once."""
    texts = {}
    for p in tracked_files(root):
        if regions.is_source(p):
            with open(os.path.join(root, p), encoding="utf-8") as f:
                texts[p] = f.read()
    for old, new in m.edits:
        where = [p for p, t in texts.items() if old in t]
        count = sum(texts[p].count(old) for p in where)
        if count != 1:
            raise ValueError("%s: its text is found %d times in the tree's sources, not once:\n%s"
                             % (m.key, count, old))
        texts[where[0]] = texts[where[0]].replace(old, new)
        with open(os.path.join(root, where[0]), "w", encoding="utf-8") as f:
            f.write(texts[where[0]])


def _labs_graded(m):
    """A correct solution: its lab and every later one, whole. A wrong one: its lab's checks
    that it names and what they need, no more: a check's outcome is a function of its boot's
    log and its needs, so one of them failing there is one failing in the whole grade (which
    can only lose more), and the boots no named check reads are not made."""
    if m.correct:
        return [l for l in catalog.graded() if l.number >= m.lab.number]
    by_id = {c.id: c for c in m.lab.checks}
    keep, todo = set(), list(m.caught_by)
    while todo:
        i = todo.pop()
        if i not in keep:
            keep.add(i)
            todo += by_id[i].needs
    return [dataclasses.replace(m.lab, checks=tuple(c for c in m.lab.checks if c.id in keep))]


def _make_tree(root, m, path):
    """A fresh full tree with the mutant applied, built; (ok, make's output)."""
    shutil.rmtree(path, ignore_errors=True)
    for p in tracked_files(root):
        os.makedirs(os.path.dirname(os.path.join(path, p)), exist_ok=True)
        shutil.copy2(os.path.join(root, p), os.path.join(path, p))
    seed_build(root, path)
    apply(m, path)
    return submission.build(path)


def verdict(m, results):
    """(judged as it must be, what the graders did): a wrong solution caught by a check it
    names, a correct one with full marks everywhere it is graded."""
    scores = ", ".join("%s %d/%d" % (r.lab.name, r.score, r.points) for r in results)
    if m.correct:
        return all(r.score == r.points for r in results), scores
    r = results[0]
    scores += " of the checks it names"
    failed = [o.check.id for o in r.outcomes if o.why]
    caught = [i for i in m.caught_by if i in failed]
    if r.score >= r.points:
        return False, "%s: full marks, no check caught it" % scores
    if not caught:
        return False, "%s, but not by %s (failed: %s)" % (scores, " or ".join(m.caught_by), ", ".join(failed))
    return True, "%s, caught by %s" % (scores, ", ".join(caught))


def run(root, labs, write, only=()):
    """Apply, build and grade every mutant of labs (of only, LAB/NAME keys, when given);
    0 when each is judged as it must be."""
    start = time.monotonic()
    muts = [m for m in load(labs) if not only or m.key in only]
    work = os.path.join(root, "build", "mutants")
    answers = os.path.join(work, "answers")     # every answers file there: only the code is judged
    os.makedirs(answers, exist_ok=True)
    for lab in catalog.LABS:
        with open(os.path.join(answers, lab.answers), "w") as f:
            f.write("the mutation suite judges the code only\n")
    trees = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        builds = {m.key: pool.submit(_make_tree, root, m, os.path.join(work, m.key.replace("/", "-")))
                  for m in muts}
        for m in muts:
            path = os.path.join(work, m.key.replace("/", "-"))
            ok, out = builds[m.key].result()
            configs = {k: grade.config(k, path, "mut-" + m.key.replace("/", "-"))
                       for l in _labs_graded(m) for k in l.boots}
            if ok:
                harness.prefetch(configs.values())
            trees[m.key] = (path, ok, out, configs)
    passed = failed = 0
    try:
        for m in muts:
            path, ok, out, configs = trees[m.key]
            if not ok:
                good, what = False, "does not build:\n" + out[-2000:]
            else:
                boots = {k: harness.boot(c) for k, c in configs.items()}
                good, what = verdict(m, [grade.grade_lab(l, boots, answers, path, lambda s: None)
                                         for l in _labs_graded(m)])
            write("%s %-40s %s\n" % ("ok  " if good else "FAIL", m.key, what))
            if good:
                passed += 1
                shutil.rmtree(path, ignore_errors=True)
            else:
                failed += 1
    finally:
        harness.shutdown()
    write("mutants: %d wrong and %d correct solutions in %.0f s (failures keep their tree in %s)\n"
          % (sum(not m.correct for m in muts), sum(m.correct for m in muts), time.monotonic() - start,
             os.path.relpath(work, root)))
    write("%d passed, %d failed\n" % (passed, failed))
    return 0 if not failed else 1
