"""Crafted ELF files (tools/mkbadelf): what exec says when it refuses each one.

user/proctest.c, run by init in init-bios, execs every /bin/bad-NAME (each
must fail with ENOEXEC) and /bin/odd-NAME (each must run); the init-oddelf
boot runs one odd file as init.
"""
import os

import pytest

import harness

# The reason exec prints for /bin/bad-NAME: "exec /bin/bad-NAME: REASON; not an executable ...".
REASONS = {
    "magic": "no ELF magic",
    "text": "no ELF magic",
    "empty": "no ELF magic",
    "truncated-header": "truncated header",
    "class32": "not a 64-bit ELF",
    "bigendian": "not little-endian",
    "machine": "not an x86-64 program",
    "type-rel": "neither ET_EXEC nor ET_DYN",
    "phentsize": "not 56 bytes (e_phentsize)",
    "phnum0": "(e_phnum)",
    "phnum-huge": "(e_phnum)",
    "phoff-past-end": "program headers past the end of the file",
    "no-load": "no loadable segment",
    "interp": "PT_INTERP",
    "truncated": "past the end of the file",
    "offset-past-end": "past the end of the file",
    "offset-unaligned": "differ within a page",
    "filesz-gt-memsz": "file size exceeds its memory size",
    "kernel-half": "outside user space",
    "noncanonical": "outside user space",
    "vsyscall-page": "outside user space",
    "wrapping": "outside user space",
    "vaddr-zero": "below 0x10000",
    "overlap": "overlap",
    "overlap-bss": "overlap",
    "wx": "both writable and executable",
    "huge": "absurdly large",
}


@pytest.mark.parametrize("name", sorted(REASONS))
def test_refused_with_reason(name):
    b = harness.boot("init-bios")
    prefix = "exec /bin/bad-%s: " % name
    lines = [line for line in b.lines() if line.startswith(prefix)]
    assert lines, b.report("no line starting %r" % prefix)
    assert REASONS[name] in lines[0] and lines[0].endswith("not an executable ccos can run"), \
        b.report("%r does not give the reason %r" % (lines[0], REASONS[name]))


def test_every_bad_file_has_a_reason():
    made = {f[len("bad-"):] for f in os.listdir(harness.BAD_DIR) if f.startswith("bad-")}
    assert made == set(REASONS), "files without a reason here: %s; reasons without a file: %s" % (
        sorted(made - set(REASONS)), sorted(set(REASONS) - made))
