/* muslsigqueue: the queue of real-time signals: RLIMIT_SIGPENDING, EAGAIN past it, and no signal accepted and then lost. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ktap.h"

/*
 * Linux queues every real-time signal sent, up to RLIMIT_SIGPENDING of
 * them waiting (its count is the receiving user's, ccos's the receiving
 * process's: each case here is a process of its own, so both agree). Past
 * it, a signal with the sender's siginfo (sigqueue, rt_tgsigqueueinfo) is
 * refused with EAGAIN and kill's is not queued again; whatever was
 * accepted is delivered. A POSIX timer has its entry of its own, so its
 * signal is queued however full the queue is.
 */

#define FILL_MAX	1100	/* more than ccos's old queue of 1024 for the whole system */

static int sig_rt(void)
{
	return SIGRTMIN;
}

static void block_rt(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig_rt());
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* sigqueue to itself, values 0, 1, ..., until refused or max: how many it took; errno set if refused. */
static int fill(int max)
{
	int n;

	errno = 0;
	for (n = 0; n < max; n++)
		if (sigqueue(getpid(), sig_rt(), (union sigval){ .sival_int = n }))
			break;
	return n;
}

/* Take n of them at once, values 0 to n - 1 in that order: 1 if so. */
static int take(int n)
{
	struct timespec zero = { 0, 0 };
	sigset_t set;
	siginfo_t si;
	int i;

	sigemptyset(&set);
	sigaddset(&set, sig_rt());
	for (i = 0; i < n; i++) {
		if (sigtimedwait(&set, &si, &zero) != sig_rt())
			return ktap_fail("signal %d of %d accepted was not delivered: %s", i, n, strerror(errno));
		if (si.si_code != SI_QUEUE || si.si_value.sival_int != i)
			return ktap_fail("signal %d of %d: si_code %d, value %d", i, n, si.si_code,
				         si.si_value.sival_int);
	}
	return 1;
}

/* take(n), and then none is left. */
static int drain(int n)
{
	struct timespec zero = { 0, 0 };
	sigset_t set;
	siginfo_t si;

	sigemptyset(&set);
	sigaddset(&set, sig_rt());
	if (!take(n))
		return 0;
	if (sigtimedwait(&set, &si, &zero) >= 0)
		return ktap_fail("a signal more than the %d accepted (si_code %d)", n, si.si_code);
	return 1;
}

static int test_rlimit_reads_and_sets(void)
{
	struct rlimit old, lim, bad;

	if (getrlimit(RLIMIT_SIGPENDING, &old))
		return ktap_fail("getrlimit: %s", strerror(errno));
	if (old.rlim_cur < 32 || old.rlim_cur > old.rlim_max)
		return ktap_fail("RLIMIT_SIGPENDING is %lu of %lu", (unsigned long)old.rlim_cur,
			         (unsigned long)old.rlim_max);
	lim = (struct rlimit){ 8, old.rlim_max };
	bad = (struct rlimit){ old.rlim_max, 8 };
	if (setrlimit(RLIMIT_SIGPENDING, &lim) || getrlimit(RLIMIT_SIGPENDING, &lim))
		return ktap_fail("setrlimit to 8: %s", strerror(errno));
	if (lim.rlim_cur != 8 || lim.rlim_max != old.rlim_max)
		return ktap_fail("read back %lu of %lu, not 8 of %lu", (unsigned long)lim.rlim_cur,
			         (unsigned long)lim.rlim_max, (unsigned long)old.rlim_max);
	if (setrlimit(RLIMIT_SIGPENDING, &bad) != -1 || errno != EINVAL)
		return ktap_fail("setrlimit with cur over max: not EINVAL");
	return 1;
}

/*
 * With the limit at 8: sigqueue takes 8 at most (fewer on Linux if this
 * user has others waiting elsewhere), then EAGAIN, and so does
 * rt_tgsigqueueinfo; kill still answers 0. All that was accepted arrives.
 */
static int test_eagain_at_the_limit(void)
{
	struct rlimit lim;
	siginfo_t si = { .si_signo = sig_rt(), .si_code = SI_QUEUE };
	int n;

	getrlimit(RLIMIT_SIGPENDING, &lim);
	lim.rlim_cur = 8;
	if (setrlimit(RLIMIT_SIGPENDING, &lim))
		return ktap_fail("setrlimit to 8: %s", strerror(errno));
	block_rt();
	n = fill(16);
	if (n < 1 || n > 8 || errno != EAGAIN)
		return ktap_fail("sigqueue took %d of 16 with the limit at 8, then %s", n, strerror(errno));
	if (syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), sig_rt(), &si) != -1 || errno != EAGAIN)
		return ktap_fail("rt_tgsigqueueinfo past the limit: not EAGAIN");
	if (kill(getpid(), sig_rt()))
		return ktap_fail("kill past the limit: %s", strerror(errno));
	return drain(n);
}

/*
 * A process that fills its queue (to its limit, or FILL_MAX) leaves
 * another process its own: the child's four signals all arrive.
 */
static int test_a_full_queue_leaves_others_theirs(void)
{
	int n, status;
	pid_t pid;

	block_rt();
	n = fill(FILL_MAX);
	if (n < FILL_MAX && errno != EAGAIN)
		return ktap_fail("sigqueue refused with %s", strerror(errno));
	if ((pid = fork()) == 0) {
		if (fill(4) != 4)
			_exit(1);
		_exit(drain(4) ? 0 : 2);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return ktap_fail("the other process (1: sigqueue refused, 2: a signal lost): status %#x",
			         status);
	return drain(n);
}

/*
 * A timer's signal with the queue full: it is queued all the same (after
 * those already waiting), with SI_TIMER, within the bound.
 */
static int test_timer_signal_with_the_queue_full(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = sig_rt() };
	struct itimerspec its = { .it_value = { 0, 1000000 } };
	struct timespec bound = { 10, 0 };
	sigset_t set;
	siginfo_t si;
	timer_t t;
	int n;

	block_rt();
	if (timer_create(CLOCK_MONOTONIC, &ev, &t))
		return ktap_fail("timer_create: %s", strerror(errno));
	n = fill(FILL_MAX);
	if (n < FILL_MAX && errno != EAGAIN)
		return ktap_fail("sigqueue refused with %s", strerror(errno));
	if (timer_settime(t, 0, &its, NULL))
		return ktap_fail("timer_settime: %s", strerror(errno));
	if (!take(n))
		return 0;
	sigemptyset(&set);
	sigaddset(&set, sig_rt());
	if (sigtimedwait(&set, &si, &bound) != sig_rt())
		return ktap_fail("no timer signal within 10 s: %s", strerror(errno));
	return si.si_code == SI_TIMER ? 1 : ktap_fail("the signal after the %d queued: si_code %d", n, si.si_code);
}

static const struct test tests[] = {
	{ "rlimit_sigpending_reads_and_sets", test_rlimit_reads_and_sets },
	{ "eagain_at_the_limit_nothing_lost", test_eagain_at_the_limit },
	{ "a_full_queue_leaves_others_theirs", test_a_full_queue_leaves_others_theirs },
	{ "timer_signal_with_the_queue_full", test_timer_signal_with_the_queue_full },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
