"""The vDSO: the build check, the test program on this Linux host, and what the boots report."""
import os
import platform
import re
import shutil
import subprocess

import pytest

import harness

VDSO_SO = os.path.join(harness.BUILD, "vdso", "vdso.so")
VDSOTEST = os.path.join(harness.USER_DIR, "vdsotest.elf")
VDSOMAP = os.path.join(harness.USER_DIR, "vdsomap.elf")
VDSOCHECK = os.path.join(harness.ROOT, "tools", "vdsocheck")
VDSO_LD = os.path.join(harness.ROOT, "linker", "vdso.ld")
VDSO_BOOTS = ["init-bios", "vdso-hpet", "vdso-jiffies", "vdso-qemu64"]
MUSL_SRC = os.path.join(harness.ROOT, "tools", "tests", "musl", "muslvdso.c")

EXPORTS = """
__attribute__((visibility("default"))) int __vdso_clock_gettime(void) { return 0; }
__attribute__((visibility("default"))) int __vdso_gettimeofday(void) { return 0; }
__attribute__((visibility("default"))) int __vdso_time(void) { return 0; }
__attribute__((visibility("default"))) int __vdso_getcpu(void) { return 0; }
__attribute__((visibility("default"))) int __vdso_clock_getres(void) { return 0; }
#define ALIAS(n) __attribute__((visibility("default"))) int n(void) __attribute__((weak, alias("__vdso_" #n)));
ALIAS(clock_gettime) ALIAS(gettimeofday) ALIAS(time) ALIAS(getcpu) ALIAS(clock_getres)
"""

# Each: C added to a well-formed vDSO, and what vdsocheck must say about it.
BAD = {
    "relocation": ("static int x; __attribute__((visibility(\"default\"))) int *p = &x;",
                   "dynamic relocations"),
    "import": ("extern int elsewhere(void); __attribute__((visibility(\"default\"))) "
               "int f(void) { return elsewhere(); }", "imports the undefined symbol elsewhere"),
    "writable": ("int counter; __attribute__((visibility(\"default\"))) "
                 "int g(void) { return ++counter; }", "writable"),
}


def build_so(tmp_path, extra, undefined_ok=True):
    src = tmp_path / "v.c"
    src.write_text(EXPORTS + extra)
    so = tmp_path / "v.so"
    cmd = ["gcc", "-O2", "-fPIC", "-fvisibility=hidden", "-shared", "-nostdlib",
           "-Wl,-T," + VDSO_LD, "-Wl,--hash-style=both", "-Wl,-soname=linux-vdso.so.1",
           "-Wl,--build-id=none", "-o", str(so), str(src)]
    subprocess.run(cmd, check=True, capture_output=True)
    return so


def vdsocheck(path):
    return subprocess.run([VDSOCHECK, str(path)], capture_output=True, text=True)


def test_vdsocheck_accepts_the_built_vdso():
    r = vdsocheck(VDSO_SO)
    assert r.returncode == 0, r.stderr


def test_vdsocheck_accepts_a_minimal_good_object(tmp_path):
    r = vdsocheck(build_so(tmp_path, ""))
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("name", sorted(BAD))
def test_vdsocheck_refuses(tmp_path, name):
    extra, message = BAD[name]
    r = vdsocheck(build_so(tmp_path, extra))
    assert r.returncode == 1 and message in r.stderr, r.stderr


def test_vdsocheck_refuses_a_missing_export(tmp_path):
    src = EXPORTS.replace("__vdso_getcpu(void) { return 0; }", "__vdso_getcpux(void) { return 0; }")
    src = src.replace("ALIAS(getcpu) ", "")
    (tmp_path / "v.c").write_text(src)
    so = tmp_path / "v.so"
    subprocess.run(["gcc", "-O2", "-fPIC", "-fvisibility=hidden", "-shared", "-nostdlib",
                    "-Wl,-T," + VDSO_LD, "-Wl,--hash-style=both", "-Wl,-soname=linux-vdso.so.1",
                    "-o", str(so), str(tmp_path / "v.c")], check=True, capture_output=True)
    r = vdsocheck(so)
    assert r.returncode == 1 and "does not export __vdso_getcpu" in r.stderr, r.stderr


# Functions the kernel could not copy elsewhere in the image (vdsocheck --movable).
NOT_MOVABLE = {
    "rip": ("static const int table[4] = { 1, 2, 3, 4 }; "
            "int f(int i) { return ((const volatile int *)table)[i & 3]; }", "relative to rip"),
    "call": ("__attribute__((noinline)) int g(int i) { return i * 3; } "
             "int f(int i) { return g(i) + 1; }", "leaves the function"),
}


def movable(so, name):
    return subprocess.run([VDSOCHECK, "--movable", name, str(so)], capture_output=True, text=True)


