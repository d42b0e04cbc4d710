/* tmpfstest: /tmp's files and directories, paths and the working directory, their errors, and no leak. */
#include "testutil.h"

#define S(n, ...)	syscall_n(__NR_##n, __VA_ARGS__)

static long syscall_n(long nr, long a, long b, long c)
{
	return syscall3(nr, a, b, c);
}

static long L(const void *p)
{
	return (long)p;
}

static long create(const char *path, const char *text)
{
	long fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), n;

	if (fd < 0)
		return fd;
	n = write(fd, text, strlen(text));
	close(fd);
	return n;
}

static int test_create_write_read(void)
{
	char buf[32] = { 0 };
	struct stat st;
	long fd;

	if (!expect(create("/tmp/a", "hello"), 5, "create and write /tmp/a"))
		return 0;
	fd = open("/tmp/a", O_RDWR | O_APPEND, 0);
	if (!expect(write(fd, " world", 6), 6, "append") ||
	    !expect(lseek(fd, 0, SEEK_SET), 0, "lseek") ||
	    !expect(read(fd, buf, sizeof(buf)), 11, "read") || memcmp(buf, "hello world", 11))
		return ktap_fail("read back %s", buf);
	if (!expect(fstat(fd, &st), 0, "fstat") || !expect(st.st_size, 11, "st_size") ||
	    !expect(st.st_mode, S_IFREG | 0644, "st_mode (umask 022)") ||
	    !expect(lseek(fd, 0, SEEK_END), 11, "lseek(SEEK_END)") ||
	    !expect(S(ftruncate, fd, 3, 0), 0, "ftruncate to 3") ||
	    !expect(S(stat, L("/tmp/a"), L(&st), 0), 0, "stat") || !expect(st.st_size, 3, "size 3") ||
	    !expect(S(truncate, L("/tmp/a"), 8192, 0), 0, "truncate to 8192") ||
	    !expect(lseek(fd, 4000, SEEK_SET), 4000, "lseek into the hole") ||
	    !expect(read(fd, buf, 4), 4, "read the hole") || !expect(buf[0] | buf[3], 0, "zeros"))
		return 0;
	close(fd);
	return expect(open("/tmp/a", O_CREAT | O_EXCL | O_WRONLY, 0644), -EEXIST, "O_EXCL") &&
	       expect(syscall1(__NR_unlink, L("/tmp/a")), 0, "unlink") &&
	       expect(open("/tmp/a", O_RDONLY, 0), -ENOENT, "open after unlink");
}

/* A write inside the file's pages writes what it is given and no more:
 * each rewrite is checked byte for byte against a copy kept here. */
static int test_rewrite_in_place(void)
{
	static char want[3 * 4096], got[sizeof(want)];
	static const struct { long at, len; } writes[] = {
		{ 0, 2 }, { 4095, 2 }, { 8000, 100 }, { 12287, 1 }, { 12000, 288 },
	};
	long fd = open("/tmp/rw", O_RDWR | O_CREAT | O_TRUNC, 0644);
	size_t i;

	memset(want, 'a', sizeof(want));
	if (!expect(write(fd, want, sizeof(want)), sizeof(want), "write 12,288 bytes"))
		return 0;
	for (i = 0; i < ARRAY_SIZE(writes); i++) {
		long at = writes[i].at, len = writes[i].len;

		memset(want + at, '0' + i, len);
		if (!expect(lseek(fd, at, SEEK_SET), at, "lseek") ||
		    !expect(write(fd, want + at, len), len, "rewrite returns its length") ||
		    !expect(lseek(fd, 0, SEEK_SET), 0, "lseek 0") ||
		    !expect(read(fd, got, sizeof(got)), sizeof(got), "read the file") ||
		    !expect(lseek(fd, 0, SEEK_END), sizeof(want), "the size stays"))
			return 0;
		if (memcmp(got, want, sizeof(got)))
			return ktap_fail("rewrite %zu at %ld: the file differs from what was written", i, at);
	}
	close(fd);
	return expect(syscall1(__NR_unlink, L("/tmp/rw")), 0, "unlink");
}

