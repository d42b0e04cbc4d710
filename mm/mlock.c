/* mlock, mlock2, munlock, mlockall and munlockall: pages made resident, where nothing is ever paged out. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/mm.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/abi.h>
#include <asm/arch.h>

#define MLOCK_ONFAULT	1
#define MCL_CURRENT	1
#define MCL_FUTURE	2
#define MCL_ONFAULT	4

/*
 * ccos has no swap: a page, once there, stays until it is unmapped. So
 * locking a range is making its pages present now, as Linux's mlock
 * does (populate), each as a first touch would (a write where the area
 * is writable, so that no copy is left to make); unlocking changes
 * nothing. RLIMIT_MEMLOCK does not bind root (CAP_IPC_LOCK), and every
 * ccos process is root. As Linux: the range is rounded out to pages, a
 * hole in it is ENOMEM, an unknown flag EINVAL; an area without access
 * (PROT_NONE) is locked but not touched.
 */
static long lock_range(uint64_t addr, size_t len, bool populate)
{
	struct mm *mm = current()->mm;
	uint64_t start = addr & ~(PAGE_SIZE - 1), end = ALIGN_UP(addr + len, PAGE_SIZE), covered, va;
	struct vma *v;

	if (end < start || (!end && len))
		return -ENOMEM;
	if (end > USER_TOP)
		return -ENOMEM;
	covered = start;
	for_each_vma_in(v, mm, start, end) {
		if (v->start > covered)
			return -ENOMEM;
		covered = v->end;
	}
	if (covered < end)
		return -ENOMEM;
	for_each_vma_in(v, mm, start, end) {
		if (!populate || !(v->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
			continue;
		for (va = MAX(v->start, start); va < MIN(v->end, end); va += PAGE_SIZE) {
			uint64_t *pte = pte_lookup(mm->pml4, va, false);

			if ((!pte || !(*pte & PTE_P)) &&
			    handle_mm_fault(mm, va, v->prot & PROT_WRITE ? PF_WRITE : 0))
				return -ENOMEM;
		}
		irq_window();
	}
	return 0;
}

long sys_mlock(uint64_t addr, size_t len)
{
	return lock_range(addr, len, true);
}

/* MLOCK_ONFAULT: lock the pages as they come, so none is made now. */
long sys_mlock2(uint64_t addr, size_t len, int flags)
{
	if (flags & ~MLOCK_ONFAULT)
		return -EINVAL;
	return lock_range(addr, len, !(flags & MLOCK_ONFAULT));
}

long sys_munlock(uint64_t addr, size_t len)
{
	return lock_range(addr, len, false);
}

/* MCL_CURRENT makes every area's pages present; MCL_FUTURE's later areas are no different. */
long sys_mlockall(int flags)
{
	struct vma *v;
	long err;

	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || flags == MCL_ONFAULT)
		return -EINVAL;
	if (!(flags & MCL_CURRENT) || (flags & MCL_ONFAULT))
		return 0;
	for_each_vma_in(v, current()->mm, 0, USER_TOP)
		if (!v->shared && (err = lock_range(v->start, v->end - v->start, true)))
			return err;
	return 0;
}

long sys_munlockall(void)
{
	return 0;
}
