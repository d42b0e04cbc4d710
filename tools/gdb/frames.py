"""gdb helpers for ccos: ccos-frame (a trap frame) and ccos-ps (the processes).

Sourced by tools/gdb/ccos.gdb after ccos.py, whose constants and guest readers
(read, u64, phys_u64, symbol, value, ...) it uses.
"""
import os

import gdb

# --- Trap frames -----------------------------------------------------------------

RFLAGS = [(0, "CF"), (2, "PF"), (4, "AF"), (6, "ZF"), (7, "SF"), (8, "TF"), (9, "IF"),
          (10, "DF"), (11, "OF"), (14, "NT"), (16, "RF"), (17, "VM"), (18, "AC"), (21, "ID")]


def pf_error(code):
    """A page fault's error code in words (SDM Vol. 3 §4.7)."""
    words = ["protection violation" if code & 1 else "page not present",
             "instruction fetch" if code & 16 else "write" if code & 2 else "read",
             "user mode" if code & 4 else "kernel mode"]
    if code & 8:
        words.append("reserved bit set")
    return ", ".join(words)


def selected_tf():
    """The trap frame address: `tf` in the selected frame or one of its callers, else None."""
    frame = gdb.selected_frame()
    depth = 0
    while frame is not None and depth < 8:
        try:
            tf = frame.read_var("tf")
            if not tf.is_optimized_out:
                return int(tf) & MASK64
        except (ValueError, gdb.error):
            pass
        frame = frame.older()
        depth += 1
    return None


def at_function_entry():
    frame = gdb.newest_frame()
    fn = frame.function()
    return fn is not None and fn.value().address is not None and \
        int(fn.value().address) == frame.pc()


def cs_name(cs):
    names = {KERNEL_CS: "kernel code", USER_CS: "user code, 64-bit", USER32_CS: "user code, 32-bit"}
    return "%s, ring %d" % (names.get(cs, "selector"), cs & 3)


class Frame(gdb.Command):
    """Print a trap frame (struct trap_frame): ccos-frame [ADDR].

Without ADDR: `tf` in the selected stack frame or its callers (a handler
taking `struct trap_frame *tf`), or $rdi at the first instruction of a
handler. The frame holds what the CPU pushed (ss, rsp, rflags, cs, rip
and, for some exceptions, an error code) and what arch/x86/entry/trap_entry.asm
or syscall_entry.asm pushed (the vector, the registers). Vector 0x100 is
a SYSCALL frame, not an IDT vector."""

    def __init__(self):
        super().__init__("ccos-frame", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if arg.strip():
            addr, how = parse_address(arg.strip()), ""
        else:
            addr, how = selected_tf(), " (tf)"
            if addr is None:
                if not at_function_entry():
                    raise gdb.GdbError("no `tf` here: give the frame's address, e.g. `ccos-frame"
                                       " $rdi` at the first instruction of a handler")
                addr, how = reg("rdi"), " ($rdi at the handler's entry)"
        if not readable(addr, 22 * 8):
            raise gdb.GdbError("cannot read a trap frame at %#x: not mapped (CR3 %#x)"
                               % (addr, reg("cr3")))
        tf = value("*(struct trap_frame *)%#x" % addr)
        f = {field.name: int(tf[field.name]) & MASK64 for field in tf.type.fields()}
        vec = f["vector"]
        if vec == SYSCALL_MARK:
            kind = "SYSCALL, system call %d" % f["rax"]
        else:
            kind = vector_name(vec) if vec < 256 else "not a vector: is this a trap frame?"
        print("trap frame at %#x%s" % (addr, how))
        print("  vector %#x (%s)" % (vec, kind))
        err = "  error  %#x" % f["error_code"]
        if vec == 14:
            err += " (%s)  cr2 %#x %s" % (pf_error(f["error_code"]), reg("cr2"), describe(reg("cr2")))
        print(err)
        print("  rip    %#018x %s" % (f["rip"], describe(f["rip"])))
        print("  cs     %#x (%s)" % (f["cs"], cs_name(f["cs"])))
        print("  rflags %#x [ %s ]" % (f["rflags"], " ".join(n for b, n in RFLAGS if f["rflags"] >> b & 1)))
        print("  rsp    %#018x  ss %#x" % (f["rsp"], f["ss"]))
        regs = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11",
                "r12", "r13", "r14", "r15"]
        for i in range(0, len(regs), 3):
            print("  " + "  ".join("%-3s %#018x" % (r, f[r]) for r in regs[i:i + 3]))


# --- Processes -------------------------------------------------------------------

class Ps(gdb.Command):
    """List the processes of proc_table: ccos-ps.

`*` marks the current one: the process of the CPU of gdb's selected thread
(each CPU is a thread; ccos-cpus says which). A running process says on
which CPU. PML4 is the physical address of
its page tables (give it to ccos-pt to walk them); USER RIP is where it
resumes in user mode (its saved trap frame)."""

    def __init__(self):
        super().__init__("ccos-ps", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        table = value("proc_table")
        n = table.type.range()[1] + 1
        cur = current_process()
        cur_addr = int(cur.address) if cur is not None else 0
        print("  %4s %-9s %-15s %5s %-10s %s" % ("PID", "STATE", "COMM", "PPID", "PML4", "USER RIP"))
        for i in range(n):
            p = table[i]
            state = str(p["state"]).replace("PROC_", "")
            if state == "UNUSED":
                continue
            ppid = int(p["parent"]["pid"]) if int(p["parent"]) else 0
            pml4 = int(p["mm"]["pml4"]) if int(p["mm"]) else 0
            rip = int(p["tf"]["rip"]) & MASK64 if int(p["tf"]) else 0
            comm = c_string(p["comm"])
            extra = ""
            if rip >= KERNEL_VMA or (_user_elf and os.path.basename(_user_elf) == comm + ".elf"):
                extra = " " + describe(rip)     # only with this program's symbols
            if state == "RUNNING":
                extra += "  on CPU %d" % int(p["cpu"])
            if int(p["wait_chan"]):
                extra += "  waits on %s" % (describe(int(p["wait_chan"])) or "%#x" % int(p["wait_chan"]))
            print("%s %4d %-9s %-15s %5d %#-10x %#x%s"
                  % ("*" if int(p.address) == cur_addr else " ", int(p["pid"]), state.lower(),
                     comm, ppid, pml4, rip, extra))
        if cur is None:
            print("(no current process: the kernel is booting, idle or in the scheduler)")


for _cmd in (Frame, Ps):
    _cmd()
