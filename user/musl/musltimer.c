/* musltimer: interval timers (setitimer, getitimer, alarm) and POSIX timers (timer_create and the rest), as on Linux. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/wait.h>
#include "ktap.h"
#include "threadutil.h"

/*
 * Built with musl-gcc -static, it runs as it is on ccos and on Linux.
 * Nothing here waits a fixed time for a timer: each case waits for the
 * signal itself (sigtimedwait, or a flag its handler sets, under a
 * bound of seconds that only a missing signal reaches), and what it
 * checks of the time is what the clocks say, not how long a sleep was.
 * ccos runs timers at its tick (10 ms), Linux to the nanosecond.
 */
#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID	4
#endif

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

static int64_t tv_ns(const struct timeval *tv)
{
	return tv->tv_sec * 1000000000ll + tv->tv_usec * 1000ll;
}

static int64_t ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000ll + ts->tv_nsec;
}

/* Wait for sig (blocked by the caller), at most 5 s: its number, or -1. */
static int wait_for(int sig, siginfo_t *si)
{
	sigset_t set;
	struct timespec five = { 5, 0 };

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sigtimedwait(&set, si, &five);
}

static void block(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* ---- setitimer, getitimer, alarm ---- */

static int test_itimer_real_repeats(void)
{
	struct itimerval v = { { 0, 20000 }, { 0, 20000 } }, cur, zero = { 0 };
	int64_t t0 = mono_ns(), t;
	int n;

	block(SIGALRM);
	if (setitimer(ITIMER_REAL, &v, NULL))
		return ktap_fail("setitimer(ITIMER_REAL): %s", strerror(errno));
	for (n = 0; n < 3; n++)
		if (wait_for(SIGALRM, NULL) != SIGALRM)
			return ktap_fail("expiry %d: no SIGALRM in 5 s", n + 1);
	t = mono_ns() - t0;
	if (getitimer(ITIMER_REAL, &cur))
		return ktap_fail("getitimer: %s", strerror(errno));
	setitimer(ITIMER_REAL, &zero, NULL);
	if (t < 60000000)
		return ktap_fail("three expiries of a 20 ms timer after %lld ns", (long long)t);
	if (tv_ns(&cur.it_interval) != 20000000 || tv_ns(&cur.it_value) <= 0 ||
	    tv_ns(&cur.it_value) > 20000000)
		return ktap_fail("getitimer: value %lld ns, interval %lld ns; expected (0, 20 ms] and 20 ms",
				 (long long)tv_ns(&cur.it_value), (long long)tv_ns(&cur.it_interval));
	if (getitimer(ITIMER_REAL, &cur) || cur.it_value.tv_sec || cur.it_value.tv_usec)
		return ktap_fail("a stopped timer has %ld.%06ld s left", (long)cur.it_value.tv_sec,
				 (long)cur.it_value.tv_usec);
	return 1;
}

static int test_itimer_errors_and_old_value(void)
{
	struct itimerval v = { { 0, 0 }, { 7, 0 } }, old, bad = { { 0, 0 }, { 0, 1000000 } };

	if (setitimer(3, &v, NULL) == 0 || errno != EINVAL)
		return ktap_fail("setitimer(3): not EINVAL");
	if (getitimer(-1, &old) == 0 || errno != EINVAL)
		return ktap_fail("getitimer(-1): not EINVAL");
	if (setitimer(ITIMER_REAL, &bad, NULL) == 0 || errno != EINVAL)
		return ktap_fail("setitimer with tv_usec 1000000: not EINVAL");
	if (setitimer(ITIMER_REAL, &v, NULL) || setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, &old))
		return ktap_fail("setitimer: %s", strerror(errno));
	if (old.it_value.tv_sec != 6 && old.it_value.tv_sec != 7)
		return ktap_fail("old value %ld.%06ld s, expected just under 7 s", (long)old.it_value.tv_sec,
				 (long)old.it_value.tv_usec);
	if (syscall(SYS_setitimer, ITIMER_REAL, &v, (void *)8) != -1 || errno != EFAULT)
		return ktap_fail("setitimer with a bad old pointer: not EFAULT");
	return 1;
}

