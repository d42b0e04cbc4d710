/* Memory system calls: mmap, munmap, mprotect, brk, madvise, msync, process_vm_readv and process_vm_writev. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/mm.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>
#include <ccos/shmem.h>
#include <ccos/file.h>
#include <ccos/tmpfs.h>
#include <asm/arch.h>

static bool range_ok(uint64_t addr, uint64_t len)
{
	return !(addr % PAGE_SIZE) && len && addr + len > addr && addr + len <= USER_TOP;
}

/*
 * Where a mapping without MAP_FIXED goes, as Linux places it
 * (arch/x86/kernel/sys_x86_64.c): at the hint, rounded down to a page,
 * when [hint, hint + len) is free and above mmap's floor
 * (vm.mmap_min_addr, 64 KiB); else in the highest gap below the mmap
 * base. MAP_32BIT keeps it within 1 to 2 GiB, for code that needs
 * 32-bit addresses (what the flag was made for: the small code model);
 * a hint counts there only inside that window. 0: no room.
 */
#define MMAP_MIN_ADDR		0x10000ul
#define MAP_32BIT_BOTTOM	0x40000000ul
#define MAP_32BIT_TOP		0x80000000ul

uint64_t mmap_place(struct mm *mm, uint64_t hint, uint64_t len, long flags)
{
	uint64_t lo = MMAP_MIN_ADDR, hi = USER_TOP;
	struct vma *next;

	if (flags & MAP_32BIT) {
		lo = MAP_32BIT_BOTTOM;
		hi = MAP_32BIT_TOP;
	}
	hint = ALIGN_DOWN(hint, PAGE_SIZE);
	next = vma_next(mm, hint);
	if (len <= hi - lo && hint >= lo && hint <= hi - len &&
	    (!next || next->start >= hint + len))
		return hint;
	if (flags & MAP_32BIT)
		return vma_find_gap(mm, lo, hi, len);
	return mm_find_gap(mm, len);
}

/*
 * Anonymous memory, private (copy on write across fork) or shared
 * (MAP_SHARED or MAP_SHARED_VALIDATE): an object of its own, whose pages
 * every mapping of it sees, the child's after fork too (mm/shmem.c).
 * Linux makes that object a file of its shmem file system named
 * "dev/zero", unlinked, so /proc/PID/maps names the area
 * "/dev/zero (deleted)"; ccos names it so.
 */
static int map_anonymous(struct mm *mm, uint64_t addr, uint64_t len, int prot, bool shared)
{
	struct shmem *s;
	int err;

	if (!shared)
		return mm_map(mm, addr, len, prot, NULL);
	if (!(s = shmem_create(len / PAGE_SIZE, "/dev/zero (deleted)")))
		return -ENOMEM;
	err = mm_map_shmem(mm, addr, len, prot, s, 0);
	shmem_put(s);		/* the area holds its own reference */
	return err;
}

/*
 * A tmpfs file (/tmp): its data is a shared memory object (fs/tmpfs_file.c),
 * which MAP_SHARED maps as anonymous shared memory is mapped, and
 * MAP_PRIVATE maps copy on write (cow: each page copied at its first
 * write). As Linux: the file must be open for reading, and for writing
 * too where a shared mapping may be written (else EACCES, and mprotect
 * may not add PROT_WRITE later: nowrite); a page past the file's end is
 * SIGBUS. Other files are ENODEV: modules are read with read().
 */
static int map_file(struct mm *mm, uint64_t addr, uint64_t len, int prot, bool shared,
		    long fd, uint64_t off)
{
	struct file *f = fd_get(fd);
	struct tnode *n = f ? tmpfs_node(f) : NULL;
	bool writable = f && file_writable(f);
	struct shmem *s;
	struct vma *v;
	int err;

	if (!f) {
		err = -EBADF;
	} else if (!n || !(s = tmpfs_shmem(n))) {
		err = !n || tmpfs_is_dir(n) ? -ENODEV : -ENOMEM;
	} else if (!file_readable(f) || (shared && (prot & PROT_WRITE) && !writable)) {
		err = -EACCES;
	} else if (!(err = mm_map_shmem(mm, addr, len, prot, s, off))) {
		v = mm_find_vma(mm, addr);
		v->cow = !shared;
		v->nowrite = shared && !writable;
	}
	if (f)
		file_put(f);
	return err;
}

