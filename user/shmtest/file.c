/* shmtest: mmap of a /tmp file: one set of bytes for its mappings, read and write, across fork and processes. */
#include "shmtest.h"

/*
 * On Linux /tmp is tmpfs, whose files are shmem: MAP_SHARED maps the
 * file's own pages, so a store through any mapping is what read() reads
 * and a write() is what every mapping sees; a shared futex there is keyed
 * by the file's page; a shrink makes the pages past the end SIGBUS; an
 * unlinked file lives while mapped. MAP_PRIVATE maps the same pages copy
 * on write. Each case makes its file in the program's folder in /tmp.
 */

#define ENODEV		19
#define MS_ASYNC	1
#define MS_SYNC		4

static long pread(int fd, void *buf, size_t len, long off)
{
	return syscall4(__NR_pread64, fd, (long)buf, len, off);
}

static long pwrite(int fd, const void *buf, size_t len, long off)
{
	return syscall4(__NR_pwrite64, fd, (long)buf, len, off);
}

/* A new file name of len bytes (zeros), open O_RDWR; < 0 with the case failed. */
static long new_file(const char *name, long len)
{
	long fd = open(in_dir(name), O_RDWR | O_CREAT, 0600);

	if (fd < 0)
		return ktap_fail("open(%s) returned %ld", in_dir(name), fd), -1;
	if (syscall2(__NR_ftruncate, fd, len))
		return ktap_fail("ftruncate(%ld) failed", len), -1;
	return fd;
}

static char *map_file(long fd, int pages, int prot, int flags)
{
	return mmap(NULL, pages * PAGE_SIZE, prot, flags, fd, 0);
}

/*
 * Stores through the mapping are read() and pread(); write() and pwrite()
 * show through it; a child's store through the mapping fork gave it, and
 * through a second mapping of its own, reach the parent; msync is accepted.
 */
int test_file_mapping_shares_read_and_write(void)
{
	long fd = new_file("shared", 2 * PAGE_SIZE), pid;
	char *m, buf[4] = { 0 };
	int bad;

	if (fd < 0)
		return 0;
	m = map_file(fd, 2, PROT_READ | PROT_WRITE, MAP_SHARED);
	if (IS_ERR_VALUE(m))
		return ktap_fail("mmap(MAP_SHARED) of a /tmp file returned %ld", (long)m);
	memcpy(m + 100, "map", 3);
	if (pread(fd, buf, 3, 100) != 3 || memcmp(buf, "map", 3))
		return ktap_fail("pread does not read the store through the mapping: '%.3s'", buf);
	if (pwrite(fd, "pw", 2, PAGE_SIZE + 7) != 2 || m[PAGE_SIZE + 7] != 'p')
		return ktap_fail("the mapping does not see pwrite's bytes");
	if (lseek(fd, 200, 0) != 200 || write(fd, "wr", 2) != 2 || m[201] != 'r')
		return ktap_fail("the mapping does not see write's bytes");
	pid = fork();
	if (pid == 0) {
		char *own = map_file(fd, 1, PROT_READ | PROT_WRITE, MAP_SHARED);

		bad = IS_ERR_VALUE(own) || own[100] != 'm';
		m[300] = 'c';
		if (!bad)
			own[301] = 'd';
		exit(bad);
	}
	if (child_result(pid) != 0)
		return ktap_fail("the child's own mapping does not see the file's bytes");
	if (pread(fd, buf, 2, 300) != 2 || memcmp(buf, "cd", 2))
		return ktap_fail("the child's stores are not in the file: '%.2s'", buf);
	if (!expect(syscall3(__NR_msync, (long)m, 2 * PAGE_SIZE, MS_SYNC), 0, "msync(MS_SYNC)") ||
	    !expect(syscall3(__NR_msync, (long)m, PAGE_SIZE, MS_ASYNC | MS_SYNC), -EINVAL,
		    "msync(MS_ASYNC | MS_SYNC)"))
		return 0;
	munmap(m, 2 * PAGE_SIZE);
	close(fd);
	return expect(syscall1(__NR_unlink, (long)in_dir("shared")), 0, "unlink");
}

/*
 * A shared futex in a mapped file is keyed by the file's page: a child
 * that opened and mapped the file itself waits, the parent wakes it
 * through its own mapping at another address (Linux's futex_wait
 * selftest's file-backed case).
 */
