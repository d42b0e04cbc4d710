/* sysfile: open, read, lseek, fstat, readv, writev, pread and pwrite, ioctl, process_vm_readv and _writev, and their errors, as on Linux. */
#include "testutil.h"

#define L(x)			((long)(x))

/* ---- errors every kernel must get right ---- */

static int test_bad_fd(void)
{
	char c;

	return expect(write(-1, "x", 1), -EBADF, "write(-1)") &&
	       expect(write(999, "x", 1), -EBADF, "write(999)") &&
	       expect(read(999, &c, 1), -EBADF, "read(999)") &&
	       expect(close(999), -EBADF, "close(999)");
}

/* ---- files ---- */

static int test_open_missing(void)
{
	return expect(open("/no/such/file", O_RDONLY, 0), -ENOENT,
		      "open(missing)") &&
	       expect(openat(AT_FDCWD, "/no/such/file", O_RDONLY, 0), -ENOENT,
		      "openat(missing)") &&
	       expect(open(NULL, O_RDONLY, 0), -EFAULT, "open(NULL)");
}

/* Reads this program's own ELF file. */
static int test_file_io(void)
{
	char magic[4], a[2], b[2];
	struct iovec iov[] = { { a, 2 }, { b, 2 } };
	struct stat st;
	long fd, size;

	fd = openat(AT_FDCWD, self, O_RDONLY, 0);
	if (fd < 0)
		return ktap_fail("openat(%s) returned %ld", self, fd);
	if (!expect(read(fd, magic, 4), 4, "read") ||
	    memcmp(magic, "\177ELF", 4))
		return ktap_fail("%s does not start with \\177ELF", self);
	if (!expect(fstat(fd, &st), 0, "fstat"))
		return 0;
	if (!S_ISREG(st.st_mode) || st.st_size < 4096)
		return ktap_fail("fstat: mode %#x size %ld", st.st_mode,
				 st.st_size);
	size = lseek(fd, 0, SEEK_END);
	if (!expect(size, st.st_size, "lseek(SEEK_END)") ||
	    !expect(lseek(fd, 0, SEEK_SET), 0, "lseek(SEEK_SET)") ||
	    !expect(readv(fd, iov, 2), 4, "readv") ||
	    !expect(lseek(fd, 0, SEEK_CUR), 4, "lseek(SEEK_CUR)") ||
	    !expect(lseek(fd, 0, 99), -EINVAL, "lseek(whence 99)") ||
	    !expect(read(fd, magic, 4) >= 0, 1, "read at 4"))
		return 0;
	if (memcmp(a, "\177E", 2) || memcmp(b, "LF", 2))
		return ktap_fail("readv read the wrong bytes");
	if (!expect(lseek(fd, size, SEEK_SET), size, "lseek(end)") ||
	    !expect(read(fd, magic, 4), 0, "read at end of file"))
		return 0;
	return expect(close(fd), 0, "close") &&
	       expect(close(fd), -EBADF, "close again");
}

static int test_writev_stdout(void)
{
	static const char p1[] = "# writev: ", p2[] = "three ",
			  p3[] = "pieces\n";
	struct iovec iov[] = {
		{ (void *)p1, sizeof(p1) - 1 },
		{ (void *)p2, sizeof(p2) - 1 },
		{ (void *)p3, sizeof(p3) - 1 },
	};

	return expect(writev(1, iov, 3), sizeof(p1) + sizeof(p2) +
		      sizeof(p3) - 3, "writev(1)");
}

static int test_ioctl(void)
{
	long r = ioctl(1, 0x12345678, 0);

	if (r != -ENOTTY && r != -EINVAL)
		return ktap_fail("ioctl(1, unknown) returned %ld", r);
	return expect(ioctl(999, 0x5401, 0), -EBADF, "ioctl(999)");
}

static int test_process_vm_readv(void)
{
	static const char src[] = "process_vm_readv";
	char dst[sizeof(src)] = { 0 };
	struct iovec local = { dst, sizeof(dst) };
	struct iovec remote = { (void *)src, sizeof(src) };
	struct iovec bad = { (void *)KERNEL_ADDR, 8 };

	if (!expect(process_vm_readv(getpid(), &local, 1, &remote, 1, 0),
		    sizeof(src), "process_vm_readv"))
		return 0;
	if (memcmp(dst, src, sizeof(src)))
		return ktap_fail("read \"%s\"", dst);
	return expect(process_vm_readv(getpid(), &local, 1, &bad, 1, 0),
		      -EFAULT, "process_vm_readv(kernel address)");
}

