/* sendfile: bytes from one open file to another inside the kernel, as Linux's. */
#include <ccos/file.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/uaccess.h>

#define MAX_RW_COUNT	0x7ffff000L	/* Linux's most for one transfer: INT_MAX, page aligned */
#define CHUNK		4096

/*
 * in's bytes into out, a chunk at a time through buf: what was sent, or
 * the error of the first read or write if nothing was. A short write
 * ends it, and the bytes read but not written go back to in.
 */
static long copy_chunks(struct file *in, struct file *out, char *buf, size_t count)
{
	size_t done = 0;
	ssize_t got, put, w;

	while (done < count) {
		got = in->ops->read(in, buf, MIN(count - done, CHUNK));
		if (got <= 0)
			return done ? (long)done : got;
		for (put = 0; put < got; put += w)
			if ((w = out->ops->write(out, buf + put, got - put)) <= 0)
				break;
		done += put;
		if (put < got) {
			in->offset -= got - put;
			return done ? (long)done : w;
		}
	}
	return done;
}

/*
 * Linux reads in_fd through its page cache, so it must be a file with an
 * offset (a module, a /proc text, a /tmp file): a pipe or the terminal is
 * EINVAL (ESPIPE with an offset). out_fd is anything open for writing, a pipe, the terminal or a
 * file, but not in O_APPEND mode (EINVAL, as Linux's do_splice_direct).
 * With offset, reading starts at *offset, which moves, and in_fd's own
 * offset stays; without, in_fd's offset moves.
 */
static long file_sendfile(struct file *in, struct file *out, long __user *uoff, size_t count)
{
	struct process *me = current();
	uint64_t saved;
	long off = 0, r;
	char *buf;

	/* Linux's checks, in its order. */
	if (uoff && get_user(off, uoff))
		return -EFAULT;
	if (!in || !file_readable(in))
		return -EBADF;
	if (uoff && in->ops->stream)
		return -ESPIPE;
	if (off < 0)
		return -EINVAL;
	if (!out || !file_writable(out))
		return -EBADF;
	if (in->ops->stream || (out->flags & O_APPEND))
		return -EINVAL;
	if (!count)
		return 0;
	if (!(buf = kmalloc(CHUNK)))
		return -ENOMEM;
	saved = in->offset;
	if (uoff)
		in->offset = off;
	me->kbuf = buf;
	me->kbuf_len = CHUNK;
	r = copy_chunks(in, out, buf, MIN(count, (size_t)MAX_RW_COUNT));
	me->kbuf = NULL;
	me->kbuf_len = 0;
	kfree(buf);
	if (uoff) {
		off = in->offset;
		in->offset = saved;
		if (r >= 0 && put_user(off, uoff))
			r = -EFAULT;
	}
	return r;
}

/* Both files are held for the whole transfer, which may sleep (on a full pipe). */
long sys_sendfile(int out_fd, int in_fd, long __user *uoff, size_t count)
{
	struct file *in = fd_get(in_fd), *out = fd_get(out_fd);
	long r = file_sendfile(in, out, uoff, count);

	if (in)
		file_put(in);
	if (out)
		file_put(out);
	return r;
}
