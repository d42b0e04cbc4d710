/* tmpfs, the writable in-memory file system at /tmp: its tree of names, and the calls that change it. */
#include "tmpfs_node.h"
#include <ccos/path.h>
#include <ccos/permission.h>
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/shmem.h>

static struct tnode root = { .name = "tmp", .mode = S_IFDIR | 01777, .nlink = 2, .ino = 1 };
static size_t nodes_used;
static uint64_t next_ino = 2;

static struct tnode *find_child(struct tnode *dir, const char *name)
{
	struct tnode *c;

	for (c = dir->child; c; c = c->next)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/*
 * Free n if nothing names it or holds it; then its directory, which n
 * held since it lost its name, may go too, and so on up.
 */
static void maybe_free(struct tnode *n)
{
	while (n && !n->nlink && !n->refs) {
		struct tnode *dir = n->parent;

		if (!tnode_pages(n))
			kfree(n->link);		/* else it is in the node's page */
		tnode_shrink(n, 0);
		if (n->data)
			shmem_put(n->data);
		kfree(n->name);
		fifo_orphan(n->fifo);
		kfree(n);
		nodes_used--;
		dir->refs--;
		n = dir;
	}
}

/* Out of its directory's list; n->parent stays (a rename attaches it elsewhere). */
static void detach(struct tnode *n)
{
	struct tnode **pp = &n->parent->child;

	while (*pp != n)
		pp = &(*pp)->next;
	*pp = n->next;
	if (is_dir(n))
		n->parent->nlink--;
}

/*
 * unlink, rmdir, or a rename over it: entry, a name, goes. A second name
 * (link) is only an entry, freed here; its node has a name less. A node
 * that loses its own entry holds its directory while it lives on: with
 * other names, or open, or, for a directory a process is in, with no
 * entries and ".." still leading there, as on Linux.
 */
static void unname(struct tnode *entry)
{
	struct tnode *n = named(entry);

	detach(entry);
	if (entry != n) {
		kfree(entry->name);
		kfree(entry);
		nodes_used--;
	} else {
		n->parent->refs++;
	}
	n->nlink = is_dir(n) ? 0 : n->nlink - 1;
	tnode_touch_ctime(n);
	maybe_free(n);
}

static void attach(struct tnode *dir, struct tnode *n)
{
	n->parent = dir;
	n->next = dir->child;
	dir->child = n;
	if (is_dir(n))
		dir->nlink++;
	tnode_touch(dir);
}

/* 0 and *out the new node, -ENOSPC past the node limit, or -ENOMEM. */
static long create(struct tnode *dir, const char *name, uint32_t mode, struct tnode **out)
{
	size_t len = strlen(name);
	struct tnode *n;

	if (nodes_used == TMPFS_MAX_NODES)
		return -ENOSPC;
	if (!(n = kzalloc(sizeof(*n))) || !(n->name = kmalloc(len + 1))) {
		kfree(n);
		return -ENOMEM;
	}
	nodes_used++;
	memcpy(n->name, name, len + 1);
	n->mode = mode;
	tnode_set_owner(n, dir);
	n->nlink = (mode & S_IFMT) == S_IFDIR ? 2 : 1;
	n->ino = next_ino++;
	tnode_touch(n);
	n->atime = n->mtime;
	attach(dir, n);
	*out = n;
	return 0;
}

/* --- The tree, as path lookup (fs/path.c) and the system calls (fs/sys_fs.c) ask ---- */

struct tnode *tmpfs_root(void)
{
	return &root;
}

/* The node of the entry name of directory dir; NULL if none, or if dir was removed. */
struct tnode *tmpfs_child(struct tnode *dir, const char *name)
{
	struct tnode *entry = dead(dir) ? NULL : find_child(dir, name);

	return entry ? named(entry) : NULL;
}

/* n's directory (a removed node's is where it was); NULL for /tmp itself. */
struct tnode *tmpfs_parent(struct tnode *n)
{
	return n->parent;
}

/* A symbolic link's target, else NULL. */
const char *tmpfs_link(struct tnode *n)
{
	return n->link;
}

bool tmpfs_is_dir(struct tnode *n)
{
	return is_dir(n);
}

/* A reference (a working directory, an open file): the node outlives its names until put. */
void tmpfs_get(struct tnode *n)
{
	n->refs++;
}

void tmpfs_put(struct tnode *n)
{
	n->refs--;
	maybe_free(n);
}

/* The path where n is, or was: "/tmp/a/b" into buf, built from n up: its length, -ENAMETOOLONG past size. */
static long path_of(struct tnode *n, char *buf, size_t size)
{
	size_t at = size - 1, len;

	buf[at] = 0;
	for (; n; n = n->parent) {
		if ((len = strlen(n->name)) + 1 > at)
			return -ENAMETOOLONG;
		at -= len;
		memcpy(buf + at, n->name, len);
		buf[--at] = '/';
	}
	memmove(buf, buf + at, size - at);
	return size - 1 - at;
}

/* "/tmp/a/b" into buf: its length; -ENOENT if removed, -ENAMETOOLONG past size. */
long tmpfs_path(struct tnode *n, char *buf, size_t size)
{
	return dead(n) ? -ENOENT : path_of(n, buf, size);
}

long tmpfs_maps_name(struct tnode *n, char *buf, size_t size)
{
	static const char deleted[] = " (deleted)";
	long len = path_of(n, buf, size - (dead(n) ? sizeof(deleted) - 1 : 0));

	if (len >= 0 && dead(n)) {
		memcpy(buf + len, deleted, sizeof(deleted));
		len += sizeof(deleted) - 1;
	}
	return len;
}

struct file *tmpfs_open(struct tnode *n, int flags, long *err)
{
	struct file *f;

