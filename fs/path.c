/* Path lookup: from /, the working directory or a directory descriptor, a component at a time, following links. */
#include <ccos/path.h>
#include <ccos/tmpfs.h>
#include <ccos/permission.h>
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/uaccess.h>

#define MAXSYMLINKS	40	/* as Linux: more links than this in one lookup is ELOOP */

/*
 * A lookup walks places (include/ccos/path.h): in /tmp, nodes of
 * fs/tmpfs.c; elsewhere, paths that fs/rodir.c and the files of
 * fs/file.c know. It starts at a directory, not at a name: the
 * working directory's node, or a directory descriptor's, so that a
 * directory renamed since is still where its relative paths start, and
 * one removed since has no entries (ENOENT), even if another directory
 * now has its name. No path is ever made whole: a tree can be deeper than
 * PATH_MAX, which bounds only the text a caller gives.
 *
 * Every system call runs under the kernel lock, and a lookup does not
 * sleep: the places it gives are good until the caller sleeps or changes
 * the tree. Only the working directory keeps its node (place_hold), and a
 * descriptor keeps its file's.
 */

const struct place root_place = { .path = "/" };

/* FNV-1a of the path: one number per path, for the files that have no node to number. */
uint64_t path_ino(const char *path)
{
	uint64_t h = 14695981039346656037ull;

	while (*path)
		h = (h ^ (uint8_t)*path++) * 1099511628211ull;
	return h;
}

bool is_dots(const char *name)
{
	return !name[0] || !strcmp(name, ".") || !strcmp(name, "..");
}

void place_hold(const struct place *p)
{
	if (p->node)
		tmpfs_get(p->node);
}

void place_drop(const struct place *p)
{
	if (p->node)
		tmpfs_put(p->node);
}

/* One step up: a /tmp node's directory (a removed one's too, as Linux), / from /tmp, a read-only directory's parent. */
static void up(struct place *at)
{
	size_t len = strlen(at->path);

	if (at->node == tmpfs_root()) {
		*at = root_place;
	} else if (at->node) {
		at->node = tmpfs_parent(at->node);
	} else {
		while (len > 1 && at->path[--len] != '/')
			;
		at->path[len ? len : 1] = 0;
	}
}

/*
 * dir's path, a slash and name into out (RO_PATH_MAX bytes, cut short as
 * snprintf would): "/" and "bin" make "/bin". Every component of a path
 * outside /tmp comes through here, so it copies rather than formats.
 */
static void join(char *out, const char *dir, const char *name)
{
	size_t d = dir[0] == '/' && !dir[1] ? 0 : strlen(dir), n = strlen(name);

	if (d > RO_PATH_MAX - 1)
		d = RO_PATH_MAX - 1;
	memcpy(out, dir, d);
	if (d < RO_PATH_MAX - 1)
		out[d++] = '/';
	if (n > RO_PATH_MAX - 1 - d)
		n = RO_PATH_MAX - 1 - d;
	memcpy(out + d, name, n);
	out[d + n] = 0;
}

/* A place copied: its node, and its path only as far as it goes (a place is mostly unused path). */
static void place_copy(struct place *to, const struct place *from)
{
	to->node = from->node;
	strlcpy(to->path, from->path, sizeof(to->path));
}

/*
 * The entry name of directory dir, which the caller must be able to
 * search (x) in /tmp: every directory a path goes through, and the last
 * one's too, as Linux's may_lookup. Outside /tmp it is a path, which may
 * name nothing, and every directory is searchable by all.
 */
static long child(const struct place *dir, const char *name, struct place *out)
{
	long err;

	if (dir->node) {
		if ((err = tmpfs_permission(dir->node, MAY_EXEC)))
			return err;
		out->node = tmpfs_child(dir->node, name);
		return out->node ? 0 : -ENOENT;
	}
	out->node = NULL;
	join(out->path, dir->path, name);
	if (!strcmp(out->path, "/tmp"))
		out->node = tmpfs_root();
	return 0;
}

/* p's target if p is a symbolic link: a /tmp link's own text, a read-only link's in buf; else NULL. */
const char *place_link(const struct place *p, char *buf)
{
	if (p->node)
		return tmpfs_link(p->node);
	return link_target(p->path, buf) > 0 ? buf : NULL;
}

static bool is_dir(const struct place *p)
{
	return p->node ? tmpfs_is_dir(p->node) : rodir_is(p->path);
}

/* What a place that is not a directory says when a directory is wanted. */
static long not_dir(const struct place *p)
{
	struct stat st;
	long err = place_stat(p, &st);

	return err ? err : -ENOTDIR;
}

