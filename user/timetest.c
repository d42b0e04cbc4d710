/* timetest: the time system calls from ring 3, as issue 6 asks: monotonic, consistent, sleeping. */
#include "testutil.h"

#define CLOCK_REALTIME_COARSE	5
#define CLOCK_MONOTONIC_COARSE	6
#define CLOCK_MONOTONIC_RAW	4
#define CLOCK_BOOTTIME		7
#define CLOCK_TAI		11
#define NSEC			1000000000L

static long ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC + ts->tv_nsec;
}

/* 10,000 rounds: each clock never goes back, and REALTIME agrees with gettimeofday. */
static int test_monotonic_and_consistent(void)
{
	struct timespec m0 = { 0, 0 }, m, r;
	struct timeval tv, tv0 = { 0, 0 };
	int i;

	for (i = 0; i < 10000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &m);
		gettimeofday(&tv, NULL);
		clock_gettime(CLOCK_REALTIME, &r);
		if (ns(&m) < ns(&m0))
			break;
		if (tv.tv_sec * 1000000 + tv.tv_usec < tv0.tv_sec * 1000000 + tv0.tv_usec)
			break;
		/* gettimeofday was read before CLOCK_REALTIME: never after it */
		if (tv.tv_sec * NSEC + tv.tv_usec * 1000 > ns(&r))
			break;
		if (m.tv_nsec < 0 || m.tv_nsec >= NSEC || tv.tv_usec < 0 || tv.tv_usec >= 1000000)
			break;
		m0 = m;
		tv0 = tv;
	}
	if (i < 10000)
		ktap_fail("round %d: monotonic %ld.%09ld after %ld.%09ld, gettimeofday %ld.%06ld, realtime %ld.%09ld",
			  i, m.tv_sec, m.tv_nsec, m0.tv_sec, m0.tv_nsec, tv.tv_sec, tv.tv_usec,
			  r.tv_sec, r.tv_nsec);
	return i == 10000;
}

/* time() is the coarse clock: at most one second behind the fine ones read before it. */
static int test_time_within_a_second(void)
{
	struct timeval tv;
	long t;

	gettimeofday(&tv, NULL);
	t = time(NULL);
	if (t < tv.tv_sec - 1 || t > tv.tv_sec + 1)
		ktap_fail("time() %ld, gettimeofday %ld", t, tv.tv_sec);
	return t >= tv.tv_sec - 1 && t <= tv.tv_sec + 1;
}

static int test_nanosleep_50ms(void)
{
	struct timespec a, b, req = { 0, 50000000 };
	long r;

	clock_gettime(CLOCK_MONOTONIC, &a);
	r = nanosleep(&req, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ktap_diag("nanosleep(50 ms) took %ld us of CLOCK_MONOTONIC", (ns(&b) - ns(&a)) / 1000);
	if (r || ns(&b) - ns(&a) < 50000000)
		ktap_fail("returned %ld after %ld ns", r, ns(&b) - ns(&a));
	return !r && ns(&b) - ns(&a) >= 50000000;
}

/* Every clock ccos serves answers, with a resolution; others are -EINVAL. */
static int test_clock_ids(void)
{
	static const int ids[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_REALTIME_COARSE,
				   CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME };
	struct timespec ts, res;
	int ok = 1;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		if (clock_gettime(ids[i], &ts) || clock_getres(ids[i], &res) ||
		    res.tv_sec != 0 || res.tv_nsec <= 0 || res.tv_nsec > 10000000)
			ok = ktap_fail("clock %d: time %ld.%09ld, resolution %ld.%09ld",
				       ids[i], ts.tv_sec, ts.tv_nsec, res.tv_sec, res.tv_nsec);
	}
	if (clock_gettime(-1, &ts) != -EINVAL || clock_getres(100, &res) != -EINVAL)
		ok = ktap_fail("a bad clock id was not -EINVAL");
	return ok;
}

/*
 * CLOCK_MONOTONIC_RAW (the counter without NTP's corrections) never goes
 * back; CLOCK_TAI is CLOCK_REALTIME plus the TAI offset, a whole number
 * of seconds (0 on ccos, 37 on a Linux machine that NTP told), and
 * clock_nanosleep takes it. Before issue 27 both were -EINVAL on ccos.
 */
