"""The ring-3 test programs on this Linux host: the same binaries, Linux's answers.

The signal tests (sigfault, sigframe, sigmask, sigstate), mapstest,
timetest, watchdogtest, sysabi, sysclone, sysbusy, syslink, syspath, and the musl and glibc programs
are ordinary static Linux x86-64 programs. Their expectations are Linux's,
so they must pass here too; a case that fails on Linux but passes on ccos is a wrong expectation,
not a pass. Where a host's answer depends on its CPU, hypervisor or kernel
configuration, the program says SKIP and why (docs/testing.md). Each
program runs in a session of its own (procs.run), killed whole on a
timeout, and must leave no process behind.
"""
import glob
import os
import platform
import shutil
import subprocess

import pytest

import harness
import ktap
import procs

PROGRAMS = ["sigfault", "sigframe", "sigmask", "sigstate", "mapstest", "musltest", "muslsig",
            "muslthread", "muslgroup", "muslfutex", "muslclose", "muslsmp",
            "timetest", "watchdogtest", "sysabi", "sysclone", "sysbusy", "syslink", "syspath",
            "glibctest"]
MUSL = {"musltest", "muslsig", "muslthread", "muslgroup", "muslfutex", "muslclose", "muslsmp"}
LINUX_X86_64 = pytest.mark.skipif(platform.system() != "Linux" or platform.machine() != "x86_64",
                                  reason="the programs are Linux x86-64 programs")


def run_program(name, *args, timeout=120):
    elf = os.path.join(harness.ROOT, "build", "user", name + ".elf")
    if name in MUSL and not os.path.exists(elf) and not shutil.which("musl-gcc"):
        pytest.skip("musl-gcc is missing (Debian's musl-tools; tools/setup installs it)")
    if name == "glibctest" and not os.path.exists(elf):
        pytest.skip("gcc has no libc.a (Debian's libc6-dev; tools/setup installs it)")
    assert os.path.exists(elf), "%s is not built: run make" % os.path.relpath(elf, harness.ROOT)
    r = procs.run([elf] + list(args), timeout, cwd=harness.ROOT)
    assert not r.timed_out, "timed out after %d s:\n%s" % (timeout, r.stdout)
    assert not r.left, "processes left behind (killed now): %s\n%s" % (r.left, r.stdout)
    docs = ktap.parse_ktap(r.stdout)
    assert len(docs) == 1 and docs[0].plan, "no KTAP plan:\n" + r.stdout
    assert len(docs[0].results) == docs[0].plan, r.stdout
    return r, docs[0]


@LINUX_X86_64
@pytest.mark.parametrize("name", PROGRAMS)
def test_on_the_linux_host(name):
    r, doc = run_program(name)
    failed = [x.line for x in doc.results if x.failed]
    assert not failed and r.returncode == 0, "\n".join(failed) + "\n\n" + r.stdout


@LINUX_X86_64
def test_a_hanging_case_is_reported_and_the_program_goes_on():
    """watchdogtest hang: its first case hangs (with a grandchild); the rest still run."""
    r, doc = run_program("watchdogtest", "hang", timeout=60)
    lines = [x.line for x in doc.results]
    assert lines[0] == "not ok 1 hangs_on_purpose # timed out after 1 s", r.stdout
    assert all(not x.failed for x in doc.results[1:]) and r.returncode == 1, r.stdout


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
