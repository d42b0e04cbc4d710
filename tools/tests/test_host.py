"""The ring-3 test programs on this Linux host: the same binaries, Linux's answers.

The signal tests (sigfault, sigframe, sigmask, sigstate, xstate), mapstest,
timetest, watchdogtest, sysabi, sysclone, sysbusy, syslink, syspath, systty, sysfile, syswait, sysclock, sysfsinfo,
timelimits, syswake, cowtest, shmtest, sysvshm, futexpi, futexclock, sysched, and the musl and glibc programs
are ordinary static Linux x86-64 programs. Their expectations are Linux's,
so they must pass here too; a case that fails on Linux but passes on ccos is a wrong expectation,
not a pass. Where a host's answer depends on its CPU, hypervisor or kernel
configuration, the program says SKIP and why (docs/testing.md). Each
program runs in a session of its own (procs.run), killed whole on a
timeout, and must leave no process behind.
"""
import functools
import glob
import os
import platform
import re
import select
import shutil
import subprocess
import time

import pytest

import harness
import ktap
import procs
import shell_session

PROGRAMS = ["sigfault", "sigframe", "sigmask", "sigstate", "xstate", "mapstest", "musltest", "muslsig",
            "muslthread", "muslgroup", "muslfutex", "muslclose", "muslsmp", "muslseg",
            "musltimer", "muslselect", "muslcpuclock", "muslfutexv", "muslrobust", "muslsigqueue",
            "muslcred", "timetest", "watchdogtest", "sysabi", "sysclone", "sysbusy", "syslink", "syspath", "systty", "sysfile",
            "syswait", "sysclock", "sysfsinfo", "timelimits", "syswake", "cowtest", "shmtest", "sysvshm", "futexpi", "futexclock", "sysched",
            "glibctest", "glibcproc", "glibclock"]
MUSL = {"musltest", "muslsig", "muslthread", "muslgroup", "muslfutex", "muslclose", "muslsmp", "muslseg",
        "musltimer", "muslselect", "muslcpuclock", "muslfutexv", "muslrobust", "muslsigqueue", "muslcred"}
LINUX_X86_64 = pytest.mark.skipif(platform.system() != "Linux" or platform.machine() != "x86_64",
                                  reason="the programs are Linux x86-64 programs")


def run_program(name, *args, timeout=120):
    elf = os.path.join(harness.ROOT, "build", "user", name + ".elf")
    if name in MUSL and not os.path.exists(elf) and not shutil.which("musl-gcc"):
        pytest.skip("musl-gcc is missing (Debian's musl-tools; tools/setup installs it)")
    if name.startswith("glibc") and not os.path.exists(elf):
        pytest.skip("gcc has no libc.a (Debian's libc6-dev; tools/setup installs it)")
    assert os.path.exists(elf), "%s is not built: run make" % os.path.relpath(elf, harness.ROOT)
    r = procs.run([elf] + list(args), timeout, cwd=harness.ROOT)
    assert not r.timed_out, "timed out after %d s:\n%s" % (timeout, r.stdout)
    assert not r.left, "processes left behind (killed now): %s\n%s" % (r.left, r.stdout)
    docs = ktap.parse_ktap(r.stdout)
    assert len(docs) == 1 and docs[0].plan, "no KTAP plan:\n" + r.stdout
    assert len(docs[0].results) == docs[0].plan, r.stdout
    return r, docs[0]


@functools.lru_cache(maxsize=None)
def pvm_guest():
    """Whether the host kernel is a PVM guest (paravirtual: the guest kernel runs in the
    hardware's ring 3, its hypervisor emulating the rest): a virtual machine (CPUID's
    hypervisor bit) whose kernel has PVM's guest detection, pvm_detect. Not any "pvm_"
    symbol: every Linux has mm/vmalloc.c's pvm_determine_end_from_reverse."""
    try:
        with open("/proc/cpuinfo") as f:
            if not re.search(r"^flags\s*:.* hypervisor\b", f.read(), re.MULTILINE):
                return False
        with open("/proc/kallsyms") as f:
            return any(line.rstrip("\n").endswith(" pvm_detect") for line in f)
    except OSError:
        return False


