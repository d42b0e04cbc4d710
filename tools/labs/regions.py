"""Solution regions: the parts of the source a lab's student writes, and their stubs.

A region sits in the real source, so that the full tree stays the working
ccos. Three marker lines, each alone on its line, frame it:

        /* LAB emulate: BEGIN */
        ...the solution, as it runs in ccos...
        /* LAB emulate: STUB
        ...what a student tree has instead...
           LAB emulate: END */

The stub is a comment in the full tree, so the compiler never sees it; it
may hold no `*/`. A student tree keeps a region's solution (without the
markers) when its lab comes before the student's, and puts the stub in its
place otherwise.
"""
import re

BEGIN = re.compile(r"^\s*/\* LAB ([a-z0-9-]+): BEGIN \*/\s*$")
STUB = re.compile(r"^\s*/\* LAB ([a-z0-9-]+): STUB\s*$")
END = re.compile(r"^\s*LAB ([a-z0-9-]+): END \*/\s*$")
ANY = re.compile(r"LAB [a-z0-9-]+: (BEGIN|STUB|END)")

SOURCE_SUFFIXES = (".c", ".h", ".S", ".asm", ".ld")


class RegionError(ValueError):
    pass


class Region:
    """One region of a file: its lab, its solution lines and its stub lines."""

    def __init__(self, lab, begin, stub, end, lines):
        self.lab = lab
        self.begin, self.stub_at, self.end = begin, stub, end   # 0-based line numbers
        self.solution = lines[begin + 1:stub]
        self.stub = lines[stub + 1:end]

    def __repr__(self):
        return "Region(%s, lines %d-%d)" % (self.lab, self.begin + 1, self.end + 1)


def scan(text, path="<text>"):
    """The regions of a file's text, in order; RegionError if the markers are malformed."""
    lines = text.splitlines(keepends=True)
    regions, open_at, stub_at, lab = [], None, None, None

    def fail(i, why):
        raise RegionError("%s:%d: %s" % (path, i + 1, why))

    for i, line in enumerate(lines):
        b, s, e = BEGIN.match(line), STUB.match(line), END.match(line)
        if b:
            if open_at is not None:
                fail(i, "LAB %s: BEGIN inside the region of %s (line %d)" % (b.group(1), lab, open_at + 1))
            open_at, stub_at, lab = i, None, b.group(1)
        elif s:
            if open_at is None or stub_at is not None or s.group(1) != lab:
                fail(i, "LAB %s: STUB without its BEGIN" % s.group(1))
            stub_at = i
        elif e:
            if stub_at is None or e.group(1) != lab:
                fail(i, "LAB %s: END without its BEGIN and STUB" % e.group(1))
            regions.append(Region(lab, open_at, stub_at, i, lines))
            open_at = stub_at = lab = None
        elif ANY.search(line):
            fail(i, "a LAB marker must be alone on its line: %r" % line.strip())
        elif stub_at is not None and "*/" in line:
            fail(i, "the stub of %s closes its comment early: no */ inside a stub" % lab)
    if open_at is not None:
        fail(open_at, "LAB %s: BEGIN without END" % lab)
    return regions


def render(text, stubbed, path="<text>"):
    """The text as a student tree has it: regions whose lab is in `stubbed`
    become their stubs, every other region its bare solution."""
    lines = text.splitlines(keepends=True)
    out, pos = [], 0
    for r in scan(text, path):
        out += lines[pos:r.begin]
        out += r.stub if r.lab in stubbed else r.solution
        pos = r.end + 1
    out += lines[pos:]
    return "".join(out)


def restore(student_text, full_text, lab, path="<text>"):
    """Put lab's solutions back where a student tree has its stubs (for tests)."""
    for r in scan(full_text, path):
        if r.lab != lab:
            continue
        stub = "".join(r.stub)
        if student_text.count(stub) != 1:
            raise RegionError("%s: the stub of %s is not found exactly once" % (path, lab))
        student_text = student_text.replace(stub, "".join(r.solution))
    return student_text


def is_source(path):
    return path.endswith(SOURCE_SUFFIXES)
