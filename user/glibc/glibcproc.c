/* glibcproc: what LTP's library and tests read and ask (issue 44): /proc, uname, limits, prctl, mlock, sync, exact errors. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include "ktap.h"

static char dir[64];

/* 1 if cond; else 0, with errno as the reason. */
static int check(int cond, const char *what)
{
	return cond ? 1 : ktap_fail("%s: errno %d (%s)", what, errno, strerror(errno));
}

static long slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

/*
 * Every line "Name:" padded to 16 columns (or a space past a longer
 * name), a number that ends at column 24 (unless wider), " kB"; and the
 * fields LTP's library reads.
 */
static int test_meminfo_linux_fields(void)
{
	static const char *const need[] = { "MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached",
					    "SwapCached", "Active", "Inactive", "SwapTotal", "SwapFree",
					    "Shmem", "CommitLimit" };
	static char text[8192];
	char *line, *save, name[32], num[24];
	unsigned long i, found = 0, kb, total = 0, avail = 0, pad, digits;

	if (slurp("/proc/meminfo", text, sizeof(text)) <= 0)
		return ktap_fail("cannot read /proc/meminfo");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon || colon - line >= (long)sizeof(name))
			return ktap_fail("line \"%s\"", line);
		snprintf(name, sizeof(name), "%.*s", (int)(colon - line), line);
		if (!strncmp(name, "HugePages_", 10))
			continue;	/* counts, without kB, where hugetlbfs is */
		pad = strlen(name) + 2 > 16 ? strlen(name) + 2 : 16;
		digits = snprintf(num, sizeof(num), "%lu", sscanf(colon + 1, "%lu", &kb) == 1 ? kb : 0);
		if (strcmp(line + strlen(line) - 3, " kB") || colon[1] != ' ' ||
		    strlen(line) != (pad + digits > 24 ? pad + digits : 24) + 3)
			return ktap_fail("not in Linux's format: \"%s\"", line);
		for (i = 0; i < ARRAY_SIZE(need); i++)
			found += !strcmp(name, need[i]);
		total = strcmp(name, "MemTotal") ? total : kb;
		avail = strcmp(name, "MemAvailable") ? avail : kb;
	}
	if (found != ARRAY_SIZE(need))
		return ktap_fail("%lu of the %zu fields", found, ARRAY_SIZE(need));
	return avail && avail <= total ? 1 : ktap_fail("MemAvailable %lu of %lu kB", avail, total);
}

/* /proc/uptime: seconds since boot to a hundredth, as CLOCK_BOOTTIME says them, and idle time. */
static int test_proc_uptime(void)
{
	char buf[128];
	double up, idle;
	struct timespec t0, t1;

	clock_gettime(CLOCK_BOOTTIME, &t0);
	if (slurp("/proc/uptime", buf, sizeof(buf)) <= 0 || sscanf(buf, "%lf %lf", &up, &idle) != 2)
		return ktap_fail("/proc/uptime \"%s\"", buf);
	clock_gettime(CLOCK_BOOTTIME, &t1);
	if (up < t0.tv_sec - 1 || up > t1.tv_sec + 1 || idle < 0)
		return ktap_fail("uptime %.2f, CLOCK_BOOTTIME %ld s", up, (long)t1.tv_sec);
	return 1;
}

