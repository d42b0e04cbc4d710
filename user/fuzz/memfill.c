/* fuzz's memory check: fill memory, the kernel heap too, free it all: the memory and fork must be back. */
#include "fuzz.h"

#define SMALL_AREAS	16384	/* one-page areas: each is an area in the kernel heap too */
#define MAX_AREAS	(SMALL_AREAS + 128)
#define DIRS		64	/* /tmp/fuzz-fill/NN/..., FILES each: up to tmpfs's limit */
#define FILES		256
#define SLACK_PAGES	256	/* the heap keeps a partial page per class, page tables vary */

static struct area {
	void *addr;
	unsigned long len;
} areas[MAX_AREAS];
static unsigned long nareas;

/*
 * Areas halving from 1 TiB to a page, each filled, until mmap says no or
 * a fill stops short (no frame left): how many pages they took.
 */
static unsigned long map_all(long zero)
{
	unsigned long len = 1ul << 40, pages = 0, got;
	void *p;

	for (; len >= PAGE_SIZE; len /= 2) {
		while (nareas < MAX_AREAS &&
		       !IS_ERR_VALUE(p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))) {
			areas[nareas++] = (struct area){ p, len };
			got = fill_from_zero(p, len, zero);
			pages += got / PAGE_SIZE;
			if (got < len)
				goto full;
		}
	}
full:
	return pages;
}

static long unmap_all(void)
{
	long r = 0;

	for (; nareas && !r; nareas--)
		r = munmap(areas[nareas - 1].addr, areas[nareas - 1].len);
	return r;
}

/* The kernel heap: /tmp nodes until tmpfs says no (ENOSPC at its limit), then one-page areas. */
static unsigned long fill_heap(void)
{
	unsigned long made = 0, d, f;
	char name[48];
	void *p;

	syscall2(__NR_mkdir, (long)"/tmp/fuzz-fill", 0700);
	for (d = 0; d < DIRS; d++) {
		snprintf(name, sizeof(name), "/tmp/fuzz-fill/%02lu", d);
		if (syscall2(__NR_mkdir, (long)name, 0700))
			break;
		for (f = 0; f < FILES; f++, made++) {
			snprintf(name, sizeof(name), "/tmp/fuzz-fill/%02lu/%03lu", d, f);
			if (close(open(name, O_WRONLY | O_CREAT, 0600)))
				break;
		}
	}
	for (f = 0; f < SMALL_AREAS; f++) {
		p = mmap(NULL, PAGE_SIZE, f % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);	/* alternately: none merges */
		if (IS_ERR_VALUE(p))
			break;
		areas[nareas++] = (struct area){ p, PAGE_SIZE };
	}
	return made;
}

static void remove_heap_files(void)
{
	unsigned long d, f;
	char name[48];

	for (d = 0; d < DIRS; d++) {
		for (f = 0; f < FILES; f++) {
			snprintf(name, sizeof(name), "/tmp/fuzz-fill/%02lu/%03lu", d, f);
			syscall1(__NR_unlink, (long)name);
		}
		snprintf(name, sizeof(name), "/tmp/fuzz-fill/%02lu", d);
		syscall1(__NR_rmdir, (long)name);
	}
	syscall1(__NR_rmdir, (long)"/tmp/fuzz-fill");
}

/*
 * What can be mapped and filled is measured, then the heap is filled
 * (tmpfs nodes, areas) and every frame left is mapped and filled, after
 * which mmap says ENOMEM; then all of it is freed. As much must be mappable again as before, and a fork
 * (its page tables, kernel stack and copy of this address space) and a
 * wait must work: a kernel whose heap kept the pages its freed blocks
 * took (ccos's before issue 28) could map megabytes less.
 */
int check_fork_after_fill(int fd)
{
	unsigned long before, after, files, small;
	long pid, r, zero = open("/dev/zero", O_RDONLY, 0);
	int status;

	if (zero < 0)
		return report(fd, "memory check: open /dev/zero returned %ld", zero);
	before = map_all(zero);
	if ((r = unmap_all()))
		return report(fd, "memory check: munmap returned %ld", r);
	files = fill_heap();
	small = nareas;
	map_all(zero);
	r = (long)mmap(NULL, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r != -ENOMEM)
		report(fd, "memory check: with memory full (%lu areas), mmap of a page returned %ld, not -ENOMEM",
		       nareas, r);
	remove_heap_files();
	if ((r = unmap_all()))
		return report(fd, "memory check: munmap returned %ld", r);
	after = map_all(zero);
	unmap_all();
	close(zero);
	if (after + SLACK_PAGES < before)
		report(fd, "memory check: %lu pages could be mapped, %lu once %lu files of /tmp and %lu one-page areas were made and freed",
		       before, after, files, small);
	pid = fork();
	if (pid == 0)
		exit_group(42);
	if (pid < 0)
		return report(fd, "memory check: fork after memory was filled and freed returned %ld", pid);
	r = wait4(pid, &status, 0, NULL);
	if (r != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 42)
		return report(fd, "memory check: wait4 of the child forked after the fill: %ld, status %#x",
			      r, status);
	return 0;
}