int test_file_futex_keys_on_the_file(void)
{
	long fd = new_file("futex", PAGE_SIZE), pid, woken = 0;
	volatile int *ready, *word;
	char *m;
	int i;

	if (fd < 0)
		return 0;
	m = map_file(fd, 1, PROT_READ | PROT_WRITE, MAP_SHARED);
	if (IS_ERR_VALUE(m))
		return ktap_fail("mmap returned %ld", (long)m);
	ready = (volatile int *)m;
	word = (volatile int *)(m + 256);
	pid = fork();
	if (pid == 0) {
		long own_fd = open(in_dir("futex"), O_RDWR, 0);
		char *own = map_file(own_fd, 1, PROT_READ | PROT_WRITE, MAP_SHARED);

		munmap(m, PAGE_SIZE);
		if (own_fd < 0 || IS_ERR_VALUE(own))
			exit(2);
		*(volatile int *)own = 1;
		exit(futex((volatile int *)(own + 256), FUTEX_WAIT, 0, 0, NULL, 0) != 0);
	}
	while (!*ready)
		sched_yield();
	if (state_of(pid, 'S') != 'S')
		return ktap_fail("the child never slept");
	for (i = 0; i < 1000 && !woken; i++)
		woken = futex(word, FUTEX_WAKE, 1, 0, NULL, 0);
	if (woken != 1)
		return ktap_fail("the wake through another mapping of the file woke %ld", woken);
	if (!expect(child_result(pid), 0, "the child (2: its mmap, 1: FUTEX_WAIT)"))
		return 0;
	close(fd);
	return expect(syscall1(__NR_unlink, (long)in_dir("futex")), 0, "unlink");
}

/*
 * ftruncate shrinking a mapped file: a touch of a page past the new end
 * is SIGBUS, even of a page mapped before; the end page's bytes past the
 * size read zero. Grown again, the page is new: zeros, not the old bytes.
 */
int test_file_truncate_under_a_mapping(void)
{
	long fd = new_file("truncated", 2 * PAGE_SIZE), pid;
	int status;
	char *m;

	if (fd < 0)
		return 0;
	m = map_file(fd, 2, PROT_READ | PROT_WRITE, MAP_SHARED);
	if (IS_ERR_VALUE(m))
		return ktap_fail("mmap returned %ld", (long)m);
	memset(m, 0x5a, 2 * PAGE_SIZE);
	if (syscall2(__NR_ftruncate, fd, 100))
		return ktap_fail("ftruncate(100) failed");
	pid = fork();
	if (pid == 0)
		exit(write_first_byte(m + PAGE_SIZE));
	wait4(pid, &status, 0, NULL);
	if (!expect_signal(status, SIGBUS, "a write to a page past the shrunk file's end"))
		return 0;
	if (m[99] != 0x5a || !all_bytes(m + 100, PAGE_SIZE - 100, 0))
		return ktap_fail("the last page holds %#x at 99, %#x at 100: want 0x5a, then zeros",
				 m[99], m[100]);
	if (syscall2(__NR_ftruncate, fd, 2 * PAGE_SIZE) || !all_bytes(m + PAGE_SIZE, PAGE_SIZE, 0))
		return ktap_fail("the page the file grew again is not zeros");
	munmap(m, 2 * PAGE_SIZE);
	close(fd);
	return expect(syscall1(__NR_unlink, (long)in_dir("truncated")), 0, "unlink");
}

/* "%02x:%02x %lu" of a stat, as /proc/PID/maps prints a file's device and inode. */
static void dev_ino(const struct stat *st, char *buf, size_t size)
{
	snprintf(buf, size, "%02lx:%02lx %lu ", (st->st_dev >> 8) & 0xfff,
		 (st->st_dev & 0xff) | ((st->st_dev >> 12) & 0xfff00), st->st_ino);
}

/* The line of /proc/self/maps that starts at addr, into line; 0 if there is none. */
static int maps_line_at(void *addr, char *line, size_t size)
{
	static char maps[16384];
	char start[32];
	long n = slurp("/proc/self/maps", maps, sizeof(maps)), i, j;

	snprintf(start, sizeof(start), "%lx-", (unsigned long)addr);
	for (i = 0; i < n; i = j + 1) {
		for (j = i; j < n && maps[j] != '\n'; j++)
			;
		if (!memcmp(maps + i, start, strlen(start)) && (size_t)(j - i) < size) {
			memcpy(line, maps + i, j - i);
			line[j - i] = 0;
			return 1;
		}
	}
	return 0;
}

static int contains(const char *s, const char *part)
{
	size_t n = strlen(part);

	for (; *s; s++)
		if (!memcmp(s, part, n))
			return 1;
	return 0;
}

static int ends_with(const char *s, const char *end)
{
	size_t a = strlen(s), b = strlen(end);

	return a >= b && !strcmp(s + a - b, end);
}

/*
 * Unlinked and closed, a mapped file lives on: its bytes stay, a child
 * sees them; /proc/self/maps names it by path, device and inode, with
 * " (deleted)" after the unlink.
 */
