"""The harness itself, on synthetic logs: it must fail a boot when it should, and only then."""
import filecmp
import glob
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

import harness
import ktap
import procs
from harness import Boot, Config, classify, clean_log, parse_ktap

BOOT = "ccos: booting\nccos: firmware BIOS, loader GRUB 2.06\n"
GOOD = BOOT + """KTAP version 1
1..3
ok 1 first
    # second: kernel/x_test.c:12: expected 1, got 2
not ok 2 second # a reason
ok 3 third # SKIP no HPET
# ktest: 1 passed, 1 failed
"""


def problems(log, status=1, **kw):
    return classify(log, status, ktap=True, **kw)


def test_good_log_passes():
    assert problems(GOOD) == []


def test_parse_results():
    [doc] = parse_ktap(GOOD)
    assert doc.plan == 3
    first, second, third = doc.results
    assert (first.ok, first.number, first.name, first.failed) == (True, 1, "first", False)
    assert (second.ok, second.name, second.reason, second.failed) == (False, "second", "a reason", True)
    assert second.details == ["    # second: kernel/x_test.c:12: expected 1, got 2"]
    assert (third.ok, third.directive, third.reason, third.skipped, third.failed) == \
        (True, "SKIP", "no HPET", True, False)


def test_result_line_forms():
    r = ktap.parse_result("ok 7 - dashed name")
    assert (r.number, r.name) == (7, "dashed name")
    r = ktap.parse_result("not ok 8")
    assert (r.ok, r.number, r.name) == (False, 8, "")
    r = ktap.parse_result("not ok 9 slow # TODO later")
    assert (r.directive, r.reason, r.failed) == ("TODO", "later", False)
    assert ktap.parse_result("ok") is None
    assert ktap.parse_result("okay 1 x") is None
    assert ktap.parse_result("ok 1x") is None


def test_indented_lines_are_not_results():
    log = BOOT + "KTAP version 1\n1..1\n    KTAP version 1\n    1..2\n    ok 1 sub\n" \
        "    not ok 2 sub2\nok 1 parent\n"
    [doc] = parse_ktap(log)
    assert [(r.number, r.name) for r in doc.results] == [(1, "parent")]
    assert "    not ok 2 sub2" in doc.results[0].details
    assert problems(log, status=0) == []


def test_lines_before_ktap_ignored():
    log = "ok 1 not a test\n1..5\n" + GOOD
    assert [r.number for r in parse_ktap(log)[0].results] == [1, 2, 3]


def test_documents_in_sequence():
    log = BOOT + "KTAP version 1\n1..1\nok 1 a\nKTAP version 1\n1..2\nok 1 b\nok 2 c\n"
    docs = parse_ktap(log)
    assert [(d.plan, len(d.results)) for d in docs] == [(1, 1), (2, 2)]
    assert problems(log, status=0) == []


@pytest.mark.parametrize("log, status, expected", [
    (GOOD + "\nKernel panic: page fault (#PF) in kernel mode\n", 0x7f, "Kernel panic: page fault (#PF) in kernel mode"),
    (BOOT + "KTAP version 1\nok 1 a\n", 0, "no plan line"),
    (BOOT + "KTAP version 1\n1..4\nok 1 a\nok 2 b\n", 0, "planned 4 results, got 2; missing 3-4"),
    (BOOT + "KTAP version 1\n1..1\nok 1 a\nok 2 b\n", 0, "got more: 2"),
    (BOOT + "KTAP version 1\n1..2\nok 2 a\nok 1 b\n", 0, "not 1..2 in order"),
    (BOOT + "no tests here\n", 0, "no KTAP output"),
    (BOOT + "KTAP version 1\n1..1\nok 1 a\nKTAP version 1\n1..2\nok 1 b\n", 0,
     "KTAP document 2: planned 2 results, got 1; missing 2"),
    (GOOD, None, "without an isa-debug-exit status: a triple fault"),
    (GOOD, 0, "exit status 0 although 1 KTAP result(s) failed"),
    (GOOD.replace("not ok 2", "ok 2"), 1, "exit status 1 although no KTAP result failed"),
    ("KTAP version 1\n1..0\n", 0, "the kernel never started"),
], ids=["panic", "missing-plan", "short-results", "extra-results", "out-of-order",
        "no-ktap", "short-second-document", "triple-fault", "failures-exit-0",
        "passes-exit-1", "never-started"])
