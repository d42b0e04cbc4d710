/* /proc/PID/maps, smaps and smaps_rollup in Linux's format: the areas of an address space, and what each holds. */
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/shmem.h>
#include <ccos/tmpfs.h>
#include <asm/arch.h>

#define MAPS_PATH_MAX	86	/* a tmpfs file's path, cut short past it */
#define MAPS_LINE_MAX	(74 + MAPS_PATH_MAX)	/* a line is at most 73 columns and a name */
#define SMAPS_AREA_MAX	1024	/* its maps line, 23 lines of at most 30 columns, VmFlags */

/*
 * start-end perms offset dev inode, a space, then the name from column 74
 * (offset 73), as Linux pads it (show_map_vma); an area without a name
 * keeps the space. Shared memory is 's' where private is 'p', on device
 * 00:01 (Linux's shmem file system) with its object's inode; a tmpfs
 * file's mapping, shared or private, on /tmp's device (00:15) with the
 * file's inode and path, " (deleted)" once unlinked, as Linux's d_path.
 */
static size_t maps_line(char *buf, size_t left, uint64_t start, uint64_t end, int prot,
			uint64_t offset, const struct vma *v, const char *name)
{
	const struct shmem *obj = v ? v->shmem : NULL;
	char path[MAPS_PATH_MAX];
	int n = snprintf(buf, left, "%08lx-%08lx %c%c%c%c %08lx %s %lu ", start, end,
			 prot & PROT_READ ? 'r' : '-', prot & PROT_WRITE ? 'w' : '-',
			 prot & PROT_EXEC ? 'x' : '-', v && vma_shares_object(v) ? 's' : 'p', offset,
			 !obj ? "00:00" : obj->node ? "00:15" : "00:01", obj ? obj->ino : 0);

	if (obj && obj->node && tmpfs_maps_name(obj->node, path, sizeof(path)) > 0)
		name = path;

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
 * Shared memory merges only with the same object's next pages.
 */
static bool continues(const struct vma *a, const struct vma *b)
{
	bool same_name = a->name == b->name || (a->name && b->name && !strcmp(a->name, b->name));
	bool file = a->name && a->name[0] != '[';

	return b->start == a->end && b->prot == a->prot && same_name && a->shmem == b->shmem && a->cow == b->cow &&
	       a->nowrite == b->nowrite && (!file || b->offset == a->offset + (a->end - a->start));
}

/* An area as /proc shows it: ccos's areas merged (first..last), or a gate page (first NULL). */
struct shown_area {
	uint64_t start, end, offset;
	int prot;
	const char *name;
	const struct vma *first;
};

typedef size_t (*show_fn)(char *buf, size_t left, struct mm *mm, const struct shown_area *a);

/* Each area of mm, then the gate pages, shown by show into a kmalloc'd buffer of per bytes an area. */
static char *show_areas(struct mm *mm, size_t per, show_fn show, size_t *len)
{
	struct vma *v, *last, *next;
	size_t n = 0, size = ((mm ? mm->nr_vmas : 0) + 2) * per;
	struct shown_area a;
	char *buf;

	if (!(buf = kmalloc(size)))
		return NULL;
	*len = 0;
	if (!mm)
		return buf;		/* a zombie's: empty, as Linux's */
	for (v = vma_next(mm, 0); v; v = next) {
		bool file = v->name && v->name[0] != '[';

		for (last = v; (next = vma_next(mm, last->end)) && continues(last, next); last = next)
			;
		/* As Linux, the offset is the file's, and 0 for anonymous memory. */
		a = (struct shown_area){ v->start, last->end, file ? v->offset : 0, v->prot, v->name, v };
		n += show(buf + n, size - n, mm, &a);
	}
	a = (struct shown_area){ VVAR_ADDRESS, VVAR_ADDRESS + PAGE_SIZE, 0, PROT_READ, "[vvar]", NULL };
	n += show(buf + n, size - n, mm, &a);
	a = (struct shown_area){ VSYSCALL_ADDR, VSYSCALL_ADDR + PAGE_SIZE, 0,
				 vsyscall_prot[boot_options.vsyscall], "[vsyscall]", NULL };
	if (a.prot)
		n += show(buf + n, size - n, mm, &a);
	*len = n;
	return buf;
}

static size_t maps_area(char *buf, size_t left, struct mm *mm, const struct shown_area *a)
{
	(void)mm;
	return maps_line(buf, left, a->start, a->end, a->prot, a->offset, a->first, a->name);
}

char *proc_maps(struct process *p, size_t *len)
{
	return show_areas(p->mm, MAPS_LINE_MAX, maps_area, len);
}

/*
 * What the page tables hold of an area, in bytes, as Linux's
 * smaps_account counts it. A frame is shared when more than one address
 * space maps it: the vDSO's (PTE_SHARED), which every one maps, and a
 * frame fork left to both sides until one writes (mm/memory.c), which
 * counts its users (frame_users). Pss divides each frame among its
 * users, in 1/4096 of a byte as Linux (PSS_SHIFT). A shared memory
 * object's frame counts its object's reference too (mm/shmem.c): its users
 * are its mappings, one fewer. Dirty: the CPU set the entry's D bit, a
 * write through it; Referenced: its A bit. Anonymous: the frames of an
 * area that is no file's, and the written ones of a file's (on Linux a
 * write copies a private file page into an anonymous one); shared
 * memory's are not (on Linux they are its shmem file's). Pss_Anon,
 * Pss_Shmem and Pss_File, which only smaps_rollup prints, split Pss so.
 */
struct mem_size_stats {
	uint64_t resident, referenced, anonymous;
	uint64_t shared_clean, shared_dirty, private_clean, private_dirty;
	uint64_t pss, pss_dirty, pss_anon, pss_file, pss_shmem;
};

static unsigned int address_spaces(void)
{
	struct process *p, *q;
	unsigned int n = 0;

	for (p = proc_table; p < proc_table + NPROC; p++) {
		for (q = proc_table; q < p && (!p->mm || q->mm != p->mm); q++)
			;
		n += p->mm && q == p;
	}
	return n;
}

/* Add the pages of area a to mss. */
static void account_area(struct mm *mm, const struct shown_area *a, struct mem_size_stats *mss)
{
	bool shmem = a->first && a->first->shmem, file = a->name && a->name[0] != '[' && !shmem;
	unsigned int spaces = address_spaces();
	uint64_t va = a->start, *pte;

	if (!a->first)
		return;		/* the gate pages: Linux counts no page of them either */
	for (; (pte = pte_next(mm->pml4, &va, a->end)); va += PAGE_SIZE) {
		unsigned int users;
		bool dirty = *pte & PTE_D, shared, anon;
		uint64_t pss;

		if (!(*pte & PTE_ADDR))
			continue;
		users = *pte & PTE_SHARED ? spaces : frame_users(*pte & PTE_ADDR) - shmem;
		shared = users > 1;
		pss = ((uint64_t)PAGE_SIZE << 12) / (shared ? users : 1);
		anon = !shmem && (file ? dirty : !(*pte & PTE_SHARED));
		mss->resident += PAGE_SIZE;
		mss->referenced += *pte & PTE_A ? PAGE_SIZE : 0;
		mss->anonymous += anon ? PAGE_SIZE : 0;
		*(shared ? (dirty ? &mss->shared_dirty : &mss->shared_clean)
			 : (dirty ? &mss->private_dirty : &mss->private_clean)) += PAGE_SIZE;
		mss->pss += pss;
		mss->pss_dirty += dirty ? pss : 0;
		*(anon ? &mss->pss_anon : shmem ? &mss->pss_shmem : &mss->pss_file) += pss;
	}
}

/*
 * VmFlags, in Linux's order of its bits: the rights, what mprotect may
 * give (mr mw me: every area of a process, none of a gate page; no mw for
 * a SysV segment attached SHM_RDONLY), sh and ms for shared memory (sh
 * where it may be written), gd for
 * the stack that grows down, ac for a private writable area (Linux
 * accounts it against overcommit; it keeps the flag when mprotect takes
 * the write away, ccos, which keeps no flags, not), and the vDSO's and
 * vvar page's as Linux makes them special mappings (pf io: no page
 * structures behind; de: not expanded by mremap; dd: not dumped).
 */
static size_t vm_flags(char *buf, size_t left, const struct shown_area *a)
{
	bool area = a->first, vvar = !area && a->prot == PROT_READ;
	bool stack = a->name && !strcmp(a->name, "[stack]"), vdso = area && a->first->shared;
	bool shmem = area && vma_shares_object(a->first), nowrite = area && a->first->nowrite;
	const struct {
		bool set;
		const char *name;
	} flags[] = {
		{ a->prot & PROT_READ, "rd" }, { a->prot & PROT_WRITE, "wr" },
		{ a->prot & PROT_EXEC, "ex" }, { shmem && !nowrite, "sh" }, { area || vvar, "mr" },
		{ area && !nowrite, "mw" }, { area, "me" }, { shmem, "ms" }, { stack, "gd" },
		{ vvar, "pf" }, { vvar, "io" }, { vdso || vvar, "de" },
		{ area && !shmem && (a->prot & PROT_WRITE), "ac" }, { vvar, "dd" },
	};
	size_t n = snprintf(buf, left, "VmFlags:");
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++)
		if (flags[i].set)
			n += snprintf(buf + n, left > n ? left - n : 0, " %s", flags[i].name);
	n += snprintf(buf + n, left > n ? left - n : 0, " \n");
	return MIN(n, left);
}

