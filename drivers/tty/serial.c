/* The COM1 UART (16550): 115200 baud, 8N1; output polled, input by interrupt into the line discipline (n_tty.c). */
#include <ccos/printk.h>
#include <ccos/tty.h>
#include <asm/arch.h>

#define COM1		0x3f8
#define LSR_DATA_READY	0x01	/* line status register bit 0: a received byte waits */
#define LSR_THR_EMPTY	0x20	/* bit 5: the transmit holding register is free */
#define IIR_NO_INT	0x01	/* interrupt identification register bit 0: none pending */
#define IER_RX		0x01	/* interrupt enable register bit 0: "received data available" */
#define FCR_FIFO_1BYTE	0x01	/* FIFOs on, not cleared (typed-ahead bytes stay), interrupt at 1 byte (bits 7:6 = 0) */
#define MCR_DTR_RTS_OUT2 0x0b	/* modem control: DTR, RTS and OUT2, which gates the IRQ line on a PC */

void serial_init(void)
{
	outb(COM1 + 1, 0x00);	/* no interrupts until serial_start_input wants them */
	outb(COM1 + 3, 0x80);	/* DLAB on: ports 0/1 take the baud divisor */
	outb(COM1 + 0, 1);	/* 115200 / 1 = 115200 baud */
	outb(COM1 + 1, 0);
	outb(COM1 + 3, 0x03);	/* DLAB off, 8 data bits, no parity, 1 stop bit */
	outb(COM1 + 2, 0xc7);	/* FIFOs on and cleared */
	outb(COM1 + 4, 0x03);	/* DTR and RTS */
}

void serial_putc(char c)
{
	if (c == '\n')
		serial_putc('\r');
	while (!(inb(COM1 + 5) & LSR_THR_EMPTY))
		pause();
	outb(COM1, c);
}

/*
 * The 16550 holds its interrupt line up while any interrupt it was allowed
 * (IER) is pending, and says which in its interrupt identification
 * register: bit 0 clear while one is. Only "received data" is enabled
 * here; it and the FIFO's character timeout end once the receive buffer
 * is read empty (the line status register's bit 0 says a byte waits), as
 * the PC16550D datasheet's table of interrupt control functions gives
 * their resets.
 * The I/O APIC pin and the 8259A are edge triggered: they see the line
 * rise, not stay up. So nothing may be left pending: this reads until
 * the IIR says none (a bound for a UART that never says so), or no new
 * edge would ever come.
 */
static void serial_drain(void)
{
	int i;

	for (i = 0; i < 64 && !(inb(COM1 + 2) & IIR_NO_INT); i++)
		while (inb(COM1 + 5) & LSR_DATA_READY)
			n_tty_receive(inb(COM1));
}

/*
 * IRQ 4, inside the kernel lock (arch/x86/entry/common.c). The EOI comes
 * first: a byte that arrives after the drain's last look raises a new
 * edge, which the local APIC then holds for later instead of dropping it
 * as one more of the interrupt in service.
 */
static void serial_interrupt(struct trap_frame *tf)
{
	(void)tf;
	irq_eoi(IRQ_COM1);
	serial_drain();
}

/*
 * A byte typed during the boot raised the line when IER_RX was set, while
 * the pin was still masked, and a masked edge-triggered pin ignores its
 * edge (82093AA datasheet, redirection entry bit 16): the line stays up
 * with no interrupt coming, so the drain here, after the pin is unmasked,
 * takes those bytes and lowers it.
 */
void serial_start_input(void)
{
	outb(COM1 + 2, FCR_FIFO_1BYTE);
	outb(COM1 + 4, MCR_DTR_RTS_OUT2);
	outb(COM1 + 1, IER_RX);
	irq_set_handler(IRQ_COM1, serial_interrupt);
	serial_drain();
}