/* alarm is ITIMER_REAL without an interval: each sees what the other set. */
static int test_alarm_is_itimer_real(void)
{
	struct itimerval v = { { 1, 0 }, { 9, 0 } }, cur;
	unsigned int left;

	if (setitimer(ITIMER_REAL, &v, NULL))
		return ktap_fail("setitimer: %s", strerror(errno));
	left = syscall(SYS_alarm, 4);
	if (left != 9)
		return ktap_fail("alarm(4) after setitimer(9 s) returned %u, expected 9", left);
	if (getitimer(ITIMER_REAL, &cur) || cur.it_value.tv_sec != 3 || cur.it_interval.tv_sec ||
	    cur.it_interval.tv_usec)
		return ktap_fail("after alarm(4): %ld.%06ld s left, interval %ld s; expected 3.x s, none",
				 (long)cur.it_value.tv_sec, (long)cur.it_value.tv_usec,
				 (long)cur.it_interval.tv_sec);
	left = syscall(SYS_alarm, 0);
	return left == 4 ? 1 : ktap_fail("alarm(0) returned %u, expected 4", left);
}

static volatile int cpu_signals;

static void on_cpu_timer(int sig)
{
	(void)sig;
	cpu_signals++;
}

/* ITIMER_VIRTUAL counts user time, ITIMER_PROF user and system time: a busy loop runs both out. */
static int cpu_timer(int which, int sig)
{
	struct itimerval v = { { 0, 0 }, { 0, 30000 } };
	int64_t t0 = mono_ns();

	signal(sig, on_cpu_timer);
	if (setitimer(which, &v, NULL))
		return ktap_fail("setitimer(%d): %s", which, strerror(errno));
	while (!cpu_signals && mono_ns() - t0 < 5000000000ll)
		;
	if (!cpu_signals)
		return ktap_fail("no signal %d after 5 s of a busy loop", sig);
	/*
	 * Less one tick: ccos charges CPU time a whole 10 ms tick at a time,
	 * so the tick under way at setitimer may count in full.
	 */
	if (mono_ns() - t0 < 20000000)
		return ktap_fail("signal %d after %lld ns, before 20 ms of CPU time could pass", sig,
				 (long long)(mono_ns() - t0));
	return 1;
}

static int test_itimer_virtual(void)
{
	return cpu_timer(ITIMER_VIRTUAL, SIGVTALRM);
}

static int test_itimer_prof(void)
{
	return cpu_timer(ITIMER_PROF, SIGPROF);
}

/* ---- POSIX timers ---- */

static int make_timer(clockid_t clock, int notify, int sig, int tid, void *value, timer_t *t)
{
	struct sigevent ev = { .sigev_notify = notify, .sigev_signo = sig };

	ev.sigev_value.sival_ptr = value;
	ev.sigev_notify_thread_id = tid;
	return timer_create(clock, &ev, t);
}

static int arm(timer_t t, int flags, long value_ns, long interval_ns)
{
	struct itimerspec its = { { interval_ns / 1000000000, interval_ns % 1000000000 },
				  { value_ns / 1000000000, value_ns % 1000000000 } };

	return timer_settime(t, flags, &its, NULL);
}

static int test_timer_signal_info(void)
{
	static int cookie;
	timer_t t;
	siginfo_t si;

	block(SIGUSR1);
	if (make_timer(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGUSR1, 0, &cookie, &t) || arm(t, 0, 20000000, 0))
		return ktap_fail("timer_create or timer_settime: %s", strerror(errno));
	if (wait_for(SIGUSR1, &si) != SIGUSR1)
		return ktap_fail("no SIGUSR1 from a 20 ms timer in 5 s");
	if (si.si_code != SI_TIMER || si.si_value.sival_ptr != &cookie || si.si_overrun != 0)
		return ktap_fail("si_code %d, si_value %p, si_overrun %d; expected SI_TIMER (%d), %p, 0",
				 si.si_code, si.si_value.sival_ptr, si.si_overrun, SI_TIMER, (void *)&cookie);
	if (si.si_timerid != (int)(intptr_t)t)
		return ktap_fail("si_timerid %d, timer_create said %d", si.si_timerid, (int)(intptr_t)t);
	return timer_delete(t) ? ktap_fail("timer_delete: %s", strerror(errno)) : 1;
}

