"""gdb helpers for ccos: ccos-pt, the four-level page walk of one address.

Sourced by tools/gdb/ccos.gdb after ccos.py, whose constants and guest readers
(read, u64, phys_u64, symbol, value, ...) it uses.
"""
import gdb

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


PageTables()
