"""gdb helpers for ccos: ccos-idt, the IDT's gates and the C handlers behind them.

Sourced by tools/gdb/ccos.gdb after ccos.py, whose constants and guest readers
(read, u64, phys_u64, symbol, value, ...) it uses.
"""
import re
import struct

import gdb

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
    """What trap_dispatch calls for v: trap_entries[v], which for most vectors is trap_other,
    which calls trap_handlers[v] ("" for unhandled_trap); None without the tables."""
    try:
        entry = int(value("trap_entries[%d]" % v)) & MASK64
        h = int(value("trap_handlers[%d]" % v)) & MASK64
    except gdb.GdbError:
        return None
    entry, name = symbol(entry) or "%#x" % entry, symbol(h) or "%#x" % h
    if entry != "trap_other":
        return entry + ("" if name == "unhandled_trap" else "; trap_handlers: " + name)
    return "" if name == "unhandled_trap" else name


SIGNALS = {4: "SIGILL", 5: "SIGTRAP", 7: "SIGBUS", 8: "SIGFPE", 11: "SIGSEGV"}


def without_c_handler(v):
    """What unhandled_trap, the handler of every vector without one of its own, does with v."""
    if v >= 32:
        return "no C handler: unhandled_trap warns and ignores it"
    try:
        sig = int(value("user_fault_signals[%d].sig" % v))
    except gdb.GdbError:
        sig = 0
    if not sig:
        return "no C handler: a panic from either mode"
    return "no C handler: %s from user mode, a panic from the kernel" % SIGNALS.get(sig, sig)


def format_gate(g):
    v = g["vector"]
    head = "%#04x %3d %-30s" % (v, v, vector_name(v))
    if not g["present"]:
        return head + " not present"
    handler = c_handler(v)
    return (head + " %s, DPL %d, IST %d, selector %#x, handler %#x <%s>%s"
            % (GATE_TYPES.get(g["type"], "type %#x" % g["type"]), g["dpl"], g["ist"],
               g["selector"], g["offset"], symbol(g["offset"]) or "?",
               "" if handler is None else " -> %s" % (handler or without_c_handler(v))))


class Idt(gdb.Command):
    """Decode IDT gates: ccos-idt [VECTOR].

For each gate: its type (interrupt gates clear IF, trap gates do not),
DPL (3: user code may raise it with int N; 0: int N from ring 3 is a #GP),
IST (a stack of the TSS, for #DF, NMI and #MC), the code selector, the
entry stub it jumps to, and the C function trap_dispatch calls:
trap_entries[VECTOR], which is trap_other (named no further) but for the
vsyscall page's ways in (0xcc: vsyscall_call; 14: page_fault_entry),
then trap_other's trap_handlers[VECTOR]. Without VECTOR, the exceptions and every gate
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
        print("... and %d more gates with %s" % (rest, without_c_handler(255)))


Idt()
