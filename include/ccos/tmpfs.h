/* tmpfs, the writable file system at /tmp (kernel/tmpfs.c), and what getdents64 asks of a directory. */
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

struct tnode;
struct file;
struct stat;
struct timespec;

/* rel: the path below /tmp ("" for /tmp itself, else "/a/b"), normalized. */
int tmpfs_lookup(const char *rel, struct tnode **node);
struct file *tmpfs_open(const char *rel, int flags, uint32_t mode, long *err);
long tmpfs_mkdir(const char *rel, uint32_t mode);
long tmpfs_symlink(const char *rel, const char *target);
long tmpfs_mknod(const char *rel, uint32_t mode);
long tmpfs_readlink(struct tnode *n, char *buf);
long tmpfs_remove(const char *rel, bool dir);
long tmpfs_rename(const char *from, const char *to);
long tmpfs_truncate(struct tnode *n, uint64_t len);
void tmpfs_stat(struct tnode *n, struct stat *st);
bool tmpfs_is_dir(struct tnode *n);
struct tnode *tmpfs_node(struct file *f);	/* NULL if f is not a tmpfs file */
void tmpfs_chmod(struct tnode *n, uint32_t mode);
void tmpfs_chown(struct tnode *n, uint32_t uid, uint32_t gid);
void tmpfs_set_mtime(struct tnode *n, const struct timespec *ts);

#endif
