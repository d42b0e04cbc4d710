/* The IDT: 256 gates into arch/x86/entry/trap_entry.asm, and the handler table behind them. */
#include <asm/trap.h>
#include <ccos/lab.h>
#include <ccos/printk.h>

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
#define GATE_TRAP	0xf	/* leaves IF as it was */

/*
 * Both tables are filled at boot, then read-only (__ro_after_init; the
 * IDT's section .entry.ro is part of it, and the user page table maps it:
 * the CPU reads a gate before the entry can switch CR3, pti.c).
 */
static struct idt_gate idt[256] __aligned(16) __section(".entry.ro");
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
BUILD_BUG_ON(offsetof(struct trap_frame, ss) != 21 * 8);
BUILD_BUG_ON(sizeof(struct trap_frame) != 22 * 8);

/*
 * A kernel gate: an interrupt gate of DPL 0, so that ring 3 cannot raise
 * the vector with int N. The gates ring 3 may raise are idt_set_user_gate's.
 */
static void set_gate(int vector, int ist)
{
	uint64_t addr = trap_stubs[vector];

	idt[vector] = (struct idt_gate){
		.offset_low = addr & 0xffff,
		.selector = KERNEL_CS,
		.ist = ist,
		.type_attr = 0x80 | GATE_INTERRUPT,
		.offset_mid = (addr >> 16) & 0xffff,
		.offset_high = addr >> 32,
	};
}

/* A kernel handler for one vector, behind a kernel gate. */
void idt_set_handler(int vector, trap_handler_t handler)
{
	trap_handlers[vector] = handler;
	set_gate(vector, idt[vector].ist);
}

/* LAB gate: BEGIN */
/*
 * A 64-bit IDT gate (SDM Vol. 3 §6.14.1, Figure 6-8), as two quadwords:
 * the low one holds bits 15:0 of the target (0-15), the target's code
 * segment selector (16-31), the IST index (32-34, 0: the stack does not
 * change unless the CPL does), the type (40-43), the DPL (45-46) and P
 * (47), and bits 31:16 of the target (48-63); the high one bits 63:32 of
 * the target, then zeros.
 */
#define GATE_TYPE_SHIFT		40
#define GATE_DPL_SHIFT		45
#define GATE_PRESENT		(1ul << 47)

static void pack_gate(uint64_t gate[2], uint64_t target, uint16_t selector, int ist, int type, int dpl)
{
	gate[0] = (target & 0xffff) | (uint64_t)selector << 16 | (uint64_t)(ist & 7) << 32 |
		  (uint64_t)type << GATE_TYPE_SHIFT | (uint64_t)dpl << GATE_DPL_SHIFT | GATE_PRESENT |
		  (target >> 16 & 0xffff) << 48;
	gate[1] = target >> 32;
}

/*
 * A gate ring 3 may raise with int N (§6.12.1.1: a software interrupt
 * needs CPL <= DPL, else #GP): DPL 3. An interrupt gate, not a trap gate,
 * so that the handler starts with IF clear like every other entry (the
 * kernel runs with interrupts off); no IST: the CPL changes, so the CPU
 * takes the kernel stack from the TSS's RSP0, and an IST stack (one per
 * CPU, for #DF, NMI and #MC) would be shared by every process that raised
 * the vector. The target is the vector's own stub, which pushes the
 * vector and a zero error code.
 */
