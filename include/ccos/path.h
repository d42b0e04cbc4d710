/* Paths (kernel/path.c) and symbolic links (kernel/symlink.c). */
#ifndef CCOS_PATH_H
#define CCOS_PATH_H

#include <ccos/types.h>

struct file;
struct stat;

#define NAME_MAX	255	/* a component's bytes */
#define LOOKUP_FOLLOW	1	/* follow a symbolic link in the last component too */

/* kernel/path.c: paths, normalized, absolute and free of links but maybe the last (PATH_MAX bytes). */
long get_path(int dirfd, const char __user *upath, char *out, int flags);	/* the caller's view */
long kernel_path(const char *cwd, const char *path, char *out, int flags);
const char *in_tmp(const char *path);	/* the part below /tmp ("" or "/..."), or NULL */
uint64_t path_ino(const char *path);	/* an inode number for a file that has none */

/* kernel/sys_fs.c */
long path_stat(const char *path, struct stat *st);

/* kernel/symlink.c */
long link_target(const char *path, char *buf);	/* its length, -EINVAL if path is no link */
struct file *link_open(const char *path, long *err);	/* for lstat; -ENOENT if no such link */
const char *bin_link_at(uint64_t i);	/* the i-th name of /bin that is a link, or NULL */
void bin_links_init(void);

#endif
