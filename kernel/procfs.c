/* /proc files, made at open time: maps, status and meminfo in Linux's format, and ccos's smpstat. */
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/clock.h>
#include <ccos/lapic.h>

#define MAPS_LINE_MAX	128	/* a line is at most 73 columns and a name */

/*
 * start-end perms offset dev inode, a space, then the name from column 74
 * (offset 73), as Linux pads it (show_map_vma); an area without a name
 * keeps the space.
 */
static size_t maps_line(char *buf, size_t left, uint64_t start, uint64_t end, int prot,
			uint64_t offset, const char *name)
{
	int n = snprintf(buf, left, "%08lx-%08lx %c%c%cp %08lx 00:00 0 ", start, end,
			 prot & PROT_READ ? 'r' : '-', prot & PROT_WRITE ? 'w' : '-',
			 prot & PROT_EXEC ? 'x' : '-', offset);

	if (name)
		n += snprintf(buf + n, left > (size_t)n ? left - n : 0, "%*s%s",
			      n < 73 ? 73 - n : 0, "", name);
	n += snprintf(buf + n, left > (size_t)n ? left - n : 0, "\n");
	return MIN((size_t)n, left);
}

/* The gate pages: the same in every process, as the vsyscall mode makes them. */
static const int vsyscall_prot[] = {
	[VSYSCALL_NATIVE] = PROT_READ | PROT_EXEC,
	[VSYSCALL_EMULATE] = PROT_READ | PROT_EXEC,
	[VSYSCALL_XONLY] = PROT_EXEC,
	[VSYSCALL_NONE] = 0,
};

/*
 * Linux merges neighbouring areas that would print alike (same
 * permissions, same name, the file offset running on): two brk calls make
 * one [heap], an mprotect undone leaves one line. ccos keeps one area per
 * mmap, brk or mprotect piece, and merges them here, as they are printed.
 */
static bool continues(const struct vma *a, const struct vma *b)
{
	bool same_name = a->name == b->name || (a->name && b->name && !strcmp(a->name, b->name));
	bool file = a->name && a->name[0] != '[';

	return b->start == a->end && b->prot == a->prot && same_name &&
	       (!file || b->offset == a->offset + (a->end - a->start));
}

static char *maps(size_t *len)
{
	struct mm *mm = current()->mm;
	struct vma *v, *last, *next;
	size_t n = 0, size = (mm->nr_vmas + 2) * MAPS_LINE_MAX;
	char *buf;

	if (!(buf = kmalloc(size)))
		return NULL;
	for (v = vma_next(mm, 0); v; v = next) {
		bool file = v->name && v->name[0] != '[';

		for (last = v; (next = vma_next(mm, last->end)) && continues(last, next); last = next)
			;
		/* As Linux, the offset is the file's, and 0 for anonymous memory. */
		n += maps_line(buf + n, size - n, v->start, last->end, v->prot,
			       file ? v->offset : 0, v->name);
	}
	n += maps_line(buf + n, size - n, VVAR_ADDRESS, VVAR_ADDRESS + PAGE_SIZE,
		       PROT_READ, 0, "[vvar]");
	if (vsyscall_prot[boot_options.vsyscall])
		n += maps_line(buf + n, size - n, VSYSCALL_ADDR, VSYSCALL_ADDR + PAGE_SIZE,
			       vsyscall_prot[boot_options.vsyscall], 0, "[vsyscall]");
	*len = n;
	return buf;
}

/*
 * Linux's first lines of /proc/meminfo: all the frames, and the free ones
 * with the kernel heap's free blocks (mem_free_bytes), so that MemFree
 * comes back exactly once everything taken is given back, however much
 * the heap grew meanwhile. The frames of freed kernel stacks that wait
 * for their flush count as free too.
 */
static char *meminfo(size_t *len)
{
	char *buf = kmalloc(256);
	size_t free = mem_free_bytes() + kstack_waiting_frames() * PAGE_SIZE;

	if (buf)
		*len = snprintf(buf, 256, "MemTotal:       %8lu kB\nMemFree:        %8lu kB\n",
				(frames_free() + frames_used()) * 4, free / 1024);
	return buf;
}

/*
 * Some of Linux's lines of /proc/self/status, for the process (as Linux
 * shows its leader, whichever thread reads): Threads counts the live ones.
 */
static char *status(size_t *len)
{
	struct process *p = current(), *t;
	char *buf = kmalloc(256);
	int threads = 0;

	for_each_thread(t, p)
		threads += t->state != PROC_ZOMBIE && t->state != PROC_DEAD;
	if (buf)
		*len = snprintf(buf, 256, "Name:\t%s\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\nThreads:\t%d\n",
				p->comm, p->tgid, p->tgid, p->parent ? p->parent->tgid : 0, threads);
	return buf;
}

/*
 * ccos's own, no Linux file: per CPU, the kernel lock taken, how often it
 * was found held and how long this CPU waited for it, switches to a
 * process, and halts in the idle loop (docs/smp.md).
 */
static char *smpstat(size_t *len)
{
	size_t size = nr_cpus * 128, n = 0;
	char *buf = kmalloc(size);
	int i;

	if (!buf)
		return NULL;
	for (i = 0; i < nr_cpus; i++) {
		const struct percpu *c = &cpus[i];

		n += snprintf(buf + n, size - n,
			      "cpu%d kernel_lock %lu waited %lu for %lu us switches %lu halts %lu tlb %lu for %lu us\n",
			      i, c->klock_taken, c->klock_waited,
			      tsc_khz ? c->klock_wait_cycles * 1000 / tsc_khz : 0, c->switches,
			      c->halts, c->shootdowns,
			      tsc_khz ? c->shootdown_cycles * 1000 / tsc_khz : 0);
	}
	*len = MIN(n, size);
	return buf;
}

static const struct {
	const char *path;
	char *(*generate)(size_t *len);
} proc_files[] = {
	{ "/proc/self/maps", maps },
	{ "/proc/self/status", status },
	{ "/proc/meminfo", meminfo },
	{ "/proc/smpstat", smpstat },
};

/* The text of a /proc file: 0, -ENOENT when there is no such file, -ENOMEM when it does not fit. */
long procfs_generate(const char *path, char **text, size_t *len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(proc_files); i++)
		if (!strcmp(path, proc_files[i].path))
			return (*text = proc_files[i].generate(len)) ? 0 : -ENOMEM;
	return -ENOENT;
}
