/* TLB shootdown: other CPUs drop their cached translations of a mapping that changed (arch/x86/tlb.c). */
#ifndef CCOS_TLB_H
#define CCOS_TLB_H

#include <ccos/types.h>

/*
 * After changing or removing entries of [start, end) in the page tables
 * at pml4 (kernel_pml4: the kernel's, which every CPU uses), and flushing
 * them on this CPU: every other CPU that may hold them flushes them too,
 * and the call returns only when all have. Call it before the frames or
 * the old permissions are relied on being gone, holding no spinlock.
 */
void tlb_shootdown(uint64_t pml4, uint64_t start, uint64_t end);
void tlb_shootdown_poll(void);	/* answer a request meant for this CPU */
void tlb_init(void);

#endif
