/* fuzz's time check: the clock and timer calls with times near 2^31, 2^32, 2^62, 2^63 and KTIME_MAX, each answer checked. */
#include "fuzz.h"

/*
 * Every time is drawn from seconds and nanoseconds at the edges (valid or
 * not) and each call's answer checked against Linux's rules: EINVAL for
 * a negative time or nanoseconds out of range, else a time in
 * nanoseconds that saturates at KTIME_MAX: a timer's interval reads back
 * as it was or as KTIME_MAX, no time left exceeds what was asked, a sleep
 * or wait that ends with 0 or ETIMEDOUT lasted its time, and none lasts
 * longer than BOUND_MS, since a timer sends SIGUSR1 (handled, no
 * SA_RESTART) every 2 ms. The wall clock is set to the same times, and
 * after each setting an absolute wait a millisecond later must end (a
 * time past 2^62 ns was no timeout); the round puts the clock back.
 */
#define SEC		1000000000L
#define KTIME_MAX	0x7fffffffffffffffL
#define KTIME_SEC_MAX	9223372036L
#define SETTOD_SEC_MAX	(KTIME_SEC_MAX - 30L * 365 * 24 * 60 * 60)
#define CALLS		16
#define BOUND_MS	2000
#define TIMER_ABSTIME	1
#define SIGEV_SIGNAL	0
#define SIGVTALRM	26
#define SIGPROF		27
#define SIGWINCH	28
#define CLOCK_BOOTTIME	7
#define CLOCK_TAI	11
#define FUTEX_WAIT	0
#define FUTEX_WAIT_BITSET	9
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_PRIVATE_FLAG	128
#define ETIMEDOUT	110
#define L(x)		((long)(x))
#define MAX(a, b)	((a) > (b) ? (a) : (b))

struct sigevent_raw {
	unsigned long value;
	int signo, notify, tid, pad[11];
};

struct itimerval_raw {
	struct timeval interval, value;
};

static const long secs[] = {
	0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, 4611686017, 4611686018,
	4611686019, 4611686020, SETTOD_SEC_MAX - 1, SETTOD_SEC_MAX, KTIME_SEC_MAX - 1,
	KTIME_SEC_MAX, KTIME_SEC_MAX + 1, 18446744073, 1L << 62, KTIME_MAX, -1, -0x80000000L,
	-KTIME_MAX - 1,
};
static const long nsecs[] = { 0, 1, 427387903, 427387904, 854775807, 854775808, 999999999, SEC, -1 };
static const long usecs[] = { 0, 1, 854775, 854776, 999999, 1000000, 2000000, -1 };
static const int clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_TAI, 2 };

static int report_fd, bad;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
}

static struct timespec edge_time(unsigned long r)
{
	return (struct timespec){ secs[r % ARRAY_SIZE(secs)], nsecs[(r >> 8) % ARRAY_SIZE(nsecs)] };
}

static int valid(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < SEC;
}

/* A valid time in ns as Linux takes it: KTIME_MAX from KTIME_SEC_MAX s on. */
static long to_ns(const struct timespec *ts)
{
	return ts->tv_sec >= KTIME_SEC_MAX ? KTIME_MAX : ts->tv_sec * SEC + ts->tv_nsec;
}

static long clock_ns(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return to_ns(&ts);
}

static int fail(const char *what, const struct timespec *ts, const char *why, long got)
{
	bad += report(report_fd, "%s(%ld.%09ld s): %s (%ld)", what, ts->tv_sec, ts->tv_nsec, why, got);
	return 0;
}

/* The answer of a sleep or wait of ts: EINVAL exactly when ts is invalid, else one of ok and ok2. */
static int answer(const char *what, const struct timespec *ts, long r, long ok, long ok2)
{
	if (!valid(ts))
		return r == -EINVAL || fail(what, ts, "not EINVAL for an invalid time", r);
	return r == ok || r == ok2 || fail(what, ts, "an answer neither the time's nor EINTR", r);
}

/* A sleep of ts that ended (0) at least lasted ts; one ended by a signal has 0 < rem <= ts left. */
static void check_sleep(const char *what, const struct timespec *ts, long r, long t0,
			const struct timespec *rem)
{
	if (r == 0 && now_ns() - t0 < to_ns(ts))
		fail(what, ts, "ended before its time, after ns", now_ns() - t0);
	if (r == -EINTR && rem && (!valid(rem) || to_ns(rem) > to_ns(ts) || !to_ns(rem)))
		fail(what, ts, "EINTR with this much left, in s", rem->tv_sec);
}

