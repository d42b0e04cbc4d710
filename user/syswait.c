/* syswait: waitid, and the CPU time that getrusage, times, wait4 and /proc report, as on Linux. */
#include "testutil.h"

#define P_ALL			0
#define P_PID			1
#define P_PGID			2
#define P_PIDFD			3
#define WSTOPPED		2
#define WEXITED			4
#define WNOWAIT			0x01000000
#define CLD_EXITED		1
#define CLD_KILLED		2
#define RUSAGE_SELF		0
#define RUSAGE_CHILDREN		(-1)
#define RUSAGE_THREAD		1
#define SIGTERM			15
#define CANARY			0x5a
#define L(x)			((long)(x))

struct rusage {
	struct timeval ru_utime, ru_stime;
	long counts[14];
};

struct tms {
	long tms_utime, tms_stime, tms_cutime, tms_cstime;
};

static long waitid(int idtype, long id, siginfo_t *si, int options, struct rusage *ru)
{
	return syscall5(__NR_waitid, idtype, id, L(si), options, L(ru));
}

/* ---- waitid ---- */

/* A child that exits with code, or, with code < 0, is killed by signal -code. */
static long child(int code)
{
	long pid = fork();

	if (pid == 0) {
		if (code < 0)
			kill(getpid(), -code);
		exit_group(code);
	}
	return pid;
}

/* A child that waits on a pipe until its parent closes the write end (or kills it). */
static long waiting_child(int *write_end)
{
	int p[2];
	long pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		read(p[0], &c, 1);
		exit_group(0);
	}
	close(p[0]);
	*write_end = p[1];
	return pid;
}

/* si as waitid fills it for a child that ended: SIGCHLD, no errno, code, pid, uid, status. */
static int expect_info(const siginfo_t *si, int code, long pid, int status, const char *what)
{
	if (si->si_signo == SIGCHLD && si->si_errno == 0 && si->si_code == code &&
	    si->si_pid == pid && si->si_uid == (uid_t)getuid() && si->si_status == status)
		return 1;
	return ktap_fail("%s: signo %d errno %d code %d pid %d uid %d status %d, expected %d 0 %d %ld %ld %d",
			 what, si->si_signo, si->si_errno, si->si_code, si->si_pid, si->si_uid,
			 si->si_status, SIGCHLD, code, pid, getuid(), status);
}

static int test_waitid_p_pid(void)
{
	long exited = child(7), killed = child(-SIGTERM);
	siginfo_t si;

	return expect(waitid(P_PID, exited, &si, WEXITED, NULL), 0, "waitid(P_PID, exited)") &&
	       expect_info(&si, CLD_EXITED, exited, 7, "exit(7)") &&
	       expect(waitid(P_PID, killed, &si, WEXITED, NULL), 0, "waitid(P_PID, killed)") &&
	       expect_info(&si, CLD_KILLED, killed, SIGTERM, "killed by SIGTERM") &&
	       expect(waitid(P_PID, exited, &si, WEXITED, NULL), -ECHILD, "waitid(P_PID) again");
}

/* WNOWAIT reports the child and leaves it there: waitid again, then wait4, find it. */
static int test_waitid_wnowait(void)
{
	long pid = child(3);
	siginfo_t si;
	int status;

	return expect(waitid(P_PID, pid, &si, WEXITED | WNOWAIT, NULL), 0, "waitid(WNOWAIT)") &&
	       expect_info(&si, CLD_EXITED, pid, 3, "WNOWAIT") &&
	       expect(waitid(P_ALL, 0, &si, WEXITED | WNOWAIT, NULL), 0, "waitid(P_ALL, WNOWAIT)") &&
	       expect_info(&si, CLD_EXITED, pid, 3, "WNOWAIT again") &&
	       expect(wait4(pid, &status, 0, NULL), pid, "wait4 after WNOWAIT") &&
	       expect_exit(status, 3, "wait4's status") &&
	       expect(waitid(P_ALL, 0, &si, WEXITED | WNOHANG, NULL), -ECHILD, "no child left");
}