/* A periodic timer whose signal waits blocked counts overruns, and the one signal carries them. */
static int test_timer_overrun(void)
{
	timer_t t;
	siginfo_t si;
	int64_t t0, t1, expiries;

	block(SIGUSR2);
	if (make_timer(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGUSR2, 0, NULL, &t))
		return ktap_fail("timer_create: %s", strerror(errno));
	t0 = mono_ns();
	arm(t, 0, 10000000, 10000000);
	while (mono_ns() - t0 < 200000000)
		;
	if (wait_for(SIGUSR2, &si) != SIGUSR2)
		return ktap_fail("no signal");
	t1 = mono_ns();
	timer_delete(t);
	expiries = (t1 - t0) / 10000000;	/* by the clock, when it was taken */
	if (si.si_overrun < 1 || si.si_overrun + 1 > expiries || si.si_overrun + 1 < expiries - 3)
		return ktap_fail("si_overrun %d after %lld ns of a 10 ms timer: expected about %lld",
				 si.si_overrun, (long long)(t1 - t0), (long long)expiries - 1);
	return 1;
}

static int test_timer_getoverrun_and_gettime(void)
{
	timer_t t;
	siginfo_t si;
	struct itimerspec cur;

	block(SIGUSR2);
	if (make_timer(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGUSR2, 0, NULL, &t))
		return ktap_fail("timer_create: %s", strerror(errno));
	arm(t, 0, 10000000, 30000000);
	if (wait_for(SIGUSR2, &si) != SIGUSR2)
		return ktap_fail("no signal");
	if (timer_getoverrun(t) != si.si_overrun)
		return ktap_fail("timer_getoverrun %d, the signal said %d", timer_getoverrun(t), si.si_overrun);
	if (timer_gettime(t, &cur) || ts_ns(&cur.it_interval) != 30000000 ||
	    ts_ns(&cur.it_value) <= 0 || ts_ns(&cur.it_value) > 30000000)
		return ktap_fail("timer_gettime: value %lld ns, interval %lld ns; expected (0, 30 ms], 30 ms",
				 (long long)ts_ns(&cur.it_value), (long long)ts_ns(&cur.it_interval));
	arm(t, 0, 0, 0);
	if (timer_gettime(t, &cur) || ts_ns(&cur.it_value) || ts_ns(&cur.it_interval) != 0)
		return ktap_fail("a disarmed timer has %lld ns left", (long long)ts_ns(&cur.it_value));
	return timer_delete(t) ? ktap_fail("timer_delete") : 1;
}

/* Whether sig became pending within 5 s. */
static int becomes_pending(int sig)
{
	int64_t t0 = mono_ns();
	sigset_t pending;

	do {
		sched_yield();
		sigpending(&pending);
	} while (!sigismember(&pending, sig) && mono_ns() - t0 < 5000000000ll);
	return sigismember(&pending, sig);
}

static volatile int usr1_count;

static void on_usr1_count(int sig)
{
	(void)sig;
	usr1_count++;
}

/* Unblock sig: what was pending is delivered before sigprocmask returns. Then block it again. */
static int delivered_on_unblock(int sig)
{
	sigset_t set;
	int before = usr1_count;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	sigprocmask(SIG_BLOCK, &set, NULL);
	return usr1_count - before;
}

/*
 * Setting a timer again, or deleting it, takes back its signal still
 * pending: unblocked, it is not delivered. (Linux may still show it in
 * sigpending and drop it as stale at delivery; ccos takes it out of the
 * set at once. The program sees no signal either way.)
 */
static int test_timer_reset_and_delete_take_back_signal(void)
{
	timer_t t;

	signal(SIGUSR1, on_usr1_count);
	block(SIGUSR1);
	if (make_timer(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGUSR1, 0, NULL, &t))
		return ktap_fail("timer_create: %s", strerror(errno));
	arm(t, 0, 1000000, 0);
	if (!becomes_pending(SIGUSR1))
		return ktap_fail("the timer's signal was not pending after 5 s");
	arm(t, 0, 10000000000ll, 0);
	if (delivered_on_unblock(SIGUSR1))
		return ktap_fail("the signal of the timer's first setting came after timer_settime");
	arm(t, 0, 1000000, 0);
	if (!becomes_pending(SIGUSR1))
		return ktap_fail("the timer's signal was not pending after 5 s, the second time");
	timer_delete(t);
	if (delivered_on_unblock(SIGUSR1))
		return ktap_fail("the timer's signal came after timer_delete");
	return 1;
}

static volatile long handled_by;

static void on_usr1_tid(int sig)
{
	(void)sig;
	handled_by = gettid_();
}