static void sleeps(unsigned long r, const struct timespec *ts)
{
	struct timespec rem = { -1, -1 };
	int clock = clocks[(r >> 16) % ARRAY_SIZE(clocks)], abs = r >> 20 & 1;
	long t0 = now_ns(), res;

	if (r >> 21 & 1) {
		res = nanosleep(ts, &rem);
		if (answer("nanosleep", ts, res, 0, -EINTR))
			check_sleep("nanosleep", ts, res, t0, &rem);
		return;
	}
	res = clock_nanosleep(clock, abs ? TIMER_ABSTIME : 0, ts, &rem);
	if (!answer("clock_nanosleep", ts, res, 0, -EINTR) || clock == 2)
		return;
	if (!abs)
		check_sleep("clock_nanosleep", ts, res, t0, &rem);
	else if (res == 0 && clock_ns(clock) < to_ns(ts))
		fail("clock_nanosleep(TIMER_ABSTIME)", ts, "ended before its time, on clock", clock);
}

/*
 * timer_settime's interval reads back as it was, or as KTIME_MAX (checked
 * for an armed timer: Linux leaves the interval alone when it disarms);
 * a relative timer has no more left than its value or its interval.
 */
static void posix_timer(unsigned long r, const struct timespec *ts)
{
	struct sigevent_raw ev = { .signo = SIGUSR2, .notify = SIGEV_SIGNAL };
	struct timespec its[2] = { *ts, edge_time(r >> 24) }, cur[2];
	long want = valid(&its[0]) ? to_ns(&its[0]) : 0, res;
	int id, abs = r >> 20 & 1;

	if (syscall3(__NR_timer_create, r >> 21 & 1 ? CLOCK_REALTIME : CLOCK_MONOTONIC, L(&ev), L(&id)))
		return;
	res = syscall4(__NR_timer_settime, id, abs ? TIMER_ABSTIME : 0, L(its), 0);
	if ((!valid(&its[0]) || !valid(&its[1])) != (res == -EINVAL) || (res && res != -EINVAL))
		fail("timer_settime", ts, "EINVAL unless both times are valid, else 0: got", res);
	else if (!res && (its[1].tv_sec || its[1].tv_nsec) && !syscall2(__NR_timer_gettime, id, L(cur))) {
		if (to_ns(&cur[0]) != want || cur[0].tv_sec > KTIME_SEC_MAX)
			fail("timer_settime", ts, "its interval reads back in s as", cur[0].tv_sec);
		if (!valid(&cur[1]) || (!abs && to_ns(&cur[1]) > MAX(to_ns(&its[1]), want)))
			fail("timer_settime", &its[1], "more left than set, in s", cur[1].tv_sec);
	}
	syscall1(__NR_timer_delete, id);
}

/* setitimer: an armed timer's interval reads back as it was, or as KTIME_MAX in microseconds. */
static void itimer(unsigned long r, const struct timespec *ts)
{
	struct itimerval_raw v = { { ts->tv_sec, usecs[(r >> 16) % ARRAY_SIZE(usecs)] },
				   { secs[(r >> 24) % ARRAY_SIZE(secs)], usecs[(r >> 32) % ARRAY_SIZE(usecs)] } },
			     got, off = { { 0, 0 }, { 0, 0 } };
	int which = (r >> 40) % 3, ok_in = v.interval.tv_sec >= 0 && v.interval.tv_usec >= 0 &&
		    v.interval.tv_usec < 1000000, ok_val = v.value.tv_sec >= 0 && v.value.tv_usec >= 0 &&
		    v.value.tv_usec < 1000000;
	long res = syscall3(__NR_setitimer, which, L(&v), 0);

	if ((ok_in && ok_val) != !res || (res && res != -EINVAL)) {
		fail("setitimer", ts, "EINVAL unless both times are valid, else 0: got", res);
		return;
	}
	if (!res && (v.value.tv_sec || v.value.tv_usec) && !syscall2(__NR_getitimer, which, L(&got)) &&
	    (v.interval.tv_sec >= KTIME_SEC_MAX ?
	     got.interval.tv_sec != KTIME_SEC_MAX || got.interval.tv_usec != 854775 :
	     got.interval.tv_sec != v.interval.tv_sec || got.interval.tv_usec != v.interval.tv_usec))
		fail("setitimer", ts, "its interval reads back in s as", got.interval.tv_sec);
	syscall3(__NR_setitimer, which, L(&off), 0);
}