/*
 * As Linux: the bytes before the first page that cannot be read, however
 * long the remote range (the local one must lie in user space: Linux
 * checks it whole, and a stack buffer plus 64 TiB does not).
 */
static int test_process_vm_readv_partial(void)
{
	char *p = map_pages(2), buf[300];
	struct iovec local = { buf, sizeof(buf) }, remote = { p + PAGE_SIZE - 100, 300 };
	struct iovec huge_remote = { p + PAGE_SIZE - 100, 1UL << 46 };

	memset(p + PAGE_SIZE - 100, 'x', 100);
	munmap(p + PAGE_SIZE, PAGE_SIZE);
	if (!expect(process_vm_readv(getpid(), &local, 1, &remote, 1, 0), 100,
		    "process_vm_readv of 100 readable bytes then a hole") ||
	    !expect(process_vm_readv(getpid(), &local, 1, &huge_remote, 1, 0), 100,
		    "process_vm_readv of 100 readable bytes then 64 TiB"))
		return 0;
	if (buf[0] != 'x' || buf[99] != 'x')
		return ktap_fail("read %#x ... %#x, expected 'x'", buf[0], buf[99]);
	return expect(munmap(p, PAGE_SIZE), 0, "munmap");
}

/* ---- positioned reads and writes ---- */

static long pread(long fd, void *buf, long n, long pos)
{
	return syscall4(__NR_pread64, fd, L(buf), n, pos);
}

static long pwrite(long fd, const void *buf, long n, long pos)
{
	return syscall4(__NR_pwrite64, fd, L(buf), n, pos);
}

/* A new file of /tmp with these bytes, its offset left at 3; unlinked (the descriptor keeps it). */
static long scratch_file(const char *bytes, int flags)
{
	char name[64];
	long fd;

	snprintf(name, sizeof(name), "/tmp/sysfile.%ld", getpid());
	fd = open(name, O_RDWR | O_CREAT | O_TRUNC | flags, 0600);
	if (fd >= 0) {
		syscall1(__NR_unlink, L(name));
		write(fd, bytes, strlen(bytes));
		lseek(fd, 3, SEEK_SET);
	}
	return fd;
}

/* At an offset, the file's own offset untouched: before, between and after them, read sees 3. */
static int test_pread_pwrite(void)
{
	char b[32] = { 0 };
	long fd = scratch_file("0123456789", 0);

	if (fd < 0)
		return ktap_fail("open of a file in /tmp: %ld", fd);
	if (!expect(pwrite(fd, "ab", 2, 5), 2, "pwrite(2 bytes at 5)") ||
	    !expect(lseek(fd, 0, SEEK_CUR), 3, "the offset after pwrite") ||
	    !expect(pread(fd, b, 4, 4), 4, "pread(4 bytes at 4)") ||
	    !expect(memcmp(b, "4ab7", 4), 0, "pread's bytes: 4ab7") ||
	    !expect(lseek(fd, 0, SEEK_CUR), 3, "the offset after pread") ||
	    !expect(read(fd, b, 2), 2, "read at the offset") ||
	    !expect(memcmp(b, "34", 2), 0, "read's bytes: 34"))
		return 0;
	if (!expect(pwrite(fd, "z", 1, 20), 1, "pwrite past the end") ||
	    !expect(pread(fd, b, sizeof(b), 8), 13, "pread to the end") ||
	    !expect(memcmp(b, "89\0\0\0\0\0\0\0\0\0\0z", 13), 0, "a hole of zeros, then z") ||
	    !expect(pread(fd, b, 4, 21), 0, "pread at the end") ||
	    !expect(pread(fd, b, 4, 1000), 0, "pread past the end") ||
	    !expect(pread(fd, b, 0, 2), 0, "pread of 0 bytes") ||
	    !expect(lseek(fd, 0, SEEK_CUR), 5, "the offset after all that"))
		return 0;
	return expect(pread(fd, b, 4, -1), -EINVAL, "pread at -1") &&
	       expect(pwrite(fd, b, 4, -4096), -EINVAL, "pwrite at -4096") &&
	       expect(pread(fd, b, 4, 0x7ffffffffffffffe), -EINVAL, "pread past the largest offset") &&
	       expect(pread(fd, (void *)KERNEL_ADDR, 4, 0), -EFAULT, "pread into the kernel") &&
	       expect(pread(999, b, 4, 0), -EBADF, "pread(999)") &&
	       expect(pread(999, b, 4, -1), -EINVAL, "pread(999) at -1: the offset first");
}

