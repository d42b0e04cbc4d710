"""gdb helpers for ccos: page tables, IDT, vvar and vsyscall pages, trap frames, processes.

Loaded by tools/gdb/ccos.gdb, this file first: the constants, reading the
guest, symbols and `ccos`; then pagetables.py, idt.py, frames.py and
gatepages.py, one family of commands each, sourced into the same namespace.
Every helper reads the guest through gdb (the QEMU stub translates virtual
addresses with the CPU's current CR3), and physical memory through the
kernel's direct map at DIRECT_MAP_BASE; stopped on a user page table of
pti=on (docs/pti.md), kernel addresses through the kernel's table of the
pair and QEMU's physical-memory mode (kernel_read). Type `ccos` in gdb for the list;
docs/gdb.md shows them at work.
"""
import os
import re
import struct

import gdb

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KERNEL_ELF = os.path.join(ROOT, "build", "kernel.elf")
# make replay of a recording whose kernel is not build/kernel.elf: the ISO's own programs
USER_DIR = os.environ.get("CCOS_USER_DIR") or os.path.join(ROOT, "build", "user")

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

# arch/x86/include/asm/trap.h
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


PTI_USER_PGD = 0x1000                   # arch/x86/pti.c: the user table is the pair's odd page


def raw_phys_read(phys, n):
    """n bytes of physical memory through the physical-memory mode of QEMU's stub."""
    gdb.execute("maintenance packet Qqemu.PhyMemMode:1", to_string=True)
    try:
        return bytes(gdb.selected_inferior().read_memory(phys, n))
    finally:
        gdb.execute("maintenance packet Qqemu.PhyMemMode:0", to_string=True)


def kernel_read(addr, n):
    """n bytes at a kernel address while CR3 holds a user table of pti=on, which maps
    almost nothing of the kernel: translated by the pair's kernel table, read physically."""
    kernel = reg("cr3") & PTE_ADDR & ~PTI_USER_PGD
    out = b""
    while n:
        table = kernel
        for shift in (39, 30, 21, 12):
            entry = struct.unpack("<Q", raw_phys_read(table + ((addr >> shift) & 511) * 8, 8))[0]
            if not entry & PTE_P:
                raise gdb.MemoryError("%#x is not mapped in the kernel's table" % addr)
            if shift == 12 or (shift < 39 and entry & PTE_PS):
                break
            table = entry & PTE_ADDR
        size = 1 << shift
        step = min(n, size - (addr & (size - 1)))
        out += raw_phys_read((entry & PTE_ADDR & ~(size - 1)) | (addr & (size - 1)), step)
        addr, n = addr + step, n - step
    return out


def read(addr, n):
    """n bytes of guest virtual memory, through the current CR3; a kernel address that
    the user table of pti=on does not map, through the kernel's table of the pair."""
    try:
        return bytes(gdb.selected_inferior().read_memory(addr & MASK64, n))
    except gdb.MemoryError:
        if reg("cr0") & CR0_PG and reg("cr3") & PTI_USER_PGD and addr & (1 << 63):
            try:
                return kernel_read(addr & MASK64, n)
            except gdb.MemoryError:
                pass
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
    if reg("cr3") & PTI_USER_PGD:
        return raw_phys_read(phys, n)   # a user table of pti=on: no direct map in it
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


def cpu_of_gs():
    """The ccos CPU number of gdb's selected thread (QEMU: one thread per CPU), or None.

    Its struct percpu is &cpus[n]: GS.base while it runs the kernel, the
    saved IA32_KERNEL_GS_BASE ($k_gs_base) while it runs user code (swapgs
    exchanges the two); before percpu_init, neither."""
    try:
        base = int(gdb.parse_and_eval("&cpus[0]"))
        size = int(gdb.parse_and_eval("sizeof(cpus[0])"))
        n = int(gdb.parse_and_eval("sizeof(cpus) / sizeof(cpus[0])"))
    except gdb.error:
        return None
    for r in ("gs_base", "k_gs_base"):
        try:
            v = reg(r)
        except gdb.error:
            continue
        if base <= v < base + n * size and (v - base) % size == 0:
            return (v - base) // size
    return None


def current_process():
    """The process the selected CPU runs (its cpus[n].current), or None."""
    cpu = cpu_of_gs()
    try:
        # The value is lazy: int() reads it, and before the kernel's paging (at the reset
        # vector, in the firmware) the read is a gdb.MemoryError, one of gdb.error.
        p = gdb.parse_and_eval("cpus[%d].current" % (cpu or 0))
        return None if int(p) == 0 else p.dereference()
    except gdb.error:
        return None


# --- Symbols: the kernel and one user program --------------------------------------

_user_elf = None


def user_elf_path(name):
    if os.sep in name or name.endswith(".elf"):
        return os.path.abspath(name)
    return os.path.join(USER_DIR, name + ".elf")


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
the program the current process runs (the selected CPU's cpus[n].current->comm).

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
                raise gdb.GdbError("no current process on this CPU (its cpus[n].current is NULL, or"
                                   " not readable yet: the kernel has not started one): name a program")
            try:
                name = c_string(p["comm"])
            except gdb.error as e:
                raise gdb.GdbError("the current process's name cannot be read (%s): name a program"
                                   % e) from None
        path = user_elf_path(name)
        if not os.path.exists(path):
            progs = sorted(f[:-4] for f in os.listdir(USER_DIR)
                           if f.endswith(".elf")) if os.path.isdir(USER_DIR) else []
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
        if reg("cr0") & CR0_PG and reg("cr3") & PTI_USER_PGD:
            return gdb.Value(self.by_hand())
        p = current_process()
        return gdb.Value(c_string(p["comm"]) if p is not None else "")

    @staticmethod
    def by_hand():
        """current()->comm on a user table of pti=on, where gdb's own reads of the kernel
        fail: the offsets from the types, the bytes through read() (kernel_read)."""
        def offset(struct, name):
            return next(f for f in gdb.lookup_type(struct).fields() if f.name == name)
        percpu = int(gdb.parse_and_eval("&cpus[%d]" % (cpu_of_gs() or 0)))
        p = u64(percpu + offset("struct percpu", "current").bitpos // 8)
        if not p:
            return ""
        comm = offset("struct process", "comm")
        return read(p + comm.bitpos // 8, comm.type.sizeof).split(b"\0")[0].decode("ascii", "replace")


class Help(gdb.Command):
    """The ccos helpers (tools/gdb/ccos.py; walkthrough in docs/gdb.md)."""

    def __init__(self):
        super().__init__("ccos", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        print("""ccos helpers (`help ccos-NAME` for more):
  ccos-pt ADDR [CR3]   walk the page tables for ADDR: each level, effective permissions
  ccos-pti             pti=on: the kernel's and the user CR3, and what the user table maps of the kernel
  ccos-idt [VECTOR]    decode IDT gates: type, DPL, IST, selector, stub and C handler
  ccos-frame [ADDR]    print a trap frame (default: `tf`, or $rdi at a handler's entry)
  ccos-ps              list the processes
  ccos-cpus            each CPU: its gdb thread, GS base, the process it runs
  ccos-vvar            the vvar page's fields
  ccos-vsyscall        the vsyscall mode and the entries of the page at 0xffffffffff600000
  ccos-user [NAME]     load another user program's symbols (all are linked at 0x400000)
  $ccos_comm()         the current program's name, for conditions:
                         break main if $_streq($ccos_comm(), "init")""")



for _cmd in (Kernel, User, Connect, Help):
    _cmd()
Comm()
