/* testutil: expectations, time, small mappings, and the test runner with its watchdog. */
#include "testutil.h"

const char *self;

int expect(long got, long want, const char *what)
{
	if (got == want)
		return 1;
	return ktap_fail("%s returned %ld, expected %ld", what, got, want);
}

int expect_exit(int status, int code, const char *what)
{
	if (status < 0)
		return ktap_fail("%s: fork or wait4 failed: %d", what, status);
	if (WIFSIGNALED(status))
		return ktap_fail("%s: killed by signal %d, expected exit %d",
				 what, WTERMSIG(status), code);
	return expect(WEXITSTATUS(status), code, what);
}

int expect_signal(int status, int sig, const char *what)
{
	if (status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == sig)
		return 1;
	return ktap_fail("%s: wait status %#x, expected killed by signal %d",
			 what, status, sig);
}

int on_ccos(void)
{
	static int known = -1;
	struct utsname u;

	if (known < 0)
		known = uname(&u) == 0 && strcmp(u.sysname, "ccos") == 0;
	return known;
}

long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

long sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	return nanosleep(&ts, NULL);
}

void *map_pages(int n)
{
	return mmap(NULL, n * PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

void find_self(const char *argv0)
{
	long fd;

	if (strchr(argv0, '/') && (fd = open(argv0, O_RDONLY, 0)) >= 0) {
		self = argv0;
		close(fd);
	}
}

/* ---- the runner: each case in a child, under a watchdog ---- */

static char skip_reason[120];

int skip(const char *why)
{
	snprintf(skip_reason, sizeof(skip_reason), "%s", why);
	return SKIPPED;
}

static volatile long watched;		/* the child the watchdog will kill */
static volatile int watched_group;	/* ... with its own process group */
static volatile int watchdog_fired;

/* SIGALRM in the parent: kill the case and whatever it started. */
static void on_watchdog(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si, (void)ctx;
	watchdog_fired = 1;
	if (watched > 0 && watched_group)
		kill(-watched, SIGKILL);
	if (watched > 0)
		kill(watched, SIGKILL);
}

/*
 * Run fn(arg) in a child and wait for it at most `seconds`: its wait
 * status, CASE_TIMED_OUT, or a negative errno. The child leads a process
 * group of its own (both sides call setpgid, so neither waits for the
 * other), and a timeout kills that group; without groups (setpgid fails)
 * only the child is killed, never kill(-pid), which would reach others.
 */
int run_watched(int (*fn)(void *), void *arg, unsigned int seconds)
{
	long pid, r;
	int status = 0;

	pid = fork();
	if (pid < 0)
		return pid;
	if (pid == 0) {
		setpgid(0, 0);
		sigaction(SIGALRM, (void *)SIG_DFL, 0);
		exit_group(fn(arg));
	}
	watched_group = setpgid(pid, pid) == 0 || getpgid(pid) == pid;
	watchdog_fired = 0;
	watched = pid;
	sigaction(SIGALRM, on_watchdog, 0);	/* no SA_RESTART: wait4 ends with -EINTR */
	alarm(seconds ? seconds : CASE_TIMEOUT);
	do
		r = wait4(pid, &status, 0, NULL);
	while (r == -EINTR);
	alarm(0);
	watched = 0;
	if (r < 0)
		return r;
	return watchdog_fired ? CASE_TIMED_OUT : status;
}

/* In the case's child: print its line; exit 0 passed, 1 failed, 2 skipped. */
static int case_child(void *arg)
{
	const struct test *t = arg;
	int r = t->run();

	if (r == SKIPPED) {
		ktap_skip(skip_reason, t->name);
		return 2;
	}
	return !ktap_ok(r, "%s", t->name);
}

static int run_one(const struct test *t)
{
	int status = run_watched(case_child, (void *)t, t->seconds);

	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) <= 2) {
		ktap_count(WEXITSTATUS(status));
		return WEXITSTATUS(status) != 1;
	}
	if (status == CASE_TIMED_OUT)
		ktap_fail("timed out after %u s", t->seconds ? t->seconds : CASE_TIMEOUT);
	else if (status < 0)
		ktap_fail("fork or wait4 failed: error %d", -status);
	else if (WIFSIGNALED(status))
		ktap_fail("killed by signal %d before its result", WTERMSIG(status));
	else
		ktap_fail("exit status %d before its result", WEXITSTATUS(status));
	return ktap_ok(0, "%s", t->name);
}

