/* Hard links: link and linkat, a second name for a /tmp file. */
#include <ccos/path.h>
#include <ccos/tmpfs.h>
#include <ccos/syscall.h>
#include <ccos/errno.h>

#define AT_SYMLINK_FOLLOW	0x400
#define EXDEV			18

/*
 * Linux's order of errors: the old name must exist; the new one must not
 * (EEXIST), and a read-only file system cannot take it (EROFS); the two
 * must be on one file system (EXDEV: /bin/cat cannot be linked into
 * /tmp); a directory has no second name (EPERM). As Linux's link, a
 * symbolic link is linked itself, unless linkat is told AT_SYMLINK_FOLLOW.
 * AT_EMPTY_PATH (linking an open descriptor) is not offered: EINVAL.
 */
long sys_linkat(int olddfd, const char __user *uold, int newdfd, const char __user *unew, int flags)
{
	struct place from, at;
	struct lookup to;
	long err;

	if (flags & ~AT_SYMLINK_FOLLOW)
		return -EINVAL;
	if ((err = lookup(olddfd, uold, flags & AT_SYMLINK_FOLLOW ? LOOKUP_FOLLOW : 0, &from)) < 0 ||
	    (err = lookup_parent(newdfd, unew, 0, &to)) < 0)
		return err;
	if (is_dots(to.last))
		return -EEXIST;
	if (!to.dir.node)
		return lookup_last(&to, &at) == -ENOENT ? -EROFS : -EEXIST;
	if (!from.node)
		return tmpfs_child(to.dir.node, to.last) ? -EEXIST : -EXDEV;
	return tmpfs_hardlink(to.dir.node, to.last, from.node);
}

long sys_link(const char __user *old, const char __user *new)
{
	return sys_linkat(AT_FDCWD, old, AT_FDCWD, new, 0);
}
