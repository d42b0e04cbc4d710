/* Address spaces of processes: areas (VMAs), their pages, fork's copy. */
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <asm/arch.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/aslr.h>

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

void mm_release(struct mm *mm)
{
	if (--mm->refs)
		return;
	if (read_cr3_is(mm->pml4))
		switch_address_space(kernel_pml4);
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
		vma_insert(mm, below);
	}
	if (above) {
		*above = *v;
		above->start = e;
		above->offset += e - v->start;
		vma_insert(mm, above);
	}
	v->offset += s - v->start;
	v->start = s;
	v->end = e;
	vma_insert(mm, v);
	return v;
}

static void flush_if_current(struct mm *mm, uint64_t va)
{
	if (read_cr3_is(mm->pml4))
		__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/* Within a long run of pages the tick may come in once per 2 MiB (a page table's 512). */
static void page_window(uint64_t va)
{
	if (!(va % (512 * PAGE_SIZE)))
		irq_window();
}

/*
 * Clear the entries of [s, e), freeing their frames unless shared. Another
 * CPU running this address space (a thread) may still have them in its
 * TLB: first every page is made absent, then every CPU forgets them
 * (tlb_shootdown), and only then are the frames freed, so that no CPU can
 * reach a frame after it went back to the allocator.
 */
static void unmap_pages(struct mm *mm, uint64_t s, uint64_t e)
{
	uint64_t va, *pte;

	for (va = s; (pte = pte_next(mm->pml4, &va, e)); va += PAGE_SIZE) {
		page_window(va);
		if (*pte & PTE_P) {
			*pte &= ~PTE_P;
			flush_if_current(mm, va);
		}
	}
	tlb_shootdown(mm->pml4, s, e);
	for (va = s; (pte = pte_next(mm->pml4, &va, e)); va += PAGE_SIZE) {
		page_window(va);
		if ((*pte & PTE_ADDR) && !(*pte & PTE_SHARED))
			frame_free(*pte & PTE_ADDR);
		*pte = 0;
	}
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
	for (i = 0; i < npages; i++) {
		uint64_t *pte = pte_lookup(mm->pml4, start + i * PAGE_SIZE, true);

		if (!pte) {
			kfree(v);
			unmap_pages(mm, start, start + i * PAGE_SIZE);
			return -ENOMEM;
		}
		*pte = (phys + i * PAGE_SIZE) | prot_to_pte(prot) | PTE_SHARED;
	}
	*v = (struct vma){ .start = start, .end = start + npages * PAGE_SIZE, .prot = prot,
			   .name = name, .shared = true };
	vma_insert(mm, v);
	return 0;
}

/* Map zeroed pages for [start, start + len) with prot, as one new area. */
int mm_map(struct mm *mm, uint64_t start, uint64_t len, int prot, const char *name)
{
	struct vma *v = kzalloc(sizeof(*v));
	uint64_t va;
	int err;

	if (!v)
		return -ENOMEM;
	if ((err = mm_unmap(mm, start, len))) {
		kfree(v);
		return err;
	}
	for (va = start; va < start + len; va += PAGE_SIZE) {
		uint64_t frame, *pte;

		page_window(va);
		frame = frame_alloc();
		if (!frame || !(pte = pte_lookup(mm->pml4, va, true))) {
			if (frame)
				frame_free(frame);
			kfree(v);
			unmap_pages(mm, start, va);
			return -ENOMEM;
		}
		*pte = frame | prot_to_pte(prot);
	}
	*v = (struct vma){ .start = start, .end = start + len, .prot = prot, .name = name };
	vma_insert(mm, v);
	return 0;
}

/*
 * Only the areas that meet the range are visited, and within them only
 * the page tables that exist: the cost is what is mapped, however long
 * the range. Between two areas the tick may come in.
 */
int mm_unmap(struct mm *mm, uint64_t start, uint64_t len)
{
	uint64_t end = start + len;
	struct vma *v;

	while ((v = vma_next(mm, start)) && v->start < end) {
		uint64_t s = MAX(v->start, start), e = MIN(v->end, end);

		if (!(v = isolate(mm, v, s, e)))
			return -ENOMEM;
		unmap_pages(mm, s, e);
		vma_remove(mm, v);
		kfree(v);
		irq_window();
	}
	return 0;
}

/* 0 if every page of [start, end) lies in an area; else -ENOMEM, as Linux. */
static int check_range(struct mm *mm, uint64_t start, uint64_t end)
{
	struct vma *v;
	uint64_t covered = start;

	for_each_vma_in(v, mm, start, end) {
		if (v->start > covered)
			return -ENOMEM;
		covered = v->end;
	}
	return covered < end ? -ENOMEM : 0;
}

/*
 * Linux: -ENOMEM unless every page of the range belongs to an area. A
 * shared frame (the vDSO) cannot become writable: every process would see
 * the write. Linux answers -EACCES for write access to what is mapped
 * read-only and shared; so does ccos.
 */
int mm_protect(struct mm *mm, uint64_t start, uint64_t len, int prot)
{
	uint64_t end = start + len, va, *pte;
	struct vma *v;
	int err = check_range(mm, start, end);

	if (err)
		return err;
	for_each_vma_in(v, mm, start, end)
		if (v->shared && (prot & PROT_WRITE))
			return -EACCES;
	for_each_vma_in(v, mm, start, end) {
		uint64_t s = MAX(v->start, start), e = MIN(v->end, end);

		if (!(v = isolate(mm, v, s, e)))
			return -ENOMEM;
		v->prot = prot;
		for (va = s; (pte = pte_next(mm->pml4, &va, e)); va += PAGE_SIZE) {
			page_window(va);
			if (!(*pte & PTE_ADDR))
				continue;
			*pte = (*pte & (PTE_ADDR | PTE_SHARED)) | prot_to_pte(prot);
			flush_if_current(mm, va);
		}
		irq_window();
	}
	tlb_shootdown(mm->pml4, start, end);	/* no thread keeps the old rights */
	return 0;
}

/* The highest free range of len bytes below the mmap base, or 0. */
uint64_t mm_find_gap(struct mm *mm, uint64_t len)
{
	return vma_find_gap(mm, MMAP_BOTTOM, mm->mmap_base, len);
}

/* Give the pages of [s, e) of old to mm: copies of their frames, or the same shared frame. */
static int copy_pages(struct mm *mm, struct mm *old, uint64_t s, uint64_t e)
{
	uint64_t va = s, *src, *dst, frame;

	for (; (src = pte_next(old->pml4, &va, e)); va += PAGE_SIZE) {
		page_window(va);
		if (!(*src & PTE_ADDR))
			continue;
		if (*src & PTE_SHARED) {
			if (!(dst = pte_lookup(mm->pml4, va, true)))
				return -ENOMEM;
			*dst = *src;
			continue;
		}
		if (!(frame = frame_alloc()))
			return -ENOMEM;
		if (!(dst = pte_lookup(mm->pml4, va, true))) {
			frame_free(frame);
			return -ENOMEM;
		}
		memcpy(phys_to_virt(frame), phys_to_virt(*src & PTE_ADDR), PAGE_SIZE);
		*dst = frame | (*src & ~PTE_ADDR);
	}
	return 0;
}

/* fork: the same areas, each page copied into a frame of its own (shared frames: shared). */
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
		vma_insert(mm, n);
		if (copy_pages(mm, old, v->start, v->end))
			goto fail;
		irq_window();
	}
	return mm;
fail:
	mm_release(mm);
	return NULL;
}

/* Copy into or out of an address space through the direct map, page by page. */
static int copy_mm(struct mm *mm, uint64_t va, void *buf, size_t n, bool to_mm)
{
	while (n) {
		uint64_t *pte = pte_lookup(mm->pml4, va, false);
		size_t chunk = MIN(n, PAGE_SIZE - va % PAGE_SIZE);
		char *page;

		if (!pte || !(*pte & PTE_ADDR))
			return -EFAULT;
		if (to_mm && (*pte & PTE_SHARED))	/* every process would see it */
			return -EFAULT;
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