void idt_set_user_gate(int vector, trap_handler_t handler)
{
	BUILD_BUG_ON(sizeof(struct idt_gate) != 16);
	trap_handlers[vector] = handler;
	pack_gate((uint64_t *)&idt[vector], trap_stubs[vector], KERNEL_CS, 0, GATE_INTERRUPT, 3);
}
/* LAB gate: STUB
// A gate ring 3 may raise with `int vector` (SDM Vol. 3 §6.12.1.1), whose
// handler is `handler`:
// 1. trap_handlers[vector] is what trap_other calls (trap_dispatch's way
//    in for every vector but the vsyscall page's two).
// 2. idt[vector] is the 16-byte descriptor the CPU reads (§6.14.1,
//    Figure 6-8): the target's address in three pieces (bits 15:0, 31:16,
//    63:32), the selector of the code segment it runs in, the IST index,
//    the type, the DPL, P. The target is the vector's entry stub,
//    trap_stubs[vector] (arch/x86/entry/trap_entry.asm).
// 3. Which type: an interrupt gate or a trap gate (what does each do to
//    IF)? Which DPL lets ring 3 in? Which IST: does an entry from ring 3
//    need a stack of its own?
void idt_set_user_gate(int vector, trap_handler_t handler)
{
	lab_todo("02-gate");
	(void)vector, (void)handler;	// until then ring 3's int N is a #GP
}
   LAB gate: END */

/* Every CPU loads the one IDT: the gates are the same everywhere. */
void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __packed idtr = { sizeof(idt) - 1, (uint64_t)idt };

	__asm__ volatile("lidt %0" : : "m"(idtr));
}

/*
 * idtdump: the gates as the CPU reads them, found with sidt and decoded
 * from their bytes (SDM Vol. 3 Figure 6-8), not from what set them: the
 * vectors ring 3 meets (#BP, #OF, 0xcc, 0xcd), those with an IST stack,
 * and any other that is not a kernel gate into its own stub. The course's
 * graders read these lines (tools/labs/checks.py).
 */
void idt_dump(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __packed idtr;
	int v;

	__asm__ volatile("sidt %0" : "=m"(idtr));
	for (v = 0; v < 256 && v * 16 + 15 <= idtr.limit; v++) {
		const uint64_t *g = (const uint64_t *)(idtr.base + v * 16);
		uint64_t target = (g[0] & 0xffff) | (g[0] >> 48 & 0xffff) << 16 | g[1] << 32;
		unsigned int sel = g[0] >> 16 & 0xffff, ist = g[0] >> 32 & 7, type = g[0] >> 40 & 0xf;
		unsigned int dpl = g[0] >> 45 & 3, present = g[0] >> 47 & 1;
		bool own = target == trap_stubs[v];

		if (v != X86_BP && v != X86_OF && v != VSYSCALL_EMU_VECTOR && v != VSYSCALL_EMU_VECTOR + 1 &&
		    !ist && present && type == GATE_INTERRUPT && !dpl && sel == KERNEL_CS && own)
			continue;
		printk("idtdump: vector 0x%02x: P %u type 0x%x (%s) DPL %u IST %u selector 0x%x target %s\n",
		       v, present, type, type == GATE_INTERRUPT ? "interrupt gate" :
		       type == GATE_TRAP ? "trap gate" : "other", dpl, ist, sel,
		       own ? "its own stub" : "another address");
	}
	printk("idtdump: end\n");
}

void idt_init(void)
{
	int v;

	for (v = 0; v < 256; v++)
		set_gate(v, 0);
	/* Own stacks (TSS IST 1-3) where the current stack may be unusable. */
	set_gate(X86_DF, IST_DF);
	set_gate(X86_NMI, IST_NMI);
	set_gate(X86_MC, IST_MC);
	/*
	 * DPL 3: the vectors ring 3 may raise with int N, as Linux's system
	 * gates (SYSG in arch/x86/kernel/idt.c): int3, so that breakpoints
	 * give SIGTRAP, and #OF, which `into` raised in 32-bit code (`int
	 * $4` gives SIGSEGV). Vector 0xcc is the vsyscall emulation's
	 * (vsyscall.c); Linux's 0x80 exists only with IA32 emulation, which
	 * ccos does not have. Every other int N is a #GP.
	 */
	idt_set_user_gate(X86_BP, unhandled_trap);
	idt_set_user_gate(X86_OF, unhandled_trap);
	idt_load();
}
