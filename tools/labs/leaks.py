"""No solution line in a student tree: not in its sources, not in its docs, nowhere.

A line of a stubbed region's solution leaks when a student tree holds it
anywhere (a handout quoting it, a comment, an example in docs/teaching.md),
unless it is ordinary code the student tree has anyway: text that its
sources hold outside the stubbed regions (`if (!user_mode(tf))`, an
earlier lab's solution), or a line too short to tell (`return 0;`). tree.write_tree refuses to write a tree that
leaks, naming the file and line.
"""
import os

import regions

SHORTEST = 12       # shorter lines (`return 0;`, `}`) say nothing of a solution


def _text(root, path):
    try:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            return f.read()
    except (UnicodeDecodeError, OSError):
        return None         # not text: no line to leak


def find(root, files, found, stubbed, rewrite=None):
    """["path:line: text"] of every leak in the student tree made of the full tree's files
    (found: path -> its regions; stubbed: the labs whose regions are stubs; rewrite(path,
    text): the text the student tree has instead of the full tree's, or None)."""
    texts, secret, known = {}, set(), []
    for path in files:
        text = _text(root, path)
        if text is None:
            continue
        if path in found:
            for r in found[path]:
                if r.lab in stubbed:
                    secret |= {l.strip() for l in r.solution if len(l.strip()) >= SHORTEST}
            text = regions.render(text, stubbed, path)
        texts[path] = (rewrite(path, text) if rewrite else None) or text
        if regions.is_source(path):
            known.append(texts[path])
    known = "\n".join(known)
    secret = {s for s in secret if s not in known}
    out = []
    for path, text in texts.items():
        for s in sorted(x for x in secret if x in text):
            out += ["%s:%d: %s" % (path, n, s) for n, l in enumerate(text.splitlines(), 1) if s in l]
    return out
