/* tmpfs: a node's contents: its pages, reads and writes, its times, what stat says, a directory's entries. */
#include "tmpfs_node.h"
#include <ccos/file.h>
#include <ccos/permission.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/time.h>
#include <ccos/uaccess.h>
#include <ccos/shmem.h>

size_t tmpfs_pages_used;

/*
 * The times, as Linux keeps them: a write, a truncate or a change of a
 * directory's entries sets mtime and ctime (tnode_touch); chmod, chown, link,
 * unlink and rename of a node set its ctime (tnode_touch_ctime).
 */
void tnode_touch(struct tnode *n)
{
	do_clock_gettime(0 /* CLOCK_REALTIME */, &n->mtime);
	n->ctime = n->mtime;
}

void tnode_touch_ctime(struct tnode *n)
{
	do_clock_gettime(0 /* CLOCK_REALTIME */, &n->ctime);
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec <= b->tv_nsec);
}

/*
 * A read, or a directory listed, sets atime by Linux's relatime rule (its
 * default mount option): only when atime is not after mtime or ctime (the
 * first read since a change), or is a day old. So reads cost no write of
 * the time, and "read since it changed?" still has its answer.
 */
static void accessed(struct tnode *n)
{
	struct timespec now;

	do_clock_gettime(0 /* CLOCK_REALTIME */, &now);
	if (before(&n->atime, &n->mtime) || before(&n->atime, &n->ctime) ||
	    now.tv_sec - n->atime.tv_sec >= 24 * 60 * 60)
		n->atime = now;
}

/*
 * A file's data is a shared memory object (mm/shmem.c), as Linux's tmpfs
 * is shmem: read and write copy through its frames, and mmap maps the
 * same frames, so every mapping and every read and write see one set of
 * bytes. Every page below the size has its frame (tnode_grow makes them
 * all), so the 4 MiB limit counts every frame the files hold; a mapping
 * adds none. A mapping holds the node (tmpfs_attached), so an unlinked
 * file's data lives until its last mapping goes, as its last open file.
 */
static void tmpfs_attached(struct shmem *s, int delta)
{
	if (delta > 0)
		tmpfs_get(s->node);
	else
		tmpfs_put(s->node);
}

static struct shmem *data_of(struct tnode *n)
{
	if (!n->data && (n->data = shmem_create(0, ""))) {
		n->data->ino = n->ino;
		n->data->node = n;
		n->data->attached = tmpfs_attached;
	}
	return n->data;
}

struct shmem *tmpfs_shmem(struct tnode *n)
{
	return (n->mode & S_IFMT) == S_IFREG ? data_of(n) : NULL;
}

size_t tnode_pages(const struct tnode *n)
{
	return n->data ? n->data->npages : 0;
}

uint8_t *tnode_page(struct tnode *n, size_t idx)
{
	uint64_t frame = 0;

	shmem_frame(n->data, idx, &frame);	/* made by tnode_grow: cannot fail */
	return phys_to_virt(frame);
}

/* Pages past len go, from every mapping too (SIGBUS there); the bytes of the last page past len are zeroed. */
void tnode_shrink(struct tnode *n, uint64_t len)
{
	size_t keep = (len + PAGE_SIZE - 1) / PAGE_SIZE, had = tnode_pages(n);

	if (keep < had) {
		shmem_resize(n->data, keep);
		tmpfs_pages_used -= had - keep;
	}
	if (len % PAGE_SIZE && keep)
		memset(tnode_page(n, keep - 1) + len % PAGE_SIZE, 0, PAGE_SIZE - len % PAGE_SIZE);
	n->size = len;
}

/* Room for len bytes: zeroed pages, within the file system's limit. */
int tnode_grow(struct tnode *n, uint64_t len)
{
	size_t want = (len + PAGE_SIZE - 1) / PAGE_SIZE, had = tnode_pages(n), i;
	struct shmem *s;
	uint64_t frame;

	/* A write inside the pages the file has needs none: without this
	 * return, want - had below wrapped and every such write "did not
	 * fit" (issue 28). */
	if (want <= had)
		return 0;
	if (want > TMPFS_MAX_PAGES || want - had > TMPFS_MAX_PAGES - tmpfs_pages_used)
		return -ENOSPC;
	if (!(s = data_of(n)) || shmem_resize(s, want))
		return -ENOMEM;
	for (i = had; i < want; i++) {
		if (shmem_frame(s, i, &frame)) {
			shmem_resize(s, had);
			return -ENOMEM;
		}
	}
	tmpfs_pages_used += want - had;
	return 0;
}

