# Static glibc programs: build/user/NAME.elf from user/glibc/NAME.c, built with
# the host's gcc -static against Debian's libc.a (libc6-dev). Like the musl
# programs, they use nothing from user/lib and become modules /bin/NAME.
# Without libc.a they are left out. Included by user/user.mk.

GLIBC_CC ?= gcc
GLIBC_CFLAGS := -static -O2 -g -Wall -Wextra -fno-pie -no-pie
GLIBC_SRCS := $(wildcard user/glibc/*.c)

ifneq ($(shell $(GLIBC_CC) -print-file-name=libc.a 2>/dev/null | grep /),)
GLIBC_PROGS := $(patsubst user/glibc/%.c,$(BUILD)/user/%.elf,$(GLIBC_SRCS))
else
GLIBC_PROGS :=
$(warning $(GLIBC_CC) has no libc.a: the glibc programs of user/glibc are left out (run tools/setup))
endif
USER_PROGS += $(GLIBC_PROGS)

$(GLIBC_PROGS): $(BUILD)/user/%.elf: user/glibc/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GLIBC   $@")
	$(Q)$(GLIBC_CC) $(GLIBC_CFLAGS) -MMD -MP -MT $@ -MF $(@:.elf=.d) -o $@ $<
	$(Q)$(OBJDUMP) -S $@ > $(@:.elf=.asm)
	$(Q)$(USER_NM) -n $@ > $(@:.elf=.sym)

-include $(GLIBC_PROGS:.elf=.d)
