/* muslsig: signals through musl: sigaction, sigsetjmp/siglongjmp, ucontext, raise, masks, abort, real-time queues. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#include "ktap.h"

/*
 * A handler written for Linux, unchanged: it reads si_addr and si_code,
 * REG_ERR, REG_TRAPNO and REG_CR2 of the ucontext, moves REG_RIP, or
 * leaves with siglongjmp. musl's raise is tkill, with every signal
 * blocked around it; its sigsetjmp saves the mask that siglongjmp puts
 * back with rt_sigprocmask.
 */

static sigjmp_buf jump;
static volatile sig_atomic_t caught_sig, caught_code;
static void *volatile caught_addr;
static volatile long caught_err, caught_trapno, caught_cr2;

static void on_fault_jump(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	caught_sig = sig;
	caught_code = si->si_code;
	caught_addr = si->si_addr;
	caught_err = uc->uc_mcontext.gregs[REG_ERR];
	caught_trapno = uc->uc_mcontext.gregs[REG_TRAPNO];
	caught_cr2 = uc->uc_mcontext.gregs[REG_CR2];
	siglongjmp(jump, 1);
}

static int install(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

/*
 * A write to a read-only page, twice: siglongjmp must unblock SIGSEGV each
 * time. REG_ERR has the user and write bits (and the present bit once the
 * page is in: Linux maps it at the first touch, ccos at mmap).
 */
static int test_sigsetjmp_segv(void)
{
	char *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sigset_t now;
	int round;

	if (page == MAP_FAILED || install(SIGSEGV, on_fault_jump, 0))
		return ktap_fail("mmap or sigaction failed");
	for (round = 0; round < 2; round++) {
		caught_sig = 0;
		if (sigsetjmp(jump, 1) == 0) {
			*(volatile char *)(page + 100) = 1;
			return ktap_fail("round %d: the write to a read-only page went through", round);
		}
		if (caught_sig != SIGSEGV || caught_code != SEGV_ACCERR || caught_addr != page + 100)
			return ktap_fail("round %d: signal %d si_code %d si_addr %p, expected SIGSEGV "
					 "SEGV_ACCERR %p", round, caught_sig, caught_code,
					 caught_addr, (void *)(page + 100));
		if (caught_trapno != 14 || (caught_err & 6) != 6 ||
		    caught_cr2 != (long)(page + 100))
			return ktap_fail("REG_TRAPNO %ld REG_ERR %#lx REG_CR2 %#lx", caught_trapno,
					 caught_err, caught_cr2);
		sigprocmask(SIG_BLOCK, NULL, &now);
		if (sigismember(&now, SIGSEGV))
			return ktap_fail("round %d: SIGSEGV still blocked after siglongjmp", round);
	}
	munmap(page, 4096);
	signal(SIGSEGV, SIG_DFL);
	return 1;
}

/* A handler that moves REG_RIP past the instruction that faulted (ud2: 2 bytes). */
static volatile int skipped;

static void on_ill_skip(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	if ((void *)uc->uc_mcontext.gregs[REG_RIP] == si->si_addr && si->si_code == ILL_ILLOPN)
		skipped++;
	uc->uc_mcontext.gregs[REG_RIP] += 2;
}

static int test_reg_rip(void)
{
	install(SIGILL, on_ill_skip, 0);
	__asm__ volatile("ud2");
	__asm__ volatile("ud2");
	signal(SIGILL, SIG_DFL);
	return skipped == 2 || ktap_fail("the handler saw %d ud2s at si_addr, expected 2", skipped);
}

/* raise: tkill to ourselves; the handler runs before raise returns. */
static volatile int usr1_count, usr1_code;

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)ctx;
	usr1_count++;
	usr1_code = si->si_code;
}

static int test_raise(void)
{
	install(SIGUSR1, on_usr1, 0);
	if (raise(SIGUSR1))
		return ktap_fail("raise failed: errno %d", errno);
	if (usr1_count != 1 || usr1_code != SI_TKILL)
		return ktap_fail("handler ran %d times, si_code %d, expected once, SI_TKILL (%d)",
				 usr1_count, usr1_code, SI_TKILL);
	return 1;
}

