"""Boots to a shell, typed into as a person would: ccos's sh, and busybox's sh as init.

A session is a list of steps, each a function that types commands into
the Console and reads the echo and output. They run in order, in one QEMU,
as a job of the harness's pool (so it boots beside the other boots, two at
a time); a step that fails records why, and the session goes on from a
fresh prompt. The shell boot (init without `-- test`) runs STEPS, which
test_shell.py reports and test_docs.py reads; the busybox boot
(`init=/bin/busybox -- sh`, as `make run SH=busybox`) runs BB_INIT_STEPS,
which test_busybox.py reports. The steps live here, not in a test module:
the jobs may start while pytest is still collecting.
"""
import dataclasses
import os
import random

import harness
from console import Console, ConsoleTimeout

# Debian's busybox-static (tools/setup installs it), its applets' names
# (the Makefile's `busybox --list`: links in /bin), and the script of
# everyday applets that test_busybox.py compares with the host's run.
BUSYBOX = "/bin/busybox" if os.path.exists("/bin/busybox") else None
BUSYBOX_LINKS = os.path.join(harness.BUILD, "busybox.links") + ":/etc/busybox.links"
BBSCRIPT = os.path.join(harness.ROOT, "tools", "tests", "bbscript.sh")
# /etc/passwd and /etc/group: root, one user and nobody, as on `make run`'s ISO.
ETC = tuple("user/etc/%s:/etc/%s" % (f, f) for f in ("passwd", "group"))
# The native page's copy that `attack` studies, as on `make run`'s ISO.
NATIVE_PAGE = os.path.join(harness.BUILD, "vsyscall_native.bin")
SHELL = harness.Config("shell-bios", fw="bios", modules=(NATIVE_PAGE,) + ETC + (
    (BUSYBOX, BUSYBOX_LINKS, BBSCRIPT) if BUSYBOX else ()))
BB_INIT = harness.Config("busybox-init-bios", fw="bios", cmdline="init=/bin/busybox -- sh",
                         modules=ETC + ((BUSYBOX, BUSYBOX_LINKS) if BUSYBOX else ()))
PROMPT = r"^\$ "
BB_PROMPT = r"# $"
STEPS, BB_INIT_STEPS = [], []


class Skipped(Exception):
    """A step that cannot run here, and why."""


def step(fn):
    """Add fn(console) to the shell session, in the order of definition."""
    STEPS.append(fn)
    return fn


def bb_init_step(fn):
    """Add fn(console) to the busybox-as-init session."""
    BB_INIT_STEPS.append(fn)
    return fn


@dataclasses.dataclass
class Session:
    text: str               # everything the console said
    failures: dict          # step name -> why it failed
    skipped: dict           # step name -> why it could not run
    results: dict           # step name -> what it returned
    ran: set                # the steps that ran
    status: object          # ccos's exit status, or None


def _recover(c):
    """After a failed step: interrupt what runs, and wait for a prompt."""
    c.send("\x03\n")
    try:
        c.expect(c.prompt, 10)
    except ConsoleTimeout:
        pass


def run(config, ready, steps, prompt):
    """Boot config, wait for each pattern of ready in turn, then run the steps."""
    c = Console(config, prompt)
    failures, skipped, results, ran = {}, {}, {}, set()
    try:
        c.expect(ready[0], 90)
        for pattern in ready[1:]:
            c.expect(pattern)
        for fn in steps:
            if c.qemu.poll() is not None and not c.reader.is_alive():
                break
            ran.add(fn.__name__)
            try:
                results[fn.__name__] = fn(c)
            except Skipped as e:
                skipped[fn.__name__] = str(e)
            except AssertionError as e:
                failures[fn.__name__] = str(e)
                _recover(c)
    except ConsoleTimeout as e:
        failures["boot"] = str(e)
    finally:
        status = c.close(timeout=5 if not failures else 0)
    return Session(c.text, failures, skipped, results, ran, status)


# ccos's sh: its banner, whose last line the prompt follows.
harness.register_job(SHELL.name, lambda: run(SHELL, (r"^ccos sh: ", r"^  tools: .*\n"), STEPS, PROMPT))
if BUSYBOX:
    harness.register_job(BB_INIT.name, lambda: run(BB_INIT, (r"built-in shell \(ash\)",),
                                                   BB_INIT_STEPS, BB_PROMPT))


def session(config=SHELL):
    """The Session of a boot, run once per pytest run."""
    return harness.job(config.name).result()


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


