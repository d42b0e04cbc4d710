/* sysfsinfo: statfs and /proc/mounts, hard links, a file's three times, /proc/cpuinfo, /proc/sys/kernel. */
#include "testutil.h"

#define AT_SYMLINK_FOLLOW	0x400
#define S_IFMT			0170000
#define S_IFLNK			0120000
#define EPERM			1
#define EXDEV			18
#define EEXIST			17
#define TMPFS_MAGIC		0x01021994
#define PROC_SUPER_MAGIC	0x9fa0
#define ST_RELATIME		0x1000
#define UTIME_OMIT		((1l << 30) - 2)
#define BAD_POINTER		8l

struct statfs {
	long f_type, f_bsize;
	unsigned long f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int f_fsid[2];
	long f_namelen, f_frsize, f_flags, f_spare[4];
};


#define L(p)	((long)(p))

static long stat_of(const char *name, struct stat *st)
{
	return syscall2(__NR_stat, L(in_dir(name)), L(st));
}

static long make_file(const char *name, const char *text)
{
	long fd = open(in_dir(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return fd;
	write(fd, text, strlen(text));
	return close(fd);
}

/* ---- statfs and /proc/mounts ---- */

static int test_statfs_tmp_and_proc(void)
{
	struct statfs s, f;
	long fd;

	if (!expect(syscall2(__NR_statfs, L(test_dir), L(&s)), 0, "statfs(test_dir)") ||
	    !expect(make_file("sfile", "x"), 0, "a file") ||
	    !expect((fd = open(in_dir("sfile"), O_RDONLY, 0)) < 0 ? fd : 0, 0, "open") ||
	    !expect(syscall2(__NR_fstatfs, fd, L(&f)), 0, "fstatfs"))
		return 0;
	close(fd);
	if (s.f_type != f.f_type || s.f_bsize != f.f_bsize || s.f_blocks != f.f_blocks)
		return ktap_fail("statfs and fstatfs differ: type %lx/%lx", s.f_type, f.f_type);
	if (s.f_bfree > s.f_blocks || s.f_bavail > s.f_blocks || s.f_ffree > s.f_files ||
	    s.f_namelen != 255)
		return ktap_fail("blocks %lu free %lu, files %lu free %lu, namelen %ld", s.f_blocks,
				 s.f_bfree, s.f_files, s.f_ffree, s.f_namelen);
	if (on_ccos() && (s.f_type != TMPFS_MAGIC || s.f_bsize != 4096 || s.f_blocks != 1024))
		return ktap_fail("/tmp: type %lx, %lu blocks of %ld", s.f_type, s.f_blocks, s.f_bsize);
	if (!expect(syscall2(__NR_statfs, L("/proc"), L(&s)), 0, "statfs(/proc)"))
		return 0;
	if (s.f_type != PROC_SUPER_MAGIC || s.f_blocks)
		return ktap_fail("/proc: type %lx, %lu blocks", s.f_type, s.f_blocks);
	return expect(syscall2(__NR_statfs, L("/no/such"), L(&s)), -ENOENT, "statfs(/no/such)") &&
	       expect(syscall2(__NR_statfs, L("/proc"), BAD_POINTER), -EFAULT, "statfs(bad buffer)") &&
	       expect(syscall2(__NR_fstatfs, 999, L(&s)), -EBADF, "fstatfs(999)");
}

/* Each line: device, directory, type, options, 0, 0; /proc is there, as proc. */
static int test_proc_mounts(void)
{
	char buf[4096], *line, *next;
	int proc = 0, fields;
	long n = slurp("/proc/mounts", buf, sizeof(buf));

	if (n <= 0)
		return ktap_fail("/proc/mounts: %ld", n);
	for (line = buf; *line; line = next) {
		char *nl = strchr(line, '\n'), *p;

		if (!nl)
			return ktap_fail("a line without its newline: %s", line);
		*nl = 0;
		next = nl + 1;
		for (fields = 1, p = line; *p; p++)
			fields += *p == ' ';
		if (fields != 6 || strcmp(nl - 4, " 0 0"))
			return ktap_fail("not six fields ending 0 0: %s", line);
		proc |= !strncmp(line, "proc /proc proc ", 16);
	}
	return proc || ktap_fail("no line for /proc");
}

/* ---- hard links ---- */

static int test_link_two_names_one_file(void)
{
	struct stat a, b;
	char text[8] = { 0 };
	long fd;

	if (!expect(make_file("one", "first"), 0, "one") ||
	    !expect(syscall2(__NR_link, L(in_dir("one")), L(in_dir("two"))), 0, "link(one, two)") ||
	    !expect(stat_of("one", &a), 0, "stat one") || !expect(stat_of("two", &b), 0, "stat two"))
		return 0;
	if (a.st_ino != b.st_ino || a.st_nlink != 2 || b.st_nlink != 2)
		return ktap_fail("inodes %lu %lu, links %lu %lu", a.st_ino, b.st_ino, a.st_nlink,
				 b.st_nlink);
	if (!expect(make_file("two", "again"), 0, "write through two") ||
	    !expect(syscall1(__NR_unlink, L(in_dir("one"))), 0, "unlink one") ||
	    !expect(stat_of("two", &b), 0, "stat two") ||
	    !expect((fd = open(in_dir("two"), O_RDONLY, 0)) < 0 ? fd : 0, 0, "open two"))
		return 0;
	read(fd, text, sizeof(text) - 1);
	close(fd);
	if (b.st_nlink != 1 || strcmp(text, "again"))
		return ktap_fail("after unlink: %lu links, text \"%s\"", b.st_nlink, text);
	return expect(stat_of("one", &a), -ENOENT, "stat one, unlinked");
}

/* Linux's errors, in its order; renaming one name over the other does nothing. */
static int test_link_errors(void)
{
	struct stat a, b;

	if (!expect(make_file("e1", "x"), 0, "e1") || !expect(make_file("e2", "y"), 0, "e2") ||
	    !expect(syscall2(__NR_mkdir, L(in_dir("edir")), 0755), 0, "mkdir edir"))
		return 0;
	if (!expect(syscall2(__NR_link, L(in_dir("e1")), L(in_dir("e2"))), -EEXIST, "link onto e2") ||
	    !expect(syscall2(__NR_link, L(in_dir("edir")), L(in_dir("e3"))), -EPERM, "link a directory") ||
	    !expect(syscall2(__NR_link, L(in_dir("none")), L(in_dir("e3"))), -ENOENT, "link none") ||
	    !expect(syscall2(__NR_link, L("/proc/self/status"), L(in_dir("e3"))), -EXDEV,
		    "link from /proc") ||
	    !expect(syscall5(__NR_linkat, AT_FDCWD, L(in_dir("e1")), AT_FDCWD, L(in_dir("e3")), 0x1),
		    -EINVAL, "linkat(flags 1)") ||
	    !expect(syscall2(__NR_link, BAD_POINTER, L(in_dir("e3"))), -EFAULT, "link(bad pointer)"))
		return 0;
	if (!expect(syscall2(__NR_link, L(in_dir("e1")), L(in_dir("e3"))), 0, "link e1 e3") ||
	    !expect(syscall2(__NR_rename, L(in_dir("e1")), L(in_dir("e3"))), 0, "rename e1 e3") ||
	    !expect(stat_of("e1", &a), 0, "stat e1") || !expect(stat_of("e3", &b), 0, "stat e3"))
		return 0;
	return a.st_nlink == 2 || ktap_fail("rename over its own other name: %lu links", a.st_nlink);
}

/* link names a symbolic link itself; linkat with AT_SYMLINK_FOLLOW, what it points to. */
static int test_linkat_symlink_follow(void)
{
	struct stat target, plain, followed;

	if (!expect(make_file("t", "x"), 0, "t") ||
	    !expect(syscall2(__NR_symlink, L("t"), L(in_dir("s"))), 0, "symlink s -> t") ||
	    !expect(syscall5(__NR_linkat, AT_FDCWD, L(in_dir("s")), AT_FDCWD, L(in_dir("s2")), 0), 0,
		    "linkat(s, s2)") ||
	    !expect(syscall5(__NR_linkat, AT_FDCWD, L(in_dir("s")), AT_FDCWD, L(in_dir("t2")),
			     AT_SYMLINK_FOLLOW), 0, "linkat(s, t2, AT_SYMLINK_FOLLOW)") ||
	    !expect(stat_of("t", &target), 0, "stat t") ||
	    !expect(syscall2(__NR_lstat, L(in_dir("s2")), L(&plain)), 0, "lstat s2") ||
	    !expect(syscall2(__NR_lstat, L(in_dir("t2")), L(&followed)), 0, "lstat t2"))
		return 0;
	if ((plain.st_mode & S_IFMT) != S_IFLNK || plain.st_nlink != 2)
		return ktap_fail("s2: mode %o, %lu links: not the link itself", plain.st_mode,
				 plain.st_nlink);
	if (followed.st_ino != target.st_ino || target.st_nlink != 2)
		return ktap_fail("t2 is inode %lu, t %lu with %lu links", followed.st_ino,
				 target.st_ino, target.st_nlink);
	return 1;
}

/* ---- a file's three times ---- */

static int same(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* atime and mtime back to 2001 (ctime becomes now: nothing sets it back). */
static long set_old(const char *name)
{
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	return syscall4(__NR_utimensat, AT_FDCWD, L(in_dir(name)), L(old), 0);
}

/*
 * Each change sets what Linux sets, seen against times set back to 2001
 * with utimensat (so no case waits for the clock to move): a write
 * mtime and ctime, chmod and rename ctime alone, utimensat's UTIME_OMIT
 * keeps its time.
 */
static int test_times_follow_changes(void)
{
	struct timespec t[2] = { { 1234567890, 5 }, { 0, UTIME_OMIT } };
	struct stat st;
	long fd, now = time(NULL);

	if (!expect(make_file("times", "x"), 0, "a file") || !expect(set_old("times"), 0, "utimensat") ||
	    !expect(stat_of("times", &st), 0, "stat"))
		return 0;
	if (st.st_atim.tv_sec != 1000000000 || st.st_mtim.tv_sec != 1000000000 ||
	    st.st_ctim.tv_sec < now - 1)
		return ktap_fail("after utimensat: a %ld m %ld c %ld", st.st_atim.tv_sec,
				 st.st_mtim.tv_sec, st.st_ctim.tv_sec);
	fd = open(in_dir("times"), O_WRONLY | O_APPEND, 0);
	write(fd, "y", 1);
	close(fd);
	stat_of("times", &st);
	if (st.st_mtim.tv_sec < now - 1 || !same(&st.st_mtim, &st.st_ctim) || st.st_atim.tv_sec != 1000000000)
		return ktap_fail("after a write: a %ld m %ld c %ld", st.st_atim.tv_sec,
				 st.st_mtim.tv_sec, st.st_ctim.tv_sec);
	set_old("times");
	syscall2(__NR_chmod, L(in_dir("times")), 0600);
	stat_of("times", &st);
	if (st.st_mtim.tv_sec != 1000000000 || st.st_ctim.tv_sec < now - 1)
		return ktap_fail("after chmod: m %ld c %ld", st.st_mtim.tv_sec, st.st_ctim.tv_sec);
	if (!expect(syscall4(__NR_utimensat, AT_FDCWD, L(in_dir("times")), L(t), 0), 0, "utimensat(OMIT)") ||
	    !expect(stat_of("times", &st), 0, "stat"))
		return 0;
	return (st.st_atim.tv_sec == 1234567890 && st.st_atim.tv_nsec == 5 &&
		st.st_mtim.tv_sec == 1000000000) ||
	       ktap_fail("utimensat(a, OMIT): a %ld.%ld m %ld", st.st_atim.tv_sec, st.st_atim.tv_nsec,
			 st.st_mtim.tv_sec);
}

/* A read of the file, then its atime. */
static long read_atime(const char *name)
{
	struct stat st;
	char c;
	long fd = open(in_dir(name), O_RDONLY, 0);

	read(fd, &c, 1);
	close(fd);
	stat_of(name, &st);
	return st.st_atim.tv_sec;
}

/*
 * relatime (Linux's default): a read sets atime when it is not after
 * mtime (the first read since a change), and leaves an atime that is
 * after mtime and ctime and less than a day old. Both seen with times set
 * by utimensat, so no case depends on the clock moving between two calls.
 */
static int test_atime_relatime(void)
{
	struct statfs s;
	long now = time(NULL), got;
	struct timespec fresh[2] = { { now + 1000, 0 }, { 1000000000, 0 } };
	struct timespec stale[2] = { { 1000000000, 0 }, { 1000000001, 0 } };

	if (!expect(syscall2(__NR_statfs, L(test_dir), L(&s)), 0, "statfs"))
		return 0;
	if (!(s.f_flags & ST_RELATIME))
		return skip("the folder's file system is not mounted relatime");
	if (!expect(make_file("atime", "x"), 0, "a file") ||
	    !expect(syscall4(__NR_utimensat, AT_FDCWD, L(in_dir("atime")), L(fresh), 0), 0, "utimensat"))
		return 0;
	if ((got = read_atime("atime")) != now + 1000)
		return ktap_fail("a read moved an atime after mtime and ctime to %ld", got);
	if (!expect(syscall4(__NR_utimensat, AT_FDCWD, L(in_dir("atime")), L(stale), 0), 0, "utimensat"))
		return 0;
	got = read_atime("atime");
	return got >= now || ktap_fail("a read left an atime before mtime at %ld", got);
}

/* A module's file is dated from the boot: after 2020, not in the future. */
static int test_module_times(void)
{
	struct stat st;

	if (!on_ccos())
		return skip("the host's files have dates of their own");
	if (!expect(syscall2(__NR_stat, L("/bin/init"), L(&st)), 0, "stat /bin/init"))
		return 0;
	return (st.st_mtim.tv_sec > 1577836800L && st.st_mtim.tv_sec <= time(NULL)) ||
	       ktap_fail("/bin/init's mtime is %ld", st.st_mtim.tv_sec);
}

/* ---- /proc/cpuinfo and /proc/sys/kernel ---- */

/* The first line from text on that starts with key (text at a line's start, or within one), or NULL. */
static const char *strstr_line(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (; text && *text; text = strchr(text, '\n') ? strchr(text, '\n') + 1 : NULL)
		if (!strncmp(text, key, n))
			return text;
	return NULL;
}

static int has_flag(const char *info, const char *flag)
{
	const char *p = strstr_line(info, "flags");
	size_t n = strlen(flag);

	for (; p && *p && *p != '\n'; p++)
		if (p[-1] == ' ' && !strncmp(p, flag, n) && (p[n] == ' ' || p[n] == '\n'))
			return 1;
	return 0;
}

static void cpuid(unsigned int leaf, unsigned int sub, unsigned int r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

/*
 * One block per CPU, and the flags the labs talk about exactly where CPUID
 * has them (on the host, the four Linux never hides).
 */
static int test_proc_cpuinfo(void)
{
	static char info[65536];
	static const struct { const char *name; unsigned int leaf, reg, bit; } flags[] = {
		{ "fpu", 1, 3, 0 }, { "sse2", 1, 3, 26 }, { "lm", 0x80000001, 3, 29 },
		{ "syscall", 0x80000001, 3, 11 }, { "pcid", 1, 2, 17 }, { "x2apic", 1, 2, 21 },
		{ "rdtscp", 0x80000001, 3, 27 }, { "nx", 0x80000001, 3, 20 }, { "smep", 7, 1, 7 },
		{ "smap", 7, 1, 20 }, { "umip", 7, 2, 2 },
	};
	unsigned int r[4], i, n = on_ccos() ? ARRAY_SIZE(flags) : 4;
	unsigned long mask[16] = { 0 };
	long cpus = 0, blocks = 0, len = slurp("/proc/cpuinfo", info, sizeof(info));
	const char *p;

	if (len <= 0)
		return ktap_fail("/proc/cpuinfo: %ld", len);
	for (p = info; (p = strstr_line(p, "processor")); p++)
		blocks++;
	if (sched_getaffinity(0, sizeof(mask), mask) > 0)
		for (i = 0; i < 16 * 64; i++)
			cpus += mask[i / 64] >> (i % 64) & 1;
	if (on_ccos() && blocks != cpus)
		return ktap_fail("%ld blocks for %ld CPUs", blocks, cpus);
	if (!strstr_line(info, "vendor_id") || !strstr_line(info, "model name") ||
	    !strstr_line(info, "cpu MHz") || !strstr_line(info, "apicid"))
		return ktap_fail("a line is missing:\n%.300s", info);
	for (i = 0; i < n; i++) {
		cpuid(flags[i].leaf & 0x80000000 ? 0x80000000 : 0, 0, r);
		if (r[0] < flags[i].leaf)
			continue;
		cpuid(flags[i].leaf, 0, r);
		if (!!(r[flags[i].reg] >> flags[i].bit & 1) != has_flag(info, flags[i].name))
			return ktap_fail("flag %s: CPUID says %d", flags[i].name,
					 r[flags[i].reg] >> flags[i].bit & 1);
	}
	return 1;
}

/* sysctl's files say what uname says, one line each. */
static int test_proc_sys_kernel(void)
{
	struct utsname u;
	char buf[128];
	char want[80];

	uname(&u);
	snprintf(want, sizeof(want), "%s\n", u.sysname);
	if (slurp("/proc/sys/kernel/ostype", buf, sizeof(buf)) <= 0 || strcmp(buf, want))
		return ktap_fail("ostype \"%s\", uname \"%s\"", buf, u.sysname);
	snprintf(want, sizeof(want), "%s\n", u.release);
	if (slurp("/proc/sys/kernel/osrelease", buf, sizeof(buf)) <= 0 || strcmp(buf, want))
		return ktap_fail("osrelease \"%s\", uname \"%s\"", buf, u.release);
	snprintf(want, sizeof(want), "%s\n", u.nodename);
	if (slurp("/proc/sys/kernel/hostname", buf, sizeof(buf)) <= 0 || strcmp(buf, want))
		return ktap_fail("hostname \"%s\", uname \"%s\"", buf, u.nodename);
	if (slurp("/proc/sys/kernel/randomize_va_space", buf, sizeof(buf)) != 2 || buf[0] < '0' ||
	    buf[0] > '2')
		return ktap_fail("randomize_va_space \"%s\"", buf);
	return 1;
}

static const struct test tests[] = {
	{ "statfs_tmp_and_proc", test_statfs_tmp_and_proc },
	{ "proc_mounts", test_proc_mounts },
	{ "link_two_names_one_file", test_link_two_names_one_file },
	{ "link_errors", test_link_errors },
	{ "linkat_symlink_follow", test_linkat_symlink_follow },
	{ "times_follow_changes", test_times_follow_changes },
	{ "atime_relatime", test_atime_relatime },
	{ "module_times", test_module_times },
	{ "proc_cpuinfo", test_proc_cpuinfo },
	{ "proc_sys_kernel", test_proc_sys_kernel },
};

int main(int argc, char **argv, char **envp)
{
	static const char *const names[] = { "sfile", "two", "e1", "e2", "e3", "t", "s", "s2", "t2",
					      "times", "atime" };
	unsigned long i;
	long r;

	(void)argc, (void)argv, (void)envp;
	snprintf(test_dir, sizeof(test_dir), "/tmp/sysfsinfo.%ld", getpid());
	if (syscall2(__NR_mkdir, L(test_dir), 0755) < 0) {
		printf("sysfsinfo: cannot make %s\n", test_dir);
		return 1;
	}
	r = run_tests(tests, ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(names); i++)
		syscall1(__NR_unlink, L(in_dir(names[i])));
	syscall1(__NR_rmdir, L(in_dir("edir")));
	syscall1(__NR_rmdir, L(test_dir));
	return r;
}
