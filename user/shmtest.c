/* shmtest: MAP_SHARED anonymous memory and /tmp files (shmtest/file.c) across fork, shared futexes on them, and how /proc shows them (KTAP). */
#include "shmtest/shmtest.h"

/*
 * Private memory is each side's own after fork (cowtest); shared memory
 * (MAP_SHARED | MAP_ANONYMOUS) is one set of pages that every mapping of
 * it sees, before and after fork, whoever touches a page first
 * (docs/memory.md). munmap, mprotect, mremap, MADV_DONTNEED and exit in
 * one process leave the pages to the others. A futex without
 * FUTEX_PRIVATE_FLAG on such a page is one futex for every process that
 * maps it, at any address. A file of /tmp is such memory too: its
 * mappings, read and write see one set of bytes (shmtest/file.c). Every
 * case holds on Linux too
 * (tools/tests/test_host.py) but the MemFree one, which is ccos's own.
 */

#define MAP_SHARED_ANON	(MAP_SHARED | MAP_ANONYMOUS)
#define MADV_DONTNEED	4
#define MREMAP_MAYMOVE	1
#define MREMAP_FIXED	2

static char *map_shared(int pages, int prot)
{
	return mmap(NULL, pages * PAGE_SIZE, prot, MAP_SHARED_ANON, -1, 0);
}

long futex(volatile int *word, int op, int val, long val2, volatile int *word2, int val3)
{
	return syscall6(__NR_futex, (long)word, op, val, val2, (long)word2, val3);
}

static long mremap(void *old, size_t old_len, size_t new_len, int flags, void *new)
{
	return syscall5(__NR_mremap, (long)old, old_len, new_len, flags, (long)new);
}

/* Wait for the child; its exit code (0 passed, else a mask of what it found wrong), or -1 if a signal ended it. */
int child_result(long pid)
{
	int status;

	if (wait4(pid, &status, 0, NULL) != pid)
		return -1;
	return (status & 0x7f) ? -1 : (status >> 8) & 0xff;
}

/*
 * Page 0 written before fork, page 1 first touched by the child after it,
 * page 2 by the parent while the child waits: each side sees the other's
 * bytes, and a page touched first by either is one page for both.
 */
static int test_pages_shared_across_fork(void)
{
	char *m = map_shared(3, PROT_READ | PROT_WRITE);
	volatile int *step;
	long pid;
	int bad;

	if (IS_ERR_VALUE(m))
		return ktap_fail("mmap(MAP_SHARED | MAP_ANONYMOUS) returned %ld", (long)m);
	step = (volatile int *)(m + 2 * PAGE_SIZE + 64);
	if (!all_bytes(m, 2 * PAGE_SIZE, 0))
		return ktap_fail("a new shared page is not zero");
	memset(m, 0x11, PAGE_SIZE);
	pid = fork();
	if (pid == 0) {
		bad = !all_bytes(m, PAGE_SIZE, 0x11);
		memset(m + PAGE_SIZE, 0x22, PAGE_SIZE);
		*step = 1;
		while (*step != 2)
			sched_yield();
		bad |= (m[2 * PAGE_SIZE] != 0x33) << 1;
		exit(bad);
	}
	while (*step != 1)
		sched_yield();
	m[2 * PAGE_SIZE] = 0x33;
	*step = 2;
	bad = child_result(pid);
	if (bad)
		return ktap_fail("the child found %d (1: the parent's page before fork, 2: its write after)", bad);
	if (!all_bytes(m + PAGE_SIZE, PAGE_SIZE, 0x22))
		return ktap_fail("the parent does not see the page the child touched first");
	return munmap(m, 3 * PAGE_SIZE) == 0;
}

/* One side's munmap, mprotect and MADV_DONTNEED change its own mapping only; the pages stay. */
static int test_unmap_protect_dontneed_leave_the_pages(void)
{
	char *m = map_shared(3, PROT_READ | PROT_WRITE);
	long pid;
	int bad;

	if (IS_ERR_VALUE(m))
		return ktap_fail("mmap returned %ld", (long)m);
	memset(m, 0x44, 3 * PAGE_SIZE);
	pid = fork();
	if (pid == 0) {
		bad = syscall3(__NR_madvise, (long)m, 3 * PAGE_SIZE, MADV_DONTNEED) != 0;
		bad |= !all_bytes(m, 3 * PAGE_SIZE, 0x44) << 1;	/* the pages, not zeros */
		bad |= (mprotect(m, PAGE_SIZE, PROT_READ) != 0) << 2;
		bad |= (mprotect(m, PAGE_SIZE, PROT_READ | PROT_WRITE) != 0) << 2;
		m[0] = 0x55;					/* the same page after mprotect, no copy */
		bad |= (munmap(m + PAGE_SIZE, PAGE_SIZE) != 0) << 3;
		m[2 * PAGE_SIZE] = 0x66;
		exit(bad);
	}
	bad = child_result(pid);
	if (bad)
		return ktap_fail("the child found %d (1: madvise, 2: its pages after MADV_DONTNEED, 4: mprotect, 8: munmap)", bad);
	if (m[0] != 0x55 || m[2 * PAGE_SIZE] != 0x66 || !all_bytes(m + PAGE_SIZE, PAGE_SIZE, 0x44))
		return ktap_fail("the parent sees %#x %#x %#x, wants 0x55 0x44 0x66", m[0],
				 m[PAGE_SIZE], m[2 * PAGE_SIZE]);
	return munmap(m, 3 * PAGE_SIZE) == 0;
}

