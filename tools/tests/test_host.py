"""The ring-3 test programs on this Linux host: the same binaries, Linux's answers.

The signal tests (sigfault, sigframe, sigmask, sigstate), mapstest,
timetest and the musl programs are ordinary static Linux x86-64 programs.
Their expectations are Linux's, so they must pass here too; a case that
fails on Linux but passes on ccos is a wrong expectation, not a pass.
"""
import glob
import os
import platform
import shutil
import subprocess

import pytest

import harness

PROGRAMS = ["sigfault", "sigframe", "sigmask", "sigstate", "mapstest", "musltest", "muslsig",
            "timetest"]
MUSL = {"musltest", "muslsig"}


@pytest.mark.skipif(platform.system() != "Linux" or platform.machine() != "x86_64",
                    reason="the programs are Linux x86-64 programs")
@pytest.mark.parametrize("name", PROGRAMS)
def test_on_the_linux_host(name):
    elf = os.path.join(harness.ROOT, "build", "user", name + ".elf")
    if name in MUSL and not os.path.exists(elf) and not shutil.which("musl-gcc"):
        pytest.skip("musl-gcc is missing (Debian's musl-tools; tools/setup installs it)")
    assert os.path.exists(elf), "%s is not built: run make" % os.path.relpath(elf, harness.ROOT)
    r = subprocess.run([elf], capture_output=True, text=True, timeout=120, cwd=harness.ROOT)
    docs = harness.parse_ktap(r.stdout)
    assert len(docs) == 1 and docs[0].plan, "no KTAP plan:\n" + r.stdout + r.stderr
    failed = [x.line for x in docs[0].results if x.failed]
    assert not failed and r.returncode == 0, "\n".join(failed) + "\n\n" + r.stdout + r.stderr
    assert len(docs[0].results) == docs[0].plan, r.stdout


def test_musl_stdout_reaches_the_console():
    """musl's printf (a buffer and one writev) comes out on ccos's serial console."""
    if not shutil.which("musl-gcc"):
        pytest.skip("musl-gcc is missing")
    b = harness.boot("init-bios")
    b.expect(r"^# printf: musl 42 2\.5$", "musltest's printf line")
    b.expect(r"^# uname: ccos 3\.1\.0-ccos$", "musltest's uname line")


def load_segments(elf):
    """(offset, filesz, flags) of each PT_LOAD of elf, as readelf -lW prints them."""
    out = subprocess.run(["readelf", "-lW", elf], capture_output=True, text=True,
                         check=True).stdout
    return [(int(f[1], 16), int(f[4], 16), "".join(f[6:-1]))
            for f in (line.split() for line in out.splitlines()) if f and f[0] == "LOAD"]


def test_user_elf_headers_read_only():
    """linker/user.ld: the page of the ELF and program headers is R, not R+X, in every program."""
    if not shutil.which("readelf"):
        pytest.skip("readelf is missing (binutils)")
    elfs = sorted(glob.glob(os.path.join(harness.ROOT, "build", "user", "*.elf")))
    assert elfs, "no user programs in build/user: run make"
    for elf in elfs:
        head = [s for s in load_segments(elf) if s[0] == 0 and s[1] > 0]
        name = os.path.basename(elf)
        assert head, "%s: no PT_LOAD holds the ELF header" % name
        assert head[0][2] == "R", "%s: the headers' segment is %s, expected R" % (name, head[0][2])
