/* Tests of the I/O APIC: the MADT's override for the PIT, and the serial line's entry as tty_init routed it. */
#include <ccos/ktest.h>
#include <asm/ioapic.h>
#include <asm/acpi.h>
#include <asm/pic.h>
#include <ccos/proc.h>

/* Every PC chipset QEMU models wires the PIT to pin 2: the MADT says so with an override. */
KTEST(ioapic_pit_override_from_the_madt)
{
	if (!ioapic_in_use) {
		ktest_skip("no I/O APIC in the MADT: the 8259 takes the device interrupts");
		return;
	}
	KEXPECT_EQ(acpi_info.isa_gsi[0], 2);
	KEXPECT_EQ(acpi_info.isa_gsi[4], 4);
}

/* IRQ 4: vector IRQ_BASE + 4, fixed, physical, edge, active high, unmasked, to CPU 0's APIC. */
KTEST(ioapic_routes_the_serial_line)
{
	uint64_t e;
	int pin;

	if (!ioapic_in_use) {
		ktest_skip("no I/O APIC in the MADT: the 8259 takes the device interrupts");
		return;
	}
	pin = ioapic_pin(IRQ_COM1);
	KEXPECT_EQ(pin, 4);
	if (pin < 0)
		return;
	e = ioapic_entry(pin);
	KEXPECT_EQ(e & 0xff, IRQ_BASE + IRQ_COM1);	/* vector */
	KEXPECT_EQ((e >> 8) & 7, 0);			/* delivery mode: fixed */
	KEXPECT_EQ((e >> 11) & 1, 0);			/* destination mode: physical */
	KEXPECT_EQ((e >> 13) & 1, 0);			/* active high */
	KEXPECT_EQ((e >> 15) & 1, 0);			/* edge */
	KEXPECT_EQ((e >> 16) & 1, 0);			/* not masked */
	KEXPECT_EQ(e >> 56, cpus[0].apic_id);		/* destination */
	KEXPECT_EQ(ioapic_entry(ioapic_pin(0)) >> 16 & 1, 1);	/* the PIT's pin stays masked */
}