/* P_PGID: the children of one process group; 0, the caller's. */
static int test_waitid_p_pgid(void)
{
	long other = fork(), mine;
	siginfo_t si;

	if (other == 0) {
		setpgid(0, 0);
		exit_group(5);
	}
	setpgid(other, other);		/* both sides: whoever runs first */
	mine = child(6);
	return expect(waitid(P_PGID, getpgid(0), &si, WEXITED, NULL), 0, "waitid(P_PGID, mine)") &&
	       expect_info(&si, CLD_EXITED, mine, 6, "my group's child") &&
	       expect(waitid(P_PGID, 0, &si, WEXITED | WNOHANG, NULL), -ECHILD,
		      "waitid(P_PGID, 0) with none left in my group") &&
	       expect(waitid(P_PGID, other, &si, WEXITED, NULL), 0, "waitid(P_PGID, other)") &&
	       expect_info(&si, CLD_EXITED, other, 5, "the other group's child");
}

/*
 * WNOHANG with nobody ended: 0, and of the siginfo only the six fields
 * Linux writes are zeroed, the rest left as it was. WSTOPPED finds no
 * stopped child either.
 */
static int test_waitid_wnohang(void)
{
	int w = -1, i, status;
	long pid = waiting_child(&w), r, s;
	unsigned char si[128];

	memset(si, CANARY, sizeof(si));
	r = waitid(P_ALL, 0, (siginfo_t *)si, WEXITED | WNOHANG, NULL);
	s = waitid(P_PID, pid, NULL, WSTOPPED | WNOHANG, NULL);
	close(w);
	wait4(pid, &status, 0, NULL);
	if (!expect(r, 0, "waitid(WNOHANG) with a child running") ||
	    !expect(s, 0, "waitid(WSTOPPED | WNOHANG) with no child stopped"))
		return 0;
	for (i = 0; i < 128; i++) {
		int written = i < 12 || (i >= 16 && i < 28);

		if (si[i] != (written ? 0 : CANARY))
			return ktap_fail("siginfo byte %d is %#x, expected %#x", i, si[i],
					 written ? 0 : CANARY);
	}
	return 1;
}

static int test_waitid_errors(void)
{
	siginfo_t si;
	long pid;

	if (!expect(waitid(P_ALL, 0, &si, WEXITED, NULL), -ECHILD, "waitid with no child") ||
	    !expect(waitid(P_ALL, 0, &si, WNOHANG, NULL), -EINVAL, "no WEXITED, WSTOPPED, WCONTINUED") ||
	    !expect(waitid(P_ALL, 0, &si, WEXITED | 0x100, NULL), -EINVAL, "an unknown option") ||
	    !expect(waitid(99, 0, &si, WEXITED, NULL), -EINVAL, "idtype 99") ||
	    !expect(waitid(P_PID, 0, &si, WEXITED, NULL), -EINVAL, "P_PID 0") ||
	    !expect(waitid(P_PGID, -1, &si, WEXITED, NULL), -EINVAL, "P_PGID -1") ||
	    !expect(waitid(P_PIDFD, -1, &si, WEXITED, NULL), -EINVAL, "P_PIDFD -1") ||
	    !expect(waitid(P_PIDFD, 0, &si, WEXITED, NULL), -EBADF, "P_PIDFD of a file"))
		return 0;
	/* As Linux: the child is reaped before its siginfo is written. */
	pid = child(1);
	return expect(waitid(P_PID, pid, (siginfo_t *)KERNEL_ADDR, WEXITED, NULL), -EFAULT,
		      "waitid into the kernel") &&
	       expect(waitid(P_PID, pid, &si, WEXITED | WNOHANG, NULL), -ECHILD, "the child after it");
}

/* ---- CPU time ---- */

static long tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000L + tv.tv_usec * 1000L;
}

static long user_ns(int who)
{
	struct rusage ru;

	return syscall2(__NR_getrusage, who, L(&ru)) ? -1 : tv_ns(ru.ru_utime);
}

/* The tick charges whole ticks (10 ms), so a process may seem to have run up to two more. */
#define SLACK_NS	(20 * MSEC)
#define TICK_NS		(1000000000L / 100)	/* USER_HZ's clock tick */

/*
 * Spin in user mode for 50 ms by the monotonic clock, and on until the
 * kernel shows some user time in getrusage (of who) and times (at most
 * 2 s: a kernel that counts nothing fails after). Nothing depends on the
 * exact figures: the load of the machine varies.
 */
static void spin(int who)
{
	long t0 = now_ns(), t;
	struct tms tms = { 0 };
	volatile long sink = 0;
	int i;

	do {
		for (i = 0; i < 100000; i++)
			sink += i;
		t = now_ns() - t0;
		syscall1(__NR_times, L(&tms));
	} while (t < 50 * MSEC || (t < 2000 * MSEC && (user_ns(who) <= 0 || tms.tms_utime <= 0)));
}

