/* System calls a C library makes that ccos answers simply: getrandom, madvise. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/random.h>
#include <ccos/uaccess.h>
#include <asm/x86.h>

#define GRND_NONBLOCK	1
#define GRND_RANDOM	2
#define GRND_INSECURE	4

/* The kernel's generator (drivers/char/random.c), which is ready from boot on: it never blocks. */
long sys_getrandom(void __user *buf, size_t len, unsigned int flags)
{
	size_t done = 0;

	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE) ||
	    (flags & GRND_RANDOM && flags & GRND_INSECURE))
		return -EINVAL;
	len = MIN(len, 33554431ul);	/* Linux's limit for one call */
	if (!access_ok(buf, len))
		return -EFAULT;
	while (done < len) {
		uint64_t r = get_random_u64();
		size_t n = MIN(len - done, sizeof(r));

		if (copy_to_user((char __user *)buf + done, &r, n))
			return done ? (long)done : -EFAULT;
		done += n;
	}
	return done;
}

#define MADV_DONTNEED	4

/* Every page of [addr, end) is in an area (else -ENOMEM); MADV_DONTNEED also wants no file behind it. */
static long madvise_range_ok(struct mm *mm, uint64_t addr, uint64_t end, bool dontneed)
{
	uint64_t covered = addr;
	struct vma *v;

	for_each_vma_in(v, mm, addr, end) {
		if (v->start > covered)
			return -ENOMEM;
		/* Linux would reread the file; ccos keeps no link to it: refuse, not lie. */
		if (dontneed && v->name && v->name[0] != '[')
			return -EINVAL;
		covered = v->end;
	}
	return covered < end ? -ENOMEM : 0;
}

/*
 * Advice: ccos maps every page at once and never pages out, so most of it
 * (MADV_FREE, which musl's free uses, MADV_WILLNEED, ...) changes nothing.
 * MADV_DONTNEED is a promise of Linux's too: the next read of anonymous
 * memory finds zeros. Shared frames (the vDSO) are left alone.
 */
long sys_madvise(uint64_t addr, size_t len, int advice)
{
	struct mm *mm = current()->mm;
	uint64_t va, *pte, end = ALIGN_UP(addr + len, PAGE_SIZE);
	long err;

	if (addr % PAGE_SIZE || end < addr || end > USER_TOP || advice < 0)
		return -EINVAL;
	err = madvise_range_ok(mm, addr, end, advice == MADV_DONTNEED);
	if (err || advice != MADV_DONTNEED)
		return err;
	for (va = addr; (pte = pte_next(mm->pml4, &va, end)); va += PAGE_SIZE) {
		if ((*pte & PTE_ADDR) && !(*pte & PTE_SHARED))
			memset(phys_to_virt(*pte & PTE_ADDR), 0, PAGE_SIZE);
		if (!(va % (512 * PAGE_SIZE)))
			irq_window();
	}
	return 0;
}
