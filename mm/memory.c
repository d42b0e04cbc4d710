/* The pages of user areas: filled at their first touch, shared by fork until one side writes, torn down with their tables. */
#include <ccos/vm.h>
#include <asm/arch.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/shmem.h>

/*
 * Nothing is mapped when an area is made (mmap, brk, exec's segments and
 * stack): an entry of 0 in an area is a page nobody has touched yet. The
 * first access faults, and handle_mm_fault gives the page a frame then:
 * of zeros, or the program file's page where the area is an ELF segment.
 * So memory is taken as it is used, and exec copies nothing.
 *
 * fork copies no page (copy_pages): both address spaces map the same
 * frames, read-only, and the frame counts one more user (mm/frame.c). A
 * write to such a page faults; if another address space still maps the
 * frame, the writer gets a copy of its own, and if not (the child exited,
 * or wrote first and took its copy), it simply takes the page back
 * writable. A page nobody writes is never copied, and a child that execs
 * at once copies nothing. The area says whether a write is allowed; the
 * entry's W only says whether it can go ahead without the kernel.
 *
 * Shared memory (MAP_SHARED anonymous, SysV segments) is the other kind:
 * its pages are its object's (mm/shmem.c), and every area that maps the
 * object maps the same frame, in every address space, before a fork and
 * after it. Its first touch asks the object for the page (made once, by
 * whoever touches it first), fork maps the frames in the child as they
 * are, writable where they were, and nothing is ever copied.
 *
 * Lock rule: the kernel lock, as every address space's tables and areas.
 */

static void flush_if_current(struct mm *mm, uint64_t va)
{
	if (read_cr3_is(mm->pml4))
		invlpg(va);
}

/* Within a long run of pages the tick may come in once per 2 MiB (a page table's 512). */
static void page_window(uint64_t va)
{
	if (!(va % (512 * PAGE_SIZE)))
		irq_window();
}

/*
 * What an access asks of its area. A present x86 page can always be read
 * (prot_to_pte), so a read needs only some access to the area.
 */
static bool access_allowed(const struct vma *v, unsigned int access)
{
	if (access & PF_WRITE)
		return v->prot & PROT_WRITE;
	if (access & PF_INSTR)
		return v->prot & PROT_EXEC;
	return v->prot & (PROT_READ | PROT_WRITE | PROT_EXEC);
}

/*
 * A page's first touch: a frame of zeros, and the segment's bytes where
 * the area has them (file_start to file_end). A page they fill whole,
 * from a page of the module, is that page's own frame, mapped read-only
 * (Linux maps its page cache's pages so): many processes run the same
 * program, and its text and read-only data are never copied. A write
 * copies it (write_to_shared: the module keeps a reference of its own,
 * so it is never the last user). A page the bytes fill in part gets a
 * frame of zeros with them copied in.
 */
static int first_touch(const struct vma *v, uint64_t va, uint64_t *pte)
{
	uint64_t from = MAX(va, v->file_start), to = MIN(va + PAGE_SIZE, v->file_end), frame;
	const uint8_t *bytes = from < to ? v->file + (from - v->file_start) : NULL;

	if (bytes && to - from == PAGE_SIZE && (uint64_t)bytes % PAGE_SIZE == 0) {
		frame = virt_to_phys(bytes);
		frame_get(frame);
		*pte = frame | (prot_to_pte(v->prot) & ~PTE_W);
		return 0;
	}
	if (!(frame = frame_alloc()))
		return -ENOMEM;
	if (bytes)
		memcpy((char *)phys_to_virt(frame) + (from - va), bytes, to - from);
	*pte = frame | prot_to_pte(v->prot);
	return 0;
}

/*
 * A shared area's page: its object's frame, made by the first touch of any
 * of its mappings. A private mapping of a file maps it read-only: its
 * first write copies it (write_to_shared: the object keeps a reference of
 * its own), and until then it sees the file's writes, as on Linux.
 */
static int shared_touch(const struct vma *v, uint64_t va, uint64_t *pte)
{
	uint64_t frame;
	int err = shmem_frame(v->shmem, (va - v->start + v->offset) / PAGE_SIZE, &frame);

	if (err)
		return err;
	frame_get(frame);
	*pte = frame | (prot_to_pte(v->prot) & (v->cow ? ~PTE_W : ~0ul));
	return 0;
}

