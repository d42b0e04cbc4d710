/* The GDT (kernel and user segments, per-CPU segment) and the TSS, which names the IST stacks. */
#include <asm/trap.h>
#include <ccos/lib.h>
#include <asm/vsyscall.h>
#include <ccos/proc.h>
#include <asm/x86.h>
#include <asm/entry_area.h>

/* Each CPU's TSS is in its entry area, which the user page table maps (pti.c). */
#define tss(cpu)	(cpu_entry_areas[cpu].tss)

/*
 * Descriptor bits (SDM Vol. 3 §3.4.5): P (47), DPL (45-46), S (44, code or
 * data), type (40-43), L (53, 64-bit code), G (55, limit in pages), D/B (54).
 * In long mode base and limit are ignored for code and data, except the
 * limit that lsl reads, which ccos uses for getcpu. Type bit 0 is
 * "accessed": the CPU sets it in the GDT when it loads a descriptor whose
 * bit is clear (SDM Vol. 3 §3.4.5.1), a write that would fault on the
 * read-only GDT, in the middle of an interrupt or iretq. So every code
 * and data descriptor has it set from the start.
 */
#define SEG_P		(1ull << 47)
#define SEG_S		(1ull << 44)
#define SEG_DPL3	(3ull << 45)
#define SEG_CODE	(0xbull << 40)	/* execute/read, accessed */
#define SEG_DATA	(0x3ull << 40)	/* read/write, accessed */
#define SEG_L		(1ull << 53)
#define SEG_DB		(1ull << 54)
#define SEG_G		(1ull << 55)
#define SEG_LIMIT_MAX	(0xfull << 48 | 0xffff)

/*
 * Each CPU has a GDT of its own: its TSS descriptor names its own TSS,
 * and its PERCPU_SEL limit holds its own number for lsl. Read-only after
 * boot (the section .entry.ro, part of __ro_after_init's pages, which the
 * user page table of pti=on maps too): written only by gdt_init, by LTR (the busy bit,
 * below) and by gdt_set_percpu_limit, all before mark_ro_after_init, the
 * other CPUs included (arch/x86/smp.c). The TSS is not: the CPU reads
 * RSP0 from it on every entry from ring 3, and the scheduler writes RSP0
 * at every switch (tss_set_rsp0), but for pti=on's entry stack.
 */
static const uint64_t gdt_template[16] = {
	[KERNEL_CS >> 3] = SEG_P | SEG_S | SEG_CODE | SEG_L,
	[KERNEL_DS >> 3] = SEG_P | SEG_S | SEG_DATA,
	[USER32_CS >> 3] = SEG_P | SEG_S | SEG_DPL3 | SEG_CODE | SEG_DB | SEG_G | SEG_LIMIT_MAX,
	/*
	 * Flat and 32-bit (B set, 4 GiB limit), as Linux's __USER_DS: 64-bit
	 * mode ignores all of it, but 32-bit code (USER32_CS) uses it as SS,
	 * where B clear would make a 16-bit stack (SP, not ESP) and a limit
	 * of 0 would make every push fault (SDM Vol. 3 §3.4.5, the D/B flag).
	 */
	[USER_DS >> 3] = SEG_P | SEG_S | SEG_DPL3 | SEG_DATA | SEG_DB | SEG_G | SEG_LIMIT_MAX,
	[USER_CS >> 3] = SEG_P | SEG_S | SEG_DPL3 | SEG_CODE | SEG_L,
	/* PERCPU_SEL: a data segment whose limit is node << 12 | cpu (gdt_set_percpu_limit) */
	[PERCPU_SEL >> 3] = SEG_P | SEG_S | SEG_DPL3 | SEG_DATA,
};

static uint64_t gdt[MAX_CPUS][16] __aligned(16) __section(".entry.ro");

/* SYSRET (SDM Vol. 2B) loads SS = STAR[63:48] + 8 and CS = STAR[63:48] + 16. */
BUILD_BUG_ON(USER_DS != USER32_CS + 8 || USER_CS != USER32_CS + 16);
/* SYSCALL loads CS = STAR[47:32] and SS = STAR[47:32] + 8. */
BUILD_BUG_ON(KERNEL_DS != KERNEL_CS + 8);

