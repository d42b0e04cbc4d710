"""gdb helpers for ccos: ccos-vvar and ccos-vsyscall, the two fixed pages user mode shares.

Sourced by tools/gdb/ccos.gdb after ccos.py, whose constants and guest readers
(read, u64, phys_u64, symbol, value, ...) it uses.
"""
import datetime

import gdb

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


for _cmd in (Vvar, Vsyscall):
    _cmd()
