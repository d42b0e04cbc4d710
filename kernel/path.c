/* Path lookup: a path as a normalized absolute one, following the symbolic links on the way. */
#include <ccos/path.h>
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>

#define MAXSYMLINKS	40	/* as Linux: more links than this in one lookup is ELOOP */

/* The part of a normalized path below /tmp ("" or "/..."), or NULL outside it. */
const char *in_tmp(const char *path)
{
	if (strncmp(path, "/tmp", 4) || (path[4] && path[4] != '/'))
		return NULL;
	return path + 4;
}

/* FNV-1a of the path: one number per path, for the files that have no node to number. */
uint64_t path_ino(const char *path)
{
	uint64_t h = 14695981039346656037ull;

	while (*path)
		h = (h ^ (uint8_t)*path++) * 1099511628211ull;
	return h;
}

/* Drop the last component of a normalized absolute path ("/" stays "/"). */
static void up(char *out)
{
	size_t len = strlen(out);

	while (len > 1 && out[--len] != '/')
		;
	out[len ? len : 1] = 0;
}

/*
 * Append the components of s to out, a normalized absolute path without
 * links: "." goes, ".." drops out's last component, and a component that
 * names a symbolic link is replaced by the link's target, read from the
 * link's directory (from / when it is absolute), before the rest of s.
 * The last component is followed only with LOOKUP_FOLLOW, or when a slash
 * ends s. As Linux, ".." after a link climbs from where the link led.
 */
static long walk(char *out, const char *s, int flags)
{
	char rest[PATH_MAX], target[PATH_MAX];
	const char *p = rest;
	int links = 0;

	if (strlcpy(rest, s, sizeof(rest)) >= sizeof(rest))
		return -ENAMETOOLONG;
	while (*p) {
		const char *end = strchr(p, '/'), *next;
		size_t n = end ? (size_t)(end - p) : strlen(p), len = strlen(out);
		long tlen;

		next = p + n + (end != NULL);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			up(out);
		} else if (n && !(n == 1 && p[0] == '.')) {
			if (len + 1 + n >= PATH_MAX)
				return -ENAMETOOLONG;
			if (len > 1)
				out[len++] = '/';
			memcpy(out + len, p, n);
			out[len + n] = 0;
			tlen = end || (flags & LOOKUP_FOLLOW) ? link_target(out, target) : -EINVAL;
			if (tlen > 0) {
				if (++links > MAXSYMLINKS)
					return -ELOOP;
				up(out);
				if (target[0] == '/')
					strlcpy(out, "/", PATH_MAX);
				/* rest: the target, a slash, what followed the link */
				if (end)
					target[tlen++] = '/';
				if (tlen + strlen(next) >= PATH_MAX)
					return -ENAMETOOLONG;
				memmove(rest + tlen, next, strlen(next) + 1);
				memcpy(rest, target, tlen);
				next = rest;
			}
		}
		p = next;
	}
	return 0;
}

/* A kernel path, relative to cwd unless absolute. */
long kernel_path(const char *cwd, const char *path, char *out, int flags)
{
	if (!*path)
		return -ENOENT;
	strlcpy(out, path[0] == '/' ? "/" : cwd, PATH_MAX);
	return walk(out, path, flags);
}

/* raw, relative to the directory f was opened as, into out. */
static long dir_path(struct file *f, const char *raw, char *out, int flags)
{
	if (!f->ops->dirent || !f->path)
		return -ENOTDIR;
	strlcpy(out, f->path, PATH_MAX);
	return walk(out, raw, flags);
}

/* A user's path, relative to dirfd or the working directory unless absolute. */
long get_path(int dirfd, const char __user *upath, char *out, int flags)
{
	char raw[PATH_MAX];
	long len = strncpy_from_user(raw, upath, sizeof(raw));

	if (len < 0)
		return len;
	if (!len || raw[0] == '/' || dirfd == AT_FDCWD)
		return kernel_path(current()->fs->cwd, raw, out, flags);
	return WITH_FILE(dirfd, f, dir_path(f, raw, out, flags));
}
