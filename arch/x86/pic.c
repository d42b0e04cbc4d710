/* Device interrupts at IRQ_BASE: through the I/O APIC where there is one, else the 8259A pair. */
#include <asm/pic.h>
#include <asm/ioapic.h>
#include <asm/lapic.h>
#include <ccos/printk.h>
#include <asm/x86.h>

#define PIC1_CMD	0x20
#define PIC1_DATA	0x21
#define PIC2_CMD	0xa0
#define PIC2_DATA	0xa1

/* Intel 8259A datasheet: initialization and operation command words. */
#define ICW1_INIT_ICW4	0x11	/* start initialization, edge triggered, cascade, ICW4 follows */
#define ICW4_8086	0x01	/* 8086 mode, normal (not automatic) EOI */
#define OCW2_EOI	0x20	/* non-specific end of interrupt */
#define OCW3_READ_ISR	0x0b	/* the next read of the command port gives the in-service register */

static uint16_t irq_mask = 0xffff;	/* bit set: line masked */

/* Port 0x80 is unused; writing it lets an old 8259A settle between commands. */
static void io_wait(void)
{
	outb(0x80, 0);
}

static void pic_write_mask(void)
{
	outb(PIC1_DATA, irq_mask & 0xff);
	outb(PIC2_DATA, irq_mask >> 8);
}

void pic_mask(int irq)
{
	irq_mask |= 1u << irq;
	pic_write_mask();
}

void pic_unmask(int irq)
{
	irq_mask &= ~(1u << irq);
	if (irq >= 8)
		irq_mask &= ~(1u << IRQ_CASCADE);	/* the slave reaches the CPU through IRQ 2 */
	pic_write_mask();
}

/*
 * The end of a device interrupt: through the I/O APIC, the local APIC's
 * EOI (which an edge-triggered line needs alone); through the 8259, slave
 * lines need an EOI at both controllers: the master saw them as IRQ 2.
 */
void irq_eoi(int irq)
{
	if (ioapic_in_use) {
		lapic_eoi();
		return;
	}
	if (irq >= 8)
		outb(PIC2_CMD, OCW2_EOI);
	outb(PIC1_CMD, OCW2_EOI);
}

static bool in_service(int irq)
{
	uint16_t port = irq >= 8 ? PIC2_CMD : PIC1_CMD;

	outb(port, OCW3_READ_ISR);
	return inb(port) & (1u << (irq & 7));
}

/*
 * Every device vector without a handler of its own comes here. A request
 * that goes away before the CPU acknowledges it shows up as IRQ 7 (or 15
 * on the slave) with its in-service bit clear: that is spurious and gets
 * no EOI, except that the master did take the slave's request on IRQ 2
 * and needs its EOI.
 */
static void unhandled_irq(struct trap_frame *tf)
{
	int irq = tf->vector - IRQ_BASE;

	if (!ioapic_in_use && (irq == 7 || irq == 15) && !in_service(irq)) {
		if (irq == 15)
			irq_eoi(IRQ_CASCADE);
		return;
	}
	printk(KERN_WARNING "pic: IRQ %d has no handler; masked\n", irq);
	if (ioapic_in_use)
		ioapic_mask(irq);
	else
		pic_mask(irq);
	irq_eoi(irq);
}

/* The handler is the vector's own: the entry layer calls it inside the kernel lock. */
void irq_set_handler(int irq, trap_handler_t handler)
{
	idt_set_handler(IRQ_BASE + irq, handler);
	if (ioapic_in_use)
		ioapic_route(irq, IRQ_BASE + irq);
	else
		pic_unmask(irq);
}

/*
 * The BIOS leaves the master at vectors 8-15, where the CPU's exceptions
 * are; ICW2 moves both to IRQ_BASE (0x20-0x2f). ICW3 tells the master that
 * the slave hangs on its IRQ 2, and the slave its own cascade identity 2.
 */
void pic_init(void)
{
	int irq;

	outb(PIC1_CMD, ICW1_INIT_ICW4);
	io_wait();
	outb(PIC2_CMD, ICW1_INIT_ICW4);
	io_wait();
	outb(PIC1_DATA, IRQ_BASE);
	io_wait();
	outb(PIC2_DATA, IRQ_BASE + 8);
	io_wait();
	outb(PIC1_DATA, 1u << IRQ_CASCADE);
	io_wait();
	outb(PIC2_DATA, IRQ_CASCADE);
	io_wait();
	outb(PIC1_DATA, ICW4_8086);
	io_wait();
	outb(PIC2_DATA, ICW4_8086);
	io_wait();
	irq_mask = 0xffff;
	pic_write_mask();
	for (irq = 0; irq < 16; irq++)
		idt_set_handler(IRQ_BASE + irq, unhandled_irq);
	ioapic_init();		/* if it takes over, the 8259 stays masked */
}