static int test_directories(void)
{
	char buf[512];
	long fd, n, pos, found = 0;

	if (!expect(syscall2(__NR_mkdir, L("/tmp/d"), 0755), 0, "mkdir") ||
	    !expect(syscall2(__NR_mkdir, L("/tmp/d"), 0755), -EEXIST, "mkdir again") ||
	    !expect(create("/tmp/d/f", "x"), 1, "a file in it") ||
	    !expect(syscall1(__NR_rmdir, L("/tmp/d")), -ENOTEMPTY, "rmdir of a non-empty directory") ||
	    !expect(syscall1(__NR_unlink, L("/tmp/d")), -EISDIR, "unlink of a directory") ||
	    !expect(syscall1(__NR_rmdir, L("/tmp/d/f")), -ENOTDIR, "rmdir of a file") ||
	    !expect(create("/tmp/d/f/g", "x"), -ENOTDIR, "a file under a file") ||
	    !expect(open("/tmp/d", O_WRONLY, 0), -EISDIR, "open a directory for writing") ||
	    !expect(open("/tmp/d/f", O_RDONLY | O_DIRECTORY, 0), -ENOTDIR, "O_DIRECTORY on a file"))
		return 0;
	fd = open("/tmp/d", O_RDONLY | O_DIRECTORY, 0);
	n = syscall3(__NR_getdents64, fd, L(buf), sizeof(buf));
	for (pos = 0; pos < n; pos += *(unsigned short *)(buf + pos + 16))
		found += !strcmp(buf + pos + 19, "f") + !strcmp(buf + pos + 19, ".") +
			 !strcmp(buf + pos + 19, "..");
	if (!expect(found, 3, "getdents64 lists ., .. and f") ||
	    !expect(syscall3(__NR_getdents64, fd, L(buf), sizeof(buf)), 0, "then nothing") ||
	    !expect(syscall3(__NR_getdents64, 0, L(buf), sizeof(buf)), -ENOTDIR, "getdents64(tty)"))
		return 0;
	close(fd);
	return expect(syscall2(__NR_rename, L("/tmp/d/f"), L("/tmp/d/g")), 0, "rename") &&
	       expect(open("/tmp/d/g", O_RDONLY, 0) >= 0, 1, "the new name opens") &&
	       expect(syscall2(__NR_rename, L("/tmp/d"), L("/tmp/d/sub")), -EINVAL, "into itself") &&
	       expect(syscall2(__NR_rename, L("/tmp/d/g"), L("/bin/g")), -18 /* EXDEV */, "out of /tmp") &&
	       expect(syscall1(__NR_unlink, L("/tmp/d/g")), 0, "unlink") &&
	       expect(syscall1(__NR_rmdir, L("/tmp/d")), 0, "rmdir");
}

static int test_cwd(void)
{
	char buf[64];
	long fd;

	if (!expect(syscall2(__NR_mkdir, L("/tmp/w"), 0755), 0, "mkdir /tmp/w") ||
	    !expect(chdir("/tmp/w"), 0, "chdir") ||
	    !expect(getcwd(buf, sizeof(buf)), 7, "getcwd") || strcmp(buf, "/tmp/w"))
		return ktap_fail("getcwd gave %s", buf);
	if (!expect(create("rel", "r"), 1, "a relative create") ||
	    !expect(open("/tmp/w/rel", O_RDONLY, 0) >= 0, 1, "it is in the working directory") ||
	    !expect(chdir(".."), 0, "chdir ..") || !expect(getcwd(buf, sizeof(buf)), 5, "getcwd /tmp") ||
	    !expect(getcwd(buf, 3), -ERANGE, "getcwd, small buffer") ||
	    !expect(chdir("/tmp/w/rel"), -ENOTDIR, "chdir to a file") ||
	    !expect(chdir("/nope"), -ENOENT, "chdir to nothing") ||
	    !expect(syscall2(__NR_access, L("/tmp/w/rel"), 2), 0, "access(W_OK) in /tmp"))
		return 0;
	fd = open("/bin", O_RDONLY | O_DIRECTORY, 0);
	return expect(syscall1(__NR_fchdir, fd), 0, "fchdir /bin") &&
	       expect(open("init", O_RDONLY, 0) >= 0, 1, "init opens relative to /bin") &&
	       expect(syscall2(__NR_access, L("sh"), 1), 0, "access(sh, X_OK)") &&
	       expect(syscall2(__NR_access, L("sh"), 2), -EROFS, "access(sh, W_OK)") &&
	       expect(syscall2(__NR_mkdir, L("/bin/x"), 0755), -EROFS, "mkdir in /bin") &&
	       expect(syscall1(__NR_unlink, L("/bin/init")), -EROFS, "unlink in /bin") &&
	       expect(syscall1(__NR_umask, 077), 022, "umask") &&
	       expect(chdir("/"), 0, "chdir /") &&
	       expect(syscall1(__NR_unlink, L("/tmp/w/rel")), 0, "unlink") &&
	       expect(syscall1(__NR_rmdir, L("/tmp/w")), 0, "rmdir");
}

static int test_bad_pointers(void)
{
	return expect(open((char *)1, O_RDONLY, 0), -EFAULT, "open(bad)") &&
	       expect(syscall2(__NR_mkdir, 1, 0755), -EFAULT, "mkdir(bad)") &&
	       expect(S(stat, L("/tmp"), 1, 0), -EFAULT, "stat(bad buffer)") &&
	       expect(syscall2(__NR_getcwd, 1, 64), -EFAULT, "getcwd(bad)") &&
	       expect(open("", O_RDONLY, 0), -ENOENT, "open(\"\")");
}

