/* fuzz's copy-out check: what the kernel writes into user memory holds no stray byte and no kernel address. */
#include "fuzz.h"

#define SIGUSR2			12
#define WEXITED			4
#define P_PID			1
#define P_ALL			0
#define ARCH_GET_FS		0x1003
#define ARCH_GET_XCOMP_SUPP	0x1021
#define L(x)			((long)(x))

/*
 * Each call writes into out, filled with CANARY first. Then: no 8-byte
 * word of what it wrote may hold a kernel-half address (the few values
 * from -4095 to -1 are numbers, not addresses); nothing after it may have
 * changed; its padding must be zero where Linux zeroes it, still CANARY
 * where Linux leaves it, and one of the two where Linux leaves it but
 * ccos may zero it; and a few fields must hold what they can mean
 * (tv_nsec below 10^9, a NUL inside each uname field). Each failure is
 * one line on the report, naming the call and the byte.
 */
static unsigned char out[4096] __attribute__((aligned(64)));
static int report_fd, failures;
static char what[96];		/* the call being checked, for the report */

enum pad { ZERO, UNTOUCHED, EITHER };
static const char *const pad_name[] = { "zero", "untouched", "zero or untouched" };

static void fill(void)
{
	memset(out, CANARY, sizeof(out));
}

static void saw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void saw(const char *fmt, ...)
{
	char line[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (failures++ < 4)
		report(report_fd, "%s: %s", what, line);
}

/* out[from, to) is padding of this kind. */
static void padding(int from, int to, enum pad kind)
{
	int i;

	for (i = from; i < to; i++) {
		int zero = out[i] == 0, canary = out[i] == CANARY;

		if (kind == ZERO ? !zero : kind == UNTOUCHED ? !canary : !zero && !canary) {
			saw("byte %d is %#x, padding that must be %s", i, out[i], pad_name[kind]);
			return;
		}
	}
}

int kernel_address(unsigned long v)
{
	return v >= 0xffff800000000000ul && v < 0xfffffffffffff001ul;
}

/* The call wrote out[from, to): no kernel address in it. */
static void no_kernel_words(int from, int to)
{
	int i;

	for (i = from; i + 8 <= to; i += 8) {
		unsigned long v;

		memcpy(&v, out + i, 8);
		if (kernel_address(v)) {
			saw("the word at %d holds %#lx, a kernel-half address", i, v);
			return;
		}
	}
}

/* The call wrote out[at, at + len) and nothing after it. */
static void wrote_at(int at, long len)
{
	if (len < 0 || at + len > (long)sizeof(out) - 64) {
		saw("returned %ld", len);
		return;
	}
	no_kernel_words(at, at + len);
	padding(at + len, at + len + 64, UNTOUCHED);
}

static void wrote(long len)
{
	wrote_at(0, len);
}

/* The first NUL of out[from, to), or -1. */
static int nul_in(int from, int to)
{
	for (; from < to; from++)
		if (!out[from])
			return from;
	return -1;
}

/* The 8-byte field at off is below limit (tv_nsec, tv_usec). */
static void below(int off, unsigned long limit)
{
	unsigned long v;

	memcpy(&v, out + off, 8);
	if (v >= limit)
		saw("the field at %d is %lu, %lu or more", off, v, limit);
}

static long stat_call(int nr, const char *path)
{
	snprintf(what, sizeof(what), "%s(%s)", nr == __NR_stat ? "stat" : "lstat", path);
	fill();
	return syscall2(nr, L(path), L(out));
}

/* struct stat: __pad0 and __unused zero (Linux fills a zeroed copy); three timespecs. */
static void check_stat(long r)
{
	if (r)
		return;
	wrote(144);
	padding(36, 40, ZERO);
	padding(120, 144, ZERO);
	below(80, 1000000000);
	below(96, 1000000000);
	below(112, 1000000000);
}

static void stats(void)
{
	static const char *const paths[] = {
		"/", "/bin/init", "/tmp", "/proc/meminfo", "/proc/self/exe", "/dev/null", "/proc",
	};
	int fds[2];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		check_stat(stat_call(__NR_stat, paths[i]));
		check_stat(stat_call(__NR_lstat, paths[i]));
		snprintf(what, sizeof(what), "newfstatat(%s)", paths[i]);
		fill();
		check_stat(syscall4(__NR_newfstatat, AT_FDCWD, L(paths[i]), L(out), 0));
	}
	if (pipe(fds))
		return;
	snprintf(what, sizeof(what), "fstat(a pipe)");
	fill();
	check_stat(fstat(fds[0], (struct stat *)out));
	snprintf(what, sizeof(what), "pipe");
	fill();
	if (!pipe((int *)out)) {
		wrote(8);
		close(((int *)out)[0]);
		close(((int *)out)[1]);
	}
	close(fds[0]);
	close(fds[1]);
}