/*
 * A write to a page whose entry is read-only in a writable area: fork
 * shares its frame. The last user takes it back; any other gets a copy.
 * Before the copy's entry can be written to, no CPU may still read the
 * old frame through its TLB (a thread on another CPU): the shootdown
 * comes between the new entry and the retried write.
 */
static int write_to_shared(struct mm *mm, uint64_t va, uint64_t *pte)
{
	uint64_t old = *pte & PTE_ADDR, copy;

	if (frame_users(old) == 1) {
		*pte |= PTE_W;
		flush_if_current(mm, va);
		return 0;
	}
	if (!(copy = frame_alloc_uninit()))
		return -ENOMEM;
	memcpy(phys_to_virt(copy), phys_to_virt(old), PAGE_SIZE);
	*pte = copy | (*pte & ~PTE_ADDR) | PTE_W;
	flush_if_current(mm, va);
	tlb_shootdown(mm->pml4, va, va + PAGE_SIZE);
	frame_put(old);
	return 0;
}

/*
 * Make the access at addr possible, as the page fault of a user access
 * asks (access: the error code's PF_WRITE and PF_INSTR): 0 when the
 * access can be retried, -EFAULT when its area does not allow it (or
 * there is none), -ENOMEM when no frame is left, -EIO past the end of a
 * shared area's object (mremap grew the area: SIGBUS, as Linux). The user's faults come
 * here (mm/fault.c), the kernel's user-access functions' too, and the
 * kernel's own copies into another address space (copy_to_mm).
 */
int handle_mm_fault(struct mm *mm, uint64_t addr, unsigned int access)
{
	struct vma *v = mm_find_vma(mm, addr);
	uint64_t va = ALIGN_DOWN(addr, PAGE_SIZE), *pte;

	if (!v || !access_allowed(v, access))
		return -EFAULT;
	if (!(pte = pte_lookup(mm->pml4, va, true)))
		return -ENOMEM;
	if (!(*pte & PTE_ADDR)) {
		int err = v->shmem ? shared_touch(v, va, pte) : first_touch(v, va, pte);

		/*
		 * A write to a page its first touch maps read-only (a module's,
		 * a file's under MAP_PRIVATE) copies it now: the kernel's own
		 * copies into an address space (copy_to_mm) ask once.
		 */
		if (err || !(access & PF_WRITE) || (*pte & PTE_W))
			return err;
	}
	if ((access & PF_WRITE) && !(*pte & PTE_W) && !vma_shares_object(v))
		return write_to_shared(mm, va, pte);
	if (access & PF_WRITE)
		*pte |= PTE_W;	/* a shared area's page: the same frame, now writable */
	/* Allowed already: another thread was first, or this CPU's TLB had the old entry. */
	flush_if_current(mm, va);
	return 0;
}

/*
 * fork: the child's entries of area v, the parent's (old) frames. A frame
 * of the kernel's (PTE_SHARED: the vDSO) is simply mapped again; a shared
 * area's is counted once more and mapped as it is; any other is counted
 * once more and loses W in both, so that the first write on either side
 * faults (write_to_shared). The caller flushes the parent's
 * TLB once, after every area.
 */
int copy_pages(struct mm *mm, struct mm *old, const struct vma *v)
{
	uint64_t va = v->start, *src, *dst;

	for (; (src = pte_next(old->pml4, &va, v->end)); va += PAGE_SIZE) {
		page_window(va);
		if (!(*src & PTE_ADDR))
			continue;
		if (!(dst = pte_lookup(mm->pml4, va, true)))
			return -ENOMEM;
		if (!(*src & PTE_SHARED))
			frame_get(*src & PTE_ADDR);
		if (!(*src & PTE_SHARED) && !vma_shares_object(v))
			*src &= ~PTE_W;
		*dst = *src;
	}
	return 0;
}

/* Clear the entries of [s, e) and let go of their frames, in an address space no CPU runs. */
void zap_pages(struct mm *mm, uint64_t s, uint64_t e)
{
	uint64_t va, *pte;

	for (va = s; (pte = pte_next(mm->pml4, &va, e)); va += PAGE_SIZE) {
		page_window(va);
		if ((*pte & PTE_ADDR) && !(*pte & PTE_SHARED))
			frame_put(*pte & PTE_ADDR);
		*pte = 0;
	}
}

