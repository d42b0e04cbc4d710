/* Pipes: a 4 KiB ring between a read end and a write end; pipe(2). */
#include <ccos/file.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/uaccess.h>

#define PIPE_SIZE	4096	/* a power of two: the counts run free and wrap */

struct pipe {
	char buf[PIPE_SIZE];
	uint32_t rpos, wpos;	/* bytes read and written so far */
	int readers, writers;	/* open ends */
};

/* What is there, at least one byte; 0 once every write end is closed. */
static ssize_t pipe_read(struct file *f, char __user *ubuf, size_t n)
{
	struct pipe *pp = (void *)f->data;
	size_t got = 0;

	while (pp->rpos == pp->wpos) {
		if (!pp->writers)
			return 0;
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
	return got;
}

/* Everything, waiting for room; with no reader left, EPIPE and SIGPIPE, as on Linux. */
static ssize_t pipe_write(struct file *f, const char __user *ubuf, size_t n)
{
	struct pipe *pp = (void *)f->data;
	size_t done = 0;

	while (done < n) {
		uint32_t at = pp->wpos % PIPE_SIZE;
		size_t len;

		if (!pp->readers) {
			send_signal(current(), SIGPIPE, NULL);
			return done ? (ssize_t)done : -EPIPE;
		}
		if (pp->wpos - pp->rpos == PIPE_SIZE) {
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
	}
	return done;
}

static void pipe_release(struct file *f, int *ends)
{
	struct pipe *pp = (void *)f->data;

	(*ends)--;
	wakeup(pp);
	if (!pp->readers && !pp->writers)
		kfree(pp);
}

static void pipe_release_read(struct file *f)
{
	pipe_release(f, &((struct pipe *)f->data)->readers);
}

static void pipe_release_write(struct file *f)
{
	pipe_release(f, &((struct pipe *)f->data)->writers);
}

static const struct file_ops pipe_read_ops = { .read = pipe_read, .release = pipe_release_read };
static const struct file_ops pipe_write_ops = { .write = pipe_write, .release = pipe_release_write };

static struct file *pipe_end(const struct file_ops *ops, struct pipe *pp)
{
	struct file *f = kzalloc(sizeof(*f));

	if (f) {
		f->ops = ops;
		f->refs = 1;
		f->data = (const uint8_t *)pp;
	}
	return f;
}

long sys_pipe(int __user *ufds)
{
	struct process *p = current();
	struct pipe *pp = kzalloc(sizeof(*pp));
	struct file *rf = pp ? pipe_end(&pipe_read_ops, pp) : NULL;
	struct file *wf = rf ? pipe_end(&pipe_write_ops, pp) : NULL;
	int fds[2] = { -1, -1 };

	if (!wf) {
		kfree(rf);
		kfree(pp);
		return -ENOMEM;
	}
	pp->readers = pp->writers = 1;
	fds[0] = fd_install(rf);
	if (fds[0] >= 0)
		fds[1] = fd_install(wf);
	if (fds[1] < 0 || copy_to_user(ufds, fds, sizeof(fds))) {
		if (fds[0] >= 0)
			p->files[fds[0]] = NULL;
		if (fds[1] >= 0)
			p->files[fds[1]] = NULL;
		file_put(rf);
		file_put(wf);
		return fds[1] < 0 ? -EMFILE : -EFAULT;
	}
	return 0;
}
