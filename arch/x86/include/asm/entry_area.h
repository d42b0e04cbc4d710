/* Each CPU's entry area: its TSS and entry stack, the few bytes the entry reads before it has the kernel's tables (pti.c). */
#ifndef CCOS_ASM_ENTRY_AREA_H
#define CCOS_ASM_ENTRY_AREA_H

#include <ccos/types.h>
#include <ccos/layout.h>
#include <asm/percpu.h>

/* Intel SDM Vol. 3 §8.7: the 64-bit TSS; rsp0 is loaded on a ring 3 -> 0
 * switch, ist[n] on any vector whose gate names IST n. */
struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __packed;

/*
 * One page per CPU, in the section .entry.data, which the user page table
 * maps (pti.c). With pti=on the CPU pushes the frame of every interrupt
 * from ring 3 here (TSS.rsp0 = the top of stack[]); the entry switches
 * CR3 and moves the frame to the process's kernel stack. The entry finds
 * its CPU's area through GS: cpus[] and cpu_entry_areas[] are both a page
 * a CPU, so the area lies at one distance from struct percpu on every CPU
 * (pti_entry_offset, linker/kernel.ld).
 */
struct entry_area {
	struct tss tss;
	uint64_t scratch;		/* SYSCALL: the user's rsp while CR3 changes */
	uint8_t flush_user;		/* the user PCID's TLB is stale: flush it at the next exit */
	uint8_t stack[PAGE_SIZE - 128] __aligned(128);	/* the rest of the page */
} __aligned(PAGE_SIZE);

/* The entry's offsets (arch/x86/include/asm/layout.inc repeats them). */
BUILD_BUG_ON(offsetof(struct entry_area, tss.rsp) != 4);
BUILD_BUG_ON(offsetof(struct entry_area, scratch) != 104);
BUILD_BUG_ON(offsetof(struct entry_area, flush_user) != 112);
BUILD_BUG_ON(sizeof(struct entry_area) != PAGE_SIZE);
BUILD_BUG_ON(sizeof(struct percpu) != PAGE_SIZE);

extern struct entry_area cpu_entry_areas[MAX_CPUS];

#endif
