/* sysclone: clone for fork, vfork and posix_spawn; process groups and kill; a killable vfork. */
#include "testutil.h"

#define __NR_clone3		435
#define CLONE_VFORK		0x00004000
#define __WCLONE		0x80000000


/* fork as glibc does it: the tids land in the parent's and in the child's memory. */
static int test_clone_fork_tids(void)
{
	int ptid = -1, ctid = -1, status;
	long pid = syscall5(__NR_clone, CLONE_PARENT_SETTID | CLONE_CHILD_SETTID |
			    CLONE_CHILD_CLEARTID | SIGCHLD, 0, (long)&ptid, (long)&ctid, 0);

	if (pid == 0)
		exit_group(ctid == getpid() ? 0 : 1);
	if (pid < 0)
		return ktap_fail("clone returned %ld", pid);
	if (!expect(ptid, pid, "parent_tid") || !expect(ctid, -1, "child_tid in the parent"))
		return 0;
	return expect(wait4(-1, &status, 0, NULL), pid, "wait4(-1)") &&
	       expect_exit(status, 0, "child_tid in the child");
}

/*
 * posix_spawn's clone: CLONE_VM | CLONE_VFORK on a stack of its own. The
 * child may not return into C frames (it has none), so it is assembly: it
 * stores 1 into *flag, in the shared memory, and exits with 9. The parent
 * resumes only after that exit, which also clears *tid (CLONE_CHILD_CLEARTID
 * on a shared address space).
 */
long clone_vm_child(unsigned long flags, void *stack, int *tid, int *flag);
asm(".text\n"
    ".globl clone_vm_child\n"
    "clone_vm_child:\n"
    "	movq %rcx, %r9\n"		/* flag, kept across the system call */
    "	movq %rdx, %r10\n"		/* child_tid */
    "	xorl %edx, %edx\n"		/* parent_tid */
    "	xorl %r8d, %r8d\n"		/* tls */
    "	movl $56, %eax\n"		/* __NR_clone */
    "	syscall\n"
    "	testq %rax, %rax\n"
    "	jnz 1f\n"
    "	movl $1, (%r9)\n"
    "	pushq $0\n"			/* the new stack is usable */
    "	movl $9, %edi\n"
    "	movl $60, %eax\n"		/* __NR_exit */
    "	syscall\n"
    "1:	ret\n");

static int test_clone_vm_vfork_stack(void)
{
	static char stack[8192] __attribute__((aligned(16)));
	int tid = 12345, flag = 0, status;
	long pid = clone_vm_child(CLONE_VM | CLONE_VFORK | CLONE_CHILD_CLEARTID | SIGCHLD,
				  stack + sizeof(stack), &tid, &flag);

	if (pid < 0)
		return ktap_fail("clone returned %ld", pid);
	if (!expect(flag, 1, "the child's store, seen when clone returns") ||
	    !expect(tid, 0, "child_tid cleared at the child's exit"))
		return 0;
	return expect(wait4(pid, &status, 0, NULL), pid, "wait4") &&
	       expect_exit(status, 9, "the child on its own stack");
}

/* Linux's EINVAL for what cannot be (threads share the actions, and those need one memory); ENOSYS for clone3 here. */
static int test_clone_refused(void)
{
	long r = syscall2(__NR_clone3, 0, 0);

	if (!expect(r, on_ccos() ? -ENOSYS : -EINVAL, "clone3(NULL, 0)"))
		return 0;
	return expect(syscall5(__NR_clone, CLONE_THREAD | SIGCHLD, 0, 0, 0, 0), -EINVAL,
		      "clone(CLONE_THREAD without CLONE_SIGHAND)") &&
	       expect(syscall5(__NR_clone, CLONE_SIGHAND | SIGCHLD, 0, 0, 0, 0), -EINVAL,
		      "clone(CLONE_SIGHAND without CLONE_VM)");
}

/* A child with no exit signal is a "clone child": wait4 sees it only with __WCLONE. */
static int test_clone_no_exit_signal(void)
{
	long pid = syscall5(__NR_clone, 0, 0, 0, 0, 0);
	int status;

	if (pid == 0)
		exit_group(6);
	if (pid < 0)
		return ktap_fail("clone returned %ld", pid);
	if (!expect(wait4(pid, &status, WNOHANG, NULL), -ECHILD, "wait4 without __WCLONE"))
		return 0;
	return expect(wait4(pid, &status, __WCLONE, NULL), pid, "wait4(__WCLONE)") &&
	       expect_exit(status, 6, "clone child");
}