/*
 * The same where a thread may run the address space on another CPU: first
 * every page is made absent, then every CPU forgets them (tlb_shootdown),
 * and only then do the frames go, so that no CPU can reach a frame after
 * it went back to the allocator.
 */
void unmap_pages(struct mm *mm, uint64_t s, uint64_t e)
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
	zap_pages(mm, s, e);
}

/*
 * Tables taken out of an address space, to be freed once no CPU can walk
 * them: a CPU caches the upper levels' entries too (the paging-structure
 * caches, SDM Vol. 3 §4.10.3), and a walk through a stale one into a
 * frame given to someone else would read their bytes as entries. So the
 * frames wait for a flush of every CPU that runs mm (invlpg and a CR3
 * load clear those caches, §4.10.4.1), unless nobody runs it (exit).
 */
struct freed_tables {
	struct mm *mm;
	uint64_t s, e;		/* the range the flush covers */
	bool flush;
	int n;
	uint64_t frame[16];
};

static void release_tables(struct freed_tables *f)
{
	int i;

	if (f->flush && f->n) {
		if (read_cr3_is(f->mm->pml4))
			write_cr3(read_cr3());
		tlb_shootdown(f->mm->pml4, f->s, f->e);
	}
	for (i = 0; i < f->n; i++)
		frame_free(f->frame[i]);
	f->n = 0;
}

/*
 * The tables of t (a table of `level`: 3 the PML4, 2 a PDPT, 1 a PD) over
 * [s, e), whose entries start at base: each table below that serves only
 * addresses in [floor, ceiling) goes, and the others are looked into.
 */
static void free_tables(struct freed_tables *f, uint64_t *t, int level, uint64_t base,
			uint64_t s, uint64_t e, uint64_t floor, uint64_t ceiling)
{
	uint64_t span = 1ul << (12 + 9 * level), va, *entry;

	for (va = ALIGN_DOWN(s, span); va < e; va += span) {
		entry = &t[(va - base) / span];
		if (!(*entry & PTE_P))
			continue;
		if (level > 1)
			free_tables(f, phys_to_virt(*entry & PTE_ADDR), level - 1, va, MAX(s, va),
				    MIN(e, va + span), floor, ceiling);
		if (va >= floor && va + span <= ceiling) {
			if (f->n == ARRAY_SIZE(f->frame))
				release_tables(f);
			f->frame[f->n++] = *entry & PTE_ADDR;
			*entry = 0;
			if (level == 3)
				pti_pgd_sync(f->mm->pml4, entry);	/* the user table's copy too */
		}
	}
}

/*
 * Page tables exist only where an area is (Linux's free_pgtables): when
 * [s, e) has lost its areas and [floor, ceiling) around it holds none,
 * every table over [s, e) that serves no address outside [floor, ceiling)
 * goes, so a PDPT, PD or PT that munmap left empty is not kept until
 * exit. And the teardown of an address space finds every table from its
 * areas: it visits what is mapped, not the 512 entries of every table.
 * flush: whether a CPU may run mm (see struct freed_tables).
 */
void free_pgtables(struct mm *mm, uint64_t s, uint64_t e, uint64_t floor, uint64_t ceiling,
		   bool flush)
{
	struct freed_tables f = { .mm = mm, .s = s, .e = e, .flush = flush };

	free_tables(&f, phys_to_virt(mm->pml4), 3, 0, s, e, floor, ceiling);
	release_tables(&f);
}

/*
 * mprotect's new rights for the entries of [s, e). In a copy-on-write
 * area (cow: not shared memory), a frame that fork still shares gets no
 * W: its first write must still come to write_to_shared.
 */
void protect_pages(struct mm *mm, uint64_t s, uint64_t e, int prot, bool cow)
{
	uint64_t va, *pte, flags = prot_to_pte(prot), entry;

	for (va = s; (pte = pte_next(mm->pml4, &va, e)); va += PAGE_SIZE) {
		page_window(va);
		if (!(*pte & PTE_ADDR))
			continue;
		entry = (*pte & (PTE_ADDR | PTE_SHARED | PTE_A | PTE_D)) | flags;	/* A, D: smaps counts them */
		if (cow && (flags & PTE_W) && frame_users(*pte & PTE_ADDR) > 1)
			entry &= ~PTE_W;
		*pte = entry;
		flush_if_current(mm, va);
	}
}
