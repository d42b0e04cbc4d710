/* sysproc: fork, wait4, kill, execve, vfork, preemption, and signal actions, masks and stacks, as on Linux. */
#include "testutil.h"

static char **g_envp;

/* A child that sleeps until it is killed. */
static long fork_sleeper(void)
{
	long pid = fork();

	if (pid == 0)
		for (;;)
			sleep_ns(1000 * MSEC);
	return pid;
}

/* ---- processes ---- */

static int test_ids(void)
{
	long pid = getpid(), ppid = getppid();

	if (pid <= 0 || ppid <= 0 || pid == ppid)
		return ktap_fail("getpid %ld, getppid %ld", pid, ppid);
	return expect(gettid(), pid, "gettid");
}

static int test_fork_ids(void)
{
	long parent = getpid(), pid, r;
	int status;

	pid = fork();
	if (pid == 0)
		exit_group(getppid() == parent && getpid() != parent ? 0 : 1);
	if (pid < 0)
		return ktap_fail("fork returned %ld", pid);
	r = wait4(pid, &status, 0, NULL);
	return expect(r, pid, "wait4") &&
	       expect_exit(status, 0, "child sees getppid() == parent");
}

static int exit_with(void *code)
{
	return (long)code;
}

static int thread_exit_with(void *code)
{
	exit((long)code);
}

static int test_wait_exit_codes(void)
{
	static const int codes[] = { 0, 1, 42, 255 };
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(codes); i++)
		if (!expect_exit(run_in_child(exit_with, (void *)(long)codes[i]),
				 codes[i], "exit_group"))
			return 0;
	return expect_exit(run_in_child(thread_exit_with, (void *)7L), 7,
			   "exit");
}

static int test_wait_sigkill(void)
{
	long pid = fork_sleeper();
	int status;

	if (pid < 0)
		return ktap_fail("fork returned %ld", pid);
	if (!expect(kill(pid, SIGKILL), 0, "kill"))
		return 0;
	return expect(wait4(pid, &status, 0, NULL), pid, "wait4") &&
	       expect_signal(status, SIGKILL, "SIGKILL");
}

static int test_wait_wnohang(void)
{
	long pid = fork_sleeper(), r;
	int status;

	if (pid < 0)
		return ktap_fail("fork returned %ld", pid);
	r = wait4(pid, &status, WNOHANG, NULL);
	kill(pid, SIGKILL);
	wait4(pid, &status, 0, NULL);
	return expect(r, 0, "wait4(WNOHANG) on a running child");
}

static int test_wait_echild(void)
{
	int status;

	return expect(wait4(-1, &status, 0, NULL), -ECHILD, "wait4(-1)");
}

static int test_kill_errors(void)
{
	return expect(kill(getpid(), 0), 0, "kill(self, 0)") &&
	       expect(kill(getpid(), 1000), -EINVAL, "kill(self, 1000)") &&
	       expect(kill(0x3ffffff0, SIGKILL), -ESRCH, "kill(no such pid)");
}

static int test_execve_errors(void)
{
	char *argv[] = { "/no/such/program", NULL };

	return expect(execve(argv[0], argv, g_envp), -ENOENT,
		      "execve(missing)") &&
	       expect(execve(NULL, argv, g_envp), -EFAULT, "execve(NULL)");
}

/* The child execs this program as "--exec-probe", which exits 42. */
static int exec_marker;

static int exec_probe(char **envp)
{
	if (exec_marker || !envp[0] || strcmp(envp[0], "CCOS_PROBE=1") ||
	    envp[1] || getauxval(AT_PAGESZ) != 4096)
		return 1;
	return 42;
}

static int exec_self(void *unused)
{
	char *argv[] = { (char *)self, "--exec-probe", NULL };
	char *envp[] = { "CCOS_PROBE=1", NULL };

	(void)unused;
	exec_marker = 1;	/* must not survive into the new image */
	execve(self, argv, envp);
	return 99;
}

static int test_execve_self(void)
{
	return expect_exit(run_in_child(exec_self, NULL), 42,
			   "execve with argv and envp");
}

static volatile int vfork_shared;

static int test_vfork(void)
{
	long pid;
	int status;

	vfork_shared = 0;
	pid = vfork();
	if (pid == 0) {
		vfork_shared = 1;	/* the parent's memory, until exit */
		exit(7);
	}
	if (pid < 0)
		return ktap_fail("vfork returned %ld", pid);
	if (!vfork_shared)
		return ktap_fail("the child's store is not in the parent");
	return expect(wait4(pid, &status, 0, NULL), pid, "wait4") &&
	       expect_exit(status, 7, "vfork child");
}

/* The clock ticks /proc/PID/stat says the process has run (utime + stime, fields 14 and 15), or -1. */
static long cpu_ticks(long pid)
{
	char file[64], stat[1024], *p;
	long field[2] = { 0, 0 };
	int i, f;

	snprintf(file, sizeof(file), "/proc/%ld/stat", pid);
	if (slurp(file, stat, sizeof(stat)) <= 0 || !(p = strchr(stat, ')')))
		return -1;
	for (f = 2; f < 14 && *p; p++)		/* to field 14 */
		f += *p == ' ';
	for (i = 0; i < 2; i++) {
		while (*p >= '0' && *p <= '9')
			field[i] = field[i] * 10 + *p++ - '0';
		if (*p++ != ' ')
			return -1;
	}
	return field[0] + field[1];
}

/*
 * A child in an endless loop must not keep the parent from running: the
 * parent sleeps and wakes until the child has run a tick (for up to 20 s).
 */
