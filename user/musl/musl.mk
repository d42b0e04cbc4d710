# Static musl programs: build/user/NAME.elf from user/musl/NAME.c, built with
# musl-gcc -static. They are ordinary Linux programs (they use nothing from
# user/lib) and become modules /bin/NAME like the others. Without musl-gcc
# (Debian's musl-tools; tools/setup installs it) they are left out.
# Included by user/user.mk.

MUSL_GCC ?= musl-gcc
MUSL_CFLAGS := -static -O2 -g -Wall -Wextra -fno-pie -no-pie
MUSL_SRCS := $(wildcard user/musl/*.c)

ifneq ($(shell command -v $(MUSL_GCC) 2>/dev/null),)
MUSL_PROGS := $(patsubst user/musl/%.c,$(BUILD)/user/%.elf,$(MUSL_SRCS))
else
MUSL_PROGS :=
$(warning $(MUSL_GCC) not found: the musl programs of user/musl are left out (run tools/setup))
endif
USER_PROGS += $(MUSL_PROGS)

$(MUSL_PROGS): $(BUILD)/user/%.elf: user/musl/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MUSL    $@")
	$(Q)$(MUSL_GCC) $(MUSL_CFLAGS) -MMD -MP -MT $@ -MF $(@:.elf=.d) -o $@ $<
	$(Q)$(OBJDUMP) -S $@ > $(@:.elf=.asm)
	$(Q)$(USER_NM) -n $@ > $(@:.elf=.sym)

-include $(MUSL_PROGS:.elf=.d)