/* The sysctl files LTP reads: values that agree with uname and getpid. */
static int test_proc_sys_values(void)
{
	struct utsname u;
	char buf[256], want[80];
	long v;

	uname(&u);
	if (slurp("/proc/sys/kernel/pid_max", buf, sizeof(buf)) <= 0 || (v = atol(buf)) <= getpid())
		return ktap_fail("pid_max \"%s\"", buf);
	if (slurp("/proc/sys/kernel/tainted", buf, sizeof(buf)) <= 0 || buf[0] < '0' || buf[0] > '9')
		return ktap_fail("tainted \"%s\"", buf);
	if (slurp("/proc/sys/kernel/core_pattern", buf, sizeof(buf)) <= 1)
		return ktap_fail("core_pattern \"%s\"", buf);
	snprintf(want, sizeof(want), "%s\n", u.release);
	if (slurp("/proc/sys/kernel/osrelease", buf, sizeof(buf)) <= 0 || strcmp(buf, want))
		return ktap_fail("osrelease \"%s\", uname \"%s\"", buf, u.release);
	snprintf(want, sizeof(want), "%s\n", u.sysname);
	if (slurp("/proc/sys/kernel/ostype", buf, sizeof(buf)) <= 0 || strcmp(buf, want))
		return ktap_fail("ostype \"%s\", uname \"%s\"", buf, u.sysname);
	if (slurp("/proc/sys/fs/pipe-max-size", buf, sizeof(buf)) <= 0 || atol(buf) < 4096)
		return ktap_fail("pipe-max-size \"%s\"", buf);
	return 1;
}

/* The release names a Linux whose ABI has the calls LTP gates on version (futex_waitv: 5.16). */
static int test_uname_release_is_a_linux_version(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	uname(&u);
	ktap_diag("release %s", u.release);
	if (sscanf(u.release, "%d.%d", &major, &minor) != 2 || major * 100 + minor < 601)
		return ktap_fail("release \"%s\" is older than Linux 6.1", u.release);
	return 1;
}

/* RLIMIT_NOFILE's soft limit is at least Linux's 1024, and F_DUPFD and dup2 reach past 100. */
static int test_nofile_limit_1024(void)
{
	struct rlimit r;
	int fd = -1, fd2 = -1, ok;

	getrlimit(RLIMIT_NOFILE, &r);
	if (r.rlim_cur < 1024)
		return ktap_fail("RLIMIT_NOFILE soft %lu", (unsigned long)r.rlim_cur);
	fd = fcntl(0, F_DUPFD, 100);
	fd2 = dup2(0, 1000);
	ok = fd >= 100 && fd2 == 1000;
	close(fd);
	close(fd2);
	return check(ok, "F_DUPFD 100 and dup2 to 1000");
}

static int on_ccos(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.release, "-ccos");	/* 6.1.0-ccos */
}

/*
 * The soft limit is what dup2 meets, and goes back up; root (with
 * CAP_SYS_RESOURCE, as every ccos process) raises a hard limit it lowered.
 */
static int test_root_raises_rlimit(void)
{
	struct rlimit old, low;
	int err;

	getrlimit(RLIMIT_NOFILE, &old);
	low = (struct rlimit){ 64, old.rlim_max };
	if (setrlimit(RLIMIT_NOFILE, &low))
		return check(0, "setrlimit soft 64");
	err = dup2(0, 100) < 0 ? errno : 0;
	if (setrlimit(RLIMIT_NOFILE, &old))
		return check(0, "the soft limit back up");
	if (err != EBADF)
		return ktap_fail("dup2 past the soft limit: errno %d, expected EBADF", err);
	low = (struct rlimit){ 64, 64 };
	if (setrlimit(RLIMIT_NOFILE, &low))
		return check(0, "setrlimit hard 64");
	if (setrlimit(RLIMIT_NOFILE, &old) && errno == EPERM && !on_ccos())
		return skip("this host's root has no CAP_SYS_RESOURCE");
	return check(!getrlimit(RLIMIT_NOFILE, &low) && low.rlim_max == old.rlim_max,
		     "the hard limit back up");
}

/* A descriptor number that was open a moment ago and is not now. */
static int closed_fd(void)
{
	int fd = open("/dev/null", O_RDONLY);

	close(fd);
	return fd;
}

/* dup3(fd, fd): EINVAL before fd is looked at, open (as LTP's dup3_02) or not. */
static int test_dup3_same_fd_einval(void)
{
	int fd = closed_fd();

	return check(dup3(1, 1, 0) == -1 && errno == EINVAL && dup3(fd, fd, O_CLOEXEC) == -1 &&
		     errno == EINVAL, "dup3(fd, fd) is EINVAL");
}