static int test_raw_and_tai(void)
{
	struct timespec raw0, raw1, tai, real, res, req = { 0, 1000000 };
	long off;

	if (clock_gettime(CLOCK_MONOTONIC_RAW, &raw0) || clock_getres(CLOCK_MONOTONIC_RAW, &res) ||
	    clock_gettime(CLOCK_TAI, &tai) || clock_gettime(CLOCK_REALTIME, &real) ||
	    clock_getres(CLOCK_TAI, &res) || clock_gettime(CLOCK_MONOTONIC_RAW, &raw1))
		return ktap_fail("CLOCK_MONOTONIC_RAW or CLOCK_TAI is not served");
	if (ns(&raw1) < ns(&raw0))
		return ktap_fail("CLOCK_MONOTONIC_RAW went back");
	off = (ns(&tai) - ns(&real) + NSEC / 2) / NSEC * NSEC;	/* the nearest whole seconds */
	if (off < 0 || off > 100 * NSEC || ns(&real) - (ns(&tai) - off) > 100000000L ||
	    (on_ccos() && off))
		return ktap_fail("CLOCK_TAI %ld.%09ld, CLOCK_REALTIME %ld.%09ld: not a whole number "
				 "of seconds apart%s", tai.tv_sec, tai.tv_nsec, real.tv_sec,
				 real.tv_nsec, on_ccos() ? " (0 on ccos)" : "");
	return clock_nanosleep(CLOCK_TAI, 0, &req, NULL) == 0 ||
	       ktap_fail("clock_nanosleep(CLOCK_TAI, 1 ms) failed");
}

static int test_bad_pointers(void)
{
	void *kernel = (void *)0xffffffff80000000UL, *unmapped = (void *)0x1000;
	int ok = clock_gettime(CLOCK_MONOTONIC, kernel) == -EFAULT &&
		 clock_gettime(CLOCK_REALTIME, unmapped) == -EFAULT &&
		 gettimeofday(kernel, NULL) == -EFAULT &&
		 gettimeofday(NULL, unmapped) == -EFAULT &&
		 time(kernel) == -EFAULT &&
		 nanosleep(unmapped, NULL) == -EFAULT;

	return ok;
}

/*
 * clock_getres gives a clock's timer resolution (Linux's hrtimer
 * resolution), the same for every clock of time: a tick where timers end
 * at the tick, as on ccos and on a Linux without high-resolution timers,
 * else 1 ns. The coarse clocks' is the tick on any kernel (HZ 100 to
 * 1000). Before issue 27 ccos said 1 ns, though its timers end at a tick.
 */
static int test_clock_getres_timers(void)
{
	static const int fine[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
				    CLOCK_BOOTTIME, CLOCK_TAI };
	struct timespec tick, res, timers = { 0, 0 };
	size_t i;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &tick) || clock_getres(CLOCK_REALTIME_COARSE, &res) ||
	    res.tv_sec != tick.tv_sec || res.tv_nsec != tick.tv_nsec)
		return ktap_fail("the coarse clocks' resolutions differ");
	if (tick.tv_sec || tick.tv_nsec < 1000000 || tick.tv_nsec > 10000000)
		return ktap_fail("a tick of %ld.%09ld s, not 1 to 10 ms", tick.tv_sec, tick.tv_nsec);
	for (i = 0; i < ARRAY_SIZE(fine); i++) {
		if (clock_getres(fine[i], &res))
			return ktap_fail("clock_getres(%d) failed", fine[i]);
		if (!i)
			timers = res;
		else if (res.tv_sec != timers.tv_sec || res.tv_nsec != timers.tv_nsec)
			return ktap_fail("clock %d: %ld ns, clock %d: %ld ns", fine[0],
					 timers.tv_nsec, fine[i], res.tv_nsec);
	}
	ktap_diag("a tick %ld ns, the timers %ld.%09ld s", tick.tv_nsec, timers.tv_sec,
		  timers.tv_nsec);
	return (!timers.tv_sec && timers.tv_nsec == tick.tv_nsec) ||
	       (!on_ccos() && !timers.tv_sec && timers.tv_nsec == 1) ||
	       ktap_fail("the timers resolve %ld.%09ld s: expected the tick%s", timers.tv_sec,
			 timers.tv_nsec, on_ccos() ? " (ccos's end at a tick)" : " or 1 ns");
}

static const struct test tests[] = {
	{ "10000 rounds: monotonic never goes back, gettimeofday agrees with CLOCK_REALTIME", test_monotonic_and_consistent },
	{ "time() equals tv_sec within one second", test_time_within_a_second },
	{ "nanosleep of 50 ms sleeps at least 50 ms", test_nanosleep_50ms },
	{ "the five clocks answer with a resolution; a bad id is -EINVAL", test_clock_ids },
	{ "a kernel or unmapped pointer gives -EFAULT to every time call", test_bad_pointers },
	{ "MONOTONIC_RAW never goes back, TAI is REALTIME plus whole seconds", test_raw_and_tai },
	{ "clock_getres is the timers' resolution: the tick on ccos, for every clock", test_clock_getres_timers },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
