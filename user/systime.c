/* systime: nanosleep, clock_nanosleep, the monotonic and the wall clocks, as on Linux. */
#include "testutil.h"

/* ---- time ---- */

static int test_nanosleep(void)
{
	struct timespec bad = { 0, 1000000000L };
	long start = now_ns(), slept;

	if (!expect(sleep_ns(10 * MSEC), 0, "nanosleep"))
		return 0;
	slept = now_ns() - start;
	if (slept < 10 * MSEC)
		return ktap_fail("slept %ld ns, wanted 10 ms", slept);
	return expect(nanosleep(&bad, NULL), -EINVAL, "nanosleep(1e9 ns)");
}

static int test_clock_nanosleep(void)
{
	struct timespec rel = { 0, 10 * MSEC }, abs;
	long start = now_ns(), target;

	if (!expect(clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL), 0,
		    "clock_nanosleep(relative)"))
		return 0;
	if (now_ns() - start < 10 * MSEC)
		return ktap_fail("relative sleep was %ld ns", now_ns() - start);
	target = now_ns() + 10 * MSEC;
	abs.tv_sec = target / 1000000000L;
	abs.tv_nsec = target % 1000000000L;
	if (!expect(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs,
				    NULL), 0, "clock_nanosleep(TIMER_ABSTIME)"))
		return 0;
	return now_ns() >= target || ktap_fail("woke before the deadline");
}

static int test_clock_gettime(void)
{
	struct timespec res;
	long prev = now_ns(), t;
	int i;

	for (i = 0; i < 1000; i++, prev = t)
		if ((t = now_ns()) < prev)
			return ktap_fail("CLOCK_MONOTONIC went back %ld ns",
					 prev - t);
	if (!expect(clock_getres(CLOCK_MONOTONIC, &res), 0, "clock_getres"))
		return 0;
	if (res.tv_sec || res.tv_nsec <= 0 || res.tv_nsec > 10 * MSEC)
		return ktap_fail("resolution %ld.%09ld s", res.tv_sec,
				 res.tv_nsec);
	return expect(clock_gettime(1000, &res), -EINVAL, "clock_gettime(1000)");
}

static int test_wall_clocks(void)
{
	struct timeval tv;
	struct timezone tz;
	struct timespec ts;
	long t, t2;

	if (!expect(gettimeofday(&tv, &tz), 0, "gettimeofday") ||
	    !expect(clock_gettime(CLOCK_REALTIME, &ts), 0, "CLOCK_REALTIME"))
		return 0;
	t = time(&t2);
	if (t != t2 || tv.tv_usec < 0 || tv.tv_usec >= 1000000)
		return ktap_fail("time %ld/%ld, tv_usec %ld", t, t2, tv.tv_usec);
	if (t < 1577836800L)	/* 2020-01-01 */
		return ktap_fail("time() is %ld, before 2020", t);
	/*
	 * time() is the coarse clock, as on Linux: it may lag the fine
	 * clocks read just before it by a tick, so by one second at most.
	 */
	if (t - tv.tv_sec > 2 || t - ts.tv_sec > 2 || tv.tv_sec > t + 1 ||
	    ts.tv_sec > t + 1)
		return ktap_fail("time %ld, gettimeofday %ld, realtime %ld",
				 t, tv.tv_sec, ts.tv_sec);
	return 1;
}


/* ---- the table ---- */

static const struct test tests[] = {
	{ "nanosleep_10ms", test_nanosleep },
	{ "clock_nanosleep", test_clock_nanosleep },
	{ "clock_gettime_getres", test_clock_gettime },
	{ "wall_clocks_agree", test_wall_clocks },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
