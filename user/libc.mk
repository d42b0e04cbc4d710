# Static programs built with a C library of the host instead of user/lib:
# build/user/NAME.elf from user/musl/NAME.c with musl-gcc -static, and from
# user/glibc/NAME.c with the host's gcc -static against Debian's libc.a
# (libc6-dev). They are ordinary Linux programs and become modules /bin/NAME
# like the others; of user/lib they use only the KTAP runner, ktap.c, which
# is compiled with each library and linked into each of its programs
# ("ktap.h" is found with -iquote, so <unistd.h> stays the C library's).
# Where a library is missing its programs are left out, with a warning
# (tools/setup installs both). Included by user/user.mk.

MUSL_GCC ?= musl-gcc
GLIBC_CC ?= gcc
LIBC_CFLAGS := -static -O2 -g -Wall -Wextra -Wno-missing-field-initializers -fno-pie -no-pie

# $(call libc_programs,DIR,LABEL,CC,FOUND,MISSING): the programs of user/DIR,
# built with CC; none, and the warning MISSING, when FOUND is empty.
define libc_programs
$(1)_PROGS := $(if $(4),$(patsubst user/$(1)/%.c,$(BUILD)/user/%.elf,$(wildcard user/$(1)/*.c)),$(warning $(5)))
USER_PROGS += $$($(1)_PROGS)

$(1)_KTAP := $(BUILD)/user/$(1)/ktap.o

$$($(1)_KTAP): user/lib/ktap.c
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),printf "  %-8s%s\n" $(2) $$@)
	$$(Q)$(3) $$(LIBC_CFLAGS) -iquote user/lib -MMD -MP -c -o $$@ $$<

$$($(1)_PROGS): $(BUILD)/user/%.elf: user/$(1)/%.c $$($(1)_KTAP)
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),printf "  %-8s%s\n" $(2) $$@)
	$$(Q)$(3) $$(LIBC_CFLAGS) -iquote user/lib -MMD -MP -MT $$@ -MF $$(@:.elf=.d) -o $$@ $$< $$($(1)_KTAP)
	$$(Q)$$(OBJDUMP) -S $$@ > $$(@:.elf=.asm)
	$$(Q)$$(USER_NM) -n $$@ > $$(@:.elf=.sym)

-include $$($(1)_PROGS:.elf=.d) $$($(1)_KTAP:.o=.d)
endef

$(eval $(call libc_programs,musl,MUSL,$(MUSL_GCC),$(shell command -v $(MUSL_GCC) 2>/dev/null),\
	$(MUSL_GCC) not found: the programs of user/musl are left out (run tools/setup)))
$(eval $(call libc_programs,glibc,GLIBC,$(GLIBC_CC),$(shell $(GLIBC_CC) -print-file-name=libc.a 2>/dev/null | grep /),\
	$(GLIBC_CC) has no libc.a: the programs of user/glibc are left out (run tools/setup)))
