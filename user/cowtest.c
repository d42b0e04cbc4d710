/* cowtest: fork's copy on write and memory taken at its first touch, as a program sees them (KTAP). */
#include "testutil.h"

/*
 * fork copies no page: parent and child share the frames until one of
 * them writes, and a page of fresh memory gets its frame at its first
 * touch (docs/memory.md). None of that may show, except in MemFree: each
 * side sees its own memory, whoever writes it (the program, or the
 * kernel for it in a system call). The MemFree cases are ccos's own; the
 * others hold on Linux too (tools/tests/test_host.py).
 */

#define FILL		0x5a
#define CHILD_FILL	0xc1
#define PARENT_FILL	0xa7
#define MADV_DONTNEED	4

static char data_page[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE))) = { 1, 2, 3 };
static char bss_page[PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));

/* The first page boundary inside a stack array: a page of its own. */
static char *page_in(char *area)
{
	return (char *)(((unsigned long)area + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1));
}

/* One byte through a pipe, to say "done" or "go on". */
static int signal_other(int fd)
{
	char c = 1;

	return write(fd, &c, 1) == 1;
}

static int wait_other(int fd)
{
	char c;

	return read(fd, &c, 1) == 1;
}

/*
 * The stack, .data, .bss, the heap and an mmap page: filled by the parent
 * before fork; the child finds the fill, writes its own, and the parent
 * must not see it; then the parent writes, and the child must not see it.
 */
static int test_each_side_its_own_copy(void)
{
	char stack[2 * PAGE_SIZE], *heap = (char *)brk(NULL), *map = map_pages(1);
	char *regions[5] = { page_in(stack), data_page, bss_page, heap, map };
	int to_child[2], to_parent[2], status, i, bad = 0;
	long pid;

	if (brk(heap + PAGE_SIZE) != (long)(heap + PAGE_SIZE) || IS_ERR_VALUE(map) ||
	    pipe(to_child) || pipe(to_parent))
		return ktap_fail("brk, mmap or pipe failed");
	for (i = 0; i < 5; i++)
		memset(regions[i], FILL, PAGE_SIZE);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < 5; i++) {
			bad |= !all_bytes(regions[i], PAGE_SIZE, FILL) << i;
			memset(regions[i], CHILD_FILL, PAGE_SIZE);
		}
		signal_other(to_parent[1]);
		wait_other(to_child[0]);
		for (i = 0; i < 5; i++)
			bad |= !all_bytes(regions[i], PAGE_SIZE, CHILD_FILL) << (5 + i);
		exit(bad);
	}
	if (!wait_other(to_parent[0]))
		return ktap_fail("the child did not answer");
	for (i = 0; i < 5; i++) {
		bad |= !all_bytes(regions[i], PAGE_SIZE, FILL) << i;
		memset(regions[i], PARENT_FILL, PAGE_SIZE);
	}
	signal_other(to_child[1]);
	wait4(pid, &status, 0, NULL);
	if (bad)
		return ktap_fail("the parent saw the child's writes (region mask %#x: stack, data, bss, heap, mmap)",
				 bad);
	return expect_exit(status, 0, "the child (bits 0-4: it saw no fill, 5-9: it saw the parent's writes)");
}

/*
 * The system calls' own writes (copy_to_user, put_user) into pages the
 * child shares with its parent: a locked call (read), one without the
 * kernel lock (gettimeofday), and a read whose 64 bytes cross from one
 * such page into the next (the copy faults twice on its way, each fault
 * answered by a copy of the page). The parent's pages keep their fill.
 */
static int kernel_writes(char *pages, int fd, const char *want)
{
	struct timeval *tv = (struct timeval *)(pages + PAGE_SIZE + 64);
	struct timespec *ts = (struct timespec *)(pages + 2 * PAGE_SIZE + 64);
	unsigned int *cpu = (unsigned int *)(pages + 3 * PAGE_SIZE + 64);
	char *across = pages + 5 * PAGE_SIZE - 32;
	int bad = 0;

	bad |= (read(fd, pages + 100, 64) != 64 || memcmp(pages + 100, want, 64)) << 0;
	bad |= (gettimeofday(tv, NULL) != 0 || tv->tv_sec < 1000000000L) << 1;
	bad |= (clock_gettime(CLOCK_MONOTONIC, ts) != 0 || all_bytes((char *)ts, sizeof(*ts), FILL)) << 2;
	bad |= (getcpu(cpu, NULL, NULL) != 0 || *cpu > 64) << 3;
	bad |= (read(fd, across, 64) != 64 || memcmp(across, want, 64)) << 4;
	bad |= !all_bytes(pages + 100 + 64, 64, FILL) << 5;		/* the bytes after the read */
	return bad;
}

