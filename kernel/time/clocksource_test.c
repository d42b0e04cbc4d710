/* Tests of mult/shift conversion and of the shared gtod reader on synthetic data. */
#include <ccos/ktest.h>
#include <ccos/clock.h>
#include <asm/arch.h>

static uint64_t to_ns(uint64_t num, uint64_t den, uint64_t cycles)
{
	struct clocksource cs = { 0 };

	clocks_calc_mult_shift(&cs.mult, &cs.shift, num, den);
	return clocksource_cyc2ns(&cs, cycles);
}

KTEST(mult_shift_exact_conversions)
{
	uint32_t mult, shift;

	/* HPET with QEMU's period, 10 ns: ns per count = 10^7 fs / 10^6 */
	clocks_calc_mult_shift(&mult, &shift, 10000000, 1000000);
	KEXPECT_EQ(mult, 10u << 28);
	KEXPECT_EQ(shift, 28);
	KEXPECT_EQ(to_ns(10000000, 1000000, 12345), 123450);
	KEXPECT_EQ(to_ns(10000000, 1000000, 100000000), NSEC_PER_SEC);
	/* TSC at 1 GHz and at 250 MHz: ns per cycle = 10^6 / kHz */
	KEXPECT_EQ(to_ns(1000000, 1000000, 123456789), 123456789);
	KEXPECT_EQ(to_ns(1000000, 1000000, 1ul << 40), 1ul << 40);
	KEXPECT_EQ(to_ns(1000000, 250000, 1000000000), 4 * NSEC_PER_SEC);
	/* 2 GHz: half a nanosecond a cycle */
	KEXPECT_EQ(to_ns(1000000, 2000000, 3), 1);
	KEXPECT_EQ(to_ns(1000000, 2000000, 2000000000), NSEC_PER_SEC);
}

KTEST(mult_shift_close_on_odd_rates)
{
	int64_t ns;

	/* 3 GHz: mult is rounded, so a second may be off by a nanosecond */
	ns = to_ns(1000000, 3000000, 3000000000ul);
	KEXPECT(ns >= NSEC_PER_SEC - 1 && ns <= NSEC_PER_SEC + 1);
	/* the classic 14.31818 MHz HPET: 69841279 fs a count */
	ns = to_ns(69841279, 1000000, 14318180);
	KEXPECT(ns >= 1000000003 && ns <= 1000000005);
	/* 100 PIT ticks with divisor 11932 (HZ = 100) */
	ns = to_ns(11932ul * NSEC_PER_SEC, PIT_HZ, 100);
	KEXPECT(ns >= 1000015085 && ns <= 1000015086);
}

/* A fake HPET register block: the reader reads the counter at 0xf0. */
static uint64_t fake_hpet[HPET_COUNTER_OFFSET / 8 + 1];

static void setup_hpet_gtod(struct vsyscall_gtod_data *g, uint64_t mask)
{
	*g = (struct vsyscall_gtod_data){
		.vclock_mode = VCLOCK_HPET,
		.mask = mask,
		.mult = 10u << 28,		/* 10 ns a count */
		.shift = 28,
		.wall_time_sec = 1000,
		.wall_time_snsec = 999999900ul << 28,
		.wall_to_monotonic = { -995, 500 },
		.wall_time_coarse = { 1000, 999999900 },
	};
}

KTEST(vgtod_reader_hpet_64bit)
{
	struct vsyscall_gtod_data g;
	struct timespec ts = { 0, 0 };

	setup_hpet_gtod(&g, ~0ul);
	g.cycle_last = 0xfffffff0ul;
	fake_hpet[HPET_COUNTER_OFFSET / 8] = 0x100000010ul;	/* 0x20 counts later */
	KEXPECT(vgtod_gettime(&g, fake_hpet, CLOCK_REALTIME, &ts));
	KEXPECT_EQ(ts.tv_sec, 1001);		/* 999999900 + 320 ns carries */
	KEXPECT_EQ(ts.tv_nsec, 220);
	KEXPECT(vgtod_gettime(&g, fake_hpet, CLOCK_MONOTONIC, &ts));
	KEXPECT_EQ(ts.tv_sec, 6);
	KEXPECT_EQ(ts.tv_nsec, 720);
	KEXPECT(!vgtod_gettime(&g, NULL, CLOCK_MONOTONIC, &ts));	/* no mapping given */
}

KTEST(vgtod_reader_hpet_32bit_wraps)
{
	struct vsyscall_gtod_data g;
	struct timespec ts = { 0, 0 };

	setup_hpet_gtod(&g, 0xfffffffful);
	g.cycle_last = 0xfffffff0ul;
	/* a 32-bit counter wrapped; the reader must read only the low half */
	fake_hpet[HPET_COUNTER_OFFSET / 8] = 0xdead000000000010ul;
	KEXPECT(vgtod_gettime(&g, fake_hpet, CLOCK_REALTIME, &ts));
	KEXPECT_EQ(ts.tv_sec, 1001);
	KEXPECT_EQ(ts.tv_nsec, 220);
}

KTEST(vgtod_reader_modes_and_ids)
{
	struct vsyscall_gtod_data g;
	struct timespec ts = { 0, 0 };

	setup_hpet_gtod(&g, ~0ul);
	g.vclock_mode = VCLOCK_NONE;
	KEXPECT(!vgtod_gettime(&g, fake_hpet, CLOCK_REALTIME, &ts));
	KEXPECT(!vgtod_gettime(&g, fake_hpet, CLOCK_BOOTTIME, &ts));
	KEXPECT(vgtod_gettime(&g, NULL, CLOCK_REALTIME_COARSE, &ts));
	KEXPECT_EQ(ts.tv_sec, 1000);
	KEXPECT_EQ(ts.tv_nsec, 999999900);
	KEXPECT(vgtod_gettime(&g, NULL, CLOCK_MONOTONIC_COARSE, &ts));
	KEXPECT_EQ(ts.tv_sec, 6);
	KEXPECT_EQ(ts.tv_nsec, 400);
	KEXPECT(!vgtod_gettime(&g, NULL, CLOCK_PROCESS_CPUTIME_ID, &ts));
	KEXPECT(!vgtod_gettime(&g, NULL, 42, &ts));
	KEXPECT_EQ(vgtod_time(&g), 1000);
}

KTEST(vgtod_reader_tsc_never_below_cycle_last)
{
	struct vsyscall_gtod_data g;
	struct timespec ts = { 0, 0 };

	if (!tsc_clocksource.usable) {
		ktest_skip("CPUID says no TSC: rdtsc may fault");
		return;
	}
	setup_hpet_gtod(&g, ~0ul);
	g.vclock_mode = VCLOCK_TSC;
	g.cycle_last = vgtod_rdtsc() + (1ul << 50);	/* as if another CPU's TSC ran ahead */
	KEXPECT(vgtod_gettime(&g, NULL, CLOCK_REALTIME, &ts));
	KEXPECT_EQ(ts.tv_sec, 1000);
	KEXPECT_EQ(ts.tv_nsec, 999999900);
}
