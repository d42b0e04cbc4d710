/* Pipes: a ring between a read end and a write end, of bytes or of packets (O_DIRECT); pipe and pipe2, /tmp's FIFOs, F_SETPIPE_SZ. */
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

#define PIPE_DEFAULT_SIZE	65536	/* Linux's: 16 pages */
#define PIPE_PACKETS	(PIPE_MAX_SIZE / PAGE_SIZE)

/*
 * The ring is size bytes, a power of two (so the indices run free and
 * wrap); a write of at most PIPE_BUF bytes goes in whole or waits, as
 * POSIX requires. In packet mode (a writer opened with O_DIRECT) each
 * write of up to a page is one packet, its length queued in packets[],
 * and a read takes one packet, what does not fit in its buffer dropped:
 * Linux's pipe2(O_DIRECT), where each packet takes one of the pipe's
 * pages, so that size / PAGE_SIZE packets at most wait.
 */
struct pipe {
	char *buf;
	uint32_t size;
	uint32_t rpos, wpos;	/* bytes read and written so far */
	uint16_t packets[PIPE_PACKETS];	/* the lengths of the waiting packets, a ring */
	uint32_t first_packet, nr_packets;
	int readers, writers;	/* open ends */
	unsigned int read_opens, write_opens;	/* a FIFO's opens so far, for the waits of open */
	struct pipe **owner;	/* a FIFO's: its node's pointer to it, cleared when it goes */
	uint64_t ino;		/* what fstat says: a pipe's number, or the FIFO's node's */
};

/* Linux numbers pipefs's inodes with a counter too (get_next_ino): never an address. */
static uint64_t next_pipe_ino = 1;

static struct pipe *pipe_alloc(void)
{
	struct pipe *pp = kzalloc(sizeof(*pp));

	if (pp && !(pp->buf = kmalloc(PIPE_DEFAULT_SIZE))) {
		kfree(pp);
		return NULL;
	}
	if (pp)
		pp->size = PIPE_DEFAULT_SIZE;
	return pp;
}

static void pipe_free(struct pipe *pp)
{
	kfree(pp->buf);
	kfree(pp);
}

/* Copy out up to n bytes from the read position; the bytes copied, or -EFAULT if none. */
static ssize_t copy_out(struct pipe *pp, char __user *ubuf, size_t n)
{
	size_t got = 0;

	while (got < n && pp->rpos != pp->wpos) {
		uint32_t at = pp->rpos % pp->size;
		size_t len = MIN(n - got, MIN(pp->wpos - pp->rpos, pp->size - at));

		if (copy_to_user(ubuf + got, pp->buf + at, len))
			return got ? (ssize_t)got : -EFAULT;
		pp->rpos += len;
		got += len;
	}
	return got;
}

/* The bytes in the pipe, in order, into buf (for a new ring). */
static void copy_out_kernel(struct pipe *pp, char *buf, uint32_t used)
{
	uint32_t i;

	for (i = 0; i < used; i++)
		buf[i] = pp->buf[(pp->rpos + i) % pp->size];
}

/* A read of packet mode: the first packet, cut to n bytes, and the rest of it dropped. */
static ssize_t read_packet(struct pipe *pp, char __user *ubuf, size_t n)
{
	uint32_t len = pp->packets[pp->first_packet];
	ssize_t got = copy_out(pp, ubuf, MIN(n, len));

	if (got < 0)
		return got;
	pp->rpos += len - got;
	pp->first_packet = (pp->first_packet + 1) % PIPE_PACKETS;
	pp->nr_packets--;
	return got;
}

static ssize_t pipe_read(struct file *f, char __user *ubuf, size_t n)
{
	struct pipe *pp = f->priv;
	ssize_t got;

	while (pp->rpos == pp->wpos) {
		if (!pp->writers)
			return 0;	/* end of file: every write end is closed */
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		if (signal_pending(current()))
			return -ERESTARTSYS;
		sleep_on(pp);
	}
	got = pp->nr_packets ? read_packet(pp, ubuf, n) : copy_out(pp, ubuf, n);
	wakeup(pp);
	poll_wake();
	return got;
}

/* Room for len more bytes of this write: all of them when atomic or a packet, else one. */
static bool has_room(struct pipe *pp, size_t len, bool whole, bool packet)
{
	uint32_t room = pp->size - (pp->wpos - pp->rpos);

	if (packet && pp->nr_packets >= pp->size / PAGE_SIZE)
		return false;
	return whole ? room >= len : room > 0;
}

