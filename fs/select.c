/* select and pselect6: poll's work with bitmaps of descriptors. */
#include <ccos/file.h>
#include <ccos/tty.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/time.h>
#include <ccos/uaccess.h>

/*
 * Three bitmaps of nfds bits each (in longs, as Linux's fd_set), for
 * reading, writing and exceptions. Each descriptor named in any becomes
 * one pollfd with the events Linux's select maps the bitmaps to (POLLIN,
 * POLLOUT, POLLPRI; an error or hang-up counts as ready for reading, an
 * error for writing too), and the wait is poll's (fs/poll.c). On return
 * each bitmap holds the descriptors ready in its way, and the call says
 * how many bits are set in all three. A descriptor that is not open is
 * EBADF, before any wait. nfds past the table's size counts as its size,
 * as on Linux.
 */
#define FDS_LONGS	((NOFILE + 63) / 64)
#define IN_SET		(POLLIN | POLLHUP | POLLERR)
#define OUT_SET		(POLLOUT | POLLERR)
#define EX_SET		POLLPRI

struct fd_sets {
	uint64_t in[FDS_LONGS], out[FDS_LONGS], ex[FDS_LONGS];
};

static bool bit(const uint64_t *set, int fd)
{
	return set[fd / 64] >> (fd % 64) & 1;
}

/* fd is ready in the way of set if revents has one of events and the caller asked: counts 1. */
static int mark(uint64_t *got, const uint64_t *want, int fd, short revents, short events)
{
	if (!(revents & events) || !bit(want, fd))
		return 0;
	got[fd / 64] |= 1ul << fd % 64;
	return 1;
}

static long get_set(uint64_t *set, const uint64_t __user *uset, int nfds)
{
	memset(set, 0, FDS_LONGS * 8);
	if (uset && copy_from_user(set, uset, (nfds + 7) / 8))
		return -EFAULT;
	if (nfds % 64)
		set[nfds / 64] &= (1ul << nfds % 64) - 1;
	return 0;
}

static long put_set(uint64_t __user *uset, const uint64_t *set, int nfds)
{
	return uset && copy_to_user(uset, set, (nfds + 7) / 8) ? -EFAULT : 0;
}

/* The bitmaps' descriptors as pollfds in fds (n of them), then the wait, then the bitmaps back. */
static long select_fds(struct pollfd *fds, int nfds, const struct fd_sets *want, uint64_t __user *uin,
		       uint64_t __user *uout, uint64_t __user *uex, uint64_t deadline_ns)
{
	struct fd_sets got = { 0 };
	long n = 0, i, ready = 0, err;
	int fd;

	for (fd = 0; fd < nfds; fd++) {
		short events = (bit(want->in, fd) ? IN_SET : 0) | (bit(want->out, fd) ? OUT_SET : 0) |
			       (bit(want->ex, fd) ? EX_SET : 0);

		if (!events)
			continue;
		if (WITH_FILE(fd, f, 0) == -EBADF)
			return -EBADF;
		fds[n++] = (struct pollfd){ .fd = fd, .events = events };
	}
	if ((err = poll_wait(fds, n, deadline_ns)) < 0)
		return err;
	for (i = 0; i < n; i++) {
		fd = fds[i].fd;
		ready += mark(got.in, want->in, fd, fds[i].revents, IN_SET);
		ready += mark(got.out, want->out, fd, fds[i].revents, OUT_SET);
		ready += mark(got.ex, want->ex, fd, fds[i].revents, EX_SET);
	}
	if ((err = put_set(uin, got.in, nfds)) || (err = put_set(uout, got.out, nfds)) ||
	    (err = put_set(uex, got.ex, nfds)))
		return err;
	return ready;
}

static long do_select(int nfds, uint64_t __user *uin, uint64_t __user *uout,
		      uint64_t __user *uex, uint64_t deadline_ns)
{
	struct fd_sets want;
	struct pollfd *fds;
	long err;

	if (nfds < 0)
		return -EINVAL;
	nfds = MIN(nfds, NOFILE);
	if ((err = get_set(want.in, uin, nfds)) || (err = get_set(want.out, uout, nfds)) ||
	    (err = get_set(want.ex, uex, nfds)))
		return err;
	if (!(fds = kmalloc(nfds * sizeof(*fds) + 1)))	/* 8 KiB at most: not on the stack */
		return -ENOMEM;
	err = select_fds(fds, nfds, &want, uin, uout, uex, deadline_ns);
	kfree(fds);
	return err;
}

