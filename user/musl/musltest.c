/* musltest: an unmodified static musl program: startup, TLS, stdio, malloc, clocks, files, fork. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ktap.h"

/*
 * Built with musl-gcc -static (user/libc.mk), it runs as it is on
 * ccos and on Linux. Each case uses libc as any program would; what it
 * needs from the kernel is in the comment above it.
 */

#define ARCH_GET_FS	0x1003

extern char **environ;
extern char _start[];
static char **g_argv;
static int g_argc;

/* ---- startup: the initial stack, TLS, the thread pointer ---- */

/* argv, envp and the auxiliary vector as musl's __libc_start_main found them. */
static int test_startup(void)
{
	if (g_argc < 1 || g_argv[g_argc] || !environ)
		return ktap_fail("argc %d, argv or environ misplaced", g_argc);
	if (getauxval(AT_PAGESZ) != 4096 || sysconf(_SC_PAGESIZE) != 4096)
		return ktap_fail("AT_PAGESZ %lu", getauxval(AT_PAGESZ));
	if (getauxval(AT_ENTRY) != (unsigned long)_start)
		return ktap_fail("AT_ENTRY %#lx, _start %p", getauxval(AT_ENTRY), (void *)_start);
	if (!getauxval(AT_PHDR) || !getauxval(AT_RANDOM))
		return ktap_fail("no AT_PHDR or AT_RANDOM");
	if (!getenv("HOME") && !getenv("PATH"))
		return ktap_fail("neither HOME nor PATH in the environment");
	return 1;
}

/*
 * TLS: musl copies the PT_TLS image into its static TLS area and points
 * FS at the thread structure with arch_prctl(ARCH_SET_FS).
 */
static __thread int tls_initialized = 0x5eed;
static __thread char tls_zeroed[256];

static int test_tls(void)
{
	unsigned long fs = 0;
	int i;

	if (tls_initialized != 0x5eed)
		return ktap_fail("an initialized __thread int reads %#x", tls_initialized);
	for (i = 0; i < (int)sizeof(tls_zeroed); i++)
		if (tls_zeroed[i])
			return ktap_fail("a __thread array is not zero at %d", i);
	tls_initialized++;
	if (tls_initialized != 0x5eee)
		return ktap_fail("a __thread int does not keep a write");
	if (syscall(SYS_arch_prctl, ARCH_GET_FS, &fs) || fs != (unsigned long)pthread_self())
		return ktap_fail("FS base %#lx, pthread_self %p", fs, (void *)pthread_self());
	return 1;
}

/* errno lives in the thread structure too. */
static int test_errno(void)
{
	errno = 0;
	if (close(-1) != -1 || errno != EBADF)
		return ktap_fail("close(-1): errno %d, expected EBADF", errno);
	if (open("/no/such/file", O_RDONLY) != -1 || errno != ENOENT)
		return ktap_fail("open(missing): errno %d, expected ENOENT", errno);
	return 1;
}

/* set_tid_address returned the thread id musl keeps: the pid, one thread. */
static int test_tid(void)
{
	long tid = syscall(SYS_gettid);

	if (tid != getpid())
		return ktap_fail("gettid %ld, getpid %d", tid, getpid());
	return 1;
}

/* ---- stdio: formatting (x87 and SSE for %f), writev underneath ---- */

static int test_printf_formats(void)
{
	char buf[200];

	snprintf(buf, sizeof(buf), "%d %5.2f %e %g %x %s %lu %c %%", -42, 3.14159, 12345.678,
		 0.0001, 0xbeef, "str", 1UL << 40, 'z');
	if (strcmp(buf, "-42  3.14 1.234568e+04 0.0001 beef str 1099511627776 z %"))
		return ktap_fail("snprintf gave \"%s\"", buf);
	snprintf(buf, sizeof(buf), "%.20Lf", 1.0L / 3);
	if (strncmp(buf, "0.33333333333333333", 19))
		return ktap_fail("long double 1/3 gave \"%s\"", buf);
	return 1;
}

/* printf and fflush: musl writes a buffer and the rest with one writev. */
static int test_stdout(void)
{
	struct iovec iov[3] = { { "# writev: ", 10 }, { "three ", 6 }, { "pieces\n", 7 } };
	int n = printf("# printf: %s %d %.1f\n", "musl", 42, 2.5);

	if (n != 22 || fflush(stdout))
		return ktap_fail("printf returned %d", n);
	if (writev(1, iov, 3) != 23)
		return ktap_fail("writev did not write 23 bytes");
	return 1;
}

/* ---- malloc: brk for the small, mmap for the large ---- */

