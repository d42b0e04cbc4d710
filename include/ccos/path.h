/* Paths and places (fs/path.c), the read-only directories (fs/rodir.c), symbolic links (fs/symlink.c). */
#ifndef CCOS_PATH_H
#define CCOS_PATH_H

#include <ccos/types.h>

struct file;
struct stat;
struct tnode;
struct dirent_out;

#define NAME_MAX	255	/* a component's bytes, as Linux */
#define PATH_MAX	4096	/* a path's bytes with its NUL, as Linux */
#define LOOKUP_FOLLOW	1	/* follow a symbolic link in the last component too */

/*
 * Outside /tmp a place is a path: a read-only directory (the longest is
 * /proc/sys/kernel), a slash and a name.
 */
#define RO_PATH_MAX	(16 + 1 + NAME_MAX + 1)

/*
 * A place in the tree: a node of /tmp, or a path outside it. A lookup
 * moves one through the tree; the working directory is one, and holds a
 * reference to its node (place_hold), so that a directory renamed or
 * removed under it stays the directory it is.
 */
struct place {
	struct tnode *node;		/* in /tmp, else NULL */
	char path[RO_PATH_MAX];		/* outside /tmp: "/", "/bin", "/bin/init", "/proc/42" */
};

/* A path taken but for its last component: that component's directory, and the name. */
struct lookup {
	struct place dir;
	char last[NAME_MAX + 1];	/* "" when the path is "/", or "." or ".." */
	bool slash;			/* a slash followed it: a directory is meant */
};

/* fs/path.c */
long lookup_parent(int dirfd, const char __user *upath, int flags, struct lookup *nd);
long lookup_last(const struct lookup *nd, struct place *out);
long lookup(int dirfd, const char __user *upath, int flags, struct place *out);
long kernel_lookup(const struct place *from, const char *path, int flags, struct place *out);
bool is_dots(const char *name);			/* "", "." or ".." */
const char *place_link(const struct place *p, char *buf);	/* a link's target, or NULL */
long place_name(const struct place *p, char *buf);	/* its absolute path (PATH_MAX bytes) */
void place_hold(const struct place *p);
void place_drop(const struct place *p);
uint64_t path_ino(const char *path);	/* an inode number for a file that has none */

extern const struct place root_place;		/* "/" */

/* fs/rodir.c */
bool rodir_is(const char *path);
struct file *rodir_open(int flags, long *err);
bool rodir_file(struct file *f);

/* fs/sys_fs.c */
long place_stat(const struct place *p, struct stat *st);
long file_place(struct file *f, struct place *out);	/* a directory descriptor's */

/* fs/symlink.c: the read-only links, by path */
long link_target(const char *path, char *buf);	/* into RO_PATH_MAX bytes: its length, -EINVAL if none */
struct file *link_open(const char *path, long *err);	/* for lstat; -ENOENT if no such link */
const char *bin_link_at(uint64_t i);	/* the i-th name of /bin that is a link, or NULL */
void bin_links_init(void);

/* Where relative paths start, and the umask: shared by CLONE_FS, copied by fork. */
struct fs_struct {
	int refs;
	uint32_t umask;
	struct place cwd;		/* the working directory, its node held (fs/path.c) */
};

/* fs/fs_struct.c */
struct fs_struct *fs_alloc(void);
struct fs_struct *fs_copy(struct fs_struct *fs);
struct fs_struct *fs_share(struct fs_struct *fs);
void fs_put(struct fs_struct *fs);
void fs_chdir(struct fs_struct *fs, const struct place *to);

#endif