# The keys of a terminal, as it sends them (xterm, tmux, the Linux console).
UP, DOWN, RIGHT, LEFT, HOME, END, DELETE = ("\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\x1b[H",
                                            "\x1b[F", "\x1b[3~")


@step
def arrows_edit_inside_the_line(c):
    """Left, Home, End, Backspace and Delete in the line, Delete and ^D at its end (user/sh/lineedit.c)."""
    c.expect(PROMPT)
    c.send("echo wrld" + LEFT * 3 + "o\n")
    c.expect(r"^world$")
    c.expect(PROMPT)
    c.send("cho start" + HOME + "e" + END + " end\n")
    c.expect(r"^start end$")
    c.expect(PROMPT)
    c.send("echo abXc" + LEFT + "\x7f" + RIGHT + "d\n")
    c.expect(r"^abcd$")
    c.expect(PROMPT)
    c.send("echo Xabc" + HOME + RIGHT * 5 + DELETE + "\n")
    c.expect(r"^abc$")
    c.expect(PROMPT)
    c.send("echo abc" + DELETE + "\x04" + "d\n")     # at the end: nothing to delete
    c.expect(r"^abcd$")


def escape_storm(seed=42, n=200):
    """Escapes as a terminal might send them and as no terminal does: numbers past 2^31 and 2^64,
    hundreds of digits, random parameters and final bytes, and ESC not followed by [ or O."""
    rnd = random.Random(seed)
    storm = ["\x1b[3000000000~", "\x1b[4294967299~", "\x1b[18446744073709551619~",
             "\x1b[" + "9" * 400 + "~", "\x1bO2147483648A", "\x1b[2147483647;2147483648C"]
    for _ in range(n):
        params = "".join(rnd.choice("0123456789;") for _ in range(rnd.choice((0, 1, 3, 11, 40))))
        storm.append("\x1b" + rnd.choice("[[[OOx\x1b") + params + rnd.choice("~~~~ABCDHFz@"))
    return "".join(storm)


@step
def escapes_of_any_length_are_no_keys(c):
    """The line editor's escape parser (user/sh/lineedit.c) fed a storm of escapes at the prompt:
    a number of any length is no key (ESC [ 3000000000 ~ killed the shell with SIGSEGV); the shell
    lives on, and End and ^U clear what the storm left in the line."""
    storm = escape_storm()
    c.expect(PROMPT)
    for at in range(0, len(storm), 512):
        c.send(storm[at:at + 512])
    c.send(END + "\x15" + "echo alive\n")
    c.expect(r"^alive$", 60)


@step
def history_up_down_bang_and_ctrl_r(c):
    """Up and Down walk the session's lines; `history` numbers them, !N runs one, ^R finds one."""
    c.command("echo first-line")
    c.expect(r"^first-line$")
    c.command("echo second-line")
    c.expect(r"^second-line$")
    c.expect(PROMPT)
    c.send(UP + UP + "\n")
    c.expect(r"^first-line$")
    c.expect(PROMPT)
    c.send(UP + UP + UP + DOWN + "\n")
    c.expect(r"^second-line$")
    c.command("history")
    n = c.expect(r"^\s+(\d+)  echo first-line$").group(1)
    c.command("!" + n)
    c.expect(r"^echo first-line\nfirst-line$")
    c.expect(PROMPT)
    c.send("\x12cond-l\n")
    c.expect(r"^second-line$")
    c.command("!99999; echo not-run")
    c.expect(r"^sh: !99999: event not found$")


@step
def tab_completes_programs_and_paths(c):
    """Tab: a program of /bin, a directory then a file of /tmp; a second Tab lists the choices."""
    c.expect(PROMPT)
    c.send("ech\ttab-done\n")
    c.expect(r"^tab-done$")
    c.expect(PROMPT)
    c.send("cat /tm\tnot\t\n")        # /tmp/notes, from the redirection step
    c.expect(r"^first\nsecond$")
    c.expect(PROMPT)
    c.send("sigf\t\t")
    c.expect(r"^sigfault\s+sigframe\s*$")
    c.send("\x15\n")


@step
def ctrl_c_interrupts_the_program_not_the_shell(c):
    c.command("spin")
    c.expect(r"^spinning$")
    c.send("\x03")
    c.expect(r"\^C$")
    c.command("echo after $?")
    c.expect(r"^after 130$")


@step
def ctrl_backslash_kills_with_sigquit(c):
    c.command("spin")
    c.expect(r"^spinning$")
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


