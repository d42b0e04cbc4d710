/* tmpfs: the writable in-memory file system at /tmp: a tree of nodes, their pages, open files. */
#include <ccos/tmpfs.h>
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
 * 255 bytes) and a link's target take at most 1,280 bytes of the heap,
 * so /tmp's metadata stays under 10 MiB, however it is used.
 */
#define TMPFS_MAX_NODES	8192

struct tnode {
	char *name;
	uint32_t mode, uid, gid;
	struct tnode *parent, *child, *next;	/* a directory's entries are a list */
	uint8_t **pages;			/* a file's data, page by page */
	char *link;				/* a symbolic link's target */
	struct pipe *fifo;			/* a FIFO's pipe while it is open (kernel/pipe.c) */
	size_t npages;
	uint64_t size, ino;
	int nlink, opens;
	struct timespec mtime;
};

static struct tnode root = { .name = "tmp", .mode = S_IFDIR | 01777, .nlink = 2, .ino = 1 };
static size_t pages_used, nodes_used;
static uint64_t next_ino = 2;

static bool is_dir(const struct tnode *n)
{
	return (n->mode & S_IFMT) == S_IFDIR;
}

static struct tnode *find_child(struct tnode *dir, const char *name, size_t len)
{
	struct tnode *c;

	for (c = dir->child; c; c = c->next)
		if (strlen(c->name) == len && !memcmp(c->name, name, len))
			return c;
	return NULL;
}

/*
 * Walk rel ("" for /tmp itself, or "/a/b", already without "." and "..")
 * from the root. With want_parent, stop at the last component: *node is
 * its directory and *last the name, which need not exist.
 */
