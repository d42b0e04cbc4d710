/* sigutil: the helpers of the signal tests (sigfault, sigframe, sigmask, sigstate). */
#include "sigutil.h"

static const char *const signame[32] = {
	[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGILL] = "SIGILL",
	[SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS",
	[SIGFPE] = "SIGFPE", [SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1",
	[SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2", [SIGTERM] = "SIGTERM",
};

const char *sig_name(int sig)
{
	return sig > 0 && sig < 32 && signame[sig] ? signame[sig] : "signal ?";
}

/* Install fn for sig with the runtime's restorer, flags and mask. */
long set_handler(int sig, void (*fn)(int, siginfo_t *, void *),
		 unsigned long flags, sigset_t mask)
{
	struct kernel_sigaction sa = {
		.sa_handler = fn,
		.sa_flags = flags | SA_SIGINFO | SA_RESTORER,
		.sa_restorer = rt_sigreturn,
		.sa_mask = mask,
	};

	return rt_sigaction(sig, &sa, NULL, sizeof(sigset_t));
}

long set_action(int sig, void (*fn)(int))
{
	struct kernel_sigaction sa = {
		.sa_handler = (void (*)(int, siginfo_t *, void *))(void *)fn,
		.sa_flags = SA_RESTORER,
		.sa_restorer = rt_sigreturn,
	};

	return rt_sigaction(sig, &sa, NULL, sizeof(sigset_t));
}

sigset_t get_mask(void)
{
	sigset_t m = 0;

	rt_sigprocmask(SIG_BLOCK, NULL, &m, sizeof(m));
	return m;
}

void set_mask(sigset_t m)
{
	rt_sigprocmask(SIG_SETMASK, &m, NULL, sizeof(m));
}

void *map(int prot)
{
	return mmap(NULL, PAGE_SIZE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* Run fn in a child; 1 if it exited with 0. */
int child_passes(int (*fn)(void *), void *arg)
{
	int status = run_in_child(fn, arg);

	if (status < 0)
		return ktap_fail("fork or wait4 failed: error %d", -status);
	if (WIFSIGNALED(status))
		return ktap_fail("the child was killed by %s (%d)",
				 sig_name(WTERMSIG(status)), WTERMSIG(status));
	if (WEXITSTATUS(status))
		return ktap_fail("the child reported a failure (the # lines above)");
	return 1;
}

/* Run fn in a child; 1 if the child was killed by sig. */
int child_killed_by(int (*fn)(void *), void *arg, int sig)
{
	int status = run_in_child(fn, arg);

	if (status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == sig)
		return 1;
	if (status >= 0 && WIFSIGNALED(status))
		return ktap_fail("killed by %s (%d), expected %s", sig_name(WTERMSIG(status)),
				 WTERMSIG(status), sig_name(sig));
	if (status >= 0)
		return ktap_fail("exit status %d, expected to be killed by %s%s",
				 WEXITSTATUS(status), sig_name(sig),
				 WEXITSTATUS(status) ? " (see the # lines above)" : "");
	return ktap_fail("fork or wait4 failed: error %d", -status);
}

/* ---- what a handler saw ---- */

volatile struct seen seen;
volatile unsigned long resume_at;
volatile int resume_pops;

/*
 * The handler of the fault cases: note what the kernel reported, then
 * edit the saved registers so that the program resumes past the fault.
 */
void record(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	struct sigcontext *mc = &uc->uc_mcontext;
	char here;

	seen.count++;
	seen.signo = si->si_signo;
	seen.errno_ = si->si_errno;
	seen.code = si->si_code;
	seen.addr = (unsigned long)si->si_addr;
	seen.rip = mc->rip;
	seen.rsp = mc->rsp;
	seen.eflags = mc->eflags;
	seen.err = mc->err;
	seen.trapno = mc->trapno;
	seen.cr2 = mc->cr2;
	seen.handler_sp = (unsigned long)&here;
	seen.uc_sigmask = uc->uc_sigmask;
	seen.uc_stack = uc->uc_stack;
	rt_sigprocmask(SIG_BLOCK, NULL, (sigset_t *)&seen.mask, sizeof(sigset_t));
	(void)sig;
	if (resume_at)
		mc->rip = resume_at;
	if (resume_pops)
		mc->rsp += 8;
	mc->eflags &= ~(EFLAGS_TF | EFLAGS_AC);
}

static const int fault_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP };

void catch_faults(unsigned long flags)
{
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(fault_signals); i++)
		set_handler(fault_signals[i], record, flags, 0);
}

/* Count SIGUSR1 deliveries. */
volatile int usr1_count;

void on_usr1_count(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si, (void)ctx;
	usr1_count++;
}

/* The labels of an asm block are local unless made global. */
__asm__(".globl load_byte, load_byte_insn, load_byte_resume");
FAULT_FN(load_byte, "", "movb (%rdi), %al", "");

unsigned long unmapped_page(void)
{
	char *p = map(PROT_READ | PROT_WRITE);

	munmap(p, PAGE_SIZE);
	return (unsigned long)p;
}

