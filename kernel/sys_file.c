/* File-descriptor system calls: read, write, close, lseek, fstat, ioctl, readv, writev. */
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>

static long file_read(struct file *f, char __user *buf, size_t n)
{
	if ((f->flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	if (!f->ops->read)
		return -EINVAL;
	if (!access_ok(buf, n))
		return -EFAULT;
	return f->ops->read(f, buf, n);
}

static long file_write(struct file *f, const char __user *buf, size_t n)
{
	if (!file_writable(f))
		return -EBADF;
	if (!access_ok(buf, n))
		return -EFAULT;
	return f->ops->write(f, buf, n);
}

long sys_read(unsigned int fd, char __user *buf, size_t n)
{
	return WITH_FILE(fd, f, file_read(f, buf, n));
}

long sys_write(unsigned int fd, const char __user *buf, size_t n)
{
	return WITH_FILE(fd, f, file_write(f, buf, n));
}

/* readv and writev: one call per iovec, stopping at a short transfer. */
static long do_iov(struct file *f, const struct iovec __user *uiov, unsigned long cnt, bool write)
{
	long total = 0;
	unsigned long i;

	if (cnt > 1024)
		return -EINVAL;
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

long sys_close(unsigned int fd)
{
	struct file *f = fd < NOFILE ? current()->files->fd[fd] : NULL;

	if (!f)
		return -EBADF;
	current()->files->fd[fd] = NULL;
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