/* A blocked signal waits: sigpending shows it, sigsuspend lets it in. */
static int test_mask_pending_suspend(void)
{
	sigset_t block, pending, old, none;

	install(SIGUSR1, on_usr1, 0);
	usr1_count = 0;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	kill(getpid(), SIGUSR1);
	if (usr1_count)
		return ktap_fail("a blocked SIGUSR1 was delivered");
	if (sigpending(&pending) || !sigismember(&pending, SIGUSR1))
		return ktap_fail("sigpending does not show SIGUSR1: errno %d", errno);
	sigemptyset(&none);
	if (sigsuspend(&none) != -1 || errno != EINTR)
		return ktap_fail("sigsuspend returned without EINTR: errno %d", errno);
	if (usr1_count != 1)
		return ktap_fail("the handler ran %d times in sigsuspend", usr1_count);
	sigprocmask(SIG_SETMASK, NULL, &pending);
	if (!sigismember(&pending, SIGUSR1))
		return ktap_fail("sigsuspend did not restore the mask");
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 1;
}

/* A handler on the alternate stack, for a fault with the stack pointer wrecked. */
static char altstack_mem[65536];
static volatile int on_alt;

static void on_segv_alt(int sig, siginfo_t *si, void *ctx)
{
	char here;

	(void)sig, (void)si, (void)ctx;
	on_alt = &here >= altstack_mem && &here < altstack_mem + sizeof(altstack_mem);
	siglongjmp(jump, 1);
}

static int test_sigaltstack(void)
{
	stack_t ss = { .ss_sp = altstack_mem, .ss_size = sizeof(altstack_mem) };

	if (sigaltstack(&ss, NULL) || install(SIGSEGV, on_segv_alt, SA_ONSTACK))
		return ktap_fail("sigaltstack or sigaction failed: errno %d", errno);
	if (sigsetjmp(jump, 1) == 0)
		__asm__ volatile("movq $0x1000, %%rsp; pushq $0" : : : "memory");
	signal(SIGSEGV, SIG_DFL);
	return on_alt || ktap_fail("the handler did not run on the alternate stack");
}

/* abort: SIGABRT, even with a handler that returns. */
static void on_abrt(int sig)
{
	(void)sig;
}

static int test_abort(void)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		signal(SIGABRT, on_abrt);
		abort();
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT)
		return ktap_fail("child status %#x, expected killed by SIGABRT", status);
	return 1;
}

/* signal() with a plain handler, and SIG_IGN. */
static volatile int term_count;

static void on_term(int sig)
{
	term_count += sig == SIGTERM;
}

static int test_signal(void)
{
	if (signal(SIGTERM, on_term) == SIG_ERR)
		return ktap_fail("signal failed");
	kill(getpid(), SIGTERM);
	signal(SIGTERM, SIG_IGN);
	kill(getpid(), SIGTERM);
	signal(SIGTERM, SIG_DFL);
	return term_count == 1 || ktap_fail("the SIGTERM handler ran %d times, expected 1", term_count);
}

/*
 * Two processes hand a signal back and forth 300 times, each blocking it
 * and waiting in sigsuspend: the classic race-free wait. A lost wakeup
 * hangs the test; a signal that arrives before the wait must not be lost.
 */
static volatile sig_atomic_t pings;

static void on_ping(int sig)
{
	(void)sig;
	pings++;
}

static int test_ping_pong(void)
{
	enum { ROUNDS = 300 };
	sigset_t block, old, empty;
	pid_t parent = getpid(), child;
	int i, status;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigemptyset(&empty);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGUSR1, on_ping);
	fflush(stdout);
	child = fork();
	if (child == 0) {
		for (i = 0; i < ROUNDS; i++) {
			while (!pings)
				sigsuspend(&empty);
			pings = 0;
			kill(parent, SIGUSR1);
		}
		_exit(0);
	}
	for (i = 0; i < ROUNDS && child > 0; i++) {
		kill(child, SIGUSR1);
		while (!pings)
			sigsuspend(&empty);
		pings = 0;
	}
	if (child < 0 || waitpid(child, &status, 0) != child || status)
		return ktap_fail("the child's status %#x", status);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGUSR1, SIG_DFL);
	return 1;
}

/* ---- real-time signals queue ---- */

static struct { int sig, code, value; } got[8];
static volatile int ngot;

static void on_rt_record(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (ngot < 8)
		got[ngot] = (typeof(got[0])){ sig, si->si_code, si->si_value.sival_int };
	ngot++;
}

/*
 * Each real-time signal sent is queued, and those of one number come in
 * the order sent, each with its own siginfo; a standard signal sent twice
 * while blocked comes once (before issue 27 ccos kept one of each
 * real-time number too, and had no rt_sigqueueinfo for sigqueue). Which
 * number's handler runs first is left open: Linux sets up a frame for
 * every signal it can deliver at once, the last one's handler running
 * first; ccos sets up one at a time.
 */
