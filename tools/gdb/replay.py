"""gdb side of make replay: reverse execution that cannot hang QEMU 7.2, and ccos-replay.

Sourced by tools/replay after ccos.gdb, once gdb is connected to a QEMU that
replays a recording (-icount ...,rr=replay). QEMU runs backwards by loading
the nearest snapshot at or before the instruction wanted and replaying
forward to it; it makes one snapshot itself, `start_debugging`, at the first
instruction (icount 0), when gdb connects.

Two things hang QEMU 7.2 for good (its main loop stops answering, even
SIGTERM; tools/replay then kills it):
- loading a snapshot that `monitor savevm` made after the replay had run
  (start_debugging, made before the first instruction, loads fine): the
  next reverse step that needs it never ends, for a target before or after
  the snapshot alike. So nothing here saves one;
- a reverse step whose target is exactly a snapshot's instruction: the seek
  loads it and waits for an instruction count that is never reached
  (replay_advance_current_icount only fires a break when the count moves).
  With start_debugging at 0 that is a reverse step into the very first
  instruction, or a reverse-continue that finds no breakpoint before it.

So reverse execution reaches back to the kernel's first instruction
(_start, the multiboot2 entry) and no further: a hidden breakpoint there
stops every reverse-continue and reverse-next that would pass it, and the
reverse commands refuse to start at or before it. The firmware and GRUB
replay forwards only.
"""
import re

import gdb

REVERSE = ["reverse-stepi", "reverse-nexti", "reverse-step", "reverse-next",
           "reverse-continue", "reverse-finish"]


def icount():
    """The replay's instruction count (QEMU's `info replay`), or None outside a replay."""
    out = gdb.execute("monitor info replay", to_string=True)
    m = re.search(r"instruction count = (\d+)", out)
    return int(m.group(1)) if m else None


class KernelEntry(gdb.Breakpoint):
    """At the kernel's first instruction: remembers its icount on the way forward; stops
    a reverse execution that reaches it (QEMU could not go further back safely)."""

    def __init__(self, addr):
        super().__init__("*%#x" % addr, internal=True)
        self.addr = addr
        self.at = None

    def stop(self):
        now = icount()
        if self.at is None:
            self.at = now
            return False
        if now is not None and now <= self.at:
            print("ccos-replay: back at the kernel's first instruction (icount %d): reverse "
                  "execution goes no further (`help ccos-replay`)" % self.at)
            return True
        return False


_entry = None


def kernel_entry_address():
    """The ELF entry of build/kernel.elf: the 32-bit multiboot2 entry, _start."""
    out = gdb.execute("info files", to_string=True)
    m = re.search(r"Entry point: (0x[0-9a-f]+)", out)
    if not m:
        raise gdb.GdbError("ccos-replay: no kernel loaded (ccos-kernel) to find its entry in")
    return int(m.group(1), 16)


class Start(gdb.Command):
    """Set up reverse execution of a replay (tools/replay runs it after connecting)."""

    def __init__(self):
        super().__init__("ccos-replay-start", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        global _entry
        if icount() is None:
            raise gdb.GdbError("ccos-replay: QEMU is not replaying a recording (make replay starts one)")
        _entry = KernelEntry(kernel_entry_address())
        for cmd in REVERSE:
            gdb.execute("define hook-%s\nccos-replay-guard\nend" % cmd)
        print("ccos: replaying %s; the CPU is at the reset vector (icount 0)." % "the recording")
        print("ccos: reverse-stepi, reverse-next, reverse-continue and watchpoints run backwards"
              " once the kernel has started (`help ccos-replay`)")


class Guard(gdb.Command):
    """Refuse a reverse command that QEMU could not finish (the hook of each reverse command)."""

    def __init__(self):
        super().__init__("ccos-replay-guard", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        now = icount()
        if now is None:
            raise gdb.GdbError("not a replay: reverse execution needs `make replay`")
        if _entry is None or _entry.at is None:
            raise gdb.GdbError("ccos-replay: the kernel has not started yet (icount %d): reverse "
                               "execution works from its first instruction on; `continue` to a "
                               "breakpoint in it first" % now)
        if now <= _entry.at:
            raise gdb.GdbError("ccos-replay: at the kernel's first instruction (icount %d) or "
                               "before: reverse execution goes no further back (the firmware and "
                               "GRUB replay forwards only)" % _entry.at)


class Replay(gdb.Command):
    """The replay's position: ccos-replay.

make replay runs a recording of make record under gdb. Every command that
runs forwards works, and so do reverse-stepi, reverse-nexti, reverse-step,
reverse-next, reverse-continue, reverse-finish and watchpoints run
backwards (reverse-continue stops at the last store a watchpoint watches).
A reverse step costs a replay from the recording's start to the
instruction before: about as long as the boot took to get there, a second
or two for a short boot (init=/bin/PROG).

QEMU 7.2 limits (tools/gdb/replay.py says why): reverse execution stops
at the kernel's first instruction; `monitor savevm` during a replay makes
the next reverse step hang QEMU, so do not use it; one CPU only."""

    def __init__(self):
        super().__init__("ccos-replay", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        now = icount()
        if now is None:
            raise gdb.GdbError("not a replay: QEMU runs live (make replay runs a recording)")
        entry = _entry.at if _entry is not None else None
        print("replay at instruction %d; the kernel's first instruction: %s"
              % (now, "icount %d" % entry if entry is not None else "not reached yet"))


for _cmd in (Start, Guard, Replay):
    _cmd()
