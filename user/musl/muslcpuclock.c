/* muslcpuclock: the CPU-time clocks (a thread's, a process's, another's from clock_getcpuclockid) with clock_gettime, clock_getres, clock_nanosleep and timers, as on Linux. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/wait.h>
#include "ktap.h"
#include "threadutil.h"

/* Linux's encoding of a CPU-time clock (include/linux/posix-timers_types.h): ~pid above 3 bits. */
#define CPUCLOCK_PROF		0
#define CPUCLOCK_SCHED		2
#define CPUCLOCK_PERTHREAD	4
#define PROCESS_CLOCK(pid, which) ((clockid_t)(~(unsigned int)(pid) << 3) | (which))
#define THREAD_CLOCK(tid, which) PROCESS_CLOCK(tid, (which) | CPUCLOCK_PERTHREAD)
#define MSEC			1000000ll
#define GIVE_UP_NS		(10000 * MSEC)	/* a busy loop that ends sooner, or the case fails */

static long long ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000ll + ts->tv_nsec;
}

/* The time on clock, or -1 with errno. */
static long long clock_ns(clockid_t clock)
{
	struct timespec ts;

	return syscall(SYS_clock_gettime, clock, &ts) ? -1 : ts_ns(&ts);
}

/* Run until clock has gone on by ns, or GIVE_UP_NS of the monotonic clock: 1, or 0 with the reason. */
static int spin_on(clockid_t clock, long long ns)
{
	long long start = clock_ns(clock), t0 = clock_ns(CLOCK_MONOTONIC);

	while (clock_ns(clock) - start < ns)
		if (clock_ns(CLOCK_MONOTONIC) - t0 > GIVE_UP_NS)
			return ktap_fail("clock %d moved %lld ns in 10 s of a busy loop", clock,
					 clock_ns(clock) - start);
	return 1;
}

static long raw_nanosleep(clockid_t clock, int flags, long long ns, struct timespec *rem)
{
	struct timespec req = { ns / 1000000000, ns % 1000000000 };

	return syscall(SYS_clock_nanosleep, clock, flags, &req, rem) ? -errno : 0;
}

/* A thread's clock runs while it runs, within the time that passes, and stands while it sleeps. */
static int test_thread_clock_runs_with_the_thread(void)
{
	long long mono0 = clock_ns(CLOCK_MONOTONIC), t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), t1, t2;
	long long last = t0;
	int i;

	if (t0 < 0)
		return ktap_fail("clock_gettime(CLOCK_THREAD_CPUTIME_ID): %s", strerror(errno));
	if (!spin_on(CLOCK_THREAD_CPUTIME_ID, 30 * MSEC))
		return 0;
	t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (t1 - t0 > clock_ns(CLOCK_MONOTONIC) - mono0)
		return ktap_fail("%lld ns of CPU time in %lld ns", t1 - t0, clock_ns(CLOCK_MONOTONIC) - mono0);
	sleep_ms(50);
	t2 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (t2 - t1 >= 50 * MSEC)
		return ktap_fail("a 50 ms sleep counted %lld ns of CPU time", t2 - t1);
	for (i = 0; i < 10000; i++, last = t2)
		if ((t2 = clock_ns(CLOCK_THREAD_CPUTIME_ID)) < last)
			return ktap_fail("the clock went back from %lld to %lld", last, t2);
	return 1;
}

static volatile int stop, spinner_ready;
static clockid_t spinner_clock;

static void *spinner(void *arg)
{
	(void)arg;
	pthread_getcpuclockid(pthread_self(), &spinner_clock);
	__atomic_store_n(&spinner_ready, 1, __ATOMIC_RELEASE);
	while (!stop)
		;
	return NULL;
}

static int start_spinner(pthread_t *t)
{
	stop = spinner_ready = 0;
	if (pthread_create(t, NULL, spinner, NULL))
		return 0;
	while (!__atomic_load_n(&spinner_ready, __ATOMIC_ACQUIRE))
		sched_yield();
	return 1;
}

