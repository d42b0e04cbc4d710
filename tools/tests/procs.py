"""Processes that the test suite starts: each in a session of its own, killed whole, none left over.

run(cmd, timeout) runs a command as the leader of a new session (so of a
new process group too), with its output in a file rather than a pipe (a
grandchild that kept a pipe open would make the read wait for it). On a
timeout, and after a normal exit as well, every process still in that
session is killed with SIGKILL, including those that moved to process
groups of their own (the test runner's cases do). leftovers() lists the
processes, other than pytest and its ancestors, that run a file under
build/ or name one in their arguments: after the suite there must be none.
"""
import os
import signal
import subprocess
import tempfile

import harness


def _stat(pid):
    """(ppid, session) of a process, or None if it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()     # state ppid pgrp session ...
    return int(fields[1]), int(fields[3])


def _pids():
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def session_members(sid):
    return [pid for pid in _pids() if (_stat(pid) or (0, 0))[1] == sid]


def kill_session(sid):
    """SIGKILL every process of session sid; the pids it killed."""
    killed = session_members(sid)
    for pid in killed:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return killed


class Result:
    def __init__(self, returncode, output, timed_out, left):
        self.returncode = returncode
        self.stdout = output
        self.timed_out = timed_out
        self.left = left            # pids still in the session after a normal exit


def run(cmd, timeout, cwd=None):
    """Run cmd in a session of its own; stdout and stderr together in Result.stdout."""
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             cwd=cwd, start_new_session=True)
        try:
            p.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        left = [pid for pid in kill_session(p.pid) if pid != p.pid]
        p.wait()
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return Result(p.returncode, text, timed_out, [] if timed_out else left)


def _ancestors():
    pids, pid = set(), os.getpid()
    while pid > 1:
        pids.add(pid)
        st = _stat(pid)
        if not st:
            break
        pid = st[0]
    return pids


def _under_build(path, cwd):
    path = os.path.normpath(os.path.join(cwd, path))
    return path.startswith(harness.BUILD + os.sep)


def leftovers():
    """'pid: command' of each process besides pytest's own line that runs or names a file under build/."""
    found, mine = [], _ancestors()
    for pid in _pids():
        if pid in mine:
            continue
        try:
            exe = os.readlink("/proc/%d/exe" % pid)
            cwd = os.readlink("/proc/%d/cwd" % pid)
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                args = f.read().decode("utf-8", "replace").split("\0")
        except OSError:
            continue            # gone, or not ours to read
        if any(_under_build(a, cwd) for a in [exe] + [a for a in args if a]):
            found.append("%d: %s" % (pid, " ".join(args).strip()))
    return found
