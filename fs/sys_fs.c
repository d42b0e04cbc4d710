/* The system calls that name files: open, stat, mkdir, unlink, rename, chdir, getcwd; and getdents64. */
#include <ccos/path.h>
#include <ccos/tmpfs.h>
#include <ccos/permission.h>
#include <ccos/cred.h>
#include <ccos/file.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/uaccess.h>

#define AT_SYMLINK_NOFOLLOW	0x100
#define AT_REMOVEDIR	0x200
#define AT_EACCESS	0x200
#define AT_EMPTY_PATH	0x1000
#define EXDEV		18

/* A place (fs/path.c) opened: a /tmp node, a read-only directory, a module, a device or a /proc file. */
static struct file *open_pathless(const struct place *at, int flags, long *err)
{
	struct file *f;

	if (at->node)
		return tmpfs_open(at->node, flags, err);
	if (rodir_is(at->path)) {
		f = rodir_open(flags, err);
	} else if ((f = file_open_path(at->path, flags, err)) && (flags & O_DIRECTORY)) {
		file_put(f);
		f = NULL;
		*err = -ENOTDIR;
	}
	return f;
}

/* The same, and outside /tmp the file keeps the path it was opened by. */
static struct file *open_place(const struct place *at, int flags, long *err)
{
	struct file *f = open_pathless(at, flags, err);
	size_t len = strlen(at->path) + 1;