int run_case(const char *name, int (*run)(void), unsigned int seconds)
{
	const struct test t = { name, run, 0, seconds };

	return run_one(&t);
}

int run_tests(const struct test *tests, unsigned long n)
{
	unsigned long i;

	ktap_plan(n);
	for (i = 0; i < n; i++) {
		if (tests[i].needs_self && !self)
			ktap_skip("argv[0] is not a path to this program's file",
				  tests[i].name);
		else
			run_one(&tests[i]);
	}
	return ktap_done();
}

/* The whole of a small file into buf (NUL-terminated): its length, or the error. */
int all_bytes(const char *p, unsigned long n, int c)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] != (unsigned char)c)
			return 0;
	return 1;
}

unsigned long fill_from_zero(char *p, unsigned long len, long zero)
{
	unsigned long done = 0, chunk;
	long n;

	for (; done < len; done += n) {
		chunk = len - done < (1ul << 20) ? len - done : 1ul << 20;
		if ((n = read(zero, p + done, chunk)) <= 0)
			break;
	}
	return done;
}

char test_dir[64];

const char *in_dir(const char *name)
{
	static char bufs[4][128];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", test_dir, name);
	return b;
}

long slurp(const char *file, char *buf, long size)
{
	long fd = open(file, O_RDONLY, 0), n, got = 0;

	if (fd < 0)
		return fd;
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return got;
}

/* The state letter of /proc/PID/stat, waiting up to 2 s for want; 0 when there is no such file. */
char state_of(long pid, char want)
{
	char file[64], stat[1024];
	int i;

	snprintf(file, sizeof(file), "/proc/%ld/stat", pid);
	for (i = 0; i < 200; i++) {
		if (slurp(file, stat, sizeof(stat)) <= 0 || !strchr(stat, ')'))
			return 0;
		if (strchr(stat, ')')[2] == want)
			break;
		sleep_ns(10 * MSEC);
	}
	return strchr(stat, ')')[2];
}

/*
 * A page takes its frame at its first touch, and a page that fork shares
 * its copy at the first write on either side (docs/memory.md): a case that
 * compares MemFree before and after some work must not count the pages
 * that the work, or the reading of MemFree itself, writes for the first
 * time, nor those its parent writes meanwhile (a case runs in a child,
 * which shares its stack and data with the parent; the runner's watchdog
 * writes its variables after the fork). So this process writes, first,
 * every page of its .data and .bss and of its stack from 32 KiB below this
 * frame up to the initial stack (where environ points): with zeros below
 * the frame, elsewhere with the bytes each holds. From then on every such
 * page is its own, and the parent's writes take its pages back, no copy.
 */
void own_memory(void)
{
	extern char __data_start[], __bss_end[];
	volatile char pad[32 * 1024], *p;
	unsigned long i;

	for (p = __data_start; p < __bss_end; p += PAGE_SIZE)
		*p = *p;
	for (i = 0; i < sizeof(pad); i += PAGE_SIZE)
		pad[i] = 0;
	for (p = __builtin_frame_address(0); p < (volatile char *)environ; p += PAGE_SIZE)
		*p = *p;
}

/* FIELD of /proc/meminfo ("MemFree", "MemTotal", ...), in kB, or -1. */
long meminfo_kb(const char *field)
{
	char buf[512], *p;
	long fd = open("/proc/meminfo", O_RDONLY, 0), n, kb = 0, len = strlen(field);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = buf;
	while (strncmp(p, field, len) || p[len] != ':') {
		p = strchr(p, '\n');
		if (!p)
			return -1;
		p++;
	}
	for (p += len + 1; *p == ' '; p++)
		;
	for (; *p >= '0' && *p <= '9'; p++)
		kb = kb * 10 + (*p - '0');
	return kb;
}
