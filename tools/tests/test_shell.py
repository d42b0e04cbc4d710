"""The shell on the serial console (user/sh.c), typed into as a person would.

One boot without `-- test` (console.shell()), so init starts /bin/sh; the
tests run in order in that one session, each typing commands and reading
the echo and output; the last one ends it with ^D.
"""
import time

import pytest

import console
from console import ConsoleTimeout

PROMPT = r"^\$ "


@pytest.fixture(scope="module")
def sh():
    return console.shell()


def test_banner_names_the_demos(sh):
    for demo in ("vsyscalltest", "vdsotest", "cat /proc/self/maps", "bench", "poweroff"):
        assert demo in sh.text, "the banner does not name %s:\n%s" % (demo, sh.tail())


def test_pipeline(sh):
    sh.command("echo one two three | wc")
    sh.expect(r"^\s+1\s+3\s+14\s*$")


def test_exit_status_and_semicolon(sh):
    sh.command("cat /no/such/file; echo status $?")
    sh.expect(r"^status 1$")
    sh.command("nosuchcommand; echo status $?")
    sh.expect(r"command not found")
    sh.expect(r"^status 127$")


def test_redirection_into_tmp_and_back(sh):
    sh.command("echo first > /tmp/notes; echo second >> /tmp/notes")
    sh.command("wc < /tmp/notes > /tmp/count; cat /tmp/count")
    sh.expect(r"^\s+2\s+2\s+13\s*$")
    sh.command("cd /tmp; pwd; cat notes")
    sh.expect(r"^/tmp\nfirst\nsecond$")


def test_erase_and_kill_line(sh):
    sh.expect(PROMPT)
    sh.send("echo abcX\x7f\n")
    sh.expect(r"^abc$")
    sh.expect(PROMPT)
    sh.send("junk junk\x15echo ok\n")
    sh.expect(r"^ok$")


def test_ctrl_c_interrupts_the_program_not_the_shell(sh):
    sh.command("spin")
    time.sleep(1)
    sh.send("\x03")
    sh.expect(r"\^C$")
    sh.command("echo after $?")
    sh.expect(r"^after 130$")


def test_ctrl_backslash_kills_with_sigquit(sh):
    sh.command("spin")
    time.sleep(1)
    sh.send("\x1c")
    sh.expect(r"killed by signal 3 \(SIGQUIT\)")
    sh.command("echo after $?")
    sh.expect(r"^after 131$")


def test_background_job_and_kill(sh):
    sh.command("spin &")
    pid = sh.expect(r"^\[(\d+)\]$").group(1)
    sh.command("echo alive")
    sh.expect(r"^alive$")
    sh.command("kill -9 %s" % pid)
    # The shell reports a finished job before a prompt, once it has died:
    # an empty line gives it another prompt.
    for _ in range(5):
        try:
            sh.expect(r"^\[%s\] killed by signal 9 \(SIGKILL\)$" % pid, timeout=5)
            break
        except ConsoleTimeout:
            sh.send("\n")
    else:
        pytest.fail("no report of job %s killed by SIGKILL:\n%s" % (pid, sh.tail()))


def test_raw_mode_reads_a_key_without_enter(sh):
    sh.command("ttyraw")
    sh.expect(r"^ttyraw: press a key$")
    sh.send("q")
    sh.expect(r"^ttyraw: key 113$")


def test_end_of_file_powers_off(sh):
    sh.expect(PROMPT)
    sh.send("\x04")
    sh.expect(r"^ccos: init exited with status 0$")
    assert sh.close() == 0
