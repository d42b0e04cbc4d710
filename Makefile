# ccos build: kernel, user programs, ISO, and the QEMU targets.
# `make V=1` prints every command; CROSS_COMPILE=x86_64-elf- picks a cross toolchain.

BUILD	:= build
CROSS_COMPILE ?=
CC	:= $(CROSS_COMPILE)gcc
LD	:= $(CROSS_COMPILE)ld
OBJCOPY	:= $(CROSS_COMPILE)objcopy
OBJDUMP	:= $(CROSS_COMPILE)objdump
NM	:= $(CROSS_COMPILE)nm
NASM	:= nasm
PYTHON	:= python3

ifeq ($(V),1)
Q :=
else
Q := @
endif

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
	   -fno-toplevel-reorder -Iinclude -MMD -MP
NASMFLAGS := -f elf64 -g -F dwarf -Iinclude/
LDFLAGS	:= -n -z noexecstack -z max-page-size=4096

KSRC_C	:= $(wildcard kernel/*.c arch/x86/*.c mm/*.c)
KSRC_S	:= $(wildcard boot/*.asm arch/x86/*.asm)
KOBJ	:= $(patsubst %.c,$(BUILD)/%.o,$(KSRC_C)) $(patsubst %.asm,$(BUILD)/%.o,$(KSRC_S))

all: $(BUILD)/kernel.elf user iso compile_commands.json

include user/user.mk

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.asm
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $@")
	$(Q)$(NASM) $(NASMFLAGS) -MD $(@:.o=.d) $< -o $@

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

user: $(USER_PROGS)

# GRUB: a menu that waits a few seconds for people and not at all for tests.
GRUB_TIMEOUT ?= 3
ISO_MODULES = $(if $(INIT),$(INIT):/bin/init,$(BUILD)/user/init.elf:/bin/init) \
	      $(foreach p,$(filter-out $(BUILD)/user/init.elf,$(USER_PROGS)),$(p):/bin/$(basename $(notdir $(p)))) \
	      $(foreach m,$(MODULES),$(m):/bin/$(basename $(notdir $(m))))

# Malformed ELF files for the exec tests (user/proctest.c), as /bin/bad-NAME.
$(BUILD)/bad/.stamp: $(BUILD)/user/spin.elf tools/mkbadelf
	$(Q)$(PYTHON) tools/mkbadelf $< $(BUILD)/bad && touch $@

iso: $(BUILD)/ccos.iso
$(BUILD)/ccos.iso: $(BUILD)/kernel.elf $(USER_PROGS) $(BUILD)/bad/.stamp $(INIT) $(MODULES) tools/mkiso FORCE
	@$(if $(Q),echo "  ISO     $@")
	$(Q)$(PYTHON) tools/mkiso --out $@ --kernel $(BUILD)/kernel.elf --timeout $(GRUB_TIMEOUT) \
		--cmdline "$(CMDLINE)" --mode $(MODE) $(foreach m,$(ISO_MODULES),--module $(m)) \
		--module-dir $(BUILD)/bad:/bin/

compile_commands.json: $(KSRC_C) Makefile
	$(Q)$(PYTHON) tools/compdb "$(CC)" "$(CFLAGS)" $(KSRC_C) > $@

RUNQEMU = $(PYTHON) tools/runqemu --iso $(BUILD)/ccos.iso --fw $(FW) $(if $(QEMU_EXTRA),--extra "$(QEMU_EXTRA)")

run: setup-check all
	$(RUNQEMU) --interactive

run-uefi: FW = uefi
run-uefi: run

debug: setup-check all
	$(PYTHON) tools/debug --fw $(FW)

# tools/tests boots its own ISOs in build/test/NAME/; pytest is Debian's
# python3-pytest, so /usr/bin/python3 serves when $(PYTHON) lacks it.
test: setup-check
	$(Q)rm -f $(BUILD)/test-results.xml
	$(Q)$(MAKE) --no-print-directory all GRUB_TIMEOUT=0
	$(Q)py=$(PYTHON); $$py -c 'import pytest' 2>/dev/null || py=/usr/bin/python3; \
	  $$py -m pytest $(if $(V),-v,-q) tools/tests --junitxml=$(BUILD)/test-results.xml; \
	  status=$$?; $$py tools/summary $(BUILD)/test-results.xml || status=1; exit $$status

bench: setup-check all
	$(PYTHON) tools/bench

setup-check:
	@tools/setup --check || tools/setup

clean:
	rm -rf $(BUILD) compile_commands.json

FORCE:
.PHONY: all user iso run run-uefi debug test bench clean setup-check FORCE

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
