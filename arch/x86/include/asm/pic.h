/* Device interrupts, ISA IRQ 0-15 at vectors IRQ_BASE..+15: the 8259A pair or the I/O APIC (ioapic.h). */
#ifndef CCOS_PIC_H
#define CCOS_PIC_H

#include <ccos/types.h>
#include <asm/arch.h>

/* The IRQ numbers, irq_set_handler, irq_eoi: asm/arch.h */
void pic_init(void);			/* remap and mask every line */
void pic_mask(int irq);
void pic_unmask(int irq);

#endif
