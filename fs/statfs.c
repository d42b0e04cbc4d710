/* The mounts: the tree's three file systems as /proc/mounts lists them, and statfs/fstatfs on each. */
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

/* struct statfs as x86-64 Linux's statfs(2) fills it (120 bytes). */
struct statfs {
	int64_t f_type, f_bsize;
	uint64_t f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int32_t f_fsid[2];
	int64_t f_namelen, f_frsize, f_flags, f_spare[4];
};
BUILD_BUG_ON(sizeof(struct statfs) != 120);

/* f_flags (Linux's ST_* of statvfs): what the mount options say, and ST_VALID. */
#define ST_RDONLY	0x0001
#define ST_NOSUID	0x0002
#define ST_NODEV	0x0004
#define ST_NOEXEC	0x0008
#define ST_VALID	0x0020
#define ST_RELATIME	0x1000

enum { ROOT, PROC, TMP };

/*
 * The tree: /, /bin and /etc are the GRUB modules, in memory and
 * read-only, of type rootfs as Linux calls its first file system in
 * memory (the device is named "modules": df leaves out a device named
 * rootfs); /proc is made as it is read; /tmp is tmpfs. Linux's magic
 * numbers (include/uapi/linux/magic.h) say which each is.
 */
static const struct mount {
	const char *dir, *device, *type, *options;
	int64_t magic, flags;
} mounts[] = {
	[ROOT] = { "/", "modules", "rootfs", "ro", 0x858458f6 /* RAMFS_MAGIC */, ST_RDONLY },
	[PROC] = { "/proc", "proc", "proc", "rw,nosuid,nodev,noexec,relatime", 0x9fa0,
		   ST_NOSUID | ST_NODEV | ST_NOEXEC | ST_RELATIME },
	[TMP] = { "/tmp", "tmpfs", "tmpfs", "rw,nosuid,nodev,relatime", 0x01021994,
		  ST_NOSUID | ST_NODEV | ST_RELATIME },
};

/* The mount a place is on: /tmp's nodes, then the longest mount directory that starts a path. */
static const struct mount *mount_of(const struct tnode *node, const char *path)
{
	if (node)
		return &mounts[TMP];
	if (path && !strncmp(path, "/proc", 5) && (!path[5] || path[5] == '/'))
		return &mounts[PROC];
	return &mounts[ROOT];
}

/* /proc/mounts: device, directory, type, options, then 0 0 (dump, pass), as Linux prints them. */
char *proc_mounts(size_t *len)
{
	size_t size = ARRAY_SIZE(mounts) * 128, n = 0, i;
	struct tmpfs_usage u = tmpfs_usage();
	char *buf = kmalloc(size);

	if (!buf)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(mounts); i++) {
		n += snprintf(buf + n, size - n, "%s %s %s %s", mounts[i].device, mounts[i].dir,
			      mounts[i].type, mounts[i].options);
		if (i == TMP)		/* tmpfs's limits, as Linux shows size= and nr_inodes= */
			n += snprintf(buf + n, size - n, ",size=%luk,nr_inodes=%lu",
				      u.max_pages * (PAGE_SIZE / 1024), u.max_nodes);
		n += snprintf(buf + n, size - n, " 0 0\n");
	}
	*len = MIN(n, size);
	return buf;
}

/*
 * The numbers df shows. The modules' pages are all used (read-only, none
 * free); /tmp's are its 4 MiB and its 8,192 nodes; /proc has no blocks, so
 * df leaves it out, as it does Linux's.
 */
static void fill_statfs(const struct mount *m, struct statfs *st)
{
	struct tmpfs_usage u = tmpfs_usage();
	uint64_t files;

	*st = (struct statfs){
		.f_type = m->magic, .f_bsize = PAGE_SIZE, .f_frsize = PAGE_SIZE,
		.f_namelen = NAME_MAX, .f_flags = m->flags | ST_VALID,
	};
	if (m == &mounts[ROOT]) {
		st->f_blocks = modules_pages(&files);
		st->f_files = files;
	} else if (m == &mounts[TMP]) {
		st->f_blocks = u.max_pages;
		st->f_bfree = st->f_bavail = u.max_pages - u.pages;
		st->f_files = u.max_nodes;
		st->f_ffree = u.max_nodes - u.nodes;
	}
}

static long put_statfs(const struct mount *m, struct statfs __user *ubuf)
{
	struct statfs st;

	fill_statfs(m, &st);
	return copy_to_user(ubuf, &st, sizeof(st)) ? -EFAULT : 0;
}

long sys_statfs(const char __user *upath, struct statfs __user *ubuf)
{
	struct place at;
	long err = lookup(AT_FDCWD, upath, LOOKUP_FOLLOW, &at);

	return err < 0 ? err : put_statfs(mount_of(at.node, at.path), ubuf);
}

/* A file opened by a path is on that path's mount; a /tmp node on /tmp; a pipe or the console on /. */
static long file_statfs(struct file *f, struct statfs __user *ubuf)
{
	return put_statfs(mount_of(tmpfs_node(f), f->path), ubuf);
}

long sys_fstatfs(unsigned int fd, struct statfs __user *ubuf)
{
	return WITH_FILE(fd, f, file_statfs(f, ubuf));
}
