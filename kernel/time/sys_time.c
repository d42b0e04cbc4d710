/* Time system calls: gettimeofday, time, clock_gettime, clock_getres, setting the wall clock, nanosleep (timers: itimer.c, posix-timers.c). */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/time.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>

long sys_gettimeofday(struct timeval __user *utv, struct timezone __user *utz)
{
	struct timeval tv;
	struct timezone tz;

	do_gettimeofday(&tv, &tz);
	/* A field at a time, as Linux does: a mov each, not a copy loop. */
	if (utv && (put_user(tv.tv_sec, &utv->tv_sec) || put_user(tv.tv_usec, &utv->tv_usec)))
		return -EFAULT;
	if (utz && (put_user(tz.tz_minuteswest, &utz->tz_minuteswest) ||
		    put_user(tz.tz_dsttime, &utz->tz_dsttime)))
		return -EFAULT;
	return 0;
}

long sys_time(int64_t __user *t)
{
	int64_t now = ktime_get_real_seconds();

	if (t && put_user(now, t))
		return -EFAULT;
	return now;
}

long sys_clock_gettime(int clock, struct timespec __user *uts)
{
	struct timespec ts;
	/* Lockless: a CPU-time clock takes the lock for its reading (posix-cpu-timers.c). */
	int err = is_cpu_clock(clock) ? lockless_cpu_clock(cpu_clock_gettime, clock, &ts)
				      : do_clock_gettime(clock, &ts);

	if (err)
		return err;
	return copy_to_user(uts, &ts, sizeof(ts)) ? -EFAULT : 0;
}

long sys_clock_getres(int clock, struct timespec __user *uts)
{
	struct timespec ts;
	int err = is_cpu_clock(clock) ? lockless_cpu_clock(cpu_clock_getres, clock, &ts)
				      : do_clock_getres(clock, &ts);

	if (err)
		return err;
	if (uts && copy_to_user(uts, &ts, sizeof(ts)))
		return -EFAULT;
	return 0;
}

/* Linux's TIME_SETTOD_SEC_MAX: the largest time in nanoseconds (KTIME_MAX) less 30 years of uptime. */
#define SETTOD_SEC_MAX	(9223372036l - 30l * 365 * 24 * 60 * 60)

/*
 * Sleepers until a time of the wall clock sleep on this channel, with the
 * monotonic time at which the clock would read it as their deadline:
 * setting the clock wakes them to look at it again, as Linux's
 * clock_was_set retriggers its timers of absolute wall-clock time. A
 * futex waiter with such a deadline sleeps here too (deadline_chan), and
 * its wake wakes the others, which look and sleep again. The POSIX timers
 * of that kind look at the clock at every tick (posix-timers.c).
 */
const char clock_was_set;

/* Where a wait until d sleeps: the wall clock's channel for a wall-clock time, else chan. */
const void *deadline_chan(const struct deadline *d, const void *chan)
{
	return d->ns && d->clock != CLOCK_MONOTONIC ? &clock_was_set : chan;
}

static int64_t clock_now_ns(clockid_t clock)
{
	struct timespec now;

	do_clock_gettime(clock, &now);
	return now.tv_sec * NSEC_PER_SEC + now.tv_nsec;
}

bool deadline_passed(const struct deadline *d)
{
	return d->ns && clock_now_ns(d->clock) >= (int64_t)d->ns;
}

/* Sleep on chan until woken, or until d as its clock reads now (a tick late at most). */
void sleep_until_deadline(const void *chan, const struct deadline *d)
{
	int64_t left = d->ns ? (int64_t)d->ns - clock_now_ns(d->clock) : 0;

	sleep_until(chan, d->ns ? ktime_add_safe(ktime_get_ns(), MAX(left, 1)) : 0);
}

/*
 * As Linux's do_sys_settimeofday64: a time it cannot keep (negative, past
 * SETTOD_SEC_MAX, or with nanoseconds out of range) is EINVAL, and so is a
 * time zone more than 15 hours from UTC. Linux then asks for CAP_SYS_TIME
 * (EPERM), as ccos does.
 */
static long set_time(const struct timespec *ts, const struct timezone *tz)
{
	long err;

	if (ts && (ts->tv_sec < 0 || ts->tv_sec >= SETTOD_SEC_MAX || ts->tv_nsec < 0 ||
		   ts->tv_nsec >= NSEC_PER_SEC))
		return -EINVAL;
	if (tz && (tz->tz_minuteswest > 15 * 60 || tz->tz_minuteswest < -15 * 60))
		return -EINVAL;
	if (!capable(CAP_SYS_TIME))
		return -EPERM;
	if ((err = do_settimeofday(ts, tz)))
		return err;
	if (ts)
		wakeup(&clock_was_set);
	return 0;
}

long sys_settimeofday(const struct timeval __user *utv, const struct timezone __user *utz)
{
	struct timeval tv;
	struct timespec ts;
	struct timezone tz;

	if (utv) {
		if (copy_from_user(&tv, utv, sizeof(tv)))
			return -EFAULT;
		if (tv.tv_usec > USEC_PER_SEC || tv.tv_usec < 0)
			return -EINVAL;
		ts.tv_sec = tv.tv_sec;
		ts.tv_nsec = tv.tv_usec * NSEC_PER_USEC;
	}
	if (utz && copy_from_user(&tz, utz, sizeof(tz)))
		return -EFAULT;
	return set_time(utv ? &ts : NULL, utz ? &tz : NULL);
}