/* An O_APPEND file is written at its end whatever pwrite's offset (Linux's documented bug). */
static int test_pwrite_append(void)
{
	char b[16] = { 0 };
	long fd = scratch_file("0123", O_APPEND);

	if (fd < 0)
		return ktap_fail("open of a file in /tmp: %ld", fd);
	return expect(pwrite(fd, "xy", 2, 0), 2, "pwrite at 0 of an O_APPEND file") &&
	       expect(lseek(fd, 0, SEEK_CUR), 3, "the offset after it") &&
	       expect(pread(fd, b, sizeof(b), 0), 6, "pread of the whole file") &&
	       expect(memcmp(b, "0123xy", 6), 0, "the bytes: 0123xy");
}

/* A pipe has no position: ESPIPE from each, whichever end, before any other check. */
static int test_pread_pipe_espipe(void)
{
	char b[4];
	struct iovec iov = { b, sizeof(b) };
	int p[2];

	if (!expect(pipe(p), 0, "pipe"))
		return 0;
	return expect(pread(p[0], b, 4, 0), -ESPIPE, "pread of a pipe") &&
	       expect(pwrite(p[1], b, 4, 0), -ESPIPE, "pwrite of a pipe") &&
	       expect(pread(p[1], b, 4, 0), -ESPIPE, "pread of a pipe's write end") &&
	       expect(syscall4(__NR_preadv, p[0], L(&iov), 1, 0), -ESPIPE, "preadv of a pipe") &&
	       expect(syscall4(__NR_pwritev, p[1], L(&iov), 1, 0), -ESPIPE, "pwritev of a pipe") &&
	       expect(pread(p[0], b, 4, -1), -EINVAL, "pread of a pipe at -1");
}

static int test_preadv_pwritev(void)
{
	char a[3], b[5], c[8] = { 0 };
	struct iovec out[] = { { "abc", 3 }, { "", 0 }, { "defgh", 5 } };
	struct iovec in[] = { { a, 3 }, { b, 5 } };
	long fd = scratch_file("0123456789", 0);

	if (fd < 0)
		return ktap_fail("open of a file in /tmp: %ld", fd);
	if (!expect(syscall4(__NR_pwritev, fd, L(out), 3, 2), 8, "pwritev of 8 bytes at 2") ||
	    !expect(lseek(fd, 0, SEEK_CUR), 3, "the offset after pwritev") ||
	    !expect(syscall4(__NR_preadv, fd, L(in), 2, 1), 8, "preadv of 8 bytes at 1") ||
	    !expect(lseek(fd, 0, SEEK_CUR), 3, "the offset after preadv") ||
	    !expect(memcmp(a, "1ab", 3) | memcmp(b, "cdefg", 5), 0, "preadv's bytes: 1ab cdefg") ||
	    !expect(syscall4(__NR_preadv, fd, L(in), 2, 9), 1, "preadv at 9: the last byte"))
		return 0;
	return expect(a[0], 'h', "the last byte") &&
	       expect(read(fd, c, 8), 7, "read from the offset: 3 to 10") &&
	       expect(memcmp(c, "bcdefgh", 7), 0, "read's bytes: bcdefgh") &&
	       expect(syscall4(__NR_preadv, fd, L(in), 2, -1), -EINVAL, "preadv at -1") &&
	       expect(syscall4(__NR_preadv, fd, L(in), 1025, 0), -EINVAL, "preadv of 1025 pieces");
}

/* The program's own (read-only) file at an offset: the bytes read at that offset. */
static int test_pread_module(void)
{
	char a[16], b[16];
	long fd = open(self, O_RDONLY, 0);

	if (fd < 0)
		return ktap_fail("open(%s): %ld", self, fd);
	return expect(pread(fd, a, 16, 100), 16, "pread of 16 bytes at 100") &&
	       expect(lseek(fd, 0, SEEK_CUR), 0, "the offset after pread") &&
	       expect(lseek(fd, 100, SEEK_SET), 100, "lseek(100)") &&
	       expect(read(fd, b, 16), 16, "read at 100") &&
	       expect(memcmp(a, b, 16), 0, "pread and read agree") &&
	       expect(pwrite(fd, a, 16, 100), -EBADF, "pwrite of a read-only descriptor");
}