static int test_kernel_writes_into_shared_pages(void)
{
	char area[6 * PAGE_SIZE], *pages = page_in(area), want[64];
	int p[2], status, i;
	long pid;

	for (i = 0; i < 64; i++)
		want[i] = 'A' + i % 26;
	if (pipe(p) || write(p[1], want, 64) != 64 || write(p[1], want, 64) != 64)
		return ktap_fail("pipe failed");
	memset(pages, FILL, 5 * PAGE_SIZE);
	pid = fork();
	if (pid == 0)
		exit(kernel_writes(pages, p[0], want));
	wait4(pid, &status, 0, NULL);
	if (!all_bytes(pages, 5 * PAGE_SIZE, FILL))
		return ktap_fail("the parent's pages changed: the kernel wrote into the frame it shares");
	return expect_exit(status, 0, "the child (bits: read, gettimeofday, clock_gettime, getcpu, read across pages, bytes after)");
}

/* The same writes into pages nobody has touched yet: each gets its frame of zeros first. */
static int test_kernel_writes_into_untouched_pages(void)
{
	char *pages = map_pages(6), want[64];
	int p[2], i, bad;

	for (i = 0; i < 64; i++)
		want[i] = 'a' + i % 26;
	if (IS_ERR_VALUE(pages) || pipe(p) || write(p[1], want, 64) != 64 ||
	    write(p[1], want, 64) != 64)
		return ktap_fail("mmap or pipe failed");
	bad = kernel_writes(pages, p[0], want) & ~(1 << 5);	/* zeros after the read, no fill */
	if (!all_bytes(pages, 100, 0) || !all_bytes(pages + 164, PAGE_SIZE - 164, 0))
		return ktap_fail("the bytes around the read are not zero");
	close(p[0]);
	close(p[1]);
	munmap(pages, 6 * PAGE_SIZE);
	return bad ? ktap_fail("kernel writes failed, mask %#x (bits: read, gettimeofday, clock_gettime, "
			       "getcpu, read across pages)", bad) : 1;
}

/*
 * mprotect cannot make a page the parent still shares writable for the
 * child: the child's write after PROT_READ and back must still copy it.
 */
static int test_mprotect_keeps_the_copy_private(void)
{
	char *page = map_pages(1);
	int status;
	long pid;

	if (IS_ERR_VALUE(page))
		return ktap_fail("mmap failed");
	memset(page, FILL, PAGE_SIZE);
	pid = fork();
	if (pid == 0) {
		if (mprotect(page, PAGE_SIZE, PROT_READ) ||
		    mprotect(page, PAGE_SIZE, PROT_READ | PROT_WRITE))
			exit(2);
		memset(page, CHILD_FILL, PAGE_SIZE);
		exit(!all_bytes(page, PAGE_SIZE, CHILD_FILL));
	}
	wait4(pid, &status, 0, NULL);
	if (!all_bytes(page, PAGE_SIZE, FILL))
		return ktap_fail("the child's write after mprotect reached the parent's page");
	return expect_exit(status, 0, "the child");
}

/*
 * MADV_DONTNEED in the child: its anonymous page reads zeros again, a
 * page of the program's .data reads the program file's bytes again (as
 * Linux rereads the file), and the parent keeps what it wrote in both.
 */
static int test_madvise_dontneed_in_child(void)
{
	char *page = map_pages(1);
	int status;
	long pid;

	if (IS_ERR_VALUE(page))
		return ktap_fail("mmap failed");
	memset(page, FILL, PAGE_SIZE);
	memset(data_page, FILL, PAGE_SIZE);
	pid = fork();
	if (pid == 0) {
		if (syscall3(__NR_madvise, (long)page, PAGE_SIZE, MADV_DONTNEED) ||
		    syscall3(__NR_madvise, (long)data_page, PAGE_SIZE, MADV_DONTNEED))
			exit(4);
		exit((all_bytes(page, PAGE_SIZE, 0) ? 0 : 1) |
		     (data_page[0] != 1 || data_page[2] != 3 || !all_bytes(data_page + 3, PAGE_SIZE - 3, 0)) << 1);
	}
	wait4(pid, &status, 0, NULL);
	if (!all_bytes(page, PAGE_SIZE, FILL) || !all_bytes(data_page, PAGE_SIZE, FILL))
		return ktap_fail("the child's MADV_DONTNEED changed the parent's pages");
	return expect_exit(status, 0, "the child (1: the anonymous page, 2: the .data page, 4: madvise failed)");
}

