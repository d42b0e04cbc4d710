/* sigframe: what a handler's frame holds and rt_sigreturn restores: edited registers, the alternate stack, forged frames. */
#include "sigframe/sigframe.h"

/*
 * Every case runs in a child of its own: most fault on purpose, change
 * their signal state or may be killed. A child explains a failure in "# "
 * lines (KTAP diagnostics, printed before the result) and exits with 1;
 * the parent prints one KTAP result per case. run_case (ktap.c)
 * runs each case under a watchdog. The same binary runs on Linux, which
 * is how its expectations were checked; docs/testing.md lists where a
 * host may answer otherwise. The helpers they
 * share are in user/lib/sigutil.c.
 */

/* ---- a handler that edits the saved registers ---- */

/*
 * ud2, and the handler sends the program to rip_landing instead, with a
 * value of its choosing in rbx: rt_sigreturn loads every register from
 * the (edited) frame.
 */
extern const char rip_fault[], rip_landing[];
unsigned long rip_edit(void);
__asm__(".text\n"
	"rip_edit:\n"
	"	pushq %rbx\n"
	"	xorl %ebx, %ebx\n"
	"rip_fault:\n"
	"	ud2\n"
	"	movq $-1, %rbx\n"	/* skipped */
	"rip_landing:\n"
	"	movq %rbx, %rax\n"
	"	popq %rbx\n"
	"	ret\n");

#define RBX_MAGIC	0x5eed0fc0ffee1234UL

static void on_ill_move_rip(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;

	(void)sig, (void)si;
	if (mc->rip == (unsigned long)rip_fault) {
		mc->rip = (unsigned long)rip_landing;
		mc->rbx = RBX_MAGIC;
	}
}

static int rip_edit_child(void *unused)
{
	unsigned long rbx;

	(void)unused;
	set_handler(SIGILL, on_ill_move_rip, 0, 0);
	rbx = rip_edit();
	if (rbx != RBX_MAGIC)
		return FAIL("rbx at the landing is %#lx, expected %#lx", rbx, RBX_MAGIC);
	return 0;
}

static int test_rip_edit(void)
{
	return child_passes(rip_edit_child, NULL);
}

/*
 * uc_flags as Linux sets them for a signal from 64-bit code:
 * UC_SIGCONTEXT_SS (the frame's ss is real) and UC_STRICT_RESTORE_SS
 * (sigreturn restores it as it is), and UC_FP_XSTATE (1) where the
 * kernel saves with XSAVE, which CPUID.1:ECX.OSXSAVE (bit 27) tells.
 * Before issue 27 ccos left 0, and then never set UC_FP_XSTATE.
 */
#define UC_FP_XSTATE		0x1
#define UC_SIGCONTEXT_SS	0x2
#define UC_STRICT_RESTORE_SS	0x4

static unsigned long seen_uc_flags, seen_ss;

static void on_usr_uc_flags(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig, (void)si;
	seen_uc_flags = uc->uc_flags;
	seen_ss = uc->uc_mcontext.ss;
}

static int osxsave(void)
{
	unsigned int a, b, c, d;

	asm volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	return (c >> 27) & 1;
}

static int test_uc_flags(void)
{
	unsigned long want = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS |
			     (osxsave() ? UC_FP_XSTATE : 0);

	set_handler(SIGUSR1, on_usr_uc_flags, 0, 0);
	syscall2(__NR_kill, syscall0(__NR_getpid), SIGUSR1);
	if (seen_uc_flags != want)
		return ktap_fail("uc_flags %#lx, expected %#lx", seen_uc_flags, want);
	return seen_ss == USER_DS || ktap_fail("the frame's ss %#lx, expected %#x", seen_ss, USER_DS);
}

/* ---- registers across an asynchronous signal ---- */

/*
 * The child loads a pattern into every general register it can and spins
 * until a handler sets `async_flag`; the parent sends the signal, which
 * arrives on the way out of a timer interrupt (not a system call), so
 * even rcx and r11 must come back. The handler clobbers them all.
 */