static int test_malloc_small(void)
{
	enum { N = 2000 };
	static unsigned char *p[N];
	int i, j;

	for (i = 0; i < N; i++) {
		size_t size = 1 + i % 300;

		if (!(p[i] = malloc(size)))
			return ktap_fail("malloc(%zu) failed at %d", size, i);
		memset(p[i], i & 0xff, size);
	}
	for (i = 0; i < N; i++)
		for (j = 0; j < 1 + i % 300; j++)
			if (p[i][j] != (i & 0xff))
				return ktap_fail("block %d byte %d changed: blocks overlap", i, j);
	for (i = 0; i < N; i += 2)
		free(p[i]);
	for (i = 1; i < N; i += 2)
		p[i] = realloc(p[i], 2000);
	for (i = 1; i < N; i += 2) {
		if (!p[i] || p[i][0] != (i & 0xff))
			return ktap_fail("realloc lost block %d", i);
		free(p[i]);
	}
	return 1;
}

/* A large block is its own mmap: a line in /proc/self/maps, gone after free. */
static int maps_covers(void *addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[256];
	int found = 0;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (sscanf(line, "%lx-%lx", &s, &e) == 2 && (unsigned long)addr >= s &&
		    (unsigned long)addr < e)
			found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

static int test_malloc_large(void)
{
	size_t size = 4 << 20;
	unsigned char *p = malloc(size), *z;
	static volatile uintptr_t middle;	/* volatile: GCC warns of a use after free */
	size_t i;

	if (!p)
		return ktap_fail("malloc(4 MiB) failed");
	p[0] = 1;
	p[size - 1] = 2;
	middle = (uintptr_t)p + size / 2;
	if (!maps_covers(p))
		return ktap_fail("no line of /proc/self/maps covers the 4 MiB block at %p", (void *)p);
	free(p);
	if (maps_covers((void *)middle))
		return ktap_fail("the freed 4 MiB block is still mapped");
	z = calloc(1, 256 << 10);
	for (i = 0; z && i < 256 << 10; i++)
		if (z[i])
			return ktap_fail("calloc memory not zero at %zu", i);
	free(z);
	return z != NULL || ktap_fail("calloc(256 KiB) failed");
}

/* A large block grown by realloc: mremap, or (where it fails) a copy. */
static int test_realloc_large(void)
{
	size_t i, size = 1 << 20;
	unsigned char *p = malloc(size), *q;

	if (!p)
		return ktap_fail("malloc(1 MiB) failed");
	for (i = 0; i < size; i++)
		p[i] = i * 7;
	if (!(q = realloc(p, 3 * size)))
		return ktap_fail("realloc to 3 MiB failed");
	for (i = 0; i < size; i++)
		if (q[i] != (unsigned char)(i * 7))
			return ktap_fail("byte %zu lost in realloc", i);
	q[3 * size - 1] = 1;
	free(q);
	return 1;
}

/* What start-up code and small tools ask of the system. */
static int test_libc_misc(void)
{
	unsigned char a[64] = { 0 }, b[64] = { 0 };
	char cwd[256], *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				    -1, 0);

	if (!getcwd(cwd, sizeof(cwd)) || cwd[0] != '/')
		return ktap_fail("getcwd: errno %d", errno);
	if (getrandom(a, sizeof(a), 0) != sizeof(a) || getrandom(b, sizeof(b), GRND_NONBLOCK) != sizeof(b) ||
	    !memcmp(a, b, sizeof(a)))
		return ktap_fail("getrandom: errno %d, or the same 64 bytes twice", errno);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 1)
		return ktap_fail("sysconf(_SC_NPROCESSORS_ONLN) %ld", sysconf(_SC_NPROCESSORS_ONLN));
	if (page == MAP_FAILED)
		return ktap_fail("mmap failed");
	page[100] = 1;
	if (madvise(page, 4096, MADV_DONTNEED) || page[100] != 0)
		return ktap_fail("madvise(MADV_DONTNEED): errno %d, then the page reads %d, not 0",
				 errno, page[100]);
	munmap(page, 4096);
	isatty(1);	/* a console on ccos, a pipe under the harness */
	return 1;
}

/* ---- clocks ---- */

static int test_clocks(void)
{
	struct timespec rt, m1, m2, req = { 0, 20 * 1000 * 1000 };
	struct timeval tv;
	time_t t;
	long ns;

	if (clock_gettime(CLOCK_REALTIME, &rt) || gettimeofday(&tv, NULL) ||
	    clock_gettime(CLOCK_MONOTONIC, &m1))
		return ktap_fail("a clock failed: errno %d", errno);
	t = time(NULL);
	if (t < 1577836800)
		return ktap_fail("time() %ld is before 2020", (long)t);
	if (labs(t - rt.tv_sec) > 2 || labs(t - tv.tv_sec) > 2)
		return ktap_fail("time %ld, CLOCK_REALTIME %ld, gettimeofday %ld", (long)t,
				 (long)rt.tv_sec, (long)tv.tv_sec);
	if (nanosleep(&req, NULL) || clock_gettime(CLOCK_MONOTONIC, &m2))
		return ktap_fail("nanosleep failed");
	ns = (m2.tv_sec - m1.tv_sec) * 1000000000L + m2.tv_nsec - m1.tv_nsec;
	if (ns < 20 * 1000 * 1000 || ns > 2000L * 1000 * 1000)
		return ktap_fail("a 20 ms nanosleep took %ld ns", ns);
	return 1;
}

