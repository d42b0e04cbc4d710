"""One boot to the shell (init without `-- test`), typed into as a person would.

The session is a list of steps, each a function that types commands into
the Console and reads the echo and output. They run in order, in one QEMU,
as a job of the harness's pool (so it boots beside the other boots, two at
a time); a step that fails records why, and the session goes on from a
fresh prompt. test_shell.py reports each step; test_docs.py reads the boot's
output. The steps live here, not in a test module: the job may start while
pytest is still collecting.
"""
import dataclasses
import time

import harness
from console import Console, ConsoleTimeout

SHELL = harness.Config("shell-bios", fw="bios")
PROMPT = r"^\$ "
STEPS = []


def step(fn):
    """Add fn(console) to the session, in the order of definition."""
    STEPS.append(fn)
    return fn


@dataclasses.dataclass
class Session:
    text: str               # everything the console said
    failures: dict          # step name -> why it failed
    ran: set                # the steps that ran
    status: object          # ccos's exit status, or None


def _recover(c):
    """After a failed step: interrupt what runs, and wait for a prompt."""
    c.send("\x03\n")
    try:
        c.expect(PROMPT, 10)
    except ConsoleTimeout:
        pass


def run():
    c = Console(SHELL)
    failures, ran = {}, set()
    try:
        c.expect(r"^ccos sh: ", 90)
        c.expect(r"^  tools: .*\n")     # the banner's last line; the prompt follows
        for fn in STEPS:
            if c.qemu.poll() is not None and not c.reader.is_alive():
                break
            ran.add(fn.__name__)
            try:
                fn(c)
            except AssertionError as e:
                failures[fn.__name__] = str(e)
                _recover(c)
    except ConsoleTimeout as e:
        failures["boot"] = str(e)
    finally:
        status = c.close(timeout=5 if not failures else 0)
    return Session(c.text, failures, ran, status)


harness.register_job(SHELL.name, run)


def session():
    """The Session, run once per pytest run."""
    return harness.job(SHELL.name).result()


# --- The steps --------------------------------------------------------------------

@step
def pipeline(c):
    c.command("echo one two three | wc")
    c.expect(r"^\s+1\s+3\s+14\s*$")


@step
def exit_status_and_semicolon(c):
    c.command("cat /no/such/file; echo status $?")
    c.expect(r"^status 1$")
    c.command("nosuchcommand; echo status $?")
    c.expect(r"command not found")
    c.expect(r"^status 127$")


@step
def redirection_into_tmp_and_back(c):
    c.command("echo first > /tmp/notes; echo second >> /tmp/notes")
    c.command("wc < /tmp/notes > /tmp/count; cat /tmp/count")
    c.expect(r"^\s+2\s+2\s+13\s*$")
    c.command("cd /tmp; pwd; cat notes")
    c.expect(r"^/tmp\nfirst\nsecond$")


@step
def erase_and_kill_line(c):
    c.expect(PROMPT)
    c.send("echo abcX\x7f\n")
    c.expect(r"^abc$")
    c.expect(PROMPT)
    c.send("junk junk\x15echo ok\n")
    c.expect(r"^ok$")


@step
def ctrl_c_interrupts_the_program_not_the_shell(c):
    c.command("spin")
    time.sleep(1)
    c.send("\x03")
    c.expect(r"\^C$")
    c.command("echo after $?")
    c.expect(r"^after 130$")


@step
def ctrl_backslash_kills_with_sigquit(c):
    c.command("spin")
    time.sleep(1)
    c.send("\x1c")
    c.expect(r"killed by signal 3 \(SIGQUIT\)")
    c.command("echo after $?")
    c.expect(r"^after 131$")


@step
def background_job_and_kill(c):
    c.command("spin &")
    pid = c.expect(r"^\[(\d+)\]$").group(1)
    c.command("echo alive")
    c.expect(r"^alive$")
    c.command("kill -9 %s" % pid)
    # The shell reports a finished job before a prompt, once it has died:
    # an empty line gives it another prompt.
    for _ in range(5):
        try:
            c.expect(r"^\[%s\] killed by signal 9 \(SIGKILL\)$" % pid, timeout=5)
            return
        except ConsoleTimeout:
            c.send("\n")
    raise AssertionError("no report of job %s killed by SIGKILL:\n%s" % (pid, c.tail()))


@step
def raw_mode_reads_a_key_without_enter(c):
    c.command("ttyraw")
    c.expect(r"^ttyraw: press a key$")
    c.send("q")
    c.expect(r"^ttyraw: key 113$")


@step
def end_of_file_powers_off(c):
    c.expect(PROMPT)
    c.send("\x04")
    c.expect(r"^ccos: init exited with status 0$")