static int test_rt_queue(void)
{
	struct sigaction sa = { .sa_sigaction = on_rt_record, .sa_flags = SA_SIGINFO };
	int r1 = SIGRTMIN + 1, r2 = SIGRTMIN + 2, i, n1 = 0, n2 = 0, nusr1 = 0;
	sigset_t set;
	const struct { int code, value; } want_r1[] = { { SI_QUEUE, 1 }, { SI_QUEUE, 2 }, { SI_USER, 0 } };

	/*
	 * The handler's stores must not fault: a page's first write after fork
	 * is a fault (the page is copied), and ccos delivers the next pending
	 * signal on that fault's way out, as Linux does on any return to user
	 * mode, whose handler would run before the store is done and find
	 * ngot not yet counted. Written here first, the pages are this
	 * process's own before any signal is queued.
	 */
	memset(got, 0, sizeof(got));
	ngot = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, r1);
	sigaddset(&set, r2);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(r1, &sa, NULL);
	sigaction(r2, &sa, NULL);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (sigqueue(getpid(), r2, (union sigval){ .sival_int = 10 }) ||
	    sigqueue(getpid(), r1, (union sigval){ .sival_int = 1 }) ||
	    sigqueue(getpid(), r1, (union sigval){ .sival_int = 2 }))
		return ktap_fail("sigqueue: %s", strerror(errno));
	kill(getpid(), r1);
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR1);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	if (ngot != 5)
		return ktap_fail("%d signals delivered, expected 5 (SIGUSR1 once, SIGRTMIN+1 three "
				 "times, SIGRTMIN+2 once)", ngot);
	for (i = 0; i < 5; i++) {
		if (got[i].sig == SIGUSR1) {
			nusr1++;
		} else if (got[i].sig == r2) {
			if (n2++ || got[i].code != SI_QUEUE || got[i].value != 10)
				return ktap_fail("SIGRTMIN+2: code %d value %d", got[i].code, got[i].value);
		} else if (got[i].sig == r1 && n1 < 3) {
			if (got[i].code != want_r1[n1].code ||
			    (got[i].code == SI_QUEUE && got[i].value != want_r1[n1].value))
				return ktap_fail("SIGRTMIN+1, the %d%s: code %d value %d; expected code %d "
						 "value %d", n1 + 1, n1 ? "th" : "st", got[i].code,
						 got[i].value, want_r1[n1].code, want_r1[n1].value);
			n1++;
		}
	}
	return nusr1 == 1 && n1 == 3 && n2 == 1 ? 1 :
	       ktap_fail("SIGUSR1 %d times, SIGRTMIN+1 %d, SIGRTMIN+2 %d", nusr1, n1, n2);
}

/* A program may not make its signal to another look like the kernel's or kill's. */
static int test_sigqueueinfo_rules(void)
{
	siginfo_t si = { .si_signo = SIGUSR1, .si_code = SI_USER };
	pid_t child = fork();
	int status;

	if (child == 0) {
		pause();
		_exit(0);
	}
	if (syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, &si) != -1 || errno != EPERM)
		return ktap_fail("rt_sigqueueinfo to another with si_code SI_USER: not EPERM");
	si.si_code = SI_QUEUE;
	if (syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, (void *)8) != -1 || errno != EFAULT)
		return ktap_fail("rt_sigqueueinfo with a bad pointer: not EFAULT");
	if (syscall(SYS_rt_tgsigqueueinfo, child, child, SIGKILL, &si))
		return ktap_fail("rt_tgsigqueueinfo(SIGKILL, SI_QUEUE): %s", strerror(errno));
	waitpid(child, &status, 0);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		return ktap_fail("the child was not killed by the queued SIGKILL");
	if (syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, &si) != -1 || errno != ESRCH)
		return ktap_fail("rt_sigqueueinfo to a process that is gone: not ESRCH");
	return 1;
}

static const struct test tests[] = {
	{ "sigsetjmp_siglongjmp_sigsegv", test_sigsetjmp_segv },
	{ "ucontext_reg_rip_skips_ud2", test_reg_rip },
	{ "raise_tkill", test_raise },
	{ "sigprocmask_sigpending_sigsuspend", test_mask_pending_suspend },
	{ "sigaltstack_bad_stack", test_sigaltstack },
	{ "abort_sigabrt", test_abort },
	{ "signal_and_sig_ign", test_signal },
	{ "sigsuspend_ping_pong_300", test_ping_pong },
	{ "rt_signals_queue_each_in_order", test_rt_queue },
	{ "sigqueueinfo_rules", test_sigqueueinfo_rules },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
