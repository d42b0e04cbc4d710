/* Address spaces of processes: areas (VMAs), their pages, fork's copy. */
#include <ccos/proc.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/printk.h>

#define MMAP_TOP	0x00007f0000000000ul	/* mmap areas grow down from here */
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
	return mm;
}

static void free_vmas(struct vma *v)
{
	while (v) {
		struct vma *next = v->next;

		kfree(v);
		v = next;
	}
}

void mm_release(struct mm *mm)
{
	if (--mm->refs)
		return;
	if (read_cr3_is(mm->pml4))
		switch_address_space(kernel_pml4);
	free_address_space(mm->pml4);
	free_vmas(mm->vmas);
	kfree(mm);
}

struct vma *mm_find_vma(struct mm *mm, uint64_t addr)
{
	struct vma *v;

	for (v = mm->vmas; v; v = v->next)
		if (addr >= v->start && addr < v->end)
			return v;
	return NULL;
}

static void insert_vma(struct mm *mm, struct vma *n)
{
	struct vma **pp = &mm->vmas;

	while (*pp && (*pp)->start < n->start)
		pp = &(*pp)->next;
	n->next = *pp;
	*pp = n;
}

/*
 * Cut [start, end) out of every area, splitting one that straddles it;
 * with keep, the cut-out pieces become their own areas (for mprotect).
 */
static int carve(struct mm *mm, uint64_t start, uint64_t end, int new_prot, bool keep)
{
	struct vma **pp = &mm->vmas, *v;

	while ((v = *pp)) {
		uint64_t s = MAX(v->start, start), e = MIN(v->end, end);
		struct vma *tail;

		if (s >= e) {
			pp = &v->next;
			continue;
		}
		if (e < v->end) {		/* keep the part above */
			if (!(tail = kmalloc(sizeof(*tail))))
				return -ENOMEM;
			*tail = *v;
			tail->start = e;
			tail->offset += e - v->start;
			v->end = e;
			v->next = tail;
		}
		if (s > v->start) {		/* keep the part below */
			struct vma *mid = kmalloc(sizeof(*mid));

			if (!mid)
				return -ENOMEM;
			*mid = *v;
			mid->start = s;
			mid->offset += s - v->start;
			v->end = s;
			v->next = mid;
			pp = &v->next;
			continue;
		}
		if (keep) {			/* v is now exactly [s, e) */
			v->prot = new_prot;
			pp = &v->next;
		} else {
			*pp = v->next;
			kfree(v);
		}
	}
	return 0;
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

	if (prot & PROT_WRITE)
		return -EINVAL;
	if (!(v = kzalloc(sizeof(*v))))
		return -ENOMEM;
	mm_unmap(mm, start, npages * PAGE_SIZE);
	for (i = 0; i < npages; i++) {
		uint64_t *pte = pte_lookup(mm->pml4, start + i * PAGE_SIZE, true);

		if (!pte) {
			kfree(v);
			mm_unmap(mm, start, i * PAGE_SIZE);
			return -ENOMEM;
		}
		*pte = (phys + i * PAGE_SIZE) | prot_to_pte(prot) | PTE_SHARED;
	}
	*v = (struct vma){ .start = start, .end = start + npages * PAGE_SIZE, .prot = prot,
			   .name = name };
	insert_vma(mm, v);
	return 0;
}

/* Map zeroed pages for [start, start + len) with prot, as one new area. */
int mm_map(struct mm *mm, uint64_t start, uint64_t len, int prot, const char *name)
{
	struct vma *v = kzalloc(sizeof(*v));
	uint64_t va;

	if (!v)
		return -ENOMEM;
	mm_unmap(mm, start, len);
	for (va = start; va < start + len; va += PAGE_SIZE) {
		uint64_t frame = frame_alloc(), *pte;

		if (!frame || !(pte = pte_lookup(mm->pml4, va, true))) {
			if (frame)
				frame_free(frame);
			kfree(v);
			mm_unmap(mm, start, va - start);
			return -ENOMEM;
		}
		*pte = frame | prot_to_pte(prot);
	}
	*v = (struct vma){ .start = start, .end = start + len, .prot = prot, .name = name };
	insert_vma(mm, v);
	return 0;
}