/*
 * pthread_getcpuclockid's clock of another thread runs while that one
 * spins; the process's clock holds both threads' time, and keeps the
 * thread's when it ends (on ccos that is its end: Linux may still know the
 * thread a moment after pthread_join, so its clock is not checked after).
 */
static int test_process_clock_sums_threads(void)
{
	pthread_t t;
	clockid_t clock;
	long long p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), spun, p1, p2;

	if (!start_spinner(&t))
		return ktap_fail("pthread_create");
	clock = spinner_clock;
	if (!spin_on(clock, 30 * MSEC)) {
		stop = 1;
		pthread_join(t, NULL);
		return 0;
	}
	stop = 1;
	spun = clock_ns(clock);
	p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	pthread_join(t, NULL);
	p2 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (p1 - p0 < 30 * MSEC || p2 < p1)
		return ktap_fail("process clock %lld, %lld, %lld ns (a thread ran %lld)", p0, p1, p2, spun);
	return 1;
}

/* Linux: the runtime clocks resolve a nanosecond, the sampled ones a tick (1/HZ). */
static int test_clock_getres(void)
{
	struct timespec res;
	clockid_t prof = PROCESS_CLOCK(0, CPUCLOCK_PROF);

	if (clock_getres(CLOCK_PROCESS_CPUTIME_ID, &res) || res.tv_sec || res.tv_nsec != 1)
		return ktap_fail("CLOCK_PROCESS_CPUTIME_ID's resolution: not 1 ns");
	if (clock_getres(CLOCK_THREAD_CPUTIME_ID, &res) || res.tv_sec || res.tv_nsec != 1)
		return ktap_fail("CLOCK_THREAD_CPUTIME_ID's resolution: not 1 ns");
	if (syscall(SYS_clock_getres, prof, &res) || res.tv_sec || res.tv_nsec < MSEC ||
	    res.tv_nsec > 10 * MSEC)
		return ktap_fail("the PROF clock's resolution %ld ns: not a tick", res.tv_nsec);
	if (syscall(SYS_clock_getres, CLOCK_THREAD_CPUTIME_ID, NULL))
		return ktap_fail("clock_getres(NULL): %s", strerror(errno));
	return 1;
}

/* Another process's clock (clock_getcpuclockid) runs while it runs, and is gone once it is reaped. */
static int test_clock_of_another_process(void)
{
	pid_t pid = fork();
	clockid_t clock, thread;
	int status, ok;

	if (pid == 0)
		for (;;)
			;
	if (clock_getcpuclockid(pid, &clock))
		return kill(pid, SIGKILL), ktap_fail("clock_getcpuclockid(child) failed");
	thread = THREAD_CLOCK(pid, CPUCLOCK_SCHED);
	ok = spin_on(clock, 20 * MSEC);
	if (ok && (clock_ns(thread) != -1 || errno != EINVAL))
		ok = ktap_fail("a thread clock of another process: not EINVAL");
	if (ok && raw_nanosleep(thread, 0, 1, NULL) != -EINVAL)
		ok = ktap_fail("clock_nanosleep on another process's thread: not EINVAL");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (ok && (clock_ns(clock) != -1 || errno != EINVAL))
		ok = ktap_fail("the clock of a reaped process: not EINVAL");
	if (ok && !clock_getcpuclockid(pid, &clock))	/* POSIX: ESRCH; musl 1.2.5 says EINVAL */
		ok = ktap_fail("clock_getcpuclockid(reaped) succeeded");
	return ok;
}