	if (!f || at->node)
		return f;
	if (!(f->path = kmalloc(len))) {
		file_put(f);
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(f->path, at->path, len);
	return f;
}

/* The directory a descriptor is open on, where its *at calls' relative paths start. */
long file_place(struct file *f, struct place *out)
{
	struct tnode *n = tmpfs_node(f);

	out->node = n;
	if (n)
		return tmpfs_is_dir(n) ? 0 : -ENOTDIR;
	if (!rodir_file(f))
		return -ENOTDIR;
	strlcpy(out->path, f->path, sizeof(out->path));
	return 0;
}

/* open's O_CREAT: a new file in /tmp; a name that ends in a slash means a directory (EISDIR, as Linux). */
static long create_file(const struct lookup *nd, unsigned int mode, struct place *at)
{
	if (nd->slash)
		return -EISDIR;
	return tmpfs_make(nd->dir.node, nd->last, S_IFREG | (mode & 07777 & ~current()->fs->umask),
			  &at->node);
}

/* What opening an existing file asks: read, write or both, and write to truncate it. */
static int open_mask(int flags)
{
	static const int acc[4] = { MAY_READ, MAY_WRITE, MAY_READ | MAY_WRITE, MAY_READ | MAY_WRITE };

	return acc[flags & O_ACCMODE] | (flags & O_TRUNC ? MAY_WRITE : 0);
}

long sys_openat(int dirfd, const char __user *upath, int flags, unsigned int mode)
{
	char buf[RO_PATH_MAX];
	bool exclusive = (flags & O_CREAT) && (flags & O_EXCL);
	struct lookup nd;
	struct place at;
	struct file *f;
	long err = lookup_parent(dirfd, upath, flags & O_NOFOLLOW || exclusive ? 0 : LOOKUP_FOLLOW, &nd);
	int fd;

	if (err < 0)
		return err;
	if ((err = lookup_last(&nd, &at)) == -ENOENT && (flags & O_CREAT) && nd.dir.node)
		err = create_file(&nd, mode, &at);
	/* As Linux: O_CREAT | O_EXCL never follows a link and finds the name taken. */
	else if (!err && (place_link(&at, buf) || (exclusive && at.node)))
		err = exclusive ? -EEXIST : -ELOOP;
	else if (!err && at.node && !(flags & O_PATH))
		err = tmpfs_permission(at.node, open_mask(flags));
	if (err)
		return err;
	/* An O_PATH descriptor is an open file that names it only: no read, write or change. */
	if (!(f = open_place(&at, flags & ~O_PATH, &err)))
		return err;
	f->flags = flags & (O_ACCMODE | O_APPEND | O_NONBLOCK | O_PATH);
	fd = fd_install(f);
	if (fd < 0)
		file_put(f);
	else if (flags & O_CLOEXEC)
		fd_set_cloexec(current()->files, fd, true);
	return fd;
}

long sys_open(const char __user *path, int flags, unsigned int mode)
{
	return sys_openat(AT_FDCWD, path, flags, mode);
}

long sys_creat(const char __user *path, unsigned int mode)
{
	return sys_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

/* stat of a place: a /tmp node's own, else through a file opened and closed at once. */
long place_stat(const struct place *p, struct stat *st)
{
	long err;
	struct file *f;

	*st = (struct stat){ .st_nlink = 1, .st_blksize = 4096 };
	if (p->node) {
		tmpfs_stat(p->node, st);
		return 0;
	}
	if (!(f = open_pathless(p, O_RDONLY | O_PATH, &err)))
		return err;
	/* The path is lent for the stat only (no copy to allocate and free): file_put must not free it. */
	f->path = (char *)p->path;
	file_stat(f, st);
	f->path = NULL;
	file_put(f);
	return 0;
}

long sys_newfstatat(int dirfd, const char __user *upath, struct stat __user *ust, int flags)
{
	struct place at;
	struct stat st;
	char c[2];
	long err;

	/* AT_NO_AUTOMOUNT (0x800): no mounts to trigger */
	if (flags & ~(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | 0x800))
		return -EINVAL;
	if ((flags & AT_EMPTY_PATH) && strncpy_from_user(c, upath, 2) == 0) {
		if (dirfd != AT_FDCWD)
			return sys_fstat(dirfd, ust);
		at = current()->fs->cwd;
	} else if ((err = lookup(dirfd, upath, flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW, &at)) < 0) {
		return err;
	}
	if ((err = place_stat(&at, &st)) < 0)
		return err;
	return copy_to_user(ust, &st, sizeof(st)) ? -EFAULT : 0;
}

long sys_stat(const char __user *path, struct stat __user *st)
{
	return sys_newfstatat(AT_FDCWD, path, st, 0);
}

long sys_lstat(const char __user *path, struct stat __user *st)
{
	return sys_newfstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

/* F_OK if it exists; W_OK EROFS outside /tmp; else the mode bits (fs/permission.c) against the file's owner. */
static long access_check(int dirfd, const char __user *upath, int mode, int flags)
{
	struct place at;
	struct stat st;
	long err;

	if ((err = lookup(dirfd, upath, flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW, &at)) < 0 ||
	    (err = place_stat(&at, &st)) < 0)
		return err;
	if ((mode & 2) && !at.node)
		return -EROFS;
	return mode ? mode_permission(st.st_mode, st.st_uid, st.st_gid, mode) : 0;
}

/*
 * As Linux: access asks with the real ids (root's capabilities if the real
 * uid is 0, none otherwise), AT_EACCESS with the effective ones: the
 * check runs under fs ids and capabilities lent for it.
 */
static long do_faccessat(int dirfd, const char __user *upath, int mode, int flags)
{
	struct cred *c = &current()->cred, saved = *c;
	long err;

	if (mode & ~7)
		return -EINVAL;
	if (!(flags & AT_EACCESS)) {
		c->fsuid = c->uid;
		c->fsgid = c->gid;
		c->cap_effective = c->uid ? 0 : c->cap_permitted;
	}
	err = access_check(dirfd, upath, mode, flags);
	c->fsuid = saved.fsuid;
	c->fsgid = saved.fsgid;
	c->cap_effective = saved.cap_effective;
	return err;
}

long sys_faccessat(int dirfd, const char __user *upath, int mode)
{
	return do_faccessat(dirfd, upath, mode, 0);
}

long sys_access(const char __user *path, int mode)
{
	return sys_faccessat(AT_FDCWD, path, mode);
}

long sys_faccessat2(int dirfd, const char __user *path, int mode, int flags)
{
	return flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW) ? -EINVAL : do_faccessat(dirfd, path, mode, flags);
}

/*
 * A change outside /tmp, to nd's last component: EROFS where it exists,
 * else what a lookup says; EBUSY for /tmp itself, which Linux says of a
 * mount point.
 */
static long read_only(const struct lookup *nd)
{
	struct place at;
	struct stat st;
	long err = lookup_last(nd, &at);

	if (!err && at.node)
		return -EBUSY;
	return err ? err : (err = place_stat(&at, &st)) ? err : -EROFS;
}

/* mkdir and mknod: a new node in /tmp; elsewhere EEXIST where the name is taken, else EROFS. */
static long make_node(int dirfd, const char __user *upath, uint32_t mode)
{
	struct tnode *n;
	struct lookup nd;
	long err = lookup_parent(dirfd, upath, 0, &nd);

	if (err < 0)
		return err;
	if (is_dots(nd.last))
		return -EEXIST;
	if (!nd.dir.node)
		return read_only(&nd) == -ENOENT ? -EROFS : -EEXIST;
	return tmpfs_make(nd.dir.node, nd.last, (mode & S_IFMT) | (mode & 07777 & ~current()->fs->umask), &n);
}

long sys_mkdirat(int dirfd, const char __user *upath, unsigned int mode)
{
	return make_node(dirfd, upath, S_IFDIR | (mode & 07777));
}

/* mknod: a FIFO or a regular file in /tmp; there are no devices to make. */
long sys_mknodat(int dirfd, const char __user *upath, unsigned int mode, unsigned int dev)
{
	uint32_t type = mode & S_IFMT;

	(void)dev;
	if (type && type != S_IFREG && type != S_IFIFO)
		return type == S_IFCHR || type == 0060000 || type == 0140000 ? -EPERM : -EINVAL;
	return make_node(dirfd, upath, (type ? type : S_IFREG) | (mode & 07777));
}

long sys_mknod(const char __user *path, unsigned int mode, unsigned int dev)
{
	return sys_mknodat(AT_FDCWD, path, mode, dev);
}

long sys_mkdir(const char __user *path, unsigned int mode)
{
	return sys_mkdirat(AT_FDCWD, path, mode);
}

/*
 * As Linux: rmdir of "." is EINVAL, of ".." ENOTEMPTY, of / EBUSY; unlink
 * of any of them EISDIR, and of a name and a slash what that names.
 */
long sys_unlinkat(int dirfd, const char __user *upath, int flags)
{
	bool rmdir = flags & AT_REMOVEDIR;
	struct lookup nd;
	struct place at;
	long err;

	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	if ((err = lookup_parent(dirfd, upath, 0, &nd)) < 0)
		return err;
	if (rmdir && is_dots(nd.last))
		return !nd.last[0] ? -EBUSY : nd.last[1] ? -ENOTEMPTY : -EINVAL;
	if (!rmdir && (is_dots(nd.last) || nd.slash))
		return (err = lookup_last(&nd, &at)) ? err : -EISDIR;
	if (!nd.dir.node)
		return read_only(&nd);
	return tmpfs_remove(nd.dir.node, nd.last, rmdir);
}

long sys_unlink(const char __user *path)
{
	return sys_unlinkat(AT_FDCWD, path, 0);
}

long sys_rmdir(const char __user *path)
{
	return sys_unlinkat(AT_FDCWD, path, AT_REMOVEDIR);
}

/* As Linux, "." or ".." as either last component is EBUSY: rename("d/.", ...) does not rename d. */
long sys_renameat2(int olddfd, const char __user *uold, int newdfd, const char __user *unew,
		   unsigned int flags)
{
	struct lookup from, to;
	long err;

	if (flags)
		return -EINVAL;
	if ((err = lookup_parent(olddfd, uold, 0, &from)) < 0 ||
	    (err = lookup_parent(newdfd, unew, 0, &to)) < 0)
		return err;
	if (is_dots(from.last) || is_dots(to.last))
		return -EBUSY;
	if (!from.dir.node)
		return read_only(&from);
	if (!to.dir.node)
		return -EXDEV;
	return tmpfs_rename(from.dir.node, from.last, to.dir.node, to.last);
}

long sys_renameat(int olddfd, const char __user *uold, int newdfd, const char __user *unew)
{
	return sys_renameat2(olddfd, uold, newdfd, unew, 0);
}

long sys_rename(const char __user *uold, const char __user *unew)
{
	return sys_renameat2(AT_FDCWD, uold, AT_FDCWD, unew, 0);
}

long sys_truncate(const char __user *upath, long len)
{
	struct place at;
	struct stat st;
	long err = lookup(AT_FDCWD, upath, LOOKUP_FOLLOW, &at);

	if (err < 0)
		return err;
	if (len < 0)
		return -EINVAL;
	if (!at.node)
		return (err = place_stat(&at, &st)) ? err : -EROFS;
	return tmpfs_permission(at.node, MAY_WRITE) ?: tmpfs_truncate(at.node, len);
}

static long file_truncate(struct file *f, long len)
{
	if (len < 0 || !tmpfs_node(f) || !(f->flags & O_ACCMODE))
		return -EINVAL;
	return tmpfs_truncate(tmpfs_node(f), len);
}

long sys_ftruncate(unsigned int fd, long len)
{
	return WITH_FILE(fd, f, file_truncate(f, len));
}

long sys_umask(int mask)
{
	long old = current()->fs->umask;

	current()->fs->umask = mask & 0777;
	return old;
}

/* The working directory becomes to, a directory (fs/fs_struct.c holds it). */
static long change_dir(const struct place *to)
{
	struct stat st;
	long err = place_stat(to, &st);

	if (err)
		return err;
	if ((st.st_mode & S_IFMT) != S_IFDIR)
		return -ENOTDIR;
	fs_chdir(current()->fs, to);
	return 0;
}

long sys_chdir(const char __user *upath)
{
	struct place at;
	long err = lookup(AT_FDCWD, upath, LOOKUP_FOLLOW, &at);

	return err < 0 ? err : change_dir(&at);
}

static long file_chdir(struct file *f)
{
	struct place at;
	long err = file_place(f, &at);

	return err ? err : change_dir(&at);
}

long sys_fchdir(unsigned int fd)
{
	return WITH_FILE(fd, f, file_chdir(f));
}

/* As Linux: ENOENT once the working directory is removed, ENAMETOOLONG past PATH_MAX. */
long sys_getcwd(char __user *buf, unsigned long size)
{
	char path[PATH_MAX];
	long len = place_name(&current()->fs->cwd, path);

	if (len < 0)
		return len;
	if (size < (unsigned long)len + 1)
		return -ERANGE;
	return copy_to_user(buf, path, len + 1) ? -EFAULT : len + 1;
}

/* struct linux_dirent64: d_ino, d_off, d_reclen, d_type, then the name and a NUL, 8-aligned. */
static long file_getdents(struct file *f, void __user *buf, unsigned int size)
{
	struct dirent_out d;
	unsigned long done = 0;
	int err;

	if (!f->ops->dirent)
		return -ENOTDIR;
	while ((err = f->ops->dirent(f, f->offset, &d)) == 0) {
		size_t namelen = strlen(d.name), reclen = (19 + namelen + 1 + 7) & ~7ul;
		char rec[19 + 256 + 8] = { 0 };
		uint64_t off = f->offset + 1;
		uint16_t r = reclen;

		if (done + reclen > size) {
			if (!done)
				return -EINVAL;
			break;
		}
		memcpy(rec, &d.ino, 8);
		memcpy(rec + 8, &off, 8);
		memcpy(rec + 16, &r, 2);
		rec[18] = d.type;
		memcpy(rec + 19, d.name, namelen);
		if (copy_to_user((char __user *)buf + done, rec, reclen))
			return -EFAULT;
		done += reclen;
		f->offset++;
	}
	return err < 0 && !done ? err : (long)done;
}

long sys_getdents64(unsigned int fd, void __user *buf, unsigned int size)
{
	return WITH_FILE(fd, f, file_getdents(f, buf, size));
}
