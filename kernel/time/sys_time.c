/* Time system calls: gettimeofday, time, clock_gettime, clock_getres, nanosleep, alarm. */
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
	int err = do_clock_gettime(clock, &ts);

	if (err)
		return err;
	return copy_to_user(uts, &ts, sizeof(ts)) ? -EFAULT : 0;
}

long sys_clock_getres(int clock, struct timespec __user *uts)
{
	struct timespec ts;
	int err = do_clock_getres(clock, &ts);

	if (err)
		return err;
	if (uts && copy_to_user(uts, &ts, sizeof(ts)))
		return -EFAULT;
	return 0;
}

#define TIMER_ABSTIME	1
#define FOREVER_SEC	((1l << 62) / NSEC_PER_SEC)	/* as Linux saturates, a time from here on is never */

/*
 * Sleep until CLOCK_MONOTONIC reaches deadline (ns); the scheduler wakes
 * the process at the first tick past it. A signal ends the sleep early
 * with -EINTR and the time left in rem.
 */
static long sleep_until_ns(uint64_t deadline, struct timespec __user *rem)
{
	struct process *p = current();

	while (ktime_get_ns() < deadline) {
		sleep_until(NULL, deadline);
		if (signal_pending(p)) {
			uint64_t now = ktime_get_ns(), left = deadline > now ? deadline - now : 0;
			struct timespec r = { left / NSEC_PER_SEC, left % NSEC_PER_SEC };

			if (rem && copy_to_user(rem, &r, sizeof(r)))
				return -EFAULT;
			return -EINTR;
		}
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

/* A time from now on CLOCK_MONOTONIC; never (~0) for one too long to count in nanoseconds. */
static uint64_t after_now(const struct timespec *ts)
{
	if (ts->tv_sec >= FOREVER_SEC)
		return ~0ull;
	return ktime_get_ns() + ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

/*
 * The CLOCK_MONOTONIC deadline of a relative timeout (ppoll,
 * rt_sigtimedwait), for sleeps where 0 means none: 0 without uts, and
 * for a timeout too long to count in nanoseconds (over a century, as
 * Linux saturates it); else now, the timeout and 1, never 0, so that a
 * zero timeout still returns at once.
 */
long timeout_deadline(const struct timespec __user *uts, uint64_t *deadline)
{
	struct timespec ts;
	uint64_t at;
	long err;

	*deadline = 0;
	if (!uts)
		return 0;
	if ((err = read_request(uts, &ts)))
		return err;
	if ((at = after_now(&ts)) != ~0ull)
		*deadline = at + 1;
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

long sys_clock_nanosleep(int clock, int flags, const struct timespec __user *ureq,
			 struct timespec __user *rem)
{
	struct timespec req, now;
	long err = read_request(ureq, &req);
	int64_t ns;

	if (err)
		return err;
	if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC && clock != CLOCK_BOOTTIME)
		return -EINVAL;
	if (req.tv_sec >= FOREVER_SEC)
		return sleep_until_ns(~0ull, flags & TIMER_ABSTIME ? NULL : rem);
	ns = req.tv_sec * NSEC_PER_SEC + req.tv_nsec;
	if (flags & TIMER_ABSTIME) {	/* a time on `clock`: turn it into a monotonic deadline */
		do_clock_gettime(clock, &now);
		ns -= now.tv_sec * NSEC_PER_SEC + now.tv_nsec;
		rem = NULL;		/* Linux leaves rem alone for absolute sleeps */
		if (ns <= 0)
			return 0;
	}
	return sleep_until_ns(ktime_get_ns() + ns, rem);
}

/*
 * SIGALRM after this many seconds (0 cancels); the scheduler sends it at
 * its first pass after the time. As Linux's alarm: the seconds left of the
 * previous alarm, rounded to the nearest, and at least 1 if one was set;
 * fork does not copy an alarm, exec keeps it.
 */
long sys_alarm(unsigned int seconds)
{
	struct process *p = current();
	uint64_t now = ktime_get_ns(), left = 0;

	if (p->alarm_at_ns > now)
		left = MAX((p->alarm_at_ns - now + NSEC_PER_SEC / 2) / NSEC_PER_SEC, 1);
	p->alarm_at_ns = seconds ? now + (uint64_t)seconds * NSEC_PER_SEC : 0;
	return left;
}