int test_file_unlinked_while_mapped(void)
{
	long fd = new_file("unlinked", PAGE_SIZE), pid;
	char line[256], want[300], ids[64];
	struct stat st;
	char *m;

	if (fd < 0)
		return 0;
	m = map_file(fd, 1, PROT_READ | PROT_WRITE, MAP_SHARED);
	if (IS_ERR_VALUE(m))
		return ktap_fail("mmap returned %ld", (long)m);
	fstat(fd, &st);
	dev_ino(&st, ids, sizeof(ids));
	snprintf(want, sizeof(want), " %s", in_dir("unlinked"));
	if (!maps_line_at(m, line, sizeof(line)) || !ends_with(line, want) ||
	    !contains(line, " rw-s 00000000 ") || !contains(line, ids))
		return ktap_fail("maps says '%s': want rw-s, %s and%s", line, ids, want);
	m[10] = 0x77;
	close(fd);
	if (syscall1(__NR_unlink, (long)in_dir("unlinked")))
		return ktap_fail("unlink failed");
	snprintf(want, sizeof(want), " %s (deleted)", in_dir("unlinked"));
	if (!maps_line_at(m, line, sizeof(line)) || !ends_with(line, want))
		return ktap_fail("maps says '%s' after the unlink: want%s", line, want);
	pid = fork();
	if (pid == 0) {
		m[11] = 0x78;
		exit(m[10] != 0x77);
	}
	if (child_result(pid) != 0 || m[11] != 0x78)
		return ktap_fail("the unlinked file's bytes are not one page for parent and child");
	return munmap(m, PAGE_SIZE) == 0;
}

/*
 * MAP_PRIVATE maps the file's pages copy on write: the file's bytes, and
 * a pwrite to a page it never wrote; its own stores stay its own (read()
 * does not see them, nor does the parent see a child's).
 */
int test_file_private_mapping_copies(void)
{
	long fd = new_file("private", 2 * PAGE_SIZE), pid;
	char *p, buf[2] = { 0 };

	if (fd < 0)
		return 0;
	if (pwrite(fd, "ab", 2, 0) != 2)
		return ktap_fail("pwrite failed");
	p = map_file(fd, 2, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	if (IS_ERR_VALUE(p))
		return ktap_fail("mmap(MAP_PRIVATE) of a /tmp file returned %ld", (long)p);
	if (p[0] != 'a' || p[1] != 'b')
		return ktap_fail("the private mapping does not hold the file's bytes");
	p[0] = 'X';
	if (pread(fd, buf, 1, 0) != 1 || buf[0] != 'a')
		return ktap_fail("a private store reached the file: '%c'", buf[0]);
	if (pwrite(fd, "q", 1, PAGE_SIZE + 5) != 1 || p[PAGE_SIZE + 5] != 'q')
		return ktap_fail("the private mapping does not see pwrite on a page it never wrote");
	pid = fork();
	if (pid == 0) {
		p[1] = 'Y';
		exit(p[0] != 'X');
	}
	if (child_result(pid) != 0 || p[1] != 'b')
		return ktap_fail("the child's private page is not its own copy");
	munmap(p, 2 * PAGE_SIZE);
	close(fd);
	return expect(syscall1(__NR_unlink, (long)in_dir("private")), 0, "unlink");
}

/*
 * As Linux: mapping needs the file open for reading, and a shared
 * writable mapping for writing too (EACCES), which mprotect cannot add
 * later; a directory has no pages to map (ENODEV).
 */
int test_file_mapping_checks_the_open_mode(void)
{
	long rw = new_file("modes", PAGE_SIZE), ro, wo, dir;
	char *m;
	int ok;

	if (rw < 0)
		return 0;
	ro = open(in_dir("modes"), O_RDONLY, 0);
	wo = open(in_dir("modes"), O_WRONLY, 0);
	dir = open(test_dir, O_RDONLY | O_DIRECTORY, 0);
	if (ro < 0 || wo < 0 || dir < 0)
		return ktap_fail("open failed");
	ok = expect((long)map_file(wo, 1, PROT_READ, MAP_SHARED), -EACCES, "mmap of an O_WRONLY file") &&
	     expect((long)map_file(ro, 1, PROT_READ | PROT_WRITE, MAP_SHARED), -EACCES,
		    "a shared writable mmap of an O_RDONLY file") &&
	     expect((long)map_file(dir, 1, PROT_READ, MAP_SHARED), -ENODEV, "mmap of a directory");
	if (!ok)
		return 0;
	m = map_file(ro, 1, PROT_READ, MAP_SHARED);
	if (IS_ERR_VALUE(m))
		return ktap_fail("a shared read-only mmap of an O_RDONLY file returned %ld", (long)m);
	if (!expect(mprotect(m, PAGE_SIZE, PROT_READ | PROT_WRITE), -EACCES, "mprotect adding PROT_WRITE"))
		return 0;
	m = map_file(ro, 1, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	if (IS_ERR_VALUE(m))
		return ktap_fail("a private writable mmap of an O_RDONLY file returned %ld", (long)m);
	m[0] = 1;
	close(ro), close(wo), close(dir), close(rw);
	return expect(syscall1(__NR_unlink, (long)in_dir("modes")), 0, "unlink");
}
