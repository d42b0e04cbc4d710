/* Shared memory objects: pages shared by every mapping of them, given frames at their first touch by anyone. */
#include <ccos/shmem.h>
#include <ccos/vm.h>
#include <ccos/mm.h>
#include <ccos/errno.h>
#include <ccos/lib.h>

/*
 * Private memory belongs to one address space: fork shares its frames only
 * until a side writes (mm/memory.c). A shared object's pages belong to the
 * object: every area that maps it (in any address space, after any number
 * of forks) maps the same frame at the same page of the object, and a
 * write is seen by all. So the frames are the object's, not the areas':
 * the object holds one reference to each frame (mm/frame.c's count), and
 * each page-table entry that maps one holds another, as for private
 * memory. Unmapping, MADV_DONTNEED and exit drop the entries' references
 * only; the pages stay with the object, and the next touch maps the same
 * frame again. The last reference to the object frees its frames.
 *
 * The object's table of frames has two levels: a pointer for each 512
 * pages, to a page of 512 frame addresses made when a page under it is
 * first touched, so a large object that is barely used costs little.
 *
 * A tmpfs file's data is such an object too (fs/tmpfs_file.c), as Linux's
 * tmpfs is shmem: read and write copy through its frames, and every
 * mapping of the file maps them. A file changes size, so its object does
 * (shmem_resize); the pages a shrink cuts off first leave every area that
 * maps them (the object's list of its areas, Linux's rmap), so a later
 * touch there finds the object's end (SIGBUS), and a frame goes only when
 * no entry maps it.
 *
 * Lock rule: the kernel lock, as the areas that map the objects.
 */
#define PER_TABLE	(PAGE_SIZE / sizeof(uint64_t))

static unsigned long next_ino = 1;

static uint64_t ntables(uint64_t npages)
{
	return (npages + PER_TABLE - 1) / PER_TABLE;
}

struct shmem *shmem_create(uint64_t npages, const char *name)
{
	struct shmem *s = kzalloc(sizeof(*s));

	if (!s)
		return NULL;
	if (!(s->tables = kzalloc(MAX(ntables(npages), 1) * sizeof(*s->tables)))) {
		kfree(s);
		return NULL;
	}
	s->refs = 1;
	s->npages = npages;
	s->ino = next_ino++;
	strlcpy(s->name, name, sizeof(s->name));
	return s;
}

void shmem_get(struct shmem *s)
{
	s->refs++;
}

void shmem_put(struct shmem *s)
{
	uint64_t t, i;

	if (--s->refs)
		return;
	for (t = 0; t * PER_TABLE < s->npages; t++) {
		if (!s->tables[t])
			continue;
		for (i = 0; i < PER_TABLE; i++)
			if (s->tables[t][i])
				frame_put(s->tables[t][i]);
		frame_free(virt_to_phys(s->tables[t]));
	}
	kfree(s->tables);
	kfree(s);
}

/* Every area's entries for the pages from idx on, as Linux's unmap_mapping_range (copies too). */
static void unmap_from(struct shmem *s, uint64_t idx)
{
	struct vma *v;

	for (v = s->maps; v; v = v->shm_next) {
		uint64_t at = idx * PAGE_SIZE, start = v->start;

		if (v->offset + (v->end - v->start) <= at)
			continue;
		if (at > v->offset)
			start += at - v->offset;
		unmap_pages(v->mm, start, v->end);
	}
}

int shmem_resize(struct shmem *s, uint64_t npages)
{
	uint64_t t, i, had = ntables(s->npages), want = ntables(npages), **tables;

	if (want > had) {
		if (!(tables = kzalloc(want * sizeof(*tables))))
			return -ENOMEM;
		memcpy(tables, s->tables, had * sizeof(*tables));
		kfree(s->tables);
		s->tables = tables;
	}
	if (npages < s->npages)
		unmap_from(s, npages);
	for (i = npages; i < s->npages; i++) {
		t = i / PER_TABLE;
		if (s->tables[t] && s->tables[t][i % PER_TABLE]) {
			frame_put(s->tables[t][i % PER_TABLE]);
			s->tables[t][i % PER_TABLE] = 0;
		}
	}
	for (t = want; t < had; t++) {
		if (s->tables[t])
			frame_free(virt_to_phys(s->tables[t]));
		s->tables[t] = NULL;
	}
	s->npages = npages;
	return 0;
}

int shmem_frame(struct shmem *s, uint64_t idx, uint64_t *frame)
{
	uint64_t **table, t;

	if (idx >= s->npages)
		return -EIO;		/* past the object's end: SIGBUS, as Linux */
	table = &s->tables[idx / PER_TABLE];
	if (!*table) {
		if (!(t = frame_alloc()))
			return -ENOMEM;
		*table = phys_to_virt(t);
	}
	if (!(*table)[idx % PER_TABLE] && !((*table)[idx % PER_TABLE] = frame_alloc()))
		return -ENOMEM;
	*frame = (*table)[idx % PER_TABLE];
	return 0;
}

void shmem_vma_open(struct vma *v)
{
	if (!v->shmem)
		return;
	shmem_get(v->shmem);
	v->shm_next = v->shmem->maps;
	v->shmem->maps = v;
	if (v->shmem->attached)
		v->shmem->attached(v->shmem, 1);
}

void shmem_vma_close(struct vma *v)
{
	struct vma **pp;

	if (!v->shmem)
		return;
	for (pp = &v->shmem->maps; *pp != v; pp = &(*pp)->shm_next)
		;
	*pp = v->shm_next;	/* first: a file's last mapping may shrink it to nothing */
	if (v->shmem->attached)
		v->shmem->attached(v->shmem, -1);
	shmem_put(v->shmem);
}