/* chmod: the permission bits, by the owner (fs/permission.c); the type stays. */
long tmpfs_chmod(struct tnode *n, uint32_t mode)
{
	long err = may_chmod(n, &mode);

	if (err)
		return err;
	n->mode = (n->mode & S_IFMT) | (mode & 07777);
	tnode_touch_ctime(n);
	return 0;
}

/* chown: a new owner or group; -1 keeps one (fs/permission.c says who may). */
long tmpfs_chown(struct tnode *n, uint32_t uid, uint32_t gid)
{
	long err = may_chown(n, uid, gid);

	if (err)
		return err;
	if (uid != (uint32_t)-1)
		n->uid = uid;
	if (gid != (uint32_t)-1)
		n->gid = gid;
	tnode_touch_ctime(n);
	return 0;
}

/* utimensat: atime and mtime as given (NULL keeps one); ctime becomes now, as on Linux. */
void tmpfs_set_times(struct tnode *n, const struct timespec *atime, const struct timespec *mtime)
{
	if (atime)
		n->atime = *atime;
	if (mtime)
		n->mtime = *mtime;
	tnode_touch_ctime(n);
}

static ssize_t tmpfs_read(struct file *f, char __user *buf, size_t len)
{
	struct tnode *n = f->priv;
	size_t done = 0;

	if (is_dir(n))
		return -EISDIR;
	while (done < len && f->offset < n->size) {
		size_t at = f->offset % PAGE_SIZE;
		size_t chunk = MIN(MIN(len - done, PAGE_SIZE - at), n->size - f->offset);

		if (copy_to_user(buf + done, tnode_page(n, f->offset / PAGE_SIZE) + at, chunk))
			return done ? (ssize_t)done : -EFAULT;
		done += chunk;
		f->offset += chunk;
	}
	accessed(n);
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
	if ((err = tnode_grow(n, f->offset + len)) < 0) {
		/* As Linux: write what fits, and ENOSPC only when nothing did. */
		uint64_t room = tnode_pages(n) * PAGE_SIZE;

		len = room > f->offset ? MIN(len, room - f->offset) : 0;
		if (!len)
			return err;
	}
	while (done < len) {
		size_t at = f->offset % PAGE_SIZE, chunk = MIN(len - done, PAGE_SIZE - at);

		if (copy_from_user(tnode_page(n, f->offset / PAGE_SIZE) + at, buf + done, chunk))
			break;
		done += chunk;
		f->offset += chunk;
	}
	if (f->offset > n->size)
		n->size = f->offset;
	tnode_touch(n);
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
	st->st_blocks = tnode_pages(n) * (PAGE_SIZE / 512);
	st->st_atim = n->atime;
	st->st_mtim = n->mtime;
	st->st_ctim = n->ctime;
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
	if (index == 0)
		accessed(n);
	if (index < 2) {
		d->name = index ? ".." : ".";
		d->ino = index && n->parent ? n->parent->ino : n->ino;
		d->type = DT_DIR;
		return 0;
	}
	for (c = n->child, index -= 2; c && index; c = c->next)
		index--;
	if (!c)
		return DIRENT_END;
	d->name = c->name;
	d->ino = named(c)->ino;
	d->type = named(c)->mode >> 12;	/* as Linux, DT_DIR, DT_REG, DT_LNK are the type bits */
	return 0;
}

long tmpfs_truncate(struct tnode *n, uint64_t len)
{
	long err;

	if (is_dir(n))
		return -EISDIR;
	if (len > n->size && (err = tnode_grow(n, len)) < 0)
		return err;
	if (len < n->size)
		tnode_shrink(n, len);
	n->size = len;
	tnode_touch(n);
	return 0;
}

struct tnode *tmpfs_node(struct file *f)
{
	return f->ops == &tmpfs_ops ? f->priv : NULL;
}

const struct file_ops tmpfs_ops = {
	.read = tmpfs_read, .write = tmpfs_write, .release = tmpfs_release,
	.stat = tmpfs_file_stat, .dirent = tmpfs_dirent,
};
