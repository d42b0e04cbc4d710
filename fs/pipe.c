/* Pipes: a 4 KiB ring between a read end and a write end; pipe and pipe2, and /tmp's FIFOs. */
#include <ccos/file.h>
#include <ccos/tty.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/uaccess.h>

#define PIPE_SIZE	4096	/* a power of two: the indices run free and wrap */

struct pipe {
	char buf[PIPE_SIZE];
	uint32_t rpos, wpos;	/* bytes read and written so far */
	int readers, writers;	/* open ends */
	unsigned int read_opens, write_opens;	/* a FIFO's opens so far, for the waits of open */
	struct pipe **owner;	/* a FIFO's: its node's pointer to it, cleared when it goes */
	uint64_t ino;		/* what fstat says: a pipe's number, or the FIFO's node's */
};

/* Linux numbers pipefs's inodes with a counter too (get_next_ino): never an address. */
static uint64_t next_pipe_ino = 1;

static ssize_t pipe_read(struct file *f, char __user *ubuf, size_t n)
{
	struct pipe *pp = f->priv;
	size_t got = 0;

	while (pp->rpos == pp->wpos) {
		if (!pp->writers)
			return 0;	/* end of file: every write end is closed */
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		if (signal_pending(current()))
			return -ERESTARTSYS;
		sleep_on(pp);
	}
	while (got < n && pp->rpos != pp->wpos) {
		uint32_t at = pp->rpos % PIPE_SIZE;
		size_t len = MIN(n - got, MIN(pp->wpos - pp->rpos, PIPE_SIZE - at));

		if (copy_to_user(ubuf + got, pp->buf + at, len))
			return got ? (ssize_t)got : -EFAULT;
		pp->rpos += len;
		got += len;
	}
	wakeup(pp);
	poll_wake();
	return got;
}

/* A write with no reader left is EPIPE and SIGPIPE, as on Linux. */
static ssize_t pipe_write(struct file *f, const char __user *ubuf, size_t n)
{
	struct pipe *pp = f->priv;
	size_t done = 0;

	while (done < n) {
		uint32_t at = pp->wpos % PIPE_SIZE;
		size_t len;

		if (!pp->readers) {
			send_signal_thread(current(), SIGPIPE, NULL);	/* the writer's, as Linux's */
			return done ? (ssize_t)done : -EPIPE;
		}
		if (pp->wpos - pp->rpos == PIPE_SIZE) {
			if (f->flags & O_NONBLOCK)
				return done ? (ssize_t)done : -EAGAIN;
			if (signal_pending(current()))
				return done ? (ssize_t)done : -ERESTARTSYS;
			sleep_on(pp);
			continue;
		}
		len = MIN(n - done, MIN(PIPE_SIZE - (pp->wpos - pp->rpos), PIPE_SIZE - at));
		if (copy_from_user(pp->buf + at, ubuf + done, len))
			return done ? (ssize_t)done : -EFAULT;
		pp->wpos += len;
		done += len;
		wakeup(pp);
		poll_wake();
	}
	return done;
}

static unsigned int pipe_poll_read(struct file *f)
{
	struct pipe *pp = f->priv;

	return (pp->rpos != pp->wpos ? POLLIN : 0) | (!pp->writers ? POLLHUP : 0);
}

static unsigned int pipe_poll_write(struct file *f)
{
	struct pipe *pp = f->priv;

	if (!pp->readers)
		return POLLERR;
	return pp->wpos - pp->rpos < PIPE_SIZE ? POLLOUT : 0;
}

static void pipe_release(struct file *f)
{
	struct pipe *pp = f->priv;

	pp->writers -= (f->flags & O_ACCMODE) != O_RDONLY;
	pp->readers -= (f->flags & O_ACCMODE) != O_WRONLY;
	wakeup(pp);
	poll_wake();
	if (pp->readers || pp->writers)
		return;
	if (pp->owner)
		*pp->owner = NULL;
	kfree(pp);
}

static void pipe_stat(struct file *f, struct stat *st)
{
	struct pipe *pp = f->priv;

	st->st_mode = S_IFIFO | 0600;
	st->st_ino = pp->ino;
	st->st_blksize = PIPE_SIZE;
}

static const struct file_ops pipe_read_ops = {
	.read = pipe_read, .release = pipe_release, .poll = pipe_poll_read,
	.stat = pipe_stat, .stream = true,
};

