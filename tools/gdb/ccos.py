"""gdb helpers for ccos: page tables, IDT, vvar and vsyscall pages, trap frames, processes.

Loaded by tools/gdb/ccos.gdb. Every helper reads the guest through gdb (the
QEMU stub translates virtual addresses with the CPU's current CR3), and
physical memory through the kernel's direct map at DIRECT_MAP_BASE. Type
`ccos` in gdb for the list; docs/gdb.md shows them at work.
"""
import datetime
import os
import re
import struct

import gdb

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KERNEL_ELF = os.path.join(ROOT, "build", "kernel.elf")

# include/ccos/layout.h and mm.h (design.md: virtual memory map)
DIRECT_MAP_BASE = 0xffff800000000000
KERNEL_VMA = 0xffffffff80000000
USER_BASE = 0x400000                    # linker/user.ld
VSYSCALL_ADDR = 0xffffffffff600000
VVAR_ADDRESS = 0xffffffffff5ff000
HPET_USER_ADDR = 0xffffffffff5fe000
PAGE_SIZE = 4096
MASK64 = (1 << 64) - 1

# Page-table entry bits (Intel SDM Vol. 3 §4.5, include/ccos/mm.h)
PTE_P, PTE_W, PTE_U, PTE_PWT, PTE_PCD = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4
PTE_A, PTE_D, PTE_PS, PTE_G, PTE_NX = 1 << 5, 1 << 6, 1 << 7, 1 << 8, 1 << 63
PTE_ADDR = 0x000ffffffffff000
PTE_FLAGS = [("P", PTE_P), ("W", PTE_W), ("U", PTE_U), ("PWT", PTE_PWT), ("PCD", PTE_PCD),
             ("A", PTE_A), ("D", PTE_D), ("PS", PTE_PS), ("G", PTE_G), ("NX", PTE_NX)]
CR0_PG, CR0_WP, EFER_NXE = 1 << 31, 1 << 16, 1 << 11

# include/ccos/trap.h
KERNEL_CS, USER_CS, USER32_CS = 0x10, 0x33, 0x23
VSYSCALL_EMU_VECTOR = 0xcc
SYSCALL_MARK = 0x100                    # trap_frame.vector of a SYSCALL frame
EXCEPTIONS = ["#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
              "#BR bound range", "#UD invalid opcode", "#NM device not available",
              "#DF double fault", "coprocessor segment overrun", "#TS invalid TSS",
              "#NP segment not present", "#SS stack-segment fault",
              "#GP general protection", "#PF page fault", "reserved",
              "#MF x87 floating point", "#AC alignment check", "#MC machine check",
              "#XM SIMD floating point", "#VE virtualization", "#CP control protection"]
GATE_TYPES = {0xe: "interrupt gate", 0xf: "trap gate"}

# design.md: vsyscall modes and entries
VSYSCALL_ENTRIES = [(0x000, "gettimeofday"), (0x400, "time"), (0x800, "getcpu")]
VCLOCK_MODES = {0: "VCLOCK_NONE", 1: "VCLOCK_TSC", 2: "VCLOCK_HPET"}


# --- Reading the guest -----------------------------------------------------------

def reg(name):
    """A register of the selected CPU as an unsigned number ($cr3, $rdi, ...)."""
    return int(gdb.parse_and_eval("$" + name)) & MASK64


def read(addr, n):
    """n bytes of guest virtual memory, through the current CR3."""
    try:
        return bytes(gdb.selected_inferior().read_memory(addr & MASK64, n))
    except gdb.MemoryError:
        raise gdb.GdbError("cannot read %d bytes at %#x: not mapped by the current page"
                           " tables (CR3 %#x)" % (n, addr & MASK64, reg("cr3")))


def readable(addr, n=1):
    try:
        gdb.selected_inferior().read_memory(addr & MASK64, n)
        return True
    except gdb.MemoryError:
        return False


def u64(addr):
    return struct.unpack("<Q", read(addr, 8))[0]


