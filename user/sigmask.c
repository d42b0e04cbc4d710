/* sigmask: SIGKILL, blocked and ignored signals, masks, SA_* flags, default actions, EINTR, seccomp. */
#include "sigmask/sigmask.h"

/*
 * Every case runs in a child of its own: most fault on purpose, change
 * their signal state or may be killed. A child explains a failure in "# "
 * lines (KTAP diagnostics, printed before the result) and exits with 1;
 * the parent prints one KTAP result per case. run_case (ktap.c)
 * runs each case under a watchdog. The same binary runs on Linux, which
 * is how its expectations were checked; docs/testing.md lists where a
 * host may answer otherwise. The helpers they
 * share are in user/lib/sigutil.c; the seccomp cases, which labcheck runs
 * too (lab 0), in sigmask/seccomp.c.
 */

/* The signal calls' error cases point sigaltstack at it. */
static char altstack[64 * 1024] __attribute__((aligned(16)));

/* ---- SIGKILL, masks and flags ---- */

static int sigkill_child(void *unused)
{
	sigset_t all = ~0UL, m;
	int bad = 0;

	(void)unused;
	if (set_handler(SIGKILL, record, 0, 0) != -EINVAL)
		bad = FAIL("rt_sigaction(SIGKILL, handler) did not fail with EINVAL");
	if (set_action(SIGKILL, SIG_IGN) != -EINVAL)
		bad = FAIL("rt_sigaction(SIGKILL, SIG_IGN) did not fail with EINVAL");
	if (set_handler(SIGSTOP, record, 0, 0) != -EINVAL)
		bad = FAIL("rt_sigaction(SIGSTOP, handler) did not fail with EINVAL");
	rt_sigprocmask(SIG_SETMASK, &all, NULL, sizeof(all));
	m = get_mask();
	if (m & (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP)))
		bad = FAIL("blocked set %#lx includes SIGKILL or SIGSTOP", m);
	if (bad)
		return 1;
	kill(getpid(), SIGKILL);
	return FAIL("alive after SIGKILL with every signal blocked");
}

static int test_sigkill(void)
{
	return child_killed_by(sigkill_child, NULL, SIGKILL);
}

