/* fuzz: random system calls with hostile arguments, each in a child under a watchdog. */
#include "fuzz/fuzz.h"

/*
 * fuzz SEED CALLS [trace]: the calls come from SEED alone, so a run can be
 * repeated; `trace` prints each call before it is made, to find the one a
 * hang stopped at. Each call runs in a forked child, which the parent
 * kills if it is not done in WATCHDOG_MS, then reaps. One in 8 is a
 * thread round instead (user/fuzz/threads.c): the child's threads, on
 * every CPU, race the calls that SMP makes hard. One in 64 checks what the
 * kernel copies out (copyout.c, sigframe.c), one in 64 a file of /tmp
 * against a model (filemodel.c), one in 128 the time calls at the edges
 * of time (timevals.c), one in 128 sleeps that signals interrupt
 * (sleepsig.c), and every MEMFILL calls (and once in a
 * shorter run) memory is filled and freed before a fork (memfill.c): a
 * check round's child reports what it saw wrong through a pipe, and each
 * check has its KTAP result. A line every HEARTBEAT calls shows the run
 * is alive. At the end, memory and the number of processes must be back
 * where they were.
 */
#define WATCHDOG_MS	100
#define CHECK_WATCHDOG_MS	20000	/* a check round: filling memory takes seconds under TCG */
#define HEARTBEAT	500
#define WARMUP		200		/* calls before the first count of memory */
#define SLACK_KB	256		/* the kernel heap may keep a few more pages cached */
#define MAX_NR		512
#define MEMFILL		5000

#define __WALL		0x40000000

enum round { CALL, THREADS, COPYOUT, FILE_MODEL, MEMFILL_FORK, TIME_VALUES, SLEEPS, NR_ROUNDS };

static const struct check {
	const char *name;		/* a check's KTAP result */
	int (*run)(int fd);
} checks[NR_ROUNDS] = {
	[CALL] = { "a random call", NULL },
	[THREADS] = { "a thread round", NULL },
	[COPYOUT] = { "copied_out_structures_hold_no_stray_bytes", check_copyout },
	[FILE_MODEL] = { "tmpfs_rewrites_match_the_model", check_file_model },
	[MEMFILL_FORK] = { "fork_after_memory_filled_and_freed", check_fork_after_fill },
	[TIME_VALUES] = { "time_values_at_the_edges_saturate", check_time_values },
	[SLEEPS] = { "interrupted_sleeps_answer_what_is_ready", check_interrupted_sleeps },
};

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
	0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 23, 24, 25,
	26, 28, 29, 30, 31, 34, 35, 36, 37, 38, 39, 56, 57, 58, 59, 60, 61, 62, 63, 67, 79, 86,
	96, 97, 98, 99, 100, 102, 104, 107, 108, 109, 110, 111, 112, 121, 124, 127, 129,
	130, 131, 137, 138, 142, 143, 144, 145, 146, 147, 157, 158, 159, 160, 164, 186, 200,
	201, 203, 204, 218, 222, 223, 224, 225, 226, 227, 228, 229, 230, 231, 234, 247, 257,
	262, 265, 270, 295, 296, 297, 302, 305, 309, 310, 311, 318, 435, 449,
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
	if (c->nr == __NR_mmap && (r >> 24) % 2)
		c->a[4] = (r >> 25) % 2 ? 7 : 10;	/* a /tmp file's pages (fds_setup) */
	aim_shm_call(c, r);
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

/* A line of a check's report, written to fd (a pipe to the parent); 1, a failure. */
int report(int fd, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	n = n < (int)sizeof(line) - 1 ? n : (int)sizeof(line) - 2;
	line[n++] = '\n';
	write(fd, line, n);
	return 1;
}

/* The child: fds 0, 1 and 2 become a read-only file, so no stray write reaches the console. */
static void setup_child(unsigned int watchdog_s)
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
	alarm(watchdog_s);		/* a second watchdog, should the parent's fail */
	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = next_random();
}

struct counts {
	long returned, signaled, watchdog, forkfail;
};

/* Of each check: its runs, the failed ones, and what the first saw. */
static struct {
	long runs, failed, first_call, ns;
	char first[200];
} results[NR_ROUNDS];