/* The deadline of a timeout from start (CLOCK_MONOTONIC): never 0 (none), at most KTIME_MAX. */
static uint64_t deadline_of(const struct timespec *ts, uint64_t start)
{
	return ktime_add_safe(ktime_add_safe(start, timespec_to_ns(ts)), 1);
}

/*
 * What is left of a timeout ts that began at start, as Linux writes it
 * back: the timeout less the time since, in seconds and nanoseconds (so
 * a timeout past KTIME_MAX comes back whole but for the wait), 0 once past.
 */
static struct timespec time_left(const struct timespec *ts, uint64_t start)
{
	uint64_t gone = ktime_get_ns() - start;
	struct timespec left = { ts->tv_sec - gone / NSEC_PER_SEC, ts->tv_nsec - gone % NSEC_PER_SEC };

	if (left.tv_nsec < 0) {
		left.tv_sec--;
		left.tv_nsec += NSEC_PER_SEC;
	}
	return left.tv_sec < 0 ? (struct timespec){ 0, 0 } : left;
}

long sys_select(int nfds, uint64_t __user *in, uint64_t __user *out, uint64_t __user *ex,
		struct timeval __user *utv)
{
	uint64_t start = ktime_get_ns(), deadline = 0;
	struct timespec ts;
	struct timeval tv;
	long ret;

	if (utv) {
		if (copy_from_user(&tv, utv, sizeof(tv)))
			return -EFAULT;
		/*
		 * As Linux: whole seconds of tv_usec carried over, then a
		 * negative part is EINVAL, as is a carry past the largest
		 * time (which Linux's wrap makes negative).
		 */
		if (__builtin_add_overflow(tv.tv_sec, tv.tv_usec / USEC_PER_SEC, &tv.tv_sec))
			return -EINVAL;
		tv.tv_usec %= USEC_PER_SEC;
		if (tv.tv_sec < 0 || tv.tv_usec < 0)
			return -EINVAL;
		ts = (struct timespec){ tv.tv_sec, tv.tv_usec * NSEC_PER_USEC };
		deadline = deadline_of(&ts, start);
	}
	ret = do_select(nfds, in, out, ex, deadline);
	if (utv) {
		ts = time_left(&ts, start);
		tv = (struct timeval){ ts.tv_sec, ts.tv_nsec / NSEC_PER_USEC };
		if (copy_to_user(utv, &tv, sizeof(tv)) && ret >= 0)
			ret = -EFAULT;
	}
	return ret;
}

/* pselect6's sixth argument: the mask for the wait, and its size. */
struct sigset_arg {
	const uint64_t __user *set;
	size_t size;
};

/* As ppoll: the mask holds for the wait, and after the handler of a signal that ended it. */
long sys_pselect6(int nfds, uint64_t __user *in, uint64_t __user *out, uint64_t __user *ex,
		  struct timespec __user *uts, const struct sigset_arg __user *usig)
{
	struct sigset_arg sig = { 0 };
	uint64_t start = ktime_get_ns(), deadline = 0;
	struct timespec ts;
	long ret;

	if (uts) {
		if (copy_from_user(&ts, uts, sizeof(ts)))
			return -EFAULT;
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= NSEC_PER_SEC)
			return -EINVAL;
		deadline = deadline_of(&ts, start);
	}
	if (usig && copy_from_user(&sig, usig, sizeof(sig)))
		return -EFAULT;
	if (sig.set && (ret = sigmask_set_temporary(sig.set, sig.size)))
		return ret;
	ret = do_select(nfds, in, out, ex, deadline);
	if (sig.set && ret != -EINTR)
		sigmask_restore();
	if (uts) {
		ts = time_left(&ts, start);
		if (copy_to_user(uts, &ts, sizeof(ts)) && ret >= 0)
			ret = -EFAULT;
	}
	return ret;
}
