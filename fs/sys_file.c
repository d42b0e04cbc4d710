/* File-descriptor system calls: read, write, readv, writev, their positioned forms, close, lseek, fstat, ioctl. */
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>

/* Linux's checks before a transfer, in its order: open for it, able to, and a user buffer. */
static long rw_check(const struct file *f, const void __user *buf, size_t n, bool write)
{
	if ((f->flags & O_PATH) || (write ? !file_writable(f) : (f->flags & O_ACCMODE) == O_WRONLY))
		return -EBADF;
	if (!write && !f->ops->read)
		return -EINVAL;
	return access_ok(buf, n) ? 0 : -EFAULT;
}

static long file_read(struct file *f, char __user *buf, size_t n)
{
	long err = rw_check(f, buf, n, false);

	return err ? err : f->ops->read(f, buf, n);
}

static long file_write(struct file *f, const char __user *buf, size_t n)
{
	long err = rw_check(f, buf, n, true);

	return err ? err : f->ops->write(f, buf, n);
}

long sys_read(unsigned int fd, char __user *buf, size_t n)
{
	return WITH_FILE(fd, f, file_read(f, buf, n));
}

long sys_write(unsigned int fd, const char __user *buf, size_t n)
{
	return WITH_FILE(fd, f, file_write(f, buf, n));
}

/*
 * readv and writev: one call per iovec, stopping at a short transfer.
 * As Linux, every iovec is checked first: a length that is negative as a
 * ssize_t is EINVAL, before anything moves.
 */
static long do_iov(struct file *f, const struct iovec __user *uiov, unsigned long cnt, bool write)
{
	long total = 0;
	unsigned long i;

	if (cnt > 1024)
		return -EINVAL;
	for (i = 0; i < cnt; i++) {
		struct iovec iov;

		if (copy_from_user(&iov, &uiov[i], sizeof(iov)))
			return -EFAULT;
		if ((long)iov.iov_len < 0)
			return -EINVAL;
	}
	for (i = 0; i < cnt; i++) {
		struct iovec iov;
		long r;

		if (copy_from_user(&iov, &uiov[i], sizeof(iov)))
			return -EFAULT;
		if (!iov.iov_len)
			continue;
		r = write ? file_write(f, iov.iov_base, iov.iov_len) : file_read(f, iov.iov_base, iov.iov_len);
		if (r < 0)
			return total ? total : r;
		total += r;
		if ((size_t)r < iov.iov_len)
			break;
	}
	return total;
}

long sys_readv(unsigned long fd, const struct iovec __user *iov, unsigned long cnt)
{
	return WITH_FILE(fd, f, do_iov(f, iov, cnt, false));
}

long sys_writev(unsigned long fd, const struct iovec __user *iov, unsigned long cnt)
{
	return WITH_FILE(fd, f, do_iov(f, iov, cnt, true));
}

/*
 * pread64, pwrite64, preadv and pwritev: the transfer at pos, the file's
 * offset as it was. The file's own read or write runs at pos and the
 * offset is put back after: the files that can seek (tmpfs, the modules,
 * /proc) never sleep in their read or write, so under the kernel lock no
 * other thread can see the offset moved. As Linux: a pipe or a terminal
 * has no position (-ESPIPE, before any other check), a negative pos or
 * pos + n past the largest offset is EINVAL, and an O_APPEND file is
 * written at its end whatever pos says. On x86-64 preadv's offset is the
 * one register pos_l (pos_h is ignored, as Linux's pos_from_hilo does).
 */
#define AT_POS(f, pos, expr) ({						\
	uint64_t saved_ = (f)->offset;					\
	long r_;							\
	(f)->offset = (pos);						\
	r_ = (expr);							\
	(f)->offset = saved_;						\
	r_;								\
})
#define OFFSET_MAX	0x7ffffffffffffffful

static long pos_check(const struct file *f, long pos, const void __user *buf, size_t n, bool write)
{
	long err;

	if (f->ops->stream)
		return -ESPIPE;
	if ((err = rw_check(f, buf, n, write)))
		return err;
	return (uint64_t)pos + n > OFFSET_MAX ? -EINVAL : 0;
}

static long file_pread(struct file *f, char __user *buf, size_t n, long pos)
{
	long err = pos_check(f, pos, buf, n, false);

	return err ? err : AT_POS(f, pos, f->ops->read(f, buf, n));
}

static long file_pwrite(struct file *f, const char __user *buf, size_t n, long pos)
{
	long err = pos_check(f, pos, buf, n, true);

	return err ? err : AT_POS(f, pos, f->ops->write(f, buf, n));
}

static long file_preadv(struct file *f, const struct iovec __user *iov, unsigned long cnt, long pos,
			bool write)
{
	return f->ops->stream ? -ESPIPE : AT_POS(f, pos, do_iov(f, iov, cnt, write));
}

long sys_pread64(unsigned int fd, char __user *buf, size_t n, long pos)
{
	return pos < 0 ? -EINVAL : WITH_FILE(fd, f, file_pread(f, buf, n, pos));
}

long sys_pwrite64(unsigned int fd, const char __user *buf, size_t n, long pos)
{
	return pos < 0 ? -EINVAL : WITH_FILE(fd, f, file_pwrite(f, buf, n, pos));
}

long sys_preadv(unsigned long fd, const struct iovec __user *iov, unsigned long cnt, long pos_l)
{
	return pos_l < 0 ? -EINVAL : WITH_FILE(fd, f, file_preadv(f, iov, cnt, pos_l, false));
}

long sys_pwritev(unsigned long fd, const struct iovec __user *iov, unsigned long cnt, long pos_l)
{
	return pos_l < 0 ? -EINVAL : WITH_FILE(fd, f, file_preadv(f, iov, cnt, pos_l, true));
}

long sys_close(unsigned int fd)
{
	struct file *f = fd < NOFILE ? current()->files->fd[fd] : NULL;

	if (!f)
		return -EBADF;
	current()->files->fd[fd] = NULL;
	locks_close(f, current()->files);
	file_put(f);
	return 0;
}

static long file_lseek(struct file *f, long off, unsigned int whence)
{
	struct stat st = { 0 };
	long base;

	if (f->ops->stream)
		return -ESPIPE;
	switch (whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = f->offset; break;
	case SEEK_END: file_stat(f, &st); base = st.st_size; break;
	default: return -EINVAL;
	}
	if (base + off < 0)
		return -EINVAL;
	f->offset = base + off;
	return f->offset;
}

long sys_lseek(unsigned int fd, long off, unsigned int whence)
{
	return WITH_FILE(fd, f, file_lseek(f, off, whence));
}

static long file_fstat(struct file *f, struct stat __user *ust)
{
	struct stat st = { .st_nlink = 1, .st_blksize = 4096 };

	file_stat(f, &st);
	return copy_to_user(ust, &st, sizeof(st)) ? -EFAULT : 0;
}

long sys_fstat(unsigned int fd, struct stat __user *ust)
{
	return WITH_FILE(fd, f, file_fstat(f, ust));
}

long sys_ioctl(unsigned int fd, unsigned int req, uint64_t arg)
{
	return WITH_FILE(fd, f, f->ops->ioctl ? f->ops->ioctl(f, req, arg) : -ENOTTY);
}