long sys_mmap(uint64_t addr, uint64_t len, long prot, long flags, long fd, long off)
{
	struct mm *mm = current()->mm;
	long type = flags & MAP_TYPE;
	int err;

	if (off % PAGE_SIZE)
		return -EINVAL;
	/* As Linux: the file is looked up first, a descriptor not open is EBADF. */
	if (!(flags & MAP_ANONYMOUS) && WITH_FILE(fd, f, 0) == -EBADF)
		return -EBADF;
	if (!len)
		return -EINVAL;
	if (type != MAP_PRIVATE && type != MAP_SHARED && type != MAP_SHARED_VALIDATE)
		return -EINVAL;
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	/*
	 * Pages get their frames at their first touch (mm/memory.c), but a
	 * request for more than is free now could never be met: refused, as
	 * Linux's heuristic overcommit refuses one larger than its memory.
	 */
	if (!len || len / PAGE_SIZE > frames_free())
		return -ENOMEM;
	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (!range_ok(addr, len) || addr < 0x10000)
			return -EINVAL;
		if ((flags & MAP_FIXED_NOREPLACE) && vma_next(mm, addr) &&
		    vma_next(mm, addr)->start < addr + len)
			return -EEXIST;
	} else {
		addr = mmap_place(mm, addr, len, flags);
		if (!addr)
			return -ENOMEM;
	}
	if (!(flags & MAP_ANONYMOUS) && (uint64_t)off + len < (uint64_t)off)
		return -EOVERFLOW;
	if (flags & MAP_ANONYMOUS)
		err = map_anonymous(mm, addr, len, prot, type != MAP_PRIVATE);
	else
		err = map_file(mm, addr, len, prot, type != MAP_PRIVATE, fd, off);
	return err ? err : (long)addr;
}

long sys_munmap(uint64_t addr, uint64_t len)
{
	if (!range_ok(addr, len))
		return -EINVAL;
	return mm_unmap(current()->mm, addr, ALIGN_UP(len, PAGE_SIZE));
}