/* A sleeper that blocks and ignores everything still dies of SIGKILL. */
static int test_sigkill_sleeper(void)
{
	struct timespec forever = { 1000, 0 };
	sigset_t all = ~0UL;
	long pid = fork();
	int sig, status;
	char state;

	if (pid == 0) {
		for (sig = 1; sig <= 64; sig++)
			set_action(sig, SIG_IGN);
		rt_sigprocmask(SIG_SETMASK, &all, NULL, sizeof(all));
		for (;;)
			nanosleep(&forever, NULL);
	}
	if (pid < 0)
		return ktap_fail("fork: error %ld", -pid);
	state = state_of(pid, 'S');	/* asleep: everything ignored and blocked */
	if (state != 'S') {
		kill(pid, SIGKILL), wait4(pid, &status, 0, NULL);
		return ktap_fail("the sleeper's state is %c, not S", state ? state : '?');
	}
	kill(pid, SIGTERM);		/* ignored */
	kill(pid, SIGKILL);
	if (wait4(pid, &status, 0, NULL) != pid)
		return ktap_fail("wait4 failed");
	return (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ||
	       ktap_fail("wait status %#x, expected killed by SIGKILL", status);
}

/* A fault whose signal is blocked or ignored kills: returning would fault again. */
static int blocked_fault_child(void *arg)
{
	sigset_t m = SIGBIT(SIGSEGV);

	if (arg)
		set_action(SIGSEGV, SIG_IGN);
	else {
		set_handler(SIGSEGV, record, 0, 0);
		rt_sigprocmask(SIG_BLOCK, &m, NULL, sizeof(m));
	}
	load_byte(unmapped_page());
	return FAIL("survived a page fault with SIGSEGV %s", arg ? "ignored" : "blocked");
}

static int test_fault_blocked(void)
{
	return child_killed_by(blocked_fault_child, NULL, SIGSEGV) &&
	       child_killed_by(blocked_fault_child, (void *)1, SIGSEGV);
}

/*
 * sa_mask and the signal itself are blocked while the handler runs;
 * uc_sigmask holds the mask from before, and rt_sigreturn puts it back.
 * A SIGUSR2 sent from inside the SIGUSR1 handler waits until it returns.
 */
static volatile int usr1_runs, usr2_runs, usr2_during_usr1;
static volatile sigset_t usr1_mask, usr1_uc_mask, usr2_mask;

static void on_usr1_mask(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si;
	usr1_runs++;
	usr1_mask = get_mask();
	usr1_uc_mask = ((ucontext_t *)ctx)->uc_sigmask;
	kill(getpid(), SIGUSR2);
	usr2_during_usr1 = usr2_runs;
}

static void on_usr2_mask(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si, (void)ctx;
	usr2_runs++;
	usr2_mask = get_mask();
}

static int mask_child(void *unused)
{
	sigset_t before = SIGBIT(SIGHUP), after;
	int bad = 0;

	(void)unused;
	set_mask(before);
	set_handler(SIGUSR1, on_usr1_mask, 0, SIGBIT(SIGUSR2));
	set_handler(SIGUSR2, on_usr2_mask, 0, 0);
	kill(getpid(), SIGUSR1);
	after = get_mask();
	if (usr1_runs != 1 || usr2_runs != 1)
		return FAIL("SIGUSR1 handler ran %d times, SIGUSR2 handler %d times",
			    usr1_runs, usr2_runs);
	if (usr1_mask != (before | SIGBIT(SIGUSR1) | SIGBIT(SIGUSR2)))
		bad = FAIL("mask in the handler %#lx, expected %#lx (old | sa_mask | itself)",
			   usr1_mask, before | SIGBIT(SIGUSR1) | SIGBIT(SIGUSR2));
	if (usr1_uc_mask != before)
		bad = FAIL("uc_sigmask %#lx, expected the mask from before %#lx",
			   usr1_uc_mask, before);
	if (usr2_during_usr1)
		bad = FAIL("SIGUSR2 (in sa_mask) ran inside the SIGUSR1 handler");
	if (usr2_mask != (before | SIGBIT(SIGUSR2)))
		bad = FAIL("mask in the SIGUSR2 handler %#lx, expected %#lx",
			   usr2_mask, before | SIGBIT(SIGUSR2));
	if (after != before)
		bad = FAIL("mask after the handlers %#lx, expected %#lx", after, before);
	return bad;
}

static int test_handler_mask(void)
{
	return child_passes(mask_child, NULL);
}

/* A handler that edits uc_sigmask changes the mask rt_sigreturn restores. */
static void on_usr1_edit_mask(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si;
	((ucontext_t *)ctx)->uc_sigmask |= SIGBIT(SIGUSR2) | SIGBIT(SIGKILL);
}

static int edit_mask_child(void *unused)
{
	sigset_t m;

	(void)unused;
	set_mask(0);
	set_handler(SIGUSR1, on_usr1_edit_mask, 0, 0);
	kill(getpid(), SIGUSR1);
	m = get_mask();
	if (m != SIGBIT(SIGUSR2))
		return FAIL("mask after rt_sigreturn %#lx, expected %#lx (SIGUSR2; "
			    "SIGKILL cannot be blocked)", m, SIGBIT(SIGUSR2));
	return 0;
}

static int test_edit_uc_sigmask(void)
{
	return child_passes(edit_mask_child, NULL);
}

/* SA_NODEFER: the signal is not blocked in its handler, so it can nest. */
static volatile int depth, max_depth, resent;
static volatile sigset_t nodefer_mask;

static void on_usr1_nest(int sig, siginfo_t *si, void *ctx)
{
	(void)si, (void)ctx;
	if (++depth > max_depth)
		max_depth = depth;
	if (!resent) {
		resent = 1;
		nodefer_mask = get_mask();
		kill(getpid(), sig);
	}
	depth--;
}

static int nodefer_child(void *arg)
{
	unsigned long flags = (unsigned long)arg;

	set_mask(0);
	set_handler(SIGUSR1, on_usr1_nest, flags, 0);
	kill(getpid(), SIGUSR1);
	if (flags & SA_NODEFER) {
		if (max_depth != 2)
			return FAIL("SA_NODEFER: nesting depth %d, expected 2", max_depth);
		if (nodefer_mask & SIGBIT(SIGUSR1))
			return FAIL("SA_NODEFER: SIGUSR1 blocked in its handler (%#lx)",
				    nodefer_mask);
	} else {
		if (max_depth != 1)
			return FAIL("without SA_NODEFER: nesting depth %d, expected 1",
				    max_depth);
		if (!(nodefer_mask & SIGBIT(SIGUSR1)))
			return FAIL("without SA_NODEFER: SIGUSR1 not blocked in its handler");
	}
	return 0;
}

static int test_nodefer(void)
{
	return child_passes(nodefer_child, (void *)SA_NODEFER) &&
	       child_passes(nodefer_child, (void *)0);
}

/* SA_RESETHAND: the first delivery resets the action; the second kills. */
static int resethand_child(void *unused)
{
	struct kernel_sigaction old;

	(void)unused;
	set_handler(SIGUSR1, on_usr1_count, SA_RESETHAND, 0);
	kill(getpid(), SIGUSR1);
	if (usr1_count != 1)
		return FAIL("the handler ran %d times", usr1_count);
	rt_sigaction(SIGUSR1, NULL, &old, sizeof(sigset_t));
	if (old.sa_handler != (void *)SIG_DFL)
		return FAIL("the action after one delivery is %p, expected SIG_DFL",
			    old.sa_handler);
	kill(getpid(), SIGUSR1);
	return FAIL("alive after the second SIGUSR1");
}

static int test_resethand(void)
{
	return child_killed_by(resethand_child, NULL, SIGUSR1);
}

/* Default actions: terminate, or ignore for SIGCHLD, SIGURG, SIGWINCH. */
/* SIG_DFL first: a child inherits an ignored signal across fork and exec (nohup ignores SIGHUP). */
static int default_child(void *arg)
{
	int sig = (long)arg;

	set_action(sig, SIG_DFL);
	kill(getpid(), sig);
	return 0;
}

static int test_default_actions(void)
{
	static const int ignored[] = { SIGCHLD, SIGURG, SIGWINCH };
	static const int fatal[] = { SIGHUP, SIGUSR1, SIGTERM, SIGSEGV, SIGALRM };
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(ignored); i++)
		if (!child_passes(default_child, (void *)(long)ignored[i]))
			return ktap_fail("signal %d: its default action is to ignore",
					 ignored[i]);
	for (i = 0; i < ARRAY_SIZE(fatal); i++)
		if (!child_killed_by(default_child, (void *)(long)fatal[i], fatal[i]))
			return 0;
	return 1;
}

