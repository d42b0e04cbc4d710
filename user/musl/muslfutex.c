/* muslfutex: the futex system call's edge cases, and a storm of threads and forks that must leak nothing. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ktap.h"
#include "threadutil.h"

/*
 * The same binary runs on ccos and on Linux, and Linux's answers are the
 * expectations. futex is called directly (musl has no wrapper); threads
 * come from musl's pthread_create.
 */

#define KERNEL_ADDR	((uint32_t *)0xffffffff80000000ul)

/* Linux's futex operations (linux/futex.h, which musl does not ship). */
#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_CMP_REQUEUE	4
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAKE_BITSET	10
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_WAIT_PRIVATE	(FUTEX_WAIT | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_PRIVATE	(FUTEX_WAKE | FUTEX_PRIVATE_FLAG)
#define FUTEX_CMP_REQUEUE_PRIVATE (FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAIT_BITSET_PRIVATE (FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_BITSET_PRIVATE (FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG)
#define FUTEX_BITSET_MATCH_ANY	0xffffffffu

static long futex(void *uaddr, int op, uint32_t val, const void *timeout, void *uaddr2,
		  uint32_t val3)
{
	long r = syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3);

	return r < 0 ? -errno : r;
}

static int expect(long got, long want, const char *what)
{
	if (got == want)
		return 1;
	return ktap_fail("%s returned %ld, not %ld", what, got, want);
}

/* The word is not what the caller saw: EAGAIN at once. Bad addresses: EFAULT, EINVAL. */
static int test_wait_errors(void)
{
	static uint32_t word[2] = { 1, 0 };
	struct timespec bad = { 0, 1000000000 };

	return expect(futex(word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0), -EAGAIN,
		      "FUTEX_WAIT on 1 expecting 2") &&
	       expect(futex(NULL, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0), -EFAULT,
		      "FUTEX_WAIT on NULL") &&
	       expect(futex(KERNEL_ADDR, FUTEX_WAIT, 0, NULL, NULL, 0), -EFAULT,
		      "FUTEX_WAIT on a kernel address") &&
	       expect(futex((char *)word + 1, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0), -EINVAL,
		      "FUTEX_WAIT on a misaligned word") &&
	       expect(futex(word, FUTEX_WAIT_PRIVATE, 1, &bad, NULL, 0), -EINVAL,
		      "FUTEX_WAIT with tv_nsec 1000000000") &&
	       expect(futex(word, FUTEX_WAIT_PRIVATE, 1, (void *)8, NULL, 0), -EFAULT,
		      "FUTEX_WAIT with a bad timeout pointer") &&
	       expect(futex(word, FUTEX_WAIT_BITSET_PRIVATE, 1, NULL, NULL, 0), -EINVAL,
		      "FUTEX_WAIT_BITSET with bitset 0") &&
	       expect(futex(word, 99, 0, NULL, NULL, 0), -ENOSYS, "futex op 99") &&
	       expect(futex(word, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0), -ENOSYS,
		      "FUTEX_WAKE with FUTEX_CLOCK_REALTIME");
}

/* Wakes: none waiting is 0; a shared futex needs mapped memory, a private one does not. */
static int test_wake_errors(void)
{
	static uint32_t word;
	void *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(gone, 4096);
	return expect(futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0,
		      "FUTEX_WAKE with nobody waiting") &&
	       expect(futex(&word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0), 0,
		      "shared FUTEX_WAKE with nobody waiting") &&
	       expect(futex(gone, FUTEX_WAKE, 1, NULL, NULL, 0), -EFAULT,
		      "shared FUTEX_WAKE on unmapped memory") &&
	       expect(futex(gone, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0,
		      "private FUTEX_WAKE on unmapped memory") &&
	       expect(futex(KERNEL_ADDR, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), -EFAULT,
		      "FUTEX_WAKE on a kernel address");
}

/* Timeouts: FUTEX_WAIT's is relative, FUTEX_WAIT_BITSET's absolute (monotonic or realtime). */
static int test_timeouts(void)
{
	static uint32_t word;
	struct timespec rel = { 0, 40 * 1000000 }, t0, abs, past = { 1, 0 };
	long r, ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = futex(&word, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0);
	ms = elapsed_ms(&t0);
	if (r != -ETIMEDOUT || ms < 35 || ms > 2000)
		return ktap_fail("FUTEX_WAIT 40 ms: %ld after %ld ms", r, ms);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	abs = t0;
	abs.tv_nsec += 40 * 1000000;
	if (abs.tv_nsec >= 1000000000) {
		abs.tv_sec++;
		abs.tv_nsec -= 1000000000;
	}
	r = futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 0, &abs, NULL, FUTEX_BITSET_MATCH_ANY);
	ms = elapsed_ms(&t0);
	if (r != -ETIMEDOUT || ms < 35 || ms > 2000)
		return ktap_fail("FUTEX_WAIT_BITSET until now + 40 ms: %ld after %ld ms", r, ms);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = futex(&word, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 0, &past, NULL,
		  FUTEX_BITSET_MATCH_ANY);
	ms = elapsed_ms(&t0);
	if (r != -ETIMEDOUT || ms > 500)
		return ktap_fail("FUTEX_WAIT_BITSET until 1970 (realtime): %ld after %ld ms", r, ms);
	rel.tv_nsec = 0;
	return expect(futex(&word, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0), -ETIMEDOUT,
		      "FUTEX_WAIT with a zero timeout");
}

