/* fuzz: random system calls with hostile arguments, each in a child under a watchdog. */
#include "fuzz/fuzz.h"

/*
 * fuzz SEED CALLS [trace]: the calls come from SEED alone, so a run can be
 * repeated; `trace` prints each call before it is made, to find the one a
 * hang stopped at. Each call runs in a forked child, which the parent
 * kills if it is not done in WATCHDOG_MS, then reaps. One in THREAD_ROUND
 * is a thread round instead (user/fuzz/threads.c): the child's threads,
 * on every CPU, race the calls that SMP makes hard. A line every
 * HEARTBEAT calls shows the run is alive. At the end, memory and the
 * number of processes must be back where they were.
 */
#define WATCHDOG_MS	100
#define HEARTBEAT	500
#define WARMUP		200		/* calls before the first count of memory */
#define SLACK_KB	256		/* the kernel heap may keep a few more pages cached */
#define MAX_NR		512
#define THREAD_ROUND	8

#define __NR_sysinfo	99
#define __NR_tkill	200
#define __NR_tgkill	234
#define __NR_rt_sigqueueinfo	129
#define __NR_rt_tgsigqueueinfo	297
#define __WALL		0x40000000

/* xorshift64*: small, and the same sequence on every machine for a seed. */
static unsigned long rng;

unsigned long next_random(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dul;
}

/* The numbers ccos implements, picked more often than the rest. */
static const short known[] = {
	0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 19, 20, 23, 24, 25, 28, 34, 35,
	36, 37, 38, 39, 56, 57, 58, 59, 60, 61, 62, 63, 79, 96, 97, 99, 102, 104, 107, 108,
	109, 110, 111, 112, 121, 124, 127, 129, 130, 131, 157, 158, 160, 186, 200, 201, 203,
	204, 218, 222, 223, 224, 225, 226, 228, 229, 230, 231, 234, 257, 262, 270, 297, 302, 309,
	310, 318, 435,
};

static char buf[8192] __attribute__((aligned(4096)));	/* what "a user pointer" points into */

/* A hostile value made of the bits of r: the same r, the same value. */
unsigned long hostile(unsigned long r)
{
	static const unsigned long kernel[] = {
		0xffffffff80000000ul, 0xffff800000000000ul, 0xffff888000000000ul,
		0xffffffffff5ff000ul, 0xffffffffff600000ul, 0xfffffffffffff000ul,
	};
	static const unsigned long huge[] = {
		~0ul, 0x7ffffffffffful, 1ul << 40, 0x7ffffffful, 0x80000000ul, 0xfffffffful,
		0x800000000000ul - 0x10000,
	};
	switch (r % 8) {
	case 0: return (long)(r >> 8) % 8 - 1;			/* -1 ... 6 */
	case 1: return (r >> 8) & 1 ? (unsigned long)(long)(int)(r >> 16) : (unsigned int)(r >> 16);
	case 2: return (unsigned long)buf + (r >> 8) % sizeof(buf);	/* mapped */
	case 3: return ((r >> 8) & 0x7ffffffff) << 12;		/* mostly unmapped */
	case 4: return kernel[(r >> 8) % ARRAY_SIZE(kernel)] + ((r >> 16) & 0xfff);
	case 5: return 0x800000000000ul | (r >> 8) << 47;	/* non-canonical */
	case 6: return huge[(r >> 8) % ARRAY_SIZE(huge)];
	}
	return r * 0x9e3779b97f4a7c15ul;			/* 64 random bits */
}

unsigned long random_arg(void)
{
	unsigned long r = next_random();

	return r % 8 == 7 ? next_random() : hostile(r);
}

void make_call(struct call *c)
{
	unsigned long r = next_random();
	int i;

	if (r % 4)
		c->nr = known[(r >> 8) % ARRAY_SIZE(known)];
	else
		c->nr = (r >> 8) % 8 ? (r >> 16) % MAX_NR : next_random();
	for (i = 0; i < 6; i++)
		c->a[i] = random_arg();
}

/* Calls that would reach outside the child are pointed back at it: kill(-1) would end the run. */
void aim_call(struct call *c, long tgid)
{
	if (c->nr == __NR_kill || c->nr == __NR_tkill || c->nr == __NR_rt_sigqueueinfo)
		c->a[0] = tgid;
	if (c->nr == __NR_tgkill || c->nr == __NR_rt_tgsigqueueinfo)
		c->a[0] = c->a[1] = tgid;
	if (c->nr == __NR_reboot)
		c->nr = __NR_getpid;
}

void trace_call(const char *what, long n, const struct call *c)
{
	ktap_diag("%s %ld: %ld(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)", what, n, c->nr,
		  c->a[0], c->a[1], c->a[2], c->a[3], c->a[4], c->a[5]);
}

/* The child: fds 0, 1 and 2 become a read-only file, so no stray write reaches the console. */
static void setup_child(void)
{
	struct kernel_sigaction dfl = { 0 };
	sigset_t none = 0;
	int i;

	for (i = 0; i < 3; i++) {
		close(i);
		open("/proc/meminfo", O_RDONLY, 0);
	}
	rt_sigaction(SIGCHLD, &dfl, NULL, sizeof(sigset_t));	/* as the parent's were */
	rt_sigprocmask(SIG_SETMASK, &none, NULL, sizeof(none));
	alarm(2);			/* a second watchdog, should the parent's fail */
	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = next_random();
}

struct counts {
	long returned, signaled, watchdog, forkfail;
};

