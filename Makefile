# ccos build: kernel, user programs, ISO, and the QEMU targets.
# `make V=1` prints every command; CROSS_COMPILE=x86_64-elf- picks a cross toolchain.

BUILD	:= build
CROSS_COMPILE ?=
CC	:= $(CROSS_COMPILE)gcc
LD	:= $(CROSS_COMPILE)ld
OBJCOPY	:= $(CROSS_COMPILE)objcopy
OBJDUMP	:= $(CROSS_COMPILE)objdump
NM	:= $(CROSS_COMPILE)nm
READELF	:= $(CROSS_COMPILE)readelf
NASM	:= nasm
PYTHON	:= python3

ifeq ($(V),1)
Q :=
else
Q := @
endif

# make test builds with a job per CPU: the build is a quarter of the suite's time.
JOBS	?= $(shell nproc 2>/dev/null || echo 2)
MODE	?= emulate
FW	?= bios
CMDLINE	?=
INIT	?=
MODULES	?=
QEMU_EXTRA ?=

CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror=implicit-function-declaration \
	   -ffreestanding -fno-stack-protector -fno-pic -fno-pie -mno-red-zone \
	   -mcmodel=kernel -mgeneral-regs-only -fno-omit-frame-pointer \
	   -fno-asynchronous-unwind-tables -fcf-protection=none \
	   -fno-toplevel-reorder -Iinclude -Iarch/x86/include -Iarch/x86/include/uapi -MMD -MP
NASMFLAGS := -f elf64 -g -F dwarf -Iinclude/ -Iarch/x86/include/
LDFLAGS	:= -n -z noexecstack -z max-page-size=4096

