/* A file's metadata by path or descriptor: times, mode, owner. */
#include <ccos/path.h>
#include <ccos/tmpfs.h>
#include <ccos/file.h>
#include <ccos/permission.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/time.h>
#include <ccos/uaccess.h>

#define AT_SYMLINK_NOFOLLOW	0x100
#define AT_EMPTY_PATH		0x1000
#define UTIME_NOW		((1l << 30) - 1)
#define UTIME_OMIT		((1l << 30) - 2)

/* The /tmp node an open descriptor refers to: EROFS for any other file. */
static long fd_node(unsigned int fd, struct tnode **n)
{
	return WITH_FILE(fd, f, (*n = tmpfs_node(f)) ? 0 : -EROFS);
}

/* fchmod and fchown: an O_PATH descriptor names a file but cannot change it (EBADF), as on Linux. */
static long fd_node_to_change(unsigned int fd, struct tnode **n)
{
	return WITH_FILE(fd, f, (f->flags & O_PATH) ? -EBADF : (*n = tmpfs_node(f)) ? 0 : -EROFS);
}

/*
 * The node of a path from user space (relative to dirfd), or of dirfd
 * itself when upath is NULL; a link's own node with AT_SYMLINK_NOFOLLOW.
 */
static long user_node(int dirfd, const char __user *upath, int flags, struct tnode **n)
{
	struct place at;
	struct stat st;
	long err;

	if (!upath && dirfd != AT_FDCWD)
		return fd_node(dirfd, n);
	if ((err = lookup(dirfd, upath, flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW, &at)) < 0)
		return err;
	if ((*n = at.node))
		return 0;
	/* a file elsewhere (modules, /proc, the directories) cannot change */
	return (err = place_stat(&at, &st)) < 0 ? err : -EROFS;
}

static bool nsec_valid(long nsec)
{
	return (nsec >= 0 && nsec <= 999999999) || nsec == UTIME_NOW || nsec == UTIME_OMIT;
}

/*
 * times[0] is the access time, times[1] the modification time; NULL is
 * now for both, as is UTIME_NOW for one; UTIME_OMIT leaves one as it is.
 * The change time becomes now (tmpfs_set_times).
 */
long sys_utimensat(int dirfd, const char __user *upath, const struct timespec __user *utimes,
		   int flags)
{
	struct timespec ts[2], now;
	struct tnode *n;
	long err;
	int i;

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
	if ((err = user_node(dirfd, upath, flags, &n)) < 0)
		return err;
	/* As Linux: times of one's choice by the owner only; now by anyone who may write too. */
	if (!tmpfs_owner(n)) {
		if (utimes && (ts[0].tv_nsec != UTIME_NOW || ts[1].tv_nsec != UTIME_NOW))
			return -EPERM;
		if ((err = tmpfs_permission(n, MAY_WRITE)))
			return err;
	}
	do_clock_gettime(CLOCK_REALTIME, &now);
	for (i = 0; i < 2; i++)
		if (!utimes || ts[i].tv_nsec == UTIME_NOW)
			ts[i] = now;
	tmpfs_set_times(n, ts[0].tv_nsec == UTIME_OMIT ? NULL : &ts[0],
			ts[1].tv_nsec == UTIME_OMIT ? NULL : &ts[1]);
	return 0;
}

long sys_fchmodat(int dirfd, const char __user *upath, unsigned int mode)
{
	struct tnode *n;
	long err;

	if (!upath)
		return -EFAULT;
	if ((err = user_node(dirfd, upath, 0, &n)) < 0)
		return err;
	return tmpfs_chmod(n, mode);
}

long sys_chmod(const char __user *path, unsigned int mode)
{
	return sys_fchmodat(AT_FDCWD, path, mode);
}

long sys_fchmod(unsigned int fd, unsigned int mode)
{
	struct tnode *n;
	long err = fd_node_to_change(fd, &n);

	if (err)
		return err;
	return tmpfs_chmod(n, mode);
}

/* With AT_SYMLINK_NOFOLLOW (lchown), a link's own owner. */
long sys_fchownat(int dirfd, const char __user *upath, unsigned int uid, unsigned int gid,
		  int flags)
{
	struct tnode *n;
	long err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (!upath)
		return -EFAULT;
	if ((err = user_node(dirfd, upath, flags, &n)) < 0)
		return err;
	return tmpfs_chown(n, uid, gid);
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
	long err = fd_node_to_change(fd, &n);

	if (err)
		return err;
	return tmpfs_chown(n, uid, gid);
}
