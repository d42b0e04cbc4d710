"""Debian's busybox-static, unmodified, on ccos and on this host: the same binary, the same script.

tools/tests/bbscript.sh runs everyday applets, pipes and redirections in
sections ("== NAME"). On ccos the shell boot's session types
`busybox sh /bin/bbscript /tmp/bb | cat` (shell_session.py); here the same
/bin/busybox runs the script in an empty directory also named bb, with
a clean environment. Each section's output must be the same, but for
the sections of CCOS_ONLY, whose answer depends on the host: those run on
ccos alone and are checked against what they must print.
"""
import os
import re
import tempfile

import pytest

import procs
import shell_session

with open(shell_session.BBSCRIPT) as _f:
    SECTIONS = re.findall(r"^s (\w+)\b", _f.read(), re.MULTILINE)

# Section: (why the host cannot answer, a pattern for each line ccos prints).
CCOS_ONLY = {
    "date_s": ("date -s would move the host's clock; on ccos the time set reads back",
               [r"2030-01-02 03:04"]),
    "hwclock": ("the host may have no /dev/rtc, and its RTC keeps a time of its own",
                [r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}  0\.000000 seconds"]),
}

needs_busybox = pytest.mark.skipif(shell_session.BUSYBOX is None,
                                   reason="no /bin/busybox on this host (tools/setup installs busybox-static)")


def sections(text):
    """{section name: its lines}"""
    out, name = {}, None
    for line in text.splitlines():
        m = re.match(r"^== (\w+)$", line)
        if m:
            name = m.group(1)
            out[name] = []
        elif name:
            out[name].append(line)
    return out


_host = None


def host_run():
    global _host
    if _host is None:
        with tempfile.TemporaryDirectory() as tmp:
            work = os.path.join(tmp, "bb")
            os.mkdir(work)
            r = procs.run(["env", "-i", "PATH=/bin:/usr/bin", "LC_ALL=C", shell_session.BUSYBOX,
                           "sh", shell_session.BBSCRIPT, work], 60, cwd=tmp)
        assert not r.timed_out and not r.left, "the host's busybox run %s:\n%s" % (
            "timed out" if r.timed_out else "left processes %s" % r.left, r.stdout[-2000:])
        _host = sections(r.stdout)
    return _host


@pytest.fixture(scope="module")
def ccos_run():
    s = shell_session.session()
    name = "busybox_runs_the_script"
    if name in s.skipped:
        pytest.skip(s.skipped[name])
    assert name not in s.failures, "busybox on ccos: %s" % s.failures.get(name)
    return sections(s.results[name])


def test_the_script_has_sections():
    assert len(SECTIONS) > 20 and SECTIONS[-1] == "end", SECTIONS


@needs_busybox
@pytest.mark.parametrize("section", SECTIONS)
def test_same_output_as_the_host(ccos_run, section):
    if section in CCOS_ONLY:
        why, patterns = CCOS_ONLY[section]
        got = ccos_run.get(section)
        assert got is not None and len(got) == len(patterns) and all(
            re.fullmatch(p, line) for p, line in zip(patterns, got)), (
            "section %s on ccos (%s): %r" % (section, why, got))
        return
    host = host_run()
    assert section in host, "the host's run has no section %s: %r" % (section, host.keys())
    assert section in ccos_run, "ccos's run has no section %s (it ended before)" % section
    assert ccos_run[section] == host[section], (
        "section %s differs:\n  host: %r\n  ccos: %r" % (section, host[section], ccos_run[section]))


@pytest.fixture(scope="module")
def bb_init():
    s = shell_session.session(shell_session.BB_INIT)
    if "boot" in s.failures:
        pytest.fail("busybox's sh as init never gave its prompt: %s" % s.failures["boot"])
    return s


@needs_busybox
@pytest.mark.parametrize("name", [fn.__name__ for fn in shell_session.BB_INIT_STEPS])
def test_busybox_sh_as_init(bb_init, name):
    """init=/bin/busybox -- sh, typed into: a pipeline, an applet through its link, /tmp, poweroff -f."""
    assert name in bb_init.ran, "step %s never ran: the console had ended" % name
    assert name not in bb_init.failures, "step %s: %s" % (name, bb_init.failures[name])


@needs_busybox
def test_busybox_poweroff_ends_the_boot_with_status_0(bb_init):
    assert bb_init.status == 0, "ccos's exit status after poweroff -f: %r" % bb_init.status


@needs_busybox
def test_make_run_sh_busybox_boots_busybox_as_init():
    """make run SH=busybox: the ISO carries /bin/busybox and boots it as init, running sh
    (the busybox-init boot above boots the same; this checks that the Makefile's wiring is that)."""
    r = procs.run(["make", "-s", "-n", "iso", "SH=busybox"], 60, cwd=shell_session.harness.ROOT)
    assert '--cmdline "%s"' % shell_session.BB_INIT.cmdline in r.stdout, r.stdout
    assert "--module /bin/busybox:/bin/busybox" in r.stdout, r.stdout
    assert "--module build/busybox.links:/etc/busybox.links" in r.stdout, r.stdout
