/* sigstate: CPU state across kernel entries: FPU and SSE registers, EFLAGS.NT, 32-bit mode (sigstate/compat.c), the top of user space, restarted calls. */
#include "sigstate/sigstate.h"

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

/* ---- FPU and SSE state ---- */

/*
 * fpu_load(regs) loads xmm0-xmm15 from regs[0..15] and MXCSR from
 * regs[16]; fpu_store(regs) stores them back. fpu_across(regs, nr, a1,
 * a2) loads, makes the system call nr(a1, a2), spins a while, and stores:
 * whatever ran in between (a handler, another process) must not show.
 */
typedef struct { uint64_t lo, hi; } xmm_t;
struct fpu_regs {
	xmm_t xmm[16];
	uint32_t mxcsr, pad[3];
};

void fpu_across(struct fpu_regs *in, long nr, long a1, long a2, struct fpu_regs *out);
__asm__(".text\n"
	"fpu_across:\n"
	"	pushq %r8\n"
	"	movdqu 0(%rdi), %xmm0; movdqu 16(%rdi), %xmm1; movdqu 32(%rdi), %xmm2\n"
	"	movdqu 48(%rdi), %xmm3; movdqu 64(%rdi), %xmm4; movdqu 80(%rdi), %xmm5\n"
	"	movdqu 96(%rdi), %xmm6; movdqu 112(%rdi), %xmm7; movdqu 128(%rdi), %xmm8\n"
	"	movdqu 144(%rdi), %xmm9; movdqu 160(%rdi), %xmm10; movdqu 176(%rdi), %xmm11\n"
	"	movdqu 192(%rdi), %xmm12; movdqu 208(%rdi), %xmm13; movdqu 224(%rdi), %xmm14\n"
	"	movdqu 240(%rdi), %xmm15; ldmxcsr 256(%rdi)\n"
	"	movq %rsi, %rax\n"
	"	movq %rdx, %rdi\n"
	"	movq %rcx, %rsi\n"
	"	syscall\n"
	"	movl $200000, %ecx\n"
	"1:	decl %ecx\n"
	"	jnz 1b\n"
	"	popq %rdi\n"
	"	movdqu %xmm0, 0(%rdi); movdqu %xmm1, 16(%rdi); movdqu %xmm2, 32(%rdi)\n"
	"	movdqu %xmm3, 48(%rdi); movdqu %xmm4, 64(%rdi); movdqu %xmm5, 80(%rdi)\n"
	"	movdqu %xmm6, 96(%rdi); movdqu %xmm7, 112(%rdi); movdqu %xmm8, 128(%rdi)\n"
	"	movdqu %xmm9, 144(%rdi); movdqu %xmm10, 160(%rdi); movdqu %xmm11, 176(%rdi)\n"
	"	movdqu %xmm12, 192(%rdi); movdqu %xmm13, 208(%rdi); movdqu %xmm14, 224(%rdi)\n"
	"	movdqu %xmm15, 240(%rdi); stmxcsr 256(%rdi)\n"
	"	ldmxcsr mxcsr_default(%rip)\n"
	"	ret\n"
	".section .rodata\n"
	"mxcsr_default: .long 0x1f80\n"
	".text\n");

static void fill_pattern(struct fpu_regs *r, uint64_t seed, uint32_t mxcsr)
{
	int i;

	for (i = 0; i < 16; i++) {
		r->xmm[i].lo = seed ^ (0x0101010101010101UL * (i + 1));
		r->xmm[i].hi = ~seed + i;
	}
	r->mxcsr = mxcsr;
}

static int compare_fpu(const struct fpu_regs *got, const struct fpu_regs *want,
		       const char *when)
{
	int i;

	for (i = 0; i < 16; i++)
		if (got->xmm[i].lo != want->xmm[i].lo || got->xmm[i].hi != want->xmm[i].hi)
			return FAIL("%s: xmm%d is %016lx%016lx, expected %016lx%016lx", when, i,
				    got->xmm[i].hi, got->xmm[i].lo, want->xmm[i].hi,
				    want->xmm[i].lo);
	if (got->mxcsr != want->mxcsr)
		return FAIL("%s: MXCSR %#x, expected %#x", when, got->mxcsr, want->mxcsr);
	return 0;
}

/* The handler clobbers every SSE register and MXCSR, after noting what it saw. */
static volatile uint32_t handler_mxcsr, frame_mxcsr;
static volatile uint64_t frame_xmm5_lo;
static volatile uint16_t handler_fcw;