def phys_read(phys, n):
    """n bytes of physical memory: through the direct map once paging is on."""
    if not reg("cr0") & CR0_PG:
        return read(phys, n)            # no paging: virtual = physical
    virt = DIRECT_MAP_BASE + phys
    if readable(virt, n):
        return read(virt, n)
    raise gdb.GdbError("cannot read physical %#x through the direct map (%#x): CR3 %#x is"
                       " not ccos's (still in the firmware or GRUB? `break kmain`, `continue`)"
                       % (phys, virt, reg("cr3")))


def phys_u64(phys):
    return struct.unpack("<Q", phys_read(phys, 8))[0]


def symbol(addr):
    """'name+off' for a code or data address, or '' (kernel and loaded user symbols)."""
    try:
        out = gdb.execute("info symbol %#x" % (addr & MASK64), to_string=True).strip()
    except gdb.error:
        return ""
    if out.startswith("No symbol"):
        return ""
    name = out.split(" in section ")[0]
    return re.sub(r" \+ (\d+)$", lambda m: "+%#x" % int(m.group(1)), name)


def describe(addr):
    """An address with what it is: a symbol, or a page of the fixed map."""
    addr &= MASK64
    if VSYSCALL_ADDR <= addr < VSYSCALL_ADDR + PAGE_SIZE:
        off = addr - VSYSCALL_ADDR
        for start, name in VSYSCALL_ENTRIES:
            if start <= off < start + 0x400:
                return "<vsyscall %s+%#x>" % (name, off - start)
    if VVAR_ADDRESS <= addr < VVAR_ADDRESS + PAGE_SIZE:
        return "<vvar+%#x>" % (addr - VVAR_ADDRESS)
    s = symbol(addr)
    return "<%s>" % s if s else ""


def value(expr):
    try:
        return gdb.parse_and_eval(expr)
    except gdb.error as e:
        raise gdb.GdbError("cannot evaluate %s: %s (is build/kernel.elf loaded?)" % (expr, e))


def c_string(v):
    """A char array field as a Python string."""
    raw = bytes(int(v[i]) & 0xff for i in range(v.type.sizeof))
    return raw.split(b"\0")[0].decode("ascii", "replace")


def parse_address(arg, what="an address"):
    """A number, a pointer, or a function or object (its address)."""
    try:
        v = gdb.parse_and_eval(arg)
        if v.type.strip_typedefs().code in (gdb.TYPE_CODE_FUNC, gdb.TYPE_CODE_STRUCT,
                                            gdb.TYPE_CODE_ARRAY, gdb.TYPE_CODE_UNION):
            v = v.address
        return int(v) & MASK64
    except gdb.error as e:
        raise gdb.GdbError("%s is not %s: %s" % (arg, what, e))


# --- Symbols: the kernel and one user program --------------------------------------

_user_elf = None


def user_elf_path(name):
    if os.sep in name or name.endswith(".elf"):
        return os.path.abspath(name)
    return os.path.join(ROOT, "build", "user", name + ".elf")


class Kernel(gdb.Command):
    """Load the kernel's symbols from build/kernel.elf (ccos.gdb does it)."""

    def __init__(self):
        super().__init__("ccos-kernel", gdb.COMMAND_FILES)

    def invoke(self, arg, from_tty):
        path = arg.strip() or KERNEL_ELF
        if not os.path.exists(path):
            raise gdb.GdbError("%s is missing: run `make` first" % path)
        gdb.execute("file %s" % path, to_string=True)


