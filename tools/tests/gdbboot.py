"""Boots under gdb: QEMU stopped at the reset vector, gdb -batch running a script (tools/debug).

A configuration with a gdb script (harness.Config.gdb) boots this way: the
tree's own tools/debug runs gdb with that tree's kernel.elf and init.elf,
so that a student's or a mutant's tree is looked at with its own symbols.
The script marks its steps with `echo @@@ STEP` lines (step() reads one);
when it ends with `continue`, the guest runs to its power-off and the
serial log holds what its programs printed, as in any boot. The gdb tests
(test_gdb, test_pti) run their sessions with run_session, and read them as a
Session, a step at a time.
"""
import dataclasses
import os
import re
import socket
import sys

import harness
import procs

TIMEOUT = 240           # one session: a boot with gdb attached, under TCG


def free_port():
    """A TCP port no one listens on now: not the per-user default, which a person may be using."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_debug(config, iso, script, log_path, prog="init", silence=None):
    """tools/debug --batch of config's tree with script (a file's path); a procs.Result.
    silence: seconds without serial output after which tools/debug stops gdb and QEMU, as
    the harness's watchdog stops a boot."""
    root = config.tree or harness.ROOT
    cmd = [sys.executable, os.path.join(root, "tools", "debug"), "--batch", script, "--iso", iso,
           "--fw", config.fw, "--cpu", harness.qemu_cpu(config), "--port", str(free_port()),
           "--log", log_path, "--timeout", str(TIMEOUT), "--prog", prog]
    if silence:
        cmd += ["--silence", str(silence)]
    extra = harness.qemu_extra(config)
    if extra:
        cmd += ["--extra", " ".join(extra)]
    return procs.run(cmd, TIMEOUT + 30, cwd=root)


def run(config, iso, workdir, log_path):
    """Boot config under its gdb script: (the exit status init's last line gives, or None; why it
    hung, or None; gdb's output, also kept in workdir/gdb.log)."""
    script = os.path.join(workdir, "script.gdb")
    with open(script, "w") as f:
        f.write(config.gdb)
    r = run_debug(config, iso, script, log_path, silence=config.silence)
    m = re.search(r"^debug: (.*): stopped gdb and QEMU$", r.stdout, re.MULTILINE)
    hung = m.group(1) if m else "tools/debug ran past %d s" % (TIMEOUT + 30) if r.timed_out else None
    out = r.stdout
    with open(os.path.join(workdir, "gdb.log"), "w") as f:
        f.write(out)
    try:
        with open(log_path, "rb") as f:
            log = f.read().decode("utf-8", "replace")
    except OSError:
        log = ""
    # QEMU's exit status is tools/debug's to see, not ours: the kernel's last line says it.
    m = re.search(r"^ccos: init exited with status (\d+)", log, re.MULTILINE)
    return (int(m.group(1)) if m else None), hung, out


def step(output, name):
    """The output of one `echo @@@ NAME` step, up to the next step; None if it never ran."""
    m = re.search(r"^@@@ %s\n(.*?)(?=^@@@ |\Z)" % re.escape(name), output, re.MULTILINE | re.DOTALL)
    return m.group(1) if m else None


def kernel_has(symbol):
    """Whether build/kernel.elf defines symbol (from build/kernel.sym, nm -n)."""
    try:
        with open(os.path.join(harness.BUILD, "kernel.sym")) as f:
            return any(line.split()[-1] == symbol for line in f if line.strip())
    except OSError:
        return False


@dataclasses.dataclass
class Session:
    """A gdb session's output (run_session), read a step at a time."""
    name: str
    output: str
    code: int
    log_path: str

    def step(self, name):
        """The output of one `echo @@@ NAME` step, up to the next step."""
        out = step(self.output, name)
        assert out is not None, self.report("step %r never ran" % name)
        return out

    def report(self, headline):
        tail = "\n".join("    | " + l for l in self.output.rstrip().splitlines()[-40:])
        return "%s\n  gdb session %s exited with %d; its output: %s\n  last lines:\n%s" % (
            headline, self.name, self.code, os.path.relpath(self.log_path, harness.ROOT), tail)


def run_session(config, script, prog="init"):
    """Boot config under tools/debug --batch with script; the Session. It runs
    as a job of the harness's pool, so at most two QEMUs run at once with the
    boots of configs.py."""
    workdir = os.path.join(harness.TEST_DIR, config.name)
    iso = harness.prepare(config)
    script_path = os.path.join(workdir, "script.gdb")
    with open(script_path, "w") as f:
        f.write(script)
    r = run_debug(config, iso, script_path, os.path.join(workdir, "serial.log"), prog)
    out = r.stdout + ("\ntest_gdb: timed out after %d s, its processes killed" % (TIMEOUT + 30)
                      if r.timed_out else "")
    log_path = os.path.join(workdir, "gdb.log")
    with open(log_path, "w") as f:
        f.write(out)
    return Session(config.name, out, r.returncode, log_path)


def hex_of(text, what, session):
    """The first value gdb printed ($N = 0x...) in text."""
    m = re.search(r"^\$\d+ = (0x[0-9a-f]+)", text, re.MULTILINE)
    assert m, session.report("no value printed for %s" % what)
    return int(m.group(1), 16)
