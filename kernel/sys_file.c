/* File-descriptor system calls: read, write, open, close, dup2, lseek, fstat, ioctl, readv, writev. */
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>

static struct file *fd_file(long fd)
{
	if (fd < 0 || fd >= NOFILE)
		return NULL;
	return current()->files[fd];
}

long sys_read(long fd, char __user *buf, size_t n)
{
	struct file *f = fd_file(fd);

	if (!f)
		return -EBADF;
	if (!f->ops->read)
		return -EINVAL;
	if (!access_ok(buf, n))
		return -EFAULT;
	return f->ops->read(f, buf, n);
}

long sys_write(long fd, const char __user *buf, size_t n)
{
	struct file *f = fd_file(fd);

	if (!f)
		return -EBADF;
	if (!f->ops->write)
		return -EBADF;	/* not open for writing */
	if (!access_ok(buf, n))
		return -EFAULT;
	return f->ops->write(f, buf, n);
}

/* readv and writev: one call per iovec, stopping at a short transfer. */
static long do_iov(long fd, const struct iovec __user *uiov, long cnt, bool write)
{
	long total = 0, i;

	if (!fd_file(fd))
		return -EBADF;
	if (cnt < 0 || cnt > 1024)
		return -EINVAL;
	for (i = 0; i < cnt; i++) {
		struct iovec iov;
		long r;

		if (copy_from_user(&iov, &uiov[i], sizeof(iov)))
			return -EFAULT;
		if (!iov.iov_len)
			continue;
		r = write ? sys_write(fd, iov.iov_base, iov.iov_len) : sys_read(fd, iov.iov_base, iov.iov_len);
		if (r < 0)
			return total ? total : r;
		total += r;
		if ((size_t)r < iov.iov_len)
			break;
	}
	return total;
}

long sys_readv(long fd, const struct iovec __user *iov, long cnt)
{
	return do_iov(fd, iov, cnt, false);
}

long sys_writev(long fd, const struct iovec __user *iov, long cnt)
{
	return do_iov(fd, iov, cnt, true);
}

long sys_openat(long dirfd, const char __user *upath, long flags, long mode)
{
	char path[256];
	struct file *f;
	long err = strncpy_from_user(path, upath, sizeof(path));
	int fd;

	(void)mode;
	if (err < 0)
		return err;
	if (path[0] != '/' && dirfd != AT_FDCWD)
		return -EBADF;		/* only absolute paths or the root as cwd */
	if (path[0] != '/')
		return -ENOENT;
	f = file_open_path(path, flags, &err);
	if (!f)
		return err;
	fd = fd_install(f);
	if (fd < 0)
		file_put(f);
	return fd;
}

long sys_open(const char __user *path, long flags, long mode)
{
	return sys_openat(AT_FDCWD, path, flags, mode);
}

long sys_close(long fd)
{
	struct file *f = fd_file(fd);

	if (!f)
		return -EBADF;
	current()->files[fd] = NULL;
	file_put(f);
	return 0;
}

/* newfd becomes another descriptor of oldfd's file, closing what newfd was. */
long sys_dup2(long oldfd, long newfd)
{
	struct process *p = current();
	struct file *f = fd_file(oldfd);

	if (!f || newfd < 0 || newfd >= NOFILE)
		return -EBADF;
	if (oldfd == newfd)
		return newfd;
	if (p->files[newfd])
		file_put(p->files[newfd]);
	p->files[newfd] = file_get(f);
	return newfd;
}

long sys_lseek(long fd, long off, long whence)
{
	struct file *f = fd_file(fd);
	long base;

	if (!f)
		return -EBADF;
	if (f->is_console)
		return -ESPIPE;
	switch (whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = f->offset; break;
	case SEEK_END: base = f->size; break;
	default: return -EINVAL;
	}
	if (base + off < 0)
		return -EINVAL;
	f->offset = base + off;
	return f->offset;
}

long sys_fstat(long fd, struct stat __user *ust)
{
	struct file *f = fd_file(fd);
	struct stat st = { 0 };

	if (!f)
		return -EBADF;
	st.st_nlink = 1;
	st.st_blksize = 4096;
	if (f->is_console) {
		st.st_mode = S_IFCHR | 0620;
		st.st_rdev = (4 << 8) | 64;	/* ttyS0 */
	} else {
		st.st_mode = S_IFREG | 0555;
		st.st_size = f->size;
		st.st_blocks = (f->size + 511) / 512;
		st.st_ino = (uint64_t)f->data >> 12;
	}
	return copy_to_user(ust, &st, sizeof(st)) ? -EFAULT : 0;
}

long sys_ioctl(long fd, unsigned long req, uint64_t arg)
{
	struct file *f = fd_file(fd);

	if (!f)
		return -EBADF;
	return f->ops->ioctl ? f->ops->ioctl(f, req, arg) : -ENOTTY;
}