def test_bad_logs_fail(log, status, expected):
    found = problems(log, status)
    assert any(expected in p for p in found), found


def test_hang_fails():
    found = problems(GOOD, None, hung="no serial output for 120 s")
    assert found[0] == "hung (no serial output for 120 s): the kernel stopped or never powered off"
    assert not any("isa-debug-exit" in p for p in found)


def test_watchdog_judges_by_silence(tmp_path):
    """runqemu.watch lets a slow boot that keeps printing run past its
    silence limit, kills a quiet one soon after the limit, and stops a
    talkative one at the ceiling."""
    log = str(tmp_path / "serial.log")
    talk = [sys.executable, "-c", "import time\nfor i in range(12):\n"
            "    open(%r, 'a').write('line\\n'); time.sleep(0.25)" % log]
    start = time.monotonic()
    assert harness.runqemu.watch(talk, log, silence=1) == (0, None)
    assert time.monotonic() - start > 2.5
    quiet = ["sh", "-c", "echo booting > %s; exec sleep 30" % log]
    start = time.monotonic()
    code, why = harness.runqemu.watch(quiet, log, silence=1)
    assert code is None and why == "no serial output for 1 s"
    assert time.monotonic() - start < 10
    start = time.monotonic()
    code, why = harness.runqemu.watch(talk, log, silence=1, ceiling=1)
    assert code is None and why == "still running after 1 s, the ceiling"
    assert time.monotonic() - start < 10


def test_ktap_not_required():
    assert classify(BOOT + "ccos: init exited with status 0\n", 0) == []
    assert classify(BOOT, 3, expect_status=3) == []
    assert "exit status 0, expected 3" in classify(BOOT, 0, expect_status=3)
    # Without ktap, KTAP in the log does not excuse a non-zero status.
    assert "exit status 1, expected 0" in classify(GOOD, 1)
    assert classify(GOOD, 1, expect_status=1) == []


def test_qemu_error_is_a_failure():
    # QEMU exits with 1 on a bad option, which decodes as status 0.
    found = classify("", harness.runqemu.decode_exit(1),
                     qemu_output="qemu-system-x86_64: unable to find CPU model 'nope'")
    assert any("never started" in p for p in found)
    assert any("unable to find CPU model" in p for p in found)


def test_decode_exit():
    assert harness.runqemu.decode_exit((5 << 1) | 1) == 5
    assert harness.runqemu.decode_exit(0) is None


def test_clean_log():
    raw = b"\x1b[H\x1b[J\x1b[1;1H  Booting `ccos'\r\n\r\nccos: booting\r\nok 1 a\r\n"
    assert clean_log(raw) == "  Booting `ccos'\n\nccos: booting\nok 1 a\n"


def test_failure_message_shows_the_log_tail(tmp_path):
    log = GOOD + "".join("line %d\n" % i for i in range(40)) + "Kernel panic: oops\n"
    b = Boot(Config("synthetic"), status=0x7f, log=log, log_path=str(tmp_path / "serial.log"))
    b.problems = problems(log, 0x7f)
    with pytest.raises(harness.BootFailure) as e:
        b.check()
    msg = str(e.value)
    assert "  - Kernel panic: oops" in msg
    assert "| line 39" in msg and "| Kernel panic: oops" in msg
    assert "| line 5\n" not in msg          # only the tail
    assert "serial.log" in msg


def test_expect_names_the_pattern():
    b = Boot(Config("synthetic"), log=GOOD)
    assert b.expect(r"^ccos: firmware (\w+)").group(1) == "BIOS"
    with pytest.raises(harness.BootFailure, match="no line matches"):
        b.expect(r"^ccos: firmware UEFI")


def test_iso_modules_follow_the_makefile():
    # A name no user program will have (a student's user/hello.c is /bin/hello).
    extra = "extra/harness-selftest-module.elf"
    built = [e for e in glob.glob(os.path.join(harness.USER_DIR, "*.elf"))
             if os.path.basename(e) != "init.elf"]
    bad = glob.glob(os.path.join(harness.BAD_DIR, "*"))
    # The shell's boot (no `--`) carries every program and build/bad's files; an init of
    # its own runs no other.
    for config, programs in ((Config("m", modules=(extra,)), len(built) + len(bad)),
                             (Config("m", modules=(extra,), init="my/init.elf"), 0)):
        mods = harness.iso_modules(config)
        init = os.path.join(harness.ROOT, "my/init.elf") if config.init else \
            os.path.join(harness.USER_DIR, "init.elf")
        assert mods[0] == (init, "/bin/init")
        assert (os.path.join(harness.ROOT, extra), "/bin/harness-selftest-module") in mods
        assert len(mods) == 1 + programs + 1
        names = [name for _, name in mods]
        assert names.count("/bin/init") == 1
        assert len(set(names)) == len(names)
        assert not any(os.path.basename(n).startswith(".") for n in names)


