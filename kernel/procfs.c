/* /proc files, made at open time in Linux's format: maps and meminfo. */
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/lib.h>
#include <ccos/printk.h>

#define MAPS_MAX	8192

/* start-end perms offset dev inode, then the name from column 74, as Linux. */
static size_t maps_line(char *buf, size_t left, uint64_t start, uint64_t end, int prot,
			uint64_t offset, const char *name)
{
	int n = snprintf(buf, left, "%08lx-%08lx %c%c%cp %08lx 00:00 0", start, end,
			 prot & PROT_READ ? 'r' : '-', prot & PROT_WRITE ? 'w' : '-',
			 prot & PROT_EXEC ? 'x' : '-', offset);

	if (name)
		n += snprintf(buf + n, left > (size_t)n ? left - n : 0, "%*s%s",
			      n < 73 ? 73 - n : 1, "", name);
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

static char *maps(size_t *len)
{
	struct mm *mm = current()->mm;
	char *buf = kmalloc(MAPS_MAX);
	struct vma *v;
	size_t n = 0;

	if (!buf)
		return NULL;
	for (v = mm->vmas; v; v = v->next)
		n += maps_line(buf + n, MAPS_MAX - n, v->start, v->end, v->prot, v->offset, v->name);
	n += maps_line(buf + n, MAPS_MAX - n, VVAR_ADDRESS, VVAR_ADDRESS + PAGE_SIZE,
		       PROT_READ, 0, "[vvar]");
	if (vsyscall_prot[boot_options.vsyscall])
		n += maps_line(buf + n, MAPS_MAX - n, VSYSCALL_ADDR, VSYSCALL_ADDR + PAGE_SIZE,
			       vsyscall_prot[boot_options.vsyscall], 0, "[vsyscall]");
	*len = n;
	return buf;
}

/* Linux's first lines of /proc/meminfo, from the frame allocator's counts. */
static char *meminfo(size_t *len)
{
	char *buf = kmalloc(256);

	if (buf)
		*len = snprintf(buf, 256, "MemTotal:       %8lu kB\nMemFree:        %8lu kB\n",
				(frames_free() + frames_used()) * 4, frames_free() * 4);
	return buf;
}

static const struct {
	const char *path;
	char *(*generate)(size_t *len);
} proc_files[] = {
	{ "/proc/self/maps", maps },
	{ "/proc/meminfo", meminfo },
};

char *procfs_generate(const char *path, size_t *len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(proc_files); i++)
		if (!strcmp(path, proc_files[i].path))
			return proc_files[i].generate(len);
	return NULL;
}