long sys_mprotect(uint64_t addr, uint64_t len, long prot)
{
	if (addr % PAGE_SIZE || prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	if (!len)
		return 0;
	if (!range_ok(addr, len))
		return -ENOMEM;
	return mm_protect(current()->mm, addr, ALIGN_UP(len, PAGE_SIZE), prot);
}

/* Linux's brk: the new break, or the old one when the request fails. */
long sys_brk(uint64_t brk)
{
	struct mm *mm = current()->mm;
	uint64_t old_top = ALIGN_UP(mm->brk, PAGE_SIZE), new_top = ALIGN_UP(brk, PAGE_SIZE);

	if (brk < mm->brk_start || brk > mm->brk_start + BRK_MAX)
		return mm->brk;
	if (new_top > old_top) {
		struct vma *next = vma_next(mm, old_top);

		if (next && next->start < new_top)
			return mm->brk;		/* would run into a mapping */
		if (mm_map(mm, old_top, new_top - old_top, PROT_READ | PROT_WRITE, "[heap]"))
			return mm->brk;
	} else if (new_top < old_top) {
		mm_unmap(mm, new_top, old_top - new_top);
	}
	mm->brk = brk;
	return brk;
}

/*
 * Read or write another process's memory (itself or a child, as ptrace
 * rules allow), as Linux: the count of bytes moved up to the first page
 * that cannot be, and -EFAULT only when that is the first; no piece
 * crosses a page on either side. The other process's pages must allow the
 * access (copy_mm_as_user): PROT_NONE is -EFAULT, and so is a read-only
 * page to write.
 */
static long process_vm_rw(int pid, const struct iovec __user *local, unsigned long nlocal,
			  const struct iovec __user *remote, unsigned long nremote,
			  unsigned long flags, bool write)
{
	struct process *p = proc_find(pid), *me = current();
	char buf[256];
	long total = 0;
	unsigned long li = 0, ri = 0;
	struct iovec l, r;

	if (flags || nlocal > 1024 || nremote > 1024)
		return -EINVAL;
	if (!p || !p->mm)		/* a zombie has no memory left */
		return -ESRCH;
	if (p->tgid != me->tgid && p->parent != me->group_leader)
		return -EPERM;
	if (!nlocal || !nremote)
		return 0;
	if (copy_from_user(&l, &local[0], sizeof(l)) || copy_from_user(&r, &remote[0], sizeof(r)))
		return -EFAULT;
	while (li < nlocal && ri < nremote) {
		size_t n = MIN(MIN(l.iov_len, r.iov_len), sizeof(buf));

		n = MIN(n, PAGE_SIZE - (uint64_t)r.iov_base % PAGE_SIZE);
		n = MIN(n, PAGE_SIZE - (uint64_t)l.iov_base % PAGE_SIZE);
		if (n && write && (copy_from_user(buf, l.iov_base, n) ||
				   copy_mm_as_user(p->mm, (uint64_t)r.iov_base, buf, n, true)))
			return total ? total : -EFAULT;
		if (n && !write && (copy_mm_as_user(p->mm, (uint64_t)r.iov_base, buf, n, false) ||
				    copy_to_user(l.iov_base, buf, n)))
			return total ? total : -EFAULT;
		total += n;
		l.iov_base = (char *)l.iov_base + n;
		l.iov_len -= n;
		r.iov_base = (char *)r.iov_base + n;
		r.iov_len -= n;
		if (!l.iov_len && ++li < nlocal && copy_from_user(&l, &local[li], sizeof(l)))
			return total ? total : -EFAULT;
		if (!r.iov_len && ++ri < nremote && copy_from_user(&r, &remote[ri], sizeof(r)))
			return total ? total : -EFAULT;
		irq_window();
	}
	return total;
}

long sys_process_vm_readv(int pid, const struct iovec __user *local, unsigned long nlocal,
			  const struct iovec __user *remote, unsigned long nremote,
			  unsigned long flags)
{
	return process_vm_rw(pid, local, nlocal, remote, nremote, flags, false);
}

long sys_process_vm_writev(int pid, const struct iovec __user *local, unsigned long nlocal,
			   const struct iovec __user *remote, unsigned long nremote,
			   unsigned long flags)
{
	return process_vm_rw(pid, local, nlocal, remote, nremote, flags, true);
}

#define MADV_DONTNEED	4
#define MADV_WIPEONFORK	18
#define MADV_KEEPONFORK	19

/* Every page of [addr, end) is in an area (else -ENOMEM). */
static long madvise_range_ok(struct mm *mm, uint64_t addr, uint64_t end)
{
	uint64_t covered = addr;
	struct vma *v;

	for_each_vma_in(v, mm, addr, end) {
		if (v->start > covered)
			return -ENOMEM;
		covered = v->end;
	}
	return covered < end ? -ENOMEM : 0;
}

/*
 * Advice: ccos never pages out, so most of it (MADV_FREE, which musl's
 * free uses, MADV_WILLNEED, ...) changes nothing. MADV_DONTNEED is a
 * promise of Linux's too: the pages go, and the next touch of each finds
 * it as new (mm/memory.c): zeros, or an ELF segment's bytes from the
 * program file, as Linux rereads the file. Shared memory's pages stay
 * with their object (mm/shmem.c): the next touch maps them again, as they
 * were. Shared frames (the vDSO) are left alone.
 */
long sys_madvise(uint64_t addr, size_t len, int advice)
{
	struct mm *mm = current()->mm;
	uint64_t end = ALIGN_UP(addr + len, PAGE_SIZE);
	struct vma *v;
	long err;

	if (addr % PAGE_SIZE || end < addr || end > USER_TOP || advice < 0)
		return -EINVAL;
	err = madvise_range_ok(mm, addr, end);
	if (!err && (advice == MADV_WIPEONFORK || advice == MADV_KEEPONFORK))
		return mm_wipe_on_fork(mm, addr, end, advice == MADV_WIPEONFORK);
	if (err || advice != MADV_DONTNEED)
		return err;
	for_each_vma_in(v, mm, addr, end) {
		if (!v->shared)
			unmap_pages(mm, MAX(v->start, addr), MIN(v->end, end));
		irq_window();
	}
	return 0;
}

#define MS_ASYNC	1
#define MS_INVALIDATE	2
#define MS_SYNC		4

/*
 * msync: ccos's files live in memory, and a shared mapping's pages are
 * the file's own (fs/tmpfs_file.c), so there is nothing to write back. As
 * Linux: the flags are checked (EINVAL), and a range with a hole in it is
 * ENOMEM.
 */
long sys_msync(uint64_t addr, size_t len, int flags)
{
	uint64_t end = ALIGN_UP(addr + len, PAGE_SIZE);

	if (addr % PAGE_SIZE || flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC) ||
	    ((flags & MS_ASYNC) && (flags & MS_SYNC)))
		return -EINVAL;
	if (end < addr || end > USER_TOP)
		return -ENOMEM;
	return end == addr ? 0 : madvise_range_ok(current()->mm, addr, end);
}
