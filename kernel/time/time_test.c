/* Tests of the running clock: the tick, monotonicity, no torn reads across updates, the API. */
#include <ccos/ktest.h>
#include <ccos/time.h>
#include <ccos/clock.h>
#include <ccos/errno.h>
#include <asm/arch.h>

static int64_t ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static bool normalised(const struct timespec *ts)
{
	return ts->tv_nsec >= 0 && ts->tv_nsec < NSEC_PER_SEC;
}

/* Wait for the next tick; false if none comes (interrupts off, or no timer). */
static bool wait_tick(void)
{
	unsigned long j = jiffies;
	uint64_t spins;

	for (spins = 0; spins < 100000000ul; spins++) {
		if (jiffies != j)
			return true;
		pause();
	}
	return false;
}

KTEST(tick_advances_jiffies)
{
	unsigned long j0;

	KEXPECT(read_rflags() & RFLAGS_IF);
	j0 = jiffies;
	KEXPECT(wait_tick());
	KEXPECT(wait_tick());
	KEXPECT(jiffies - j0 >= 2);
	KEXPECT_EQ(jiffies, vvar.jiffies);
}

KTEST(time_never_goes_backwards)
{
	static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC,
					    CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE,
					    CLOCK_BOOTTIME };
	struct timespec prev, now;
	unsigned c;
	int i;

	for (c = 0; c < ARRAY_SIZE(clocks); c++) {
		KEXPECT_EQ(do_clock_gettime(clocks[c], &prev), 0);
		for (i = 0; i < 100000; i++) {
			do_clock_gettime(clocks[c], &now);
			if (ts_ns(&now) < ts_ns(&prev) || !normalised(&now)) {
				ktest_fail(__FILE__, __LINE__,
					   "clock %d read %ld.%09ld after %ld.%09ld (read %d)",
					   clocks[c], now.tv_sec, now.tv_nsec, prev.tv_sec,
					   prev.tv_nsec, i);
				break;
			}
			prev = now;
		}
	}
}

/*
 * Read in a loop while >= 20 ticks update the time under the reader. Each
 * REALTIME read is bracketed by two MONOTONIC reads; REALTIME minus the
 * constant wall-to-monotonic offset must fall between them. A reader that
 * mixed fields from before and after an update would be off by a tick or
 * a second, or see unnormalised nanoseconds. The coarse clock, read
 * first, can never be ahead of the fine one read after it.
 */
KTEST(no_torn_reads_across_ticks)
{
	const struct timespec *w2m = &vvar.vsyscall_gtod_data.wall_to_monotonic;
	struct timespec m1, rt, m2, coarse, prev_m = { 0, 0 }, prev_rt = { 0, 0 };
	int64_t offset = -(w2m->tv_sec * NSEC_PER_SEC + w2m->tv_nsec), t0;
	unsigned long j0, reads = 0;
	bool bad = false;

	KEXPECT(wait_tick());
	j0 = jiffies;
	t0 = ktime_get_ns();
	while (jiffies - j0 < 25 && !bad) {
		do_clock_gettime(CLOCK_MONOTONIC_COARSE, &coarse);
		do_clock_gettime(CLOCK_MONOTONIC, &m1);
		do_clock_gettime(CLOCK_REALTIME, &rt);
		do_clock_gettime(CLOCK_MONOTONIC, &m2);
		reads++;
		if (!normalised(&m1) || !normalised(&rt) || !normalised(&m2) ||
		    !normalised(&coarse)) {
			ktest_fail(__FILE__, __LINE__, "unnormalised: %ld.%ld %ld.%ld %ld.%ld",
				   m1.tv_sec, m1.tv_nsec, rt.tv_sec, rt.tv_nsec, m2.tv_sec,
				   m2.tv_nsec);
			bad = true;
		} else if (ts_ns(&m1) < ts_ns(&prev_m) || ts_ns(&m2) < ts_ns(&m1) ||
			   ts_ns(&rt) < ts_ns(&prev_rt) || ts_ns(&coarse) > ts_ns(&m1)) {
			ktest_fail(__FILE__, __LINE__,
				   "backwards: coarse %ld, then mono %ld -> %ld -> %ld",
				   ts_ns(&coarse), ts_ns(&prev_m), ts_ns(&m1), ts_ns(&m2));
			bad = true;
		} else if (ts_ns(&rt) - offset < ts_ns(&m1) || ts_ns(&rt) - offset > ts_ns(&m2)) {
			ktest_fail(__FILE__, __LINE__,
				   "realtime %ld - offset %ld is outside monotonic [%ld, %ld]",
				   ts_ns(&rt), offset, ts_ns(&m1), ts_ns(&m2));
			bad = true;
		}
		prev_m = m2;
		prev_rt = rt;
	}
	KEXPECT(reads > 100);
	/* 25 ticks of 10 ms passed, give or take late interrupts */
	KEXPECT(ktime_get_ns() - t0 >= 20 * tick_nsec);
}

