/* Small wrappers for x86 instructions: port I/O, MSRs, control registers. */
#ifndef CCOS_X86_H
#define CCOS_X86_H

#include <ccos/types.h>

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b,
			 uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

/*
 * With PCIDs (pti=on), a CR3 load or an invlpg in the kernel drops only
 * the kernel PCID's entries (SDM Vol. 3 §4.10.4.1): the user PCID's are
 * flushed at this CPU's next exit to user mode (asm/pti.inc).
 */
extern bool pti_pcid;

static inline void pti_tlb_flushed(void)
{
	if (pti_pcid)
		__asm__ volatile("movb $1, %%gs:pti_entry_offset + 112" ::: "memory");
}

#define DEFINE_CR(n)							\
static inline uint64_t read_cr##n(void)					\
{									\
	uint64_t v;							\
	__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));		\
	return v;							\
}									\
static inline void write_cr##n(uint64_t v)				\
{									\
	__asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory");	\
	if (n == 3)							\
		pti_tlb_flushed();					\
}
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline void invlpg(uint64_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
	pti_tlb_flushed();
}

static inline uint64_t read_rflags(void)
{
	uint64_t f;

	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void hlt(void) { __asm__ volatile("hlt" ::: "memory"); }

/*
 * Enable interrupts and wait for one, with no gap between: sti takes
 * effect only after the next instruction (SDM Vol. 2B, STI), so an
 * interrupt cannot slip in before the hlt and leave it sleeping.
 */
static inline void safe_halt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }
static inline void pause(void) { __asm__ volatile("pause"); }

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#define MSR_EFER		0xc0000080
#define MSR_STAR		0xc0000081
#define MSR_LSTAR		0xc0000082
#define MSR_CSTAR		0xc0000083
#define MSR_FMASK		0xc0000084
#define MSR_FS_BASE		0xc0000100
#define MSR_GS_BASE		0xc0000101
#define MSR_KERNEL_GS_BASE	0xc0000102
#define MSR_TSC_AUX		0xc0000103

#define EFER_SCE	(1u << 0)
#define EFER_NXE	(1u << 11)

#define CR0_MP		(1u << 1)
#define CR0_EM		(1u << 2)
#define CR0_NE		(1u << 5)
#define CR0_WP		(1u << 16)
#define CR0_AM		(1u << 18)
#define CR4_TSD		(1u << 2)	/* RDTSC only at CPL 0 */
#define CR4_PAE		(1u << 5)
#define CR4_OSFXSR	(1u << 9)
#define CR4_OSXMMEXCPT	(1u << 10)
#define CR4_UMIP	(1u << 11)
#define CR4_FSGSBASE	(1u << 16)
#define CR4_PCIDE	(1u << 17)
#define CR4_OSXSAVE	(1u << 18)
#define CR4_SMEP	(1u << 20)
#define CR4_SMAP	(1u << 21)

#define RFLAGS_IF	(1u << 9)
#define RFLAGS_DF	(1u << 10)
#define RFLAGS_IOPL	(3u << 12)
#define RFLAGS_NT	(1u << 14)
#define RFLAGS_TF	(1u << 8)
#define RFLAGS_AC	(1u << 18)

/*
 * In a system call, which runs with interrupts off: let a pending
 * interrupt (the tick) in, between two steps of a long job, at a point
 * where nothing is half changed. sti takes effect after the instruction
 * that follows it (SDM Vol. 2B, STI), so the interrupt comes at the nop.
 * Where interrupts are on already (kmain, the in-kernel tests) it does
 * nothing.
 */
static inline void irq_window(void)
{
	if (!(read_rflags() & RFLAGS_IF))
		__asm__ volatile("sti; nop; cli" ::: "memory");
}

#endif