/* sysinfo: the u16 pad, the hole after it and the tail are zero, as Linux's memset leaves them. */
static void system_info(void)
{
	int i;

	snprintf(what, sizeof(what), "sysinfo");
	fill();
	if (!syscall1(__NR_sysinfo, L(out))) {
		wrote(112);
		padding(82, 88, ZERO);
		padding(108, 112, ZERO);
	}
	snprintf(what, sizeof(what), "uname");
	fill();
	if (uname((struct utsname *)out))
		return;
	wrote(390);
	for (i = 0; i < 6; i++) {
		int nul = nul_in(65 * i, 65 * (i + 1));

		if (nul < 0)
			saw("field %d has no NUL", i);
		else
			padding(nul, 65 * (i + 1), ZERO);
	}
}

/* A struct rusage at out + at (getrusage, wait4's, waitid's): times in range, no kernel word. */
static void check_rusage(int at)
{
	wrote_at(at, 144);
	below(at + 8, 1000000);
	below(at + 24, 1000000);
}

static void times_and_usage(void)
{
	static const int who[] = { 0, -1, 1 };
	static const int clocks[] = { 0, 1, 2, 3, 4, 5, 6, 7, -2, -6 };	/* -2, -6: CPU-time clocks */
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(who); i++) {
		snprintf(what, sizeof(what), "getrusage(%d)", who[i]);
		fill();
		if (!syscall2(__NR_getrusage, who[i], L(out)))
			check_rusage(0);
	}
	snprintf(what, sizeof(what), "times");
	fill();
	syscall1(__NR_times, L(out));
	wrote(32);
	for (i = 0; i < ARRAY_SIZE(clocks); i++) {
		snprintf(what, sizeof(what), "clock_gettime(%d)", clocks[i]);
		fill();
		if (!clock_gettime(clocks[i], (struct timespec *)out)) {
			wrote(16);
			below(8, 1000000000);
		}
		snprintf(what, sizeof(what), "clock_getres(%d)", clocks[i]);
		fill();
		if (!clock_getres(clocks[i], (struct timespec *)out)) {
			wrote(16);
			below(8, 1000000000);
		}
	}
	snprintf(what, sizeof(what), "gettimeofday");
	fill();
	if (!gettimeofday((struct timeval *)out, (struct timezone *)(out + 16))) {
		wrote(24);
		below(8, 1000000);
	}
}

/*
 * waitid writes six fields of the siginfo (Linux's unsafe_put_user of
 * each) and leaves the rest as it was, with a child that ended and with
 * WNOHANG and none; wait4 its status word alone, and the rusage.
 */
static void waits(void)
{
	int p[2], status;
	long pid;
	char c;

	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		read(p[0], &c, 1);
		exit_group(0);
	}
	snprintf(what, sizeof(what), "waitid(WNOHANG, none ended)");
	fill();
	if (!syscall5(__NR_waitid, P_ALL, 0, L(out), WEXITED | WNOHANG, L(out + 256))) {
		padding(0, 12, ZERO);
		padding(12, 16, UNTOUCHED);
		padding(16, 28, ZERO);
		padding(28, 128 + 64, UNTOUCHED);
		padding(256, 256 + 144 + 64, UNTOUCHED);	/* no rusage when nobody ended */
	}
	close(p[1]);
	close(p[0]);
	snprintf(what, sizeof(what), "waitid(P_PID, a child that ended)");
	fill();
	if (!syscall5(__NR_waitid, P_PID, pid, L(out), WEXITED, L(out + 256))) {
		no_kernel_words(0, 128);
		padding(12, 16, UNTOUCHED);
		padding(28, 128 + 64, UNTOUCHED);
		check_rusage(256);
	}
	pid = fork();
	if (pid == 0)
		exit_group(3);
	snprintf(what, sizeof(what), "wait4");
	fill();
	if (wait4(pid, (int *)out, 0, out + 256) == pid) {
		padding(4, 64, UNTOUCHED);
		check_rusage(256);
	}
	wait4(-1, &status, WNOHANG, NULL);
}

