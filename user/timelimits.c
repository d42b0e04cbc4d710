/* timelimits: times at the end of the range, past 2^62 ns and KTIME_MAX, in sleeps, waits and timers, as on Linux (KTAP). */
#include "testutil.h"

/*
 * Linux turns every user time into nanoseconds saturating at KTIME_MAX
 * (2^63 - 1 ns, 9223372036.854775807 s): a relative timeout, a timer's
 * value or interval past it is KTIME_MAX, which no clock reaches, and
 * reads back so; a time short of it is a time like another, though the
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
#define SIGEV_SIGNAL		0
#define ITIMER_REAL		0
#define ITIMER_PROF		2

struct sigevent_raw {
	unsigned long value;
	int signo, notify, tid, pad[11];
};

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
 * 999999999999 s and some. ccos left it as it was. What it took off is
 * the wait, at most the time measured around the call (a loaded host's
 * wait is longer than the alarm's 50 ms), and some of it.
 */
static int check_taken_off(long sec, long nsec, long waited, const char *call)
{
	long taken = (1000000000000L - sec) * SEC - nsec;

	if (taken < MSEC || taken > waited + MSEC)
		return ktap_fail("%s wrote back %ld.%09ld s after a wait of %ld ns", call, sec, nsec, waited);
	return 1;
}

static int test_select_writes_back_a_long_timeout(void)
{
	struct timeval tv = { 1000000000000L, 0 };
	struct timespec ts = { 1000000000000L, 0 };
	long r, t0;

	alarm_in_50ms();
	t0 = now_ns();
	r = syscall5(__NR_select, 0, 0, 0, 0, (long)&tv);
	if (!expect(r, -EINTR, "select, ended by SIGALRM") ||
	    !check_taken_off(tv.tv_sec, tv.tv_usec * 1000, now_ns() - t0, "select"))
		return 0;
	alarm_in_50ms();
	t0 = now_ns();
	r = syscall6(__NR_pselect6, 0, 0, 0, 0, (long)&ts, 0);
	return expect(r, -EINTR, "pselect6, ended by SIGALRM") &&
	       check_taken_off(ts.tv_sec, ts.tv_nsec, now_ns() - t0, "pselect6");
}

/* ---- timers past KTIME_MAX ---- */

static int sigalrm_pending(void)
{
	sigset_t set = 0;

	syscall2(__NR_rt_sigpending, (long)&set, sizeof(set));
	return set >> (SIGALRM - 1) & 1;
}

/*
 * timer_settime: an interval of 18446744073.709551617 s (2^64 + 1 ns,
 * which ccos's unchecked product made 1 ns) reads back as KTIME_MAX, and
 * after the first expiry (1 ms) the next is KTIME_MAX away; a relative
 * value of LONG_MAX s is KTIME_MAX less now away and has not fired.
 */
static int test_timer_values_saturate(void)
{
	struct sigevent_raw ev = { .signo = SIGALRM, .notify = SIGEV_SIGNAL };
	struct timespec its[2] = { { 18446744073L, 709551617L }, { 0, MSEC } }, cur[2];
	sigset_t alrm = 1ul << (SIGALRM - 1);
	long deadline = now_ns() + 10 * SEC;
	int id;

	rt_sigprocmask(SIG_BLOCK, &alrm, NULL, sizeof(alrm));
	if (!expect(syscall3(__NR_timer_create, CLOCK_MONOTONIC, (long)&ev, (long)&id), 0, "timer_create") ||
	    !expect(syscall4(__NR_timer_settime, id, 0, (long)its, 0), 0, "timer_settime") ||
	    !expect(syscall2(__NR_timer_gettime, id, (long)cur), 0, "timer_gettime"))
		return 0;
	if (cur[0].tv_sec != KTIME_SEC_MAX || cur[0].tv_nsec != KTIME_NSEC_REST)
		return ktap_fail("the interval reads %ld.%09ld s, not KTIME_MAX", cur[0].tv_sec, cur[0].tv_nsec);
	while (!sigalrm_pending() && now_ns() < deadline)
		sleep_ns(MSEC);
	syscall2(__NR_timer_gettime, id, (long)cur);
	if (!sigalrm_pending() || cur[1].tv_sec < KTIME_SEC_MAX - 100L * 365 * 24 * 3600)
		return ktap_fail("after the first expiry (SIGALRM %s) the next is %ld.%09ld s away",
				 sigalrm_pending() ? "pending" : "never came", cur[1].tv_sec, cur[1].tv_nsec);
	syscall2(__NR_timer_delete, id, 0);
	its[0] = (struct timespec){ 0, 0 };
	its[1] = (struct timespec){ LONG_MAX, 0 };
	syscall3(__NR_timer_create, CLOCK_MONOTONIC, (long)&ev, (long)&id);
	syscall4(__NR_timer_settime, id, 0, (long)its, 0);
	syscall2(__NR_timer_gettime, id, (long)cur);
	if (cur[1].tv_sec > KTIME_SEC_MAX || cur[1].tv_sec < KTIME_SEC_MAX - 100L * 365 * 24 * 3600)
		return ktap_fail("a value of LONG_MAX s has %ld.%09ld s left", cur[1].tv_sec, cur[1].tv_nsec);
	return 1;
}

/*
 * setitimer, ITIMER_REAL and ITIMER_PROF: an interval of LONG_MAX s reads
 * back as KTIME_MAX, in microseconds as Linux truncates it (9223372036.854775
 * s); ITIMER_REAL's value of LONG_MAX s as KTIME_MAX less the monotonic
 * time (ITIMER_PROF's is not looked at: Linux adds the CPU time to
 * KTIME_MAX unchecked, and reads back a negative time); nothing fires
 * (ccos's product of LONG_MAX s wrapped, and the timer fired at once).
 */
static int test_setitimer_saturates(void)
{
	struct itimerval v = { { LONG_MAX, 999999 }, { LONG_MAX, 0 } }, got;
	int which, ok = 1;

	for (which = ITIMER_REAL; which <= ITIMER_PROF && ok; which += ITIMER_PROF) {
		if (!expect(syscall3(__NR_setitimer, which, (long)&v, 0), 0, "setitimer") ||
		    !expect(syscall2(__NR_getitimer, which, (long)&got), 0, "getitimer"))
			return 0;
		if (got.it_interval.tv_sec != KTIME_SEC_MAX || got.it_interval.tv_usec != KTIME_NSEC_REST / 1000)
			ok = ktap_fail("timer %d: the interval reads %ld.%06ld s", which,
				       got.it_interval.tv_sec, got.it_interval.tv_usec);
		else if (which == ITIMER_REAL && (got.it_value.tv_sec > KTIME_SEC_MAX ||
			 got.it_value.tv_sec < KTIME_SEC_MAX - 100L * 365 * 24 * 3600))
			ok = ktap_fail("timer %d: the value reads %ld.%06ld s", which,
				       got.it_value.tv_sec, got.it_value.tv_usec);
	}
	return ok && expect(sigalrm_pending(), 0, "SIGALRM pending");
}

static const struct test tests[] = {
	{ "wall_sleep_past_2116_ends", test_wall_sleep_past_2116_ends },
	{ "wall_futex_past_2116_times_out", test_wall_futex_past_2116_times_out },
	{ "nanosleep_saturates", test_nanosleep_saturates },
	{ "clock_nanosleep_saturates", test_clock_nanosleep_saturates },
	{ "select_writes_back_a_long_timeout", test_select_writes_back_a_long_timeout },
	{ "timer_values_saturate", test_timer_values_saturate },
	{ "setitimer_saturates", test_setitimer_saturates },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
