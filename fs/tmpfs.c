/* tmpfs: the writable in-memory file system at /tmp: a tree of nodes, their pages, open files. */
#include <ccos/tmpfs.h>
#include <ccos/path.h>
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/time.h>
#include <ccos/uaccess.h>

#define TMPFS_MAX_PAGES	1024	/* 4 MiB of file data, then ENOSPC */
/*
 * And 8,192 nodes (Linux counts inodes too): a node, its name (at most
 * 255 bytes) and a link's target take at most 1,280 bytes of the heap
 * (a longer target takes a page of the 4 MiB), so /tmp's metadata stays
 * under 10 MiB, however it is used.
 */
#define TMPFS_MAX_NODES	8192

struct tnode {
	char *name;
	uint32_t mode, uid, gid;
	struct tnode *parent, *child, *next;	/* a directory's entries are a list */
	uint8_t **pages;			/* a file's data, page by page */
	char *link;				/* a symbolic link's target */
	struct pipe *fifo;			/* a FIFO's pipe while it is open (fs/pipe.c) */
	size_t npages;
	uint64_t size, ino;
	int nlink;
	int refs;				/* open files, working directories, removed children */
	struct timespec mtime;
};

static struct tnode root = { .name = "tmp", .mode = S_IFDIR | 01777, .nlink = 2, .ino = 1 };
static size_t pages_used, nodes_used;
static uint64_t next_ino = 2;

static bool is_dir(const struct tnode *n)
{
	return (n->mode & S_IFMT) == S_IFDIR;
}

/* A node removed (or renamed over): no name, no entries; it lives on while referenced (unname). */
static bool dead(const struct tnode *n)
{
	return !n->nlink;
}

static struct tnode *find_child(struct tnode *dir, const char *name)
{
	struct tnode *c;

