"""Solution regions: the parts of the source a lab's student writes, and their stubs.

A region sits in the real source, so that the full tree stays the working
ccos. Three marker lines, each alone on its line, frame it:

        /* LAB emulate: BEGIN */
        ...the solution, as it runs in ccos...
        /* LAB emulate: STUB
        ...what a student tree has instead...
           LAB emulate: END */

The stub is a comment in the full tree, so the compiler never sees it; it
may hold no `*/`. NASM has no block comment; its files (.asm, .inc) frame
a region so, the stub between `%if 0` and `%endif`, which the assembler
skips, and which therefore may hold no `%if` or `%endif` of its own:

        ; LAB pti: BEGIN
        ...the solution...
        %if 0 ; LAB pti: STUB
        ...the stub...
        %endif ; LAB pti: END

A student tree keeps a region's solution (without the markers) when its
lab comes before the student's, and puts the stub in its place otherwise.
"""
import re

NAME = r"LAB ([a-z0-9-]+)"
# (BEGIN, STUB, END, what a stub may not hold, why) of each kind of source
STYLES = (
    (re.compile(r"^\s*/\* %s: BEGIN \*/\s*$" % NAME), re.compile(r"^\s*/\* %s: STUB\s*$" % NAME),
     re.compile(r"^\s*%s: END \*/\s*$" % NAME), re.compile(r"\*/"), "closes its comment early: no */"),
    (re.compile(r"^\s*; %s: BEGIN\s*$" % NAME), re.compile(r"^\s*%%if 0 ; %s: STUB\s*$" % NAME),
     re.compile(r"^\s*%%endif ; %s: END\s*$" % NAME), re.compile(r"^\s*%(if|endif)\b"),
     "ends its %if 0 early: no %if or %endif"),
)
ANY = re.compile(r"LAB [a-z0-9-]+: (BEGIN|STUB|END)")

SOURCE_SUFFIXES = (".c", ".h", ".S", ".asm", ".inc", ".ld")


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
    regions, open_at, stub_at, lab, style = [], None, None, None, None

    def fail(i, why):
        raise RegionError("%s:%d: %s" % (path, i + 1, why))

    def marker(line):
        """(kind 0 BEGIN, 1 STUB or 2 END, its lab, its style), or None."""
        for st in STYLES:
            for kind in range(3):
                m = st[kind].match(line)
                if m:
                    return kind, m.group(1), st
        return None

    for i, line in enumerate(lines):
        m = marker(line)
        kind, name, st = m if m else (None, None, None)
        if kind == 0:
            if open_at is not None:
                fail(i, "LAB %s: BEGIN inside the region of %s (line %d)" % (name, lab, open_at + 1))
            open_at, stub_at, lab, style = i, None, name, st
        elif kind == 1:
            if open_at is None or stub_at is not None or name != lab or st is not style:
                fail(i, "LAB %s: STUB without its BEGIN" % name)
            stub_at = i
        elif kind == 2:
            if stub_at is None or name != lab or st is not style:
                fail(i, "LAB %s: END without its BEGIN and STUB" % name)
            regions.append(Region(lab, open_at, stub_at, i, lines))
            open_at = stub_at = lab = style = None
        elif ANY.search(line):
            fail(i, "a LAB marker must be alone on its line: %r" % line.strip())
        elif stub_at is not None and style[3].search(line):
            fail(i, "the stub of %s %s inside a stub" % (lab, style[4]))
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