static long sleeper(void)
{
	long pid = fork();

	if (pid == 0)
		exit_group(-sleep_ns(5000 * MSEC));	/* 0 after 5 s, or the errno that ended it */
	return pid;
}

static int sigterm_pending(void)
{
	sigset_t pending = 0;

	syscall2(__NR_rt_sigpending, (long)&pending, 8);
	return !!(pending & (1ul << (SIGTERM - 1)));
}

/*
 * A child makes its own group with a sleeping grandchild and sends
 * kill(0, SIGTERM): the grandchild dies, the child (ignoring it) stays, and
 * this process, in another group with SIGTERM blocked, gets nothing.
 */
static int group_leader(void *unused)
{
	sigset_t none = 0;
	long g;
	int status;

	(void)unused;
	rt_sigprocmask(SIG_SETMASK, &none, NULL, 8);	/* the parent's block is not for us */
	if (syscall2(__NR_setpgid, 0, 0) || syscall0(__NR_getpgrp) != getpid())
		return 10;
	if ((g = sleeper()) < 0)
		return 11;
	if (syscall1(__NR_getpgid, g) != getpid())
		return 12;
	sigaction(SIGTERM, (void *)SIG_IGN, 0);
	if (kill(0, SIGTERM))
		return 13;
	if (wait4(g, &status, 0, NULL) != g || !WIFSIGNALED(status) || WTERMSIG(status) != SIGTERM)
		return 14;
	return 0;
}

static int test_kill_own_group(void)
{
	sigset_t block = 1ul << (SIGTERM - 1), old;
	int status;

	rt_sigprocmask(SIG_BLOCK, &block, &old, 8);
	status = run_in_child(group_leader, NULL);
	if (sigterm_pending())
		return ktap_fail("kill(0) from another group reached this process");
	rt_sigprocmask(SIG_SETMASK, &old, NULL, 8);
	return expect_exit(status, 0, "the group leader (10-14: which step failed)");
}

/* kill(-pgrp) reaches every member of that group, and nobody else. */
static int test_kill_other_group(void)
{
	long a = sleeper(), b = sleeper(), c = sleeper();
	int sa, sb, sc;

	if (a < 0 || b < 0 || c < 0)
		return ktap_fail("fork failed");
	if (!expect(syscall2(__NR_setpgid, a, a), 0, "setpgid(a, a)") ||
	    !expect(syscall2(__NR_setpgid, b, a), 0, "setpgid(b, a)") ||
	    !expect(kill(-a, SIGKILL), 0, "kill(-a, SIGKILL)"))
		return 0;
	wait4(a, &sa, 0, NULL);
	wait4(b, &sb, 0, NULL);
	if (wait4(c, &sc, WNOHANG, NULL))
		return ktap_fail("the process outside the group ended: status %#x", sc);
	kill(c, SIGKILL);
	wait4(c, &sc, 0, NULL);
	return expect_signal(sa, SIGKILL, "a") && expect_signal(sb, SIGKILL, "b") &&
	       expect(kill(-a, 0), -ESRCH, "kill(-a) with the group gone");
}

/* setsid makes a session and a group named after the caller; a leader cannot move. */
static int session_child(void *unused)
{
	long me = getpid();

	(void)unused;
	if (syscall0(__NR_setsid) != me || syscall1(__NR_getsid, 0) != me ||
	    syscall0(__NR_getpgrp) != me)
		return 1;
	if (syscall2(__NR_setpgid, 0, 0) != -EPERM || syscall0(__NR_setsid) != -EPERM)
		return 2;
	return 0;
}

static int test_setsid(void)
{
	return expect_exit(run_in_child(session_child, NULL), 0, "setsid child") &&
	       expect(syscall1(__NR_getpgid, 0x3ffffff0), -ESRCH, "getpgid(no such pid)");
}

/*
 * kill(-1) reaches everyone but init and the caller; on ccos kill(1, sig)
 * is dropped unless init has a handler (Linux protects init the same way).
 * SIGWINCH, which every other process ignores, is blocked here to be seen.
 * Not run on the host: there kill(-1) would signal the user's every process.
 */