static void child_exited(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
}

/*
 * Wait for the child until the deadline: SIGCHLD, blocked but for the
 * ppoll, ends the wait as the child exits, on whichever CPU it ran. (A
 * yield, then a sleep of a tick, waited a tick per call when the child
 * ran on another CPU.) Then kill it if it is still there. Its wait
 * status, or -1 if the watchdog killed it.
 */
static int reap(long pid, struct counts *k, long n, long watchdog_ms)
{
	long deadline = now_ns() + watchdog_ms * MSEC, left, r, stray;
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
	return r ? status : -1;
}

/*
 * A check round's verdict: the child's report from the pipe (one line
 * for each thing it saw wrong), or how it ended if not by exit(0).
 */
static void judge(enum round round, long n, int status, long rfd)
{
	char text[1024], *line, *end;
	long got;

	fcntl(rfd, F_SETFL, O_NONBLOCK);
	got = read(rfd, text, sizeof(text) - 1);
	text[got > 0 ? got : 0] = 0;
	if (!text[0] && status < 0)
		snprintf(text, sizeof(text), "still running after %d ms, killed\n", CHECK_WATCHDOG_MS);
	else if (!text[0] && WIFSIGNALED(status))
		snprintf(text, sizeof(text), "killed by signal %d\n", WTERMSIG(status));
	else if (!text[0] && WEXITSTATUS(status))
		snprintf(text, sizeof(text), "exit status %d, and no report\n", WEXITSTATUS(status));
	results[round].runs++;
	if (!text[0])
		return;
	if (!results[round].failed++) {
		results[round].first_call = n;
		snprintf(results[round].first, sizeof(results[round].first), "%s", text);
		*strchr(results[round].first, '\n') = 0;
	}
	for (line = text; (end = strchr(line, '\n')); line = end + 1) {
		*end = 0;
		ktap_diag("call %ld: %s: %s", n, checks[round].name, line);
	}
}

/* Which round call n is: from the seed, but memory is filled every MEMFILL calls (once in a shorter run). */
static enum round draw_round(long n, long calls)
{
	unsigned long r = next_random();

	if (n % MEMFILL == 0 || (calls < MEMFILL && n == calls / 2))
		return MEMFILL_FORK;
	if (r % 64 == 0)
		return COPYOUT;
	if (r % 64 == 1)
		return FILE_MODEL;
	if (r % 128 == 2)
		return TIME_VALUES;
	if (r % 128 == 3)
		return SLEEPS;
	return r % 8 == 2 ? THREADS : CALL;
}

