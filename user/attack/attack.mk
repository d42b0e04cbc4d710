# The attack lab (docs/attack.md): the vulnerable service and `layout`, built
# static-pie so that nothing of theirs has a fixed address, and `attack`,
# the attacker's program, an ordinary user program. Included by user/user.mk.
#
# A static-pie here is linked at 0 with no dynamic linker: the kernel loads
# it at a random base and applies no relocations, so the link must leave
# none (-z text, and the readelf check below). The runtime of user/lib is
# compiled a second time, position-independent, for these programs.

PIE_CFLAGS := $(filter-out -fno-pic -no-pie,$(USER_CFLAGS)) -fpie
PIE_LDFLAGS := $(USER_LDFLAGS) -pie --no-dynamic-linker -z text -z noexecstack -Ttext-segment=0
PIE_LIB_OBJS := $(patsubst $(BUILD)/user/lib/%,$(BUILD)/user/pie/lib/%,$(USER_LIB_OBJS))
PIE_PROGS := $(BUILD)/user/service.elf $(BUILD)/user/layout.elf
ATTACK_OBJS := $(patsubst user/attack/%.c,$(BUILD)/user/attack/%.o,$(wildcard user/attack/attack*.c)) \
	       $(BUILD)/user/attack/jump.o
USER_PROGS += $(PIE_PROGS) $(BUILD)/user/attack.elf

$(BUILD)/user/pie/%.o: user/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(PIE_CFLAGS) -c $< -o $@

$(BUILD)/user/pie/%.o: user/%.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $@")
	$(Q)$(CC) $(PIE_CFLAGS) -c $< -o $@

$(PIE_PROGS): $(BUILD)/user/%.elf: $(BUILD)/user/pie/attack/%.o $(PIE_LIB_OBJS) linker/user.ld
	@$(if $(Q),echo "  LD      $@ (static-pie)")
	$(Q)$(LD) $(PIE_LDFLAGS) -o $@ $< $(PIE_LIB_OBJS)
	$(Q)$(READELF) -r $@ | grep -q "no relocations" || \
		{ echo "$@: the link left relocations, which no one would apply"; rm -f $@; exit 1; }
	$(Q)$(OBJDUMP) -S $@ > $(@:.elf=.asm)
	$(Q)$(USER_NM) -n $@ > $(@:.elf=.sym)

$(BUILD)/user/attack/%.o: user/attack/%.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $@")
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

$(BUILD)/user/attack.elf: $(ATTACK_OBJS) $(USER_LIB_OBJS) linker/user.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(USER_LDFLAGS) -o $@ $(ATTACK_OBJS) $(USER_LIB_OBJS)
	$(Q)$(OBJDUMP) -S $@ > $(@:.elf=.asm)
	$(Q)$(USER_NM) -n $@ > $(@:.elf=.sym)

.SECONDARY: $(PIE_LIB_OBJS) $(ATTACK_OBJS) $(PIE_PROGS:$(BUILD)/user/%.elf=$(BUILD)/user/pie/attack/%.o)
-include $(PIE_LIB_OBJS:.o=.d) $(ATTACK_OBJS:.o=.d) $(PIE_PROGS:$(BUILD)/user/%.elf=$(BUILD)/user/pie/attack/%.d)