static void flush_if_current(struct mm *mm, uint64_t va)
{
	if (read_cr3_is(mm->pml4))
		__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

int mm_unmap(struct mm *mm, uint64_t start, uint64_t len)
{
	uint64_t va;

	for (va = start; va < start + len; va += PAGE_SIZE) {
		uint64_t *pte = pte_lookup(mm->pml4, va, false);

		if (pte && (*pte & PTE_ADDR)) {
			if (!(*pte & PTE_SHARED))
				frame_free(*pte & PTE_ADDR);
			*pte = 0;
			flush_if_current(mm, va);
		}
	}
	return carve(mm, start, start + len, 0, false);
}

/*
 * Linux: -ENOMEM unless every page of the range belongs to an area. A
 * shared frame (the vDSO) cannot become writable: every process would see
 * the write. Linux answers -EACCES for write access to what is mapped
 * read-only and shared; so does ccos.
 */
int mm_protect(struct mm *mm, uint64_t start, uint64_t len, int prot)
{
	uint64_t va;

	for (va = start; va < start + len; va += PAGE_SIZE) {
		uint64_t *pte = pte_lookup(mm->pml4, va, false);

		if (!mm_find_vma(mm, va))
			return -ENOMEM;
		if ((prot & PROT_WRITE) && pte && (*pte & PTE_SHARED))
			return -EACCES;
	}
	for (va = start; va < start + len; va += PAGE_SIZE) {
		uint64_t *pte = pte_lookup(mm->pml4, va, false);

		if (pte && (*pte & PTE_ADDR)) {
			*pte = (*pte & (PTE_ADDR | PTE_SHARED)) | prot_to_pte(prot);
			flush_if_current(mm, va);
		}
	}
	return carve(mm, start, start + len, prot, true);
}

/* The highest free range of len bytes below MMAP_TOP, or 0. */
uint64_t mm_find_gap(struct mm *mm, uint64_t len)
{
	uint64_t top = MMAP_TOP;
	struct vma *v;
	bool moved = true;

	while (moved && top - len >= MMAP_BOTTOM) {
		moved = false;
		for (v = mm->vmas; v; v = v->next) {
			if (v->start < top && v->end > top - len) {
				top = v->start;
				moved = true;
			}
		}
	}
	return top - len >= MMAP_BOTTOM ? top - len : 0;
}

/* fork: the same areas, each page copied into a frame of its own (shared frames: shared). */
struct mm *mm_copy(struct mm *old)
{
	struct mm *mm = mm_create();
	struct vma *v, **tail;
	uint64_t va;

	if (!mm)
		return NULL;
	mm->brk_start = old->brk_start;
	mm->brk = old->brk;
	mm->vdso_base = old->vdso_base;
	tail = &mm->vmas;
	for (v = old->vmas; v; v = v->next) {
		struct vma *n = kmalloc(sizeof(*n));

		if (!n)
			goto fail;
		*n = *v;
		n->next = NULL;
		*tail = n;
		tail = &n->next;
		for (va = v->start; va < v->end; va += PAGE_SIZE) {
			uint64_t *src = pte_lookup(old->pml4, va, false), *dst, frame;

			if (!src || !(*src & PTE_ADDR))
				continue;
			if (*src & PTE_SHARED) {
				if (!(dst = pte_lookup(mm->pml4, va, true)))
					goto fail;
				*dst = *src;
				continue;
			}
			if (!(frame = frame_alloc()))
				goto fail;
			if (!(dst = pte_lookup(mm->pml4, va, true))) {
				frame_free(frame);
				goto fail;
			}
			memcpy(phys_to_virt(frame), phys_to_virt(*src & PTE_ADDR), PAGE_SIZE);
			*dst = frame | (*src & ~PTE_ADDR);
		}
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
 * As copy_from_mm, but the gate pages (the vvar page, and the vsyscall page
 * in the modes where user space may read it) are readable too, as Linux's
 * process_vm_readv and ptrace allow.
 */
int copy_from_mm_or_gate(struct mm *mm, void *dst, uint64_t va, size_t n)
{
	uint64_t page = ALIGN_DOWN(va, PAGE_SIZE), *pte;

	if (va < USER_TOP)
		return copy_from_mm(mm, dst, va, n);
	if ((page != VVAR_ADDRESS && page != VSYSCALL_ADDR) || va + n > page + PAGE_SIZE)
		return -EFAULT;
	pte = walk_pte(kernel_pml4, page);
	if (!pte || !(*pte & PTE_U))
		return -EFAULT;
	memcpy(dst, (char *)phys_to_virt(*pte & PTE_ADDR) + va - page, n);
	return 0;
}