/* Field n (1 = pid) of /proc/self/stat, after the ")" that ends the name. */
static long stat_field(int n)
{
	char stat[1024], *p;
	long v = 0;
	int i;

	if (slurp("/proc/self/stat", stat, sizeof(stat)) <= 0 || !(p = strchr(stat, ')')))
		return -1;
	for (p += 2, i = 3; i < n && *p; p++)
		i += *p == ' ';
	while (*p >= '0' && *p <= '9')
		v = v * 10 + *p++ - '0';
	return v;
}

/* The user time of all CPUs, /proc/stat's first number, in clock ticks. */
static long all_cpus_user(void)
{
	char stat[512], *p = stat + 4;
	long v = 0;

	if (slurp("/proc/stat", stat, sizeof(stat)) <= 0 || strncmp(stat, "cpu ", 4))
		return -1;
	while (*p == ' ')
		p++;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + *p++ - '0';
	return v;
}

/* A busy loop's user time, bounded by the time it took; the children's still 0. */
static int test_cputime_self(void)
{
	long t0 = now_ns(), j0 = syscall1(__NR_times, 0), j1, elapsed;
	struct rusage self, thread, children;
	struct tms tms;

	spin(RUSAGE_SELF);
	j1 = syscall1(__NR_times, L(&tms));
	elapsed = now_ns() - t0;
	/* The thread first: its time, read later, may pass the process's read before. */
	if (!expect(syscall2(__NR_getrusage, RUSAGE_THREAD, L(&thread)), 0, "getrusage(THREAD)") ||
	    !expect(syscall2(__NR_getrusage, RUSAGE_SELF, L(&self)), 0, "getrusage(SELF)") ||
	    !expect(syscall2(__NR_getrusage, RUSAGE_CHILDREN, L(&children)), 0, "getrusage(CHILDREN)") ||
	    !expect(syscall2(__NR_getrusage, 2, L(&self)), -EINVAL, "getrusage(2)") ||
	    !expect(syscall2(__NR_getrusage, RUSAGE_SELF, KERNEL_ADDR), -EFAULT, "getrusage into the kernel") ||
	    !expect(syscall1(__NR_times, KERNEL_ADDR), -EFAULT, "times into the kernel"))
		return 0;
	ktap_diag("%ld ms: getrusage user %ld us system %ld us, times %ld+%ld ticks, %ld ticks went by",
		  elapsed / MSEC, tv_ns(self.ru_utime) / 1000, tv_ns(self.ru_stime) / 1000,
		  tms.tms_utime, tms.tms_stime, j1 - j0);
	if (tv_ns(self.ru_utime) <= 0 || tv_ns(self.ru_utime) + tv_ns(self.ru_stime) > elapsed + SLACK_NS)
		return ktap_fail("getrusage(SELF): user %ld ns, system %ld ns after %ld ns",
				 tv_ns(self.ru_utime), tv_ns(self.ru_stime), elapsed);
	/* Linux scales the two sums apart (cputime_adjust): a tick's room. */
	if (tv_ns(thread.ru_utime) <= 0 || tv_ns(thread.ru_utime) > tv_ns(self.ru_utime) + TICK_NS)
		return ktap_fail("getrusage(THREAD): user %ld ns, the process's %ld ns",
				 tv_ns(thread.ru_utime), tv_ns(self.ru_utime));
	if (tms.tms_utime <= 0 || (tms.tms_utime + tms.tms_stime) * TICK_NS > elapsed + SLACK_NS)
		return ktap_fail("times: user %ld, system %ld ticks after %ld ns", tms.tms_utime,
				 tms.tms_stime, elapsed);
	if (j1 < j0 || (j1 - j0) * TICK_NS > elapsed + SLACK_NS)
		return ktap_fail("times returned %ld, then %ld after %ld ns", j0, j1, elapsed);
	return expect(tv_ns(children.ru_utime) + tv_ns(children.ru_stime), 0, "children's time") &&
	       expect(tms.tms_cutime + tms.tms_cstime, 0, "times: children's time") &&
	       expect(stat_field(14) > 0, 1, "/proc/self/stat utime > 0") &&
	       expect(stat_field(16), 0, "/proc/self/stat cutime") &&
	       expect(all_cpus_user() > 0, 1, "/proc/stat: the CPUs' user time > 0");
}