static volatile int async_flag;
static unsigned long async_regs[14];
static volatile int *async_spinning __attribute__((used));	/* a MAP_SHARED word: the child's "spinning now" */

void spin_with_pattern(unsigned long *out);
__asm__(".text\n"
	"spin_with_pattern:\n"
	"	pushq %rbx; pushq %rbp; pushq %r12; pushq %r13; pushq %r14; pushq %r15\n"
	"	pushq %rdi\n"
	"	movabsq $0x1111111111111101, %rax\n"
	"	movabsq $0x1111111111111102, %rbx\n"
	"	movabsq $0x1111111111111103, %rcx\n"
	"	movabsq $0x1111111111111104, %rdx\n"
	"	movabsq $0x1111111111111105, %rsi\n"
	"	movabsq $0x1111111111111106, %rdi\n"
	"	movabsq $0x1111111111111107, %rbp\n"
	"	movabsq $0x1111111111111108, %r8\n"
	"	movabsq $0x1111111111111109, %r9\n"
	"	movabsq $0x111111111111110a, %r10\n"
	"	movabsq $0x111111111111110b, %r11\n"
	"	movabsq $0x111111111111110c, %r12\n"
	"	movabsq $0x111111111111110d, %r13\n"
	"	movabsq $0x111111111111110e, %r14\n"
	"	movq async_spinning(%rip), %r15\n"
	"	movl $1, (%r15)\n"
	"1:	cmpl $0, async_flag(%rip)\n"
	"	je 1b\n"
	"	movq (%rsp), %r15\n"
	"	movq %rax, 0(%r15); movq %rbx, 8(%r15); movq %rcx, 16(%r15)\n"
	"	movq %rdx, 24(%r15); movq %rsi, 32(%r15); movq %rdi, 40(%r15)\n"
	"	movq %rbp, 48(%r15); movq %r8, 56(%r15); movq %r9, 64(%r15)\n"
	"	movq %r10, 72(%r15); movq %r11, 80(%r15); movq %r12, 88(%r15)\n"
	"	movq %r13, 96(%r15); movq %r14, 104(%r15)\n"
	"	popq %rdi\n"
	"	popq %r15; popq %r14; popq %r13; popq %r12; popq %rbp; popq %rbx\n"
	"	ret\n");

