/* The tree (/, /bin, /etc, /proc, /tmp), the working directory and the calls that name files. */
#include <ccos/path.h>
#include <ccos/tmpfs.h>
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
#define AT_EMPTY_PATH	0x1000
#define EXDEV		18

/* The read-only directories: their fixed names, then those of more_names. */
static const struct vdir {
	const char *path;
	const char *const *names;
} vdirs[] = {
	{ "/", (const char *const[]){ "bin", "dev", "etc", "proc", "tmp", NULL } },
	{ "/bin", (const char *const[]){ NULL } },
	{ "/etc", (const char *const[]){ NULL } },
	{ "/dev", (const char *const[]){ "null", "tty", "zero", NULL } },
	{ "/proc", (const char *const[]){ "loadavg", "meminfo", "self", "smpstat", "stat", NULL } },
}, pid_vdir = { "/proc/PID", (const char *const[]){ NULL } };	/* any process's */

static const struct vdir *find_vdir(const char *path)
{
	const char *rest;
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(vdirs); i++)
		if (!strcmp(vdirs[i].path, path))
			return &vdirs[i];
	return procfs_process(path, &rest) && !*rest ? &pid_vdir : NULL;
}

/* After the fixed names: /proc/PID's files, /proc's processes, modules, /bin's links. */
static int more_names(const char *path, const struct vdir *v, uint64_t index,
		      struct dirent_out *d)
{
	const struct module_file *m;
	int pid;

	if (v == &pid_vdir) {
		d->name = procfs_pid_file_at(index);
		d->type = d->name && !strcmp(d->name, "exe") ? DT_LNK : DT_REG;
	} else if (!strcmp(path, "/proc")) {
		if ((pid = procfs_pid_at(index)))
			snprintf(d->buf, sizeof(d->buf), "%d", pid);
		d->name = pid ? d->buf : NULL;
	} else if ((m = module_at(path, index))) {
		d->name = m->name + strlen(path) + 1;
		d->type = DT_REG;
	} else if (!strcmp(path, "/bin")) {
		d->name = bin_link_at(index - modules_in(path));
		d->type = DT_LNK;
	}
	return d->name ? 0 : -ENOENT;
}

static int vdir_dirent(struct file *f, uint64_t index, struct dirent_out *d)
{
	const struct vdir *v = find_vdir(f->path);
	const char *const *name;
	char child[PATH_MAX], target[PATH_MAX];

	if (!v)
		return -ENOENT;		/* /proc/PID of a process that has gone since */
	name = v->names;
	*d = (struct dirent_out){ .ino = index + 2, .type = DT_DIR };
	if (index < 2) {
		d->name = index ? ".." : ".";
		return 0;
	}
	for (index -= 2; *name && index; index--)
		name++;
	if (!(d->name = *name))
		return more_names(f->path, v, index, d);
	kernel_path(f->path, d->name, child, 0);
	d->type = find_vdir(child) ? DT_DIR : link_target(child, target) > 0 ? DT_LNK :
		  !strcmp(f->path, "/dev") ? DT_CHR : DT_REG;
	return 0;
}

static void vdir_stat(struct file *f, struct stat *st)
{
	st->st_mode = S_IFDIR | 0555;
	st->st_nlink = 2;
	st->st_ino = path_ino(f->path);
}

static const struct file_ops vdir_ops = { .dirent = vdir_dirent, .stat = vdir_stat };

/* Open a normalized path: /tmp, a read-only directory, a module or a /proc file. */
static struct file *open_path(const char *path, int flags, uint32_t mode, long *err)
{
	const char *rel = in_tmp(path);
	struct file *f;

	if (rel) {
		f = tmpfs_open(rel, flags, mode & ~current()->fs->umask, err);
	} else if (find_vdir(path)) {
		*err = (flags & O_ACCMODE) ? -EISDIR : (flags & O_CREAT) ? -EISDIR : 0;
		f = *err ? NULL : file_new(&vdir_ops, NULL, 0);
		if (!*err && !f)
			*err = -ENOMEM;
	} else {
		f = file_open_path(path, flags, err);
		if (f && (flags & O_DIRECTORY)) {
			file_put(f);
			f = NULL;
			*err = -ENOTDIR;
		}
	}
	if (f && !(f->path = kmalloc(strlen(path) + 1))) {
		file_put(f);
		f = NULL;
		*err = -ENOMEM;
	}
	if (f)
		memcpy(f->path, path, strlen(path) + 1);
	return f;
}