static void *waiter(void *arg)
{
	volatile int *stop = arg;

	while (!*stop)
		sched_yield();
	return NULL;
}

/* SIGEV_THREAD_ID: the signal goes to the thread named, even when another could take it. */
static int test_timer_thread_id(void)
{
	static volatile int stop;
	volatile long *tidp = &handled_by;
	pthread_t th;
	timer_t t;
	long me = gettid_();
	int64_t t0;

	signal(SIGUSR1, on_usr1_tid);
	pthread_create(&th, NULL, waiter, (void *)&stop);
	if (make_timer(CLOCK_MONOTONIC, SIGEV_THREAD_ID, SIGUSR1, me, NULL, &t))
		return ktap_fail("timer_create(SIGEV_THREAD_ID): %s", strerror(errno));
	arm(t, 0, 10000000, 0);
	t0 = mono_ns();
	while (!*tidp && mono_ns() - t0 < 5000000000ll)
		;
	stop = 1;
	pthread_join(th, NULL);
	timer_delete(t);
	if (*tidp != me)
		return ktap_fail("handled by thread %ld, the timer named %ld", *tidp, me);
	return make_timer(CLOCK_MONOTONIC, SIGEV_THREAD_ID, SIGUSR1, 1, NULL, &t) == -1 &&
		errno == EINVAL ? 1 : ktap_fail("SIGEV_THREAD_ID naming init: not EINVAL");
}

/*
 * SIGEV_NONE: no signal, but timer_gettime counts down and starts over;
 * a one-shot one that is past reads 0 (one with a signal to send, 1 ns).
 */
static int test_timer_sigev_none(void)
{
	timer_t t;
	struct itimerspec cur;
	long prev = 1000000000, wraps = 0;
	int64_t t0 = mono_ns();

	if (make_timer(CLOCK_MONOTONIC, SIGEV_NONE, 0, 0, NULL, &t))
		return ktap_fail("timer_create(SIGEV_NONE): %s", strerror(errno));
	arm(t, 0, 20000000, 20000000);
	while (wraps < 3 && mono_ns() - t0 < 5000000000ll) {
		timer_gettime(t, &cur);
		if (ts_ns(&cur.it_value) <= 0 || ts_ns(&cur.it_value) > 20000000)
			return ktap_fail("timer_gettime: %lld ns left of 20 ms",
					 (long long)ts_ns(&cur.it_value));
		wraps += ts_ns(&cur.it_value) > prev;
		prev = ts_ns(&cur.it_value);
	}
	arm(t, 0, 1, 0);
	timer_gettime(t, &cur);
	timer_delete(t);
	if (ts_ns(&cur.it_value))
		return ktap_fail("a one-shot timer of 1 ns: %lld ns left", (long long)ts_ns(&cur.it_value));
	return wraps >= 3 ? 1 : ktap_fail("the time left started over %ld times in 5 s", wraps);
}

/* TIMER_ABSTIME on CLOCK_REALTIME: due at a wall-clock time. */
static int test_timer_abstime_realtime(void)
{
	struct timespec now;
	int64_t due;
	timer_t t;
	siginfo_t si;

	block(SIGUSR1);
	if (make_timer(CLOCK_REALTIME, SIGEV_SIGNAL, SIGUSR1, 0, NULL, &t))
		return ktap_fail("timer_create(CLOCK_REALTIME): %s", strerror(errno));
	clock_gettime(CLOCK_REALTIME, &now);
	due = ts_ns(&now) + 20000000;
	if (arm(t, TIMER_ABSTIME, due, 0))
		return ktap_fail("timer_settime(TIMER_ABSTIME): %s", strerror(errno));
	if (wait_for(SIGUSR1, &si) != SIGUSR1)
		return ktap_fail("no signal");
	clock_gettime(CLOCK_REALTIME, &now);
	timer_delete(t);
	return ts_ns(&now) >= due ? 1 : ktap_fail("the signal came %lld ns before its time",
					      (long long)(due - ts_ns(&now)));
}