/* ---- waiters in threads ---- */

static uint32_t word_a, word_b;
static volatile int started;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

struct wait_args {
	uint32_t *word;
	int op;
	uint32_t bitset;
	long result;
	volatile long tid;
};

static void *waiter(void *arg)
{
	struct wait_args *w = arg;

	w->tid = gettid_();
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	w->result = futex(w->word, w->op, 0, NULL, NULL, w->bitset);
	return NULL;
}

/* Start n waiters and wait until each sleeps in the kernel (its futex wait). */
static void start_waiters(pthread_t *t, struct wait_args *w, int n)
{
	int i;

	started = 0;
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, waiter, &w[i]);
	while (started < n)
		sched_yield();
	for (i = 0; i < n; i++)
		if (!wait_until_sleeping(w[i].tid))
			ktap_diag("waiter %ld is not asleep after 20 s", w[i].tid);
}

/* FUTEX_WAKE wakes as many as asked and says how many it woke; each waiter returns 0. */
static int test_wake_count(void)
{
	pthread_t t[3];
	struct wait_args w[3];
	int i;

	for (i = 0; i < 3; i++)
		w[i] = (struct wait_args){ &word_a, FUTEX_WAIT_PRIVATE, 0, -1 };
	start_waiters(t, w, 3);
	if (!expect(futex(&word_a, FUTEX_WAKE_PRIVATE, 2, NULL, NULL, 0), 2, "FUTEX_WAKE 2 of 3") ||
	    !expect(futex(&word_a, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0), 1,
		    "FUTEX_WAKE of the rest") ||
	    !expect(futex(&word_a, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0), 0,
		    "FUTEX_WAKE once all are woken"))
		return 0;
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		if (w[i].result)
			return ktap_fail("waiter %d returned %ld, not 0", i, w[i].result);
	}
	return 1;
}