static void on_usr1_clobber_fpu(int sig, siginfo_t *si, void *ctx)
{
	struct fpstate *fp = ((ucontext_t *)ctx)->uc_mcontext.fpstate;
	uint32_t m;
	uint16_t cw;

	(void)sig, (void)si;
	asm volatile("stmxcsr %0; fnstcw %1" : "=m"(m), "=m"(cw));
	handler_mxcsr = m;
	handler_fcw = cw;
	if (fp) {
		frame_mxcsr = fp->mxcsr;
		frame_xmm5_lo = fp->xmm_space[20] | (uint64_t)fp->xmm_space[21] << 32;
	}
	asm volatile("pcmpeqd %%xmm0, %%xmm0; pcmpeqd %%xmm1, %%xmm1; pcmpeqd %%xmm2, %%xmm2;"
		     "pcmpeqd %%xmm3, %%xmm3; pcmpeqd %%xmm4, %%xmm4; pcmpeqd %%xmm5, %%xmm5;"
		     "pcmpeqd %%xmm6, %%xmm6; pcmpeqd %%xmm7, %%xmm7; pcmpeqd %%xmm8, %%xmm8;"
		     "pcmpeqd %%xmm9, %%xmm9; pcmpeqd %%xmm10, %%xmm10; pcmpeqd %%xmm11, %%xmm11;"
		     "pcmpeqd %%xmm12, %%xmm12; pcmpeqd %%xmm13, %%xmm13;"
		     "pcmpeqd %%xmm14, %%xmm14; pcmpeqd %%xmm15, %%xmm15;"
		     "ldmxcsr %0; fldcw %1"
		     : : "m"((uint32_t){ 0x9fc0 & 0xffbf }), "m"((uint16_t){ 0x27f })
		     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

#define MXCSR_RZ_FTZ	0xff80		/* round toward zero, flush to zero, all masked */

static int fpu_signal_child(void *unused)
{
	static struct fpu_regs in, out;
	int bad = 0;

	(void)unused;
	fill_pattern(&in, 0x0123456789abcdefUL, MXCSR_RZ_FTZ);
	set_handler(SIGUSR1, on_usr1_clobber_fpu, 0, 0);
	fpu_across(&in, 62 /* kill */, getpid(), SIGUSR1, &out);
	if (!handler_mxcsr)
		return FAIL("the handler did not run");
	bad = compare_fpu(&out, &in, "after the handler");
	if (handler_mxcsr != 0x1f80 || handler_fcw != 0x37f)
		bad = FAIL("the handler started with MXCSR %#x FCW %#x, expected the "
			   "initial state 0x1f80 0x37f", handler_mxcsr, handler_fcw);
	if (frame_mxcsr != MXCSR_RZ_FTZ || frame_xmm5_lo != in.xmm[5].lo)
		bad = FAIL("uc_mcontext.fpstate: MXCSR %#x, xmm5 low %#lx, expected "
			   "%#x and %#lx", frame_mxcsr, frame_xmm5_lo, MXCSR_RZ_FTZ,
			   in.xmm[5].lo);
	return bad;
}

static int test_fpu_across_handler(void)
{
	return child_passes(fpu_signal_child, NULL);
}

/*
 * Two processes, each with its own values in every SSE register, yield
 * to each other and spin (so the timer preempts them too), and check
 * after each round that their registers are still their own.
 */
static int fpu_hammer(uint64_t seed, uint32_t mxcsr)
{
	static struct fpu_regs in, out;
	int i;

	fill_pattern(&in, seed, mxcsr);
	for (i = 0; i < 150; i++) {
		fpu_across(&in, 24 /* sched_yield */, 0, 0, &out);
		if (compare_fpu(&out, &in, "after a context switch"))
			return FAIL("(round %d of 150, seed %#lx)", i + 1, seed);
	}
	return 0;
}

static int test_fpu_context_switch(void)
{
	long pid = fork();
	int status, mine;

	if (pid == 0)
		exit_group(fpu_hammer(0xfeedfacecafebeefUL, 0x5f80 /* round up */));
	if (pid < 0)
		return ktap_fail("fork: error %ld", -pid);
	mine = fpu_hammer(0x1234567812345678UL, 0x3f80 /* round down */);
	if (wait4(pid, &status, 0, NULL) != pid)
		return ktap_fail("wait4 failed");
	if (mine)
		return ktap_fail("the parent's registers changed");
	return status == 0 || ktap_fail("the child's registers changed (status %#x)", status);
}

/* ---- other ways into the kernel from odd states ---- */

/*
 * EFLAGS.NT set in user mode (popf may set it), then a system call that
 * returns through iretq (a signal is delivered on the way out). In 64-bit
 * mode iretq with NT set raises #GP, so the kernel must not run with the
 * user's NT: Linux clears it on entry (SYSCALL's FMASK).
 */
static int nt_child(void *unused)
{
	long r;

	(void)unused;
	set_handler(SIGUSR1, on_usr1_count, 0, 0);
	asm volatile("pushfq; orq $0x4000, (%%rsp); popfq\n"
		     "syscall\n"
		     "pushfq; andq $~0x4000, (%%rsp); popfq"
		     : "=a"(r) : "a"(62L), "D"(getpid()), "S"((long)SIGUSR1)
		     : "rcx", "r11", "memory", "cc");
	if (r != 0 || usr1_count != 1)
		return FAIL("kill returned %ld, the handler ran %d times", r, usr1_count);
	return 0;
}

static int test_nt_flag_syscall(void)
{
	return child_passes(nt_child, NULL);
}

/*
 * A syscall instruction in the last two bytes below the non-canonical
 * hole returns to 0x800000000000. Linux keeps the last page unmappable
 * for this reason; otherwise the kernel's way out (SYSRET or iretq)
 * must not fault in ring 0 on the non-canonical rip.
 */
static int last_page_child(void *unused)
{
	unsigned long top = NONCANONICAL - PAGE_SIZE;
	unsigned char *p;

	(void)unused;
	p = mmap((void *)top, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	ktap_diag("mmap of the last page: %s", p == (void *)top ? "mapped" : "refused");
	if (p == (void *)top) {
		p[PAGE_SIZE - 2] = 0x0f;	/* syscall */
		p[PAGE_SIZE - 1] = 0x05;
		asm volatile("movl $39, %%eax; jmp *%0" : : "r"(p + PAGE_SIZE - 2) : "rax");
	}
	return 42;			/* refused, as on Linux */
}

static int test_last_page_syscall(void)
{
	int status = run_in_child(last_page_child, NULL);

	if (status >= 0 && ((WIFEXITED(status) && WEXITSTATUS(status) == 42) ||
			    (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)))
		return 1;
	return ktap_fail("wait status %#x, expected exit 42 (mmap refused) or SIGSEGV",
			 status);
}

/* ---- the table ---- */

/*
 * SA_RESTART: a read of a pipe and a wait4 that a handler's signal
 * interrupts go on once the handler has run (musl's signal() sets the
 * flag); without it they return -EINTR. A child signals its parent once
 * the parent sleeps, waits for the handler to say it ran, then writes to
 * the pipe or exits.
 */
static int ack[2];

static void on_usr1_ack(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si, (void)ctx;
	write(ack[1], "h", 1);
}

static long interrupted_by_child(int data_fd)
{
	long parent = getpid(), pid;
	char c;

	if ((pid = fork()) == 0) {
		state_of(parent, 'S');
		kill(parent, SIGUSR1);
		read(ack[0], &c, 1);
		if (data_fd >= 0)
			write(data_fd, "x", 1);
		exit_group(7);
	}
	return pid;
}

static int test_sa_restart(void)
{
	int data[2], status = -1;
	long pid, r;
	char c = 0;

	if (pipe(ack) || pipe(data) || set_handler(SIGUSR1, on_usr1_ack, SA_RESTART, 0))
		return ktap_fail("pipe or rt_sigaction failed");
	pid = interrupted_by_child(data[1]);
	r = read(data[0], &c, 1);
	wait4(pid, &status, 0, NULL);
	if (!expect(r, 1, "read of a pipe, interrupted by an SA_RESTART handler") ||
	    !expect(c, 'x', "... the byte the child wrote after the handler ran"))
		return 0;
	pid = interrupted_by_child(-1);
	r = wait4(pid, &status, 0, NULL);
	if (!expect(r, pid, "wait4, interrupted by an SA_RESTART handler") ||
	    !expect_exit(status, 7, "... the child's status"))
		return 0;
	set_handler(SIGUSR1, on_usr1_ack, 0, 0);
	pid = interrupted_by_child(data[1]);
	r = read(data[0], &c, 1);
	wait4(pid, &status, 0, NULL);
	return expect(r, -EINTR, "read of a pipe, interrupted by a handler without SA_RESTART") &&
	       expect(read(data[0], &c, 1), 1, "the byte written after it");
}

static const struct test tests[] = {
	{ "fpu_sse_across_handler", test_fpu_across_handler },
	{ "fpu_sse_across_context_switch", test_fpu_context_switch },
	{ "nt_flag_then_syscall", test_nt_flag_syscall },
	{ "syscall_from_32bit_mode", test_compat_syscall },
	{ "stack_in_32bit_mode", test_compat_stack },
	{ "far_return_to_32bit_mode", test_compat_lret },
	{ "syscall_at_end_of_user_space", test_last_page_syscall },
	{ "sa_restart_read_and_wait4", test_sa_restart },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