static int test_spinner_preempted(void)
{
	long pid, start = now_ns(), r, ticks = 0;
	int status;

	pid = fork();
	if (pid == 0)
		for (;;)
			asm volatile("" ::: "memory");
	if (pid < 0)
		return ktap_fail("fork returned %ld", pid);
	while (now_ns() - start < 20000 * MSEC && (ticks = cpu_ticks(pid)) == 0)
		sleep_ns(10 * MSEC);
	kill(pid, SIGKILL);
	r = wait4(pid, &status, 0, NULL);
	if (ticks <= 0)
		return ktap_fail("the child's CPU time is %ld ticks after 20 s", ticks);
	if (now_ns() - start > 5000 * MSEC)
		return ktap_fail("parent ran only after %ld ms",
				 (now_ns() - start) / MSEC);
	return expect(r, pid, "wait4") &&
	       expect_signal(status, SIGKILL, "spinning child");
}

static int test_fork_many(void)
{
	int i, status;

	for (i = 0; i < 200; i++) {
		status = run_in_child(exit_with, (void *)(long)(i & 0xff));
		if (!expect_exit(status, i & 0xff, "fork+exit+wait4"))
			return ktap_fail("round %d: status %#x", i, status);
	}
	return 1;
}


/* ---- signals ---- */

static volatile int usr_count, usr_code, usr_pid;
static void *volatile usr_stack_addr;

static void on_usr(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	usr_count += sig == si->si_signo;
	usr_code = si->si_code;
	usr_pid = si->si_pid;
	usr_stack_addr = __builtin_frame_address(0);
}

static int test_sigaction(void)
{
	struct kernel_sigaction old;

	usr_count = 0;
	if (!expect(sigaction(SIGUSR1, on_usr, 0), 0, "rt_sigaction") ||
	    !expect(rt_sigaction(SIGUSR1, NULL, &old, sizeof(sigset_t)), 0,
		    "rt_sigaction(read back)"))
		return 0;
	if (old.sa_handler != on_usr || !(old.sa_flags & SA_SIGINFO))
		return ktap_fail("read back handler %p flags %#lx",
				 old.sa_handler, old.sa_flags);
	kill(getpid(), SIGUSR1);
	if (usr_count != 1 || usr_code != SI_USER || usr_pid != getpid())
		return ktap_fail("handler ran %d times, si_code %d, si_pid %d",
				 usr_count, usr_code, usr_pid);
	return expect(sigaction(SIGKILL, on_usr, 0), -EINVAL,
		      "rt_sigaction(SIGKILL)") &&
	       expect(rt_sigaction(SIGUSR1, NULL, &old, 4), -EINVAL,
		      "rt_sigaction(sigsetsize 4)") &&
	       expect(sigaction(SIGUSR1, (void *)SIG_DFL, 0), 0,
		      "rt_sigaction(SIG_DFL)");
}

static int test_sigprocmask(void)
{
	sigset_t set = SIGBIT(SIGUSR1), old;

	usr_count = 0;
	sigaction(SIGUSR1, on_usr, 0);
	if (!expect(rt_sigprocmask(SIG_BLOCK, &set, NULL, sizeof(set)), 0,
		    "rt_sigprocmask(SIG_BLOCK)"))
		return 0;
	kill(getpid(), SIGUSR1);
	if (usr_count)
		return ktap_fail("a blocked signal was delivered");
	rt_sigprocmask(SIG_BLOCK, NULL, &old, sizeof(old));
	if (!(old & set))
		return ktap_fail("mask read back as %#lx", old);
	rt_sigprocmask(SIG_UNBLOCK, &set, NULL, sizeof(set));
	sigaction(SIGUSR1, (void *)SIG_DFL, 0);
	return expect(usr_count, 1, "delivery on unblock");
}

static int test_sigaltstack(void)
{
	static char altstack[64 * 1024];
	stack_t ss = { altstack, 0, sizeof(altstack) }, old;
	char *sp;

	if (!expect(sigaltstack(&ss, NULL), 0, "sigaltstack"))
		return 0;
	sigaction(SIGUSR2, on_usr, SA_ONSTACK);
	kill(getpid(), SIGUSR2);
	sigaction(SIGUSR2, (void *)SIG_DFL, 0);
	sp = usr_stack_addr;
	ss.ss_flags = SS_DISABLE;
	if (!expect(sigaltstack(&ss, &old), 0, "sigaltstack(SS_DISABLE)"))
		return 0;
	if (old.ss_sp != altstack || old.ss_size != sizeof(altstack))
		return ktap_fail("old stack %p size %lu", old.ss_sp,
				 old.ss_size);
	if (sp < altstack || sp >= altstack + sizeof(altstack))
		return ktap_fail("handler ran at %p, not on the stack at %p",
				 sp, altstack);
	return 1;
}


/* ---- the table ---- */

static const struct test tests[] = {
	{ "getpid_getppid_gettid", test_ids },
	{ "fork_child_ids", test_fork_ids },
	{ "wait4_exit_codes", test_wait_exit_codes },
	{ "wait4_sigkill", test_wait_sigkill },
	{ "wait4_wnohang", test_wait_wnohang },
	{ "wait4_echild", test_wait_echild },
	{ "kill_errors", test_kill_errors },
	{ "execve_errors", test_execve_errors },
	{ "execve_self", test_execve_self, 1 },
	{ "vfork_shares_memory", test_vfork },
	{ "spinning_child_preempted", test_spinner_preempted },
	{ "fork_exit_wait_200", test_fork_many },
	{ "rt_sigaction_kill_self", test_sigaction },
	{ "rt_sigprocmask_block", test_sigprocmask },
	{ "sigaltstack", test_sigaltstack },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc;
	g_envp = envp;
	find_self(argv[0]);
	if (argc == 2 && self && !strcmp(argv[1], "--exec-probe"))
		return exec_probe(envp);
	return run_tests(tests, ARRAY_SIZE(tests));
}