/* A private wait is woken by a private wake only, a shared one by a shared wake. */
static int test_private_shared(void)
{
	pthread_t t;
	struct wait_args w = { &word_a, FUTEX_WAIT_PRIVATE, 0, -1 };

	start_waiters(&t, &w, 1);
	if (!expect(futex(&word_a, FUTEX_WAKE, 1, NULL, NULL, 0), 0,
		    "shared FUTEX_WAKE for a private waiter") ||
	    !expect(futex(&word_a, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 1,
		    "private FUTEX_WAKE for a private waiter"))
		return 0;
	pthread_join(t, NULL);
	if (!expect(w.result, 0, "the private waiter"))
		return 0;
	w = (struct wait_args){ &word_a, FUTEX_WAIT, 0, -1 };
	start_waiters(&t, &w, 1);
	if (!expect(futex(&word_a, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0,
		    "private FUTEX_WAKE for a shared waiter") ||
	    !expect(futex(&word_a, FUTEX_WAKE, 1, NULL, NULL, 0), 1,
		    "shared FUTEX_WAKE for a shared waiter"))
		return 0;
	pthread_join(t, NULL);
	return expect(w.result, 0, "the shared waiter");
}

/* Only waiters whose bitset meets the waker's are woken. */
static int test_bitset(void)
{
	pthread_t t;
	struct wait_args w = { &word_a, FUTEX_WAIT_BITSET_PRIVATE, 1, -1 };

	start_waiters(&t, &w, 1);
	if (!expect(futex(&word_a, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 2), 0,
		    "FUTEX_WAKE_BITSET 2 for a waiter on bit 0") ||
	    !expect(futex(&word_a, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 3), 1,
		    "FUTEX_WAKE_BITSET 3 for a waiter on bit 0"))
		return 0;
	pthread_join(t, NULL);
	return expect(w.result, 0, "the bitset waiter");
}

/* FUTEX_CMP_REQUEUE moves waiters to another word, if the first still holds val3. */
static int test_requeue(void)
{
	pthread_t t[2];
	struct wait_args w[2];
	int i;

	for (i = 0; i < 2; i++)
		w[i] = (struct wait_args){ &word_a, FUTEX_WAIT_PRIVATE, 0, -1 };
	start_waiters(t, w, 2);
	if (!expect(futex(&word_a, FUTEX_CMP_REQUEUE_PRIVATE, 0, (void *)2, &word_b, 5), -EAGAIN,
		    "FUTEX_CMP_REQUEUE with the wrong value") ||
	    !expect(futex(&word_a, FUTEX_CMP_REQUEUE_PRIVATE, 0, (void *)2, &word_b, 0), 2,
		    "FUTEX_CMP_REQUEUE of 2") ||
	    !expect(futex(&word_a, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0), 0,
		    "FUTEX_WAKE on the word they left") ||
	    !expect(futex(&word_b, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0), 2,
		    "FUTEX_WAKE on the word they moved to"))
		return 0;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return w[0].result == 0 && w[1].result == 0 ? 1 : ktap_fail("a requeued waiter did not return 0");
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* A signal with a handler (no SA_RESTART) ends a wait with EINTR. */
static int test_eintr(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t t;
	struct wait_args w = { &word_a, FUTEX_WAIT_PRIVATE, 0, -1 };

	sigaction(SIGUSR1, &sa, NULL);
	start_waiters(&t, &w, 1);
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	return expect(w.result, -EINTR, "FUTEX_WAIT interrupted by a handled signal");
}

/* set_robust_list takes Linux's 24-byte head only; get_robust_list gives it back. */
static int test_robust_list(void)
{
	static long head[3];
	void *got = NULL;
	size_t len = 0;

	if (!expect(syscall(SYS_set_robust_list, head, 23) ? -errno : 0, -EINVAL,
		    "set_robust_list with 23 bytes") ||
	    !expect(syscall(SYS_set_robust_list, head, 24), 0, "set_robust_list") ||
	    !expect(syscall(SYS_get_robust_list, 0, &got, &len), 0, "get_robust_list"))
		return 0;
	return got == head && len == 24 ? 1 : ktap_fail("get_robust_list: %p, %zu", got, len);
}

/* ---- a storm of threads and forks: the kernel must give back all it took ---- */

/* MemFree from /proc/meminfo, read with open and read: no malloc to move the figure. */
static long memfree_kb(void)
{
	char buf[512], *line;
	long kb = -1, n;
	int fd = open("/proc/meminfo", O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if ((line = strstr(buf, "MemFree:")))
		sscanf(line, "MemFree: %ld kB", &kb);
	return kb;
}

static long storm_counter;

/* Each thread forks a child that exits at once, waits for it, and counts under a lock. */
static void *storm_thread(void *arg)
{
	int status;
	pid_t pid;

	(void)arg;
	if ((pid = fork()) == 0)
		_exit(3);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 3)
		return (void *)1;
	pthread_mutex_lock(&lock);
	storm_counter++;
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* rounds of 12 threads, created, joined; the process's exit status says if all went well. */
static int storm(int rounds)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		pthread_t t[12];
		void *ret;
		int r, i, bad = 0;

		for (r = 0; r < rounds; r++) {
			for (i = 0; i < 12; i++)
				bad |= pthread_create(&t[i], NULL, storm_thread, NULL) != 0;
			for (i = 0; i < 12; i++) {
				pthread_join(t[i], &ret);
				bad |= ret != NULL;
			}
		}
		_exit(bad || storm_counter != rounds * 12);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

static void *blocked_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gate);
	pthread_mutex_unlock(&gate);
	return NULL;
}

/*
 * As many threads at once as the kernel allows (up to 100): on ccos the
 * process table fills, pthread_create fails with EAGAIN, and all recovers.
 */
static int fill_process_table(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		pthread_t t[100];
		int n, i, err = 0;

		pthread_mutex_lock(&gate);
		for (n = 0; n < 100 && !(err = pthread_create(&t[n], NULL, blocked_thread, NULL)); n++)
			;
		pthread_mutex_unlock(&gate);
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		printf("# %d threads at once, then %s\n", n + 1, err ? strerror(err) : "enough");
		_exit(err && err != EAGAIN);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/* On Linux, MemFree moves with everything else the host does: compared on ccos only. */
static int on_ccos(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.release, "-ccos");	/* 6.1.0-ccos: docs/conformance.md */
}

static int test_storm_leaks_nothing(void)
{
	struct timespec t0;
	long before, after;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!fill_process_table())
		return ktap_fail("filling the process table failed (see above)");
	/*
	 * A page of this process takes its frame at its first touch: a first
	 * round, and a first reading of MemFree (sscanf's stack), touch what
	 * the measured ones will.
	 */
	if (!storm(1) || memfree_kb() < 0)
		return ktap_fail("a thread, fork or join of the first round failed");
	before = memfree_kb();
	if (!storm(10))
		return ktap_fail("a thread, fork or join of the storm failed");
	after = memfree_kb();
	printf("# MemFree before %ld kB, after 120 threads and 120 forks %ld kB (%ld ms)\n",
	       before, after, elapsed_ms(&t0));
	if (!on_ccos())
		return 1;
	return before > 0 && before == after ? 1 :
	       ktap_fail("MemFree went from %ld kB to %ld kB", before, after);
}

static const struct test tests[] = {
	{ "wait_eagain_efault_einval", test_wait_errors },
	{ "wake_nobody_unmapped_kernel", test_wake_errors },
	{ "wait_timeouts", test_timeouts },
	{ "wake_count", test_wake_count },
	{ "private_and_shared_apart", test_private_shared },
	{ "wait_wake_bitset", test_bitset },
	{ "cmp_requeue", test_requeue },
	{ "wait_eintr", test_eintr },
	{ "set_get_robust_list", test_robust_list },
	{ "thread_fork_storm_leaks_nothing", test_storm_leaks_nothing },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