KTEST(monotonic_agrees_with_the_tick)
{
	uint64_t t0, t1;
	unsigned long j0;

	KEXPECT(wait_tick());
	t0 = ktime_get_ns();
	j0 = jiffies;
	while (jiffies - j0 < 10)
		hlt();
	t1 = ktime_get_ns();
	/*
	 * 10 ticks: 100 ms. A busy host may deliver ticks late, never early;
	 * a wrong divisor or TSC frequency would be off by far more.
	 */
	KEXPECT(t1 - t0 >= 8 * tick_nsec);
	KEXPECT(t1 - t0 <= 100 * tick_nsec);
}

KTEST(clock_api_ids_and_errors)
{
	struct timespec ts, res;
	struct timeval tv;
	struct timezone tz = { 99, 99 };

	KEXPECT_EQ(do_clock_gettime(-5, &ts), -EINVAL);	/* a descriptor's clock (CLOCKFD) */
	KEXPECT_EQ(do_clock_gettime(-1, &ts), -EINVAL);	/* a CPU clock counting none of the three */
	KEXPECT_EQ(do_clock_gettime(8, &ts), -EINVAL);
	KEXPECT_EQ(do_clock_getres(42, &res), -EINVAL);
	KEXPECT_EQ(do_clock_getres(CLOCK_MONOTONIC, NULL), 0);

	KEXPECT_EQ(do_clock_getres(CLOCK_REALTIME_COARSE, &res), 0);
	KEXPECT_EQ(ts_ns(&res), NSEC_PER_SEC / HZ);
	KEXPECT_EQ(do_clock_getres(CLOCK_MONOTONIC, &res), 0);
	KEXPECT_EQ(ts_ns(&res), NSEC_PER_SEC / HZ);	/* the timers': a tick, any clocksource */

	KEXPECT_EQ(do_clock_gettime(CLOCK_BOOTTIME, &ts), 0);
	KEXPECT(ts.tv_sec >= 0 && normalised(&ts));
	/* Served under other names: MONOTONIC_RAW as MONOTONIC, TAI as REALTIME (offset 0). */
	KEXPECT_EQ(do_clock_gettime(CLOCK_MONOTONIC_RAW, &ts), 0);
	KEXPECT(normalised(&ts));
	KEXPECT_EQ(do_clock_getres(CLOCK_TAI, &res), 0);
	KEXPECT_EQ(do_clock_gettime(CLOCK_TAI, &ts), 0);
	KEXPECT(ts.tv_sec > 1000000000 && normalised(&ts));	/* a wall-clock time, past 2001 */
	KEXPECT_EQ(do_gettimeofday(&tv, &tz), 0);
	KEXPECT(tv.tv_usec >= 0 && tv.tv_usec < USEC_PER_SEC);
	KEXPECT_EQ(tz.tz_minuteswest, 0);
	KEXPECT_EQ(do_gettimeofday(NULL, NULL), 0);
	/* the RTC said something after 2020, and the seconds agree */
	KEXPECT(ktime_get_real_seconds() > 1577836800);
	do_clock_gettime(CLOCK_REALTIME, &ts);
	KEXPECT(ts.tv_sec - ktime_get_real_seconds() <= 1);
}

KTEST(hpet_counter_runs_and_32bit_read_matches)
{
	uint64_t a, b;
	uint32_t low;

	if (!hpet_regs) {
		ktest_skip("no HPET on this machine");
		return;
	}
	a = hpet_read();
	low = *(volatile uint32_t *)((volatile char *)hpet_regs + HPET_COUNTER_OFFSET);
	b = hpet_read();
	KEXPECT(b > a);
	KEXPECT((uint32_t)(low - (uint32_t)a) <= (uint32_t)(b - a));
}