static void child_exited(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
}

/*
 * Wait for the child until the deadline: SIGCHLD, blocked but for the
 * ppoll, ends the wait as the child exits, on whichever CPU it ran. (A
 * yield, then a sleep of a tick, waited a tick per call when the child
 * ran on another CPU.) Then kill it if it is still there.
 */
static int reap(long pid, struct counts *k, long n)
{
	long deadline = now_ns() + WATCHDOG_MS * MSEC, left, r, stray;
	sigset_t unblocked = 0;
	struct timespec ts;
	int status, other;

	while ((r = wait4(pid, &status, WNOHANG, NULL)) == 0 && (left = deadline - now_ns()) > 0) {
		ts.tv_sec = left / 1000000000L;
		ts.tv_nsec = left % 1000000000L;
		syscall5(__NR_ppoll, 0, 0, (long)&ts, (long)&unblocked, sizeof(unblocked));
	}
	if (r == 0) {
		kill(pid, SIGKILL);
		wait4(pid, &status, 0, NULL);
		k->watchdog++;
	} else if (WIFSIGNALED(status)) {
		k->signaled++;
	} else {
		k->returned++;
	}
	/* A clone with CLONE_PARENT made a child of this process: reap it too. */
	while ((stray = wait4(-1, &other, WNOHANG | __WALL, NULL)) > 0)
		ktap_diag("call %ld: reaped %ld, a process it made this one's child", n, stray);
	return r != 0;
}

/* Per CPU, the kernel lock's contention, switches, halts and TLB shootdowns (docs/smp.md). */
static void print_smpstat(void)
{
	char b[1024], *p, *e;
	long fd = open("/proc/smpstat", O_RDONLY, 0), n;

	if (fd < 0)
		return;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return;
	b[n] = 0;
	for (p = b; (e = strchr(p, '\n')); p = e + 1) {
		*e = 0;
		ktap_diag("smpstat: %s", p);
	}
}

static int processes(void)
{
	unsigned long si[14] = { 0 };	/* struct sysinfo: procs is the u16 at offset 80 */

	syscall1(__NR_sysinfo, (long)si);
	return (unsigned short)si[10];
}

static unsigned long parse_number(const char *s)
{
	unsigned long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + *s++ - '0';
	return v;
}

int main(int argc, char **argv, char **envp)
{
	unsigned long seed = argc > 1 ? parse_number(argv[1]) : 1;
	long calls = argc > 2 ? (long)parse_number(argv[2]) : 2000, n, pid;
	int trace = argc > 3 && !strcmp(argv[3], "trace"), procs_before = 0;
	long free_before = 0, free_after, t0 = now_ns();
	unsigned long online = 1;
	struct thread_plan *plan = NULL;
	sigset_t chld = 1ul << (SIGCHLD - 1);
	struct counts k = { 0 };
	struct call c;

	(void)envp;
	rng = seed * 0x9e3779b97f4a7c15ul + 1;
	sigaction(SIGCHLD, child_exited, 0);
	rt_sigprocmask(SIG_BLOCK, &chld, NULL, sizeof(chld));
	sched_getaffinity(0, sizeof(online), &online);
	ktap_plan(3);
	ktap_diag("fuzz: seed %lu, %ld calls, watchdog %d ms (repeat with: fuzz %lu %ld trace)",
		  seed, calls, WATCHDOG_MS, seed, calls);
	for (n = 1; n <= calls; n++) {
		if (n == WARMUP || (n == calls && calls < WARMUP)) {
			sleep_ns(50 * MSEC);		/* let init reap the orphans */
			free_before = meminfo_kb("MemFree");
			procs_before = processes();
		}
		plan = next_random() % THREAD_ROUND ? NULL : make_threads();
		if (!plan)
			make_call(&c);
		if (trace && plan)
			trace_threads(n, plan);
		else if (trace)
			trace_call("call", n, &c);
		pid = fork();
		if (pid == 0) {
			setup_child();
			if (plan)
				run_threads(plan, online);	/* does not return */
			aim_call(&c, getpid());
			syscall6(c.nr, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4], c.a[5]);
			exit_group(0);
		}
		if (pid < 0) {
			k.forkfail++;
			sleep_ns(10 * MSEC);
			continue;
		}
		if (!reap(pid, &k, n) && k.watchdog <= 20) {
			if (plan)
				ktap_diag("call %ld: a thread round still running after %d ms: killed",
					  n, WATCHDOG_MS);
			else
				trace_call("still running after 100 ms, killed: call", n, &c);
		}
		if (n % HEARTBEAT == 0)
			ktap_diag("fuzz: %ld calls in %ld ms: %ld returned, %ld killed by a signal, %ld by the watchdog",
				  n, (now_ns() - t0) / MSEC, k.returned, k.signaled, k.watchdog);
	}
	sleep_ns(100 * MSEC);
	free_after = meminfo_kb("MemFree");
	ktap_diag("fuzz: done, %ld calls in %ld ms; MemFree %ld kB -> %ld kB; processes %d -> %d",
		  calls, (now_ns() - t0) / MSEC, free_before, free_after, procs_before, processes());
	print_smpstat();
	ktap_ok(k.returned + k.signaled + k.watchdog == calls && !k.forkfail,
		"every_call_returned_or_was_killed");
	ktap_ok(free_after >= free_before - SLACK_KB, "no_memory_leaked");
	ktap_ok(processes() == procs_before, "no_process_left");
	return ktap_done();
}
