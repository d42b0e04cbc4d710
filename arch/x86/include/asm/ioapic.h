/* The I/O APIC (arch/x86/ioapic.c): device interrupts to the boot CPU, instead of the 8259. */
#ifndef CCOS_IOAPIC_H
#define CCOS_IOAPIC_H

#include <ccos/types.h>

extern bool ioapic_in_use;	/* the device interrupts come through it; the 8259 is masked */

bool ioapic_init(void);		/* after the local APIC: false if there is no I/O APIC */
int ioapic_pin(int irq);	/* the pin of ISA IRQ irq, or -1 */
void ioapic_route(int irq, uint8_t vector);	/* unmasked, to the boot CPU */
void ioapic_mask(int irq);
uint64_t ioapic_entry(int pin);	/* the redirection entry as it stands */

#endif
