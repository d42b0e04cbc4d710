/* The TSC: its features, its frequency measured against the HPET or the PIT (lab 5), and its clocksource. */
#include <ccos/clock.h>
#include <ccos/proc.h>
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
static uint64_t median3(uint64_t a, uint64_t b, uint64_t c)
{
	if (a > b) {
		uint64_t t = a;
		a = b;
		b = t;
	}
	return c < a ? a : c > b ? b : c;
}

/*
 * Read the TSC just before and just after the counter, a few times, and
 * keep the tightest pair: its midpoint is when the counter was read, give
 * or take half the pair's width.
 */
static uint64_t tsc_counter_pair(const struct calib_counter *c, uint64_t *count)
{
	uint64_t best = ~0ul, mid = 0, t0, t1, h;
	int i;

	for (i = 0; i < 5; i++) {
		t0 = vgtod_rdtsc();
		h = c->read();
		t1 = vgtod_rdtsc();
		if (t1 - t0 < best) {
			best = t1 - t0;
			mid = t0 + (t1 - t0) / 2;
			*count = h;
		}
	}
	return mid;
}

/*
 * TSC kHz from one CALIBRATE_MS run against a counter of c->period_fs
 * femtoseconds a count that wraps at c->mask; 0 if it does not count.
 */
uint64_t tsc_calibrate_counter(const struct calib_counter *c)
{
	uint64_t counts, h0, h1, t0, t1, ns, spins = 0;

	counts = CALIBRATE_MS * 1000000000000ul / c->period_fs;
	t0 = tsc_counter_pair(c, &h0);
	while (((c->read() - h0) & c->mask) < counts)
		if (++spins == CALIBRATE_SPINS)
			return 0;
	t1 = tsc_counter_pair(c, &h1);
	ns = ((h1 - h0) & c->mask) * c->period_fs / 1000000;	/* 20 ms: 2e13 fs, no overflow */
	return ns ? (t1 - t0) * 1000000 / ns : 0;
}

/* TSC kHz from one CALIBRATE_MS run of PIT channel 2 counting down to zero. */
uint64_t tsc_calibrate_pit(void)
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

/*
 * The TSC's rate in kHz: the median of CALIBRATE_RUNS runs against the
 * HPET when there is one, else against PIT channel 2; 0 if they failed.
 */
static uint64_t tsc_calibrate(const struct calib_counter *hpet)
{
	uint64_t runs[CALIBRATE_RUNS];
	int i;

	for (i = 0; i < CALIBRATE_RUNS; i++)
		runs[i] = hpet ? tsc_calibrate_counter(hpet) : tsc_calibrate_pit();
	return median3(runs[0], runs[1], runs[2]);
}

/* The clocksource's mult and shift: ns = cycles * mult >> shift, and ns per cycle = 10^6 / kHz. */
static void tsc_set_rate(struct clocksource *cs, uint64_t khz)
{
	clocks_calc_mult_shift(&cs->mult, &cs->shift, 1000000, khz);
}
/* LAB timekeeping: STUB
uint64_t tsc_calibrate_counter(const struct calib_counter *c)
{
	// (c->read, not hpet_read: the in-kernel tests feed other counters.)
	// 1. How many counts make CALIBRATE_MS at c->period_fs femtoseconds
	//    a count (any period: QEMU's HPET is 100 MHz, real ones 14.318,
	//    24 or 25 MHz).
	// 2. A pair: the TSC read just before and just after c->read(), a
	//    few tries, the tightest one kept (its midpoint is when the
	//    counter was read; a helper function of yours). Then spin
	//    until the counter has counted that many, its wrap at c->mask
	//    in mind, giving up (return 0) after CALIBRATE_SPINS tries; then
	//    another pair.
	// 3. The counts between the pairs in nanoseconds, and TSC cycles
	//    per millisecond of them: kHz.
	(void)c;
	return 0;
}

uint64_t tsc_calibrate_pit(void)
{
	// PIT channel 2 counts PIT_HZ * CALIBRATE_MS / 1000 down to zero
	// (pit_ch2_start_oneshot, pit_ch2_expired); the TSC before and after,
	// giving up after CALIBRATE_SPINS tries. Return kHz, 0 if it failed.
	return 0;
}

static uint64_t tsc_calibrate(const struct calib_counter *hpet)
{
	lab_todo("05-timekeeping");
	// CALIBRATE_RUNS runs, each against the HPET if hpet is not NULL,
	// else against the PIT; return their median (one bad run, a
	// preemption or an SMI, must not decide).
	(void)hpet;
	return 0;
}

static void tsc_set_rate(struct clocksource *cs, uint64_t khz)
{
	// cs->mult and cs->shift, so that ns = cycles * mult >> shift:
	// clocks_calc_mult_shift(mult, shift, num, den) for ns per cycle = num / den.
	(void)cs;
	(void)khz;
}
   LAB timekeeping: END */

void tsc_init(void)
{
	struct calib_counter hpet = { hpet_read, hpet_period_fs, hpet_clocksource.mask };
	bool by_hpet = hpet_clocksource.usable;

	BUILD_BUG_ON(CALIBRATE_RUNS != 3);
	tsc_detect();
	if (!tsc_present) {
		printk("tsc: none (CPUID.1:EDX.TSC clear)\n");
		return;
	}
	tsc_khz = tsc_calibrate(by_hpet ? &hpet : NULL);
	if (!tsc_khz) {
		printk(KERN_WARNING "tsc: calibration against the %s failed (it did not count); TSC not used\n",
		       by_hpet ? "HPET" : "PIT");
		return;
	}
	tsc_set_rate(&tsc_clocksource, tsc_khz);
	tsc_clocksource.usable = true;
	printk("tsc: %lu.%03lu MHz (calibrated against the %s), invariant %s, rdtscp %s\n",
	       tsc_khz / 1000, tsc_khz % 1000, by_hpet ? "HPET" : "PIT channel 2",
	       tsc_invariant ? "yes" : "no", tsc_rdtscp ? "yes" : "no");
}

/*
 * prctl(PR_SET_TSC): CR4.TSD set makes RDTSC and RDTSCP at CPL > 0 raise
 * #GP (SDM Vol. 3 §2.5), hence SIGSEGV, for the thread that asked; the
 * scheduler loads each thread's choice as it runs it.
 */
void tsc_access_load(const struct process *p)
{
	uint64_t cr4 = read_cr4();

	if (!!(cr4 & CR4_TSD) != p->tsc_sigsegv)
		write_cr4(cr4 ^ CR4_TSD);
}