static void set_tss_descriptor(int cpu)
{
	uint64_t base = (uint64_t)&tss(cpu), limit = sizeof(tss(cpu)) - 1;

	/* A 16-byte system descriptor, type 9 = available 64-bit TSS. */
	gdt[cpu][TSS_SEL >> 3] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
				 (0x9ull << 40) | SEG_P | ((base >> 24 & 0xff) << 56);
	gdt[cpu][(TSS_SEL >> 3) + 1] = base >> 32;
}

/*
 * The per-CPU segment's limit, which getcpu reads with lsl (vgetcpu.h), set
 * at boot: the GDT is read-only afterwards. A
 * descriptor splits its 20-bit limit: bits 15:0 in descriptor bits 15:0,
 * bits 19:16 in descriptor bits 51:48 (SDM Vol. 3 §3.4.5). With G clear
 * the limit is in bytes, so lsl returns exactly this number. lsl reads the
 * descriptor from the GDT each time: nothing needs reloading. `table` is
 * the GDT, or a copy (the ktest's).
 */
void percpu_limit_set(uint64_t *table, uint32_t limit)
{
	uint64_t *d = &table[PERCPU_SEL >> 3];

	*d &= ~SEG_LIMIT_MAX;
	*d |= (limit & 0xffff) | (uint64_t)(limit >> 16 & 0xf) << 48;
}

/* The running CPU's: each CPU sets its own (arch/x86/smp.c). */
void gdt_set_percpu_limit(uint32_t limit)
{
	percpu_limit_set(gdt[this_cpu()->cpu], limit);
}

/* With pti=on, rsp0 stays at the entry stack, and the entry moves the frame to rsp0 (pti.c). */
void tss_set_rsp0(uint64_t rsp0)
{
	if (!pti_enabled)
		tss(this_cpu()->cpu).rsp[0] = rsp0;
}

/* CPU cpu loads its GDT and TSS, and its per-CPU block into the GS base. */
void gdt_init(int cpu)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __packed gdtr = { sizeof(gdt[cpu]) - 1, (uint64_t)gdt[cpu] };
	struct tss *t = &tss(cpu);
	int i;

	memcpy(gdt[cpu], gdt_template, sizeof(gdt_template));
	percpu_limit_set(gdt[cpu], cpu);	/* node 0: paranoid_entry's from now on */
	kernel_stacks_set(cpu);
	for (i = IST_DF; i < NR_FIXED_STACKS; i++)	/* ist[0] is IST 1 */
		t->ist[i - 1] = (uint64_t)kernel_stacks[cpu][i].top;
	t->iomap_base = sizeof(*t);	/* no I/O bitmap: ring 3 gets no ports */
	set_tss_descriptor(cpu);

	__asm__ volatile(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"		/* reload CS with the new kernel code segment */
		"1:\n\t"
		"movl %2, %%eax\n\t"
		"movl %%eax, %%ds\n\t"
		"movl %%eax, %%es\n\t"
		"movl %%eax, %%ss\n\t"
		/*
		 * LTR marks the TSS descriptor busy (type 9 -> 11) in the GDT
		 * (SDM Vol. 3 §8.2.4): a write, so it must come before the GDT
		 * turns read-only. Loading TR again later would need the GDT
		 * writable and the busy bit cleared first (an LTR of a busy
		 * TSS is a #GP).
		 */
		"ltr %w3\n\t"
		/*
		 * No LDT. LDTR is not empty after a reset: it names a table at
		 * linear address 0 with a limit of 0xffff (SDM Vol. 3 Table
		 * 10-1), and the CPU would look an LDT selector (0x47, a
		 * program may load any) up there, a read of the unmapped page 0
		 * that faults, in ring 0 too (a lar of one).
		 * A null LDTR makes every LDT selector a #GP, as on Linux, and
		 * lar, lsl, verr and verw simply fail (SDM Vol. 2A LLDT).
		 */
		"lldt %w4"
		: : "m"(gdtr), "i"(KERNEL_CS), "i"(KERNEL_DS), "r"(TSS_SEL), "r"(0)
		: "rax", "memory");
	pti_cpu_init(cpu);
}
