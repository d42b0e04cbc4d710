/* muslfutexv: futex_waitv (449), waiting on several futexes at once, with Linux's answers and errors. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/time.h>
#include "ktap.h"
#include "threadutil.h"

/* linux/futex.h, which musl does not ship. */
#define SYS_futex_waitv		449
#define FUTEX_WAKE		1
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX2_SIZE_U8		0x00
#define FUTEX2_SIZE_U32		0x02
#define FUTEX2_PRIVATE		FUTEX_PRIVATE_FLAG
#define FUTEX_WAITV_MAX		128
#define KERNEL_ADDR		0xffffffff80000000ul
#define MSEC			1000000ll

struct futex_waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

static long waitv(struct futex_waitv *w, unsigned int n, unsigned int flags,
		  const struct timespec *timeout, int clock)
{
	long r = syscall(SYS_futex_waitv, w, n, flags, timeout, clock);

	return r < 0 ? -errno : r;
}

static long wake(uint32_t *f, int private)
{
	return syscall(SYS_futex, f, FUTEX_WAKE | (private ? FUTEX_PRIVATE_FLAG : 0), 1, NULL, NULL, 0);
}

static uint32_t words[FUTEX_WAITV_MAX + 1];
static struct futex_waitv vec[FUTEX_WAITV_MAX + 1];

/* vec[0..n) on words[0..n), each holding 0, private unless shared. */
static void fill(unsigned int n, int shared)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		words[i] = 0;
		vec[i] = (struct futex_waitv){ 0, (uintptr_t)&words[i],
					       FUTEX2_SIZE_U32 | (shared ? 0 : FUTEX2_PRIVATE), 0 };
	}
}

static struct timespec in_ms(int clock, long ms)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ts.tv_nsec += ms * MSEC;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return ts;
}

#define EXPECT(call, want, what)						\
	do {									\
		long r_ = (call);						\
		if (r_ != (want))						\
			return ktap_fail("%s: %ld, expected %ld", what, r_, (long)(want)); \
	} while (0)

static int test_errors(void)
{
	struct timespec past = { 0, 0 }, bad = { 0, 1000000000 };
	void *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(unmapped, 4096);
	fill(2, 0);
	EXPECT(waitv(vec, 2, 1, NULL, 0), -EINVAL, "flags 1");
	EXPECT(waitv(vec, 0, 0, NULL, 0), -EINVAL, "no waiter");
	EXPECT(waitv(vec, FUTEX_WAITV_MAX + 1, 0, NULL, 0), -EINVAL, "129 waiters");
	EXPECT(waitv(NULL, 1, 0, NULL, 0), -EINVAL, "NULL waiters");
	EXPECT(waitv(vec, 1, 0, &past, CLOCK_BOOTTIME), -EINVAL, "a timeout on CLOCK_BOOTTIME");
	EXPECT(waitv(vec, 1, 0, (void *)KERNEL_ADDR, CLOCK_MONOTONIC), -EFAULT, "a kernel timeout");
	EXPECT(waitv(vec, 1, 0, &bad, CLOCK_MONOTONIC), -EINVAL, "tv_nsec 1e9");
	EXPECT(waitv(unmapped, 1, 0, NULL, 0), -EFAULT, "unmapped waiters");
	vec[1].flags = FUTEX2_SIZE_U8 | FUTEX2_PRIVATE;
	EXPECT(waitv(vec, 2, 0, NULL, 0), -EINVAL, "an 8-bit futex");
	vec[1].flags = FUTEX2_SIZE_U32 | 0x40;
	EXPECT(waitv(vec, 2, 0, NULL, 0), -EINVAL, "an unknown flag");
	fill(2, 0);
	vec[1].reserved = 1;
	EXPECT(waitv(vec, 2, 0, NULL, 0), -EINVAL, "__reserved 1");
	fill(2, 0);
	vec[1].val = 1ull << 32;
	EXPECT(waitv(vec, 2, 0, NULL, 0), -EINVAL, "a value over 32 bits");
	fill(2, 0);
	vec[1].uaddr += 1;
	EXPECT(waitv(vec, 2, 0, NULL, 0), -EINVAL, "a misaligned futex");
	fill(2, 0);
	vec[1].uaddr = KERNEL_ADDR;
	EXPECT(waitv(vec, 2, 0, NULL, 0), -EFAULT, "a kernel futex");
	vec[1].uaddr = (uintptr_t)unmapped;
	EXPECT(waitv(vec, 2, 0, NULL, 0), -EFAULT, "an unmapped futex");
	fill(2, 0);
	words[1] = 7;
	EXPECT(waitv(vec, 2, 0, &past, CLOCK_MONOTONIC), -EAGAIN, "a word changed (before the timeout)");
	words[1] = 0;
	EXPECT(waitv(vec, 2, 0, &past, CLOCK_MONOTONIC), -ETIMEDOUT, "a timeout long past");
	return 1;
}