static void on_usr_clobber(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si, (void)ctx;
	asm volatile("movq $-1, %%rax; movq $-1, %%rcx; movq $-1, %%rdx;"
		     "movq $-1, %%rsi; movq $-1, %%rdi; movq $-1, %%r8;"
		     "movq $-1, %%r9; movq $-1, %%r10; movq $-1, %%r11"
		     : : : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11");
	async_flag = 1;
}

static int async_child(void *unused)
{
	unsigned long i;
	int bad = 0;

	(void)unused;
	set_handler(SIGUSR1, on_usr_clobber, 0, 0);
	spin_with_pattern(async_regs);
	for (i = 0; i < 14; i++)
		if (async_regs[i] != 0x1111111111111101UL + i)
			bad = FAIL("register %lu (rax rbx rcx rdx rsi rdi rbp r8..r14) is %#lx, "
				   "expected %#lx", i, async_regs[i], 0x1111111111111101UL + i);
	return bad;
}

/* The signal is sent once the child says it spins with the pattern loaded (polled, for up to 20 s). */
static int test_async_registers(void)
{
	struct timespec ms = { 0, 1000000 };
	long pid, i;
	int status;

	async_spinning = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (IS_ERR_VALUE(async_spinning))
		return ktap_fail("mmap(MAP_SHARED) failed");
	pid = fork();
	if (pid == 0)
		exit_group(async_child(NULL));
	if (pid < 0)
		return ktap_fail("fork: error %ld", -pid);
	for (i = 0; i < 20000 && !*async_spinning; i++)
		nanosleep(&ms, NULL);
	if (!*async_spinning) {
		kill(pid, SIGKILL), wait4(pid, &status, 0, NULL);
		return ktap_fail("the child was not spinning after 20 s");
	}
	kill(pid, SIGUSR1);
	if (wait4(pid, &status, 0, NULL) != pid)
		return ktap_fail("wait4 failed");
	if (WIFSIGNALED(status))
		return ktap_fail("killed by %s", sig_name(WTERMSIG(status)));
	return WEXITSTATUS(status) == 0 || ktap_fail("see the # lines above");
}

/* ---- the alternate stack ---- */

/*
 * rsp is pointed at memory nobody mapped, then ud2: the kernel cannot
 * push a frame there. With SA_ONSTACK the frame goes on the alternate
 * stack; without one the process dies of SIGSEGV. The handler restores
 * a usable rsp by sending the program to bad_stack_resume.
 */
static volatile unsigned long bad_stack_saved_rsp __attribute__((used));
extern const char bad_stack_insn[], bad_stack_resume[];
void on_bad_stack(unsigned long rsp);
__asm__(".text\n"
	"on_bad_stack:\n"
	"	movq %rsp, bad_stack_saved_rsp(%rip)\n"
	"	movq %rdi, %rsp\n"
	"bad_stack_insn:\n"
	"	ud2\n"
	"bad_stack_resume:\n"
	"	movq bad_stack_saved_rsp(%rip), %rsp\n"
	"	ret\n");

static char altstack[64 * 1024] __attribute__((aligned(16)));
static volatile stack_t stack_inside;

static void on_ill_altstack(int sig, siginfo_t *si, void *ctx)
{
	stack_t ss;

	sigaltstack(NULL, &ss);
	stack_inside = ss;
	record(sig, si, ctx);
}

static int altstack_child(void *unused)
{
	stack_t ss = { altstack, 0, sizeof(altstack) };
	unsigned long bad = unmapped_page() + PAGE_SIZE;
	int fail = 0;

	(void)unused;
	if (sigaltstack(&ss, NULL))
		return FAIL("sigaltstack failed");
	set_handler(SIGILL, on_ill_altstack, SA_ONSTACK, 0);
	resume_at = (unsigned long)bad_stack_resume;
	on_bad_stack(bad);
	if (seen.count != 1)
		return FAIL("the handler ran %d times", seen.count);
	if (seen.handler_sp < (unsigned long)altstack ||
	    seen.handler_sp >= (unsigned long)altstack + sizeof(altstack))
		fail = FAIL("the handler ran at %#lx, not on the alternate stack %p",
			    seen.handler_sp, altstack);
	if (seen.rsp != bad)
		fail = FAIL("uc_mcontext.rsp %#lx, expected the bad %#lx", seen.rsp, bad);
	if (!(stack_inside.ss_flags & SS_ONSTACK))
		fail = FAIL("sigaltstack in the handler: flags %d, expected SS_ONSTACK",
			    stack_inside.ss_flags);
	if (seen.uc_stack.ss_sp != altstack || seen.uc_stack.ss_size != sizeof(altstack) ||
	    seen.uc_stack.ss_flags != 0)
		fail = FAIL("uc_stack {%p, %d, %lu}, expected {%p, 0, %lu}",
			    seen.uc_stack.ss_sp, seen.uc_stack.ss_flags,
			    seen.uc_stack.ss_size, altstack, sizeof(altstack));
	sigaltstack(NULL, &ss);
	if (ss.ss_flags & SS_ONSTACK)
		fail = FAIL("still SS_ONSTACK after the handler returned");
	return fail;
}

static int test_altstack_bad_stack(void)
{
	return child_passes(altstack_child, NULL);
}

static int no_altstack_child(void *unused)
{
	(void)unused;
	catch_faults(0);		/* handlers, but no alternate stack */
	resume_at = (unsigned long)bad_stack_resume;
	on_bad_stack(unmapped_page() + PAGE_SIZE);
	return FAIL("survived a fault with no stack for the frame (handler ran %d times)",
		    seen.count);
}

static int test_unwritable_frame(void)
{
	return child_killed_by(no_altstack_child, NULL, SIGSEGV);
}

/* SA_ONSTACK while already on the alternate stack: the frame goes below. */
static volatile unsigned long nested_sp[2];
static volatile int nested_depth;

static void on_usr_nested(int sig, siginfo_t *si, void *ctx)
{
	char here;

	(void)si, (void)ctx;
	nested_sp[nested_depth++] = (unsigned long)&here;
	if (nested_depth == 1)
		kill(getpid(), sig);
}

static int altstack_nested_child(void *unused)
{
	stack_t ss = { altstack, 0, sizeof(altstack) };

	(void)unused;
	sigaltstack(&ss, NULL);
	set_handler(SIGUSR1, on_usr_nested, SA_ONSTACK | SA_NODEFER, 0);
	kill(getpid(), SIGUSR1);
	if (nested_depth != 2)
		return FAIL("%d handler runs, expected 2 (nested)", nested_depth);
	if (nested_sp[1] >= nested_sp[0] || nested_sp[1] < (unsigned long)altstack)
		return FAIL("nested handler at %#lx, outer at %#lx: expected below it on "
			    "the alternate stack at %p", nested_sp[1], nested_sp[0], altstack);
	return 0;
}

static int test_altstack_nested(void)
{
	return child_passes(altstack_nested_child, NULL);
}
/* rt_sigreturn sets the alternate stack that the frame's uc_stack names (Linux's restore_altstack). */
static stack_t uc_stack_to_set;

static void on_usr_set_uc_stack(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si;
	((ucontext_t *)ctx)->uc_stack = uc_stack_to_set;
}

static int uc_stack_child(void *unused)
{
	stack_t first = { altstack, 0, sizeof(altstack) / 2 }, ss;

	(void)unused;
	sigaltstack(&first, NULL);
	set_handler(SIGUSR1, on_usr_set_uc_stack, 0, 0);
	uc_stack_to_set = (stack_t){ altstack + sizeof(altstack) / 2, 0, sizeof(altstack) / 2 };
	kill(getpid(), SIGUSR1);
	sigaltstack(NULL, &ss);
	if (ss.ss_sp != uc_stack_to_set.ss_sp || ss.ss_size != uc_stack_to_set.ss_size || ss.ss_flags)
		return FAIL("the handler set uc_stack to {%p, 0, %lu}; after its return {%p, %d, %lu}",
			    uc_stack_to_set.ss_sp, uc_stack_to_set.ss_size, ss.ss_sp, ss.ss_flags,
			    ss.ss_size);
	uc_stack_to_set = (stack_t){ .ss_flags = SS_DISABLE };
	kill(getpid(), SIGUSR1);
	sigaltstack(NULL, &ss);
	if (!(ss.ss_flags & SS_DISABLE))
		return FAIL("the handler set SS_DISABLE in uc_stack; after its return flags %d",
			    ss.ss_flags);
	return 0;
}

static int test_sigreturn_restores_altstack(void)
{
	return child_passes(uc_stack_child, NULL);
}

/* A handler at an address user mode cannot run: SIGSEGV, no kernel crash. */
static int bad_handler_child(void *arg)
{
	set_handler(SIGUSR1, arg, 0, 0);
	kill(getpid(), SIGUSR1);
	return FAIL("survived a handler at %p", arg);
}

static int test_bad_handler_address(void)
{
	return child_killed_by(bad_handler_child, (void *)NONCANONICAL, SIGSEGV) &&
	       child_killed_by(bad_handler_child, (void *)KERNEL_ADDR, SIGSEGV);
}

/* ---- no kernel bytes in the frame ---- */

/*
 * fxsave fills 416 of the FPU area's 512 bytes (SDM Vol. 1 Table 10-2:
 * 416-463 reserved, 464-511 free for software). The kernel must zero them
 * or write Linux's fx_sw_bytes (from 464, starting with FP_XSTATE_MAGIC1,
 * where it saved with XSAVE): before issue 28 ccos left 96 bytes of its
 * own stack there, kernel addresses and all.
 */
#define FP_XSTATE_MAGIC1	0x46505853u
static uint32_t fp_tail[24];

static void on_usr_copy_fp_tail(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si;
	memcpy(fp_tail, ((ucontext_t *)ctx)->uc_mcontext.fpstate->reserved, sizeof(fp_tail));
}

static int test_fpu_area_tail(void)
{
	int i, ok = 1;

	/* Linux's XSAVE to the frame leaves the reserved bytes as the stack held them. */
	if (!on_ccos())
		return skip("Linux leaves the reserved bytes 416-463 as the user stack held them");
	set_handler(SIGUSR1, on_usr_copy_fp_tail, 0, 0);
	syscall2(__NR_kill, syscall0(__NR_getpid), SIGUSR1);
	for (i = 0; i < 24; i++) {
		int sw_bytes = i >= 12 && fp_tail[12] == FP_XSTATE_MAGIC1;

		if (fp_tail[i] && !sw_bytes)
			ok = ktap_fail("FPU area byte %d: %#x, expected 0%s", 416 + 4 * i,
				       fp_tail[i], i >= 12 ? " or fx_sw_bytes" : "");
	}
	return ok;
}

/* ---- the table ---- */

static const struct test tests[] = {
	{ "handler_edits_rip_and_registers", test_rip_edit },
	{ "uc_flags_sigcontext_ss_strict", test_uc_flags },
	{ "async_signal_keeps_all_registers", test_async_registers },
	{ "altstack_when_stack_unusable", test_altstack_bad_stack },
	{ "altstack_nested_goes_below", test_altstack_nested },
	{ "sigreturn_restores_uc_stack", test_sigreturn_restores_altstack },
	{ "unwritable_frame_kills_sigsegv", test_unwritable_frame },
	{ "bad_handler_address_sigsegv", test_bad_handler_address },
	{ "forged_frame_ring0_cs_ss", test_forged_ring0 },
	{ "forged_frame_iopl_vm", test_forged_iopl },
	{ "forged_frame_iopl_sysret_path", test_forged_iopl_sysret },
	{ "forged_frame_mxcsr_reserved_bits", test_forged_mxcsr },
	{ "forged_frame_kernel_rip", test_forged_kernel_rip },
	{ "forged_frame_noncanonical_rip", test_forged_noncanonical_rip },
	{ "forged_frame_noncanonical_rsp", test_forged_noncanonical_rsp },
	{ "forged_frame_noncanonical_rip_caught", test_forged_noncanonical_rip_caught },
	{ "forged_frame_noncanonical_rsp_caught", test_forged_noncanonical_rsp_caught },
	{ "forged_frame_kernel_fpstate", test_forged_kernel_fpstate },
	{ "forged_frame_kernel_fpstate_caught", test_forged_kernel_fpstate_caught },
	{ "sigreturn_unmapped_frame", test_sigreturn_unmapped_frame },
	{ "sigreturn_unmapped_frame_blocked_sigsegv", test_sigreturn_unmapped_frame_blocked },
	{ "sigreturn_unmapped_frame_caught", test_sigreturn_unmapped_frame_caught },
	{ "sigreturn_to_32bit_code", test_sigreturn_to_32bit_code },
	{ "sigreturn_bad_selectors_caught", test_sigreturn_bad_selectors_caught },
	{ "sigreturn_nonstrict_ss_fixed", test_sigreturn_nonstrict_ss_fixed },
	{ "fpu_area_tail_zero_no_kernel_bytes", test_fpu_area_tail },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