/* ---- MemFree: ccos's own frames ---- */

#define PAGES	512

/*
 * A child that only reads the parent's 512 pages takes no frame for them;
 * once it writes them, it takes 512. The fork itself takes the child's
 * kernel stack (4 frames), page tables and the few pages it writes on its
 * way (its stack): under 64 pages. Before copy on write, fork took all 512
 * at once.
 */
static int test_fork_copies_no_page_until_written(void)
{
	char *pages = map_pages(PAGES);
	long before, read_only, written, pid, sum = 0, i;
	int p[2], status;

	if (!on_ccos())
		return skip("MemFree on Linux moves with everything else the host does");
	if (IS_ERR_VALUE(pages) || pipe(p))
		return ktap_fail("mmap or pipe failed");
	memset(pages, FILL, PAGES * PAGE_SIZE);
	own_memory();
	before = meminfo_kb("MemFree");
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < PAGES; i++)
			sum += pages[i * PAGE_SIZE];
		read_only = meminfo_kb("MemFree");
		memset(pages, CHILD_FILL, PAGES * PAGE_SIZE);
		written = meminfo_kb("MemFree");
		write(p[1], &read_only, sizeof(read_only));
		write(p[1], &written, sizeof(written));
		exit(sum != PAGES * FILL);
	}
	if (read(p[0], &read_only, sizeof(read_only)) != sizeof(read_only) ||
	    read(p[0], &written, sizeof(written)) != sizeof(written))
		return ktap_fail("the child reported nothing");
	wait4(pid, &status, 0, NULL);
	ktap_diag("MemFree %ld kB; the child read %d pages: %ld kB; wrote them: %ld kB", before,
		  PAGES, read_only, written);
	if (before - read_only >= 64 * 4)
		return ktap_fail("fork and reading took %ld kB: pages were copied", before - read_only);
	if (read_only - written < (PAGES - 8) * 4)
		return ktap_fail("writing %d pages took only %ld kB", PAGES, read_only - written);
	return expect_exit(status, 0, "the child");
}

/*
 * Fresh memory takes no frame until touched: 4 MiB mapped costs no page
 * of MemFree (the area is a block of the heap), touched 4 MiB, unmapped
 * none but page tables: they go too, but for those that an area beside
 * it still spans (a PT at either end, a PD), which stay for that area.
 */
static int test_memory_taken_at_first_touch(void)
{
	long before, mapped, touched, unmapped, i;
	char *pages;

	if (!on_ccos())
		return skip("MemFree on Linux moves with everything else the host does");
	own_memory();
	before = meminfo_kb("MemFree");
	pages = map_pages(1024);
	if (IS_ERR_VALUE(pages))
		return ktap_fail("mmap failed");
	mapped = meminfo_kb("MemFree");
	for (i = 0; i < 1024; i++)
		if (pages[i * PAGE_SIZE + 7])
			return ktap_fail("page %ld of fresh memory is not zero", i);
	for (i = 0; i < 1024; i++)
		pages[i * PAGE_SIZE] = 1;
	touched = meminfo_kb("MemFree");
	munmap(pages, 1024 * PAGE_SIZE);
	unmapped = meminfo_kb("MemFree");
	ktap_diag("MemFree %ld kB; 4 MiB mapped: %ld kB; touched: %ld kB; unmapped: %ld kB", before,
		  mapped, touched, unmapped);
	if (before - mapped > 16)
		return ktap_fail("mmap of 4 MiB took %ld kB before any touch", before - mapped);
	if (mapped - touched < 4096)
		return ktap_fail("touching 4 MiB took only %ld kB", mapped - touched);
	if (before - unmapped > 3 * 4)
		return ktap_fail("munmap gave back all but %ld kB", before - unmapped);
	return 1;
}

static const struct test tests[] = {
	{ "each_side_of_fork_its_own_copy", test_each_side_its_own_copy },
	{ "kernel_writes_into_pages_fork_shares", test_kernel_writes_into_shared_pages },
	{ "kernel_writes_into_untouched_pages", test_kernel_writes_into_untouched_pages },
	{ "mprotect_keeps_the_copy_private", test_mprotect_keeps_the_copy_private },
	{ "madvise_dontneed_in_child", test_madvise_dontneed_in_child },
	{ "fork_copies_no_page_until_written", test_fork_copies_no_page_until_written },
	{ "memory_taken_at_first_touch", test_memory_taken_at_first_touch },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
