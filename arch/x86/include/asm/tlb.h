/* TLB shootdown: other CPUs drop their cached translations of a mapping that changed (arch/x86/tlb.c). */
#ifndef CCOS_TLB_H
#define CCOS_TLB_H

#include <asm/arch.h>

/* tlb_shootdown, tlb_shootdown_poll: asm/arch.h */
void tlb_init(void);

#endif
