/* Pipes: a 4 KiB ring between a read end and a write end; pipe and pipe2. */
#include <ccos/file.h>
#include <ccos/tty.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
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
};

static ssize_t pipe_read(struct file *f, char __user *ubuf, size_t n)
{
	struct pipe *pp = f->priv;
	size_t got = 0;

	while (pp->rpos == pp->wpos) {
		if (!pp->writers)
			return 0;	/* end of file: every write end is closed */
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		sleep_on(pp);
		if (signal_pending(current()))
			return -EINTR;
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
			sleep_on(pp);
			if (signal_pending(current()))
				return done ? (ssize_t)done : -EINTR;
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

	if ((f->flags & O_ACCMODE) == O_WRONLY)
		pp->writers--;
	else
		pp->readers--;
	wakeup(pp);
	poll_wake();
	if (!pp->readers && !pp->writers)
		kfree(pp);
}

static void pipe_stat(struct file *f, struct stat *st)
{
	st->st_mode = S_IFIFO | 0600;
	st->st_ino = (uint64_t)f->priv >> 4;
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