/*
 * A signal ends a sleep early: -EINTR after the handler ran. Of 10 s, or
 * (forever) of more nanoseconds than 64 bits count, which sleeps as long
 * (18446744074 s is 2^64 ns and 0.29 s: not a sleep of 0.29 s).
 */
static int eintr_child(void *forever)
{
	long secs = forever ? 18446744074l : 10;
	struct timespec ts = { secs, 0 }, rem = { 0, 0 };
	long r;

	set_handler(SIGUSR1, on_usr1_count, 0, 0);
	r = nanosleep(&ts, &rem);
	if (r != -EINTR)
		return FAIL("nanosleep of %ld s returned %ld, expected -EINTR", secs, r);
	if (usr1_count != 1)
		return FAIL("the handler ran %d times", usr1_count);
	if (forever ? rem.tv_sec < (1l << 32) : rem.tv_sec > 10 || rem.tv_sec < 5)
		return FAIL("rem %ld.%09ld s, expected a little under %ld s",
			    rem.tv_sec, rem.tv_nsec, secs);
	return 0;
}

static int test_eintr(void)
{
	long forever, pid;
	int status;

	for (forever = 0; forever < 2; forever++) {
		if ((pid = fork()) == 0)
			exit_group(eintr_child((void *)forever));
		/* Asleep in nanosleep, its handler set: not a fixed wait (a busy host). */
		state_of(pid, 'S');
		kill(pid, SIGUSR1);
		if (wait4(pid, &status, 0, NULL) != pid)
			return ktap_fail("wait4 failed");
		if (status)
			return ktap_fail("wait status %#x (see the # lines above)", status);
	}
	return 1;
}

