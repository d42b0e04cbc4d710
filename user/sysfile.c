/* sysfile: open, read, lseek, fstat, readv, writev, ioctl and process_vm_readv, and their errors, as on Linux. */
#include "testutil.h"

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

/* As Linux: the bytes before the first page that cannot be read, however long the range. */
static int test_process_vm_readv_partial(void)
{
	char *p = map_pages(2), buf[300];
	struct iovec local = { buf, sizeof(buf) }, remote = { p + PAGE_SIZE - 100, 300 };
	struct iovec huge_local = { buf, 1UL << 46 }, huge_remote = { p + PAGE_SIZE - 100, 1UL << 46 };

	memset(p + PAGE_SIZE - 100, 'x', 100);
	munmap(p + PAGE_SIZE, PAGE_SIZE);
	if (!expect(process_vm_readv(getpid(), &local, 1, &remote, 1, 0), 100,
		    "process_vm_readv of 100 readable bytes then a hole") ||
	    !expect(process_vm_readv(getpid(), &huge_local, 1, &huge_remote, 1, 0), 100,
		    "process_vm_readv of 100 readable bytes then 64 TiB"))
		return 0;
	if (buf[0] != 'x' || buf[99] != 'x')
		return ktap_fail("read %#x ... %#x, expected 'x'", buf[0], buf[99]);
	return expect(munmap(p, PAGE_SIZE), 0, "munmap");
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
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)envp;
	find_self(argv[0]);
	return run_tests(tests, ARRAY_SIZE(tests));
}