static int winch_pending(void)
{
	sigset_t pending = 0;

	syscall2(__NR_rt_sigpending, (long)&pending, 8);
	return !!(pending & (1ul << (SIGWINCH - 1)));
}

static int test_kill_all_and_init(void)
{
	sigset_t block = 1ul << (SIGWINCH - 1);
	int status;

	if (!on_ccos())
		return skip("on the host kill(-1) would reach every process of the user");
	/* tkill and tgkill go to one thread, but init's protection is the
	 * same (before issue 28 they killed it: the machine powered off). */
	if (!expect(kill(1, SIGTERM), 0, "kill(init, SIGTERM), dropped") ||
	    !expect(syscall2(200, 1, SIGKILL), 0, "tkill(1, SIGKILL), dropped") ||
	    !expect(syscall3(234, 1, 1, SIGKILL), 0, "tgkill(1, 1, SIGKILL), dropped") ||
	    !expect(syscall1(__NR_sched_yield, 0), 0, "yield, for init to run") ||
	    !expect(kill(1, 0), 0, "init is still there"))
		return 0;
	rt_sigprocmask(SIG_BLOCK, &block, NULL, 8);
	if (fork() == 0)
		exit_group(kill(-1, SIGWINCH) == 0 && !winch_pending() ? 0 : 1);
	wait4(-1, &status, 0, NULL);
	if (!winch_pending())
		return ktap_fail("kill(-1) from a child did not reach its parent");
	return expect_exit(status, 0, "kill(-1) skips the caller");
}

/*
 * A vfork parent waits for its child's exec or exit, but SIGKILL ends the
 * wait (Linux's is killable): the helper below is blocked in vfork while
 * its child sleeps; it must die at once, not when the child ends.
 */
static int vfork_helper(void *unused)
{
	static const struct timespec two_s = { 2, 0 };

	(void)unused;
	syscall2(__NR_setpgid, 0, 0);	/* the child joins this group, to be cleaned up */
	if (vfork() == 0) {
		syscall2(__NR_nanosleep, (long)&two_s, 0);
		syscall1(__NR_exit, 0);
	}
	return 0;
}

#define PR_SET_CHILD_SUBREAPER	36

static int test_vfork_parent_killable(void)
{
	long pid, t0, waited;
	int status, orphan;
	char state, asleep = on_ccos() ? 'S' : 'D';	/* Linux shows TASK_KILLABLE as D */

	/* On Linux the orphaned child comes back to this process to be reaped; on ccos init reaps it. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	pid = fork();
	if (pid == 0)
		exit_group(vfork_helper(NULL));
	if (pid < 0)
		return ktap_fail("fork returned %ld", pid);
	state = state_of(pid, asleep);	/* in vfork's wait for its child */
	if (state != asleep) {
		kill(-pid, SIGKILL), wait4(pid, &status, 0, NULL);
		return ktap_fail("the vfork parent's state is %c, not %c", state ? state : '?', asleep);
	}
	kill(pid, SIGKILL);
	t0 = now_ns();
	while (wait4(pid, &status, WNOHANG, NULL) == 0 && now_ns() - t0 < 1500 * MSEC)
		sleep_ns(10 * MSEC);
	waited = (now_ns() - t0) / MSEC;
	kill(-pid, SIGKILL);		/* the sleeping child, an orphan now */
	while (wait4(-1, &orphan, 0, NULL) > 0)
		;
	ktap_diag("the vfork parent ended %ld ms after SIGKILL", waited);
	if (waited >= 1500)
		return ktap_fail("still alive 1.5 s after SIGKILL");
	return expect_signal(status, SIGKILL, "vfork parent");
}

static const struct test tests[] = {
	{ "clone_fork_parent_child_tid", test_clone_fork_tids },
	{ "clone_vm_vfork_own_stack_cleartid", test_clone_vm_vfork_stack },
	{ "clone_bad_flags_einval_clone3_enosys", test_clone_refused },
	{ "clone_no_exit_signal_wclone", test_clone_no_exit_signal },
	{ "kill_0_own_group_only", test_kill_own_group },
	{ "kill_minus_pgrp", test_kill_other_group },
	{ "setsid_getsid_setpgid", test_setsid },
	{ "kill_minus_1_and_init", test_kill_all_and_init },
	{ "vfork_parent_sigkill", test_vfork_parent_killable },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