# The line discipline's cases (drivers/tty/n_tty.c), through user/ttyread.c: its
# arguments, then in turn what to type (or None) and the line to wait for.
# The shell boot types them on the console; test_host.py on a pty of the
# host, whose N_TTY gives Linux's answers to the same keys.
TTYREAD = {
    # A line longer than the 4 KiB buffer: its first 4,095 bytes and its
    # newline, as Linux's N_TTY (the 1 KiB ring dropped the newline, and
    # the reader slept); the next line is not lost.
    "long_line": ("reads=2", [(None, r"^ttyread: ready$"),
                              ("x" * 5000 + "\n", r"^ttyread: read 4096, first 120, last 10, "),
                              ("abc\n", r"^ttyread: read 4, first 97, last 10, ")]),
    # VMIN 1, VTIME 1, nothing typed: the timer starts at the first byte, so
    # the read sleeps until the alarm's -EINTR (it spun, 200,000 context
    # switches a second); then a key ends the next read.
    "vmin1_vtime1": ("raw min=1 time=1 alarm=1 reads=2", [
        (None, r"^ttyread: ready$"),
        (None, r"^ttyread: read -4, first -1, last -1, switches (-?\d+)$"),
        ("q", r"^ttyread: read 1, first 113, last 113, ")]),
    # VMIN 3, VTIME 0: with one byte there, poll says nothing to read yet and
    # read waits for two more: one read of 3 (VMIN above 1 was taken as 1).
    "vmin3": ("raw min=3 time=0 poll", [(None, r"^ttyread: ready$"),
                                        ("a", r"^ttyread: 1 typed, poll 0$"),
                                        ("bc", r"^ttyread: read 3, first 97, last 99, ")]),
    # VMIN 0: what is there, at once (VTIME 0) or after VTIME's tenths.
    "vmin0_vtime0": ("raw min=0 time=0", [(None, r"^ttyread: read 0, first -1, last -1, ")]),
    "vmin0_vtime1": ("raw min=0 time=1", [(None, r"^ttyread: read 0, first -1, last -1, ")]),
    # VINTR 0 is _POSIX_VDISABLE (stty intr undef): a typed NUL is a byte like
    # another, not ^C (it sent SIGINT).
    "vintr_disabled": ("intr=0", [(None, r"^ttyread: ready$"),
                                  ("\0\n", r"^ttyread: read 2, first 0, last 10, ")]),
}


def ttyread(c, case):
    """Run ttyread's case at the prompt; the match of its last line."""
    args, script = TTYREAD[case]
    c.command("ttyread " + args)
    for text, pattern in script:
        if text:
            c.send(text)
        m = c.expect(pattern)
    return m


@step
def tty_long_line_keeps_its_newline(c):
    ttyread(c, "long_line")


@step
def tty_vmin1_vtime1_read_sleeps(c):
    args, script = TTYREAD["vmin1_vtime1"]
    c.command("ttyread " + args)
    c.expect(script[0][1])
    switches = int(c.expect(script[1][1]).group(1))
    assert switches < 1000, "%d context switches in the second the read waited: it spins" % switches
    c.send(script[2][0])
    c.expect(script[2][1])


@step
def tty_vmin3_waits_for_3_bytes(c):
    ttyread(c, "vmin3")


@step
def tty_vmin0_returns_what_is_there(c):
    ttyread(c, "vmin0_vtime0")
    ttyread(c, "vmin0_vtime1")


@step
def tty_disabled_vintr_is_no_key(c):
    ttyread(c, "vintr_disabled")


@step
def the_attack_from_the_banner(c):
    """`attack` in this boot's mode (emulate): the jump into the page traps, the returns succeed."""
    c.command("attack")
    c.expect(r"^attack: fixed-syscall: STOPPED \(SIGTRAP\)$", 60)
    c.expect(r"^attack: fixed-ret: SUCCEEDED$", 60)
    c.expect(r"^attack: vdso-leak: SUCCEEDED$", 60)


@step
def busybox_runs_the_script(c):
    """busybox sh runs bbscript.sh in /tmp/bb; its output, for test_busybox.py."""
    if not BUSYBOX:
        raise Skipped("no /bin/busybox on this host (tools/setup installs busybox-static)")
    c.command("busybox mkdir /tmp/bb; busybox sh /bin/bbscript /tmp/bb | cat")
    start = c.expect(r"^== echo$", 60).start()
    end = c.expect(r"^== end$", 180).end()
    return c.text[start:end] + "\n"


