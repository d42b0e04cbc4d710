/* tmpfs's node, shared by its two files: fs/tmpfs.c (the names: the tree) and fs/tmpfs_file.c (a node's contents). */
#ifndef CCOS_FS_TMPFS_NODE_H
#define CCOS_FS_TMPFS_NODE_H

#include <ccos/tmpfs.h>
#include <ccos/abi.h>
#include <ccos/time_types.h>

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
	struct shmem *data;			/* a file's data, made at its first page (mm/shmem.c) */
	char *link;				/* a symbolic link's target */
	struct tnode *node;			/* a name made by link(): the node it names */
	struct pipe *fifo;			/* a FIFO's pipe while it is open (fs/pipe.c) */
	uint64_t size, ino;
	int nlink;				/* its names (a directory: 2 + its subdirectories) */
	int refs;				/* open files, working directories, removed children */
	struct timespec atime, mtime, ctime;	/* last read; data changed; data or metadata changed */
};

static inline bool is_dir(const struct tnode *n)
{
	return (n->mode & S_IFMT) == S_IFDIR;
}

/*
 * A second name of a node (link) is an entry of its own, in its directory's
 * list, that only points to the node: the node keeps the data, the times
 * and nlink, its count of names. A name that goes frees its entry; the
 * node goes with its last name (and its last open file).
 */
static inline struct tnode *named(struct tnode *entry)
{
	return entry->node ? entry->node : entry;
}

/* A node removed (or renamed over): no name, no entries; it lives on while referenced (unname). */
static inline bool dead(const struct tnode *n)
{
	return !n->nlink;
}

/* fs/tmpfs_file.c */
extern const struct file_ops tmpfs_ops;
extern size_t tmpfs_pages_used;
void tnode_touch(struct tnode *n);	/* its data changed: mtime and ctime now */
void tnode_touch_ctime(struct tnode *n);	/* its metadata changed: ctime now */
void tnode_shrink(struct tnode *n, uint64_t len);	/* pages past len go */
int tnode_grow(struct tnode *n, uint64_t len);		/* room for len bytes, or -ENOSPC */
size_t tnode_pages(const struct tnode *n);		/* its pages of data */
uint8_t *tnode_page(struct tnode *n, size_t idx);	/* page idx (below tnode_pages) */

#endif
