/* The two cascaded 8259A interrupt controllers: IRQ 0-15 at vectors IRQ_BASE..+15. */
#ifndef CCOS_PIC_H
#define CCOS_PIC_H

#include <ccos/types.h>
#include <ccos/trap.h>

#define IRQ_TIMER	0	/* PIT channel 0 */
#define IRQ_CASCADE	2	/* the slave PIC */
#define IRQ_COM1	4
#define IRQ_RTC		8

void pic_init(void);			/* remap and mask every line */
void pic_mask(int irq);
void pic_unmask(int irq);
void pic_eoi(int irq);
/* Install handler for irq and unmask it; the handler must call pic_eoi. */
void irq_set_handler(int irq, trap_handler_t handler);

#endif