static int test_timer_errors(void)
{
	timer_t t;
	struct itimerspec its = { { 0, 0 }, { 0, 1000000000 } };

	if (make_timer(99, SIGEV_SIGNAL, SIGUSR1, 0, NULL, &t) != -1 || errno != EINVAL)
		return ktap_fail("timer_create(clock 99): not EINVAL");
	if (make_timer(CLOCK_MONOTONIC, 99, SIGUSR1, 0, NULL, &t) != -1 || errno != EINVAL)
		return ktap_fail("timer_create(sigev_notify 99): not EINVAL");
	if (make_timer(CLOCK_MONOTONIC, SIGEV_SIGNAL, 0, 0, NULL, &t) != -1 || errno != EINVAL)
		return ktap_fail("timer_create(signal 0): not EINVAL");
	if (syscall(SYS_timer_create, CLOCK_MONOTONIC, (void *)8, &t) != -1 || errno != EFAULT)
		return ktap_fail("timer_create(bad sigevent): not EFAULT");
	if (make_timer(CLOCK_MONOTONIC, SIGEV_NONE, 0, 0, NULL, &t))
		return ktap_fail("timer_create: %s", strerror(errno));
	if (timer_settime(t, 0, &its, NULL) != -1 || errno != EINVAL)
		return ktap_fail("timer_settime(tv_nsec 1000000000): not EINVAL");
	if (syscall(SYS_timer_settime, (int)(intptr_t)t, 0, NULL, NULL) != -1 || errno != EINVAL)
		return ktap_fail("timer_settime(NULL): not EINVAL");
	if (timer_delete(t) || syscall(SYS_timer_delete, (int)(intptr_t)t) != -1 || errno != EINVAL)
		return ktap_fail("timer_delete twice: not 0 then EINVAL");
	if (syscall(SYS_timer_gettime, 12345, &its) != -1 || errno != EINVAL ||
	    syscall(SYS_timer_getoverrun, 12345) != -1 || errno != EINVAL)
		return ktap_fail("timer_gettime or timer_getoverrun of no timer: not EINVAL");
	return 1;
}

/*
 * A forked child has none of its parent's timers, and numbers its own
 * from 0; the parent goes on counting up past an id it deleted, as Linux
 * does (musl's timer_t is the kernel's id).
 */
static int test_timer_not_inherited(void)
{
	timer_t t, t2, t3;
	pid_t pid;
	int status;
	struct itimerspec cur;

	if (make_timer(CLOCK_MONOTONIC, SIGEV_NONE, 0, 0, NULL, &t) || arm(t, 0, 5000000000ll, 0))
		return ktap_fail("timer_create: %s", strerror(errno));
	pid = fork();
	if (pid == 0)
		_exit(syscall(SYS_timer_gettime, (int)(intptr_t)t, &cur) == -1 && errno == EINVAL &&
		      !make_timer(CLOCK_MONOTONIC, SIGEV_NONE, 0, 0, NULL, &t2) && !t2 ? 0 : 1);
	waitpid(pid, &status, 0);
	if (make_timer(CLOCK_MONOTONIC, SIGEV_NONE, 0, 0, NULL, &t2) || timer_delete(t) ||
	    make_timer(CLOCK_MONOTONIC, SIGEV_NONE, 0, 0, NULL, &t3))
		return ktap_fail("timer_create: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return ktap_fail("the child has the timer, or its own is not number 0");
	if ((intptr_t)t3 != (intptr_t)t2 + 1)
		return ktap_fail("ids %ld, %ld, then %ld after deleting the first", (long)(intptr_t)t,
				 (long)(intptr_t)t2, (long)(intptr_t)t3);
	return 1;
}

static const struct test tests[] = {
	{ "itimer_real_repeats_and_getitimer", test_itimer_real_repeats },
	{ "itimer_errors_and_old_value", test_itimer_errors_and_old_value },
	{ "alarm_is_itimer_real", test_alarm_is_itimer_real },
	{ "itimer_virtual_busy_loop_sigvtalrm", test_itimer_virtual },
	{ "itimer_prof_busy_loop_sigprof", test_itimer_prof },
	{ "timer_create_signal_si_timer", test_timer_signal_info },
	{ "timer_overrun_while_blocked", test_timer_overrun },
	{ "timer_getoverrun_and_gettime", test_timer_getoverrun_and_gettime },
	{ "timer_settime_delete_take_back_signal", test_timer_reset_and_delete_take_back_signal },
	{ "timer_sigev_thread_id", test_timer_thread_id },
	{ "timer_sigev_none_gettime", test_timer_sigev_none },
	{ "timer_abstime_realtime", test_timer_abstime_realtime },
	{ "timer_errors", test_timer_errors },
	{ "timer_not_inherited_by_fork", test_timer_not_inherited },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