/* Before a count of memory: the rounds' files of /tmp go, directories a killed round left, and SysV segments. */
static void remove_files(void)
{
	char name[64];
	int i;

	for (i = 0; i < FUZZ_FILES; i++) {
		fuzz_file_name(name, sizeof(name), i);
		syscall1(__NR_unlink, (long)name);
	}
	for (i = 0; i < FUZZ_SPRAY; i++) {
		fuzz_spray_name(name, sizeof(name), i);
		syscall1(__NR_rmdir, (long)name);
	}
	syscall1(__NR_unlink, (long)FUZZ_MODEL_FILE);
	syscall1(__NR_unlink, (long)FUZZ_FIFO);
	remove_segments();
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

/* Once init has reaped the orphans, at most want processes (polled for up to 20 s): how many there are. */
static int settle(int want)
{
	long t0 = now_ns();
	int n;

	while ((n = processes()) > want && now_ns() - t0 < 20000 * MSEC)
		sleep_ns(10 * MSEC);
	return n;
}

static unsigned long parse_number(const char *s)
{
	unsigned long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + *s++ - '0';
	return v;
}

/* Each check's KTAP result: ok, not ok with what its first failure saw, or a skip if never drawn. */
static void check_results(long calls)
{
	enum round i;

	for (i = COPYOUT; i < NR_ROUNDS; i++)
		ktap_diag("fuzz check: %ld rounds of %s in %ld ms", results[i].runs, checks[i].name,
			  results[i].ns / MSEC);
	for (i = COPYOUT; i < NR_ROUNDS; i++) {
		char why[64];

		if (!results[i].runs) {
			snprintf(why, sizeof(why), "not drawn in %ld calls", calls);
			ktap_skip(why, checks[i].name);
			continue;
		}
		if (results[i].failed)
			ktap_fail("%ld of %ld runs failed, the first at call %ld: %s", results[i].failed,
				  results[i].runs, results[i].first_call, results[i].first);
		ktap_ok(!results[i].failed, "%s", checks[i].name);
	}
}

int main(int argc, char **argv, char **envp)
{
	unsigned long seed = argc > 1 ? parse_number(argv[1]) : 1;
	long calls = argc > 2 ? (long)parse_number(argv[2]) : 2000, n, pid;
	int trace = argc > 3 && !strcmp(argv[3], "trace"), procs_before = 0, status, pipefd[2];
	int procs_start = processes(), procs_after;
	long free_before = 0, free_after, t0 = now_ns(), t_round;
	unsigned long online = 1;
	struct thread_plan *plan = NULL;
	sigset_t chld = 1ul << (SIGCHLD - 1);
	struct counts k = { 0 };
	enum round round;
	struct call c;

	(void)envp;
	rng = seed * 0x9e3779b97f4a7c15ul + 1;
	sigaction(SIGCHLD, child_exited, 0);
	rt_sigprocmask(SIG_BLOCK, &chld, NULL, sizeof(chld));
	sched_getaffinity(0, sizeof(online), &online);
	ktap_plan(3 + NR_ROUNDS - COPYOUT);
	ktap_diag("fuzz: seed %lu, %ld calls, watchdog %d ms (repeat with: fuzz %lu %ld trace)",
		  seed, calls, WATCHDOG_MS, seed, calls);
	for (n = 1; n <= calls; n++) {
		if (n == WARMUP || (n == calls && calls < WARMUP)) {
			procs_before = settle(procs_start);	/* the warm-up's orphans gone */
			remove_files();
			free_before = meminfo_kb("MemFree");
		}
		round = draw_round(n, calls);
		plan = round == THREADS ? make_threads() : NULL;
		if (round == CALL)
			make_call(&c);
		if (trace && plan)
			trace_threads(n, plan);
		else if (trace && round == CALL)
			trace_call("call", n, &c);
		else if (trace)
			ktap_diag("call %ld: %s", n, checks[round].name);
		t_round = now_ns();
		if (round >= COPYOUT && pipe2(pipefd, O_CLOEXEC)) {
			k.forkfail++;
			continue;
		}
		pid = fork();
		if (pid == 0) {
			setup_child(round >= COPYOUT ? CHECK_WATCHDOG_MS / 1000 + 1 : 2);
			if (round >= COPYOUT)
				exit_group(checks[round].run(pipefd[1]) ? 1 : 0);
			if (plan)
				run_threads(plan, online);	/* does not return */
			aim_call(&c, getpid());
			syscall6(c.nr, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4], c.a[5]);
			exit_group(0);
		}
		if (round >= COPYOUT)
			close(pipefd[1]);
		if (pid < 0) {
			k.forkfail++;
			if (round >= COPYOUT)
				close(pipefd[0]);
			sleep_ns(10 * MSEC);
			continue;
		}
		status = reap(pid, &k, n, round >= COPYOUT ? CHECK_WATCHDOG_MS : WATCHDOG_MS);
		if (round >= COPYOUT) {
			judge(round, n, status, pipefd[0]);
			close(pipefd[0]);
			results[round].ns += now_ns() - t_round;
		} else if (status == -1 && k.watchdog <= 20) {
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
	procs_after = settle(procs_before);
	remove_files();
	free_after = meminfo_kb("MemFree");
	ktap_diag("fuzz: done, %ld calls in %ld ms; MemFree %ld kB -> %ld kB; processes %d -> %d",
		  calls, (now_ns() - t0) / MSEC, free_before, free_after, procs_before, procs_after);
	print_smpstat();
	ktap_ok(k.returned + k.signaled + k.watchdog == calls && !k.forkfail,
		"every_call_returned_or_was_killed");
	ktap_ok(free_after >= free_before - SLACK_KB, "no_memory_leaked");
	ktap_ok(procs_after == procs_before, "no_process_left");
	check_results(calls);
	return ktap_done();
}
