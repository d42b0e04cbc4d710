/* tmpfs, the writable file system at /tmp (fs/tmpfs.c), and what getdents64 asks of a directory. */
#ifndef CCOS_TMPFS_H
#define CCOS_TMPFS_H

#include <ccos/types.h>

/* d_type values of struct linux_dirent64 */
#define DT_CHR		2
#define DT_DIR		4
#define DT_REG		8
#define DT_LNK		10

/* One directory entry, as a directory's dirent op gives it. */
struct dirent_out {
	const char *name;
	uint64_t ino;
	uint8_t type;
	char buf[16];		/* room for a name made on the spot (/proc's numbers) */
};

/* What statfs and /proc/mounts say of /tmp: pages of data and nodes, used and allowed. */
struct tmpfs_usage {
	uint64_t pages, max_pages, nodes, max_nodes;
};

struct tnode;
struct file;
struct stat;
struct timespec;

/* What a directory's dirent op returns past its last entry (before it: 0; a negative errno). */
#define DIRENT_END	1

/* The tree, for path lookup (fs/path.c) and the system calls. */
struct tnode *tmpfs_root(void);		/* /tmp itself */
struct tnode *tmpfs_child(struct tnode *dir, const char *name);	/* NULL: none, or dir removed */
struct tnode *tmpfs_parent(struct tnode *n);	/* NULL for /tmp itself */
const char *tmpfs_link(struct tnode *n);	/* a symbolic link's target, else NULL */
bool tmpfs_is_dir(struct tnode *n);
void tmpfs_get(struct tnode *n);	/* a working directory's or an open file's reference */
void tmpfs_put(struct tnode *n);
long tmpfs_path(struct tnode *n, char *buf, size_t size);	/* "/tmp/a/b", for getcwd */
/* "/tmp/a/b", or "/tmp/a/b (deleted)" once unlinked, for /proc/PID/maps: its length, or < 0. */
long tmpfs_maps_name(struct tnode *n, char *buf, size_t size);
/* A regular file's data, which mmap maps (mm/shmem.c): NULL for any other node, or out of memory. */
struct shmem *tmpfs_shmem(struct tnode *n);
struct file *tmpfs_open(struct tnode *n, int flags, long *err);
long tmpfs_make(struct tnode *dir, const char *name, uint32_t mode, struct tnode **n);
long tmpfs_symlink(struct tnode *dir, const char *name, const char *target);
long tmpfs_remove(struct tnode *dir, const char *name, bool rmdir);
long tmpfs_rename(struct tnode *from_dir, const char *from, struct tnode *to_dir, const char *to);
long tmpfs_hardlink(struct tnode *dir, const char *name, struct tnode *n);
long tmpfs_truncate(struct tnode *n, uint64_t len);
void tmpfs_stat(struct tnode *n, struct stat *st);
struct tnode *tmpfs_node(struct file *f);	/* NULL if f is not a tmpfs file */
long tmpfs_chmod(struct tnode *n, uint32_t mode);
long tmpfs_chown(struct tnode *n, uint32_t uid, uint32_t gid);
long tmpfs_permission(struct tnode *n, int mask);	/* fs/permission.c */
bool tmpfs_owner(struct tnode *n);
void tmpfs_set_times(struct tnode *n, const struct timespec *atime, const struct timespec *mtime);
struct tmpfs_usage tmpfs_usage(void);

#endif
