"""make record and make replay (tools/replay): a short boot recorded, replayed under gdb, stepped backwards.

One job of the harness's pool: vsysbad as init (a vsyscall with a bad
pointer, SIGSEGV, power-off: about 3 s recorded), then one replay session
that stops in trap_stub_204 (CS 0x10, the kernel) and reverse-steps into
ring 3 (CS 0x33, the int $0xcc). The refusals (a recording of another ISO,
a truncated or foreign file, a port in use) start no QEMU.
"""
import os
import re
import shutil
import socket
import subprocess
import sys

import pytest

import gdbboot
import harness
import procs

pytestmark = pytest.mark.skipif(shutil.which("gdb") is None or shutil.which("qemu-img") is None,
                                reason="gdb or qemu-img (qemu-utils) is missing: tools/setup installs them")

REPLAY = [sys.executable, os.path.join(harness.ROOT, "tools", "replay")]
WORK = os.path.join(harness.TEST_DIR, "replay")
SCRIPT = """
break trap_stub_204
continue
echo @@@ trap\\n
print/x $cs
reverse-stepi
echo @@@ back\\n
print/x $cs
print/x $pc
echo @@@ end\\n
delete
continue
"""


def iso(name, cmdline):
    out = os.path.join(WORK, name)
    subprocess.run([sys.executable, os.path.join(harness.ROOT, "tools", "mkiso"), "--out", out,
                    "--kernel", os.path.join(harness.BUILD, "kernel.elf"), "--timeout", "0",
                    "--cmdline", cmdline, "--module",
                    os.path.join(harness.USER_DIR, "vsysbad.elf") + ":/bin/vsysbad"],
                   check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return out


def session():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    cd = iso("ccos.iso", "init=/bin/vsysbad")
    rec = os.path.join(WORK, "ccos.rr")
    r1 = procs.run(REPLAY + ["record", "--iso", cd, "--out", rec, "--serial",
                             os.path.join(WORK, "record.log"), "--timeout", "120"], 150)
    script = os.path.join(WORK, "script.gdb")
    with open(script, "w") as f:
        f.write(SCRIPT)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    r2 = procs.run(REPLAY + ["replay", rec, "--iso", cd, "--prog", "vsysbad", "--port", str(port),
                             "--batch", script, "--serial", os.path.join(WORK, "replay.log"),
                             "--timeout", "120"], 150)
    with open(os.path.join(WORK, "gdb.log"), "w") as f:
        f.write(r2.stdout)
    return cd, rec, r1, r2


def result():
    return harness.job("replay", session).result()


def step(out, name):
    text = gdbboot.step(out, name)
    assert text is not None, "step %s never ran; gdb's output:\n%s" % (name, out[-3000:])
    return text


def test_record_writes_a_recording_of_the_boot():
    cd, rec, r1, _ = result()
    assert r1.returncode == 0 and os.path.exists(rec), r1.stdout
    log = open(os.path.join(WORK, "record.log"), errors="replace").read()
    assert "ccos: init was killed by signal 11" in log, log[-2000:]
    r = procs.run(REPLAY + ["check", rec, "--iso", cd], 60)
    assert r.returncode == 0 and "is a recording of" in r.stdout, r.stdout


def test_replay_is_the_same_boot():
    result()
    rec = open(os.path.join(WORK, "record.log"), "rb").read()
    rep = open(os.path.join(WORK, "replay.log"), "rb").read()
    # A reverse step replays from the start again: the console prints the boot once more.
    assert rep.endswith(rec) and b"vsyscall fault" in rec, "the replay's console does not end as the recording's"


def test_reverse_stepi_from_the_trap_stub_into_ring3():
    _, _, _, r2 = result()
    assert re.search(r"^\$\d+ = 0x10$", step(r2.stdout, "trap"), re.MULTILINE), r2.stdout[-3000:]
    back = step(r2.stdout, "back")
    vals = re.findall(r"^\$\d+ = (0x[0-9a-f]+)$", back, re.MULTILINE)
    assert vals == ["0x33", "0xffffffffff600000"], "after reverse-stepi, CS and RIP: %s\n%s" % (vals, back)
    step(r2.stdout, "end")


def refused(args, words):
    r = procs.run(REPLAY + args, 60)
    assert r.returncode == 1 and words in r.stdout, r.stdout
    assert not r.left and not r.timed_out, "tools/replay left processes running: %s" % r.left


def test_replay_refuses_another_build():
    cd, rec, _, _ = result()
    other = iso("other.iso", "init=/bin/vsysbad quiet")
    refused(["replay", rec, "--iso", other], "the recording is of another build")


def test_replay_refuses_a_truncated_or_foreign_file():
    cd, rec, _, _ = result()
    cut = os.path.join(WORK, "cut.rr")
    with open(rec, "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[:os.path.getsize(rec) // 2])
    refused(["replay", cut, "--iso", cd], "truncated")
    refused(["replay", cd, "--iso", cd], "is not a ccos recording")


def test_replay_refuses_a_port_in_use():
    cd, rec, _, _ = result()
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    try:
        refused(["replay", rec, "--iso", cd, "--port", str(s.getsockname()[1])], "is taken")
    finally:
        s.close()