/* A signal taken by rt_sigtimedwait: the whole siginfo copied, zero after its fields. */
static void signals(void)
{
	unsigned long set = 1ul << (SIGUSR2 - 1), none = 0;
	struct timespec zero = { 0, 0 };

	rt_sigprocmask(SIG_BLOCK, &set, NULL, 8);
	syscall2(__NR_tkill, gettid(), SIGUSR2);
	snprintf(what, sizeof(what), "rt_sigtimedwait");
	fill();
	if (syscall4(__NR_rt_sigtimedwait, L(&set), L(out), L(&zero), 8) == SIGUSR2) {
		wrote(128);
		padding(24, 128, ZERO);
	}
	rt_sigprocmask(SIG_SETMASK, &none, NULL, 8);
	snprintf(what, sizeof(what), "rt_sigpending");
	fill();
	if (!syscall2(__NR_rt_sigpending, L(out), 8))
		wrote(8);
	snprintf(what, sizeof(what), "rt_sigaction(old)");
	fill();
	if (!rt_sigaction(SIGUSR1, NULL, (struct kernel_sigaction *)out, 8))
		wrote(32);
	snprintf(what, sizeof(what), "sigaltstack(old)");
	fill();
	if (!sigaltstack(NULL, (stack_t *)out)) {
		wrote(24);
		padding(12, 16, EITHER);
	}
}

/* Calls that write a count of bytes: nothing past the count. */
static void counted(void)
{
	static const char *const dirs[] = { "/", "/bin", "/proc", "/tmp", "/proc/self" };
	unsigned int i, resource;
	long n, fd, at;

	snprintf(what, sizeof(what), "readlink(/proc/self/exe)");
	fill();
	wrote(syscall3(__NR_readlink, L("/proc/self/exe"), L(out), 1024));
	snprintf(what, sizeof(what), "getcwd");
	fill();
	wrote(syscall2(__NR_getcwd, L(out), 1024));
	snprintf(what, sizeof(what), "sched_getaffinity(64 bytes)");
	fill();
	n = sched_getaffinity(0, 64, out);
	if (n > 0)
		padding(n, 64, UNTOUCHED);
	snprintf(what, sizeof(what), "pread(/proc/self/stat)");
	fill();
	fd = open("/proc/self/stat", O_RDONLY, 0);
	wrote(syscall4(__NR_pread64, fd, L(out), 1024, 5));
	close(fd);
	snprintf(what, sizeof(what), "process_vm_readv(itself)");
	fill();
	wrote(process_vm_readv(getpid(), &(struct iovec){ out, 100 }, 1,
			       &(struct iovec){ (void *)dirs[0], 100 }, 1, 0));
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(what, sizeof(what), "getdents64(%s)", dirs[i]);
		fill();
		fd = open(dirs[i], O_RDONLY | O_DIRECTORY, 0);
		n = syscall3(__NR_getdents64, fd, L(out), 2048);
		close(fd);
		if (n < 0)
			continue;
		padding(n, 2048, UNTOUCHED);
		for (at = 0; at + 19 < n; at += *(unsigned short *)(out + at + 16)) {
			unsigned short reclen = *(unsigned short *)(out + at + 16);
			int nul = nul_in(at + 19, at + reclen);

			no_kernel_words(at, at + 16);
			if (reclen < 24 || reclen % 8 || at + reclen > n || nul < 0) {
				saw("the record at %ld: d_reclen %u, its name %s", at, reclen,
				    nul < 0 ? "without a NUL" : "past the count");
				break;
			}
			padding(nul + 1, at + reclen, EITHER);
		}
	}
	for (resource = 0; resource < 16; resource++) {
		snprintf(what, sizeof(what), "getrlimit(%u)", resource);
		fill();
		if (!syscall2(__NR_getrlimit, resource, L(out)))
			wrote(16);
	}
	snprintf(what, sizeof(what), "prlimit64(old)");
	fill();
	if (!syscall4(__NR_prlimit64, 0, 3, 0, L(out)))
		wrote(16);
	snprintf(what, sizeof(what), "arch_prctl(ARCH_GET_FS)");
	fill();
	if (!arch_prctl(ARCH_GET_FS, L(out)))
		wrote(8);
	snprintf(what, sizeof(what), "arch_prctl(ARCH_GET_XCOMP_SUPP)");
	fill();
	if (!arch_prctl(ARCH_GET_XCOMP_SUPP, L(out)))
		wrote(8);
	snprintf(what, sizeof(what), "get_robust_list");
	fill();
	if (!syscall3(__NR_get_robust_list, 0, L(out), L(out + 8)))
		wrote(16);
	snprintf(what, sizeof(what), "getcpu");
	fill();
	if (!getcpu((unsigned int *)out, (unsigned int *)(out + 8), NULL)) {
		padding(4, 8, UNTOUCHED);
		padding(12, 64, UNTOUCHED);
	}
}

int check_copyout(int fd)
{
	report_fd = fd;
	failures = 0;
	stats();
	system_info();
	times_and_usage();
	waits();
	signals();
	counted();
	failures += check_sigframes(fd);
	return failures;
}