static int test_clock_errors(void)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, THREAD_CLOCK(0, 3), &ts) != -1 || errno != EINVAL ||
	    syscall(SYS_clock_getres, THREAD_CLOCK(0, 3), &ts) != -1 || errno != EINVAL)
		return ktap_fail("a CPU clock counting neither: not EINVAL");
	if (syscall(SYS_clock_gettime, PROCESS_CLOCK(0, 3), &ts) != -1 || errno != EINVAL)
		return ktap_fail("the clock of descriptor 0 (CLOCKFD): not EINVAL");
	if (syscall(SYS_clock_gettime, PROCESS_CLOCK(99999, CPUCLOCK_SCHED), &ts) != -1 ||
	    errno != EINVAL)
		return ktap_fail("the clock of no process: not EINVAL");
	if (raw_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, 1, NULL) != -EOPNOTSUPP ||
	    syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC_RAW, 0, NULL, NULL) != -1 ||
	    errno != EOPNOTSUPP || raw_nanosleep(CLOCK_MONOTONIC_COARSE, 0, 1, NULL) != -EOPNOTSUPP)
		return ktap_fail("clock_nanosleep on a clock without sleeps: not EOPNOTSUPP");
	if (raw_nanosleep(THREAD_CLOCK(0, CPUCLOCK_SCHED), 0, 1, NULL) != -EINVAL ||
	    raw_nanosleep(THREAD_CLOCK(gettid_(), CPUCLOCK_SCHED), 0, 1, NULL) != -EINVAL ||
	    raw_nanosleep(42, 0, 1, NULL) != -EINVAL)
		return ktap_fail("clock_nanosleep on its own thread's clock or clock 42: not EINVAL");
	return 1;
}

/*
 * Sleeping on the process's clock and on another thread's, which a
 * spinning thread moves. The thread's clock is read while the thread is
 * still there: once told to stop it may end at once, and the clock of a
 * thread that ended is EINVAL (-1 here), on Linux as on ccos.
 */
static int test_clock_nanosleep(void)
{
	pthread_t t;
	long long p0, p1, target, woke;
	int err, err2, err3;

	if (!start_spinner(&t))
		return ktap_fail("pthread_create");
	p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	err = raw_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, 30 * MSEC, NULL);
	p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	target = clock_ns(spinner_clock) + 20 * MSEC;
	err2 = raw_nanosleep(spinner_clock, TIMER_ABSTIME, target, NULL);
	woke = clock_ns(spinner_clock);
	err3 = raw_nanosleep(spinner_clock, TIMER_ABSTIME, 1, NULL);	/* long past */
	stop = 1;
	pthread_join(t, NULL);
	if (err || err2 || err3)
		return ktap_fail("clock_nanosleep: %d, %d, %d", err, err2, err3);
	if (p1 - p0 < 30 * MSEC)
		return ktap_fail("woke early on the process's clock: %lld ns of 30 ms", p1 - p0);
	if (woke < target)
		return ktap_fail("woke early on the thread's clock: at %lld ns, before %lld", woke, target);
	return 1;
}

static volatile sig_atomic_t fired;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	fired = si->si_code == SI_TIMER ? 1 : -1;
}

/* A timer on the process's CPU clock: it stands while the process sleeps, and fires once it ran out. */
static int test_timer_on_process_clock(void)
{
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO };
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	struct itimerspec its = { { 0, 0 }, { 0, 30 * MSEC } }, cur;
	long long p0, t0;
	timer_t timer;

	sigaction(SIGUSR1, &sa, NULL);
	if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &timer))
		return ktap_fail("timer_create(CLOCK_PROCESS_CPUTIME_ID): %s", strerror(errno));
	p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	timer_settime(timer, 0, &its, NULL);
	sleep_ms(50);
	timer_gettime(timer, &cur);
	if (fired || cur.it_value.tv_sec || cur.it_value.tv_nsec <= 15 * MSEC)
		return ktap_fail("after a 50 ms sleep: fired %d, %ld ns left of 30 ms", fired,
				 cur.it_value.tv_nsec);
	t0 = clock_ns(CLOCK_MONOTONIC);
	while (!fired && clock_ns(CLOCK_MONOTONIC) - t0 < GIVE_UP_NS)
		;
	if (fired != 1)
		return ktap_fail("no SI_TIMER signal after 10 s of a busy loop (%d)", fired);
	if (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0 < 30 * MSEC)
		return ktap_fail("fired after %lld ns of CPU time", clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0);
	return timer_delete(timer) ? ktap_fail("timer_delete") : 1;
}

