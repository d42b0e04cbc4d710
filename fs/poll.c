/* poll and ppoll: which descriptors are ready, waiting until one is, a timeout, or a signal (select: fs/select.c). */
#include <ccos/tty.h>
#include <ccos/file.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/time.h>
#include <ccos/uaccess.h>

/* One channel for all: pipes and the terminal wake it on every change. */
static char poll_chan;

void poll_wake(void)
{
	wakeup(&poll_chan);
}

static unsigned int file_poll(struct file *f)
{
	return f->ops->poll ? f->ops->poll(f) : POLLIN | POLLOUT;
}

/* Fill in revents; the number of entries with any. */
static int poll_once(struct pollfd *fds, unsigned long n)
{
	unsigned long i;
	int ready = 0;

	for (i = 0; i < n; i++) {
		unsigned int always = POLLERR | POLLHUP;
		long r;

		if (fds[i].fd < 0) {
			fds[i].revents = 0;
			continue;
		}
		r = WITH_FILE(fds[i].fd, f, file_poll(f) & (fds[i].events | always));
		fds[i].revents = r == -EBADF ? POLLNVAL : r;
		if (fds[i].revents)
			ready++;
	}
	return ready;
}

/*
 * Wait until one of fds is ready (revents filled in): how many are, 0 at
 * the deadline, or -EINTR. deadline_ns 0: no timeout; 1: do not wait.
 */
long poll_wait(struct pollfd *fds, unsigned long n, uint64_t deadline_ns)
{
	long ready;

	for (;;) {
		ready = poll_once(fds, n);
		if (ready || (deadline_ns && ktime_get_ns() >= deadline_ns))
			return ready;
		if (signal_pending(current()))
			return -EINTR;
		sleep_until(&poll_chan, deadline_ns);
	}
}

static long do_poll(struct pollfd __user *ufds, unsigned long n, uint64_t deadline_ns)
{
	struct pollfd *fds;
	long ready;

	if (n > NOFILE)		/* Linux: more than RLIMIT_NOFILE is EINVAL */
		return -EINVAL;
	fds = kmalloc(n * sizeof(*fds) + 1);
	if (!fds)
		return -ENOMEM;
	if (copy_from_user(fds, ufds, n * sizeof(*fds))) {
		kfree(fds);
		return -EFAULT;
	}
	ready = poll_wait(fds, n, deadline_ns);
	if (ready >= 0 && copy_to_user(ufds, fds, n * sizeof(*fds)))
		ready = -EFAULT;
	kfree(fds);
	return ready;
}

long sys_poll(struct pollfd __user *fds, unsigned int n, int timeout_ms)
{
	uint64_t deadline = 0;

	if (timeout_ms >= 0)
		deadline = ktime_get_ns() + timeout_ms * NSEC_PER_MSEC + 1;
	return do_poll(fds, n, deadline);
}

/*
 * ppoll: a timespec for the timeout, and a signal mask for the wait only:
 * the old mask comes back on return, or after the handler of the signal
 * that ended the wait (as with rt_sigsuspend).
 */
long sys_ppoll(struct pollfd __user *fds, unsigned int n, const struct timespec __user *uts,
	       const uint64_t __user *umask, size_t setsize)
{
	uint64_t deadline;
	long ret;

	if ((ret = timeout_deadline(uts, &deadline)))
		return ret;
	if (!umask)
		return do_poll(fds, n, deadline);
	if ((ret = sigmask_set_temporary(umask, setsize)))
		return ret;
	/* Only -EINTR leaves a signal to deliver, whose frame keeps the old mask. */
	if ((ret = do_poll(fds, n, deadline)) != -EINTR)
		sigmask_restore();
	return ret;
}