/* Bad arguments to the signal calls: errors, never a crash. */
static int test_signal_syscall_errors(void)
{
	struct kernel_sigaction sa = { 0 };
	sigset_t m = 0;
	stack_t ss = { altstack, 0, MINSIGSTKSZ - 1 };
	void *unmapped = (void *)unmapped_page();
	void *kernel = (void *)KERNEL_ADDR;

	if (rt_sigaction(SIGUSR1, unmapped, NULL, 8) != -EFAULT ||
	    rt_sigaction(SIGUSR1, NULL, kernel, 8) != -EFAULT)
		return ktap_fail("rt_sigaction with a bad pointer: expected -EFAULT");
	if (rt_sigaction(0, &sa, NULL, 8) != -EINVAL || rt_sigaction(65, &sa, NULL, 8) != -EINVAL)
		return ktap_fail("rt_sigaction(0 or 65): expected -EINVAL");
	if (rt_sigprocmask(SIG_BLOCK, unmapped, NULL, 8) != -EFAULT ||
	    rt_sigprocmask(SIG_BLOCK, NULL, kernel, 8) != -EFAULT)
		return ktap_fail("rt_sigprocmask with a bad pointer: expected -EFAULT");
	if (rt_sigprocmask(99, &m, NULL, 8) != -EINVAL)
		return ktap_fail("rt_sigprocmask(how 99): expected -EINVAL");
	if (sigaltstack(unmapped, NULL) != -EFAULT || sigaltstack(NULL, kernel) != -EFAULT)
		return ktap_fail("sigaltstack with a bad pointer: expected -EFAULT");
	if (sigaltstack(&ss, NULL) != -ENOMEM)
		return ktap_fail("sigaltstack(size MINSIGSTKSZ - 1): expected -ENOMEM");
	ss.ss_size = sizeof(altstack);
	ss.ss_flags = 0x100;
	if (sigaltstack(&ss, NULL) != -EINVAL)
		return ktap_fail("sigaltstack(flags 0x100): expected -EINVAL");
	if (kill(getpid(), 65) != -EINVAL || kill(getpid(), -1) != -EINVAL)
		return ktap_fail("kill(sig 65 or -1): expected -EINVAL");
	return 1;
}


/* ---- the table ---- */

static const struct test tests[] = {
	{ "sigkill_cannot_be_caught_or_blocked", test_sigkill },
	{ "sigkill_ends_ignoring_sleeper", test_sigkill_sleeper },
	{ "fault_blocked_or_ignored_kills", test_fault_blocked },
	{ "mask_during_handler", test_handler_mask },
	{ "handler_edits_uc_sigmask", test_edit_uc_sigmask },
	{ "sa_nodefer", test_nodefer },
	{ "sa_resethand", test_resethand },
	{ "default_actions", test_default_actions },
	{ "signal_interrupts_nanosleep_eintr", test_eintr },
	{ "signal_syscall_errors", test_signal_syscall_errors },
	{ "seccomp_strict_allows_four", test_seccomp_allows },
	{ "seccomp_strict_kills_others", test_seccomp_kills },
	{ "seccomp_bad_mode_einval", test_seccomp_bad_mode },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