# Cases whose answer on a PVM guest is the hypervisor's, not the CPU's or Linux's: its
# segments and IRET to a forged frame, CR4.TSD (rdtsc runs), FSGSBASE (not offered).
PVM_DIFFERS = {
    "sigframe": {"forged_frame_noncanonical_rsp_caught", "sigreturn_to_32bit_code",
                 "sigreturn_bad_selectors_caught"},
    "xstate": {"fpstate_misaligned_sigsegv"},
    "muslseg": {"gs_kept_across_switch_two_threads_one_cpu", "gs_kept_across_switch_two_threads_two_cpus",
                "gs_kept_across_switch_two_processes_one_cpu", "gs_kept_across_switch_two_processes_two_cpus",
                "fsgsbase_offered_where_the_cpu_has_it"},
    "glibcproc": {"prctl_tsc_sigsegv"},
}


@LINUX_X86_64
@pytest.mark.parametrize("name", PROGRAMS)
def test_on_the_linux_host(name):
    r, doc = run_program(name)
    failed = [x for x in doc.results if x.failed]
    excused = PVM_DIFFERS.get(name, set()) if failed and pvm_guest() else set()
    wrong = [x.line for x in failed if x.name not in excused]
    assert not wrong and (r.returncode == 0 or failed), "\n".join(wrong) + "\n\n" + r.stdout
    if failed:
        pytest.skip("the host is a PVM guest, whose answer is the hypervisor's in: %s (the rest pass)"
                    % ", ".join(x.name for x in failed))


@LINUX_X86_64
def test_a_hanging_case_is_reported_and_the_program_goes_on():
    """watchdogtest hang: its first case hangs (with a grandchild), its second dies before its
    result; the runner (user/lib/ktap.c) reports both, and the rest still run."""
    r, doc = run_program("watchdogtest", "hang", timeout=60)
    lines = [x.line for x in doc.results]
    assert lines[0] == "not ok 1 hangs_on_purpose # timed out after 1 s", r.stdout
    assert lines[1] == "not ok 2 dies_on_purpose # killed by signal 11 before its result", r.stdout
    assert all(not x.failed for x in doc.results[2:]) and r.returncode == 1, r.stdout


def read_until(fd, pattern, out, timeout=10):
    """Read fd into out (a [text, position] pair, carriage returns dropped) until pattern matches after the position."""
    rx, deadline = re.compile(pattern, re.MULTILINE), time.monotonic() + timeout
    while not rx.search(out[0], out[1]):
        left = deadline - time.monotonic()
        assert left > 0 and select.select([fd], [], [], left)[0], \
            "no %r within %d s; the terminal said:\n%s" % (pattern, timeout, out[0][-2000:])
        try:
            out[0] += os.read(fd, 65536).decode("utf-8", "replace").replace("\r", "")
        except OSError:         # EIO: the program ended, and with it the pty's other end
            assert rx.search(out[0], out[1]), "ttyread ended first:\n%s" % out[0][-2000:]
    out[1] = rx.search(out[0], out[1]).end()


@LINUX_X86_64
@pytest.mark.parametrize("case", sorted(shell_session.TTYREAD))
def test_ttyread_on_a_pty(case):
    """The shell boot's keys to ttyread (shell_session.TTYREAD), typed here on a pty that is its
    controlling terminal, its group in the foreground: Linux's N_TTY gives the answers ccos must."""
    if not shutil.which("setsid"):
        pytest.skip("no setsid (util-linux) to give ttyread a pty as its terminal")
    elf = os.path.join(harness.ROOT, "build", "user", "ttyread.elf")
    assert os.path.exists(elf), "%s is not built: run make" % os.path.relpath(elf, harness.ROOT)
    args, script = shell_session.TTYREAD[case]
    master, slave = os.openpty()
    # setsid --ctty: a session of its own, the pty its terminal (TIOCSCTTY), then ttyread.
    p = subprocess.Popen(["setsid", "--ctty", elf] + args.split(), stdin=slave, stdout=slave,
                         stderr=slave)
    os.close(slave)
    out = ["", 0]
    try:
        for text, pattern in script:
            if text:
                os.write(master, text.encode())
            read_until(master, pattern, out)
        assert p.wait(10) == 0, "ttyread's exit status %d:\n%s" % (p.returncode, out[0][-2000:])
    finally:
        procs.kill_session(p.pid)
        p.wait()
        os.close(master)


def test_musl_stdout_reaches_the_console():
    """musl's printf (a buffer and one writev) comes out on ccos's serial console."""
    if not shutil.which("musl-gcc"):
        pytest.skip("musl-gcc is missing")
    b = harness.boot("init-bios")
    b.expect(r"^# printf: musl 42 2\.5$", "musltest's printf line")
    b.expect(r"^# uname: Linux 6\.1\.0-ccos$", "musltest's uname line")


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