/* One line of sizes, in Linux's columns: a name in 16, then 8 for the kB. */
static size_t kb_line(char *buf, size_t left, const char *name, uint64_t bytes)
{
	return snprintf(buf, left, "%-16s%8lu kB\n", name, bytes >> 10);
}

/*
 * The lines of sizes. An area's (a) begin with its size and page sizes
 * and end with THPeligible; the rollup's (a NULL) have neither, and split
 * Pss three ways after Pss_Dirty.
 */
static size_t smaps_sizes(char *buf, size_t left, const struct shown_area *a,
			  const struct mem_size_stats *mss)
{
	const struct {
		const char *name;
		uint64_t bytes;
	} area[] = {
		{ "Size:", a ? a->end - a->start : 0 }, { "KernelPageSize:", PAGE_SIZE },
		{ "MMUPageSize:", PAGE_SIZE },
	}, pss[] = {
		{ "Rss:", mss->resident }, { "Pss:", mss->pss >> 12 },
		{ "Pss_Dirty:", mss->pss_dirty >> 12 },
	}, rollup[] = {
		{ "Pss_Anon:", mss->pss_anon >> 12 }, { "Pss_File:", mss->pss_file >> 12 },
		{ "Pss_Shmem:", mss->pss_shmem >> 12 },
	}, rest[] = {
		{ "Shared_Clean:", mss->shared_clean },
		{ "Shared_Dirty:", mss->shared_dirty }, { "Private_Clean:", mss->private_clean },
		{ "Private_Dirty:", mss->private_dirty }, { "Referenced:", mss->referenced },
		{ "Anonymous:", mss->anonymous }, { "KSM:", 0 }, { "LazyFree:", 0 },
		{ "AnonHugePages:", 0 }, { "ShmemPmdMapped:", 0 }, { "FilePmdMapped:", 0 },
		{ "Shared_Hugetlb:", 0 }, { "Private_Hugetlb:", 0 }, { "Swap:", 0 }, { "SwapPss:", 0 },
		{ "Locked:", 0 },
	};
	size_t n = 0;
	unsigned int i;

	for (i = 0; a && i < ARRAY_SIZE(area); i++)
		n += kb_line(buf + n, left > n ? left - n : 0, area[i].name, area[i].bytes);
	for (i = 0; i < ARRAY_SIZE(pss); i++)
		n += kb_line(buf + n, left > n ? left - n : 0, pss[i].name, pss[i].bytes);
	for (i = 0; !a && i < ARRAY_SIZE(rollup); i++)
		n += kb_line(buf + n, left > n ? left - n : 0, rollup[i].name, rollup[i].bytes);
	for (i = 0; i < ARRAY_SIZE(rest); i++)
		n += kb_line(buf + n, left > n ? left - n : 0, rest[i].name, rest[i].bytes);
	if (a)
		n += snprintf(buf + n, left > n ? left - n : 0, "%-16s%8d\n", "THPeligible:", 0);
	return MIN(n, left);
}