static int walk(const char *rel, bool want_parent, struct tnode **node, const char **last)
{
	struct tnode *n = &root;

	while (*rel == '/') {
		const char *name = rel + 1, *end = strchr(name, '/');
		size_t len = end ? (size_t)(end - name) : strlen(name);

		if (!is_dir(n))
			return -ENOTDIR;
		if (want_parent && !end) {
			*node = n;
			*last = name;
			return len > 255 ? -ENAMETOOLONG : 0;
		}
		if (!(n = find_child(n, name, len)))
			return -ENOENT;
		rel = name + len;
	}
	if (want_parent)
		return -EBUSY;		/* /tmp itself has no parent here */
	*node = n;
	return 0;
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

static void maybe_free(struct tnode *n)
{
	if (n->nlink || n->opens)
		return;
	shrink(n, 0);
	kfree(n->pages);
	kfree(n->link);
	kfree(n->name);
	fifo_orphan(n->fifo);
	kfree(n);
	nodes_used--;
}

static void detach(struct tnode *n)
{
	struct tnode **pp = &n->parent->child;

	while (*pp != n)
		pp = &(*pp)->next;
	*pp = n->next;
	if (is_dir(n))
		n->parent->nlink--;
	n->parent = NULL;
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
	struct tnode *n = f->priv;

	n->opens--;
	maybe_free(n);
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

/* getdents64's entries of a directory: ".", "..", then the list. */
static int tmpfs_dirent(struct file *f, uint64_t index, struct dirent_out *d)
{
	struct tnode *n = f->priv, *c;

	if (index < 2) {
		d->name = index ? ".." : ".";
		d->ino = index && n->parent ? n->parent->ino : n->ino;
		d->type = DT_DIR;
		return 0;
	}
	for (c = n->child, index -= 2; c && index; c = c->next)
		index--;
	if (!c)
		return -ENOENT;
	d->name = c->name;
	d->ino = c->ino;
	d->type = c->mode >> 12;	/* as Linux, DT_DIR, DT_REG, DT_LNK are the type bits */
	return 0;
}

static const struct file_ops tmpfs_ops = {
	.read = tmpfs_read, .write = tmpfs_write, .release = tmpfs_release,
	.stat = tmpfs_file_stat, .dirent = tmpfs_dirent,
};

/* --- What the path system calls ask (kernel/sys_fs.c) ------------------------------ */

int tmpfs_lookup(const char *rel, struct tnode **node)
{
	return walk(rel, false, node, NULL);
}

bool tmpfs_is_dir(struct tnode *n)
{
	return is_dir(n);
}

struct file *tmpfs_open(const char *rel, int flags, uint32_t mode, long *err)
{
	struct tnode *n, *dir;
	const char *name;
	struct file *f;

	*err = walk(rel, false, &n, NULL);
	if (*err == -ENOENT && (flags & O_CREAT)) {
		if ((*err = walk(rel, true, &dir, &name)) < 0)
			return NULL;
		*err = create(dir, name, S_IFREG | (mode & 07777), &n);
	} else if (!*err && (flags & O_CREAT) && (flags & O_EXCL)) {
		*err = -EEXIST;
	} else if (!*err && is_dir(n) && (flags & O_ACCMODE)) {
		*err = -EISDIR;
	} else if (!*err && !is_dir(n) && (flags & O_DIRECTORY)) {
		*err = -ENOTDIR;
	} else if (!*err && (flags & O_TRUNC) && (flags & O_ACCMODE)) {
		shrink(n, 0);
	}
	if (*err)
		return NULL;
	if ((n->mode & S_IFMT) == S_IFIFO && !(flags & O_PATH))
		return fifo_open(&n->fifo, flags, err);
	if (!(f = file_new(&tmpfs_ops, NULL, 0))) {
		*err = -ENOMEM;
		maybe_free(n);
		return NULL;
	}
	f->priv = n;
	n->opens++;
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

/* A new node at rel, which must not exist yet (mkdir, symlink). */
static long make(const char *rel, uint32_t mode, struct tnode **n)
{
	struct tnode *dir;
	const char *name;
	long err = walk(rel, false, n, NULL);

	if (!err)
		return -EEXIST;
	if ((err = walk(rel, true, &dir, &name)) < 0)
		return err == -EBUSY ? -EEXIST : err;
	return create(dir, name, mode, n);
}

long tmpfs_mkdir(const char *rel, uint32_t mode)
{
	struct tnode *n;

	return make(rel, S_IFDIR | (mode & 07777), &n);
}

/* mknod: a regular file or a FIFO (S_IFIFO in mode). */
long tmpfs_mknod(const char *rel, uint32_t mode)
{
	struct tnode *n;

	return make(rel, mode, &n);
}

long tmpfs_symlink(const char *rel, const char *target)
{
	size_t len = strlen(target) + 1;
	char *copy = kmalloc(len);
	struct tnode *n;
	long err;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, target, len);
	if ((err = make(rel, S_IFLNK | 0777, &n)) < 0)
		kfree(copy);
	else
		n->link = copy;
	return err;
}

/* A link's target into buf (PATH_MAX bytes): its length; EINVAL for another node. */
long tmpfs_readlink(struct tnode *n, char *buf)
{
	return n->link ? (long)strlcpy(buf, n->link, PATH_MAX) : -EINVAL;
}

/* unlink (dir false) and rmdir (dir true). */
long tmpfs_remove(const char *rel, bool dir)
{
	struct tnode *n;
	long err = walk(rel, false, &n, NULL);

	if (err)
		return err;
	if (n == &root)
		return -EBUSY;
	if (dir && !is_dir(n))
		return -ENOTDIR;
	if (!dir && is_dir(n))
		return -EISDIR;
	if (dir && n->child)
		return -ENOTEMPTY;
	touch(n->parent);
	detach(n);
	n->nlink = 0;
	maybe_free(n);
	return 0;
}

long tmpfs_rename(const char *from, const char *to)
{
	struct tnode *n, *dir, *old, *a;
	const char *name;
	char *copy;
	long err = walk(from, false, &n, NULL);

	if (err)
		return err;
	if ((err = walk(to, true, &dir, &name)) < 0 || n == &root)
		return err == -EBUSY || n == &root ? -EBUSY : err;
	for (a = dir; a; a = a->parent)
		if (a == n)
			return -EINVAL;		/* into its own subtree */
	old = find_child(dir, name, strlen(name));
	if (old == n)
		return 0;
	if (old && is_dir(n) != is_dir(old))
		return is_dir(old) ? -EISDIR : -ENOTDIR;
	if (old && old->child)
		return -ENOTEMPTY;
	if (!(copy = kmalloc(strlen(name) + 1)))
		return -ENOMEM;
	memcpy(copy, name, strlen(name) + 1);
	if (old) {
		detach(old);
		old->nlink = 0;
		maybe_free(old);
	}
	touch(n->parent);
	detach(n);
	kfree(n->name);
	n->name = copy;
	attach(dir, n);
	return 0;
}
