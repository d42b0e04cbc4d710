/* /proc/meminfo in Linux's format: the lines Linux 6.1 prints on x86-64 without hugetlbfs, from what ccos counts. */
#include <ccos/file.h>
#include <ccos/mm.h>
#include <ccos/tmpfs.h>
#include <ccos/lib.h>
#include <ccos/printk.h>

#define MEMINFO_SIZE	2048	/* 50 lines of at most 30 characters */
#define LABEL_WIDTH	16
#define NUMBER_END	24	/* the column where each number ends */

/*
 * Each line is a name and its colon padded to 16 columns (a longer one
 * and a space), then a number right-aligned to end at column 24 (a wider
 * one goes on), then " kB": Linux's 8 columns of number for a short name,
 * HardwareCorrupted's 5. ccos has no swap, no page cache in
 * front of a disk and no LRU lists: those lines read 0, which is what
 * Linux says of a machine without them; nor hugetlbfs, whose lines (the
 * HugePages_ counts, Hugepagesize) a Linux built without it leaves out
 * too. /tmp's pages are memory that cannot be given back (tmpfs), Shmem
 * as on Linux, which counts them in Cached too; so MemAvailable, what a
 * program may still take, is MemFree. With no swap, CommitLimit is half
 * of memory (vm.overcommit_ratio 50).
 */
enum meminfo_value { ZERO, TOTAL, FREE, SHMEM, COMMIT_LIMIT, VMALLOC_TOTAL };

static const struct {
	const char *name;
	enum meminfo_value value;
} meminfo_lines[] = {
#define KB(name, value)	{ name, value }
	KB("MemTotal", TOTAL), KB("MemFree", FREE), KB("MemAvailable", FREE), KB("Buffers", ZERO),
	KB("Cached", SHMEM), KB("SwapCached", ZERO), KB("Active", ZERO), KB("Inactive", ZERO),
	KB("Active(anon)", ZERO), KB("Inactive(anon)", ZERO), KB("Active(file)", ZERO),
	KB("Inactive(file)", ZERO), KB("Unevictable", ZERO), KB("Mlocked", ZERO),
	KB("SwapTotal", ZERO), KB("SwapFree", ZERO), KB("Zswap", ZERO), KB("Zswapped", ZERO),
	KB("Dirty", ZERO), KB("Writeback", ZERO), KB("AnonPages", ZERO), KB("Mapped", ZERO),
	KB("Shmem", SHMEM), KB("KReclaimable", ZERO), KB("Slab", ZERO), KB("SReclaimable", ZERO),
	KB("SUnreclaim", ZERO), KB("KernelStack", ZERO), KB("PageTables", ZERO),
	KB("SecPageTables", ZERO), KB("NFS_Unstable", ZERO), KB("Bounce", ZERO),
	KB("WritebackTmp", ZERO), KB("CommitLimit", COMMIT_LIMIT), KB("Committed_AS", ZERO),
	KB("VmallocTotal", VMALLOC_TOTAL), KB("VmallocUsed", ZERO), KB("VmallocChunk", ZERO),
	KB("Percpu", ZERO), KB("HardwareCorrupted", ZERO), KB("AnonHugePages", ZERO),
	KB("ShmemHugePages", ZERO), KB("ShmemPmdMapped", ZERO), KB("FileHugePages", ZERO),
	KB("FilePmdMapped", ZERO),
#undef KB
};

/*
 * MemFree is the free frames with the kernel heap's free blocks and the
 * kernel stacks that wait for their flush (mem_free_bytes), so that it
 * comes back exactly once everything taken is given back.
 */
char *proc_meminfo(size_t *len)
{
	uint64_t kb[] = {
		[TOTAL] = (frames_free() + frames_used()) * 4, [FREE] = mem_free_bytes() / 1024,
		[SHMEM] = tmpfs_usage().pages * 4, [VMALLOC_TOTAL] = 34359738367ull,
	};
	char *buf = kmalloc(MEMINFO_SIZE), name[20];
	size_t i, n = 0;
	int pad;

	kb[COMMIT_LIMIT] = kb[TOTAL] / 2;
	for (i = 0; buf && i < ARRAY_SIZE(meminfo_lines); i++) {
		snprintf(name, sizeof(name), "%s:", meminfo_lines[i].name);
		pad = MAX(LABEL_WIDTH, strlen(name) + 1);
		n += snprintf(buf + n, MEMINFO_SIZE - n, "%-*s%*lu kB\n", pad, name,
			      MAX(NUMBER_END - pad, 1), kb[meminfo_lines[i].value]);
	}
	*len = MIN(n, MEMINFO_SIZE);
	return buf;
}