/* ---- files ---- */

/* fgets line by line through /proc/self/maps: the stack and this program. */
static int test_fgets_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], *base = strrchr(g_argv[0], '/');
	int stack = 0, self = 0, lines = 0;

	if (!f)
		return ktap_fail("fopen /proc/self/maps: errno %d", errno);
	base = base ? base : g_argv[0];
	while (fgets(line, sizeof(line), f)) {
		lines++;
		stack += strstr(line, "[stack]") != NULL;
		self += strstr(line, base) != NULL;
	}
	fclose(f);
	if (!stack || !self)
		return ktap_fail("%d lines: [stack] %d times, %s %d times", lines, stack, base, self);
	return 1;
}

/* This program's own file: its ELF magic, its size three ways. */
static int test_read_module(void)
{
	FILE *f = fopen(g_argv[0], "rb");
	unsigned char magic[4];
	struct stat st;
	long end;

	if (!f)
		return ktap_fail("fopen %s: errno %d", g_argv[0], errno);
	if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "\177ELF", 4))
		return fclose(f), ktap_fail("no ELF magic at the start of %s", g_argv[0]);
	if (fseek(f, 0, SEEK_END) || (end = ftell(f)) <= 4 || fstat(fileno(f), &st) ||
	    st.st_size != end || !S_ISREG(st.st_mode))
		return fclose(f), ktap_fail("fseek/ftell/fstat disagree on the size");
	rewind(f);
	if (fgetc(f) != 0x7f)
		return fclose(f), ktap_fail("rewind did not go back");
	fclose(f);
	/* ccos: a read-only file system; Linux: the file of a running program */
	if (fopen(g_argv[0], "w") || (errno != EROFS && errno != ETXTBSY))
		return ktap_fail("fopen for writing: errno %d, expected EROFS or ETXTBSY", errno);
	return 1;
}

/* ---- processes ---- */

static int test_fork_waitpid(void)
{
	pid_t parent = getpid(), pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(getppid() == parent ? 7 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return ktap_fail("fork or waitpid failed: errno %d", errno);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 7)
		return ktap_fail("child status %#x, expected exit 7", status);
	pid = fork();
	if (pid == 0) {
		kill(getpid(), SIGTERM);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM)
		return ktap_fail("child status %#x, expected killed by SIGTERM", status);
	if (waitpid(-1, &status, WNOHANG) != -1 || errno != ECHILD)
		return ktap_fail("waitpid with no child: errno %d, expected ECHILD", errno);
	return 1;
}

/* exit runs the atexit handlers (this one ends with its own status) and flushes stdio. */
static void at_exit(void)
{
	_exit(42);
}

static int test_exit_atexit(void)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		atexit(at_exit);
		exit(3);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 42)
		return ktap_fail("child status %#x, expected exit 42 from its atexit handler", status);
	return 1;
}

static int test_uname(void)
{
	struct utsname u;

	if (uname(&u) || strcmp(u.machine, "x86_64"))
		return ktap_fail("uname failed or machine \"%s\"", u.machine);
	printf("# uname: %s %s\n", u.sysname, u.release);
	return 1;
}

static const struct test tests[] = {
	{ "startup_argv_envp_auxv", test_startup },
	{ "tls_arch_prctl", test_tls },
	{ "errno", test_errno },
	{ "set_tid_address_gettid", test_tid },
	{ "printf_formats", test_printf_formats },
	{ "printf_fflush_writev", test_stdout },
	{ "malloc_small_realloc_free", test_malloc_small },
	{ "malloc_large_mmap", test_malloc_large },
	{ "realloc_large", test_realloc_large },
	{ "getcwd_getrandom_madvise", test_libc_misc },
	{ "clock_gettime_gettimeofday_time", test_clocks },
	{ "fopen_fgets_proc_maps", test_fgets_maps },
	{ "fopen_fread_fseek_module", test_read_module },
	{ "fork_waitpid", test_fork_waitpid },
	{ "exit_runs_atexit", test_exit_atexit },
	{ "uname", test_uname },
};

int main(int argc, char **argv)
{
	g_argc = argc;
	g_argv = argv;
	return run_tests(tests, ARRAY_SIZE(tests));
}