def test_vdsocheck_movable_accepts_the_getcpu_variant():
    r = movable(os.path.join(harness.BUILD, "vdso", "vdso.so.dbg"), "vdso_getcpu_rdtscp")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("name", sorted(NOT_MOVABLE))
def test_vdsocheck_movable_refuses(tmp_path, name):
    extra, message = NOT_MOVABLE[name]
    r = movable(build_so(tmp_path, extra), "f")
    assert r.returncode == 1 and message in r.stderr, r.stderr


@pytest.mark.skipif(platform.system() != "Linux" or platform.machine() != "x86_64",
                    reason="vdsotest.elf is a Linux x86-64 program")
def test_vdsotest_on_the_linux_host():
    """The same binaries against Linux's own vDSO: the lookup and the host-applicable cases."""
    for elf in (VDSOTEST, VDSOMAP):
        r = subprocess.run([elf], capture_output=True, text=True, timeout=60, cwd=harness.ROOT)
        bad = [l for l in r.stdout.splitlines() if l.startswith("not ok")]
        assert r.returncode == 0 and not bad, r.stdout + r.stderr
        plan = re.search(r"^1\.\.(\d+)$", r.stdout, re.M)
        assert plan and len(re.findall(r"^ok \d+ ", r.stdout, re.M)) == int(plan.group(1)), r.stdout


@pytest.mark.parametrize("name", VDSO_BOOTS)
def test_boot_reports_the_vdso(boot, name):
    b = boot(name)
    m = b.expect(r"^vdso: (\d+) bytes in (\d+) pages? at [0-9a-f]+, shared read-only by every "
                 r"process; clock_getres (\d+) ns, coarse (\d+) ns$")
    # every clock's timers end at a tick, whatever the clocksource (docs/time.md)
    assert int(m.group(3)) == int(m.group(4)) == 10_000_000, \
        b.report("clock_getres %s ns, coarse %s ns, expected a tick (10000000) for both"
                 % (m.group(3), m.group(4)))


def test_boot_reports_the_entropy_source(boot):
    boot("init-bios").expect(r"^random: entropy from the CPU: RDRAND")
    boot("vdso-qemu64").expect(r"random: no RDRAND or RDSEED on this CPU; using the TSC mixed "
                               r"with the RTC")


def test_jiffies_fine_clocks_are_system_calls(boot):
    """Clock mode none: under strict seccomp the vDSO's CLOCK_MONOTONIC is killed like a syscall."""
    boot("vdso-jiffies").expect(r"^# clock mode none: the vDSO's CLOCK_MONOTONIC is a system call, "
                                r"and was killed$")


def test_vdso_moves_between_processes_and_boots(boot):
    """Every process of every boot had its own vDSO address; [vsyscall] never moved."""
    seen = []
    for name in VDSO_BOOTS:
        b = boot(name)
        seen += [int(a, 16) for a in re.findall(r"^# vDSO at ([0-9a-f]+),", b.log, re.M)]
        seen += [int(a, 16) for a in re.findall(r"^# exec \d: ([0-9a-f]+)-[0-9a-f]+ r-xp .*\[vdso\]$",
                                                b.log, re.M)]
        for line in re.findall(r"^# exec \d: (.*\[vsyscall\])$", b.log, re.M):
            assert line.startswith("ffffffffff600000-ffffffffff601000 "), line
    assert len(seen) >= 3 * len(VDSO_BOOTS), seen
    assert len(set(seen)) == len(seen), "a vDSO address repeated: %s" % ["%x" % a for a in seen]
    assert all(a % 4096 == 0 and 0x7f0000000000 <= a < 0x7fff00000000 for a in seen), seen


@pytest.fixture(scope="module")
def musl_boot():
    """Boot ccos with tools/tests/musl/muslvdso.c, built by musl-gcc -static, as its only test."""
    musl_gcc = shutil.which("musl-gcc")
    if not musl_gcc:
        pytest.skip("musl-gcc is missing (Debian's musl-tools; tools/setup installs it)")
    out_dir = os.path.join(harness.TEST_DIR, "musl-build")
    os.makedirs(out_dir, exist_ok=True)
    elf = os.path.join(out_dir, "muslvdso.elf")
    subprocess.run([musl_gcc, "-static", "-O2", "-Wall", "-o", elf, MUSL_SRC], check=True)
    return harness.boot(harness.Config("vdso-musl", cmdline="-- /bin/muslvdso", modules=(elf,),
                                       ktap=True))


def test_musl_uses_the_vdso_without_a_system_call(musl_boot):
    """musl's clock_gettime and time survive strict seccomp on ccos; the raw system call does not."""
    musl_boot.check()
    for name in ("musl_clock_gettime_survives_strict_seccomp",
                 "raw_clock_gettime_syscall_is_killed", "musl_clock_gettime_monotonic"):
        musl_boot.expect(r"^ok \d+ %s$" % name)
    musl_boot.expect(r"^ok 1 /bin/muslvdso$")
