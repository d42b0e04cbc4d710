"""What page-table isolation's user table must map of the kernel half, and what QEMU says it maps.

Shared by test_pti.py and lab 8's grader (tools/labs/checks.py): the
expected pages come from the sections and symbols of a tree's
build/kernel.elf, the actual ones from QEMU's `info tlb`, which walks the
CR3 of the CPU that gdb stopped in ring 3 (docs/pti.md).
"""
import os
import re
import subprocess

import harness

PAGE = 4096
VSYSCALL = 0xffffffffff600000
VVAR = 0xffffffffff5ff000
HPET = 0xffffffffff5fe000
KERNEL_HALF = 0xffff800000000000
IST_ENTRY = 3 * PAGE            # arch/x86/stacks.c: a guard page, then a 2-page stack
USER_RO = (True, False, False)  # (user, writable, executable)
USER_RX = (True, False, True)


# The two stops both audits make under gdb (test_pti.py's script, lab 8's): in ring 3 at
# init's main, that CPU's CR3 as QEMU walks it; in syscall_dispatch, the kernel's CR3 and
# its PML4 entry of the user half.
GDB_USER_STOP = r"""break main
continue
echo @@@ user\n
print/x $cs
print/x $cr3
python gdb.execute("monitor cpu %d" % (gdb.selected_thread().num - 1))
monitor info tlb
"""
GDB_KERNEL_STOP = r"""echo @@@ kernel\n
delete
break syscall_dispatch
continue
print/x $cs
print/x $cr3
ccos-pt 0x400000
"""


def kernel_symbols(build=None):
    """{name: (address, size)} of build/kernel.elf (nm -S)."""
    out = subprocess.run(["nm", "-S", os.path.join(build or harness.BUILD, "kernel.elf")],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:
            syms[f[3]] = (int(f[0], 16), int(f[1], 16))
        elif len(f) == 3:
            syms[f[2]] = (int(f[0], 16), 0)
    return syms


def entry_pages(build=None):
    """{page: (user, writable, executable)} of what every CPU's entry needs: the entry text,
    the GDTs and IDT, the entry areas, the IST stacks (without their guard pages)."""
    syms = kernel_symbols(build)
    pages = {}

    def add(start, end, perms):
        for p in range(start & ~(PAGE - 1), end, PAGE):
            pages[p] = perms

    def section(name, perms):
        add(syms["__%s_start" % name][0], syms["__%s_end" % name][0], perms)

    section("entry_text", (False, False, True))
    section("entry_ro", (False, False, False))
    section("entry_data", (False, True, False))
    base, size = syms["ist_stacks"]
    assert size and size % IST_ENTRY == 0, "ist_stacks: size %d" % size
    for k in range(size // IST_ENTRY):
        add(base + k * IST_ENTRY + PAGE, base + (k + 1) * IST_ENTRY, (False, True, False))
    return pages


def expected_pages(mode, hpet, build=None):
    """{page: (user, writable, executable)} of the user table's kernel half."""
    pages = entry_pages(build)
    pages[VVAR] = USER_RO
    if mode in ("native", "emulate"):
        pages[VSYSCALL] = USER_RX
    if hpet:
        pages[HPET] = USER_RO
    return pages


def tlb_pages(text, large=None):
    """{page: (user, writable, executable)} of QEMU's `info tlb` lines in the kernel half; a
    large page is an error, or goes into the list large when one is given."""
    pages = {}
    for m in re.finditer(r"^([0-9a-f]{16}): [0-9a-f]+ ([-X])[-G]([-P])[-D][-A][-C][-T]([-U])([-W])\r?$",
                         text, re.MULTILINE):
        va = int(m.group(1), 16)
        if va & (1 << 47):
            va |= 0xffff000000000000
        if va < KERNEL_HALF:
            continue
        if m.group(3) != "-":
            assert large is not None, "a large page in the user table's kernel half: %#x" % va
            large.append(va)
            continue
        pages[va] = (m.group(4) == "U", m.group(5) == "W", m.group(2) == "-")
    return pages


def printed_values(text):
    """The values gdb printed ($N = 0x...), in order."""
    return [int(v, 16) for v in re.findall(r"^\$\d+ = (0x[0-9a-f]+)", text, re.MULTILINE)]


def describe(pages):
    return ", ".join("%#x%s" % (p, " (%s)" % "".join(
        c for c, on in zip("uwx", perms) if on)) for p, perms in sorted(pages.items())[:12])