/* Copy in len bytes at the write position; 0 or -EFAULT. */
static long copy_in(struct pipe *pp, const char __user *ubuf, size_t len)
{
	while (len) {
		uint32_t at = pp->wpos % pp->size;
		size_t part = MIN(len, pp->size - at);

		if (copy_from_user(pp->buf + at, ubuf, part))
			return -EFAULT;
		pp->wpos += part;
		ubuf += part;
		len -= part;
	}
	return 0;
}

/* A write with no reader left is EPIPE and SIGPIPE, as on Linux. */
static ssize_t pipe_write(struct file *f, const char __user *ubuf, size_t n)
{
	struct pipe *pp = f->priv;
	bool packet = f->flags & O_DIRECT, whole = packet || n <= PIPE_BUF;
	size_t done = 0;

	while (done < n) {
		size_t len = MIN(n - done, packet ? PAGE_SIZE : pp->size - (pp->wpos - pp->rpos));

		if (!pp->readers) {
			send_signal_thread(current(), SIGPIPE, NULL);	/* the writer's, as Linux's */
			return done ? (ssize_t)done : -EPIPE;
		}
		if (!has_room(pp, packet ? len : n - done, whole, packet)) {
			if (f->flags & O_NONBLOCK)
				return done ? (ssize_t)done : -EAGAIN;
			if (signal_pending(current()))
				return done ? (ssize_t)done : -ERESTARTSYS;
			sleep_on(pp);
			continue;
		}
		if (copy_in(pp, ubuf + done, len))
			return done ? (ssize_t)done : -EFAULT;
		if (packet)
			pp->packets[(pp->first_packet + pp->nr_packets++) % PIPE_PACKETS] = len;
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
	return pp->size - (pp->wpos - pp->rpos) >= PIPE_BUF ? POLLOUT : 0;	/* as Linux */
}

static unsigned int pipe_poll_rdwr(struct file *f)
{
	return pipe_poll_read(f) | pipe_poll_write(f);
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
	pipe_free(pp);
}

static void pipe_stat(struct file *f, struct stat *st)
{
	struct pipe *pp = f->priv;

	st->st_mode = S_IFIFO | 0600;
	st->st_ino = pp->ino;
	st->st_blksize = PAGE_SIZE;
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
	.read = pipe_read, .write = pipe_write, .release = pipe_release, .poll = pipe_poll_rdwr,
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

	if (!pp && !(pp = pipe_alloc())) {
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
			pipe_free(pp);
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

	if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	if (!(pp = pipe_alloc()))
		return -ENOMEM;
	rf = file_new(&pipe_read_ops, NULL, 0);
	wf = file_new(&pipe_write_ops, NULL, 0);
	if (!rf || !wf) {
		kfree(rf);
		kfree(wf);
		pipe_free(pp);
		return -ENOMEM;
	}
	rf->priv = wf->priv = pp;
	rf->flags = O_RDONLY | (flags & (O_NONBLOCK | O_DIRECT));
	wf->flags = O_WRONLY | (flags & (O_NONBLOCK | O_DIRECT));
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
	fd_set_cloexec(p->files, fds[0], flags & O_CLOEXEC);
	fd_set_cloexec(p->files, fds[1], flags & O_CLOEXEC);
	return 0;
}

long sys_pipe(int __user *fds)
{
	return sys_pipe2(fds, 0);
}

/*
 * F_GETPIPE_SZ and F_SETPIPE_SZ (fs/sys_fd.c): the size, a power of two
 * of pages at least what it is asked; past pipe-max-size only for root
 * (CAP_SYS_RESOURCE, which every ccos process has), and never below
 * the bytes in the pipe (EBUSY). -EBADF for a file that is no pipe.
 */
long pipe_fcntl_size(struct file *f, bool set, uint64_t arg)
{
	struct pipe *pp = f->priv;
	uint32_t size = PAGE_SIZE, used;
	char *buf;

	if (f->ops != &pipe_read_ops && f->ops != &pipe_write_ops && f->ops != &pipe_rdwr_ops)
		return -EBADF;
	if (!set)
		return pp->size;
	if (arg > (1u << 31))
		return -EINVAL;
	while (size < arg)
		size <<= 1;
	used = pp->wpos - pp->rpos;
	if (size < used || pp->nr_packets > size / PAGE_SIZE)
		return -EBUSY;
	if (size == pp->size)
		return size;
	if (size > PIPE_MAX_SIZE || !(buf = kmalloc(size)))
		return -ENOMEM;		/* a root process past the bound: more than ccos gives */
	copy_out_kernel(pp, buf, used);
	kfree(pp->buf);
	pp->buf = buf;
	pp->size = size;
	pp->rpos = 0;
	pp->wpos = used;
	wakeup(pp);
	poll_wake();
	return size;
}