static int test_mmap_shared_closed_fd_ebadf(void)
{
	void *p = mmap(NULL, 4096, PROT_WRITE, MAP_FILE | MAP_SHARED, closed_fd(), 0);

	return check(p == MAP_FAILED && errno == EBADF, "mmap(MAP_SHARED) of a closed fd is EBADF");
}

static int test_readv_negative_len_einval(void)
{
	char c;
	struct iovec iov[2] = { { &c, 1 }, { &c, (size_t)-1 } };
	int fd = open("/dev/zero", O_RDONLY);
	long r = readv(fd, iov, 2);
	int err = errno;

	close(fd);
	errno = err;
	return check(r == -1 && err == EINVAL, "readv with a negative iov_len is EINVAL");
}

static int test_opath_fchmod_fchown_ebadf(void)
{
	char path[96];
	int fd, a, b, c;
	char ch;

	snprintf(path, sizeof(path), "%s/opath", dir);
	close(open(path, O_CREAT | O_WRONLY, 0644));
	fd = open(path, O_PATH);
	a = fchmod(fd, 0600) == -1 && errno == EBADF;
	b = fchown(fd, 0, 0) == -1 && errno == EBADF;
	c = read(fd, &ch, 1) == -1 && errno == EBADF;
	close(fd);
	unlink(path);
	return a && b && c ? 1 : ktap_fail("O_PATH: fchmod %d fchown %d read %d (1 = EBADF)", a, b, c);
}

/* A FIFO open for both ends, in the read and the write set of select: ready in both, 2. */
static int test_select_fifo_both_sets(void)
{
	char path[96];
	fd_set r, w;
	struct timeval tv = { 1, 0 };
	int fd, n;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (mkfifo(path, 0600) || (fd = open(path, O_RDWR)) < 0)
		return check(0, "mkfifo and open O_RDWR");
	if (write(fd, "x", 1) != 1)
		return check(0, "write");
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(fd, &r);
	FD_SET(fd, &w);
	n = select(fd + 1, &r, &w, NULL, &tv);
	close(fd);
	unlink(path);
	return n == 2 ? 1 : ktap_fail("select returned %d, expected 2", n);
}

/* MADV_WIPEONFORK: the child finds zeros; the parent keeps its data; shared memory is EINVAL. */
static int test_madv_wipeonfork(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *s = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status = -1;
	pid_t pid;

	memset(p, 7, 8192);
	if (madvise(p, 4096, MADV_WIPEONFORK))
		return check(0, "madvise(MADV_WIPEONFORK)");
	if (madvise(s, 4096, MADV_WIPEONFORK) != -1 || errno != EINVAL)
		return check(0, "MADV_WIPEONFORK of shared memory is EINVAL");
	if ((pid = fork()) == 0)
		_exit(p[0] == 0 && p[4095] == 0 && p[4096] == 7 ? 0 : 1);
	waitpid(pid, &status, 0);
	if (p[0] != 7)
		return ktap_fail("the parent lost its data");
	return status == 0 ? 1 : ktap_fail("the child saw the data (status %#x)", status);
}

/* /tmp lives in memory: the sync calls succeed; fsync of a pipe is EINVAL, of no file EBADF. */
static int test_sync_calls(void)
{
	char path[96];
	int fd, p[2], ok;

	snprintf(path, sizeof(path), "%s/sync", dir);
	fd = open(path, O_CREAT | O_RDWR, 0644);
	if (pipe(p))
		return check(0, "pipe");
	sync();
	ok = !fsync(fd) && !fdatasync(fd) && !syncfs(fd);
	ok = ok && fsync(p[0]) == -1 && errno == EINVAL && fsync(1000) == -1 && errno == EBADF;
	close(fd);
	close(p[0]);
	close(p[1]);
	unlink(path);
	return check(ok, "fsync, fdatasync, syncfs");
}

