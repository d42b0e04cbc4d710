/* Tests of the TSC calibration (lab 5): counters of other rates and widths than QEMU's HPET, and the PIT. */
#include <ccos/ktest.h>
#include <ccos/clock.h>
#include <asm/arch.h>

/*
 * A counter made of the TSC: it counts period_fs femtoseconds a count as
 * if the TSC ran at FAKE_TSC_KHZ, starting at start and wrapping at mask.
 * The calibration against it must then find FAKE_TSC_KHZ, whatever the
 * TSC's real rate: the test needs no second clock.
 */
#define FAKE_TSC_KHZ	1000000ul	/* 1 GHz */

static struct {
	uint64_t t0, start, period_fs, mask;
} fake;

static uint64_t fake_read(void)
{
	uint64_t fs = (vgtod_rdtsc() - fake.t0) * (1000000000000ul / FAKE_TSC_KHZ);

	return (fake.start + fs / fake.period_fs) & fake.mask;
}

/* The calibration's answer against the fake counter, in kHz. */
static uint64_t calibrate_fake(uint64_t period_fs, uint64_t mask, uint64_t start)
{
	struct calib_counter c = { fake_read, period_fs, mask };

	fake.period_fs = period_fs;
	fake.mask = mask;
	fake.start = start;
	fake.t0 = vgtod_rdtsc();
	return tsc_calibrate_counter(&c);
}

static void expect_khz(const char *what, uint64_t khz)
{
	/* 0.5 %: the fake counter is exact; only the pairs' width blurs it */
	if (khz < FAKE_TSC_KHZ * 995 / 1000 || khz > FAKE_TSC_KHZ * 1005 / 1000)
		ktest_fail(__FILE__, __LINE__, "%s: the calibration said %lu kHz, expected %lu",
			   what, khz, FAKE_TSC_KHZ);
}

/* The classic 14.31818 MHz HPET (69841279 fs a count) and a 25 MHz one, 64 bits wide. */
KTEST(tsc_calibrate_other_hpet_periods)
{
	expect_khz("14.318 MHz, 64 bits", calibrate_fake(69841279, ~0ul, 0));
	expect_khz("25 MHz, 64 bits", calibrate_fake(40000000, ~0ul, 1000));
	expect_khz("100 MHz, 64 bits", calibrate_fake(10000000, ~0ul, 0));
}

/*
 * A 32-bit counter (an HPET without the 64-bit capability, IA-PC HPET
 * spec 2.3.4: COUNT_SIZE_CAP) that wraps during the run: the counts
 * are the difference modulo 2^32.
 */
KTEST(tsc_calibrate_32bit_counter_wraps)
{
	expect_khz("14.318 MHz, 32 bits, wrapping", calibrate_fake(69841279, 0xfffffffful, 0xffffffffu - 50000));
	expect_khz("100 MHz, 32 bits, wrapping", calibrate_fake(10000000, 0xfffffffful, 0xffffffffu - 1000));
}

/*
 * The fallback without an HPET, PIT channel 2, agrees with the boot's
 * calibration. Polling sees the PIT's end late when the host stalls the
 * vCPU, which only ever makes a run read long: one run of fifty within
 * 5 % passes (a run is 20 ms; on a loaded host with every vCPU a thread,
 * ten in a row were seen to read long).
 */
KTEST(tsc_calibrate_pit_agrees)
{
	uint64_t khz = 0;
	int i;

	if (!tsc_khz) {
		ktest_skip("the TSC was not calibrated at boot");
		return;
	}
	for (i = 0; i < 50; i++) {
		khz = tsc_calibrate_pit();
		if (khz >= tsc_khz * 95 / 100 && khz <= tsc_khz * 105 / 100)
			return;
	}
	ktest_fail(__FILE__, __LINE__, "against the PIT %lu kHz (the last of fifty runs), against the %s at boot %lu kHz",
		   khz, hpet_clocksource.usable ? "HPET" : "PIT", tsc_khz);
}
