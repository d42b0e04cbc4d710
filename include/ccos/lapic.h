/* The local APIC (arch/x86/lapic.c) and the other CPUs' start (arch/x86/smp.c). */
#ifndef CCOS_LAPIC_H
#define CCOS_LAPIC_H

#include <ccos/types.h>

bool lapic_init(void);		/* false, with a message, if it cannot be used */
uint32_t lapic_id(void);	/* the running CPU's APIC id */
bool lapic_start_cpu(uint32_t apic_id, uint8_t page_nr);	/* INIT, SIPI, SIPI */
void udelay(unsigned int us);

extern int nr_cpus;		/* CPUs up, the boot CPU included */
void smp_init(void);

#endif
