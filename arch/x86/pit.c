/* The 8254 PIT: channel 0 as the periodic tick, channel 2 as a stopwatch for calibration. */
#include <ccos/clock.h>
#include <asm/x86.h>

/* I/O ports (Intel 82C54 datasheet; PC/AT wiring). */
#define PIT_CH0		0x40
#define PIT_CH2		0x42
#define PIT_CMD		0x43
#define PORT_B		0x61	/* system control port B */
#define PORT_B_GATE2	(1u << 0)	/* channel 2 counts while its gate is high */
#define PORT_B_SPEAKER	(1u << 1)	/* channel 2's output drives the speaker */
#define PORT_B_OUT2	(1u << 5)	/* reads channel 2's output */

/* Command byte: channel (7-6), access 3 = low then high byte (5-4), mode (3-1), binary (0). */
#define PIT_CMD_CH0_RATE	0x34	/* channel 0, lo/hi, mode 2: rate generator */
#define PIT_CMD_CH2_ONESHOT	0xb0	/* channel 2, lo/hi, mode 0: interrupt on terminal count */

/*
 * Mode 2 pulses OUT0, wired to IRQ 0, once every `divisor` input clocks
 * and reloads by itself; 0 would mean 65536.
 */
uint16_t pit_start_periodic(unsigned int hz)
{
	uint32_t divisor = (PIT_HZ + hz / 2) / hz;

	if (divisor > 0xffff)
		divisor = 0xffff;
	outb(PIT_CMD, PIT_CMD_CH0_RATE);
	outb(PIT_CH0, divisor & 0xff);
	outb(PIT_CH0, divisor >> 8);
	return divisor;
}

/*
 * Mode 0: writing the count drives OUT2 low; it goes high when the count
 * reaches zero, `count` input clocks later, and stays high. The speaker
 * stays off, the gate on.
 */
void pit_ch2_start_oneshot(uint16_t count)
{
	outb(PORT_B, (inb(PORT_B) & ~PORT_B_SPEAKER) | PORT_B_GATE2);
	outb(PIT_CMD, PIT_CMD_CH2_ONESHOT);
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
}

bool pit_ch2_expired(void)
{
	return inb(PORT_B) & PORT_B_OUT2;
}
