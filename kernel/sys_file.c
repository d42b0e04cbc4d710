/* File-descriptor system calls: read, write, open, close, lseek, fstat, ioctl, readv, writev. */
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>

long sys_read(unsigned int fd, char __user *buf, size_t n)
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

long sys_write(unsigned int fd, const char __user *buf, size_t n)
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
static long do_iov(unsigned int fd, const struct iovec __user *uiov, unsigned long cnt, bool write)
{
	long total = 0;
	unsigned long i;

	if (!fd_file(fd))
		return -EBADF;
	if (cnt > 1024)
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

long sys_readv(unsigned long fd, const struct iovec __user *iov, unsigned long cnt)
{
	return do_iov(fd, iov, cnt, false);
}

long sys_writev(unsigned long fd, const struct iovec __user *iov, unsigned long cnt)
{
	return do_iov(fd, iov, cnt, true);
}

#define PATH_BUF	256

/*
 * A path from user space, made absolute: every process works in the root
 * (getcwd says "/"), so a relative path with AT_FDCWD starts there. ccos
 * has no directories to open, so no other dirfd can be one.
 */
static long get_path(int dirfd, const char __user *upath, char *path)
{
	long len = strncpy_from_user(path + 1, upath, PATH_BUF - 1);

	if (len < 0)
		return len;
	if (!len)
		return -ENOENT;
	if (path[1] == '/')
		memmove(path, path + 1, len + 1);
	else if (dirfd != AT_FDCWD)
		return fd_file(dirfd) ? -ENOTDIR : -EBADF;
	else
		path[0] = '/';
	return 0;
}

long sys_openat(int dirfd, const char __user *upath, int flags, unsigned int mode)
{
	char path[PATH_BUF];
	struct file *f;
	long err = get_path(dirfd, upath, path);
	int fd;

	(void)mode;
	if (err)
		return err;
	f = file_open_path(path, flags, &err);
	if (!f)
		return err;
	f->flags = flags & (O_ACCMODE | O_APPEND | O_NONBLOCK);
	fd = fd_install(f);
	if (fd < 0)
		file_put(f);
	else if (flags & O_CLOEXEC)
		current()->cloexec |= 1ull << fd;
	return fd;
}

long sys_open(const char __user *path, int flags, unsigned int mode)
{
	return sys_openat(AT_FDCWD, path, flags, mode);
}

long sys_close(unsigned int fd)
{
	struct file *f = fd_file(fd);

	if (!f)
		return -EBADF;
	current()->files[fd] = NULL;
	file_put(f);
	return 0;
}

long sys_lseek(unsigned int fd, long off, unsigned int whence)
{
	struct file *f = fd_file(fd);
	long base;

	if (!f)
		return -EBADF;
	if (f->ops->stream)
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

static long stat_file(struct file *f, struct stat __user *ust)
{
	struct stat st = { 0 };

	st.st_nlink = 1;
	st.st_blksize = 4096;
	if (f->ops->stat) {
		f->ops->stat(f, &st);
	} else {
		st.st_mode = S_IFREG | 0555;
		st.st_size = f->size;
		st.st_blocks = (f->size + 511) / 512;
		st.st_ino = (uint64_t)f->data >> 12;
	}
	return copy_to_user(ust, &st, sizeof(st)) ? -EFAULT : 0;
}

long sys_fstat(unsigned int fd, struct stat __user *ust)
{
	struct file *f = fd_file(fd);

	return f ? stat_file(f, ust) : -EBADF;
}

#define AT_SYMLINK_NOFOLLOW	0x100
#define AT_NO_AUTOMOUNT		0x800
#define AT_EMPTY_PATH		0x1000

/* glibc's fstat and stat both come here; there are no symbolic links to follow or not. */
long sys_newfstatat(int dirfd, const char __user *upath, struct stat __user *ust, int flags)
{
	char path[PATH_BUF];
	struct file *f;
	long err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH))
		return -EINVAL;
	err = get_path(dirfd, upath, path);
	if (err == -ENOENT && (flags & AT_EMPTY_PATH))	/* the root is no file here */
		return dirfd == AT_FDCWD ? -ENOENT : sys_fstat(dirfd, ust);
	if (err)
		return err;
	if (!(f = file_open_path(path, 0, &err)))
		return err;
	err = stat_file(f, ust);
	file_put(f);
	return err;
}

long sys_stat(const char __user *path, struct stat __user *ust)
{
	return sys_newfstatat(AT_FDCWD, path, ust, 0);
}

long sys_lstat(const char __user *path, struct stat __user *ust)
{
	return sys_newfstatat(AT_FDCWD, path, ust, AT_SYMLINK_NOFOLLOW);
}

long sys_ioctl(unsigned int fd, unsigned int req, uint64_t arg)
{
	struct file *f = fd_file(fd);

	if (!f)
		return -EBADF;
	return f->ops->ioctl ? f->ops->ioctl(f, req, arg) : -ENOTTY;
}
