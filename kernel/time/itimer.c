/* Interval timers: setitimer, getitimer and alarm; ITIMER_REAL on the clock, the CPU ones on the process's CPU time. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/time.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>
#include <ccos/spinlock.h>

/*
 * Each process has three (kept in its leader), as Linux's signal_struct:
 * ITIMER_REAL counts wall time and sends SIGALRM; ITIMER_VIRTUAL counts
 * the time its threads run in user mode and sends SIGVTALRM;
 * ITIMER_PROF counts user and system time and sends SIGPROF, these two
 * for a thread of the process that runs to take (signal_awake_thread,
 * kernel/thread.c), ITIMER_REAL to the process. A timer
 * with an interval starts again at each expiry, one signal per expiry
 * (a signal still pending takes no second one). ITIMER_REAL's value is a
 * CLOCK_MONOTONIC deadline; the CPU timers' a deadline in the process's
 * CPU time (kernel/sched/cputime.c, which the tick charges: its user
 * time for ITIMER_VIRTUAL, user and system for ITIMER_PROF), as Linux's
 * it->expires. The scheduler's pass at each tick checks all three
 * (timers_run), inside the kernel lock, so they resolve a tick (10 ms);
 * the CPU ones at the pass after one of the process's threads ran.
 * exec keeps them, fork does not copy them.
 */
static const int itimer_signal[NR_ITIMERS] = {
	[ITIMER_REAL] = SIGALRM, [ITIMER_VIRTUAL] = SIGVTALRM, [ITIMER_PROF] = SIGPROF,
};

static struct timeval ns_timeval(uint64_t ns)
{
	return (struct timeval){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC / NSEC_PER_USEC };
}

/* What timer which counts: the clock, or the process's CPU time. */
static uint64_t itimer_now(const struct process *leader, int which)
{
	struct cputime t;

	if (which == ITIMER_REAL)
		return ktime_get_ns();
	t = group_cputime(leader);
	return which == ITIMER_VIRTUAL ? t.user : t.user + t.sys;
}

/*
 * What is left of timer which. One that is due but not yet run has, as
 * on Linux, 1 us left (ITIMER_REAL) or a tick (the CPU ones).
 */
static uint64_t itimer_left(const struct process *leader, int which)
{
	const struct itimer *it = &leader->itimer[which];
	uint64_t now;

	if (!it->value)
		return 0;
	now = itimer_now(leader, which);
	if (it->value > now)
		return it->value - now;
	return which == ITIMER_REAL ? NSEC_PER_USEC : tick_nsec;
}

static void itimer_get(const struct process *leader, int which, struct itimerval *v)
{
	v->it_value = ns_timeval(itimer_left(leader, which));
	v->it_interval = ns_timeval(leader->itimer[which].incr);
}

/* Set timer which to value ns (0: stop it), then every incr ns; at most KTIME_MAX (never), as Linux. */
static void itimer_set(struct process *leader, int which, uint64_t value, uint64_t incr)
{
	struct itimer *it = &leader->itimer[which];

	it->incr = incr;
	it->value = value ? ktime_add_safe(itimer_now(leader, which), value) : 0;
}

long sys_getitimer(int which, struct itimerval __user *uv)
{
	struct itimerval v;

	if (which < 0 || which >= NR_ITIMERS)
		return -EINVAL;
	itimer_get(current()->group_leader, which, &v);
	return copy_to_user(uv, &v, sizeof(v)) ? -EFAULT : 0;
}

static bool timeval_valid(const struct timeval *tv)
{
	return tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < USEC_PER_SEC;
}

/* A NULL new value stops the timer, as Linux has it (with a warning there). */
long sys_setitimer(int which, const struct itimerval __user *unew, struct itimerval __user *uold)
{
	struct process *leader = current()->group_leader;
	struct itimerval v = { 0 }, old;

	if (which < 0 || which >= NR_ITIMERS)
		return -EINVAL;
	if (unew && copy_from_user(&v, unew, sizeof(v)))
		return -EFAULT;
	if (!timeval_valid(&v.it_value) || !timeval_valid(&v.it_interval))
		return -EINVAL;
	itimer_get(leader, which, &old);
	itimer_set(leader, which, timeval_to_ns(&v.it_value), timeval_to_ns(&v.it_interval));
	if (uold && copy_to_user(uold, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

/*
 * ITIMER_REAL for this many seconds, without an interval (0 stops it). As
 * Linux's: the seconds left of the timer before, rounded to the nearest,
 * and at least 1 if one was set.
 */
long sys_alarm(unsigned int seconds)
{
	struct process *leader = current()->group_leader;
	uint64_t left = itimer_left(leader, ITIMER_REAL);

	itimer_set(leader, ITIMER_REAL, (uint64_t)seconds * NSEC_PER_SEC, 0);
	return left ? MAX((left + NSEC_PER_SEC / 2) / NSEC_PER_SEC, 1) : 0;
}

/*
 * Each process's timers whose deadline has come: from the scheduler's
 * pass (timers_run). ITIMER_REAL starts again after the last expiry
 * missed; a CPU timer one interval on, as Linux's check_cpu_itimer, and
 * only at the pass after a thread of the process ran (ran), as Linux
 * looks at them in the tick of the thread it charges: so one with an
 * interval shorter than a tick sends one signal a tick, to that thread,
 * not one at every CPU's pass.
 */
void itimers_run(uint64_t now, struct process *ran)
{
	struct process *p;
	int which;

	assert_kernel_locked();
	for (p = proc_table; p < proc_table + NPROC; p++) {
		if (p != p->group_leader)
			continue;
		for (which = 0; which < NR_ITIMERS; which++) {
			struct itimer *it = &p->itimer[which];
			uint64_t t;

			if (!it->value || (which != ITIMER_REAL && (!ran || ran->tgid != p->tgid)))
				continue;
			t = which == ITIMER_REAL ? now : itimer_now(p, which);
			if (t < it->value)
				continue;
			if (!it->incr)
				it->value = 0;
			else if (which == ITIMER_REAL)
				it->value = ktime_add_safe(it->value, (1 + (t - it->value) / it->incr) * it->incr);
			else
				it->value = ktime_add_safe(it->value, it->incr);
			send_signal(which == ITIMER_REAL ? p : signal_awake_thread(p, itimer_signal[which], ran),
				    itimer_signal[which], NULL);
		}
	}
}