/* fallocate on /tmp: mode 0 makes the file longer, KEEP_SIZE does not; Linux's errors. */
static int test_fallocate_tmpfs(void)
{
	char path[96];
	struct stat st;
	int fd, ro, a, b, c;

	snprintf(path, sizeof(path), "%s/falloc", dir);
	fd = open(path, O_CREAT | O_RDWR, 0644);
	ro = open(path, O_RDONLY);
	a = !fallocate(fd, 0, 0, 8192) && !fstat(fd, &st) && st.st_size == 8192;
	b = !fallocate(fd, FALLOC_FL_KEEP_SIZE, 8192, 4096) && !fstat(fd, &st) && st.st_size == 8192;
	c = fallocate(fd, 0, 0, 0) == -1 && errno == EINVAL && fallocate(ro, 0, 0, 1) == -1 &&
	    errno == EBADF;
	close(fd);
	close(ro);
	unlink(path);
	return a && b && c ? 1 : ktap_fail("mode 0 %d, KEEP_SIZE %d, errors %d", a, b, c);
}

/* The mlock calls: a mapped range locks, a hole is ENOMEM, bad flags EINVAL. */
static int test_mlock_family(void)
{
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ok;

	munmap(p + 4096, 4096);
	ok = !mlock(p, 4096) && !munlock(p, 4096) && !syscall(SYS_mlock2, p, 4096, 1);
	if (!ok)
		return check(0, "mlock, munlock, mlock2(MLOCK_ONFAULT)");
	if (mlock(p, 3 * 4096) != -1 || errno != ENOMEM)
		return check(0, "mlock over a hole is ENOMEM");
	if (syscall(SYS_mlock2, p, 4096, 8) != -1 || errno != EINVAL || mlockall(0) != -1 ||
	    errno != EINVAL)
		return check(0, "a bad flag is EINVAL");
	return check(!mlockall(MCL_CURRENT | MCL_FUTURE) && !munlockall(), "mlockall, munlockall");
}

/*
 * PR_SET_PDEATHSIG: the child gets its signal when its parent process
 * ends. This case is a subreaper, so that it reaps the orphan itself.
 */
static int test_prctl_pdeathsig(void)
{
	int p[2], status = -1;
	char c = 0;
	pid_t mid;

	if (pipe(p) || prctl(PR_SET_CHILD_SUBREAPER, 1))
		return check(0, "pipe, PR_SET_CHILD_SUBREAPER");
	if ((mid = fork()) == 0) {
		if (fork() == 0) {
			sigset_t set;
			int sig = 0;

			sigemptyset(&set);
			sigaddset(&set, SIGUSR1);
			sigprocmask(SIG_BLOCK, &set, NULL);
			prctl(PR_SET_PDEATHSIG, SIGUSR1);
			if (write(p[1], "r", 1) != 1)	/* ready: the parent may go */
				_exit(1);
			sigwait(&set, &sig);
			_exit(write(p[1], sig == SIGUSR1 ? "y" : "n", 1) == 1 ? 0 : 1);
		}
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	waitpid(mid, &status, 0);
	close(p[1]);
	if (read(p[0], &c, 1) != 1 || c != 'y')
		return ktap_fail("no parent-death signal (got '%c')", c);
	while (wait(&status) > 0)	/* the orphan, now ours */
		;
	return 1;
}

static int test_prctl_timerslack(void)
{
	long def = prctl(PR_GET_TIMERSLACK);
	int ok = !prctl(PR_SET_TIMERSLACK, 1000) && prctl(PR_GET_TIMERSLACK) == 1000;

	ok = ok && !prctl(PR_SET_TIMERSLACK, 0) && prctl(PR_GET_TIMERSLACK) > 0;
	ktap_diag("default slack %ld ns", def);
	return check(ok && def > 0, "PR_SET_TIMERSLACK, PR_GET_TIMERSLACK");
}

/* PR_TSC_SIGSEGV: rdtsc faults with SIGSEGV, in the thread that asked only. */
static int test_prctl_tsc_sigsegv(void)
{
	int status = -1, mode = 0;
	pid_t pid;

	if (prctl(PR_GET_TSC, &mode) || mode != PR_TSC_ENABLE)
		return check(0, "PR_GET_TSC is PR_TSC_ENABLE");
	if ((pid = fork()) == 0) {
		unsigned int lo, hi;

		if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV) || prctl(PR_GET_TSC, &mode) || mode != PR_TSC_SIGSEGV)
			_exit(3);
		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		_exit(4);
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV ? 1 :
	       ktap_fail("the child ended with status %#x, not SIGSEGV", status);
}

