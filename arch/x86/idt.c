/* The IDT: 256 gates into arch/x86/entry/trap_entry.asm, and the handler table behind them. */
#include <asm/trap.h>

/* Intel SDM Vol. 3 §6.14.1: a 16-byte 64-bit gate. */
struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;		/* bits 0-2: IST index, 0 = none */
	uint8_t type_attr;	/* P (7), DPL (5-6), type (0-3) */
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __packed;

#define GATE_INTERRUPT	0xe	/* clears IF on entry */

/* Both tables are filled at boot, then read-only (__ro_after_init). */
static struct idt_gate idt[256] __aligned(16) __ro_after_init;
extern const uint64_t trap_stubs[256];
/* Every vector has a handler: one call, no test, on every trap (traps.c). */
trap_handler_t trap_handlers[256] __ro_after_init = { [0 ... 255] = unhandled_trap };

/* trap_entry.asm pushes in this layout (layout.inc repeats the offsets). */
BUILD_BUG_ON(offsetof(struct trap_frame, vector) != 15 * 8);
BUILD_BUG_ON(offsetof(struct trap_frame, error_code) != 16 * 8);
BUILD_BUG_ON(offsetof(struct trap_frame, rip) != 17 * 8);
BUILD_BUG_ON(offsetof(struct trap_frame, cs) != 18 * 8);
BUILD_BUG_ON(offsetof(struct trap_frame, r11) != 6 * 8);
BUILD_BUG_ON(offsetof(struct trap_frame, rcx) != 11 * 8);
BUILD_BUG_ON(offsetof(struct trap_frame, rflags) != 19 * 8);
BUILD_BUG_ON(offsetof(struct trap_frame, rsp) != 20 * 8);
BUILD_BUG_ON(sizeof(struct trap_frame) != 22 * 8);

static void set_gate(int vector, int dpl, int ist)
{
	uint64_t addr = trap_stubs[vector];

	idt[vector] = (struct idt_gate){
		.offset_low = addr & 0xffff,
		.selector = KERNEL_CS,
		.ist = ist,
		.type_attr = 0x80 | dpl << 5 | GATE_INTERRUPT,
		.offset_mid = (addr >> 16) & 0xffff,
		.offset_high = addr >> 32,
	};
}

/*
 * A handler for one vector. dpl 3 lets ring 3 raise the vector with int N
 * (int3, int $0xcc); with dpl 0 such an int is a #GP instead.
 */
void idt_set_handler(int vector, trap_handler_t handler, int dpl)
{
	trap_handlers[vector] = handler;
	set_gate(vector, dpl, idt[vector].ist);
}

/* Every CPU loads the one IDT: the gates are the same everywhere. */
void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __packed idtr = { sizeof(idt) - 1, (uint64_t)idt };

	__asm__ volatile("lidt %0" : : "m"(idtr));
}

void idt_init(void)
{
	int v;

	for (v = 0; v < 256; v++)
		set_gate(v, 0, 0);
	/* Own stacks (TSS IST 1-3) where the current stack may be unusable. */
	set_gate(X86_DF, 0, IST_DF);
	set_gate(X86_NMI, 0, IST_NMI);
	set_gate(X86_MC, 0, IST_MC);
	/*
	 * DPL 3: the vectors ring 3 may raise with int N, as Linux's system
	 * gates (SYSG in arch/x86/kernel/idt.c): int3, so that breakpoints
	 * give SIGTRAP, and #OF, which `into` raised in 32-bit code (`int
	 * $4` gives SIGSEGV). Vector 0xcc is the vsyscall emulation's
	 * (vsyscall.c); Linux's 0x80 exists only with IA32 emulation, which
	 * ccos does not have. Every other int N is a #GP.
	 */
	set_gate(X86_BP, 3, 0);
	set_gate(X86_OF, 3, 0);
	idt_load();
}