class User(gdb.Command):
    """Switch the user program whose symbols gdb knows: ccos-user [NAME|PATH].

Every user program is linked at 0x400000 (linker/user.ld), so only one
program's symbols can be loaded at a time. NAME is a program of
build/user/ (init, cat, ...) or an ELF file's path. Without an argument,
the program the current process runs (cpu0.current->comm).

A breakpoint at a user address stops every process that runs that address;
to stop in one program only, add a condition:
  break main if $_streq($ccos_comm(), "init")"""

    def __init__(self):
        super().__init__("ccos-user", gdb.COMMAND_FILES)

    def invoke(self, arg, from_tty):
        global _user_elf
        name = arg.strip()
        if not name:
            p = current_process()
            if p is None:
                raise gdb.GdbError("no current process (cpu0.current is NULL): name a program")
            name = c_string(p["comm"])
        path = user_elf_path(name)
        if not os.path.exists(path):
            progs = sorted(f[:-4] for f in os.listdir(os.path.join(ROOT, "build", "user"))
                           if f.endswith(".elf")) if os.path.isdir(os.path.join(ROOT, "build", "user")) else []
            raise gdb.GdbError("%s does not exist; the programs are: %s"
                               % (path, " ".join(progs) or "(none built: run `make`)"))
        if _user_elf:
            try:
                gdb.execute("remove-symbol-file %s" % _user_elf, to_string=True)
            except gdb.error:
                pass
        # Without an address, add-symbol-file uses the sections' link addresses.
        gdb.execute("add-symbol-file %s" % path, to_string=True)
        _user_elf = path
        print("ccos: user symbols from %s (linked at %#x)" % (os.path.relpath(path, ROOT), USER_BASE))