int write_first_byte(void *m)
{
	*(volatile char *)m = 1;
	return 0;
}

/* PROT_READ faults on a write (SIGSEGV) in the process that asked, not in the other. */
static int test_mprotect_readonly_is_one_sides(void)
{
	char *m = map_shared(1, PROT_READ | PROT_WRITE);
	int status;
	long pid;

	if (IS_ERR_VALUE(m))
		return ktap_fail("mmap returned %ld", (long)m);
	pid = fork();
	if (pid == 0) {
		mprotect(m, PAGE_SIZE, PROT_READ);
		exit(write_first_byte(m));
	}
	wait4(pid, &status, 0, NULL);
	if (!expect_signal(status, SIGSEGV, "the child's write to its read-only mapping"))
		return 0;
	m[1] = 2;
	return expect(m[0] + m[1], 2, "the parent's write next to it (the child wrote nothing)");
}

/*
 * mremap moves the mapping with its pages: the child writes at the old
 * address, the parent reads at the new one. Growing it maps pages past
 * the end of the object mmap made: touching one is SIGBUS, as on Linux.
 */
static int test_mremap_moves_and_grows_past_the_end(void)
{
	char *m = map_shared(2, PROT_READ | PROT_WRITE), *to = map_shared(4, PROT_NONE), *n;
	int status;
	long pid;

	if (IS_ERR_VALUE(m) || IS_ERR_VALUE(to))
		return ktap_fail("mmap failed");
	m[0] = 7;
	pid = fork();
	if (pid == 0) {
		while (m[0] != 8)
			sched_yield();
		m[PAGE_SIZE] = 9;
		exit(0);
	}
	n = (char *)mremap(m, 2 * PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (n != to)
		return ktap_fail("mremap returned %p, wanted %p", n, to);
	if (n[0] != 7)
		return ktap_fail("the moved page holds %d, not 7", n[0]);
	n[0] = 8;
	if (child_result(pid) != 0 || n[PAGE_SIZE] != 9)
		return ktap_fail("the child's write at the old address is not at the new one");
	if (munmap(n + 2 * PAGE_SIZE, 2 * PAGE_SIZE) ||
	    mremap(n, 2 * PAGE_SIZE, 4 * PAGE_SIZE, 0, NULL) != (long)n)
		return ktap_fail("mremap could not grow the area in place");
	pid = fork();
	if (pid == 0)
		exit(write_first_byte(n + 3 * PAGE_SIZE));
	wait4(pid, &status, 0, NULL);
	return expect_signal(status, SIGBUS, "a write past the object's end");
}

/*
 * A child waits on a shared futex in shared memory; a private wake there
 * wakes nobody (another key); the parent's shared wake, through a second
 * mapping of the same page at another address (mremap), wakes it.
 */
static int test_shared_futex_between_processes(void)
{
	char *m = map_shared(1, PROT_READ | PROT_WRITE), *to = map_shared(1, PROT_NONE);
	volatile int *word = (volatile int *)(m + 128), *ready = (volatile int *)m;
	long pid, woken = 0;
	int i;

	if (IS_ERR_VALUE(m) || IS_ERR_VALUE(to))
		return ktap_fail("mmap failed");
	pid = fork();
	if (pid == 0) {
		*ready = 1;
		exit(futex(word, FUTEX_WAIT, 0, 0, NULL, 0) != 0);
	}
	while (!*ready)
		sched_yield();
	if (state_of(pid, 'S') != 'S')
		return ktap_fail("the child never slept");
	if ((woken = futex(word, FUTEX_WAKE | FUTEX_PRIVATE, 1, 0, NULL, 0)) != 0)
		return ktap_fail("a private wake woke %ld: it must not see another process's waiter", woken);
	if (mremap(m, PAGE_SIZE, PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, to) != (long)to)
		return ktap_fail("mremap failed");
	word = (volatile int *)(to + 128);
	for (i = 0; i < 1000 && !woken; i++)
		woken = futex(word, FUTEX_WAKE, 1, 0, NULL, 0);
	if (woken != 1)
		return ktap_fail("the shared wake woke %ld, not the child", woken);
	return expect(child_result(pid), 0, "the child's FUTEX_WAIT");
}

/* FUTEX_CMP_REQUEUE and futex_waitv between processes use the same keys. */
static int test_shared_requeue_and_waitv(void)
{
	char *m = map_shared(1, PROT_READ | PROT_WRITE);
	volatile int *a = (volatile int *)(m + 64), *b = (volatile int *)(m + 128);
	volatile int *ready = (volatile int *)m;
	struct { unsigned long val, uaddr; unsigned int flags, reserved; } waitv = { 0, (long)b, FUTEX2_SIZE_U32, 0 };
	long pid, moved = 0, woken = 0;
	int i;

	if (IS_ERR_VALUE(m))
		return ktap_fail("mmap failed");
	pid = fork();
	if (pid == 0) {
		*ready = 1;
		if (futex(a, FUTEX_WAIT, 0, 0, NULL, 0) != 0)
			exit(1);
		*ready = 2;
		exit(syscall5(__NR_futex_waitv, (long)&waitv, 1, 0, 0, 0) != 0 ? 2 : 0);
	}
	while (*ready != 1)
		sched_yield();
	state_of(pid, 'S');
	for (i = 0; i < 1000 && !moved; i++)
		moved = futex(a, FUTEX_CMP_REQUEUE, 0, 1, b, 0);
	if (moved != 1)
		return ktap_fail("FUTEX_CMP_REQUEUE moved %ld waiters, not the child's", moved);
	if (futex(a, FUTEX_WAKE, 1, 0, NULL, 0) != 0)
		return ktap_fail("the waiter is still on the first word");
	for (i = 0; i < 1000 && !woken; i++)
		woken = futex(b, FUTEX_WAKE, 1, 0, NULL, 0);
	if (woken != 1)
		return ktap_fail("the wake on the second word woke %ld", woken);
	while (*ready != 2)
		sched_yield();
	state_of(pid, 'S');
	for (woken = 0, i = 0; i < 1000 && !woken; i++)
		woken = futex(b, FUTEX_WAKE, 1, 0, NULL, 0);
	if (woken != 1)
		return ktap_fail("the wake of the child's futex_waitv woke %ld", woken);
	return expect(child_result(pid), 0, "the child (1: FUTEX_WAIT after requeue, 2: futex_waitv)");
}

/* ccos's own: the pages go back when the last mapping of them goes, not before. */
static int test_pages_freed_with_the_last_mapping(void)
{
	long before, shared, after;
	char *m;
	long pid;

	if (!on_ccos())
		return skip("MemFree on Linux moves with everything else the host does");
	own_memory();
	before = meminfo_kb("MemFree");
	m = map_shared(256, PROT_READ | PROT_WRITE);
	if (IS_ERR_VALUE(m))
		return ktap_fail("mmap failed");
	memset(m, 1, 256 * PAGE_SIZE);
	pid = fork();
	if (pid == 0) {
		munmap(m, 256 * PAGE_SIZE);	/* not the last: nothing freed */
		exit(0);
	}
	child_result(pid);
	shared = meminfo_kb("MemFree");
	munmap(m, 256 * PAGE_SIZE);
	after = meminfo_kb("MemFree");
	ktap_diag("MemFree %ld kB; 1 MiB shared, touched, the child gone: %ld kB; unmapped: %ld kB",
		  before, shared, after);
	if (before - shared < 1024)
		return ktap_fail("1 MiB of shared pages took only %ld kB", before - shared);
	if (before - after > 3 * 4)
		return ktap_fail("the last munmap gave back all but %ld kB", before - after);
	return 1;
}

static const struct test tests[] = {
	{ "pages_shared_across_fork", test_pages_shared_across_fork },
	{ "unmap_protect_dontneed_leave_the_pages", test_unmap_protect_dontneed_leave_the_pages },
	{ "mprotect_readonly_is_one_sides", test_mprotect_readonly_is_one_sides },
	{ "mremap_moves_and_grows_past_the_end", test_mremap_moves_and_grows_past_the_end },
	{ "shared_futex_between_processes", test_shared_futex_between_processes },
	{ "shared_requeue_and_waitv", test_shared_requeue_and_waitv },
	{ "pages_freed_with_the_last_mapping", test_pages_freed_with_the_last_mapping },
	{ "file_mapping_shares_read_and_write", test_file_mapping_shares_read_and_write },
	{ "file_futex_keys_on_the_file", test_file_futex_keys_on_the_file },
	{ "file_truncate_under_a_mapping", test_file_truncate_under_a_mapping },
	{ "file_unlinked_while_mapped", test_file_unlinked_while_mapped },
	{ "file_private_mapping_copies", test_file_private_mapping_copies },
	{ "file_mapping_checks_the_open_mode", test_file_mapping_checks_the_open_mode },
};

int main(int argc, char **argv, char **envp)
{
	int failed;

	(void)argc, (void)argv, (void)envp;
	snprintf(test_dir, sizeof(test_dir), "/tmp/shmtest.%ld", getpid());
	if (syscall2(__NR_mkdir, (long)test_dir, 0755) < 0) {
		printf("shmtest: cannot make %s\n", test_dir);
		return 1;
	}
	failed = run_tests(tests, ARRAY_SIZE(tests));
	syscall1(__NR_rmdir, (long)test_dir);
	return failed;
}