static int spinning_child(void *unused)
{
	(void)unused;
	spin(RUSAGE_SELF);
	return 0;
}

/* A child's time comes to its parent when it is waited for: wait4's rusage, then the children's. */
static int test_cputime_child(void)
{
	long t0 = now_ns(), pid = fork(), elapsed;
	struct rusage ru;
	struct tms tms;
	int status;

	if (pid == 0)
		exit_group(spinning_child(NULL));
	if (!expect(wait4(pid, &status, 0, &ru), pid, "wait4") || !expect_exit(status, 0, "the child"))
		return 0;
	elapsed = now_ns() - t0;
	syscall1(__NR_times, L(&tms));
	if (tv_ns(ru.ru_utime) <= 0 || tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime) > elapsed + SLACK_NS)
		return ktap_fail("wait4's rusage: user %ld ns, system %ld ns after %ld ns",
				 tv_ns(ru.ru_utime), tv_ns(ru.ru_stime), elapsed);
	if (user_ns(RUSAGE_CHILDREN) <= 0 || user_ns(RUSAGE_CHILDREN) > elapsed + SLACK_NS)
		return ktap_fail("getrusage(CHILDREN): user %ld ns after %ld ns",
				 user_ns(RUSAGE_CHILDREN), elapsed);
	return expect(tms.tms_cutime > 0, 1, "times: the children's user time > 0") &&
	       expect(stat_field(16) > 0, 1, "/proc/self/stat cutime > 0");
}

/* A grandchild's time comes up too: in its parent's children's, reported by waitid's rusage. */
static int test_cputime_grandchild(void)
{
	long pid = fork();
	struct rusage ru;
	siginfo_t si;

	if (pid == 0)
		exit_group(run_in_child(spinning_child, NULL));
	return expect(waitid(P_PID, pid, &si, WEXITED, &ru), 0, "waitid with a rusage") &&
	       expect_info(&si, CLD_EXITED, pid, 0, "the child") &&
	       expect(tv_ns(ru.ru_utime) > 0, 1, "the rusage of a child whose child spun: user > 0") &&
	       expect(user_ns(RUSAGE_CHILDREN) > 0, 1, "getrusage(CHILDREN): user > 0");
}

static int thread_done;		/* the thread's tid, cleared as it ends (CLONE_CHILD_CLEARTID) */
static long thread_user;
static char thread_stack[65536] __attribute__((aligned(16)));

static void spinning_thread(long unused)
{
	(void)unused;
	spin(RUSAGE_THREAD);
	thread_user = user_ns(RUSAGE_THREAD);
}

/* A thread's time is its own (RUSAGE_THREAD) and its process's, also once it has ended. */
static int test_cputime_thread(void)
{
	long tid = thread_clone(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
				CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID,
				thread_stack + sizeof(thread_stack), &thread_done, &thread_done, 0,
				spinning_thread, 0);
	long self, mine;
	int v;

	if (tid < 0)
		return ktap_fail("clone of a thread: %ld", tid);
	while ((v = __atomic_load_n(&thread_done, __ATOMIC_ACQUIRE)))
		syscall4(__NR_futex, L(&thread_done), 0 /* FUTEX_WAIT */, v, 0);
	self = user_ns(RUSAGE_SELF);
	mine = user_ns(RUSAGE_THREAD);
	/* A tick's room: Linux scales the thread's sum and the process's apart. */
	if (thread_user <= 0 || self + TICK_NS < thread_user || mine >= thread_user)
		return ktap_fail("user time: the thread's %ld ns, the process's %ld ns, the waiting thread's %ld ns",
				 thread_user, self, mine);
	return 1;
}

static const struct test tests[] = {
	{ "waitid_p_pid_exited_and_killed", test_waitid_p_pid },
	{ "waitid_wnowait_leaves_the_child", test_waitid_wnowait },
	{ "waitid_p_pgid", test_waitid_p_pgid },
	{ "waitid_wnohang_writes_six_fields", test_waitid_wnohang },
	{ "waitid_errors", test_waitid_errors },
	{ "cputime_getrusage_times_proc_stat", test_cputime_self },
	{ "cputime_of_a_child_at_wait4", test_cputime_child },
	{ "cputime_of_a_grandchild_at_waitid", test_cputime_grandchild },
	{ "cputime_of_an_ended_thread", test_cputime_thread },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
