/* The I/O APIC: the ISA interrupts, through the MADT's overrides, to the boot CPU's local APIC. */
#include <asm/ioapic.h>
#include <asm/acpi.h>
#include <asm/lapic.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/proc.h>

/*
 * Two registers in its MMIO page (Intel 82093AA datasheet, "Register
 * Descriptions"): IOREGSEL at +0x00 selects a register, IOWIN at +0x10
 * reads or writes it, 32 bits at a time.
 */
#define IOREGSEL	0x00
#define IOWIN		0x10
#define IOAPICVER	0x01	/* bits 23:16: the highest redirection entry */
#define IOREDTBL(n)	(0x10 + 2 * (n))	/* entry n: low word; the high word follows */

/* A redirection entry's low word (datasheet, "IOREDTBL[23:0]"). Fixed delivery, physical destination: 0. */
#define RTE_ACTIVE_LOW	(1u << 13)	/* polarity: 1 = the line is active low */
#define RTE_LEVEL	(1u << 15)	/* trigger mode: 1 = level, 0 = edge */
#define RTE_MASKED	(1u << 16)
/* High word, bits 63:56: the destination local APIC id (physical mode). */

/* MPS INTI flags of a MADT override (ACPI §5.2.12.5): 00 is the bus's own: ISA is edge, active high. */
#define INTI_POLARITY_LOW	3u		/* bits 1:0 = 11 */
#define INTI_TRIGGER_LEVEL	(3u << 2)	/* bits 3:2 = 11 */

static volatile uint32_t *regs;
static int nr_pins;
bool ioapic_in_use;

static uint32_t ioapic_read(uint32_t reg)
{
	regs[IOREGSEL / 4] = reg;
	return regs[IOWIN / 4];
}

static void ioapic_write(uint32_t reg, uint32_t v)
{
	regs[IOREGSEL / 4] = reg;
	regs[IOWIN / 4] = v;
}

/* The pin of ISA IRQ irq, or -1: its GSI (after the MADT's overrides) less the I/O APIC's base. */
int ioapic_pin(int irq)
{
	int pin = (int)(acpi_info.isa_gsi[irq] - acpi_info.ioapic_gsi_base);

	return pin >= 0 && pin < nr_pins ? pin : -1;
}

/* Map the first I/O APIC of the MADT and mask every pin; false if there is none. */
bool ioapic_init(void)
{
	int pin;

	if (!acpi_info.ioapic_address || !lapic_ready)
		return false;
	regs = ioremap(acpi_info.ioapic_address, PAGE_SIZE);
	if (!regs) {
		printk(KERN_WARNING "ioapic: cannot map its registers at 0x%lx; the 8259 keeps the device interrupts\n",
		       acpi_info.ioapic_address);
		return false;
	}
	nr_pins = ((ioapic_read(IOAPICVER) >> 16) & 0xff) + 1;
	for (pin = 0; pin < nr_pins; pin++)
		ioapic_write(IOREDTBL(pin), RTE_MASKED);
	ioapic_in_use = true;
	printk("ioapic: at 0x%lx, %d pins from GSI %u; the 8259 stays masked; ISA IRQ 0 is GSI %u\n",
	       acpi_info.ioapic_address, nr_pins, acpi_info.ioapic_gsi_base, acpi_info.isa_gsi[0]);
	return true;
}

/*
 * ISA IRQ irq to vector on the boot CPU: fixed delivery, physical
 * destination mode, with the polarity and trigger that the MADT's
 * override gives (an ISA line without one is edge triggered, active
 * high). The high word first: the entry goes live when the low word
 * clears its mask.
 */
void ioapic_route(int irq, uint8_t vector)
{
	uint16_t flags = acpi_info.isa_flags[irq];
	uint32_t low = vector;
	int pin = ioapic_pin(irq);

	if (pin < 0) {
		printk(KERN_WARNING "ioapic: ISA IRQ %d is GSI %u, not on this I/O APIC; not routed\n", irq,
		       acpi_info.isa_gsi[irq]);
		return;
	}
	if ((flags & INTI_POLARITY_LOW) == INTI_POLARITY_LOW)
		low |= RTE_ACTIVE_LOW;
	if ((flags & INTI_TRIGGER_LEVEL) == INTI_TRIGGER_LEVEL)
		low |= RTE_LEVEL;
	ioapic_write(IOREDTBL(pin) + 1, cpus[0].apic_id << 24);
	ioapic_write(IOREDTBL(pin), low);
}

void ioapic_mask(int irq)
{
	int pin = ioapic_pin(irq);

	if (pin >= 0)
		ioapic_write(IOREDTBL(pin), ioapic_read(IOREDTBL(pin)) | RTE_MASKED);
}

/* Entry pin as the hardware holds it: for the tests (arch/x86/ioapic_test.c). */
uint64_t ioapic_entry(int pin)
{
	return (uint64_t)ioapic_read(IOREDTBL(pin) + 1) << 32 | ioapic_read(IOREDTBL(pin));
}
