/* timelimits: times at the end of the range, past 2^62 ns and KTIME_MAX, in sleeps and waits, as on Linux (KTAP). */
#include "testutil.h"

/*
 * Linux turns every user time into nanoseconds saturating at KTIME_MAX
 * (2^63 - 1 ns, 9223372036.854775807 s): a relative timeout past it is
 * KTIME_MAX, which no clock reaches; a time short of it is a time like another, though the
 * wall clock be set past 2^62 ns (in 2116). The cases that set the clock
 * skip on a Linux host: they would move the host's clock.
 */

#define SEC			1000000000L
#define LONG_MAX		0x7fffffffffffffffL
#define KTIME_SEC_MAX		9223372036L
#define KTIME_NSEC_REST		854775807L	/* KTIME_MAX's nanoseconds past KTIME_SEC_MAX */
#define TIMER_ABSTIME		1
#define FUTEX_WAIT		0
#define FUTEX_WAIT_BITSET	9
#define FUTEX_CLOCK_REALTIME	256
#define ETIMEDOUT		110
#define ITIMER_REAL		0

struct itimerval {
	struct timeval it_interval, it_value;
};

static long ns_of(const struct timespec *ts)
{
	return ts->tv_sec * SEC + ts->tv_nsec;
}

static struct timespec ts_of(long ns)
{
	return (struct timespec){ ns / SEC, ns % SEC };
}

static long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ns_of(&ts);
}

static void on_alarm(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
}

/* SIGALRM in 50 ms, once, its handler without SA_RESTART: it ends the sleep of the case. */
static void alarm_in_50ms(void)
{
	struct itimerval v = { { 0, 0 }, { 0, 50000 } };

	sigaction(SIGALRM, on_alarm, 0);
	syscall3(__NR_setitimer, ITIMER_REAL, (long)&v, 0);
}

/* ---- the wall clock past 2^62 ns ---- */

/*
 * The child's wait of the case, until 200 ms from now on a wall clock
 * set to 4611686020 s (2^62 ns is 4611686018.427 s): its answer, which
 * the parent reads from the exit code (0 or ETIMEDOUT).
 */
static int wall_wait(int futex)
{
	static unsigned int word;
	struct timespec at = ts_of(realtime_ns() + 200 * MSEC);
	long r;

	if (futex)
		r = syscall6(__NR_futex, (long)&word, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0,
			     (long)&at, 0, ~0u);
	else
		r = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL);
	return -r;
}

/*
 * The wall clock goes to 4611686020 s, past 2^62 ns; a wait until 200 ms
 * later ends then (ccos took a time past 2^62 ns for no timeout: it
 * waited for ever). The child has 10 s; the clock is put back after.
 */
static int wall_wait_past_2116_ends(int futex, long want)
{
	struct timespec set = { 4611686020L, 0 };
	long real0 = realtime_ns(), mono0 = now_ns(), pid, r = 0;
	int status, ok;

	if (!on_ccos())
		return skip("it would move the host's clock");
	if (!expect(syscall2(__NR_clock_settime, CLOCK_REALTIME, (long)&set), 0, "clock_settime(4611686020)"))
		return 0;
	if ((pid = fork()) == 0)
		exit_group(wall_wait(futex));
	while (now_ns() - mono0 < 10 * SEC && (r = wait4(pid, &status, WNOHANG, NULL)) == 0)
		sleep_ns(10 * MSEC);
	if (!r)
		kill(pid, SIGKILL), wait4(pid, &status, 0, NULL);
	set = ts_of(real0 + (now_ns() - mono0));
	ok = expect(syscall2(__NR_clock_settime, CLOCK_REALTIME, (long)&set), 0, "clock_settime(back)");
	if (!r)
		return ktap_fail("still waiting 10 s after the 200 ms it was to wait");
	return ok && expect_exit(status, want, "the wait's answer (its negated errno)");
}

static int test_wall_sleep_past_2116_ends(void)
{
	return wall_wait_past_2116_ends(0, 0);
}

static int test_wall_futex_past_2116_times_out(void)
{
	return wall_wait_past_2116_ends(1, ETIMEDOUT);
}

/* ---- relative timeouts past KTIME_MAX ---- */

/*
 * nanosleep and a relative clock_nanosleep of LONG_MAX s, ended by a
 * signal: the time left is KTIME_MAX less the monotonic time, less than
 * 9223372036 s and more than that less a century (ccos said 18446744073 s,
 * its "never" of 2^64 - 1 ns less the time since the boot).
 */
static int sleep_leaves_ktime_max(int clock)
{
	struct timespec req = { LONG_MAX, 999999999 }, rem = { 0, 0 };
	long r;

	alarm_in_50ms();
	r = clock < 0 ? nanosleep(&req, &rem) : clock_nanosleep(clock, 0, &req, &rem);
	if (!expect(r, -EINTR, "the sleep, ended by SIGALRM"))
		return 0;
	if (rem.tv_sec > KTIME_SEC_MAX || rem.tv_sec < KTIME_SEC_MAX - 100L * 365 * 24 * 3600)
		return ktap_fail("%ld.%09ld s left, not KTIME_MAX less the time since the boot",
				 rem.tv_sec, rem.tv_nsec);
	return 1;
}

static int test_nanosleep_saturates(void)
{
	return sleep_leaves_ktime_max(-1);
}

static int test_clock_nanosleep_saturates(void)
{
	return sleep_leaves_ktime_max(CLOCK_MONOTONIC);
}

/*
 * select with a timeout of 10^12 s (past KTIME_MAX, short of overflow)
 * writes back the timeout less the wait, as Linux reckons it in seconds:
 * 999999999999 s and some. ccos left it as it was.
 */
static int test_select_writes_back_a_long_timeout(void)
{
	struct timeval tv = { 1000000000000L, 0 };
	struct timespec ts = { 1000000000000L, 0 };
	long r;

	alarm_in_50ms();
	r = syscall5(__NR_select, 0, 0, 0, 0, (long)&tv);
	if (!expect(r, -EINTR, "select, ended by SIGALRM"))
		return 0;
	if (tv.tv_sec != 999999999999L || tv.tv_usec < 900000)
		return ktap_fail("select wrote back %ld.%06ld s", tv.tv_sec, tv.tv_usec);
	alarm_in_50ms();
	r = syscall6(__NR_pselect6, 0, 0, 0, 0, (long)&ts, 0);
	if (!expect(r, -EINTR, "pselect6, ended by SIGALRM"))
		return 0;
	if (ts.tv_sec != 999999999999L || ts.tv_nsec < 900000000)
		return ktap_fail("pselect6 wrote back %ld.%09ld s", ts.tv_sec, ts.tv_nsec);
	return 1;
}

static const struct test tests[] = {
	{ "wall_sleep_past_2116_ends", test_wall_sleep_past_2116_ends },
	{ "wall_futex_past_2116_times_out", test_wall_futex_past_2116_times_out },
	{ "nanosleep_saturates", test_nanosleep_saturates },
	{ "clock_nanosleep_saturates", test_clock_nanosleep_saturates },
	{ "select_writes_back_a_long_timeout", test_select_writes_back_a_long_timeout },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
