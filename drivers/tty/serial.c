/* The COM1 UART (16550): 115200 baud, 8N1; output polled, input by interrupt (drivers/tty/tty.c). */
#include <ccos/printk.h>
#include <asm/x86.h>

#define COM1	0x3f8
#define LSR_THR_EMPTY	0x20	/* bit 5: the transmit holding register is free */

void serial_init(void)
{
	outb(COM1 + 1, 0x00);	/* no interrupts until tty_init wants them */
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