static size_t smaps_area(char *buf, size_t left, struct mm *mm, const struct shown_area *a)
{
	struct mem_size_stats mss = { 0 };
	size_t n = maps_area(buf, left, mm, a);

	account_area(mm, a, &mss);
	n += smaps_sizes(buf + n, left - n, a, &mss);
	return n + vm_flags(buf + n, left - n, a);
}

char *proc_smaps(struct process *p, size_t *len)
{
	return show_areas(p->mm, SMAPS_AREA_MAX, smaps_area, len);
}

/*
 * smaps_rollup: every area's sizes summed, under one line that spans the
 * first area's start to the last one's end, as Linux's show_smaps_rollup
 * (the gate pages are no areas there, and count nothing here).
 */
char *proc_smaps_rollup(struct process *p, size_t *len)
{
	struct mem_size_stats mss = { 0 };
	struct shown_area a;
	uint64_t start = 0, end = 0;
	size_t n = 0, size = SMAPS_AREA_MAX;
	struct vma *v;
	char *buf;

	if (!(buf = kmalloc(size)))
		return NULL;
	*len = 0;
	if (!p->mm)
		return buf;		/* a zombie's: empty */
	for (v = vma_next(p->mm, 0); v; v = v->next) {
		a = (struct shown_area){ v->start, v->end, v->offset, v->prot, v->name, v };
		account_area(p->mm, &a, &mss);
		start = start ? start : v->start;
		end = v->end;
	}
	n = maps_line(buf, size, start, end, 0, 0, NULL, "[rollup]");
	n += smaps_sizes(buf + n, size - n, NULL, &mss);
	*len = n;
	return buf;
}
