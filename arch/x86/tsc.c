/* The TSC: its features, its frequency measured against the HPET or the PIT, and its clocksource. */
#include <ccos/clock.h>
#include <asm/vgtod.h>
#include <ccos/printk.h>
#include <asm/x86.h>
#include <ccos/lab.h>

/* CPUID feature bits (SDM Vol. 2 CPUID; AMD APM Vol. 3 Appendix E). */
#define CPUID1_EDX_TSC		(1u << 4)	/* leaf 1: rdtsc exists */
#define CPUID81_EDX_RDTSCP	(1u << 27)	/* leaf 0x80000001: rdtscp exists */
#define CPUID87_EDX_INVTSC	(1u << 8)	/* leaf 0x80000007: TSC rate is constant in all states */

#define CALIBRATE_MS		20	/* length of one measurement */
#define CALIBRATE_RUNS		3	/* the median of these is taken */
#define CALIBRATE_SPINS		100000000ul	/* give up on a counter that does not count */

uint64_t tsc_khz;
static bool tsc_present, tsc_invariant, tsc_rdtscp;

static uint64_t tsc_read(void)
{
	return vgtod_rdtsc();
}

struct clocksource tsc_clocksource = {
	.name = "tsc",
	.read = tsc_read,
	.mask = ~0ul,
	.vclock_mode = VCLOCK_TSC,
	.res_ns = 1,
};

static void tsc_detect(void)
{
	uint32_t a, b, c, d, max_ext;

	cpuid(1, 0, &a, &b, &c, &d);
	tsc_present = d & CPUID1_EDX_TSC;
	cpuid(0x80000000, 0, &max_ext, &b, &c, &d);
	if (max_ext >= 0x80000001) {
		cpuid(0x80000001, 0, &a, &b, &c, &d);
		tsc_rdtscp = d & CPUID81_EDX_RDTSCP;
	}
	if (max_ext >= 0x80000007) {
		cpuid(0x80000007, 0, &a, &b, &c, &d);
		tsc_invariant = d & CPUID87_EDX_INVTSC;
	}
}

/* LAB timekeeping: BEGIN */
/*
 * Read the TSC just before and just after the HPET, a few times, and keep
 * the tightest pair: its midpoint is when the HPET was read, give or take
 * half the pair's width.
 */
static uint64_t tsc_hpet_pair(uint64_t *hpet)
{
	uint64_t best = ~0ul, mid = 0, t0, t1, h;
	int i;

	for (i = 0; i < 5; i++) {
		t0 = vgtod_rdtsc();
		h = hpet_read();
		t1 = vgtod_rdtsc();
		if (t1 - t0 < best) {
			best = t1 - t0;
			mid = t0 + (t1 - t0) / 2;
			*hpet = h;
		}
	}
	return mid;
}

/* TSC kHz from one CALIBRATE_MS run against the HPET. */
static uint64_t calibrate_hpet_once(void)
{
	uint64_t mask = hpet_clocksource.mask, counts, h0, h1, t0, t1, ns, spins = 0;

	counts = CALIBRATE_MS * 1000000000000ul / hpet_period_fs;
	t0 = tsc_hpet_pair(&h0);
	while (((hpet_read() - h0) & mask) < counts)
		if (++spins == CALIBRATE_SPINS)
			return 0;
	t1 = tsc_hpet_pair(&h1);
	ns = ((h1 - h0) & mask) * hpet_period_fs / 1000000;
	return ns ? (t1 - t0) * 1000000 / ns : 0;
}
/* LAB timekeeping: STUB
static uint64_t calibrate_hpet_once(void)
{
	lab_todo("05-timekeeping");
	return 0;
}
   LAB timekeeping: END */

/* TSC kHz from one CALIBRATE_MS run of PIT channel 2 counting down to zero. */
static uint64_t calibrate_pit_once(void)
{
	uint16_t count = PIT_HZ * CALIBRATE_MS / 1000;
	uint64_t t0, t1, spins = 0;

	pit_ch2_start_oneshot(count);
	t0 = vgtod_rdtsc();
	while (!pit_ch2_expired())
		if (++spins == CALIBRATE_SPINS)
			return 0;
	t1 = vgtod_rdtsc();
	return (t1 - t0) * PIT_HZ / count / 1000;
}

static uint64_t median3(uint64_t a, uint64_t b, uint64_t c)
{
	if (a > b) {
		uint64_t t = a;
		a = b;
		b = t;
	}
	return c < a ? a : c > b ? b : c;
}

void tsc_init(void)
{
	uint64_t runs[CALIBRATE_RUNS];
	bool by_hpet = hpet_clocksource.usable;
	int i;

	BUILD_BUG_ON(CALIBRATE_RUNS != 3);
	tsc_detect();
	if (!tsc_present) {
		printk("tsc: none (CPUID.1:EDX.TSC clear)\n");
		return;
	}
	for (i = 0; i < CALIBRATE_RUNS; i++)
		runs[i] = by_hpet ? calibrate_hpet_once() : calibrate_pit_once();
	tsc_khz = median3(runs[0], runs[1], runs[2]);
	if (!tsc_khz) {
		printk(KERN_WARNING "tsc: calibration against the %s failed (it did not count); TSC not used\n",
		       by_hpet ? "HPET" : "PIT");
		return;
	}
	/* ns per cycle = 10^6 / kHz */
	clocks_calc_mult_shift(&tsc_clocksource.mult, &tsc_clocksource.shift, 1000000, tsc_khz);
	tsc_clocksource.usable = true;
	printk("tsc: %lu.%03lu MHz (calibrated against the %s), invariant %s, rdtscp %s\n",
	       tsc_khz / 1000, tsc_khz % 1000, by_hpet ? "HPET" : "PIT channel 2",
	       tsc_invariant ? "yes" : "no", tsc_rdtscp ? "yes" : "no");
}
