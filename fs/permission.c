/* File permission checks: the mode bits against the caller's fs ids, the capabilities that override them, sticky directories. */
#include "tmpfs_node.h"
#include <ccos/cred.h>
#include <ccos/permission.h>
#include <ccos/proc.h>
#include <ccos/errno.h>

/*
 * As Linux's generic_permission: the owner's bits for the owner, else the
 * group's for a member of the file's group (fs gid or a supplementary
 * one), else the others'; then CAP_DAC_READ_SEARCH lets one read any file
 * and read or search any directory, and CAP_DAC_OVERRIDE do anything but
 * execute a file that has no x bit at all. Only /tmp's nodes have owners
 * other than root and modes that deny anything (the rest is read-only,
 * mode 0555 or 0444, owned by root), so the checks are of its nodes.
 */
long mode_permission(uint32_t mode, uint32_t uid, uint32_t gid, int mask)
{
	const struct cred *c = &current()->cred;
	uint32_t bits = c->fsuid == uid ? mode >> 6 : in_group_p(c, gid) ? mode >> 3 : mode;

	mask &= MAY_READ | MAY_WRITE | MAY_EXEC;
	if (!(mask & ~bits & 7))
		return 0;
	if ((mode & S_IFMT) == S_IFDIR) {
		if (!(mask & MAY_WRITE) && capable(CAP_DAC_READ_SEARCH))
			return 0;
		return capable(CAP_DAC_OVERRIDE) ? 0 : -EACCES;
	}
	if (mask == MAY_READ && capable(CAP_DAC_READ_SEARCH))
		return 0;
	if ((!(mask & MAY_EXEC) || (mode & 0111)) && capable(CAP_DAC_OVERRIDE))
		return 0;
	return -EACCES;
}

long tnode_permission(struct tnode *n, int mask)
{
	return mode_permission(n->mode, n->uid, n->gid, mask);
}

long tmpfs_permission(struct tnode *n, int mask)
{
	return tnode_permission(n, mask);
}

bool tmpfs_owner(struct tnode *n)
{
	return is_owner(n);
}

/* A new name in dir: write and search on it. */
long may_create(struct tnode *dir)
{
	return tnode_permission(dir, MAY_WRITE | MAY_EXEC);
}

/* The owner of n, or CAP_FOWNER: who may chmod, utimensat to a given time, or pass a sticky bit. */
bool is_owner(struct tnode *n)
{
	return current()->cred.fsuid == n->uid || capable(CAP_FOWNER);
}

/* Removing (or renaming away) victim's name from dir: write and search, and in a sticky directory its owner's or dir's. */
long may_delete(struct tnode *dir, struct tnode *victim)
{
	long err = tnode_permission(dir, MAY_WRITE | MAY_EXEC);

	if (err)
		return err;
	if ((dir->mode & S_ISVTX) && current()->cred.fsuid != dir->uid && !is_owner(victim))
		return -EPERM;
	return 0;
}

/* A new node's owner: the caller's fs ids; in a setgid directory, its group (and a directory its bit). */
void tnode_set_owner(struct tnode *n, struct tnode *dir)
{
	const struct cred *c = &current()->cred;

	n->uid = c->fsuid;
	n->gid = c->fsgid;
	if (dir->mode & S_ISGID) {
		n->gid = dir->gid;
		if (is_dir(n))
			n->mode |= S_ISGID;
	}
}

/* chmod: the owner or CAP_FOWNER; the setgid bit goes unless the caller is of the file's group or CAP_FSETID. */
long may_chmod(struct tnode *n, uint32_t *mode)
{
	if (!is_owner(n))
		return -EPERM;
	if (!in_group_p(&current()->cred, n->gid) && !capable(CAP_FSETID))
		*mode &= ~S_ISGID;
	return 0;
}

/*
 * chown: a new owner needs CAP_CHOWN, a new group the owner who is of
 * that group, or CAP_CHOWN; -1 keeps either. As Linux's chown_common,
 * any chown of a file that is not a directory drops its setuid bit, and
 * its setgid bit where that means setgid (with group execute) or where the
 * caller could not have set it.
 */
long may_chown(struct tnode *n, uint32_t uid, uint32_t gid)
{
	const struct cred *c = &current()->cred;

	if (uid != INVALID_ID && uid != n->uid && !capable(CAP_CHOWN))
		return -EPERM;
	if (uid != INVALID_ID && c->fsuid != n->uid && !capable(CAP_CHOWN))
		return -EPERM;
	if (gid != INVALID_ID && !capable(CAP_CHOWN) &&
	    (c->fsuid != n->uid || (gid != n->gid && !in_group_p(c, gid))))
		return -EPERM;
	if (!is_dir(n)) {
		n->mode &= ~S_ISUID;
		if ((n->mode & S_ISGID) && ((n->mode & 0010) || !capable(CAP_FSETID)))
			n->mode &= ~S_ISGID;
	}
	return 0;
}
