/* Address spaces of processes: their areas (VMAs), made, split, protected and copied by fork. */
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <asm/arch.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/aslr.h>
#include <ccos/shmem.h>

#define MMAP_BOTTOM	0x0000000010000000ul

/* PROT_NONE keeps the frame in an entry without P, so nothing can touch it. */
uint64_t prot_to_pte(int prot)
{
	uint64_t f = PTE_U;

	if (!(prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
		return 0;
	if (prot & PROT_WRITE)
		f |= PTE_W;
	if (!(prot & PROT_EXEC))
		f |= PTE_NX;
	return f | PTE_P;
}

struct mm *mm_create(void)
{
	struct mm *mm = kzalloc(sizeof(*mm));

	if (!mm)
		return NULL;
	mm->pml4 = new_address_space();
	if (!mm->pml4) {
		kfree(mm);
		return NULL;
	}
	mm->refs = 1;
	mm->mmap_base = MMAP_TOP;
	return mm;
}

/*
 * The last user lets go: each area's frames, then the tables under it
 * (mm/memory.c), found from the areas. No CPU runs mm any more: one whose
 * CR3 held it would be running one of its users, and one that ran it
 * before has loaded another CR3 since, which dropped what it cached.
 */
void mm_release(struct mm *mm)
{
	struct vma *v;

	if (--mm->refs)
		return;
	if (read_cr3_is(mm->pml4))
		switch_address_space(kernel_pml4);
	for (v = vma_next(mm, 0); v; v = v->next) {
		zap_pages(mm, v->start, v->end);
		free_pgtables(mm, v->start, v->end, 0, v->next ? v->next->start : USER_TOP, false);
		irq_window();
	}
	free_address_space(mm->pml4);
	vma_free_all(mm);
	kfree(mm);
}

/*
 * Make [s, e), which lies in v, an area of its own, splitting off the
 * parts of v below and above it; the area, or NULL (out of memory, and
 * nothing changed).
 */
static struct vma *isolate(struct mm *mm, struct vma *v, uint64_t s, uint64_t e)
{
	struct vma *below = NULL, *above = NULL;

	if ((s > v->start && !(below = kmalloc(sizeof(*below)))) ||
	    (e < v->end && !(above = kmalloc(sizeof(*above))))) {
		kfree(below);
		return NULL;
	}
	vma_remove(mm, v);
	if (below) {
		*below = *v;
		below->end = s;
		shmem_vma_open(below);
		vma_insert(mm, below);
	}
	if (above) {
		*above = *v;
		above->start = e;
		above->offset += e - v->start;
		shmem_vma_open(above);
		vma_insert(mm, above);
	}
	v->offset += s - v->start;
	v->start = s;
	v->end = e;
	vma_insert(mm, v);
	return v;
}

/*
 * Map npages kernel-owned frames from phys on at start, as one new area:
 * the same frames in every address space that maps them (the vDSO). Their
 * entries carry PTE_SHARED, so that unmapping and freeing the address
 * space leave the frames alone, fork shares them instead of copying, and
 * mprotect cannot make them writable. prot must not include PROT_WRITE.
 */
int mm_map_shared(struct mm *mm, uint64_t start, uint64_t phys, size_t npages, int prot,
		  const char *name)
{
	struct vma *v;
	size_t i;
	int err;

	if (prot & PROT_WRITE)
		return -EINVAL;
	if (!(v = kzalloc(sizeof(*v))))
		return -ENOMEM;
	if ((err = mm_unmap(mm, start, npages * PAGE_SIZE))) {
		kfree(v);
		return err;
	}
	*v = (struct vma){ .start = start, .end = start + npages * PAGE_SIZE, .prot = prot,
			   .name = name, .shared = true };
	vma_insert(mm, v);
	for (i = 0; i < npages; i++) {
		uint64_t *pte = pte_lookup(mm->pml4, start + i * PAGE_SIZE, true);

		if (!pte) {
			mm_unmap(mm, start, npages * PAGE_SIZE);
			return -ENOMEM;
		}
		*pte = (phys + i * PAGE_SIZE) | prot_to_pte(prot) | PTE_SHARED;
	}
	return 0;
}

/*
 * [start, start + len) becomes one new area with prot, of zeros: its pages
 * get their frames at their first touch (mm/memory.c).
 */
int mm_map(struct mm *mm, uint64_t start, uint64_t len, int prot, const char *name)
{
	struct vma *v = kzalloc(sizeof(*v));
	int err;

	if (!v)
		return -ENOMEM;
	if ((err = mm_unmap(mm, start, len))) {
		kfree(v);
		return err;
	}
	*v = (struct vma){ .start = start, .end = start + len, .prot = prot, .name = name };
	vma_insert(mm, v);
	return 0;
}

/*
 * [start, start + len) maps the shared object s from its byte offset on:
 * a new area whose pages are the object's (mm/shmem.c), each given its
 * frame at the first touch by any area that maps it.
 */
int mm_map_shmem(struct mm *mm, uint64_t start, uint64_t len, int prot, struct shmem *s,
		 uint64_t offset)
{
	struct vma *v;
	int err;

	if ((err = mm_map(mm, start, len, prot, s->name)))
		return err;
	v = mm_find_vma(mm, start);
	v->shmem = s;
	v->offset = offset;
	shmem_vma_open(v);
	return 0;
}

/*
 * Only the areas that meet the range are visited, and within them only
 * the page tables that exist: the cost is what is mapped, however long
 * the range. Between two areas the tick may come in. Then the tables
 * that only the range needed go (free_pgtables: between the areas below
 * and above it).
 */
int mm_unmap(struct mm *mm, uint64_t start, uint64_t len)
{
	uint64_t end = start + len, s, e;
	struct vma *v, *prev, *next;
	bool unmapped = false;
	int err = 0;

	while ((v = vma_next(mm, start)) && v->start < end) {
		s = MAX(v->start, start);
		e = MIN(v->end, end);
		if (!(v = isolate(mm, v, s, e))) {
			err = -ENOMEM;
			break;
		}
		unmap_pages(mm, s, e);
		vma_remove(mm, v);
		shmem_vma_close(v);
		kfree(v);
		unmapped = true;
		irq_window();
	}
	if (unmapped) {
		prev = vma_prev(mm, start);
		next = vma_next(mm, start);
		free_pgtables(mm, start, end, prev ? prev->end : 0, next ? next->start : USER_TOP, true);
	}
	return err;
}

/*
 * Linux: -ENOMEM unless every page of the range belongs to an area. A
 * shared frame (the vDSO) cannot become writable: every process would see
 * the write. Linux answers -EACCES for write access to what is mapped
 * read-only and shared (the vDSO, a SysV segment attached SHM_RDONLY);
 * so does ccos. One pass over the areas checks both,
 * and a call that would change nothing (each area has prot already) is
 * done there, as Linux's mprotect_fixup returns at once: no split, no
 * entry rewritten, no shootdown.
 */
int mm_protect(struct mm *mm, uint64_t start, uint64_t len, int prot)
{
	uint64_t end = start + len, covered = start;
	bool shared = false, change = false;
	struct vma *v;

	for_each_vma_in(v, mm, start, end) {
		if (v->start > covered)
			return -ENOMEM;
		shared |= v->shared || v->nowrite;
		change |= v->prot != prot;
		covered = v->end;
	}
	if (covered < end)
		return -ENOMEM;
	if (shared && (prot & PROT_WRITE))
		return -EACCES;
	if (!change)
		return 0;
	for_each_vma_in(v, mm, start, end) {
		uint64_t s = MAX(v->start, start), e = MIN(v->end, end);

		if (v->prot == prot)
			continue;
		if (!(v = isolate(mm, v, s, e)))
			return -ENOMEM;
		v->prot = prot;
		protect_pages(mm, s, e, prot, !vma_shares_object(v));
		irq_window();
	}
	tlb_shootdown(mm->pml4, start, end);	/* no thread keeps the old rights */
	return 0;
}

/*
 * MADV_WIPEONFORK (on) and MADV_KEEPONFORK: a fork's child gets [start,
 * end) as new memory, zeros at its first touch, instead of the parent's
 * pages. Only private anonymous memory may be wiped (EINVAL), as on Linux.
 */
int mm_wipe_on_fork(struct mm *mm, uint64_t start, uint64_t end, bool on)
{
	struct vma *v;

	for_each_vma_in(v, mm, start, end)
		if (on && (v->shared || v->shmem || v->cow || v->file_end))
			return -EINVAL;
	for_each_vma_in(v, mm, start, end) {
		if (v->wipe_on_fork == on)
			continue;
		if (!(v = isolate(mm, v, MAX(v->start, start), MIN(v->end, end))))
			return -ENOMEM;
		v->wipe_on_fork = on;
	}
	return 0;
}

/* The highest free range of len bytes below the mmap base, or 0. */
uint64_t mm_find_gap(struct mm *mm, uint64_t len)
{
	return vma_find_gap(mm, MMAP_BOTTOM, mm->mmap_base, len);
}

/* Every CPU that runs mm forgets its user half: a CR3 load here, a shootdown elsewhere. */
static void flush_all(struct mm *mm)
{
	if (read_cr3_is(mm->pml4))
		write_cr3(read_cr3());
	tlb_shootdown(mm->pml4, 0, USER_TOP);
}

/*
 * fork: the same areas, over the same frames, which the first write on
 * either side copies (mm/memory.c). The parent's entries lost W: a CPU
 * that runs it (this one, another thread's) must not keep a writable
 * translation in its TLB, so all of them flush once at the end.
 */
struct mm *mm_copy(struct mm *old)
{
	struct mm *mm = mm_create();
	struct vma *v;

	if (!mm)
		return NULL;
	mm->brk_start = old->brk_start;
	mm->brk = old->brk;
	mm->vdso_base = old->vdso_base;
	mm->mmap_base = old->mmap_base;
	mm->arg_start = old->arg_start;
	mm->arg_end = old->arg_end;
	for_each_vma_in(v, old, 0, USER_TOP) {
		struct vma *n = kmalloc(sizeof(*n));

		if (!n)
			goto fail;
		*n = *v;
		shmem_vma_open(n);
		vma_insert(mm, n);
		if (!v->wipe_on_fork && copy_pages(mm, old, v))
			goto fail;
		irq_window();
	}
	flush_all(old);
	return mm;
fail:
	flush_all(old);
	mm_release(mm);
	return NULL;
}

/*
 * Copy into or out of an address space through the direct map, page by
 * page, each page made ready as a user access would make it (its first
 * touch, a copy of a page fork shares): only where its area allows it.
 */
static int copy_mm(struct mm *mm, uint64_t va, void *buf, size_t n, bool to_mm)
{
	while (n) {
		uint64_t *pte = pte_lookup(mm->pml4, va, false);
		size_t chunk = MIN(n, PAGE_SIZE - va % PAGE_SIZE);
		char *page;

		if (!pte || !(*pte & PTE_P) || (to_mm && !(*pte & PTE_W))) {
			if (handle_mm_fault(mm, va, to_mm ? PF_WRITE : 0))
				return -EFAULT;
			pte = pte_lookup(mm->pml4, va, false);
		}
		page = (char *)phys_to_virt(*pte & PTE_ADDR) + va % PAGE_SIZE;
		if (to_mm)
			memcpy(page, buf, chunk);
		else
			memcpy(buf, page, chunk);
		va += chunk;
		buf = (char *)buf + chunk;
		n -= chunk;
	}
	return 0;
}

int copy_to_mm(struct mm *mm, uint64_t va, const void *src, size_t n)
{
	return copy_mm(mm, va, (void *)src, n, true);
}

int copy_from_mm(struct mm *mm, void *dst, uint64_t va, size_t n)
{
	return copy_mm(mm, va, dst, n, false);
}

/*
 * What process_vm_readv and process_vm_writev may touch of another
 * address space, a piece within one page: as Linux's, whose page pinning
 * they use without FOLL_FORCE, an area that allows the access (PROT_READ
 * to read, PROT_WRITE to write), so that a PROT_NONE page is -EFAULT, and
 * a read-only one to write. Reading, the gate pages too (the vvar page,
 * and the vsyscall page in the modes where user space may read it), as
 * Linux's process_vm_readv and ptrace allow.
 */
int copy_mm_as_user(struct mm *mm, uint64_t va, void *buf, size_t n, bool to_mm)
{
	uint64_t page = ALIGN_DOWN(va, PAGE_SIZE), *pte;
	struct vma *v;

	if (va < USER_TOP) {
		v = mm_find_vma(mm, va);
		if (!v || va + n > v->end || !(v->prot & (to_mm ? PROT_WRITE : PROT_READ)))
			return -EFAULT;
		return copy_mm(mm, va, buf, n, to_mm);
	}
	if (to_mm || (page != VVAR_ADDRESS && page != VSYSCALL_ADDR) || va + n > page + PAGE_SIZE)
		return -EFAULT;
	pte = walk_pte(kernel_pml4, page);
	if (!pte || !(*pte & PTE_U))
		return -EFAULT;
	memcpy(buf, (char *)phys_to_virt(*pte & PTE_ADDR) + va - page, n);
	return 0;
}