/* PR_SET_CHILD_SUBREAPER: an orphaned grandchild is this process's to wait for. */
static int test_prctl_child_subreaper(void)
{
	int p[2], go[2], status = -1, is = 0;
	pid_t mid, grandchild = 0;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1) || prctl(PR_GET_CHILD_SUBREAPER, &is) || is != 1 ||
	    pipe(p) || pipe(go))
		return check(0, "PR_SET_CHILD_SUBREAPER");
	if ((mid = fork()) == 0) {
		pid_t g = fork();

		if (g == 0) {
			char c;

			close(go[1]);
			_exit(read(go[0], &c, 1) == 1 && c == 'x' ? 0 : 1);	/* until the test says */
		}
		_exit(write(p[1], &g, sizeof(g)) == sizeof(g) ? 0 : 1);
	}
	waitpid(mid, &status, 0);
	if (read(p[0], &grandchild, sizeof(grandchild)) != sizeof(grandchild))
		return ktap_fail("no grandchild");
	if (write(go[1], "x", 1) != 1)
		return check(0, "write");
	return waitpid(grandchild, &status, 0) == grandchild && status == 0 ? 1 :
	       check(0, "waitpid for the adopted grandchild");
}

static const struct test tests[] = {
	{ "meminfo_linux_fields", test_meminfo_linux_fields },
	{ "proc_uptime", test_proc_uptime },
	{ "proc_sys_values", test_proc_sys_values },
	{ "uname_release_is_a_linux_version", test_uname_release_is_a_linux_version },
	{ "nofile_limit_1024", test_nofile_limit_1024 },
	{ "root_raises_rlimit", test_root_raises_rlimit },
	{ "dup3_same_fd_einval", test_dup3_same_fd_einval },
	{ "mmap_shared_closed_fd_ebadf", test_mmap_shared_closed_fd_ebadf },
	{ "readv_negative_len_einval", test_readv_negative_len_einval },
	{ "opath_fchmod_fchown_ebadf", test_opath_fchmod_fchown_ebadf },
	{ "select_fifo_both_sets", test_select_fifo_both_sets },
	{ "madv_wipeonfork", test_madv_wipeonfork },
	{ "sync_calls", test_sync_calls },
	{ "fallocate_tmpfs", test_fallocate_tmpfs },
	{ "mlock_family", test_mlock_family },
	{ "prctl_pdeathsig", test_prctl_pdeathsig },
	{ "prctl_timerslack", test_prctl_timerslack },
	{ "prctl_tsc_sigsegv", test_prctl_tsc_sigsegv },
	{ "prctl_child_subreaper", test_prctl_child_subreaper },
};

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	int r;

	/* A real file system's folder on the host (TMPDIR or /tmp), ccos's /tmp there. */
	snprintf(dir, sizeof(dir), "%s/glibcproc.%d", tmp && *tmp ? tmp : "/tmp", getpid());
	if (mkdir(dir, 0755)) {
		printf("glibcproc: cannot make %s\n", dir);
		return 1;
	}
	r = run_tests(tests, ARRAY_SIZE(tests));
	rmdir(dir);
	return r;
}