/* A timer on the thread's own clock, to the thread; none on another process's thread or a reaped one. */
static int test_timer_on_thread_clock(void)
{
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO };
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1 };
	struct itimerspec its = { { 0, 0 }, { 0, 20 * MSEC } };
	long long t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), m0 = clock_ns(CLOCK_MONOTONIC);
	timer_t timer;
	pid_t pid;
	int status;

	sigaction(SIGUSR1, &sa, NULL);
	ev.sigev_notify_thread_id = gettid_();
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer) || timer_settime(timer, 0, &its, NULL))
		return ktap_fail("timer_create(CLOCK_THREAD_CPUTIME_ID): %s", strerror(errno));
	while (!fired && clock_ns(CLOCK_MONOTONIC) - m0 < GIVE_UP_NS)
		;
	if (fired != 1 || clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0 < 20 * MSEC)
		return ktap_fail("fired %d after %lld ns of CPU time", fired,
				 clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0);
	timer_delete(timer);
	if ((pid = fork()) == 0)
		_exit(0);
	if (syscall(SYS_timer_create, THREAD_CLOCK(pid, CPUCLOCK_SCHED), &ev, &timer) != -1 ||
	    errno != EINVAL)
		return waitpid(pid, &status, 0), ktap_fail("a timer on another process's thread: not EINVAL");
	waitpid(pid, &status, 0);
	if (syscall(SYS_timer_create, PROCESS_CLOCK(pid, CPUCLOCK_SCHED), &ev, &timer) != -1 ||
	    errno != EINVAL)
		return ktap_fail("a timer on a reaped process's clock: not EINVAL");
	return 1;
}

/*
 * A timer of the process sends to a thread of it that runs, as Linux
 * (6.3 on) gives it to the thread whose time ran the clock out: the leader
 * sleeps in pthread_join while another thread spins, and every signal of
 * a timer on the process's clock, then of ITIMER_PROF, is the spinner's.
 * The spinner sets the timer once the leader sleeps (/proc/PID/stat's
 * state is the leader's). Its handler does not block the signal
 * (SA_NODEFER): an expiry while it runs would go to the leader, on Linux
 * as on ccos, since the spinner cannot take it then.
 */
static volatile long spinner_tid;
static volatile int to_spinner, to_others;

static void on_timer_count(int sig)
{
	(void)sig;
	if (gettid_() == spinner_tid)
		to_spinner++;
	else
		to_others++;
}

