/* futexclock: futex waits until a CLOCK_REALTIME time follow the clock when it is set, as on Linux (KTAP). */
#include "testutil.h"

/*
 * FUTEX_WAIT_BITSET and WAIT_REQUEUE_PI with FUTEX_CLOCK_REALTIME,
 * FUTEX_LOCK_PI (whose timeout is always such a time), LOCK_PI2 with the
 * flag and futex_waitv on CLOCK_REALTIME wait until the wall clock reads
 * their time: Linux arms an absolute hrtimer on that clock, so setting
 * the clock past the time ends the wait with ETIMEDOUT at once. Each case
 * has a child wait until an hour from now, sets the clock two hours on
 * once the child sleeps, and puts it back after. On a Linux host the
 * cases skip: they would move the host's clock (sysclock's do the same).
 */

#define FUTEX_WAIT_BITSET	9
#define FUTEX_LOCK_PI		6
#define FUTEX_TRYLOCK_PI	8
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_LOCK_PI2		13
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX2_SIZE_U32		2
#define FUTEX_WAITV		(-1)	/* not a futex op: the case of futex_waitv */
#define ETIMEDOUT		110
#define SEC			1000000000L
#define HOUR			(3600 * SEC)

/* The shared page: the lock, the word waited on, and what the child's call answered. */
struct shared {
	volatile unsigned int lock, cond;
	volatile long result;
};

struct waitv {
	unsigned long val, uaddr;
	unsigned int flags, reserved;
};

static long ns_of(const struct timespec *ts)
{
	return ts->tv_sec * SEC + ts->tv_nsec;
}

static long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ns_of(&ts);
}

static struct timespec ts_of(long ns)
{
	return (struct timespec){ ns / SEC, ns % SEC };
}

/* Set the wall clock to real0 + off + the monotonic time since mono0. */
static int set_clock(long real0, long mono0, long off)
{
	struct timespec ts = ts_of(real0 + off + (now_ns() - mono0));

	return expect(syscall2(__NR_clock_settime, CLOCK_REALTIME, (long)&ts), 0, "clock_settime");
}

/* The wait of the case: on the lock for the LOCK_PI ops, else on the condition's word (0). */
static long wait_until(struct shared *s, int op, const struct timespec *at)
{
	struct waitv v = { 0, (unsigned long)&s->cond, FUTEX2_SIZE_U32, 0 };
	int lock = (op & ~FUTEX_CLOCK_REALTIME) == FUTEX_LOCK_PI || (op & ~FUTEX_CLOCK_REALTIME) == FUTEX_LOCK_PI2;

	if (op == FUTEX_WAITV)
		return syscall5(__NR_futex_waitv, (long)&v, 1, 0, (long)at, CLOCK_REALTIME);
	return syscall6(__NR_futex, (long)(lock ? &s->lock : &s->cond), op, 0, (long)at, (long)&s->lock, ~0u);
}

/*
 * The child waits until an hour from now (the lock is the parent's); once
 * it sleeps, the clock goes two hours on: its call answers ETIMEDOUT,
 * well within the 10 s allowed for it here.
 */
static int times_out_when_the_clock_passes(int op)
{
	struct shared *s = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long real0 = realtime_ns(), mono0 = now_ns(), pid, r = 0;
	struct timespec at = ts_of(real0 + HOUR);
	char state;
	int status, ok;

	if (!on_ccos())
		return skip("it would move the host's clock");
	if (IS_ERR_VALUE(s) || syscall6(__NR_futex, (long)&s->lock, FUTEX_TRYLOCK_PI, 0, 0, 0, 0))
		return ktap_fail("mmap or TRYLOCK_PI failed");
	s->result = 1;
	if ((pid = fork()) == 0) {
		s->result = wait_until(s, op, &at);
		exit(0);
	}
	state = state_of(pid, 'S');
	if (state != 'S' || !set_clock(real0, mono0, 2 * HOUR)) {
		kill(pid, SIGKILL), wait4(pid, &status, 0, NULL), set_clock(real0, mono0, 0);
		return state == 'S' ? 0 : ktap_fail("the waiter's state is %c, not S", state ? state : '?');
	}
	while (now_ns() - mono0 < 10 * SEC && (r = wait4(pid, &status, WNOHANG, NULL)) == 0)
		sleep_ns(10 * MSEC);
	if (!r)
		kill(pid, SIGKILL), wait4(pid, &status, 0, NULL);
	ok = set_clock(real0, mono0, 0);
	if (!r)
		return ktap_fail("still waiting 10 s after the clock was set past its time");
	return ok && expect(s->result, -ETIMEDOUT, "the wait, with the clock set past its time");
}

static int test_wait_bitset_realtime(void)
{
	return times_out_when_the_clock_passes(FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME);
}

static int test_lock_pi(void)
{
	return times_out_when_the_clock_passes(FUTEX_LOCK_PI);
}

static int test_lock_pi2_realtime(void)
{
	return times_out_when_the_clock_passes(FUTEX_LOCK_PI2 | FUTEX_CLOCK_REALTIME);
}

static int test_wait_requeue_pi_realtime(void)
{
	return times_out_when_the_clock_passes(FUTEX_WAIT_REQUEUE_PI | FUTEX_CLOCK_REALTIME);
}

static int test_waitv_realtime(void)
{
	return times_out_when_the_clock_passes(FUTEX_WAITV);
}

static const struct test tests[] = {
	{ "wait_bitset_realtime", test_wait_bitset_realtime },
	{ "lock_pi", test_lock_pi },
	{ "lock_pi2_realtime", test_lock_pi2_realtime },
	{ "wait_requeue_pi_realtime", test_wait_requeue_pi_realtime },
	{ "waitv_realtime", test_waitv_realtime },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