long sys_openat(int dirfd, const char __user *upath, int flags, unsigned int mode)
{
	char path[PATH_MAX], target[PATH_MAX];
	bool exclusive = (flags & O_CREAT) && (flags & O_EXCL);
	struct file *f;
	long err = get_path(dirfd, upath, path, flags & O_NOFOLLOW || exclusive ? 0 : LOOKUP_FOLLOW);
	int fd;

	if (err < 0)
		return err;
	/* As Linux: O_CREAT | O_EXCL never follows a link and finds the name taken. */
	if (link_target(path, target) > 0)
		return exclusive ? -EEXIST : -ELOOP;
	/* ccos has no O_PATH descriptors: the flag is kept for path_stat's own opens. */
	if (!(f = open_path(path, flags & ~O_PATH, mode, &err)))
		return err;
	f->flags = flags & (O_ACCMODE | O_APPEND | O_NONBLOCK);
	fd = fd_install(f);
	if (fd < 0)
		file_put(f);
	else if (flags & O_CLOEXEC)
		current()->files->cloexec |= 1ull << fd;
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

/* stat of a path through a file opened and closed at once: one way for every kind. */
long path_stat(const char *path, struct stat *st)
{
	long err;
	struct file *f = open_path(path, O_RDONLY | O_PATH, 0, &err);	/* a FIFO's waits not */

	if (!f)
		return err;
	*st = (struct stat){ .st_nlink = 1, .st_blksize = 4096 };
	file_stat(f, st);
	file_put(f);
	return 0;
}

long sys_newfstatat(int dirfd, const char __user *upath, struct stat __user *ust, int flags)
{
	char path[PATH_MAX];
	struct stat st;
	long err;

	/* AT_NO_AUTOMOUNT (0x800): no mounts to trigger */
	if (flags & ~(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | 0x800))
		return -EINVAL;
	if ((flags & AT_EMPTY_PATH) && strncpy_from_user(path, upath, 2) == 0)
		return dirfd == AT_FDCWD ? sys_newfstatat(dirfd, ".", ust, 0) : sys_fstat(dirfd, ust);
	if ((err = get_path(dirfd, upath, path, flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW)) < 0 ||
	    (err = path_stat(path, &st)) < 0)
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

/* As root: F_OK and R_OK if it exists, W_OK only in /tmp, X_OK if any x bit is set. */
long sys_faccessat(int dirfd, const char __user *upath, int mode)
{
	char path[PATH_MAX];
	struct stat st;
	long err;

	if (mode & ~7)
		return -EINVAL;
	if ((err = get_path(dirfd, upath, path, LOOKUP_FOLLOW)) < 0 || (err = path_stat(path, &st)) < 0)
		return err;
	if ((mode & 2) && !in_tmp(path))
		return -EROFS;
	if ((mode & 1) && !(st.st_mode & 0111))
		return -EACCES;
	return 0;
}

long sys_access(const char __user *path, int mode)
{
	return sys_faccessat(AT_FDCWD, path, mode);
}

long sys_faccessat2(int dirfd, const char __user *path, int mode, int flags)
{
	return flags & ~0x300 ? -EINVAL : sys_faccessat(dirfd, path, mode);
}

/* Outside /tmp a change is EROFS where the path exists, else what a lookup says. */
static long read_only(const char *path)
{
	struct stat st;
	long err = path_stat(path, &st);

	return err ? err : -EROFS;
}

long sys_mkdirat(int dirfd, const char __user *upath, unsigned int mode)
{
	char path[PATH_MAX];
	const char *rel;
	long err = get_path(dirfd, upath, path, 0);

	if (err < 0)
		return err;
	if (!(rel = in_tmp(path)))
		return read_only(path) == -ENOENT ? -EROFS : -EEXIST;
	return tmpfs_mkdir(rel, mode & ~current()->fs->umask);
}

/* mknod: a FIFO or a regular file in /tmp; there are no devices to make. */
long sys_mknodat(int dirfd, const char __user *upath, unsigned int mode, unsigned int dev)
{
	char path[PATH_MAX];
	uint32_t type = mode & S_IFMT;
	long err;

	(void)dev;
	if (type && type != S_IFREG && type != S_IFIFO)
		return type == S_IFCHR || type == 0060000 || type == 0140000 ? -EPERM : -EINVAL;
	if ((err = get_path(dirfd, upath, path, 0)) < 0)
		return err;
	if (!in_tmp(path))
		return read_only(path) == -ENOENT ? -EROFS : -EEXIST;
	return tmpfs_mknod(in_tmp(path), (type ? type : S_IFREG) | (mode & 07777 & ~current()->fs->umask));
}

long sys_mknod(const char __user *path, unsigned int mode, unsigned int dev)
{
	return sys_mknodat(AT_FDCWD, path, mode, dev);
}

long sys_mkdir(const char __user *path, unsigned int mode)
{
	return sys_mkdirat(AT_FDCWD, path, mode);
}

long sys_unlinkat(int dirfd, const char __user *upath, int flags)
{
	char path[PATH_MAX];
	const char *rel;
	long err = get_path(dirfd, upath, path, 0);

	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	if (err < 0)
		return err;
	if (!(rel = in_tmp(path)))
		return read_only(path);
	return tmpfs_remove(rel, flags & AT_REMOVEDIR);
}

long sys_unlink(const char __user *path)
{
	return sys_unlinkat(AT_FDCWD, path, 0);
}

long sys_rmdir(const char __user *path)
{
	return sys_unlinkat(AT_FDCWD, path, AT_REMOVEDIR);
}

long sys_renameat2(int olddfd, const char __user *uold, int newdfd, const char __user *unew,
		   unsigned int flags)
{
	char from[PATH_MAX], to[PATH_MAX];
	long err;

	if (flags)
		return -EINVAL;
	if ((err = get_path(olddfd, uold, from, 0)) < 0 || (err = get_path(newdfd, unew, to, 0)) < 0)
		return err;
	if (!in_tmp(from))
		return read_only(from);
	if (!in_tmp(to))
		return -EXDEV;
	return tmpfs_rename(in_tmp(from), in_tmp(to));
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
	char path[PATH_MAX];
	struct tnode *n;
	long err = get_path(AT_FDCWD, upath, path, LOOKUP_FOLLOW);

	if (err < 0)
		return err;
	if (len < 0)
		return -EINVAL;
	if (!in_tmp(path))
		return read_only(path);
	if ((err = tmpfs_lookup(in_tmp(path), &n)) < 0)
		return err;
	return tmpfs_truncate(n, len);
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

static long change_dir(const char *path)
{
	struct stat st;
	long err = path_stat(path, &st);

	if (err)
		return err;
	if ((st.st_mode & S_IFMT) != S_IFDIR)
		return -ENOTDIR;
	strlcpy(current()->fs->cwd, path, PATH_MAX);
	return 0;
}

long sys_chdir(const char __user *upath)
{
	char path[PATH_MAX];
	long err = get_path(AT_FDCWD, upath, path, LOOKUP_FOLLOW);

	return err < 0 ? err : change_dir(path);
}

static long file_chdir(struct file *f)
{
	if (!f->ops->dirent || !f->path)
		return -ENOTDIR;
	return change_dir(f->path);
}

long sys_fchdir(unsigned int fd)
{
	return WITH_FILE(fd, f, file_chdir(f));
}

long sys_getcwd(char __user *buf, unsigned long size)
{
	size_t len = strlen(current()->fs->cwd) + 1;

	if (size < len)
		return -ERANGE;
	return copy_to_user(buf, current()->fs->cwd, len) ? -EFAULT : (long)len;
}

/* struct linux_dirent64: d_ino, d_off, d_reclen, d_type, then the name and a NUL, 8-aligned. */
static long file_getdents(struct file *f, void __user *buf, unsigned int size)
{
	struct dirent_out d;
	unsigned long done = 0;

	if (!f->ops->dirent)
		return -ENOTDIR;
	while (f->ops->dirent(f, f->offset, &d) == 0) {
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
	return done;
}

long sys_getdents64(unsigned int fd, void __user *buf, unsigned int size)
{
	return WITH_FILE(fd, f, file_getdents(f, buf, size));
}