	for (c = dir->child; c; c = c->next)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void touch(struct tnode *n)
{
	do_clock_gettime(0 /* CLOCK_REALTIME */, &n->mtime);
}

/* Pages past len go; the bytes of the last page past len are zeroed. */
static void shrink(struct tnode *n, uint64_t len)
{
	size_t keep = (len + PAGE_SIZE - 1) / PAGE_SIZE;

	while (n->npages > keep) {
		frame_free(virt_to_phys(n->pages[--n->npages]));
		pages_used--;
	}
	if (len % PAGE_SIZE && keep)
		memset(n->pages[keep - 1] + len % PAGE_SIZE, 0, PAGE_SIZE - len % PAGE_SIZE);
	n->size = len;
}

/* Room for len bytes: zeroed pages, within the file system's limit. */
static int grow(struct tnode *n, uint64_t len)
{
	size_t want = (len + PAGE_SIZE - 1) / PAGE_SIZE;

	uint8_t **pages;

	/* A write inside the pages the file has needs none: without this
	 * return, want - npages below wrapped and every such write "did not
	 * fit" (issue 28). */
	if (want <= n->npages)
		return 0;
	if (want > TMPFS_MAX_PAGES || want - n->npages > TMPFS_MAX_PAGES - pages_used)
		return -ENOSPC;
	if (!(pages = kmalloc(want * sizeof(*pages))))
		return -ENOMEM;
	memcpy(pages, n->pages, n->npages * sizeof(*pages));
	kfree(n->pages);
	n->pages = pages;
	while (n->npages < want) {
		uint64_t frame = frame_alloc();

		if (!frame)
			return -ENOMEM;
		n->pages[n->npages++] = phys_to_virt(frame);
		pages_used++;
	}
	return 0;
}

/*
 * Free n if nothing names it or holds it; then its directory, which n
 * held since it lost its name, may go too, and so on up.
 */
static void maybe_free(struct tnode *n)
{
	while (n && !n->nlink && !n->refs) {
		struct tnode *dir = n->parent;

		if (!n->npages)
			kfree(n->link);		/* else it is in the node's page */
		shrink(n, 0);
		kfree(n->pages);
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
 * unlink, rmdir, or a rename over it: n loses its name. A directory that
 * a process is in, or has open, lives on, with no entries, and holds its
 * own directory, where ".." still leads, as on Linux.
 */
static void unname(struct tnode *n)
{
	detach(n);
	n->nlink = 0;
	n->parent->refs++;
	maybe_free(n);
}

static void attach(struct tnode *dir, struct tnode *n)
{
	n->parent = dir;
	n->next = dir->child;
	dir->child = n;
	if (is_dir(n))
		dir->nlink++;
	touch(dir);
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
	n->nlink = (mode & S_IFMT) == S_IFDIR ? 2 : 1;
	n->ino = next_ino++;
	touch(n);
	attach(dir, n);
	*out = n;
	return 0;
}

/* chmod: the permission bits; the type stays. */
void tmpfs_chmod(struct tnode *n, uint32_t mode)
{
	n->mode = (n->mode & S_IFMT) | (mode & 07777);
}

/* chown: a new owner or group; -1 keeps one. Nobody's rights depend on them. */
void tmpfs_chown(struct tnode *n, uint32_t uid, uint32_t gid)
{
	if (uid != (uint32_t)-1)
		n->uid = uid;
	if (gid != (uint32_t)-1)
		n->gid = gid;
}

/* utimensat: the one time a node keeps, which stat gives as all three. */
void tmpfs_set_mtime(struct tnode *n, const struct timespec *ts)
{
	if (ts)
		n->mtime = *ts;
	else
		touch(n);
}

/* --- Open files ------------------------------------------------------------------- */

static ssize_t tmpfs_read(struct file *f, char __user *buf, size_t len)
{
	struct tnode *n = f->priv;
	size_t done = 0;

	if (is_dir(n))
		return -EISDIR;
	while (done < len && f->offset < n->size) {
		size_t at = f->offset % PAGE_SIZE;
		size_t chunk = MIN(MIN(len - done, PAGE_SIZE - at), n->size - f->offset);

		if (copy_to_user(buf + done, n->pages[f->offset / PAGE_SIZE] + at, chunk))
			return done ? (ssize_t)done : -EFAULT;
		done += chunk;
		f->offset += chunk;
	}
	return done;
}

static ssize_t tmpfs_write(struct file *f, const char __user *buf, size_t len)
{
	struct tnode *n = f->priv;
	size_t done = 0;
	int err;

	if (f->flags & O_APPEND)
		f->offset = n->size;
	if (!len)
		return 0;
	if ((err = grow(n, f->offset + len)) < 0) {
		/* As Linux: write what fits, and ENOSPC only when nothing did. */
		len = n->npages * PAGE_SIZE > f->offset ? MIN(len, n->npages * PAGE_SIZE - f->offset) : 0;
		if (!len)
			return err;
	}
	while (done < len) {
		size_t at = f->offset % PAGE_SIZE, chunk = MIN(len - done, PAGE_SIZE - at);

		if (copy_from_user(n->pages[f->offset / PAGE_SIZE] + at, buf + done, chunk))
			break;
		done += chunk;
		f->offset += chunk;
	}
	if (f->offset > n->size)
		n->size = f->offset;
	touch(n);
	return done ? (ssize_t)done : -EFAULT;
}

static void tmpfs_release(struct file *f)
{
	tmpfs_put(f->priv);
}

void tmpfs_stat(struct tnode *n, struct stat *st)
{
	st->st_dev = 0x15;
	st->st_ino = n->ino;
	st->st_mode = n->mode;
	st->st_uid = n->uid;
	st->st_gid = n->gid;
	st->st_nlink = n->nlink;
	st->st_size = is_dir(n) ? 40 * n->nlink : n->link ? (int64_t)strlen(n->link) : (int64_t)n->size;
	st->st_blksize = PAGE_SIZE;
	st->st_blocks = n->npages * (PAGE_SIZE / 512);
	st->st_atim = st->st_mtim = st->st_ctim = n->mtime;
}

static void tmpfs_file_stat(struct file *f, struct stat *st)
{
	tmpfs_stat(f->priv, st);
}

/* getdents64's entries of a directory: ".", "..", then the list; none once removed (ENOENT, as Linux). */
static int tmpfs_dirent(struct file *f, uint64_t index, struct dirent_out *d)
{
	struct tnode *n = f->priv, *c;

	if (dead(n))
		return -ENOENT;
	if (index < 2) {
		d->name = index ? ".." : ".";
		d->ino = index && n != &root ? n->parent->ino : n->ino;
		d->type = DT_DIR;
		return 0;
	}
	for (c = n->child, index -= 2; c && index; c = c->next)
		index--;
	if (!c)
		return DIRENT_END;
	d->name = c->name;
	d->ino = c->ino;
	d->type = c->mode >> 12;	/* as Linux, DT_DIR, DT_REG, DT_LNK are the type bits */
	return 0;
}

static const struct file_ops tmpfs_ops = {
	.read = tmpfs_read, .write = tmpfs_write, .release = tmpfs_release,
	.stat = tmpfs_file_stat, .dirent = tmpfs_dirent,
};

/* --- The tree, as path lookup (fs/path.c) and the system calls (fs/sys_fs.c) ask ---- */

struct tnode *tmpfs_root(void)
{
	return &root;
}

/* The entry name of directory dir; NULL if none, or if dir was removed. */
struct tnode *tmpfs_child(struct tnode *dir, const char *name)
{
	return dead(dir) ? NULL : find_child(dir, name);
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

/* "/tmp/a/b" into buf, built from n up: its length; -ENOENT if removed, -ENAMETOOLONG past size. */
long tmpfs_path(struct tnode *n, char *buf, size_t size)
{
	size_t at = size - 1, len;

	if (dead(n))
		return -ENOENT;
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

struct file *tmpfs_open(struct tnode *n, int flags, long *err)
{
	struct file *f;

	*err = 0;
	if (is_dir(n) && ((flags & O_ACCMODE) || (flags & O_CREAT)))
		*err = -EISDIR;
	else if (!is_dir(n) && (flags & O_DIRECTORY))
		*err = -ENOTDIR;
	else if ((flags & O_TRUNC) && (flags & O_ACCMODE))
		shrink(n, 0);
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

long tmpfs_truncate(struct tnode *n, uint64_t len)
{
	long err;

	if (is_dir(n))
		return -EISDIR;
	if (len > n->size && (err = grow(n, len)) < 0)
		return err;
	if (len < n->size)
		shrink(n, len);
	n->size = len;
	touch(n);
	return 0;
}

struct tnode *tmpfs_node(struct file *f)
{
	return f->ops == &tmpfs_ops ? f->priv : NULL;
}

/* A new node name in dir (open's O_CREAT, mkdir, mknod, symlink): -EEXIST if it is taken. */
long tmpfs_make(struct tnode *dir, const char *name, uint32_t mode, struct tnode **n)
{
	if (dead(dir))
		return -ENOENT;
	if (find_child(dir, name))
		return -EEXIST;
	return create(dir, name, mode, n);
}

/* unlink (rmdir false) and rmdir (rmdir true) of name in dir. */
long tmpfs_remove(struct tnode *dir, const char *name, bool rmdir)
{
	struct tnode *n = tmpfs_child(dir, name);

	if (!n)
		return -ENOENT;
	if (rmdir && !is_dir(n))
		return -ENOTDIR;
	if (!rmdir && is_dir(n))
		return -EISDIR;
	if (rmdir && n->child)
		return -ENOTEMPTY;
	touch(dir);
	unname(n);
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
		err = grow(n, len);
	n->link = err ? NULL : len > NAME_MAX + 1 ? (char *)n->pages[0] : kmalloc(len);
	if (!n->link) {
		tmpfs_remove(dir, name, false);
		return err ? err : -ENOMEM;
	}
	memcpy(n->link, target, len);
	return 0;
}

long tmpfs_rename(struct tnode *from_dir, const char *from, struct tnode *to_dir, const char *to)
{
	struct tnode *n = tmpfs_child(from_dir, from), *old, *a;
	char *copy;

	if (!n || dead(to_dir))
		return -ENOENT;
	for (a = to_dir; a; a = a->parent)
		if (a == n)
			return -EINVAL;		/* into its own subtree */
	old = find_child(to_dir, to);
	if (old == n)
		return 0;
	if (old && is_dir(n) != is_dir(old))
		return is_dir(old) ? -EISDIR : -ENOTDIR;
	if (old && old->child)
		return -ENOTEMPTY;
	if (!(copy = kmalloc(strlen(to) + 1)))
		return -ENOMEM;
	memcpy(copy, to, strlen(to) + 1);
	if (old)
		unname(old);
	touch(from_dir);
	detach(n);
	kfree(n->name);
	n->name = copy;
	attach(to_dir, n);
	return 0;
}