@step
def busybox_sh_interactive_with_ctrl_c(c):
    """busybox sh on the terminal: its line editing, a pipeline, ^C to a job, exit."""
    if not BUSYBOX:
        raise Skipped("no /bin/busybox on this host (tools/setup installs busybox-static)")
    c.command("busybox sh")
    c.expect(BB_PROMPT)
    c.send("echo $((6 * 7)) | busybox wc -c\n")
    c.expect(r"^3$")
    c.expect(BB_PROMPT)
    # ccos's spin says so once it runs, in the group busybox made the foreground one.
    c.send("spin\n")
    c.expect(r"^spinning$")
    c.send("\x03")
    c.expect(BB_PROMPT, 10)
    c.send("echo status $?\n")
    c.expect(r"^status 130$")
    c.expect(BB_PROMPT)
    c.send("exit\n")


@step
def applets_by_their_plain_names(c):
    """busybox's applets are links in /bin: `ls` runs busybox as ls, ccos's own cat stays ccos's."""
    if not BUSYBOX:
        raise Skipped("no /bin/busybox on this host (tools/setup installs busybox-static)")
    c.command("mkdir /tmp/ap; echo x > /tmp/ap/file; ln -s file /tmp/ap/link; ls /tmp/ap | cat")
    c.expect(r"^file\nlink$")
    c.command("cat /tmp/ap/link; readlink /tmp/ap/link; seq 3 | tac | cat")
    c.expect(r"^x\nfile\n3\n2\n1$")
    c.command("ls -l /bin/cat /bin/ls")
    c.expect(r"^-r-xr-xr-x .* /bin/cat\nlrwxrwxrwx .* /bin/ls -> busybox$")


@step
def end_of_file_powers_off(c):
    c.expect(PROMPT)
    c.send("\x04")
    c.expect(r"^ccos: init exited with status 0$")



# --- busybox's sh as init ------------------------------------------------------------

@bb_init_step
def bb_pipeline(c):
    c.command("echo one two three | wc -w")
    c.expect(r"^3$")


@bb_init_step
def bb_applet_links_in_bin(c):
    """Exec of the link /bin/ls runs busybox's ls applet (the shell session lists the link)."""
    c.command("/bin/ls -d /tmp")
    c.expect(r"^/tmp$")


@bb_init_step
def bb_redirection_into_tmp(c):
    c.command("seq 3 > /tmp/n; tac < /tmp/n | tr '\\n' ' '; echo")
    c.expect(r"^3 2 1 $")


@bb_init_step
def bb_ps_lists_the_processes(c):
    """ps reads /proc/PID: init (this sh) and a background sleep, by their command lines."""
    # ps once the job runs sleep: before its exec it is still a copy of sh.
    # (A line shorter than the terminal's 80 columns: busybox's editing wraps longer ones.)
    c.command("sleep 30 & until grep -q sl /proc/$!/cmdline; do usleep 9; done; ps")
    c.expect(r"^\s+1 root\s+/bin/busybox sh$")
    c.expect(r"^\s+\d+ root\s+sleep 30$")
    c.command("kill $!")


@bb_init_step
def bb_mkfifo(c):
    """mkfifo in /tmp: cat's open waits for the writer, then reads what it wrote."""
    c.command("mkfifo /tmp/p; echo through > /tmp/p & cat /tmp/p")
    c.expect(r"^through$")


@bb_init_step
def bb_users_from_etc_passwd(c):
    """whoami and id read /etc/passwd and /etc/group (user/etc/)."""
    c.command("whoami; id; id user")
    c.expect(r"^root\nuid=0\(root\) gid=0\(root\)\nuid=1000\(user\) gid=1000\(user\) "
             r"groups=1000\(user\)$")


@bb_init_step
def bb_su_runs_a_command_as_a_user(c):
    """su -c CMD USER (as root) runs CMD with the user's ids; the file it makes is the user's (ls -l)."""
    c.command("su -c id user; su -c 'touch /tmp/mine' user; ls -l /tmp/mine; rm /tmp/mine")
    c.expect(r"^uid=1000\(user\) gid=1000\(user\) groups=1000\(user\)\n"
             r"-rw-r--r-- +1 user +user +0 .* /tmp/mine$")


@bb_init_step
def bb_poweroff(c):
    """poweroff -f powers off (plain poweroff signals init, which is this sh: as on Linux, nothing)."""
    c.command("poweroff -f")
    c.expect(r"^ccos: reboot\(POWER_OFF\) from \S+\[\d+\]$")
