/* A file's metadata by path or descriptor: readlink (the one link, /proc/self/exe), times, mode, owner. */
#include <ccos/tmpfs.h>
#include <ccos/file.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>

#define AT_SYMLINK_NOFOLLOW	0x100
#define AT_EMPTY_PATH		0x1000
#define UTIME_NOW		((1l << 30) - 1)
#define UTIME_OMIT		((1l << 30) - 2)

/* The one symbolic link, /proc/self/exe: the caller's program. Anything else that exists is no link. */
long sys_readlinkat(int dirfd, const char __user *upath, char __user *buf, int size)
{
	const struct module_file *exe = current()->exe;
	char path[PATH_MAX];
	struct stat st;
	long err;
	size_t len;

	if (size <= 0)
		return -EINVAL;
	if ((err = get_path(dirfd, upath, path)) < 0)
		return err;
	if (strcmp(path, "/proc/self/exe") || !exe)
		return (err = path_stat(path, &st)) < 0 ? err : -EINVAL;
	len = MIN(strlen(exe->name), (size_t)size);	/* no NUL, cut at size: as Linux */
	return copy_to_user(buf, exe->name, len) ? -EFAULT : (long)len;
}

long sys_readlink(const char __user *path, char __user *buf, int size)
{
	return sys_readlinkat(AT_FDCWD, path, buf, size);
}

/*
 * The /tmp node that path names: -EROFS for a file elsewhere (modules,
 * /proc, the directories), which cannot change; -ENOENT and the like
 * for none.
 */
static long node_at(const char *path, struct tnode **n)
{
	const char *rel = in_tmp(path);
	struct stat st;
	long err;

	if (rel)
		return tmpfs_lookup(rel, n);
	return (err = path_stat(path, &st)) < 0 ? err : -EROFS;
}

/* The /tmp node an open descriptor refers to: EROFS for any other file. */
static long fd_node(unsigned int fd, struct tnode **n)
{
	struct file *f = fd_file(fd);

	if (!f)
		return -EBADF;
	*n = tmpfs_node(f);
	return *n ? 0 : -EROFS;
}

/* The node of a path from user space (relative to dirfd), or of dirfd itself when upath is NULL. */
static long user_node(int dirfd, const char __user *upath, struct tnode **n)
{
	char path[PATH_MAX];
	long err;

	if (!upath && dirfd != AT_FDCWD)
		return fd_node(dirfd, n);
	if ((err = get_path(dirfd, upath, path)) < 0)
		return err;
	return node_at(path, n);
}

static bool nsec_valid(long nsec)
{
	return (nsec >= 0 && nsec <= 999999999) || nsec == UTIME_NOW || nsec == UTIME_OMIT;
}

/*
 * times[0] is the access time, times[1] the modification time; NULL is
 * now for both. A /tmp node keeps one time (stat shows it as all three),
 * so the access time is checked and dropped.
 */
long sys_utimensat(int dirfd, const char __user *upath, const struct timespec __user *utimes,
		   int flags)
{
	struct timespec ts[2];
	struct tnode *n;
	long err;

	if (utimes) {
		if (copy_from_user(ts, utimes, sizeof(ts)))
			return -EFAULT;
		if (ts[0].tv_nsec == UTIME_OMIT && ts[1].tv_nsec == UTIME_OMIT)
			return 0;	/* as Linux: not even the path is looked at */
	}
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (utimes && (!nsec_valid(ts[0].tv_nsec) || !nsec_valid(ts[1].tv_nsec)))
		return -EINVAL;
	if ((err = user_node(dirfd, upath, &n)) < 0)
		return err;
	if (!utimes || ts[1].tv_nsec == UTIME_NOW)
		tmpfs_set_mtime(n, NULL);
	else if (ts[1].tv_nsec != UTIME_OMIT)
		tmpfs_set_mtime(n, &ts[1]);
	return 0;
}

long sys_fchmodat(int dirfd, const char __user *upath, unsigned int mode)
{
	struct tnode *n;
	long err;

	if (!upath)
		return -EFAULT;
	if ((err = user_node(dirfd, upath, &n)) < 0)
		return err;
	tmpfs_chmod(n, mode);
	return 0;
}

long sys_chmod(const char __user *path, unsigned int mode)
{
	return sys_fchmodat(AT_FDCWD, path, mode);
}

long sys_fchmod(unsigned int fd, unsigned int mode)
{
	struct tnode *n;
	long err = fd_node(fd, &n);

	if (err)
		return err;
	tmpfs_chmod(n, mode);
	return 0;
}

/* There are no symbolic links to act on but /proc/self/exe, which cannot change: the flags change nothing. */
long sys_fchownat(int dirfd, const char __user *upath, unsigned int uid, unsigned int gid,
		  int flags)
{
	struct tnode *n;
	long err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (!upath)
		return -EFAULT;
	if ((err = user_node(dirfd, upath, &n)) < 0)
		return err;
	tmpfs_chown(n, uid, gid);
	return 0;
}

long sys_chown(const char __user *path, unsigned int uid, unsigned int gid)
{
	return sys_fchownat(AT_FDCWD, path, uid, gid, 0);
}

long sys_lchown(const char __user *path, unsigned int uid, unsigned int gid)
{
	return sys_fchownat(AT_FDCWD, path, uid, gid, AT_SYMLINK_NOFOLLOW);
}

long sys_fchown(unsigned int fd, unsigned int uid, unsigned int gid)
{
	struct tnode *n;
	long err = fd_node(fd, &n);

	if (err)
		return err;
	tmpfs_chown(n, uid, gid);
	return 0;
}
