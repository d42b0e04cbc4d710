/* POSIX timers: timer_create, timer_settime, timer_gettime, timer_getoverrun and timer_delete. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/time.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>

/*
 * A process's timers, each with an id of its own (timer_t, from 0), on
 * CLOCK_REALTIME, CLOCK_MONOTONIC or CLOCK_BOOTTIME (the same clock as
 * MONOTONIC here: ccos never suspends), CLOCK_TAI, or a CPU-time clock.
 * A timer on the clocks of time is due at a CLOCK_MONOTONIC deadline,
 * which the scheduler's pass at each tick checks, as the alarm's; but one
 * set to an absolute CLOCK_REALTIME or CLOCK_TAI time is due when that
 * clock reads it, which the same pass looks at, so that setting the clock
 * moves it, as on Linux (a relative one stays on the monotonic clock, as
 * Linux's hrtimer puts it there too). A timer on a
 * CPU-time clock keeps the clock with its owner named (pid 0 resolved:
 * posix-cpu-timers.c) and is due when that clock reaches its deadline,
 * which the same pass samples when it follows a switch from a thread
 * whose running moves that clock (timers_run); it stops for good when its
 * owner ends. A timer with an interval starts again at each expiry.
 *
 * At an expiry it queues its signal (SIGEV_SIGNAL: to the process, for
 * a thread of it that runs to take; SIGEV_THREAD_ID: to one of its
 * threads; SIGEV_NONE: none), with
 * si_code SI_TIMER, its id and the sigev_value; the signal is queued
 * once, in an entry the timer owns (sigq), as Linux's timer has one
 * preallocated for it, so no limit or want of memory refuses it: while it waits
 * (blocked, say), each further expiry only counts an overrun, and the
 * signal carries the count when it is taken (posix_timer_dequeued), which
 * timer_getoverrun then reports. Setting the timer again or deleting it
 * takes back a signal of it still pending. exec and the end of the
 * process delete them.
 */
#define NTIMERS		64	/* in the whole system */
#define SIGEV_SIGNAL	0
#define SIGEV_NONE	1
#define SIGEV_THREAD	2	/* the C library's: to the kernel, as SIGEV_SIGNAL */
#define SIGEV_THREAD_ID	4
#define TIMER_ABSTIME	1
#define DELAYTIMER_MAX	0x7fffffff

struct sigevent {
	uint64_t value;		/* sigev_value */
	int signo, notify;
	int tid;		/* SIGEV_THREAD_ID */
	int pad[11];
};

struct k_itimer {
	int tgid;		/* the process's; 0: a free slot */
	int id;
	clockid_t clock;
	int notify, signo, tid;
	uint64_t value;
	uint64_t expires;	/* CLOCK_MONOTONIC ns, or the wall's, or the CPU clock's; 0: not armed */
	bool wall;		/* expires is a time of its clock, CLOCK_REALTIME or CLOCK_TAI */
	uint64_t interval;
	int64_t overrun;	/* expiries since the signal was queued */
	int overrun_last;	/* what the last signal carried */
	bool queued;		/* its signal waits in a pending set */
	struct sigqueue sigq;	/* where it waits when one of its number is pending already */
};

static struct k_itimer timers[NTIMERS];

static struct k_itimer *find_timer(int tgid, int id)
{
	struct k_itimer *t;

	for (t = timers; t < timers + NTIMERS; t++)
		if (t->tgid == tgid && t->id == id)
			return t;
	return NULL;
}

static struct k_itimer *free_slot(void)
{
	struct k_itimer *t;

	for (t = timers; t < timers + NTIMERS; t++)
		if (!t->tgid)
			return t;
	return NULL;
}

static struct k_itimer *own_timer(int id)
{
	return id < 0 ? NULL : find_timer(current()->tgid, id);
}

/* Where its signal goes: the thread it names (a thread of the process still), or the leader. */
static struct process *timer_target(const struct k_itimer *t)
{
	struct process *p = proc_find(t->notify == SIGEV_THREAD_ID ? t->tid : t->tgid);

	return p && p->tgid == t->tgid ? p : NULL;
}

static void unqueue(struct k_itimer *t)
{
	struct process *p = timer_target(t);

	if (t->queued && p)
		flush_timer_signal(p, t->notify == SIGEV_THREAD_ID, t->signo, t->id);
	t->queued = false;
	t->overrun = 0;
}

/* Now on the clock of its deadline, given CLOCK_MONOTONIC's; false if its CPU clock's owner is gone. */
static bool timer_now(const struct k_itimer *t, uint64_t mono, uint64_t *now)
{
	struct timespec ts;

	*now = mono;
	if (t->wall) {
		do_clock_gettime(t->clock, &ts);
		*now = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	}
	return !is_cpu_clock(t->clock) || !cpu_clock_sample(t->clock, now);
}

