/* The local APIC (arch/x86/lapic.c, lapic_timer.c), IPIs, and the other CPUs' start (arch/x86/smp.c). */
#ifndef CCOS_LAPIC_H
#define CCOS_LAPIC_H

#include <asm/arch.h>

/*
 * The kernel's own vectors, above the devices': an APIC ranks a vector's
 * priority by its top four bits, and these are in the highest class.
 */
#define LAPIC_TIMER_VECTOR	0xf0
#define RESCHEDULE_VECTOR	0xf1
#define TLB_VECTOR		0xf2
#define SPURIOUS_VECTOR		0xff	/* bits 3:0 all ones, as older APICs require */

extern bool x2apic;		/* the APICs are in x2APIC mode (MSRs) */

bool lapic_init(void);		/* the boot CPU; false, with a message, if it cannot be used */
void lapic_setup_cpu(void);	/* each CPU: x2APIC if chosen, enabled, every vector let in */
uint32_t lapic_id(void);	/* the running CPU's APIC id */
uint32_t lapic_read(unsigned int reg);
void lapic_write(unsigned int reg, uint32_t v);
void lapic_eoi(void);
bool lapic_start_cpu(uint32_t apic_id, uint8_t page_nr);	/* INIT, SIPI, SIPI */
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void udelay(unsigned int us);

/* arch/x86/lapic_timer.c */
void lapic_timer_calibrate_begin(void);			/* before tsc_init */
bool lapic_timer_init(uint64_t *count, uint64_t *hz);	/* the boot CPU: one tick is count / hz s */
void lapic_timer_start(void);				/* this CPU's, periodic at HZ */

extern bool lapic_ready;	/* lapic_init succeeded: IPIs can be sent */
/* nr_cpus, smp_init, smp_start_aps, smp_send_reschedule: asm/arch.h */

#endif