/* Fill /tmp to its limit: ENOSPC, and everything back after unlink. */
static int test_enospc(void)
{
	static char block[65536];
	long fd = open("/tmp/big", O_WRONLY | O_CREAT, 0644), r, total = 0;

	while ((r = write(fd, block, sizeof(block))) > 0)
		total += r;
	close(fd);
	return expect(r, -ENOSPC, "write past the limit") &&
	       expect(total >= 1 << 20, 1, "at least 1 MiB fitted") &&
	       expect(syscall1(__NR_unlink, L("/tmp/big")), 0, "unlink") &&
	       expect(create("/tmp/after", "ok"), 2, "room again") &&
	       expect(syscall1(__NR_unlink, L("/tmp/after")), 0, "unlink");
}

static long mem_free_kb(void)
{
	char buf[128] = { 0 };
	long fd = open("/proc/meminfo", O_RDONLY, 0), kb = 0;
	char *p;

	read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (p = strchr(buf, '\n'); p && *p && (*p < '0' || *p > '9'); p++)
		;
	while (p && *p >= '0' && *p <= '9')
		kb = kb * 10 + *p++ - '0';
	return kb;
}

static void churn(int rounds)
{
	static char block[10000];
	int i, fds[2];

	for (i = 0; i < rounds; i++) {
		long fd = open("/tmp/churn", O_WRONLY | O_CREAT | O_TRUNC, 0600);

		write(fd, block, sizeof(block));
		close(fd);
		syscall1(__NR_unlink, L("/tmp/churn"));
		pipe(fds);
		write(fds[1], block, 100);
		close(fds[0]);
		close(fds[1]);
	}
}

static int test_no_leak(void)
{
	long before;

	churn(2);		/* the heap's size classes fill once */
	own_memory();
	before = mem_free_kb();
	churn(300);
	return expect(mem_free_kb(), before, "MemFree after 300 rounds of create/write/unlink and pipe/close");
}

/*
 * /tmp bounds its nodes as it bounds its data: links with 255-byte targets,
 * 200 to a folder, until ENOSPC (not until the heap has every frame), and
 * after all are removed MemFree is what it was.
 */

static int make_links(const char *target, long *made)
{
	char path[32];
	long r = 0, d, i;

	for (d = 0; d < 64 && !r; d++) {
		snprintf(path, sizeof(path), "/tmp/n%ld", d);
		if ((r = syscall2(__NR_mkdir, L(path), 0755)) < 0)
			break;
		for (i = 0; i < 200 && !r; i++) {
			snprintf(path, sizeof(path), "/tmp/n%ld/l%ld", d, i);
			if (!(r = syscall2(__NR_symlink, L(target), L(path))))
				++*made;
		}
	}
	return r;
}

static void remove_links(void)
{
	char path[32];
	long d, i;

	for (d = 0; d < 64; d++) {
		for (i = 0; i < 200; i++) {
			snprintf(path, sizeof(path), "/tmp/n%ld/l%ld", d, i);
			syscall1(__NR_unlink, L(path));
		}
		snprintf(path, sizeof(path), "/tmp/n%ld", d);
		syscall1(__NR_rmdir, L(path));
	}
}

static int test_node_limit(void)
{
	static char target[256];
	long before, made = 0, r;

	memset(target, 'x', 255);
	own_memory();
	before = mem_free_kb();
	r = make_links(target, &made);
	if (!expect(r, -ENOSPC, "symlink past the node limit (12,800 tried)") ||
	    !expect(open("/tmp/one-more", O_WRONLY | O_CREAT, 0644), -ENOSPC, "open(O_CREAT) at the limit") ||
	    !expect(made > 4000, 1, "over 4,000 links fitted")) {
		remove_links();
		return 0;
	}
	remove_links();
	return expect(create("/tmp/after", "ok"), 2, "room again") &&
	       expect(syscall1(__NR_unlink, L("/tmp/after")), 0, "unlink") &&
	       expect(mem_free_kb(), before, "MemFree after the links went");
}

static const struct test tests[] = {
	{ "create_write_read_truncate_unlink", test_create_write_read },
	{ "rewrite_in_place_byte_for_byte", test_rewrite_in_place },
	{ "mkdir_getdents_rename_rmdir", test_directories },
	{ "cwd_access_umask_readonly", test_cwd },
	{ "bad_pointers", test_bad_pointers },
	{ "enospc", test_enospc },
	{ "node_limit_enospc", test_node_limit },
	{ "no_leak", test_no_leak },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)envp;
	find_self(argv[0]);
	return run_tests(tests, ARRAY_SIZE(tests));
}