/* The waits with a timeout: futex, ppoll, pselect6 (whose time left is at most what was asked), rt_sigtimedwait. */
static void waits(unsigned long r, const struct timespec *ts)
{
	static const int ops[] = { FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME };
	static unsigned int word;
	struct timespec left = *ts;
	sigset_t winch = 1ul << (SIGWINCH - 1);
	long t0 = now_ns(), res;
	int op = ops[(r >> 16) % ARRAY_SIZE(ops)];

	switch (r >> 20 & 3) {
	case 0:
		res = syscall6(__NR_futex, L(&word), op | FUTEX_PRIVATE_FLAG, 0, L(ts), 0, ~0u);
		if (!answer("futex", ts, res, -ETIMEDOUT, -EINTR) || res != -ETIMEDOUT)
			break;
		if (op == FUTEX_WAIT ? now_ns() - t0 < to_ns(ts) :
		    clock_ns(op == FUTEX_WAIT_BITSET ? CLOCK_MONOTONIC : CLOCK_REALTIME) < to_ns(ts))
			fail("futex", ts, "timed out before its time, op", op);
		break;
	case 1:
		res = syscall5(__NR_ppoll, 0, 0, L(&left), 0, 8);
		if (answer("ppoll", ts, res, 0, -EINTR))
			check_sleep("ppoll", ts, res, t0, NULL);
		break;
	case 2:
		res = syscall6(__NR_pselect6, 0, 0, 0, 0, L(&left), 0);
		if (answer("pselect6", ts, res, 0, -EINTR) && valid(ts) &&
		    (!valid(&left) || left.tv_sec > ts->tv_sec ||
		     (left.tv_sec == ts->tv_sec && left.tv_nsec > ts->tv_nsec)))
			fail("pselect6", ts, "wrote back more than asked, in s", left.tv_sec);
		break;
	default:
		res = syscall4(__NR_rt_sigtimedwait, L(&winch), 0, L(ts), 8);
		answer("rt_sigtimedwait", ts, res, -EAGAIN, -EINTR);
	}
}

/*
 * clock_settime: 0 for a time that is valid, short of SETTOD_SEC_MAX and
 * after the boot (then the clock reads it), EINVAL for one that is none
 * of these. A wait until a millisecond later ends within BOUND_MS.
 */
static void set_clock(const struct timespec *ts)
{
	static unsigned int word;
	long res = syscall2(__NR_clock_settime, CLOCK_REALTIME, L(ts)), now = clock_ns(CLOCK_REALTIME), t0;
	int settable = valid(ts) && ts->tv_sec < SETTOD_SEC_MAX, after_boot = ts->tv_sec > now_ns() / SEC + 2;
	struct timespec at;

	if (res && res != -EINVAL)
		fail("clock_settime", ts, "neither 0 nor EINVAL", res);
	else if (res == -EINVAL && settable && after_boot)
		fail("clock_settime", ts, "EINVAL for a time it can keep", res);
	else if (!res && (!settable || now < to_ns(ts) || now - to_ns(ts) > BOUND_MS * MSEC))
		fail("clock_settime", ts, "took it, and the clock reads in s", now / SEC);
	if (res)
		return;
	at = (struct timespec){ (now + MSEC) / SEC, (now + MSEC) % SEC };
	for (t0 = now_ns(); now_ns() - t0 < BOUND_MS * MSEC;)
		if (!clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL))
			break;
	for (res = -EINTR; res == -EINTR && now_ns() - t0 < BOUND_MS * MSEC;)
		res = syscall6(__NR_futex, L(&word), FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0, L(&at), 0, ~0u);
	if (now_ns() - t0 >= BOUND_MS * MSEC)
		fail("clock_settime", ts, "then a wait 1 ms on did not end, futex", res);
}

int check_time_values(int fd)
{
	struct sigevent_raw ev = { .signo = SIGUSR1, .notify = SIGEV_SIGNAL };
	struct timespec tick[2] = { { 0, 2 * MSEC }, { 0, 2 * MSEC } }, ts;
	static const int handled[] = { SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF };
	long real0 = clock_ns(CLOCK_REALTIME), mono0 = now_ns(), t0;
	int i, id;

	report_fd = fd;
	for (i = 0; i < (int)ARRAY_SIZE(handled); i++)
		sigaction(handled[i], on_signal, 0);
	if (syscall3(__NR_timer_create, CLOCK_MONOTONIC, L(&ev), L(&id)) ||
	    syscall4(__NR_timer_settime, id, 0, L(tick), 0))
		return report(fd, "no timer to end the waits");
	for (i = 0; i < CALLS && bad < 8; i++) {
		unsigned long r = next_random();

		ts = edge_time(next_random());
		t0 = now_ns();
		switch (r % 6) {
		case 0: case 1: sleeps(r, &ts); break;
		case 2: posix_timer(r, &ts); break;
		case 3: itimer(r, &ts); break;
		case 4: waits(r, &ts); break;
		default: set_clock(&ts);
		}
		if (now_ns() - t0 > BOUND_MS * MSEC)
			fail("a call", &ts, "took ms", (now_ns() - t0) / MSEC);
	}
	ts = (struct timespec){ (real0 + now_ns() - mono0) / SEC, (real0 + now_ns() - mono0) % SEC };
	syscall2(__NR_clock_settime, CLOCK_REALTIME, L(&ts));
	return bad;
}