@pytest.mark.parametrize("cmdline,init,programs", [
    ("", None, None),                                   # the shell: every program
    ("-- test", None, None),
    ("ktest", None, {"/bin/init"}),
    ("", "build/bad/odd", {"/bin/init"}),
    ("-- /bin/attack -a", None, {"/bin/init", "/bin/attack", "/bin/layout", "/bin/service"}),
    ("-- test /bin/vdsotest /bin/vdsomap", None, {"/bin/init", "/bin/vdsotest", "/bin/vdsomap"}),
    ("init=/bin/systty", None, {"/bin/init", "/bin/systty"}),
    ("-- /bin/bench", None, None),                      # bench runs /bin/sh
])
def test_boot_programs(cmdline, init, programs):
    assert harness.boot_programs(Config("p", cmdline=cmdline, init=init)) == programs


def test_full_cmdline():
    pti = " pti=" + harness.PTI if harness.PTI else ""    # make test PTI=...
    assert Config("c").full_cmdline == "vsyscall=emulate" + pti
    assert Config("c", mode="none", cmdline="ktest -- a").full_cmdline == "vsyscall=none%s ktest -- a" % pti
    assert Config("c", cmdline="pti=off -- a").full_cmdline == "vsyscall=emulate pti=off -- a"


# tools/summary, on junit XML written here.

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="%d" failures="0" skipped="0" tests="4">
%s
</testsuite></testsuites>
"""


def summary(tmp_path, cases, errors=0):
    path = tmp_path / "results.xml"
    path.write_text(JUNIT % (errors, cases))
    r = subprocess.run([sys.executable, os.path.join(harness.ROOT, "tools", "summary"), str(path)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout.splitlines()[-1]


def test_summary_counts(tmp_path):
    cases = """<testcase name="a"/><testcase name="b"/>
    <testcase name="c"><failure message="x"/></testcase>
    <testcase name="d"><skipped message="y"/></testcase>
    <testcase name="e"><failure message="x"/><error message="teardown"/></testcase>"""
    assert summary(tmp_path, cases) == (1, "2 passed, 2 failed, 1 skipped")


def test_summary_all_passed(tmp_path):
    assert summary(tmp_path, '<testcase name="a"/>') == (0, "1 passed, 0 failed")


def test_summary_nothing_ran(tmp_path):
    assert summary(tmp_path, "")[0] == 1


def test_summary_collection_error(tmp_path):
    assert summary(tmp_path, '<testcase name="x"><error message="boom"/></testcase>', 1) == \
        (1, "0 passed, 1 failed")


def test_summary_sums_files(tmp_path):
    """CI's two runs (this machine, the Debian 13 root) give one line; a missing file fails it."""
    for name, cases in (("a.xml", '<testcase name="a"/><testcase name="b"/>'),
                        ("b.xml", '<testcase name="c"><failure message="x"/></testcase>')):
        (tmp_path / name).write_text(JUNIT % (0, cases))
    tool = os.path.join(harness.ROOT, "tools", "summary")
    r = subprocess.run([sys.executable, tool, str(tmp_path / "a.xml"), str(tmp_path / "b.xml")],
                       stdout=subprocess.PIPE, text=True)
    assert (r.returncode, r.stdout.strip()) == (1, "2 passed, 1 failed")
    r = subprocess.run([sys.executable, tool, str(tmp_path / "a.xml"), str(tmp_path / "none.xml")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert (r.returncode, r.stdout.strip()) == (1, "2 passed, 1 failed")


def test_summary_missing_file(tmp_path):
    r = subprocess.run([sys.executable, os.path.join(harness.ROOT, "tools", "summary"),
                        str(tmp_path / "none.xml")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    assert (r.returncode, r.stdout.strip()) == (1, "0 passed, 1 failed")
    assert "pytest did not finish" in r.stderr


def test_leftovers_finds_a_process_under_build(tmp_path):
    """procs.leftovers() sees a process running a file under build/, and procs.run kills a session."""
    probe = os.path.join(harness.TEST_DIR, "leftover-probe", "sleep")
    os.makedirs(os.path.dirname(probe), exist_ok=True)
    shutil.copy(shutil.which("sleep"), probe)
    def listed(pid):
        return any(line.startswith("%d:" % pid) for line in procs.leftovers())

    def gone(pid=None):
        for _ in range(50):
            if not (listed(pid) if pid else any(probe in l for l in procs.leftovers())):
                return True
            time.sleep(0.1)
        return False

    p = subprocess.Popen([probe, "30"], start_new_session=True)
    try:
        assert listed(p.pid)
    finally:
        procs.kill_session(p.pid)
        p.wait()
    assert gone(p.pid)
    # A command that leaves a grandchild behind: run() reports and kills it.
    r = procs.run(["sh", "-c", "%s 30 & echo started" % probe], 10)
    assert r.stdout.strip() == "started" and len(r.left) == 1 and not r.timed_out
    assert gone(r.left[0])
    # One that hangs: killed whole at its timeout.
    r = procs.run(["sh", "-c", "%s 30 & %s 30" % (probe, probe)], 1)
    assert r.timed_out and gone()


def test_nothing_outlives_the_suite():
    """Run last (conftest): no QEMU, gdb or test program started by the suite is still running."""
    left = procs.leftovers()
    assert not left, "still running after the tests:\n  " + "\n  ".join(left)


def test_make_debug_boots_what_it_is_given():
    """make debug builds build/debug.iso from this run's MODE and CMDLINE and boots it under FW."""
    r = subprocess.run(["make", "-n", "debug", "MODE=native", "CMDLINE=ptdump quiet", "FW=uefi"],
                       cwd=harness.ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    text = r.stdout.replace("\\\n", " ")
    mkiso = [l for l in text.splitlines() if "tools/mkiso" in l and "build/debug.iso" in l]
    debug = [l for l in text.splitlines() if "tools/debug" in l]
    assert len(mkiso) == 1 and "--mode native" in mkiso[0], text
    assert '--cmdline "ptdump quiet"' in mkiso[0] and "--timeout 0" in mkiso[0], text
    assert len(debug) == 1 and "--iso build/debug.iso" in debug[0] and "--fw uefi" in debug[0], text


def _sections_and_segments(path):
    r = subprocess.run(["readelf", "-W", "-S", "-l", path], capture_output=True, text=True, check=True)
    names = set(re.findall(r"^\s*\[\s*\d+\] (\S+)", r.stdout, re.MULTILINE))
    segments = re.findall(r"^\s+LOAD\s.*$", r.stdout, re.MULTILINE)
    return names, segments


def test_mkiso_leaves_out_debug_sections_only(tmp_path):
    """The ISO's kernel and programs are the build's without .debug_*: the same loadable segments,
    the symbol table kept; a file not named .elf (build/bad's crafted ELFs) byte for byte."""
    kernel = os.path.join(harness.BUILD, "kernel.elf")
    prog = os.path.join(harness.USER_DIR, "spin.elf")
    bad = sorted(glob.glob(os.path.join(harness.BUILD, "bad", "*")))[0]
    iso = str(tmp_path / "t.iso")
    subprocess.run([sys.executable, os.path.join(harness.ROOT, "tools", "mkiso"), "--out", iso,
                    "--kernel", kernel, "--timeout", "0", "--module", prog + ":/bin/spin",
                    "--module", bad + ":/bin/bad"], check=True, capture_output=True)
    root = str(tmp_path / "t-root" / "boot")
    for built, copy in ((kernel, root + "/kernel.elf"), (prog, root + "/modules/bin_spin")):
        names, segments = _sections_and_segments(built)
        cnames, csegments = _sections_and_segments(copy)
        assert any(n.startswith(".debug_") for n in names), "%s has no debug sections to leave out" % built
        assert not any(n.startswith(".debug_") for n in cnames), copy
        assert cnames == {n for n in names if not n.startswith(".debug_")}, copy
        assert csegments == segments, copy
    assert filecmp.cmp(bad, root + "/modules/bin_bad", shallow=False)
