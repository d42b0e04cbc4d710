/* The HPET's main counter as a clocksource, mapped for the kernel and, read-only, for user mode. */
#include <ccos/clock.h>
#include <asm/vgtod.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/lab.h>

/* Register offsets, IA-PC HPET specification 1.0a §2.3. */
#define HPET_ID			0x000	/* general capabilities and ID */
#define HPET_CFG		0x010	/* general configuration */
#define HPET_COUNTER		HPET_COUNTER_OFFSET	/* 0x0f0, the main counter */
#define HPET_TN_CFG(n)		(0x100 + 0x20 * (n))	/* timer n configuration */
#define HPET_MMIO_SIZE		1024

#define HPET_ID_NUM_TIM(id)	((((id) >> 8) & 0x1f) + 1)
#define HPET_ID_64BIT		(1u << 13)	/* COUNT_SIZE_CAP */
#define HPET_ID_PERIOD(id)	((uint32_t)((id) >> 32))	/* COUNTER_CLK_PERIOD, fs */
#define HPET_MAX_PERIOD		100000000u	/* §2.3.4: at most 100 ns */
#define HPET_CFG_ENABLE		(1u << 0)	/* the main counter runs */
#define HPET_CFG_LEGACY		(1u << 1)	/* timers 0/1 take over IRQ 0/8 from PIT/RTC */
#define HPET_TN_INT_ENB		(1u << 2)

volatile void *hpet_regs;
uint32_t hpet_period_fs;
static bool hpet_64bit;

static inline uint64_t hpet_readq(unsigned off)
{
	return *(volatile uint64_t *)((volatile char *)hpet_regs + off);
}

static inline void hpet_writeq(unsigned off, uint64_t v)
{
	*(volatile uint64_t *)((volatile char *)hpet_regs + off) = v;
}

uint64_t hpet_read(void)
{
	if (hpet_64bit)
		return hpet_readq(HPET_COUNTER);
	return *(volatile uint32_t *)((volatile char *)hpet_regs + HPET_COUNTER);
}

struct clocksource hpet_clocksource = {
	.name = "hpet",
	.read = hpet_read,
};

bool hpet_init(uint64_t phys)
{
	uint64_t id, cfg;
	unsigned n, i;

	if (!phys) {
		printk("hpet: none (ACPI has no HPET table)\n");
		return false;
	}
	hpet_regs = ioremap(phys, HPET_MMIO_SIZE);	/* registers: uncached */
	if (!hpet_regs) {
		printk(KERN_WARNING "hpet: cannot map its registers at 0x%lx; not used\n", phys);
		return false;
	}
	id = hpet_readq(HPET_ID);
	hpet_period_fs = HPET_ID_PERIOD(id);
	if (hpet_period_fs == 0 || hpet_period_fs > HPET_MAX_PERIOD) {
		printk(KERN_WARNING "hpet: at 0x%lx reports a period of %u fs (expected 1..%u); not used\n",
		       phys, hpet_period_fs, HPET_MAX_PERIOD);
		hpet_regs = NULL;
		return false;
	}
	hpet_64bit = id & HPET_ID_64BIT;
	n = HPET_ID_NUM_TIM(id);

	/*
	 * §2.3.5: the main counter may only be written while halted. Halt it,
	 * leave legacy replacement off so that IRQ 0 stays the PIT's, keep
	 * every comparator's interrupt off (we only read the counter), start
	 * from 0 and let it run.
	 */
	cfg = hpet_readq(HPET_CFG);
	hpet_writeq(HPET_CFG, cfg & ~(uint64_t)(HPET_CFG_ENABLE | HPET_CFG_LEGACY));
	for (i = 0; i < n; i++)
		hpet_writeq(HPET_TN_CFG(i), hpet_readq(HPET_TN_CFG(i)) & ~(uint64_t)HPET_TN_INT_ENB);
	hpet_writeq(HPET_COUNTER, 0);
	hpet_writeq(HPET_CFG, (cfg & ~(uint64_t)HPET_CFG_LEGACY) | HPET_CFG_ENABLE);

	hpet_clocksource.mask = hpet_64bit ? ~0ul : 0xfffffffful;
	/* ns per count = period_fs / 10^6 */
	clocks_calc_mult_shift(&hpet_clocksource.mult, &hpet_clocksource.shift,
			       hpet_period_fs, 1000000);
	hpet_clocksource.usable = true;

	/*
	 * User mode reads the counter at HPET_USER_ADDR: read-only, no-execute
	 * (Linux d319bb79afa4 "x86-64: Map the HPET NX") and uncached like any MMIO (PCD|PWT). That
	 * mapping is one page, so it needs the block page-aligned.
	 */
	if ((phys & (PAGE_SIZE - 1)) == 0) {
		/* LAB fixmap: BEGIN */
		fixmap_set(HPET_USER_ADDR, phys, PTE_P | PTE_U | PTE_NX | PTE_PCD | PTE_PWT);
		hpet_clocksource.vclock_mode = VCLOCK_HPET;
		/* LAB fixmap: STUB
		lab_todo("01-fixmap");
		   LAB fixmap: END */
	} else {
		printk(KERN_WARNING "hpet: registers at 0x%lx are not page-aligned; user mode cannot read it\n",
		       phys);
	}
	printk("hpet: at 0x%lx, period %u fs (%lu.%03lu MHz), %s-bit counter, %u timers\n",
	       phys, hpet_period_fs, 1000000000ul / hpet_period_fs,
	       1000000000000ul / hpet_period_fs % 1000, hpet_64bit ? "64" : "32", n);
	return true;
}