	*err = 0;
	if (is_dir(n) && ((flags & O_ACCMODE) || (flags & O_CREAT)))
		*err = -EISDIR;
	else if (!is_dir(n) && (flags & O_DIRECTORY))
		*err = -ENOTDIR;
	else if ((flags & O_TRUNC) && (flags & O_ACCMODE)) {
		tnode_shrink(n, 0);
		tnode_touch(n);
	}
	if (*err)
		return NULL;
	if ((n->mode & S_IFMT) == S_IFIFO && !(flags & O_PATH))
		return fifo_open(&n->fifo, n->ino, flags, err);
	if (!(f = file_new(&tmpfs_ops, NULL, 0))) {
		*err = -ENOMEM;
		return NULL;
	}
	f->priv = n;
	tmpfs_get(n);
	return f;
}

/* A new node name in dir (open's O_CREAT, mkdir, mknod, symlink): -EEXIST if it is taken. */
long tmpfs_make(struct tnode *dir, const char *name, uint32_t mode, struct tnode **n)
{
	if (dead(dir))
		return -ENOENT;
	if (find_child(dir, name))
		return -EEXIST;
	return may_create(dir) ?: create(dir, name, mode, n);
}

/* unlink (rmdir false) and rmdir (rmdir true) of name in dir. */
long tmpfs_remove(struct tnode *dir, const char *name, bool rmdir)
{
	struct tnode *entry = dead(dir) ? NULL : find_child(dir, name), *n;
	long err;

	if (!entry)
		return -ENOENT;
	n = named(entry);
	if ((err = may_delete(dir, n)))
		return err;
	if (rmdir && !is_dir(n))
		return -ENOTDIR;
	if (!rmdir && is_dir(n))
		return -EISDIR;
	if (rmdir && n->child)
		return -ENOTEMPTY;
	tnode_touch(dir);
	unname(entry);
	return 0;
}

/* As Linux's tmpfs, a target longer than a name takes a page, counted with the files' data. */
long tmpfs_symlink(struct tnode *dir, const char *name, const char *target)
{
	size_t len = strlen(target) + 1;
	struct tnode *n;
	long err = tmpfs_make(dir, name, S_IFLNK | 0777, &n);

	if (err)
		return err;
	if (len > NAME_MAX + 1)
		err = tnode_grow(n, len);
	n->link = err ? NULL : len > NAME_MAX + 1 ? (char *)tnode_page(n, 0) : kmalloc(len);
	if (!n->link) {
		tmpfs_remove(dir, name, false);
		return err ? err : -ENOMEM;
	}
	memcpy(n->link, target, len);
	return 0;
}

long tmpfs_rename(struct tnode *from_dir, const char *from, struct tnode *to_dir, const char *to)
{
	struct tnode *n = dead(from_dir) ? NULL : find_child(from_dir, from), *old, *a;
	char *copy;
	long err;

	if (!n || dead(to_dir))
		return -ENOENT;
	old = find_child(to_dir, to);
	/* As Linux: away from its name, to its new one; a directory moved changes its own "..". */
	if ((err = may_delete(from_dir, named(n))) ||
	    (err = old ? may_delete(to_dir, named(old)) : may_create(to_dir)) ||
	    (is_dir(n) && from_dir != to_dir && (err = tnode_permission(n, MAY_WRITE))))
		return err;
	for (a = to_dir; a; a = a->parent)
		if (a == n)
			return -EINVAL;		/* into its own subtree */
	if (old && named(old) == named(n))
		return 0;		/* two names of one node: nothing to do, as POSIX says */
	if (old && is_dir(n) != is_dir(old))
		return is_dir(old) ? -EISDIR : -ENOTDIR;
	if (old && old->child)
		return -ENOTEMPTY;
	if (!(copy = kmalloc(strlen(to) + 1)))
		return -ENOMEM;
	memcpy(copy, to, strlen(to) + 1);
	if (old)
		unname(old);
	tnode_touch(from_dir);
	detach(n);
	kfree(n->name);
	n->name = copy;
	attach(to_dir, n);
	tnode_touch_ctime(named(n));
	return 0;
}

/* link: name in dir, a second name of the node n; not of a directory (EPERM, as Linux). */
long tmpfs_hardlink(struct tnode *dir, const char *name, struct tnode *n)
{
	struct tnode *entry;
	long err;

	if (dead(dir) || dead(n))
		return -ENOENT;
	if (find_child(dir, name))
		return -EEXIST;
	if (is_dir(n))
		return -EPERM;
	if ((err = tmpfs_make(dir, name, 0, &entry)) < 0)
		return err;
	entry->node = n;
	n->nlink++;
	tnode_touch_ctime(n);
	return 0;
}

struct tmpfs_usage tmpfs_usage(void)
{
	return (struct tmpfs_usage){ tmpfs_pages_used, TMPFS_MAX_PAGES, nodes_used, TMPFS_MAX_NODES };
}
