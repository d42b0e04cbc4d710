# User programs: build/user/NAME.elf from user/NAME.c and the runtime in user/lib.
# Included by the top-level Makefile, which sets BUILD, CC, LD, OBJDUMP and Q.

USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-missing-field-initializers \
	       -ffreestanding -fno-builtin \
	       -fno-pic -no-pie -static -nostdlib -fno-stack-protector \
	       -fno-asynchronous-unwind-tables -fcf-protection=none \
	       -fno-tree-loop-distribute-patterns \
	       -ffunction-sections -fdata-sections -Iuser/lib -Iarch/x86/include/uapi -MMD -MP
USER_LDFLAGS := -static -nostdlib --gc-sections --build-id=none \
		-z max-page-size=4096 -T linker/user.ld
USER_NM := $(or $(NM),$(CROSS_COMPILE)nm)

USER_LIB_OBJS := $(patsubst user/lib/%,$(BUILD)/user/lib/%.o,\
		 $(basename $(wildcard user/lib/*.c user/lib/*.S)))
USER_PROGS := $(patsubst user/%.c,$(BUILD)/user/%.elf,$(wildcard user/*.c))
# A program too long for one file keeps the rest in a folder, linked into it only.
parts = $(patsubst user/%.c,$(BUILD)/user/%.o,$(wildcard user/$(1)/*.c))
VSYSCALLTEST_OBJS := $(call parts,vsyscall)
MAPSTEST_OBJS := $(call parts,maps)
LABCHECK_OBJS := $(call parts,labcheck)
FUZZ_OBJS := $(call parts,fuzz)
SH_OBJS := $(call parts,sh)
SIGFRAME_OBJS := $(call parts,sigframe)
XSTATE_OBJS := $(call parts,xstate)
SIGSTATE_OBJS := $(call parts,sigstate)
SIGMASK_OBJS := $(call parts,sigmask)
SHMTEST_OBJS := $(call parts,shmtest)
PART_OBJS := $(VSYSCALLTEST_OBJS) $(MAPSTEST_OBJS) $(LABCHECK_OBJS) $(FUZZ_OBJS) $(SH_OBJS) \
	     $(SIGFRAME_OBJS) $(XSTATE_OBJS) $(SIGSTATE_OBJS) $(SIGMASK_OBJS) $(SHMTEST_OBJS)

$(BUILD)/user/%.o: user/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

$(BUILD)/user/%.o: user/%.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $@")
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

# Each link also writes NAME.asm (source interleaved) and NAME.sym, to read.
$(BUILD)/user/%.elf: $(BUILD)/user/%.o $(USER_LIB_OBJS) linker/user.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(USER_LDFLAGS) -o $@ $< $(USER_LIB_OBJS) $(filter-out $< $(USER_LIB_OBJS) linker/user.ld,$^)
	$(Q)$(OBJDUMP) -S $@ > $(@:.elf=.asm)
	$(Q)$(USER_NM) -n $@ > $(@:.elf=.sym)

$(BUILD)/user/vsyscalltest.elf: $(VSYSCALLTEST_OBJS)
$(BUILD)/user/mapstest.elf: $(MAPSTEST_OBJS)
# labcheck runs lab 0's cases of sigstate (32-bit SYSCALL) and sigmask (strict seccomp) too.
$(BUILD)/user/labcheck.elf: $(LABCHECK_OBJS) $(SIGSTATE_OBJS) $(SIGMASK_OBJS)
$(BUILD)/user/sh.elf: $(SH_OBJS)
$(BUILD)/user/fuzz.elf: $(FUZZ_OBJS)
$(BUILD)/user/sigframe.elf: $(SIGFRAME_OBJS)
$(BUILD)/user/xstate.elf: $(XSTATE_OBJS)
$(BUILD)/user/sigstate.elf: $(SIGSTATE_OBJS)
$(BUILD)/user/sigmask.elf: $(SIGMASK_OBJS)
$(BUILD)/user/shmtest.elf: $(SHMTEST_OBJS)

.SECONDARY: $(USER_PROGS:.elf=.o) $(USER_LIB_OBJS) $(PART_OBJS)

-include $(USER_PROGS:.elf=.d) $(USER_LIB_OBJS:.o=.d) $(PART_OBJS:.o=.d)
include user/libc.mk
include user/attack/attack.mk
