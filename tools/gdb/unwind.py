"""Backtraces across ccos's traps: from a handler through the trap frame into user code.

Sourced by tools/gdb/ccos.gdb after ccos.py (whose helpers it uses). gdb
unwinds C code from the DWARF call-frame information that -g leaves, but
the assembly entry paths have none, so on its own a backtrace from
emulate_vsyscall or sys_write ends in nonsense at trap_common or
syscall_entry. Three unwinders fill the gaps:

- at the return address of `call trap_dispatch` (trap_return) and of `call
  syscall_dispatch`, rsp points at the struct trap_frame that the entry
  pushed: the caller's registers are the frame's, so the next frame is the
  interrupted code (a user program, or the kernel for a kernel fault);
- in the vsyscall page, which has no symbols: an entry is called, so the
  return address is at rsp;
- higher_half, which calls kmain, is the outermost frame.
"""
import re

import gdb
import gdb.unwinder
from gdb.FrameDecorator import FrameDecorator

TRAP_FRAME_REGS = ["r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
                   "rax", "rcx", "rdx", "rsi", "rdi"]


class _FrameId:
    """What gdb identifies a frame by: its stack address and its function's start."""

    def __init__(self, sp, pc):
        ptr = gdb.lookup_type("unsigned long")
        self.sp = gdb.Value(sp).cast(ptr)
        self.pc = gdb.Value(pc).cast(ptr)


def _return_after_call(function, callee):
    """The address after `call callee` inside function (an assembly label), or None."""
    try:
        start = int(gdb.parse_and_eval("&%s" % function)) & MASK64
        target = int(gdb.parse_and_eval("&%s" % callee)) & MASK64
    except gdb.error:
        return None
    arch = gdb.selected_inferior().architecture()
    try:
        insns = arch.disassemble(start, count=64)
    except gdb.MemoryError:
        return None
    for insn in insns:
        if insn["asm"].startswith("call") and ("%x" % target) in insn["asm"]:
            return insn["addr"] + insn["length"], start
    return None


class TrapUnwinder(gdb.unwinder.Unwinder):
    def __init__(self):
        super().__init__("ccos-trap-frame")
        self._points = None     # {return address: entry start}

    def points(self):
        if self._points is None:
            found = [_return_after_call("trap_common", "trap_dispatch"),
                     _return_after_call("syscall_entry", "syscall_dispatch"),
                     _return_after_call("syscall_entry_pti", "syscall_dispatch")]
            if not all(found):
                return {}       # the kernel is not in memory yet: ask again later
            self._points = dict(found)
        return self._points

    def __call__(self, pending):
        pc = int(pending.read_register("rip")) & MASK64
        if pc < KERNEL_VMA:
            return None
        points = self.points()
        if pc in points:
            return self.from_trap_frame(pending, pc, points[pc])
        if VSYSCALL_ADDR <= pc < VSYSCALL_ADDR + PAGE_SIZE:
            return self.from_vsyscall(pending, pc)
        if self.is_outermost(pc):
            return self.outermost(pending, pc)
        return None

    def from_trap_frame(self, pending, pc, entry):
        sp = int(pending.read_register("rsp")) & MASK64
        words = struct.unpack("<22Q", read(sp, 22 * 8))
        frame = dict(zip(TRAP_FRAME_REGS + ["vector", "error_code", "rip", "cs", "rflags",
                                            "rsp", "ss"], words))
        info = pending.create_unwind_info(_FrameId(sp, entry))
        rsp_type = pending.read_register("rsp").type
        rip_type = pending.read_register("rip").type
        for name in TRAP_FRAME_REGS + ["rsp", "rip"]:
            t = rip_type if name == "rip" else rsp_type
            info.add_saved_register(name, gdb.Value(frame[name]).cast(t))
        return info

    def from_vsyscall(self, pending, pc):
        # An entry is reached by `call`: the return address is on top of
        # the stack (at the entry, after int $0xcc, or at a fault).
        sp = int(pending.read_register("rsp")) & MASK64
        ret = u64(sp)
        entry = VSYSCALL_ADDR + (pc - VSYSCALL_ADDR) // 0x400 * 0x400
        # gdb stops a backtrace at a frame whose stack lies below the
        # stack of the frame it called ("previous frame inner to this
        # frame"), as it does when a trap moves from the user stack to the
        # kernel's. Under a trap frame this frame therefore names a stack
        # above every kernel stack, so that its caller is shown too.
        info = pending.create_unwind_info(_FrameId(sp if pending.level() == 0 else MASK64 & ~0xfff, entry))
        info.add_saved_register("rip", gdb.Value(ret).cast(pending.read_register("rip").type))
        info.add_saved_register("rsp", gdb.Value(sp + 8).cast(pending.read_register("rsp").type))
        for name in ("rbp", "rbx", "r12", "r13", "r14", "r15"):
            info.add_saved_register(name, pending.read_register(name))
        return info

    def is_outermost(self, pc):
        # higher_half's return point is its local label .hang, which gdb
        # names higher_half[hang] or higher_half.hang.
        return re.match(r"higher_half\b", symbol(pc)) is not None

    def outermost(self, pending, pc):
        # No caller: a frame whose caller's pc is 0 ends the backtrace.
        sp = int(pending.read_register("rsp")) & MASK64
        info = pending.create_unwind_info(_FrameId(sp, pc))
        info.add_saved_register("rip", gdb.Value(0).cast(pending.read_register("rip").type))
        info.add_saved_register("rsp", gdb.Value(sp).cast(pending.read_register("rsp").type))
        return info


gdb.unwinder.register_unwinder(None, TrapUnwinder(), replace=True)


class _Named(FrameDecorator):
    """A frame in the vsyscall page is named after its entry; one with no symbol is ??."""

    def function(self):
        pc = self.inferior_frame().pc()
        if VSYSCALL_ADDR <= pc < VSYSCALL_ADDR + PAGE_SIZE:
            return "[vsyscall %s]" % describe(pc)[len("<vsyscall "):].split("+")[0]
        name = super().function()
        return "??" if isinstance(name, int) and not symbol(name) else name


class _EndAtZero:
    """Hide the pc-0 frame that marks the end of the stack (see outermost); name the rest."""

    def __init__(self):
        self.name = "ccos-end-of-stack"
        self.priority = 100
        self.enabled = True
        gdb.frame_filters[self.name] = self

    def filter(self, frames):
        for f in frames:
            if f.inferior_frame().pc() == 0:
                return
            yield _Named(f)


_EndAtZero()