/* The state letter of the process's leader, from /proc/PID/stat; 0 if unreadable. */
static char leader_state(void)
{
	char path[64], stat[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", getpid());
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = 0;
	return (p = strrchr(stat, ')')) && p[1] ? p[2] : 0;
}

static void *spin_for_twenty(void *use_itimer)
{
	struct itimerval iv = { { 0, 1000 }, { 0, 1000 } }, off = { 0 };
	struct itimerspec its = { { 0, MSEC }, { 0, MSEC } };
	long long m0 = clock_ns(CLOCK_MONOTONIC);
	timer_t timer;

	spinner_tid = gettid_();
	while (leader_state() != 'S' && clock_ns(CLOCK_MONOTONIC) - m0 < GIVE_UP_NS)
		sched_yield();
	if (use_itimer)
		setitimer(ITIMER_PROF, &iv, NULL);
	else if (timer_create(CLOCK_PROCESS_CPUTIME_ID, NULL, &timer) ||
		 timer_settime(timer, 0, &its, NULL))
		return "timer_create";
	while (to_spinner + to_others < 20 && clock_ns(CLOCK_MONOTONIC) - m0 < GIVE_UP_NS)
		;
	if (use_itimer)
		setitimer(ITIMER_PROF, &off, NULL);
	else
		timer_delete(timer);
	return NULL;
}

static int signals_to_the_running_thread(int sig, void *use_itimer, const char *what)
{
	struct sigaction sa = { .sa_handler = on_timer_count, .sa_flags = SA_NODEFER };
	pthread_t t;
	void *err;

	sigaction(sig, &sa, NULL);
	if (pthread_create(&t, NULL, spin_for_twenty, use_itimer))
		return ktap_fail("pthread_create");
	pthread_join(t, &err);
	if (err)
		return ktap_fail("%s: %s", (char *)err, strerror(errno));
	if (to_others || to_spinner < 20)
		return ktap_fail("%s: %d signals to the spinning thread, %d to the sleeping leader", what,
				 to_spinner, to_others);
	return 1;
}

static int test_process_timer_to_running_thread(void)
{
	if (!signals_to_the_running_thread(SIGALRM, NULL, "timer on CLOCK_PROCESS_CPUTIME_ID"))
		return 0;
	to_spinner = to_others = 0;
	return signals_to_the_running_thread(SIGPROF, "", "ITIMER_PROF");
}

/*
 * ITIMER_PROF with an interval shorter than a tick sends at most one
 * signal a tick of the process's running, as Linux looks at it in the
 * tick of the thread it charges (CLOCK_MONOTONIC_COARSE resolves a tick),
 * not one at every CPU's tick. A quarter more is allowed: the ticks sample
 * the time the process runs, which may run ahead of what it measures.
 */
static volatile int prof_signals;

static void on_prof(int sig)
{
	(void)sig;
	prof_signals++;
}

/*
 * One SIGPROF a tick the process runs in, however short the interval. The
 * ticks that happened are the coarse clock's steps the spinner saw: a host
 * that deschedules the CPU (QEMU's, under load) loses ticks, and counts the
 * time as CPU time all the same, so the CPU time alone bounds only the most.
 */
static int test_itimer_prof_a_signal_a_tick(void)
{
	struct sigaction sa = { .sa_handler = on_prof, .sa_flags = SA_NODEFER };
	struct itimerval iv = { { 0, 1000 }, { 0, 1000 } }, off = { 0 };
	struct timespec tick;
	long long p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), t0 = clock_ns(CLOCK_MONOTONIC);
	long long cpu, coarse, last = -1;
	int steps = -1;

	clock_getres(CLOCK_MONOTONIC_COARSE, &tick);
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &iv, NULL);
	while (clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0 < 300 * MSEC) {
		coarse = clock_ns(CLOCK_MONOTONIC_COARSE);
		steps += coarse != last;
		last = coarse;
		if (clock_ns(CLOCK_MONOTONIC) - t0 > GIVE_UP_NS)
			break;
	}
	setitimer(ITIMER_PROF, &off, NULL);
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0;
	if (cpu < 300 * MSEC)
		return ktap_fail("%lld ns of CPU time in 10 s of a busy loop", cpu);
	if (prof_signals < 3 || prof_signals < steps / 3 ||
	    prof_signals > (cpu + cpu / 4) / ts_ns(&tick) + 2)
		return ktap_fail("%d signals in %lld ns of CPU time (%d ticks seen), ticks of %lld ns",
				 prof_signals, cpu, steps, ts_ns(&tick));
	return 1;
}

static const struct test tests[] = {
	{ "thread_clock_runs_with_the_thread", test_thread_clock_runs_with_the_thread },
	{ "process_clock_sums_threads", test_process_clock_sums_threads },
	{ "clock_getres", test_clock_getres },
	{ "clock_of_another_process", test_clock_of_another_process },
	{ "clock_errors", test_clock_errors },
	{ "clock_nanosleep_on_cpu_clocks", test_clock_nanosleep },
	{ "timer_on_process_clock", test_timer_on_process_clock },
	{ "timer_on_thread_clock", test_timer_on_thread_clock },
	{ "process_timer_to_running_thread", test_process_timer_to_running_thread },
	{ "itimer_prof_a_signal_a_tick", test_itimer_prof_a_signal_a_tick },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