/* An absolute timeout on either clock: ETIMEDOUT, not before its time. */
static int test_timeouts(void)
{
	static const int clocks[] = { CLOCK_MONOTONIC, CLOCK_REALTIME };
	unsigned int i;

	fill(3, 0);
	for (i = 0; i < 2; i++) {
		struct timespec at = in_ms(clocks[i], 20), now;

		EXPECT(waitv(vec, 3, 0, &at, clocks[i]), -ETIMEDOUT, "a 20 ms timeout");
		clock_gettime(clocks[i], &now);
		if (now.tv_sec < at.tv_sec || (now.tv_sec == at.tv_sec && now.tv_nsec < at.tv_nsec))
			return ktap_fail("clock %d: woke before the timeout", clocks[i]);
	}
	return 1;
}

static volatile long result;

static void *waiter(void *arg)
{
	unsigned int n = (uintptr_t)arg;

	result = waitv(vec, n, 0, NULL, 0);
	return NULL;
}

/* A thread waits on vec[0..n); wake futex i until a waiter was there to wake: what waitv answered. */
static long wake_waiter(unsigned int n, unsigned int i, int private)
{
	pthread_t t;

	result = -1000;
	pthread_create(&t, NULL, waiter, (void *)(uintptr_t)n);
	while (result == -1000 && wake(&words[i], private) != 1)
		sched_yield();
	pthread_join(t, NULL);
	return result;
}

/* A thread waits on 128 futexes; a wake of any one ends it with that one's index. */
static int test_wake_returns_index(void)
{
	static const unsigned int which[] = { 0, 5, 127 };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		fill(FUTEX_WAITV_MAX, 0);
		EXPECT(wake_waiter(FUTEX_WAITV_MAX, which[i], 1), which[i], "the index woken");
	}
	return 1;
}

/* Private waiters meet private wakes, shared ones shared wakes, as futex's. */
static int test_private_and_shared(void)
{
	struct timespec at;

	fill(2, 1);
	EXPECT(wake_waiter(2, 1, 0), 1, "a shared waiter, a shared wake");
	fill(2, 0);
	vec[1].flags &= ~FUTEX2_PRIVATE;
	EXPECT(wake_waiter(2, 0, 1), 0, "a private waiter, a private wake");
	fill(1, 1);
	at = in_ms(CLOCK_MONOTONIC, 20);
	EXPECT(wake(&words[0], 1), 0, "a private wake with no private waiter");
	EXPECT(waitv(vec, 1, 0, &at, CLOCK_MONOTONIC), -ETIMEDOUT, "a shared waiter alone");
	return 1;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal with a handler (no SA_RESTART) ends the wait: EINTR. */
static int test_eintr(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };

	sigaction(SIGALRM, &sa, NULL);
	fill(2, 0);
	setitimer(ITIMER_REAL, &it, NULL);
	EXPECT(waitv(vec, 2, 0, NULL, 0), -EINTR, "a signal");
	return 1;
}

static const struct test tests[] = {
	{ "futex_waitv_errors", test_errors },
	{ "futex_waitv_timeouts", test_timeouts },
	{ "futex_waitv_wake_returns_index", test_wake_returns_index },
	{ "futex_waitv_private_and_shared", test_private_and_shared },
	{ "futex_waitv_eintr", test_eintr },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