static const struct file_ops pipe_write_ops = {
	.write = pipe_write, .release = pipe_release, .poll = pipe_poll_write,
	.stat = pipe_stat, .stream = true,
};

static const struct file_ops pipe_rdwr_ops = {
	.read = pipe_read, .write = pipe_write, .release = pipe_release, .poll = pipe_poll_read,
	.stat = pipe_stat, .stream = true,
};

/*
 * open of a FIFO whose pipe is *slot (NULL until the first open; the
 * node's), which fstat numbers ino, as stat numbers the node. As Linux: O_RDONLY waits for a writer and O_WRONLY for a
 * reader, unless O_NONBLOCK (then a writer without a reader is ENXIO);
 * O_RDWR is both ends and never waits. The data goes with the last close.
 */
struct file *fifo_open(struct pipe **slot, uint64_t ino, int flags, long *err)
{
	int mode = flags & O_ACCMODE;
	struct pipe *pp = *slot;
	unsigned int *other, seen;
	int *ends;
	struct file *f;

	if (!pp && !(pp = kzalloc(sizeof(*pp)))) {
		*err = -ENOMEM;
		return NULL;
	}
	*slot = pp;
	pp->owner = slot;
	pp->ino = ino;
	if (mode == O_WRONLY && !pp->readers && (flags & O_NONBLOCK)) {
		*err = -ENXIO;
		f = NULL;
	} else if (!(f = file_new(mode == O_RDONLY ? &pipe_read_ops : mode == O_WRONLY ?
				  &pipe_write_ops : &pipe_rdwr_ops, NULL, 0))) {
		*err = -ENOMEM;
	}
	if (!f) {
		if (!pp->readers && !pp->writers) {
			*slot = NULL;
			kfree(pp);
		}
		return NULL;
	}
	f->priv = pp;
	f->flags = mode;
	pp->readers += mode != O_WRONLY;
	pp->writers += mode != O_RDONLY;
	pp->read_opens += mode != O_WRONLY;
	pp->write_opens += mode != O_RDONLY;
	wakeup(pp);
	/* Until the other end is open, or was opened (and maybe closed) since. */
	other = mode == O_RDONLY ? &pp->write_opens : &pp->read_opens;
	ends = mode == O_RDONLY ? &pp->writers : &pp->readers;
	for (seen = *other; mode != O_RDWR && !(flags & O_NONBLOCK) && !*ends && *other == seen;) {
		if (signal_pending(current())) {
			file_put(f);
			*err = -ERESTARTSYS;
			return NULL;
		}
		sleep_on(pp);
	}
	*err = 0;
	return f;
}

/* The node that owned a FIFO's pipe is gone: the open ends keep the pipe. */
void fifo_orphan(struct pipe *pp)
{
	if (pp)
		pp->owner = NULL;
}

long sys_pipe2(int __user *ufds, int flags)
{
	struct process *p = current();
	struct pipe *pp;
	struct file *rf, *wf;
	int fds[2];

	if (flags & ~(O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	if (!(pp = kzalloc(sizeof(*pp))))
		return -ENOMEM;
	rf = file_new(&pipe_read_ops, NULL, 0);
	wf = file_new(&pipe_write_ops, NULL, 0);
	if (!rf || !wf) {
		kfree(rf);
		kfree(wf);
		kfree(pp);
		return -ENOMEM;
	}
	rf->priv = wf->priv = pp;
	rf->flags = O_RDONLY | (flags & O_NONBLOCK);
	wf->flags = O_WRONLY | (flags & O_NONBLOCK);
	pp->readers = pp->writers = 1;
	pp->ino = next_pipe_ino++;
	fds[0] = fd_install(rf);
	fds[1] = fds[0] < 0 ? -EMFILE : fd_install(wf);
	if (fds[1] < 0 || copy_to_user(ufds, fds, sizeof(fds))) {
		if (fds[0] >= 0)
			p->files->fd[fds[0]] = NULL;
		if (fds[1] >= 0)
			p->files->fd[fds[1]] = NULL;
		file_put(rf);
		file_put(wf);
		return fds[1] < 0 ? -EMFILE : -EFAULT;
	}
	if (flags & O_CLOEXEC)
		p->files->cloexec |= (1ull << fds[0]) | (1ull << fds[1]);
	return 0;
}

long sys_pipe(int __user *fds)
{
	return sys_pipe2(fds, 0);
}
