/* Power-off: QEMU's isa-debug-exit device first, then ACPI, then halt. */
#include <ccos/power.h>
#include <asm/arch.h>

#define ISA_DEBUG_EXIT_PORT	0xf4	/* -device isa-debug-exit,iobase=0xf4,iosize=0x04 */

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

void power_off(int status)
{
	cli();
	/* QEMU exits at once with status (value << 1) | 1. */
	outl(ISA_DEBUG_EXIT_PORT, status);
	/*
	 * Without that device: ACPI sleep state S5 through PM1a_CNT
	 * (SLP_TYP 5 << 10 | SLP_EN 1 << 13 = 0x2000 on QEMU's PIIX4 at
	 * 0x604, and on older Bochs/QEMU at 0xb004).
	 */
	outw(0x604, 0x2000);
	outw(0xb004, 0x2000);
	for (;;)
		hlt();
}