/*
 * Walk text from nd->dir, one component at a time: "." stays, ".." goes
 * up, a name enters its directory, and a name that is a symbolic link is
 * replaced by the link's target, which continues from the link's
 * directory (from / when it begins with /), before the rest of text. As
 * Linux, ".." after a link climbs from where the link led. The last
 * component is left in nd->last, not entered; it is followed too if it
 * is a link and flags say LOOKUP_FOLLOW, or a slash ends it.
 */
static long walk(struct lookup *nd, char *text, int flags)
{
	char buf[RO_PATH_MAX], *p = text;
	int links = 0;

	for (;;) {
		const char *name = p, *target;
		struct place next;
		size_t n, tlen;
		bool last;
		long err;

		while (*p && *p != '/')
			p++;
		if ((n = p - name) > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(nd->last, name, n);
		nd->last[n] = 0;
		nd->slash = *p == '/';
		while (*p == '/')
			p++;
		last = !*p;
		if (last && (is_dots(nd->last) || (!(flags & LOOKUP_FOLLOW) && !nd->slash)))
			return 0;
		if (!n || !strcmp(nd->last, "."))
			continue;
		if (!strcmp(nd->last, "..")) {
			up(&nd->dir);
			continue;
		}
		if ((err = child(&nd->dir, nd->last, &next)))
			return last && err == -ENOENT ? 0 : err;
		if (!(target = place_link(&next, buf))) {
			if (last)
				return 0;
			if (!is_dir(&next))
				return not_dir(&next);
			place_copy(&nd->dir, &next);
			continue;
		}
		/* A link: text becomes its target, a slash if one followed it, and the rest. */
		if (++links > MAXSYMLINKS)
			return -ELOOP;
		tlen = strlen(target);
		if (tlen + nd->slash + strlen(p) >= PATH_MAX)
			return -ENAMETOOLONG;
		memmove(text + tlen + nd->slash, p, strlen(p) + 1);
		memcpy(text, target, tlen);
		if (nd->slash)
			text[tlen] = '/';
		if (target[0] == '/')
			place_copy(&nd->dir, &root_place);
		p = text;
	}
}

/* Where a path starts: /, the working directory, or the directory dirfd is open on. */
static long start(int dirfd, const char *text, struct place *at)
{
	if (text[0] == '/')
		place_copy(at, &root_place);
	else if (dirfd == AT_FDCWD)
		place_copy(at, &current()->fs->cwd);
	else
		return WITH_FILE(dirfd, f, file_place(f, at));
	return 0;
}

/* A user's path, relative to dirfd or the working directory unless absolute, but its last component. */
long lookup_parent(int dirfd, const char __user *upath, int flags, struct lookup *nd)
{
	char text[PATH_MAX];
	long err = strncpy_from_user(text, upath, sizeof(text));

	if (err < 0)
		return err;
	if (!err)
		return -ENOENT;
	return (err = start(dirfd, text, &nd->dir)) ? err : walk(nd, text, flags);
}

/* The place nd's last component names: its directory for "" and ".", the one above for "..". */
long lookup_last(const struct lookup *nd, struct place *out)
{
	long err;

	place_copy(out, &nd->dir);
	if (!strcmp(nd->last, ".."))
		up(out);
	if (is_dots(nd->last))
		return 0;
	if ((err = child(&nd->dir, nd->last, out)))
		return err;
	return nd->slash && !is_dir(out) ? not_dir(out) : 0;
}

long lookup(int dirfd, const char __user *upath, int flags, struct place *out)
{
	struct lookup nd;
	long err = lookup_parent(dirfd, upath, flags, &nd);

	return err ? err : lookup_last(&nd, out);
}

/* A kernel string (exec's program), from the directory from unless absolute. */
long kernel_lookup(const struct place *from, const char *path, int flags, struct place *out)
{
	char text[PATH_MAX];
	struct lookup nd;
	long err;

	if (!*path)
		return -ENOENT;
	if (strlcpy(text, path, sizeof(text)) >= sizeof(text))
		return -ENAMETOOLONG;
	nd.dir = path[0] == '/' ? root_place : *from;
	return (err = walk(&nd, text, flags)) ? err : lookup_last(&nd, out);
}

/* p's absolute path into buf (PATH_MAX bytes), for getcwd: its length; -ENOENT if removed, -ENAMETOOLONG. */
long place_name(const struct place *p, char *buf)
{
	if (p->node)
		return tmpfs_path(p->node, buf, PATH_MAX);
	return strlcpy(buf, p->path, PATH_MAX);
}