static void fire(struct k_itimer *t, uint64_t now, struct process *ran)
{
	uint64_t missed = t->interval ? (now - t->expires) / t->interval : 0;
	siginfo_t info = { .si_signo = t->signo, .si_code = SI_TIMER };
	struct process *p;

	t->expires = t->interval ? ktime_add_safe(t->expires, (missed + 1) * t->interval) : 0;
	if (t->notify == SIGEV_NONE)
		return;
	if (t->queued) {
		t->overrun += 1 + missed;
		return;
	}
	info.timer.id = t->id;
	info.timer.value = t->value;
	t->overrun = missed;
	if (!(p = timer_target(t)))
		return;
	if (t->notify != SIGEV_THREAD_ID)
		p = signal_awake_thread(p, t->signo, ran);
	t->queued = send_sigqueue(p, t->notify == SIGEV_THREAD_ID, t->signo, &info, &t->sigq) > 0;
}

/*
 * The timers whose time has come: from the scheduler's pass at each tick,
 * ran the process the CPU just switched from. A timer on a CPU-time clock
 * is looked at only when ran's time moves that clock, as Linux looks at
 * them in the tick of the thread it charges (run_posix_cpu_timers).
 */
void timers_run(uint64_t now, struct process *ran)
{
	struct k_itimer *t;
	uint64_t at;

	itimers_run(now, ran);
	for (t = timers; t < timers + NTIMERS; t++) {
		if (!t->tgid || !t->expires ||
		    (is_cpu_clock(t->clock) && !(ran && cpu_clock_charged_by(t->clock, ran))))
			continue;
		if (timer_now(t, now, &at) && at >= t->expires)
			fire(t, at, ran);
	}
}

/*
 * A timer's signal leaves its pending set: it carries the overruns
 * counted since it was queued, those of expiries that are due and that no
 * tick has run yet included (Linux counts them when it sets the timer
 * again here, hrtimer_forward).
 */
void posix_timer_dequeued(struct process *p, siginfo_t *info)
{
	struct k_itimer *t = find_timer(p->tgid, info->timer.id);
	uint64_t now;

	if (!t)
		return;
	if (t->interval && t->expires && timer_now(t, ktime_get_ns(), &now) && now >= t->expires) {
		uint64_t due = 1 + (now - t->expires) / t->interval;

		t->overrun += due;
		t->expires = ktime_add_safe(t->expires, due * t->interval);
	}
	t->overrun_last = MIN(t->overrun, DELAYTIMER_MAX);
	info->timer.overrun = t->overrun_last;
	t->overrun = 0;
	t->queued = false;
}

/*
 * The clocks with timers: EINVAL for the others, as Linux; a CPU clock as
 * its owner. The alarm clocks are EOPNOTSUPP, as on a Linux machine
 * without an RTC that can wake it (alarmtimer.c).
 */
static int timer_clock(clockid_t clock, clockid_t *resolved)
{
	*resolved = clock;
	if (clock == CLOCK_REALTIME_ALARM || clock == CLOCK_BOOTTIME_ALARM)
		return -EOPNOTSUPP;
	if (is_cpu_clock(clock))
		return cpu_clock_resolve(clock, resolved);
	if (clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC || clock == CLOCK_BOOTTIME ||
	    clock == CLOCK_TAI)
		return 0;
	return -EINVAL;
}

/*
 * As Linux (since 3.10) numbers them: each process counts its ids up from
 * 0, skipping those in use and going round at INT_MAX, so that an id just
 * deleted is not given again at once. A forked child starts from 0; exec
 * goes on counting.
 */
static int next_id(struct process *leader)
{
	int id;

	do {
		id = leader->next_timer_id;
		leader->next_timer_id = (id + 1) & 0x7fffffff;	/* INT_MAX */
	} while (find_timer(leader->tgid, id));
	return id;
}