/* Only CLOCK_REALTIME can be set: the others (monotonic, boot time, the coarse ones) are EINVAL, as Linux. */
long sys_clock_settime(int clock, const struct timespec __user *uts)
{
	struct timespec ts;

	if (clock != CLOCK_REALTIME)
		return -EINVAL;
	if (copy_from_user(&ts, uts, sizeof(ts)))
		return -EFAULT;
	return set_time(&ts, NULL);
}

#define TIMER_ABSTIME	1

/*
 * Sleep until CLOCK_MONOTONIC reaches deadline (ns); the scheduler wakes
 * the process at the first tick past it. A signal ends the sleep early
 * with -EINTR and the time left in rem; a sleep whose time has come when
 * it wakes ends with 0, a signal pending or not, as Linux's do_nanosleep
 * (its timer ran: nothing is left).
 */
static long sleep_until_ns(uint64_t deadline, struct timespec __user *rem)
{
	uint64_t now;

	while ((now = ktime_get_ns()) < deadline) {
		if (signal_pending(current())) {
			struct timespec r = { (deadline - now) / NSEC_PER_SEC,
					      (deadline - now) % NSEC_PER_SEC };

			if (rem && copy_to_user(rem, &r, sizeof(r)))
				return -EFAULT;
			return -EINTR;
		}
		sleep_until(NULL, deadline);
	}
	return 0;
}

static long read_request(const struct timespec __user *ureq, struct timespec *req)
{
	if (copy_from_user(req, ureq, sizeof(*req)))
		return -EFAULT;
	if (req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= NSEC_PER_SEC)
		return -EINVAL;
	return 0;
}

/* A time from now on CLOCK_MONOTONIC, at most KTIME_MAX (never). */
static uint64_t after_now(const struct timespec *ts)
{
	return ktime_add_safe(ktime_get_ns(), timespec_to_ns(ts));
}

/*
 * The CLOCK_MONOTONIC deadline of a relative timeout (ppoll,
 * rt_sigtimedwait), for sleeps where 0 means none: 0 without uts; else
 * now, the timeout and 1, never 0, so that a zero timeout still returns
 * at once, and at most KTIME_MAX, as Linux saturates it.
 */
long timeout_deadline(const struct timespec __user *uts, uint64_t *deadline)
{
	struct timespec ts;
	long err;

	*deadline = 0;
	if (!uts)
		return 0;
	if ((err = read_request(uts, &ts)))
		return err;
	*deadline = ktime_add_safe(after_now(&ts), 1);
	return 0;
}

long sys_nanosleep(const struct timespec __user *ureq, struct timespec __user *rem)
{
	struct timespec req;
	long err = read_request(ureq, &req);

	if (err)
		return err;
	return sleep_until_ns(after_now(&req), rem);
}

/*
 * Sleep until the wall clock (CLOCK_REALTIME, or CLOCK_TAI, which follows
 * it) reads at: until the monotonic time at which it would, and again from
 * the clock each time the clock is set, so that setting it ends the sleep
 * sooner or makes it longer, as on Linux. A signal ends it with -EINTR
 * (an absolute sleep leaves rem alone), unless its time has come.
 */
static long sleep_until_wall(clockid_t clock, int64_t at)
{
	struct deadline d = { .clock = clock, .ns = MAX(at, 1) };

	while (!deadline_passed(&d)) {
		if (signal_pending(current()))
			return -EINTR;
		sleep_until_deadline(&clock_was_set, &d);
	}
	return 0;
}

/*
 * As Linux: a clock that does not exist is EINVAL, one it gives no sleep
 * (the raw and coarse clocks, the caller's thread CPU clock) EOPNOTSUPP,
 * before the request is read; so are the alarm clocks, as on a Linux
 * machine without an RTC that can wake it (alarmtimer.c). The CPU-time
 * clocks: posix-cpu-timers.c.
 */
static long clock_can_sleep(int clock)
{
	struct timespec res;

	if (clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC || clock == CLOCK_BOOTTIME ||
	    clock == CLOCK_TAI || (is_cpu_clock(clock) && clock != CLOCK_THREAD_CPUTIME_ID))
		return 0;
	if (clock == CLOCK_REALTIME_ALARM || clock == CLOCK_BOOTTIME_ALARM)
		return -EOPNOTSUPP;
	return do_clock_getres(clock, &res) ? -EINVAL : -EOPNOTSUPP;
}

long sys_clock_nanosleep(int clock, int flags, const struct timespec __user *ureq,
			 struct timespec __user *rem)
{
	struct timespec req, now;
	long err = clock_can_sleep(clock);
	int64_t ns;

	if (err || (err = read_request(ureq, &req)))
		return err;
	if (is_cpu_clock(clock))
		return cpu_clock_nanosleep(clock, flags, &req, rem);
	ns = timespec_to_ns(&req);
	if (flags & TIMER_ABSTIME && (clock == CLOCK_REALTIME || clock == CLOCK_TAI))
		return sleep_until_wall(clock, ns);
	if (flags & TIMER_ABSTIME) {	/* CLOCK_MONOTONIC's or CLOCK_BOOTTIME's time: the deadline */
		do_clock_gettime(clock, &now);
		ns -= now.tv_sec * NSEC_PER_SEC + now.tv_nsec;
		rem = NULL;		/* Linux leaves rem alone for absolute sleeps */
		if (ns <= 0)
			return 0;
	}
	return sleep_until_ns(ktime_add_safe(ktime_get_ns(), ns), rem);
}