/*
 * A child's pages that do not allow the access: PROT_NONE to read or write,
 * read-only to write. EFAULT when that is the first page, else the bytes
 * before it; a writable page is written.
 */
static int test_process_vm_protections(void)
{
	char *p = map_pages(3), buf[300], got[4] = { 0 };
	struct iovec local = { buf, sizeof(buf) }, one = { got, 4 };
	struct iovec none = { p + PAGE_SIZE, 8 }, ro = { p + 2 * PAGE_SIZE, 8 };
	struct iovec rw_none = { p + PAGE_SIZE - 100, 300 }, rw = { p + 10, 4 };
	long pid;
	int fds[2], status, ok;
	char c;

	if (IS_ERR_VALUE(p) || !expect(pipe(fds), 0, "pipe"))
		return 0;
	memset(p, 'x', 3 * PAGE_SIZE);
	memset(buf, 'y', sizeof(buf));
	mprotect(p + PAGE_SIZE, PAGE_SIZE, PROT_NONE);
	mprotect(p + 2 * PAGE_SIZE, PAGE_SIZE, PROT_READ);
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		read(fds[0], &c, 1);		/* until the parent is done */
		exit_group(0);
	}
	close(fds[0]);
	ok = expect(process_vm_readv(pid, &local, 1, &none, 1, 0), -EFAULT,
		    "process_vm_readv of a PROT_NONE page") &&
	     expect(process_vm_readv(pid, &local, 1, &rw_none, 1, 0), 100,
		    "process_vm_readv of 100 readable bytes, then PROT_NONE") &&
	     expect(process_vm_readv(pid, &local, 1, &ro, 1, 0), 8,
		    "process_vm_readv of a read-only page") &&
	     memset(buf, 'y', sizeof(buf)) &&
	     expect(syscall6(__NR_process_vm_writev, pid, L(&local), 1, L(&none), 1, 0), -EFAULT,
		    "process_vm_writev to a PROT_NONE page") &&
	     expect(syscall6(__NR_process_vm_writev, pid, L(&local), 1, L(&ro), 1, 0), -EFAULT,
		    "process_vm_writev to a read-only page") &&
	     expect(syscall6(__NR_process_vm_writev, pid, L(&local), 1, L(&rw_none), 1, 0), 100,
		    "process_vm_writev of 100 writable bytes, then PROT_NONE") &&
	     expect(syscall6(__NR_process_vm_writev, pid, L(&local), 1, L(&rw), 1, 0), 4,
		    "process_vm_writev to a writable page") &&
	     expect(process_vm_readv(pid, &one, 1, &rw, 1, 0), 4, "process_vm_readv of it") &&
	     (!memcmp(got, "yyyy", 4) ||
	      ktap_fail("the child has %c%c%c%c, not yyyy", got[0], got[1], got[2], got[3])) &&
	     expect(p[10], 'x', "the parent's own copy untouched");
	close(fds[1]);
	wait4(pid, &status, 0, NULL);
	return ok;
}

/* ---- the table ---- */

static const struct test tests[] = {
	{ "bad_fd_ebadf", test_bad_fd },
	{ "open_missing_enoent", test_open_missing },
	{ "file_read_lseek_fstat", test_file_io, 1 },
	{ "writev_stdout", test_writev_stdout },
	{ "ioctl_unknown", test_ioctl },
	{ "process_vm_readv_self", test_process_vm_readv },
	{ "process_vm_readv_partial", test_process_vm_readv_partial },
	{ "process_vm_readv_writev_page_protections", test_process_vm_protections },
	{ "pread_pwrite_at_offsets", test_pread_pwrite },
	{ "pwrite_o_append_writes_at_end", test_pwrite_append },
	{ "pread_pwrite_pipe_espipe", test_pread_pipe_espipe },
	{ "preadv_pwritev", test_preadv_pwritev },
	{ "pread_module_file", test_pread_module, 1 },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)envp;
	find_self(argv[0]);
	return run_tests(tests, ARRAY_SIZE(tests));
}