class Connect(gdb.Command):
    """Connect to QEMU's gdb stub and say what to type next: ccos-connect PORT [quiet]."""

    def __init__(self):
        super().__init__("ccos-connect", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        words = arg.split()
        if not words:
            raise gdb.GdbError("usage: ccos-connect PORT [quiet]")
        gdb.execute("target remote localhost:%s" % words[0], to_string=True)
        if "quiet" in words[1:]:
            return
        print("ccos: connected to QEMU on port %s; the CPU is stopped at the reset vector,"
              " before the firmware." % words[0])
        print("ccos: next, type:  break kmain  then  continue   "
              "(`ccos` lists the helpers; docs/gdb.md is the walkthrough)")


class Comm(gdb.Function):
    """$ccos_comm(): the name of the current process's program, "" when none runs."""

    def __init__(self):
        super().__init__("ccos_comm")

    def invoke(self):
        p = current_process()
        return gdb.Value(c_string(p["comm"]) if p is not None else "")


# --- Page tables -----------------------------------------------------------------

LEVELS = [("PML4", 39), ("PDPT", 30), ("PD", 21), ("PT", 12)]


def flag_names(entry):
    return " ".join(name for name, bit in PTE_FLAGS if entry & bit)


def walk(virt, cr3):
    """[(level, index, entry address, entry)] down to the leaf or the first absent entry."""
    table = cr3 & PTE_ADDR
    steps = []
    for level, shift in LEVELS:
        index = (virt >> shift) & 511
        entry = phys_u64(table + index * 8)
        steps.append((level, index, table + index * 8, entry))
        if not entry & PTE_P or (entry & PTE_PS and level in ("PDPT", "PD")):
            break
        table = entry & PTE_ADDR
    return steps


def effective(steps, virt):
    """(phys, page size, user, writable, executable, cached) for a complete walk, else None."""
    level, _, _, leaf = steps[-1]
    if not leaf & PTE_P:
        return None
    size = {"PDPT": 1 << 30, "PD": 1 << 21, "PT": 1 << 12}[level]
    user = all(e & PTE_U for _, _, _, e in steps)
    write = all(e & PTE_W for _, _, _, e in steps)
    nxe = reg("efer") & EFER_NXE
    execute = not (nxe and any(e & PTE_NX for _, _, _, e in steps))
    phys = (leaf & PTE_ADDR & ~(size - 1)) | (virt & (size - 1))
    return phys, size, user, write, execute, not leaf & (PTE_PCD | PTE_PWT)


def canonical(virt):
    return virt < (1 << 47) or virt >= MASK64 - (1 << 47) + 1


class PageTables(gdb.Command):
    """Walk the live page tables for an address: ccos-pt ADDR [CR3].

Prints each level's entry (PML4, PDPT, PD, PT) with its flags, then what
the CPU makes of them: the physical address, the page size, and the
effective permissions (user only if every level has U, writable only if
every level has W, no-execute if any level has NX; SDM Vol. 3 §4.6).
CR3 defaults to the CPU's; give another (a process's mm->pml4) to walk
its address space instead."""

    def __init__(self):
        super().__init__("ccos-pt", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        args = gdb.string_to_argv(arg)
        if not args:
            raise gdb.GdbError("usage: ccos-pt ADDR [CR3]")
        virt = parse_address(args[0])
        cr3 = parse_address(args[1], "a CR3 value") if len(args) > 1 else reg("cr3")
        if not canonical(virt):
            raise gdb.GdbError("%#x is not canonical: bits 63-47 must all equal bit 47" % virt)
        if not reg("cr0") & CR0_PG:
            raise gdb.GdbError("paging is off (CR0.PG = 0): addresses are physical here")
        print("ccos-pt %#018x with CR3 %#x%s" % (virt, cr3, "" if len(args) > 1 else " (the CPU's)"))
        steps = walk(virt, cr3)
        for level, index, where, entry in steps:
            nxt = "" if not entry & PTE_P else (
                " -> page" if level == "PT" or entry & PTE_PS else " -> table")
            print("  %-4s[%3d] at phys %#x: %#018x  phys %#x  %s%s"
                  % (level, index, where, entry, entry & PTE_ADDR, flag_names(entry) or "-", nxt))
        eff = effective(steps, virt)
        if eff is None:
            print("ccos-pt: %#x is not mapped: %s[%d] is not present"
                  % (virt, steps[-1][0], steps[-1][1]))
            return
        phys, size, user, write, execute, cached = eff
        sizes = {1 << 30: "1 GiB", 1 << 21: "2 MiB", 1 << 12: "4 KiB"}
        print("ccos-pt: %#x -> phys %#x (%s page): %s, %s, %s%s"
              % (virt, phys, sizes[size], "user" if user else "kernel only",
                 "writable" if write else "read-only", "executable" if execute else "no-execute",
                 "" if cached else ", uncached"))


# --- IDT -------------------------------------------------------------------------

def idtr():
    """(base, limit) of the IDT register, from QEMU's monitor (`info registers`)."""
    try:
        out = gdb.execute("monitor info registers", to_string=True)
    except gdb.error:
        out = ""
    m = re.search(r"^IDT=\s*([0-9a-f]+) ([0-9a-f]+)", out, re.MULTILINE)
    if m:
        return int(m.group(1), 16), int(m.group(2), 16)
    # No monitor (not QEMU?): the kernel's table, assuming idt_init loaded it.
    return int(value("&idt")), int(value("sizeof(idt)")) - 1


def vector_name(v):
    if v < len(EXCEPTIONS):
        return EXCEPTIONS[v]
    if v < 32:
        return "reserved"
    if 0x20 <= v < 0x30:
        return "IRQ %d" % (v - 0x20)
    if v == VSYSCALL_EMU_VECTOR:
        return "vsyscall emulation (int $0xcc)"
    return ""


def gate(base, v):
    """The decoded 16-byte gate of vector v (SDM Vol. 3 §6.14.1)."""
    lo, sel, ist, attr, mid, hi, _ = struct.unpack("<HHBBHII", read(base + 16 * v, 16))
    return {"vector": v, "offset": lo | mid << 16 | hi << 32, "selector": sel, "ist": ist & 7,
            "type": attr & 0xf, "dpl": (attr >> 5) & 3, "present": bool(attr & 0x80)}


def c_handler(v):
    try:
        h = int(value("trap_handlers[%d]" % v)) & MASK64
    except gdb.GdbError:
        return None
    return symbol(h) or "%#x" % h if h else ""


def format_gate(g):
    v = g["vector"]
    head = "%#04x %3d %-30s" % (v, v, vector_name(v))
    if not g["present"]:
        return head + " not present"
    handler = c_handler(v)
    return (head + " %s, DPL %d, IST %d, selector %#x, handler %#x <%s>%s"
            % (GATE_TYPES.get(g["type"], "type %#x" % g["type"]), g["dpl"], g["ist"],
               g["selector"], g["offset"], symbol(g["offset"]) or "?",
               "" if handler is None else " -> %s" % (handler or "no C handler")))


class Idt(gdb.Command):
    """Decode IDT gates: ccos-idt [VECTOR].

For each gate: its type (interrupt gates clear IF, trap gates do not),
DPL (3: user code may raise it with int N; 0: int N from ring 3 is a #GP),
IST (a stack of the TSS, for #DF, NMI and #MC), the code selector, the
entry stub it jumps to, and the C handler trap_dispatch calls
(trap_handlers[VECTOR]). Without VECTOR, the exceptions and every gate
that has a C handler, DPL 3 or an IST stack."""

    def __init__(self):
        super().__init__("ccos-idt", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        base, limit = idtr()
        if limit == 0 or base == 0:
            raise gdb.GdbError("the IDT is not loaded yet (IDTR base %#x, limit %#x): idt_init()"
                               " loads it early in kmain; `break start_init`, `continue`" % (base, limit))
        count = (limit + 1) // 16
        try:
            ours = base == int(value("&idt")) & MASK64
        except gdb.GdbError:
            ours = True
        if not ours:
            print("(IDTR is not the kernel's `idt`: this is the firmware's or GRUB's IDT;"
                  " idt_init() has not run yet)")
        if arg.strip():
            v = parse_address(arg.strip(), "a vector")
            if v >= count:
                raise gdb.GdbError("vector %#x is past the IDT's limit (%d gates)" % (v, count))
            print("IDT at %#x, %d gates" % (base, count))
            print(format_gate(gate(base, v)))
            return
        print("IDT at %#x, %d gates" % (base, count))
        rest = 0
        for v in range(count):
            g = gate(base, v)
            if v < 32 or g["dpl"] or g["ist"] or c_handler(v):
                print(format_gate(g))
            else:
                rest += 1
        print("... and %d more gates with no C handler (trap_dispatch warns and ignores them)" % rest)


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
and, for some exceptions, an error code) and what arch/x86/trap_entry.asm
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

def current_process():
    try:
        p = gdb.parse_and_eval("cpu0.current")
    except gdb.error:
        return None
    return None if int(p) == 0 else p.dereference()


class Ps(gdb.Command):
    """List the processes of proc_table: ccos-ps.

`*` marks the current one (cpu0.current). PML4 is the physical address of
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
            if int(p["wait_chan"]):
                extra += "  waits on %s" % (describe(int(p["wait_chan"])) or "%#x" % int(p["wait_chan"]))
            print("%s %4d %-9s %-15s %5d %#-10x %#x%s"
                  % ("*" if int(p.address) == cur_addr else " ", int(p["pid"]), state.lower(),
                     comm, ppid, pml4, rip, extra))
        if cur is None:
            print("(no current process: the kernel is booting, idle or in the scheduler)")


# --- vvar and vsyscall pages -------------------------------------------------------

class Vvar(gdb.Command):
    """Print the vvar page's fields: ccos-vvar.

The page that user mode reads at VVAR_ADDRESS (0xffffffffff5ff000), the
kernel's `vvar`: jiffies, vgetcpu_mode and the time data that the
timekeeping code publishes under a sequence counter, with the wall time it
works out to."""

    def __init__(self):
        super().__init__("ccos-vvar", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if readable(VVAR_ADDRESS, 8):
            page, where = value("*(struct vvar_page *)%#x" % VVAR_ADDRESS), "%#x" % VVAR_ADDRESS
        else:
            page, where = value("vvar"), "the kernel's vvar at %#x (not yet mapped at %#x)" % (
                int(value("&vvar")), VVAR_ADDRESS)
        g = page["vsyscall_gtod_data"]
        print("vvar page at %s" % where)
        print("  jiffies       %d" % int(page["jiffies"]))
        print("  vgetcpu_mode  %d" % int(page["vgetcpu_mode"]))
        seq = int(g["seq"])
        mode = int(g["vclock_mode"])
        shift = int(g["shift"])
        print("  vsyscall_gtod_data (offset 128):")
        print("    %-17s %d%s" % ("seq", seq, " (odd: the kernel is writing)" if seq & 1 else ""))
        print("    %-17s %d (%s)" % ("vclock_mode", mode, VCLOCK_MODES.get(mode, "unknown")))
        for name in ("cycle_last", "mask"):
            print("    %-17s %#x" % (name, int(g[name]) & MASK64))
        print("    %-17s %d  (ns = cycles * mult >> shift)" % ("mult", int(g["mult"])))
        print("    %-17s %d" % ("shift", shift))
        sec, snsec = int(g["wall_time_sec"]), int(g["wall_time_snsec"]) & MASK64
        ns = snsec >> shift
        print("    %-17s %d.%09d s at cycle_last (%s UTC)" % ("wall_time",
              sec, ns, datetime.datetime.fromtimestamp(sec, datetime.timezone.utc)
                 .strftime("%Y-%m-%d %H:%M:%S")))
        for name in ("wall_to_monotonic", "wall_time_coarse"):
            ts = g[name]
            print("    %-17s %d.%09d s" % (name, int(ts["tv_sec"]), int(ts["tv_nsec"])))
        tz = g["sys_tz"]
        print("    %-17s minuteswest %d, dsttime %d" % ("sys_tz",
              int(tz["tz_minuteswest"]), int(tz["tz_dsttime"])))


def vsyscall_mode():
    try:
        return str(gdb.parse_and_eval("boot_options.vsyscall")).replace("VSYSCALL_", "").lower()
    except gdb.error:
        return "unknown"


class Vsyscall(gdb.Command):
    """Show the legacy vsyscall page: ccos-vsyscall.

The mode (vsyscall= on the command line, boot_options.vsyscall), the
page's mapping at 0xffffffffff600000, and each entry's first bytes and
instructions. In emulate mode each entry is `int $0xcc` (cd cc) and every
other byte is 0xcc; in xonly and none modes the page is not present and
gdb cannot read it either."""

    def __init__(self):
        super().__init__("ccos-vsyscall", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        print("vsyscall mode: %s (boot_options.vsyscall)" % vsyscall_mode())
        gdb.execute("ccos-pt %#x" % VSYSCALL_ADDR)
        if not readable(VSYSCALL_ADDR, PAGE_SIZE):
            print("the page is not present: reads fault, and so does every call; in xonly mode"
                  " the page fault handler emulates a call at an entry")
            return
        page = read(VSYSCALL_ADDR, PAGE_SIZE)
        arch = gdb.selected_inferior().architecture()
        for off, name in VSYSCALL_ENTRIES:
            addr = VSYSCALL_ADDR + off
            print("%#x %s: %s" % (addr, name, " ".join("%02x" % b for b in page[off:off + 8])))
            for insn in arch.disassemble(addr, count=3):
                print("    %#x: %s" % (insn["addr"], insn["asm"]))
        print("%d of %d bytes are 0xcc (int3)" % (page.count(0xcc), PAGE_SIZE))
        bad = [(name, page.find(seq)) for name, seq in
               (("syscall", b"\x0f\x05"), ("sysenter", b"\x0f\x34"), ("int $0x80", b"\xcd\x80"))]
        bad = ["%s at +%#x" % (n, i) for n, i in bad if i >= 0]
        note = " (native mode: the fallback when user mode cannot read the clock)" \
            if bad and vsyscall_mode() == "native" else ""
        print("system-call byte sequences in the page: %s%s" % (", ".join(bad) or "none", note))


class Help(gdb.Command):
    """The ccos helpers (tools/gdb/ccos.py; walkthrough in docs/gdb.md)."""

    def __init__(self):
        super().__init__("ccos", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        print("""ccos helpers (`help ccos-NAME` for more):
  ccos-pt ADDR [CR3]   walk the page tables for ADDR: each level, effective permissions
  ccos-idt [VECTOR]    decode IDT gates: type, DPL, IST, selector, stub and C handler
  ccos-frame [ADDR]    print a trap frame (default: `tf`, or $rdi at a handler's entry)
  ccos-ps              list the processes
  ccos-vvar            the vvar page's fields
  ccos-vsyscall        the vsyscall mode and the entries of the page at 0xffffffffff600000
  ccos-user [NAME]     load another user program's symbols (all are linked at 0x400000)
  $ccos_comm()         the current program's name, for conditions:
                         break main if $_streq($ccos_comm(), "init")""")


for _cmd in (Kernel, User, Connect, PageTables, Idt, Frame, Ps, Vvar, Vsyscall, Help):
    _cmd()
Comm()
