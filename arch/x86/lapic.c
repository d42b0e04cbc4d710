/* The local APIC: xAPIC or x2APIC registers, its id, enabling it, EOI, and IPIs (INIT, startup, fixed). */
#include <asm/lapic.h>
#include <asm/acpi.h>
#include <ccos/clock.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <asm/x86.h>

/*
 * Local APIC registers (Intel SDM Vol. 3, "Local APIC Register Address
 * Map"). In xAPIC mode each is a 32-bit word on a 16-byte line of a 4 KiB
 * MMIO page at the address that the MADT and IA32_APIC_BASE give; in
 * x2APIC mode the same register is MSR 0x800 + offset / 16 ("x2APIC
 * Register Address Space"), except the ICR, one 64-bit MSR.
 */
#define LAPIC_ID	0x020	/* xAPIC: bits 31:24; x2APIC: all 32 bits */
#define LAPIC_TPR	0x080	/* task priority: 0 lets every vector in */
#define LAPIC_EOI	0x0b0	/* write 0: the in-service interrupt is done */
#define LAPIC_SVR	0x0f0	/* spurious vector; bit 8 enables the APIC */
#define LAPIC_ICR_LOW	0x300	/* a write here sends the IPI */
#define LAPIC_ICR_HIGH	0x310	/* xAPIC bits 31:24: the destination's APIC id */
#define SVR_ENABLE	(1u << 8)	/* "APIC software enable" */

/* The Interrupt Command Register's low word (SDM Vol. 3, "Interrupt Command Register (ICR)"). */
#define ICR_FIXED	(0u << 8)	/* delivery mode 000: the vector, to the destination */
#define ICR_INIT	(5u << 8)	/* delivery mode 101: INIT */
#define ICR_STARTUP	(6u << 8)	/* delivery mode 110: start-up; the vector is a page number */
#define ICR_PENDING	(1u << 12)	/* xAPIC delivery status: not yet accepted */
#define ICR_ASSERT	(1u << 14)	/* level: assert */

#define MSR_APIC_BASE	0x1b
#define APIC_BASE_EXTD	(1u << 10)	/* x2APIC mode: registers are MSRs, not MMIO */
#define APIC_BASE_EN	(1u << 11)	/* the APIC is on (xAPIC unless EXTD too) */
#define MSR_X2APIC_BASE	0x800
#define CPUID1_ECX_X2APIC (1u << 21)

static volatile uint32_t *lapic;
bool x2apic;

uint32_t lapic_read(unsigned int reg)
{
	if (x2apic)
		return rdmsr(MSR_X2APIC_BASE + reg / 16);
	return lapic[reg / 4];
}

void lapic_write(unsigned int reg, uint32_t v)
{
	if (x2apic)
		wrmsr(MSR_X2APIC_BASE + reg / 16, v);
	else
		lapic[reg / 4] = v;
}

void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);	/* x2APIC: a non-zero write is a #GP */
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
 * x2APIC where CPUID says the CPU has it: setting EXTD with EN moves the
 * APIC from xAPIC to x2APIC mode (SDM Vol. 3, "x2APIC State
 * Transitions"); each CPU switches its own, the boot CPU first.
 */
static void x2apic_enable(void)
{
	wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | APIC_BASE_EN | APIC_BASE_EXTD);
}

/*
 * The boot CPU's look at its local APIC: x2APIC if the CPU has it (or the
 * firmware left it on), else the xAPIC's registers mapped uncached.
 */
bool lapic_init(void)
{
	uint32_t a, b, c, d;

	cpuid(1, 0, &a, &b, &c, &d);
	x2apic = (c & CPUID1_ECX_X2APIC) || (rdmsr(MSR_APIC_BASE) & APIC_BASE_EXTD);
	if (x2apic) {
		lapic_setup_cpu();
		return true;
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
	lapic_setup_cpu();
	return true;
}

/*
 * Each CPU's own APIC, ready to take interrupts: x2APIC mode if the boot
 * CPU chose it; task priority 0, so that no vector is held back; and the
 * software-enable bit of the spurious-vector register, without which the
 * APIC delivers nothing, not even IPIs (SDM Vol. 3, "Spurious Interrupt").
 */
void lapic_setup_cpu(void)
{
	if (x2apic)
		x2apic_enable();
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_SVR, SVR_ENABLE | SPURIOUS_VECTOR);
}

uint32_t lapic_id(void)
{
	return x2apic ? lapic_read(LAPIC_ID) : lapic_read(LAPIC_ID) >> 24;
}

/*
 * Send an IPI. xAPIC: the high word first, since writing the low word is
 * what sends, then wait until the destination's APIC has accepted it
 * (ICR_PENDING clears). x2APIC: one 64-bit write, destination in bits
 * 63:32, and no delivery status to wait for (the bit is reserved there).
 */
static bool send_ipi(uint32_t apic_id, uint32_t low)
{
	int i;

	if (x2apic) {
		wrmsr(MSR_X2APIC_BASE + LAPIC_ICR_LOW / 16, (uint64_t)apic_id << 32 | low);
		return true;
	}
	lapic_write(LAPIC_ICR_HIGH, apic_id << 24);
	lapic_write(LAPIC_ICR_LOW, low);
	for (i = 0; i < 1000; i++) {
		if (!(lapic_read(LAPIC_ICR_LOW) & ICR_PENDING))
			return true;
		udelay(100);
	}
	printk(KERN_WARNING "lapic: an IPI (ICR %x) to APIC id %u was not accepted within 100 ms\n",
	       low, apic_id);
	return false;
}

/* A fixed interrupt on vector to the CPU with that APIC id. */
void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	send_ipi(apic_id, ICR_FIXED | ICR_ASSERT | vector);
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
