"""gdb helpers for ccos: ccos-pt, the four-level page walk of one address.

Sourced by tools/gdb/ccos.gdb after ccos.py, whose constants and guest readers
(read, u64, phys_u64, symbol, value, ...) it uses.
"""
import struct

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


class Pti(gdb.Command):
    """Both page tables of pti=on (docs/pti.md): ccos-pti.

Prints the kernel's CR3 and the user table's (the odd page of the 8 KiB
pair) and, page by page, what the user table maps of the kernel half:
the entry and the user-visible fixmap pages, nothing else."""

    def __init__(self):
        super().__init__("ccos-pti", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        cr3 = reg("cr3")
        try:
            enabled = bool(int(value("pti_enabled")))
        except gdb.GdbError:
            raise gdb.GdbError("ccos-pti: no pti_enabled here: this kernel has no PTI") from None
        if not enabled:
            # One table a process: CR3's bit 12 is an address bit, and the next page is no
            # user table (pti_init decides once, at boot: docs/pti.md).
            print("ccos-pti: PTI is off in this boot (pti=off, or pti=auto on a CPU that needs"
                  " none): ring 3 runs on the kernel's table, CR3 %#x; `ccos-pt ADDR` walks it"
                  % cr3)
            return
        kernel = cr3 & PTE_ADDR & ~PTI_USER_PGD
        user = kernel + PTI_USER_PGD
        print("ccos-pti: CR3 %#x: %s table; kernel %#x, user %#x (PCID %#x)"
              % (cr3, "the user" if cr3 & PTI_USER_PGD else "the kernel's", kernel, user,
                 cr3 & 0xfff))
        n = 0
        for i in range(256, 512):
            base = (0xffff << 48) | (i << 39)
            for va in self.pages(user, base):
                steps = walk(va, user)
                _, psize, u, w, x, cached = effective(steps, va)
                print("  %#018x  %s %s %s%s  %s" % (va, "user" if u else "kernel", "rw" if w else "ro",
                                                   "x " if x else "NX", "" if cached else " uncached",
                                                   symbol(va)))
                n += 1
        print("ccos-pti: %d kernel-half pages in the user table" % n)

    def pages(self, pml4, base):
        """The 4 KiB pages the table maps under one PML4 entry (pti=on maps no large page there)."""
        def level(table, va, shift):
            for i, e in enumerate(struct.unpack("<512Q", phys_read(table, PAGE_SIZE))):
                if not e & PTE_P:
                    continue
                if shift == 12:
                    yield va + (i << 12)
                elif not e & PTE_PS:
                    yield from level(e & PTE_ADDR, va + (i << shift), shift - 9)
        top = phys_u64(pml4 + ((base >> 39) & 511) * 8)
        if top & PTE_P:
            yield from level(top & PTE_ADDR, base, 30)


Pti()
