/* Shared memory objects (mm/shmem.c): the pages every mapping of MAP_SHARED anonymous memory, a SysV segment or a tmpfs file sees. */
#ifndef CCOS_SHMEM_H
#define CCOS_SHMEM_H

#include <ccos/types.h>

struct vma;
struct tnode;

/*
 * An object of npages pages, each given its frame at the first touch by
 * anyone (shmem_frame), and kept until the last reference goes: Linux's
 * shmem file, which MAP_SHARED | MAP_ANONYMOUS and shmget make. Every
 * area that maps it holds a reference (shmem_vma_open, _close), and so
 * does a SysV segment and a futex waiter on one of its words.
 */
struct shmem {
	int refs;
	uint64_t npages;
	uint64_t **tables;	/* a page of 512 frames each, made at its first touch; 0 = untouched */
	unsigned long ino;	/* the inode /proc/PID/maps prints */
	char name[32];		/* "/dev/zero (deleted)", or "/SYSV%08x (deleted)" */
	/* A SysV segment's count of its attachments (ipc/shm.c), a tmpfs file's mappings (fs/tmpfs_file.c). */
	void (*attached)(struct shmem *s, int delta);
	void *owner;
	struct tnode *node;	/* a tmpfs file's object: its node (/proc/PID/maps names it), else NULL */
	struct vma *maps;	/* the areas that map it (vma->shm_next): a shrink unmaps their pages */
};

struct shmem *shmem_create(uint64_t npages, const char *name);	/* NULL: out of memory */
void shmem_get(struct shmem *s);
void shmem_put(struct shmem *s);	/* the last reference frees its frames */
/* The frame of page idx, made (zeroed) at its first touch: 0, -ENOMEM, or -EIO past its end (SIGBUS). */
int shmem_frame(struct shmem *s, uint64_t idx, uint64_t *frame);
/* npages from now on (a tmpfs file's size): pages past it leave every mapping, then go. 0 or -ENOMEM. */
int shmem_resize(struct shmem *s, uint64_t npages);
/* An area comes to map, or stops mapping, its object (Linux's vm_ops open and close). */
void shmem_vma_open(struct vma *v);
void shmem_vma_close(struct vma *v);

#endif
