/* mremap: shrink, grow or move a mapping, its pages going with it. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/mm.h>
#include <ccos/errno.h>
#include <ccos/shmem.h>
#include <asm/arch.h>

#define MREMAP_MAYMOVE	1
#define MREMAP_FIXED	2
#define MREMAP_DONTUNMAP	4

static bool free_range(struct mm *mm, uint64_t start, uint64_t len)
{
	struct vma *next = vma_next(mm, start);

	return start + len <= USER_TOP && (!next || next->start >= start + len);
}

/*
 * Move [old, old + old_len), inside area v, to new, as an area of new_len:
 * a fresh area is made there (its pages untouched, mm/memory.c), then page
 * by page each entry of the old range moves to the new one, so the old
 * pages, their contents and their frames (shared ones too: the vDSO's, and
 * those fork shares, which keep their counts) are at the new address, and
 * the old range holds nothing for unmapping to free. An ELF segment's
 * area keeps its file bytes, moved along; a shared area its object and
 * offset in it (mm/shmem.c). Every CPU forgets the old range
 * before the call returns; the new one had nothing to forget. With
 * keep_old (MREMAP_DONTUNMAP) the old area stays, empty: its next touch
 * fills it as a first one would (zeros for private anonymous memory, the
 * object's pages for shared memory).
 */
static long move_mapping(struct mm *mm, struct vma *v, uint64_t old, uint64_t old_len,
			 uint64_t new, uint64_t new_len, bool keep_old)
{
	uint64_t i, *from, *to, delta = new - old;
	struct vma moved = *v, *n;
	int err;

	if ((err = mm_map(mm, new, new_len, moved.prot, moved.name)))
		return err;
	n = mm_find_vma(mm, new);
	n->shared = moved.shared;
	n->nowrite = moved.nowrite;
	n->offset = moved.offset + (old - moved.start);
	n->shmem = moved.shmem;
	n->cow = moved.cow;
	shmem_vma_open(n);		/* the old area's reference goes with its unmapping */
	if (moved.file) {
		n->file = moved.file;
		n->file_start = moved.file_start + delta;
		n->file_end = MIN(moved.file_end + delta, new + old_len);
	}
	/* The new range's tables first: once entries move, nothing may fail. */
	for (i = 0; i < old_len; i += PAGE_SIZE) {
		from = pte_lookup(mm->pml4, old + i, false);
		if (from && *from && !pte_lookup(mm->pml4, new + i, true)) {
			mm_unmap(mm, new, new_len);
			return -ENOMEM;
		}
	}
	for (i = 0; i < old_len; i += PAGE_SIZE) {
		from = pte_lookup(mm->pml4, old + i, false);
		if (!from || !*from)
			continue;
		to = pte_lookup(mm->pml4, new + i, false);
		*to = *from;
		*from = 0;
		if (read_cr3_is(mm->pml4))
			invlpg(old + i);
	}
	tlb_shootdown(mm->pml4, old, old + old_len);
	if (keep_old)
		return new;
	if ((err = mm_unmap(mm, old, old_len)))
		return err;
	if (mm->vdso_base == old)
		mm->vdso_base = new;		/* as Linux's vdso_mremap */
	return new;
}

/*
 * Zeroed pages after area v (untouched), which then ends after them: one area still,
 * as Linux merges them, so that the next mremap finds the whole range in
 * one area.
 */
static long grow_in_place(struct mm *mm, struct vma *v, uint64_t more)
{
	uint64_t end = v->end;
	struct vma *added;
	int err;

	if ((err = mm_map(mm, end, more, v->prot, v->name)))
		return err;
	added = mm_find_vma(mm, end);
	vma_remove(mm, added);
	kfree(added);
	vma_remove(mm, v);
	v->end = end + more;
	vma_insert(mm, v);
	return 0;
}

/*
 * As Linux's (mm/mremap.c), for the areas ccos has: the old range must lie
 * in one area (EFAULT); a smaller size gives back the tail; a larger one
 * grows in place when the pages after it are free, else moves with
 * MREMAP_MAYMOVE (ENOMEM without), to MREMAP_FIXED's address if given
 * (what was there is unmapped first). The grown part is zeroed pages with
 * the area's protection; in shared memory, pages past its object's end,
 * whose touch is SIGBUS, as Linux's. MREMAP_DONTUNMAP (Linux 5.7; any
 * area but the vDSO's since 5.13) always moves, with MREMAP_MAYMOVE and
 * the same size (EINVAL otherwise), to new_addr as a hint (as mmap's)
 * or exactly with MREMAP_FIXED, and leaves the old range mapped, empty.
 */
long sys_mremap(uint64_t old, uint64_t old_len, uint64_t new_len, long flags, uint64_t new_addr)
{
	struct mm *mm = current()->mm;
	struct vma *v;
	int err;

	if (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP) || old % PAGE_SIZE ||
	    ((flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) && !(flags & MREMAP_MAYMOVE)))
		return -EINVAL;
	old_len = ALIGN_UP(old_len, PAGE_SIZE);
	new_len = ALIGN_UP(new_len, PAGE_SIZE);
	if (!old_len || !new_len || old_len > USER_TOP || new_len > USER_TOP)
		return -EINVAL;
	if ((flags & MREMAP_DONTUNMAP) &&
	    (old_len != new_len || new_addr % PAGE_SIZE ||
	     (new_addr < old + old_len && old < new_addr + new_len)))
		return -EINVAL;
	if (new_len / PAGE_SIZE > frames_free())
		return -ENOMEM;		/* as mmap: more than is free could never be met */
	if (flags & MREMAP_FIXED) {
		if (new_addr % PAGE_SIZE || new_addr > USER_TOP - new_len || new_addr < 0x10000 ||
		    (new_addr < old + old_len && old < new_addr + new_len))
			return -EINVAL;
	}
	v = mm_find_vma(mm, old);
	if (!v || old + old_len > v->end)
		return -EFAULT;
	if ((flags & MREMAP_DONTUNMAP) && v->shared)
		return -EINVAL;		/* the vDSO's: Linux's VM_DONTEXPAND */
	if (new_len < old_len) {	/* the tail goes first, moved or not */
		if ((err = mm_unmap(mm, old + new_len, old_len - new_len)))
			return err;
		old_len = new_len;
		v = mm_find_vma(mm, old);
	}
	if (flags & MREMAP_FIXED) {
		if ((err = mm_unmap(mm, new_addr, new_len)))
			return err;
		v = mm_find_vma(mm, old);	/* the unmap may have split its area */
		return move_mapping(mm, v, old, old_len, new_addr, new_len, flags & MREMAP_DONTUNMAP);
	}
	if (flags & MREMAP_DONTUNMAP) {
		if (!(new_addr = mmap_place(mm, new_addr, new_len, 0)))
			return -ENOMEM;
		return move_mapping(mm, v, old, old_len, new_addr, new_len, true);
	}
	if (new_len == old_len)
		return old;
	if (old + old_len == v->end && free_range(mm, old + old_len, new_len - old_len)) {
		err = grow_in_place(mm, v, new_len - old_len);
		return err ? err : (long)old;
	}
	if (!(flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	if (!(new_addr = mm_find_gap(mm, new_len)))
		return -ENOMEM;
	return move_mapping(mm, v, old, old_len, new_addr, new_len, false);
}