# arch/x86/vdso/vdso.c and vdso_image.asm are kernel code; the other C files
# there are the vDSO's own, built into a shared object below.
VDSO_SRC := $(filter-out arch/x86/vdso/vdso.c,$(wildcard arch/x86/vdso/*.c))
# native_page.c is user-mode code with a link of its own (below), not part of the kernel's.
VSYSCALL_NATIVE_SRC := arch/x86/vsyscall/native_page.c
KSRC_C	:= $(filter-out $(VSYSCALL_NATIVE_SRC),$(wildcard kernel/*.c kernel/*/*.c fs/*.c drivers/*/*.c arch/x86/*.c arch/x86/entry/*.c arch/x86/vsyscall/*.c mm/*.c ipc/*.c)) \
	   arch/x86/vdso/vdso.c
KSRC_S	:= $(wildcard boot/*.asm arch/x86/*.asm arch/x86/entry/*.asm arch/x86/vdso/*.asm arch/x86/vsyscall/*.asm)
KOBJ	:= $(patsubst %.c,$(BUILD)/%.o,$(KSRC_C)) $(patsubst %.asm,$(BUILD)/%.o,$(KSRC_S))

all: $(BUILD)/kernel.elf user iso compile_commands.json

# On a fresh machine tools/setup installs what is missing (musl-gcc among
# it) now, before user/libc.mk looks for musl-gcc, so that the first
# run already builds everything; the setup-check target below stops the
# run when it could not (not root).
ifeq ($(MAKELEVEL),0)
ifneq ($(filter-out clean setup-check,$(or $(MAKECMDGOALS),all)),)
$(shell tools/setup --check >/dev/null 2>&1 || tools/setup >&2)
endif
endif

include user/user.mk

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# NASM 2.16's -MD leaves the %include files out of the .d file it writes
# while it assembles, so every object of NASM depends on every .inc: an
# edited asm/pti.inc (lab 8) rebuilds the entry.
ASM_INC	:= $(wildcard include/asm/*.inc arch/x86/include/asm/*.inc)

$(BUILD)/%.o: %.asm $(ASM_INC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $@")
	$(Q)$(NASM) $(NASMFLAGS) -MD $(@:.o=.d) $< -o $@
	@# NASM's macro-local labels (..@N.name: pti.inc's) are no names for
	@# gdb, ksyms or a backtrace: the function they lie in is.
	$(Q)$(OBJCOPY) --wildcard --strip-symbol='..@*' $@

# The kernel is linked twice: the first link gives the addresses from which
# tools/ksyms makes the symbol table that panic's stack traces use; the table
# sits in the last section of the image, so adding it moves no other symbol.
$(BUILD)/kernel.elf: $(KOBJ) linker/kernel.ld tools/ksyms
	@$(if $(Q),echo "  LD      $@")
	$(Q)printf 'section .ksyms\nglobal ksyms\nksyms: dq 0\n' > $(BUILD)/ksyms0.asm
	$(Q)$(NASM) -f elf64 $(BUILD)/ksyms0.asm -o $(BUILD)/ksyms0.o
	$(Q)$(LD) $(LDFLAGS) -T linker/kernel.ld -o $(BUILD)/kernel.pass1.elf $(KOBJ) $(BUILD)/ksyms0.o
	$(Q)$(NM) -n $(BUILD)/kernel.pass1.elf | $(PYTHON) tools/ksyms > $(BUILD)/ksyms.asm
	$(Q)$(NASM) -f elf64 $(BUILD)/ksyms.asm -o $(BUILD)/ksyms.o
	$(Q)$(LD) $(LDFLAGS) -T linker/kernel.ld -o $@ $(KOBJ) $(BUILD)/ksyms.o
	$(Q)$(NM) -n $(BUILD)/kernel.pass1.elf > $(BUILD)/kernel.pass1.sym
	$(Q)$(NM) -n $@ > $(BUILD)/kernel.sym
	$(Q)$(PYTHON) tools/ksyms --check $(BUILD)/kernel.pass1.sym $(BUILD)/kernel.sym
	$(Q)$(OBJDUMP) -S $@ > $(BUILD)/kernel.asm 2>/dev/null

# The native vsyscall page: user-mode code linked at 0xffffffffff600000 by
# linker/vsyscall.ld, which checks that each entry sits at its offset and
# fills the rest with 0xcc. The flat page is included in the kernel by
# arch/x86/vsyscall/pages.asm. No jump tables: they would be data to read.
VSYSCALL_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -ffreestanding -fno-builtin \
	   -fno-stack-protector -fno-pic -fno-pie -mcmodel=kernel -mgeneral-regs-only \
	   -fno-jump-tables -fno-asynchronous-unwind-tables -fcf-protection=none \
	   -fno-tree-loop-distribute-patterns -Iinclude -Iarch/x86/include -Iarch/x86/include/uapi -MMD -MP
VSYSCALL_NATIVE := $(BUILD)/vsyscall_native

$(BUILD)/arch/x86/vsyscall/native_page.o: $(VSYSCALL_NATIVE_SRC)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(VSYSCALL_CFLAGS) -c $< -o $@

$(VSYSCALL_NATIVE).elf: $(BUILD)/arch/x86/vsyscall/native_page.o linker/vsyscall.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) -n -z noexecstack --build-id=none -T linker/vsyscall.ld -o $@ $<
	$(Q)$(OBJDUMP) -S $@ > $(VSYSCALL_NATIVE).asm
	$(Q)$(NM) -n $@ > $(VSYSCALL_NATIVE).sym

$(VSYSCALL_NATIVE).bin: $(VSYSCALL_NATIVE).elf
	$(Q)$(OBJCOPY) -O binary -j .vsyscall $< $@

$(BUILD)/arch/x86/vsyscall/pages.o: $(VSYSCALL_NATIVE).bin
$(BUILD)/arch/x86/vsyscall/pages.o: NASMFLAGS += -DVSYSCALL_NATIVE_BIN='"$(VSYSCALL_NATIVE).bin"'

user: $(USER_PROGS)
vdso: $(BUILD)/vdso/vdso.so

# The vDSO: a real ELF shared object from C, linked at 0 and mapped at a
# random address in every process (docs/vdso.md). Position-independent and
# self-contained; user mode runs it, so the kernel's -mcmodel=kernel and
# -mno-red-zone do not apply. vdso.so.dbg keeps the symbols (for gdb and
# for vdso-offsets.h); vdso.so, stripped, is what the kernel embeds, once
# tools/vdsocheck has found no relocation, import or writable part in it.
VDSO_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror=implicit-function-declaration \
	       -fPIC -ffreestanding -fno-stack-protector -fno-asynchronous-unwind-tables \
	       -fno-unwind-tables -fcf-protection=none -fvisibility=hidden -Iinclude -Iarch/x86/include -Iarch/x86/include/uapi -MMD -MP
VDSO_LDFLAGS := -shared -nostdlib -Wl,-T,linker/vdso.ld -Wl,--hash-style=both \
		-Wl,-soname=linux-vdso.so.1 -Wl,--no-undefined -Wl,-z,max-page-size=4096 \
		-Wl,-z,noexecstack -Wl,--build-id=none
VDSO_OBJ := $(patsubst arch/x86/vdso/%.c,$(BUILD)/vdso/%.o,$(VDSO_SRC))

$(BUILD)/vdso/%.o: arch/x86/vdso/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(VDSO_CFLAGS) -c $< -o $@

$(BUILD)/vdso/vdso.so.dbg: $(VDSO_OBJ) linker/vdso.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(VDSO_LDFLAGS) -o $@ $(VDSO_OBJ)
	$(Q)$(OBJDUMP) -S $@ > $(BUILD)/vdso/vdso.asm
	$(Q)$(NM) -n $@ > $(BUILD)/vdso/vdso.sym

$(BUILD)/vdso/vdso.so: $(BUILD)/vdso/vdso.so.dbg tools/vdsocheck
	@$(if $(Q),echo "  VDSO    $@")
	$(Q)$(OBJCOPY) -S $< $@.tmp
	$(Q)$(PYTHON) tools/vdsocheck --readelf $(READELF) $@.tmp || { rm -f $@.tmp; exit 1; }
	$(Q)mv $@.tmp $@

# Offsets (and sizes) of the image's own symbols that the kernel writes at boot:
# vdso_params, and getcpu's RDTSCP variant, which it copies over __vdso_getcpu
# where the CPU has RDTSCP; the build checks the copy can run there.
VDSO_SYMS := vdso_params __vdso_getcpu vdso_getcpu_rdtscp
$(BUILD)/vdso/vdso-offsets.h: $(BUILD)/vdso/vdso.so.dbg tools/vdsocheck
	$(Q)$(PYTHON) tools/vdsocheck --objdump $(OBJDUMP) --movable vdso_getcpu_rdtscp $<
	$(Q)$(NM) -S $< | awk 'BEGIN { split("$(VDSO_SYMS)", want); for (i in want) w[want[i]] = 1 } \
		NF == 4 && ($$4 in w) { print "#define VDSO_SYM_" $$4 " 0x" $$1; print "#define VDSO_SIZE_" $$4 " 0x" $$2 }' > $@.tmp
	$(Q)for s in $(VDSO_SYMS); do grep -q "VDSO_SYM_$$s " $@.tmp || { echo "vdso: no $$s symbol in $<"; exit 1; }; done
	$(Q)mv $@.tmp $@

$(BUILD)/arch/x86/vdso/vdso.o: $(BUILD)/vdso/vdso-offsets.h
$(BUILD)/arch/x86/vdso/vdso.o: CFLAGS += -I$(BUILD)/vdso
$(BUILD)/arch/x86/vdso/vdso_image.o: $(BUILD)/vdso/vdso.so
$(BUILD)/arch/x86/vdso/vdso_image.o: NASMFLAGS += -DVDSO_SO='"$(BUILD)/vdso/vdso.so"'

# GRUB: a menu that waits a few seconds for people and not at all for tests.
GRUB_TIMEOUT ?= 3
ISO_MODULES = $(if $(INIT),$(INIT):/bin/init,$(BUILD)/user/init.elf:/bin/init) \
	      $(foreach p,$(filter-out $(BUILD)/user/init.elf,$(USER_PROGS)),$(p):/bin/$(basename $(notdir $(p)))) \
	      $(foreach m,$(MODULES),$(m):/bin/$(basename $(notdir $(m)))) \
	      $(VSYSCALL_NATIVE).bin:/bin/vsyscall_native \
	      $(foreach f,$(wildcard user/etc/*),$(f):/etc/$(notdir $(f))) \
	      $(if $(BUSYBOX),$(BUSYBOX):/bin/busybox $(BUILD)/busybox.links:/etc/busybox.links)

# Debian's busybox-static, unmodified (tools/setup installs it), as /bin/busybox.
# Its sh runs its other applets itself, through exec of /proc/self/exe.
# `make run SH=busybox` boots it as init, running sh (docs/console.md).
BUSYBOX ?= $(wildcard /bin/busybox)
# Its applets' names: the kernel makes each /bin/NAME a link to busybox (fs/symlink.c).
$(BUILD)/busybox.links: $(BUSYBOX)
	@mkdir -p $(dir $@)
	$(Q)$(BUSYBOX) --list > $@.tmp && mv $@.tmp $@
ifeq ($(SH),busybox)
override CMDLINE += init=/bin/busybox -- sh
endif

# Crafted ELF files for the exec tests (user/proctest.c), as /bin/bad-NAME and /bin/odd-NAME.
$(BUILD)/bad/.stamp: $(BUILD)/user/spin.elf tools/mkbadelf
	$(Q)$(PYTHON) tools/mkbadelf $< $(BUILD)/bad && touch $@

# An ISO of MODE, CMDLINE, INIT and MODULES as they are in this run.
MKISO = $(PYTHON) tools/mkiso --kernel $(BUILD)/kernel.elf --cmdline "$(CMDLINE)" --mode $(MODE) \
	$(foreach m,$(ISO_MODULES),--module $(m)) --module-dir $(BUILD)/bad:/bin/

iso: $(BUILD)/ccos.iso

# What the harness's boots read (each writes its own ISO): the builds of the
# course kit's trees and of the mutation suite stop here.
boot-files: $(BUILD)/kernel.elf user $(BUILD)/bad/.stamp
$(BUILD)/ccos.iso: $(BUILD)/kernel.elf $(USER_PROGS) $(BUILD)/bad/.stamp $(INIT) $(MODULES) tools/mkiso FORCE \
		  $(if $(BUSYBOX),$(BUILD)/busybox.links)
	@$(if $(Q),echo "  ISO     $@")
	$(Q)$(MKISO) --out $@ --timeout $(GRUB_TIMEOUT)

compile_commands.json: $(KSRC_C) Makefile
	$(Q)$(PYTHON) tools/compdb "$(CC)" "$(CFLAGS)" $(KSRC_C) > $@

RUNQEMU = $(PYTHON) tools/runqemu --iso $(BUILD)/ccos.iso --fw $(FW) $(if $(QEMU_EXTRA),--extra "$(QEMU_EXTRA)")

run: setup-check all
	$(RUNQEMU) --interactive

run-uefi: FW = uefi
run-uefi: run

# QEMU paused under its gdb stub and gdb attached (docs/gdb.md), booting
# an ISO of its own (no GRUB menu wait) made from this run's MODE, CMDLINE,
# INIT and MODULES. GDBPORT= picks the port (default 26000 + uid % 5000),
# PROG= the user program whose symbols gdb loads (default init, or INIT=).
debug: setup-check all
	$(Q)$(MKISO) --out $(BUILD)/debug.iso --timeout 0
	$(PYTHON) tools/debug --iso $(BUILD)/debug.iso --fw $(FW) $(if $(QEMU_EXTRA),--extra "$(QEMU_EXTRA)") \
		$(if $(GDBPORT),--port $(GDBPORT)) $(if $(PROG),--prog $(PROG),$(if $(INIT),--prog $(INIT)))

# Record a boot (MODE, CMDLINE, INIT, MODULES as for make debug) with QEMU's
# record/replay, then replay it under gdb, where it runs backwards too
# (docs/gdb.md). RECORDING= and ISO= name another recording and its ISO.
RECORD_DIR = $(BUILD)/record
RECORDING ?= $(RECORD_DIR)/ccos.rr
ISO ?= $(RECORD_DIR)/ccos.iso
record: setup-check all
	@mkdir -p $(RECORD_DIR)
	$(Q)$(MKISO) --out $(RECORD_DIR)/ccos.iso --timeout 0
	$(PYTHON) tools/replay record --iso $(RECORD_DIR)/ccos.iso --out $(RECORD_DIR)/ccos.rr \
		--mode $(MODE) --cmdline "$(CMDLINE)" $(if $(QEMU_EXTRA),--extra "$(QEMU_EXTRA)") --fw $(FW)

replay: setup-check
	$(PYTHON) tools/replay replay $(RECORDING) --iso $(ISO) $(if $(GDBPORT),--port $(GDBPORT)) \
		$(if $(PROG),--prog $(PROG),$(if $(INIT),--prog $(INIT)))

# xv6's habit: QEMU waiting for gdb here (its port printed), and plain `gdb`
# in a second terminal, which reads the tree's .gdbinit (docs/gdb.md).
qemu-gdb: setup-check all
	$(Q)$(MKISO) --out $(BUILD)/debug.iso --timeout 0
	$(PYTHON) tools/debug --qemu-only --iso $(BUILD)/debug.iso --fw $(FW) $(if $(QEMU_EXTRA),--extra "$(QEMU_EXTRA)") \
		$(if $(GDBPORT),--port $(GDBPORT)) $(if $(PROG),--prog $(PROG),$(if $(INIT),--prog $(INIT)))

# tools/tests boots its own ISOs in build/test/NAME/; pytest is Debian's
# python3-pytest, so /usr/bin/python3 serves when $(PYTHON) lacks it.
# SMP=n boots every configuration with n CPUs, PTI=on|off|auto each with pti=
# on its command line (docs/pti.md), LOAD=n runs the suite beside
# n busy loops (docs/testing.md).
# make test-course runs what make test leaves out of the course kit: a class
# graded in a batch, the Gradescope bundle as Gradescope runs it, and the
# mutation suite (docs/testing.md says what each target checks and costs).
PYTEST = py=$(PYTHON); $$py -c 'import pytest' 2>/dev/null || py=/usr/bin/python3; \
	  $(if $(SMP),CCOS_TEST_SMP=$(SMP)) $(if $(PTI),CCOS_TEST_PTI=$(PTI)) $(if $(V),CCOS_TEST_VERBOSE=1) \
	  $(if $(LOAD),tools/load $(LOAD)) $$py -m pytest $(if $(V),-v,-q) tools/tests \
	  --junitxml=$(BUILD)/$(1).xml -m "$(2)"; \
	  status=$$?; $$py tools/summary $(BUILD)/$(1).xml || status=1; exit $$status

test: setup-check
	$(Q)rm -f $(BUILD)/test-results.xml
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) all GRUB_TIMEOUT=0
	$(Q)$(call PYTEST,test-results,not course and not bench)

test-course: setup-check
	$(Q)rm -f $(BUILD)/course-results.xml
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) all GRUB_TIMEOUT=0
	$(Q)$(call PYTEST,course-results,course)
	$(Q)$(PYTHON) tools/labs/labs mutants

# The course kit (docs/teaching.md): the labs in order, a lab's student
# tree, grading (LAB= one lab; in a student tree, its own; RESULTS=FILE also
# writes Gradescope's results.json), hand-in (of the sources graded), and the
# mutation suite that proves the graders (LAB= one lab's mutants).
labs:
	$(Q)$(PYTHON) tools/labs/labs list

lab-tree:
	$(Q)test -n "$(LAB)" -a -n "$(OUT)" || { echo "usage: make lab-tree LAB=name OUT=dir"; exit 1; }
	$(Q)$(PYTHON) tools/labs/labs tree $(LAB) $(OUT)

grade: setup-check
	$(Q)$(MAKE) --no-print-directory all GRUB_TIMEOUT=0
	$(Q)$(PYTHON) tools/labs/labs grade $(LAB) $(if $(RESULTS),--results $(RESULTS))

handin:
	$(Q)$(PYTHON) tools/labs/labs handin $(LAB)

mutants: setup-check
	$(Q)$(MAKE) --no-print-directory all GRUB_TIMEOUT=0
	$(Q)$(PYTHON) tools/labs/labs mutants $(LAB)

bench: setup-check all
	$(PYTHON) tools/bench
	$(PYTHON) tools/bench --pti
	$(Q)rm -f $(BUILD)/bench-results.xml
	$(Q)$(call PYTEST,bench-results,bench)

# The attack lab (docs/attack.md) in one boot of vsyscall=MODE: user/attack/attack
# as init's program. Every ISO carries the copy of the native page the attacker
# studies (/bin/vsyscall_native), so `attack` also runs from the shell.
ATTACK_DIR := $(BUILD)/attack
attack: setup-check all
	@mkdir -p $(ATTACK_DIR)
	$(Q)$(PYTHON) tools/mkiso --out $(ATTACK_DIR)/ccos.iso --kernel $(BUILD)/kernel.elf --timeout 0 \
		--cmdline "$(CMDLINE) -- /bin/attack" --mode $(MODE) \
		$(foreach m,$(ISO_MODULES),--module $(m)) \
		--module-dir $(BUILD)/bad:/bin/
	$(Q)$(PYTHON) tools/runqemu --iso $(ATTACK_DIR)/ccos.iso --fw $(FW) --silence 240 \
		--log $(ATTACK_DIR)/serial-$(MODE).log >/dev/null || true
	$(Q)grep -a "^layout:\|^attack:" $(ATTACK_DIR)/serial-$(MODE).log

# The heatmap of the vsyscall page (tools/heatmap): the four attack boots of
# the tests, then build/heatmap.png, copied to docs/heatmap.png for README.
heatmap: setup-check all
	$(Q)py=$(PYTHON); $$py -c 'import matplotlib' 2>/dev/null || py=/usr/bin/python3; \
	  $$py tools/heatmap --boot --copy docs/heatmap.png

fuzz: setup-check all
	$(PYTHON) tools/fuzz $(if $(SEED),--seed $(SEED)) $(if $(CALLS),--calls $(CALLS)) \
		$(if $(SMP),--smp $(SMP))

# LTP's system-call tests on ccos, from a built LTP tree outside this one (docs/conformance.md).
ltp: setup-check all
	$(PYTHON) tools/ltp ccos $(LTP)

setup-check:
	@tools/setup --check || tools/setup

clean:
	rm -rf $(BUILD) compile_commands.json

FORCE:
.PHONY: all user vdso iso boot-files run run-uefi debug record replay qemu-gdb test test-course bench attack heatmap fuzz ltp clean setup-check FORCE \
	labs lab-tree grade handin mutants

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
