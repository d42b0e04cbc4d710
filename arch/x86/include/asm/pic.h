/* Device interrupts, ISA IRQ 0-15 at vectors IRQ_BASE..+15: the 8259A pair or the I/O APIC (ioapic.h). */
#ifndef CCOS_PIC_H
#define CCOS_PIC_H

#include <ccos/types.h>
#include <asm/trap.h>

#define IRQ_TIMER	0	/* PIT channel 0 */
#define IRQ_CASCADE	2	/* the slave PIC */
#define IRQ_COM1	4
#define IRQ_RTC		8

void pic_init(void);			/* remap and mask every line */
void pic_mask(int irq);
void pic_unmask(int irq);
void irq_eoi(int irq);			/* the 8259's EOI, or the local APIC's under the I/O APIC */
/* Install handler for irq and unmask it (I/O APIC or 8259); the handler must call irq_eoi. */
void irq_set_handler(int irq, trap_handler_t handler);

#endif
