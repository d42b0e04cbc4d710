"""What a grade report was graded from: one digest of the tree's files.

`make grade` writes it into each report; `make handin` packs a report only
when the tree's files still have that digest, so that the report handed in
is the grade of the sources handed in.
"""
import hashlib
import os
import re

from tree import tracked_files

LINE = re.compile(r"^Sources: sha256:([0-9a-f]{64}) \((\d+) files\)$", re.MULTILINE)


def files(root):
    """The files a grade reads and a hand-in packs: the tree as git sees it, no tarballs."""
    return [p for p in tracked_files(root) if not p.startswith("handin-")]


def read(root):
    """[(path, bytes)] of the tree's files, in order."""
    out = []
    for p in files(root):
        with open(os.path.join(root, p), "rb") as f:
            out.append((p, f.read()))
    return out


def digest_of(contents):
    """sha256 over each (path, bytes) in order; (hex, number of files)."""
    h = hashlib.sha256()
    for p, data in contents:
        h.update(b"%s\0%d\0" % (p.encode(), len(data)))
        h.update(data)
    return h.hexdigest(), len(contents)


def digest(root):
    return digest_of(read(root))


def line(root):
    """The report's line naming the sources it grades."""
    return "Sources: sha256:%s (%d files)\n" % digest(root)


def of_report(text):
    """The digest a report names, or None (a report of an older kit)."""
    m = LINE.search(text)
    return m.group(1) if m else None
