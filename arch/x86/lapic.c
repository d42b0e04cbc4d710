/* The local APIC, as far as starting the other CPUs needs it: its id, and INIT and startup IPIs. */
#include <ccos/lapic.h>
#include <ccos/acpi.h>
#include <ccos/clock.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/x86.h>

/*
 * xAPIC registers, in a 4 KiB page of MMIO at the address that the MADT
 * and IA32_APIC_BASE give (Intel SDM Vol. 3, "Local APIC Register Address
 * Map"). Each is a 32-bit word on a 16-byte line.
 */
#define LAPIC_ID	0x020	/* bits 31:24: this CPU's APIC id */
#define LAPIC_ICR_LOW	0x300	/* a write here sends the IPI */
#define LAPIC_ICR_HIGH	0x310	/* bits 31:24: the destination's APIC id */

/* The Interrupt Command Register's low word (SDM Vol. 3, "Interrupt Command Register (ICR)"). */
#define ICR_INIT	(5u << 8)	/* delivery mode 101: INIT */
#define ICR_STARTUP	(6u << 8)	/* delivery mode 110: start-up; the vector is a page number */
#define ICR_PENDING	(1u << 12)	/* delivery status: not yet accepted */
#define ICR_ASSERT	(1u << 14)	/* level: assert */

#define MSR_APIC_BASE	0x1b
#define APIC_BASE_EXTD	(1u << 10)	/* x2APIC mode: registers are MSRs, not MMIO */

static volatile uint32_t *lapic;

static uint32_t lapic_read(unsigned int reg)
{
	return lapic[reg / 4];
}

static void lapic_write(unsigned int reg, uint32_t v)
{
	lapic[reg / 4] = v;
}

/* Busy-wait: on the TSC once it is calibrated, else on the PIT (at most 54 ms a round). */
void udelay(unsigned int us)
{
	uint64_t end;

	if (tsc_khz) {
		end = rdtsc() + us * tsc_khz / 1000;
		while (rdtsc() < end)
			pause();
		return;
	}
	while (us) {
		unsigned int n = MIN(us, 50000u);

		pit_ch2_start_oneshot((uint64_t)n * PIT_HZ / 1000000);
		while (!pit_ch2_expired())
			pause();
		us -= n;
	}
}

/*
 * Map the local APIC's registers. ccos drives it in xAPIC mode (MMIO),
 * as every firmware leaves it with fewer than 255 CPUs; an x2APIC that
 * the firmware left switched on is reported and not used.
 */
bool lapic_init(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	if (base & APIC_BASE_EXTD) {
		printk(KERN_WARNING "lapic: the firmware left x2APIC mode on; ccos drives the xAPIC only, so the other CPUs stay off\n");
		return false;
	}
	if (!acpi_info.lapic_address) {
		printk(KERN_WARNING "lapic: no MADT, so no local APIC address; the other CPUs stay off\n");
		return false;
	}
	lapic = ioremap(acpi_info.lapic_address, PAGE_SIZE);
	if (!lapic) {
		printk(KERN_WARNING "lapic: cannot map its registers at 0x%lx; the other CPUs stay off\n",
		       acpi_info.lapic_address);
		return false;
	}
	return true;
}

uint32_t lapic_id(void)
{
	return lapic_read(LAPIC_ID) >> 24;
}

/*
 * Send an IPI and wait until the destination's APIC has accepted it:
 * ICR_PENDING clears. The high word first: writing
 * the low word is what sends.
 */
static bool send_ipi(uint32_t apic_id, uint32_t low)
{
	int i;

	lapic_write(LAPIC_ICR_HIGH, apic_id << 24);
	lapic_write(LAPIC_ICR_LOW, low);
	for (i = 0; i < 1000; i++) {
		if (!(lapic_read(LAPIC_ICR_LOW) & ICR_PENDING))
			return true;
		udelay(10);
	}
	printk(KERN_WARNING "lapic: an IPI (ICR %x) to APIC id %u was not accepted within 10 ms\n",
	       low, apic_id);
	return false;
}

/*
 * The SDM's start-up sequence (Vol. 3, "MP Initialization Protocol
 * Algorithm" and "Typical BSP Initialization Sequence"): an INIT IPI resets the CPU into
 * wait-for-SIPI; after 10 ms a startup IPI starts it in real mode at
 * page_nr << 12; after 200 us a second one, which a CPU that has already
 * started ignores (the first can be lost on some old parts); then another
 * 200 us.
 */
bool lapic_start_cpu(uint32_t apic_id, uint8_t page_nr)
{
	if (!send_ipi(apic_id, ICR_INIT | ICR_ASSERT))
		return false;
	udelay(10000);
	if (!send_ipi(apic_id, ICR_STARTUP | ICR_ASSERT | page_nr))
		return false;
	udelay(200);
	if (!send_ipi(apic_id, ICR_STARTUP | ICR_ASSERT | page_nr))
		return false;
	udelay(200);
	return true;
}
