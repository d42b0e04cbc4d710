# ccos's gdb script: symbols, settings, and the helpers of ccos.py.
#
# tools/debug (make debug) runs gdb with it from the top of the source tree:
#   gdb -x tools/gdb/ccos.gdb -ex 'ccos-user init' -ex 'ccos-connect 26000'
# `ccos` lists the helpers; docs/gdb.md is the walkthrough.

set confirm off
set pagination off
set print pretty on

# qemu-system-x86_64's stub always describes the CPU as x86-64, and sends
# 64-bit registers even in real and protected mode, so one architecture
# serves the whole boot: the 32-bit entry (_start, in boot/entry.asm) shows
# its registers right but disassembles as 64-bit code. Old stubs sent
# 32-bit registers until the switch to long mode, and gdb then failed with
# "Remote 'g' packet reply is too long"; naming the architecture before
# connecting is what the usual recipes for that do.
set architecture i386:x86-64

# The kernel's symbols, at their link addresses (the 32-bit entry at
# 0x200000, the rest at 0xffffffff80000000 + physical). ccos.py finds the
# tree from its own path, so build/kernel.elf is loaded from there.
source tools/gdb/ccos.py
ccos-kernel

# The helpers, one family each (ccos.py's docstring; `ccos` lists them).
source tools/gdb/pagetables.py
source tools/gdb/idt.py
source tools/gdb/frames.py
source tools/gdb/gatepages.py
source tools/gdb/cpus.py

# Backtraces through trap frames into the interrupted code (unwind.py).
source tools/gdb/unwind.py