long sys_timer_create(clockid_t clock, struct sigevent __user *uev, int __user *uid)
{
	struct process *p = current();
	struct sigevent ev = { .signo = SIGALRM, .notify = SIGEV_SIGNAL };
	struct k_itimer *t = free_slot();
	struct process *target;
	long err;

	if ((err = timer_clock(clock, &clock)))
		return err;
	if (uev && copy_from_user(&ev, uev, sizeof(ev)))
		return -EFAULT;
	if (ev.notify != SIGEV_SIGNAL && ev.notify != SIGEV_NONE && ev.notify != SIGEV_THREAD &&
	    ev.notify != SIGEV_THREAD_ID)
		return -EINVAL;
	if (ev.notify != SIGEV_NONE && (ev.signo < 1 || ev.signo > NSIG))
		return -EINVAL;
	if (ev.notify == SIGEV_THREAD_ID &&
	    (!(target = proc_find(ev.tid)) || target->tgid != p->tgid))
		return -EINVAL;
	if (!t)
		return -EAGAIN;
	*t = (struct k_itimer){ .tgid = p->tgid, .id = next_id(p->group_leader), .clock = clock,
				.notify = ev.notify, .signo = ev.signo, .tid = ev.tid,
				.value = ev.value };
	if (!uev)
		t->value = t->id;	/* as Linux: sigev_value is the timer's id */
	if (put_user(t->id, uid)) {
		t->tgid = 0;
		return -EFAULT;
	}
	return 0;
}

static struct timespec ns_timespec(uint64_t ns)
{
	return (struct timespec){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };
}

static bool timespec_valid(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < NSEC_PER_SEC;
}

/*
 * The time left, and the interval. A timer due but not yet run has 1 ns
 * left, its signal still to come, as on Linux; one without a signal
 * (SIGEV_NONE) and without an interval, none: it is over.
 */
static void timer_get(const struct k_itimer *t, struct itimerspec *its)
{
	uint64_t now, left = 0;

	if (!timer_now(t, ktime_get_ns(), &now))
		;		/* its CPU clock's owner is gone: it never fires */
	else if (t->expires && t->expires > now)
		left = t->expires - now;
	else if (t->expires && t->interval)	/* a SIGEV_NONE timer is never run: its next expiry */
		left = t->interval - (now - t->expires) % t->interval;
	else if (t->expires && t->notify != SIGEV_NONE)
		left = 1;
	its->it_value = ns_timespec(left);
	its->it_interval = ns_timespec(t->interval);
}

long sys_timer_gettime(int id, struct itimerspec __user *ucur)
{
	struct k_itimer *t = own_timer(id);
	struct itimerspec its;

	if (!t)
		return -EINVAL;
	timer_get(t, &its);
	return copy_to_user(ucur, &its, sizeof(its)) ? -EFAULT : 0;
}

/*
 * The deadline of an it_value, relative or absolute on the timer's clock:
 * on CLOCK_MONOTONIC (BOOTTIME's time is its), on the wall clock for an
 * absolute time of it, or on its CPU clock. A time past is due now; one
 * past KTIME_MAX is KTIME_MAX, never, as Linux's.
 */
static uint64_t deadline_of(struct k_itimer *t, int flags, const struct timespec *value)
{
	uint64_t at = timespec_to_ns(value), now;

	t->wall = flags & TIMER_ABSTIME && (t->clock == CLOCK_REALTIME || t->clock == CLOCK_TAI);
	if (flags & TIMER_ABSTIME || !timer_now(t, ktime_get_ns(), &now))
		return at;
	return ktime_add_safe(now, at);
}

long sys_timer_settime(int id, int flags, const struct itimerspec __user *unew,
		       struct itimerspec __user *uold)
{
	struct k_itimer *t = own_timer(id);
	struct itimerspec its, old;

	if (!unew)
		return -EINVAL;
	if (copy_from_user(&its, unew, sizeof(its)))
		return -EFAULT;
	if (!t)
		return -EINVAL;
	if (!timespec_valid(&its.it_value) || !timespec_valid(&its.it_interval))
		return -EINVAL;
	timer_get(t, &old);
	unqueue(t);
	t->interval = timespec_to_ns(&its.it_interval);	/* KTIME_MAX at most, as Linux's */
	t->expires = 0;
	if (its.it_value.tv_sec || its.it_value.tv_nsec)
		t->expires = MAX(deadline_of(t, flags, &its.it_value), 1);
	if (uold && copy_to_user(uold, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

long sys_timer_getoverrun(int id)
{
	struct k_itimer *t = own_timer(id);

	return t ? t->overrun_last : -EINVAL;
}

static void timer_free(struct k_itimer *t)
{
	unqueue(t);
	t->tgid = 0;
}

long sys_timer_delete(int id)
{
	struct k_itimer *t = own_timer(id);

	if (!t)
		return -EINVAL;
	timer_free(t);
	return 0;
}

/* exec, and the end of the process: its timers go. */
void exit_posix_timers(int tgid)
{
	struct k_itimer *t;

	for (t = timers; t < timers + NTIMERS; t++)
		if (t->tgid == tgid)
			timer_free(t);
}
