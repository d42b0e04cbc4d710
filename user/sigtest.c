/* sigtest: signals from ring 3: faults, Linux's frame, handlers, masks, FPU state, forged frames, seccomp. */
#include "ulib.h"

/*
 * Every case runs in a child of its own: most fault on purpose, change
 * their signal state or may be killed. A child explains a failure in "# "
 * lines (KTAP diagnostics, printed before the result) and exits with 1;
 * the parent prints one KTAP result per case. The same binary runs on
 * Linux, which is how its expectations were checked.
 */

#define KERNEL_ADDR	0xffffffff80000000UL
#define KERNEL_HOLE	0xffffa00000000000UL	/* kernel half, mapped by nobody */
#define VSYSCALL_ADDR	0xffffffffff600000UL
#define NONCANONICAL	0x0000800000000000UL
#define USER_CS		0x33
#define USER_DS		0x2b
#define KERNEL_CS	0x10
#define KERNEL_DS	0x18

#define EFLAGS_TF	0x100UL
#define EFLAGS_IF	0x200UL
#define EFLAGS_IOPL	0x3000UL
#define EFLAGS_NT	0x4000UL
#define EFLAGS_VM	0x20000UL
#define EFLAGS_AC	0x40000UL
#define EFLAGS_VIF	0x80000UL
#define EFLAGS_VIP	0x100000UL

/* Page-fault error code bits (REG_ERR of a SIGSEGV from a page fault). */
#define PF_PROT		0x1
#define PF_WRITE	0x2
#define PF_USER		0x4
#define PF_INSTR	0x10

#define FAIL(...)	(ktap_diag(__VA_ARGS__), 1)

static const char *const signame[32] = {
	[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGILL] = "SIGILL",
	[SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS",
	[SIGFPE] = "SIGFPE", [SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1",
	[SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2", [SIGTERM] = "SIGTERM",
};

static const char *sig_name(int sig)
{
	return sig > 0 && sig < 32 && signame[sig] ? signame[sig] : "signal ?";
}

/* ---- helpers ---- */

/* Install fn for sig with the runtime's restorer, flags and mask. */
static long set_handler(int sig, void (*fn)(int, siginfo_t *, void *),
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

static long set_action(int sig, void (*fn)(int))
{
	struct kernel_sigaction sa = {
		.sa_handler = (void (*)(int, siginfo_t *, void *))(void *)fn,
		.sa_flags = SA_RESTORER,
		.sa_restorer = rt_sigreturn,
	};

	return rt_sigaction(sig, &sa, NULL, sizeof(sigset_t));
}

static sigset_t get_mask(void)
{
	sigset_t m = 0;

	rt_sigprocmask(SIG_BLOCK, NULL, &m, sizeof(m));
	return m;
}

static void set_mask(sigset_t m)
{
	rt_sigprocmask(SIG_SETMASK, &m, NULL, sizeof(m));
}

static void *map(int prot)
{
	return mmap(NULL, PAGE_SIZE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static unsigned long read_eflags(void)
{
	unsigned long f;

	asm volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

/* Run fn in a child; 1 if it exited with 0. */
static int child_passes(int (*fn)(void *), void *arg)
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
static int child_killed_by(int (*fn)(void *), void *arg, int sig)
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

static volatile struct seen {
	int count, signo, errno_, code;
	unsigned long addr;		/* si_addr */
	unsigned long rip, rsp, eflags, err, trapno, cr2;
	unsigned long handler_sp;	/* where the handler's frame was */
	sigset_t mask;			/* the blocked set inside the handler */
	sigset_t uc_sigmask;
	stack_t uc_stack;
} seen;

/* Where the handler sends the program on, and how. */
static volatile unsigned long resume_at;	/* new rip; 0: return to the same place */
static volatile int resume_pops;		/* pop a return address (a faulting call) */

/*
 * The handler of the fault cases: note what the kernel reported, then
 * edit the saved registers so that the program resumes past the fault.
 */
static void record(int sig, siginfo_t *si, void *ctx)
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

static void catch_faults(unsigned long flags)
{
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(fault_signals); i++)
		set_handler(fault_signals[i], record, flags, 0);
}

/* ---- faulting instructions ---- */

/*
 * Each is a function of one argument (rdi): NAME_insn labels the
 * instruction that faults or traps, NAME_resume the one after it, where
 * the handler sends the program on. `before` prepares the fault and
 * `after` undoes what it changed.
 */
#define FAULT_FN(name, before, insn, after)				\
	extern const char name##_insn[], name##_resume[];		\
	void name(unsigned long arg);					\
	__asm__(".text\n"						\
		".type " #name ", @function\n"				\
		#name ":\n\t" before "\n"				\
		#name "_insn:\n\t" insn "\n"				\
		#name "_resume:\n\t" after "\n"				\
		"\tret\n"						\
		".size " #name ", . - " #name "\n")

FAULT_FN(load_byte, "", "movb (%rdi), %al", "");
FAULT_FN(store_byte, "", "movb $1, (%rdi)", "");
FAULT_FN(call_addr, "", "call *%rdi", "");
FAULT_FN(do_hlt, "", "hlt", "");
FAULT_FN(do_cli, "", "cli", "");
FAULT_FN(do_out, "movw $0x80, %dx", "outb %al, %dx", "");
FAULT_FN(do_ud2, "", "ud2", "");
FAULT_FN(do_into, "", ".byte 0xce", "");	/* into: invalid in 64-bit mode */
FAULT_FN(do_div0, "movl $1, %eax; xorl %edx, %edx; xorl %ecx, %ecx",
	 "divl %ecx", "");
FAULT_FN(do_idiv_overflow, "movabsq $0x8000000000000000, %rax; cqto; movq $-1, %rcx",
	 "idivq %rcx", "");
FAULT_FN(do_int3, "", "int3", "");
/* 1.0f / 0.0f with the divide-by-zero exception unmasked (MXCSR from *arg) */
FAULT_FN(do_divss0, "movl $0x3f800000, %eax; movd %eax, %xmm0; xorps %xmm1, %xmm1;"
	 "ldmxcsr (%rdi)", "divss %xmm1, %xmm0", "ldmxcsr 4(%rdi)");
/* 1.0 / 0.0 on the x87 with ZM clear: reported at the next waiting instruction */
FAULT_FN(do_fdiv0, "fninit; fldcw (%rdi); fld1; fldz; fdivrp",
	 "fwait", "fninit");
/* an unaligned load with EFLAGS.AC set (alignment checking needs CR0.AM too) */
FAULT_FN(do_unaligned, "pushfq; orl $0x40000, (%rsp); popfq",
	 "movl 1(%rdi), %eax", "pushfq; andl $~0x40000, (%rsp); popfq");

/* ---- targets ---- */

static unsigned long unmapped_page(void)
{
	char *p = map(PROT_READ | PROT_WRITE);

	munmap(p, PAGE_SIZE);
	return (unsigned long)p;
}

/* Read first, so that Linux too has the page present (err has PF_PROT). */
static unsigned long readonly_page(void)
{
	volatile char *p = map(PROT_READ | PROT_WRITE);

	p[0] = 0;
	mprotect((void *)p, PAGE_SIZE, PROT_READ);
	(void)p[0];
	return (unsigned long)p;
}

static unsigned long none_page(void)
{
	return (unsigned long)map(PROT_NONE);
}

/* A present, readable, non-executable page holding a `ret`. */
static unsigned long nx_page(void)
{
	char *p = map(PROT_READ | PROT_WRITE);

	p[0] = 0xc3;
	return (unsigned long)p;
}

static unsigned long kernel_addr(void) { return KERNEL_ADDR; }
static unsigned long kernel_hole(void) { return KERNEL_HOLE; }
static unsigned long vsyscall_page(void) { return VSYSCALL_ADDR; }
static unsigned long noncanonical(void) { return NONCANONICAL; }

static const uint32_t mxcsr_zm_clear[2] = { 0x1f80 & ~0x200, 0x1f80 };
static const uint16_t fcw_zm_clear = 0x37f & ~0x4;
static unsigned long mxcsr_arg(void) { return (unsigned long)mxcsr_zm_clear; }
static unsigned long fcw_arg(void) { return (unsigned long)&fcw_zm_clear; }

static uint64_t aligned_words[2];
static unsigned long aligned_buf(void) { return (unsigned long)aligned_words; }

/* ---- fault kinds ---- */

enum where { AT_ZERO, AT_TARGET, AT_INSN, AT_RESUME, ANY };

static const struct fault_case {
	const char *name;
	void (*fn)(unsigned long);
	const char *insn, *resume;
	unsigned long (*target)(void);	/* the argument; NULL: none */
	int sig, code;			/* code -1: any */
	enum where addr;		/* si_addr (and cr2 for page faults) */
	enum where rip;			/* uc_mcontext.rip */
	long trapno, err;		/* -1: any */
	int pops;			/* the fault came from a call */
	const char *may_not_fault;	/* why a CPU may not raise it: a skip */
} fault_cases[] = {
	{ "read_unmapped_segv_maperr", load_byte, load_byte_insn, load_byte_resume,
	  unmapped_page, SIGSEGV, SEGV_MAPERR, AT_TARGET, AT_INSN, 14, PF_USER },
	{ "write_readonly_segv_accerr", store_byte, store_byte_insn, store_byte_resume,
	  readonly_page, SIGSEGV, SEGV_ACCERR, AT_TARGET, AT_INSN, 14,
	  PF_USER | PF_WRITE | PF_PROT },
	{ "read_prot_none_segv_accerr", load_byte, load_byte_insn, load_byte_resume,
	  none_page, SIGSEGV, SEGV_ACCERR, AT_TARGET, AT_INSN, 14, PF_USER },
	{ "exec_nx_page_segv_accerr_fetch", call_addr, call_addr_insn, call_addr_resume,
	  nx_page, SIGSEGV, SEGV_ACCERR, AT_TARGET, AT_TARGET, 14,
	  PF_USER | PF_INSTR | PF_PROT, 1 },
	{ "exec_unmapped_segv_maperr_fetch", call_addr, call_addr_insn, call_addr_resume,
	  unmapped_page, SIGSEGV, SEGV_MAPERR, AT_TARGET, AT_TARGET, 14,
	  PF_USER | PF_INSTR, 1 },
	/* Kernel addresses: Linux reports the same whether or not one is
	 * mapped, so that a fault does not tell user space the kernel's layout. */
	{ "read_kernel_segv_maperr", load_byte, load_byte_insn, load_byte_resume,
	  kernel_addr, SIGSEGV, SEGV_MAPERR, AT_TARGET, AT_INSN, 14, PF_USER | PF_PROT },
	{ "read_kernel_hole_same_report", load_byte, load_byte_insn, load_byte_resume,
	  kernel_hole, SIGSEGV, SEGV_MAPERR, AT_TARGET, AT_INSN, 14, PF_USER | PF_PROT },
	{ "write_vsyscall_page_segv", store_byte, store_byte_insn, store_byte_resume,
	  vsyscall_page, SIGSEGV, SEGV_MAPERR, AT_TARGET, AT_INSN, 14,
	  PF_USER | PF_WRITE | PF_PROT },
	{ "noncanonical_load_gp_si_kernel", load_byte, load_byte_insn, load_byte_resume,
	  noncanonical, SIGSEGV, SI_KERNEL, AT_ZERO, AT_INSN, 13, 0 },
	{ "hlt_gp_si_kernel", do_hlt, do_hlt_insn, do_hlt_resume,
	  NULL, SIGSEGV, SI_KERNEL, AT_ZERO, AT_INSN, 13, 0 },
	{ "cli_gp_si_kernel", do_cli, do_cli_insn, do_cli_resume,
	  NULL, SIGSEGV, SI_KERNEL, AT_ZERO, AT_INSN, 13, 0 },
	{ "outb_gp_si_kernel", do_out, do_out_insn, do_out_resume,
	  NULL, SIGSEGV, SI_KERNEL, AT_ZERO, AT_INSN, 13, 0 },
	{ "ud2_sigill_illopn", do_ud2, do_ud2_insn, do_ud2_resume,
	  NULL, SIGILL, ILL_ILLOPN, AT_INSN, AT_INSN, 6, 0 },
	{ "into_sigill_illopn", do_into, do_into_insn, do_into_resume,
	  NULL, SIGILL, ILL_ILLOPN, AT_INSN, AT_INSN, 6, 0 },
	{ "div_zero_sigfpe_intdiv", do_div0, do_div0_insn, do_div0_resume,
	  NULL, SIGFPE, FPE_INTDIV, AT_INSN, AT_INSN, 0, 0 },
	{ "idiv_overflow_sigfpe_intdiv", do_idiv_overflow, do_idiv_overflow_insn,
	  do_idiv_overflow_resume, NULL, SIGFPE, FPE_INTDIV, AT_INSN, AT_INSN, 0, 0 },
	{ "int3_sigtrap", do_int3, do_int3_insn, do_int3_resume,
	  NULL, SIGTRAP, SI_KERNEL, AT_ZERO, AT_RESUME, 3, 0 },
	{ "sse_div_zero_sigfpe_fltdiv", do_divss0, do_divss0_insn, do_divss0_resume,
	  mxcsr_arg, SIGFPE, FPE_FLTDIV, AT_INSN, AT_INSN, 19, 0, 0,
	  "no #XM: QEMU's TCG does not raise SSE exceptions" },
	{ "x87_div_zero_sigfpe_fltdiv", do_fdiv0, do_fdiv0_insn, do_fdiv0_resume,
	  fcw_arg, SIGFPE, FPE_FLTDIV, AT_INSN, AT_INSN, 16, 0 },
	{ "unaligned_with_ac_sigbus_adraln", do_unaligned, do_unaligned_insn,
	  do_unaligned_resume, aligned_buf, SIGBUS, BUS_ADRALN, ANY, AT_INSN, 17, 0,
	  0, "no #AC: QEMU's TCG does not check alignment" },
};

static unsigned long where(enum where w, unsigned long target, const struct fault_case *c)
{
	switch (w) {
	case AT_TARGET: return target;
	case AT_INSN: return (unsigned long)c->insn;
	case AT_RESUME: return (unsigned long)c->resume;
	default: return 0;
	}
}

static volatile int fault_skipped;

static int fault_child(void *arg)
{
	const struct fault_case *c = arg;
	unsigned long target = c->target ? c->target() : 0;
	int bad = 0;

	catch_faults(0);
	resume_at = (unsigned long)c->resume;
	resume_pops = c->pops;
	c->fn(target);
	if (seen.count == 0 && c->may_not_fault)
		return 77;		/* this CPU did not raise it: a skip */
	if (seen.count != 1)
		return FAIL("the handler ran %d times, expected once", seen.count);
	if (seen.signo != c->sig)
		return FAIL("got %s (%d) si_code %d, expected %s", sig_name(seen.signo),
			    seen.signo, seen.code, sig_name(c->sig));
	if (c->code >= 0 && seen.code != c->code)
		bad = FAIL("si_code %d, expected %d", seen.code, c->code);
	if (c->addr != ANY && seen.addr != where(c->addr, target, c))
		bad = FAIL("si_addr %#lx, expected %#lx", seen.addr, where(c->addr, target, c));
	if (c->rip != ANY && seen.rip != where(c->rip, target, c))
		bad = FAIL("uc_mcontext.rip %#lx, expected %#lx", seen.rip,
			   where(c->rip, target, c));
	if (c->trapno >= 0 && seen.trapno != (unsigned long)c->trapno)
		bad = FAIL("uc_mcontext.trapno %lu, expected %ld", seen.trapno, c->trapno);
	if (c->err >= 0 && seen.err != (unsigned long)c->err)
		bad = FAIL("uc_mcontext.err %#lx, expected %#lx", seen.err, c->err);
	if (c->trapno == 14 && seen.cr2 != target)
		bad = FAIL("uc_mcontext.cr2 %#lx, expected %#lx", seen.cr2, target);
	if (seen.errno_)
		bad = FAIL("si_errno %d, expected 0", seen.errno_);
	return bad;
}

static int run_fault_case(const struct fault_case *c)
{
	int status = run_in_child(fault_child, (void *)c);

	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		fault_skipped = 1;
		return 1;
	}
	if (status >= 0 && WIFSIGNALED(status))
		return ktap_fail("killed by %s (%d): the handler did not resume it",
				 sig_name(WTERMSIG(status)), WTERMSIG(status));
	if (status)
		return ktap_fail("see the # lines above");
	return 1;
}

/* ---- single-stepping with EFLAGS.TF ---- */

/*
 * popfq sets TF; the CPU traps (#DB) after each instruction that starts
 * with TF set, so the first report is after step_1. The handler lets
 * the steps go on (rt_sigreturn restores TF) until step_done.
 */
extern const char step_1[], step_2[], step_3[], step_4[], step_done[];
void single_step(void);
__asm__(".text\n"
	"single_step:\n"
	"	pushfq\n"
	"	orq $0x100, (%rsp)\n"
	"	popfq\n"
	"step_1:	nop\n"
	"step_2:	movl $1, %eax\n"
	"step_3:	addl %eax, %eax\n"
	"step_4:	nop\n"
	"step_done:\n"
	"	ret\n");

static volatile unsigned long step_rips[8];
static volatile int step_count, step_code, step_signo;
static volatile unsigned long step_addr, step_trapno;

static void on_step(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;

	(void)sig;
	if (step_count < (int)ARRAY_SIZE(step_rips))
		step_rips[step_count] = mc->rip;
	if (step_count++ == 0) {
		step_signo = si->si_signo;
		step_code = si->si_code;
		step_addr = (unsigned long)si->si_addr;
		step_trapno = mc->trapno;
	}
	if (mc->rip == (unsigned long)step_done || step_count >= (int)ARRAY_SIZE(step_rips))
		mc->eflags &= ~EFLAGS_TF;
}

static int single_step_child(void *unused)
{
	const unsigned long want[] = {
		(unsigned long)step_2, (unsigned long)step_3,
		(unsigned long)step_4, (unsigned long)step_done,
	};
	unsigned long i;
	int bad = 0;

	(void)unused;
	set_handler(SIGTRAP, on_step, 0, 0);
	single_step();
	if (step_signo != SIGTRAP || step_code != TRAP_TRACE)
		bad = FAIL("first report: signal %d si_code %d, expected SIGTRAP TRAP_TRACE (2)",
			   step_signo, step_code);
	if (step_trapno != 1)
		bad = FAIL("trapno %lu, expected 1 (#DB)", step_trapno);
	if (step_addr != (unsigned long)step_2)
		bad = FAIL("si_addr %#lx, expected the next instruction %p", step_addr, step_2);
	if (step_count != ARRAY_SIZE(want))
		return FAIL("%d traps, expected %lu", step_count, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		if (step_rips[i] != want[i])
			bad = FAIL("trap %lu at %#lx, expected %#lx", i + 1, step_rips[i], want[i]);
	if (read_eflags() & EFLAGS_TF)
		bad = FAIL("TF still set after the steps");
	return bad;
}

static int test_single_step(void)
{
	return child_passes(single_step_child, NULL);
}

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

/* ---- registers across an asynchronous signal ---- */

/*
 * The child loads a pattern into every general register it can and spins
 * until a handler sets `async_flag`; the parent sends the signal, which
 * arrives on the way out of a timer interrupt (not a system call), so
 * even rcx and r11 must come back. The handler clobbers them all.
 */
static volatile int async_flag;
static unsigned long async_regs[14];

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

static int test_async_registers(void)
{
	struct timespec ts = { 0, 30 * 1000000 };
	long pid = fork();
	int status;

	if (pid == 0)
		exit_group(async_child(NULL));
	if (pid < 0)
		return ktap_fail("fork: error %ld", -pid);
	nanosleep(&ts, NULL);		/* let it start spinning */
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
	struct timespec ts = { 0, 20 * 1000000 }, forever = { 1000, 0 };
	sigset_t all = ~0UL;
	long pid = fork();
	int sig, status;

	if (pid == 0) {
		for (sig = 1; sig <= 64; sig++)
			set_action(sig, SIG_IGN);
		rt_sigprocmask(SIG_SETMASK, &all, NULL, sizeof(all));
		for (;;)
			nanosleep(&forever, NULL);
	}
	if (pid < 0)
		return ktap_fail("fork: error %ld", -pid);
	nanosleep(&ts, NULL);
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
static volatile int usr1_count;

static void on_usr1_count(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si, (void)ctx;
	usr1_count++;
}

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
static int default_child(void *arg)
{
	int sig = (long)arg;

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

/* A signal ends a sleep early: -EINTR after the handler ran. */
static int eintr_child(void *unused)
{
	struct timespec ts = { 10, 0 }, rem = { 0, 0 };
	long r;

	(void)unused;
	set_handler(SIGUSR1, on_usr1_count, 0, 0);
	r = nanosleep(&ts, &rem);
	if (r != -EINTR)
		return FAIL("nanosleep returned %ld, expected -EINTR", r);
	if (usr1_count != 1)
		return FAIL("the handler ran %d times", usr1_count);
	if (rem.tv_sec > 10 || rem.tv_sec < 5)
		return FAIL("rem %ld.%09ld s, expected a little under 10 s",
			    rem.tv_sec, rem.tv_nsec);
	return 0;
}

static int test_eintr(void)
{
	struct timespec ts = { 0, 30 * 1000000 };
	long pid = fork();
	int status;

	if (pid == 0)
		exit_group(eintr_child(NULL));
	nanosleep(&ts, NULL);
	kill(pid, SIGUSR1);
	if (wait4(pid, &status, 0, NULL) != pid)
		return ktap_fail("wait4 failed");
	return status == 0 || ktap_fail("wait status %#x (see the # lines above)", status);
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

/* ---- forged frames passed to rt_sigreturn ---- */

/*
 * rt_sigreturn trusts nothing in the frame: a process may call it with
 * any rsp. Each case forges a ucontext asking for something user mode
 * must not have, lands (if the kernel lets it) at forged_landing, and
 * reports what it got: its own CS and SS, RFLAGS (IOPL), MXCSR. Either
 * outcome is acceptable as long as nothing was gained: the process dies,
 * or it runs with the values cleaned.
 */
struct fake_frame {
	unsigned long pretcode;
	ucontext_t uc;
	siginfo_t info;
};

static struct fake_frame fake __attribute__((aligned(16)));
static struct fpstate fake_fp __attribute__((aligned(64)));
static char landing_stack[16384] __attribute__((aligned(16)));
volatile uint16_t landed_cs, landed_ss;
volatile unsigned long landed_flags, landed_rax;
volatile uint32_t landed_mxcsr;

void forged_landing(void);
void forged_landed(void) __attribute__((noreturn, used));
__asm__(".text\n"
	"forged_landing:\n"
	"	movq %rax, landed_rax(%rip)\n"
	"	movw %cs, landed_cs(%rip)\n"
	"	movw %ss, landed_ss(%rip)\n"
	"	stmxcsr landed_mxcsr(%rip)\n"
	"	pushfq\n"
	"	popq landed_flags(%rip)\n"
	"	pushq $0x202\n"			/* the usual flags for C */
	"	popfq\n"
	"	andq $-16, %rsp\n"
	"	call forged_landed\n"
	"	ud2\n");

#define LANDED_RAX	0x1a2b3c4d5e6f7788UL

void forged_landed(void)
{
	int bad = 0;

	if (landed_rax != LANDED_RAX)
		bad = FAIL("rax %#lx, expected %#lx from the frame", landed_rax, LANDED_RAX);
	if (landed_cs != USER_CS || landed_ss != USER_DS)
		bad = FAIL("running with CS %#x SS %#x, expected %#x %#x", landed_cs,
			   landed_ss, USER_CS, USER_DS);
	if (landed_flags & (EFLAGS_IOPL | EFLAGS_VM | EFLAGS_VIF | EFLAGS_VIP))
		bad = FAIL("RFLAGS %#lx: IOPL, VM, VIF or VIP survived", landed_flags);
	if (!(landed_flags & EFLAGS_IF))
		bad = FAIL("RFLAGS %#lx: interrupts off in user mode", landed_flags);
	if (landed_mxcsr & 0xffff0000)
		bad = FAIL("MXCSR %#x has reserved bits set", landed_mxcsr);
	exit_group(bad ? 1 : 42);
}

/* A frame that returns to forged_landing with ordinary values. */
static void fake_init(void)
{
	struct sigcontext *sc = &fake.uc.uc_mcontext;

	memset(&fake, 0, sizeof(fake));
	sc->rip = (unsigned long)forged_landing;
	sc->rsp = (unsigned long)landing_stack + sizeof(landing_stack) - 8;
	sc->rax = LANDED_RAX;
	sc->eflags = 0x202;
	sc->cs = USER_CS;
	sc->ss = USER_DS;
}

static void fake_sigreturn(void) __attribute__((noreturn));
static void fake_sigreturn(void)
{
	/* As after a handler's ret: rsp just above the return address. */
	asm volatile("movq %0, %%rsp; movl $15, %%eax; syscall; ud2"
		     : : "r"(&fake.uc) : "memory");
	__builtin_unreachable();
}

enum forgery {
	FORGE_RING0_CS_SS, FORGE_IOPL, FORGE_IOPL_SYSRET, FORGE_KERNEL_RIP,
	FORGE_NONCANONICAL_RIP, FORGE_NONCANONICAL_RSP, FORGE_MXCSR,
	FORGE_KERNEL_FPSTATE, FORGE_UNMAPPED_FRAME,
};

static int forged_child(void *arg)
{
	struct sigcontext *sc = &fake.uc.uc_mcontext;

	fake_init();
	switch ((enum forgery)(long)arg) {
	case FORGE_RING0_CS_SS:
		sc->cs = KERNEL_CS;
		sc->ss = KERNEL_DS;
		break;
	case FORGE_IOPL:
		sc->eflags = 0x202 | EFLAGS_IOPL | EFLAGS_VM | EFLAGS_VIF | EFLAGS_VIP;
		break;
	case FORGE_IOPL_SYSRET:
		/* rcx == rip and r11 == rflags: the frame of a plain system
		 * call, which a kernel may leave through SYSRET (rflags from r11) */
		sc->eflags = 0x202 | EFLAGS_IOPL;
		sc->r11 = sc->eflags;
		sc->rcx = sc->rip;
		break;
	case FORGE_KERNEL_RIP:
		sc->rip = KERNEL_ADDR;
		break;
	case FORGE_NONCANONICAL_RIP:
		sc->rip = NONCANONICAL;
		sc->rcx = NONCANONICAL;
		sc->r11 = sc->eflags;
		break;
	case FORGE_NONCANONICAL_RSP:
		sc->rsp = NONCANONICAL;
		break;
	case FORGE_MXCSR:
		asm volatile("fxsave64 %0" : "=m"(fake_fp));
		fake_fp.mxcsr = 0xffffffff;
		sc->fpstate = &fake_fp;
		break;
	case FORGE_KERNEL_FPSTATE:
		sc->fpstate = (struct fpstate *)KERNEL_ADDR;
		break;
	case FORGE_UNMAPPED_FRAME:
		asm volatile("movq %0, %%rsp; movl $15, %%eax; syscall; ud2"
			     : : "r"(unmapped_page() + 64) : "memory");
		break;
	}
	fake_sigreturn();
}

/* 42: it landed and found everything clean; or it died of one of sigs. */
static int forged(enum forgery f, int sig1, int sig2)
{
	int status = run_in_child(forged_child, (void *)(long)f);

	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 42)
		return 1;
	if (status >= 0 && WIFSIGNALED(status) &&
	    (WTERMSIG(status) == sig1 || WTERMSIG(status) == sig2))
		return 1;
	if (status >= 0 && WIFSIGNALED(status))
		return ktap_fail("killed by %s (%d)", sig_name(WTERMSIG(status)),
				 WTERMSIG(status));
	return ktap_fail("wait status %#x: it landed and gained something (the # lines above)",
			 status);
}

static int test_forged_ring0(void) { return forged(FORGE_RING0_CS_SS, SIGSEGV, 0); }
static int test_forged_iopl(void) { return forged(FORGE_IOPL, SIGSEGV, 0); }
static int test_forged_iopl_sysret(void) { return forged(FORGE_IOPL_SYSRET, SIGSEGV, 0); }
static int test_forged_mxcsr(void) { return forged(FORGE_MXCSR, SIGSEGV, 0); }

/* These cannot land: the process must die (and the kernel live). */
static int forged_dies(enum forgery f, int sig1, int sig2)
{
	int status = run_in_child(forged_child, (void *)(long)f);

	if (status >= 0 && WIFSIGNALED(status) &&
	    (WTERMSIG(status) == sig1 || WTERMSIG(status) == sig2))
		return 1;
	return ktap_fail("wait status %#x, expected killed by %s", status, sig_name(sig1));
}

static int test_forged_kernel_rip(void) { return forged_dies(FORGE_KERNEL_RIP, SIGSEGV, 0); }
static int test_forged_noncanonical_rip(void)
{
	return forged_dies(FORGE_NONCANONICAL_RIP, SIGSEGV, 0);
}
/* The first push faults: #SS (SIGBUS) on hardware, #GP (SIGSEGV) in QEMU. */
static int test_forged_noncanonical_rsp(void)
{
	return forged_dies(FORGE_NONCANONICAL_RSP, SIGSEGV, SIGBUS);
}
static int test_forged_kernel_fpstate(void)
{
	return forged_dies(FORGE_KERNEL_FPSTATE, SIGSEGV, 0);
}
static int test_sigreturn_unmapped_frame(void)
{
	return forged_dies(FORGE_UNMAPPED_FRAME, SIGSEGV, 0);
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
 * SYSCALL from 32-bit compatibility mode (CS 0x23) enters the kernel at
 * MSR_CSTAR on AMD CPUs and in QEMU; Intel CPUs raise #UD. Linux runs
 * the 32-bit call or returns -ENOSYS; a kernel that left CSTAR at 0 would
 * execute address 0 in ring 0 on the user's stack. A far jump to the
 * 32-bit code segment (0x23) enters compatibility mode, another to 0x33
 * leaves it; rsp must point below 4 GiB meanwhile.
 */
static volatile unsigned long compat_saved_rsp __attribute__((used));
static char compat_stack[4096] __attribute__((aligned(16), used));
long compat_syscall(long nr);
__asm__(".text\n"
	"compat_syscall:\n"
	"	pushq %rbx; pushq %rbp; pushq %r12; pushq %r13; pushq %r14; pushq %r15\n"
	"	movq %rsp, compat_saved_rsp(%rip)\n"
	"	leaq compat_stack+4096(%rip), %rsp\n"
	"	movl %edi, %eax\n"
	"	ljmpl *compat_far(%rip)\n"	/* not lretq: QEMU 7.2 pops it as ring 0 (SMAP) */
	".code32\n"
	"compat_code:\n"
	"	syscall\n"
	"	ljmp $0x33, $compat_back\n"
	".code64\n"
	"compat_back:\n"
	"	movq compat_saved_rsp(%rip), %rsp\n"
	"	popq %r15; popq %r14; popq %r13; popq %r12; popq %rbp; popq %rbx\n"
	"	movslq %eax, %rax\n"
	"	ret\n"
	".section .rodata\n"
	"compat_far: .long compat_code; .word 0x23\n"	/* a far pointer, m16:32 */
	".text\n");

static int on_ccos(void)
{
	struct utsname u;

	return uname(&u) == 0 && strcmp(u.sysname, "ccos") == 0;
}

/*
 * Linux returns from a 32-bit SYSCALL to the landing pad of its 32-bit
 * vDSO, which a 64-bit process does not have: there the child faults in
 * 32-bit mode, and that is as good as a return. ccos answers -ENOSYS.
 */
static void on_compat_fault(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;

	(void)si;
	ktap_diag("%s at rip %#lx cs %#x trapno %lu err %#lx cr2 %#lx", sig_name(sig),
		  mc->rip, mc->cs, mc->trapno, mc->err, mc->cr2);
	exit_group(!on_ccos() && sig == SIGSEGV && mc->cs == 0x23 ? 0 : sig);
}

static int compat_child(void *unused)
{
	long r;

	(void)unused;
	set_handler(SIGSEGV, on_compat_fault, 0, 0);
	set_handler(SIGBUS, on_compat_fault, 0, 0);
	r = compat_syscall(20);		/* getpid in the i386 table */
	ktap_diag("syscall in 32-bit mode returned %ld", r);
	if (r != -ENOSYS && (on_ccos() || r != getpid()))
		return FAIL("returned %ld, expected -ENOSYS%s", r, on_ccos() ? "" : " or the pid");
	return 0;
}

static int test_compat_syscall(void)
{
	int status = run_in_child(compat_child, NULL);

	/* returned, or #UD on an Intel CPU */
	if (status == 0 || (WIFSIGNALED(status) && WTERMSIG(status) == SIGILL))
		return 1;
	return ktap_fail("wait status %#x", status);
}

/*
 * int $N for every N: only the gates user mode may use (int3, 0xcc for
 * the vsyscall emulation, 0x80 on Linux) do anything; the others raise
 * #GP with the error code of an IDT entry (N << 3 | 2; QEMU 7.2 says
 * N << 4 | 2, the entry's offset in the table), so user mode
 * cannot fake an interrupt or an exception. Each stub is 8 bytes:
 * movl $-1, %eax (an invalid system call number for int $0x80); int $N; ret.
 */
extern const char int_stubs[];
__asm__(".text\n"
	"int_stubs:\n"
	".set n, 0\n"
	".rept 256\n"
	"	movl $-1, %eax\n"
	"	.byte 0xcd, n\n"
	"	ret\n"
	"	.set n, n + 1\n"
	".endr\n");

static int int_sweep_child(void *unused)
{
	int n, bad = 0;

	(void)unused;
	catch_faults(0);
	for (n = 0; n < 256; n++) {
		const char *stub = int_stubs + 8 * n;

		seen.count = 0;
		resume_at = (unsigned long)stub + 7;
		((void (*)(void))stub)();
		if (n == 3) {
			if (seen.count != 1 || seen.signo != SIGTRAP)
				bad = FAIL("int $3: %d signals, signal %d, expected SIGTRAP",
					   seen.count, seen.signo);
		} else if (n == 0x80 && seen.count == 0) {
			continue;	/* Linux's 32-bit system calls */
		} else if (seen.count != 1 || seen.signo != SIGSEGV) {
			bad = FAIL("int $%#x: %d signals, signal %d, expected SIGSEGV", n,
				   seen.count, seen.signo);
		} else if (n != 4 && n != 0xcc && n != 0x80 &&
			   (seen.trapno != 13 || (seen.err != (unsigned long)(n << 3 | 2) &&
						  seen.err != (unsigned long)(n << 4 | 2)))) {
			bad = FAIL("int $%#x: trapno %lu err %#lx, expected #GP (13) with "
				   "error code %#x", n, seen.trapno, seen.err, n << 3 | 2);
		}
	}
	return bad;
}

static int test_int_sweep(void)
{
	return child_passes(int_sweep_child, NULL);
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

/* ---- seccomp strict mode ---- */

static long strict(void)
{
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
}

static void raw_exit(int code) __attribute__((noreturn));
static void raw_exit(int code)
{
	syscall1(__NR_exit, code);
	__builtin_unreachable();
}

/* A handler that makes no system call (record asks for the mask). */
static volatile int segv_count;

static void on_segv_skip(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si;
	segv_count++;
	((ucontext_t *)ctx)->uc_mcontext.rip = (unsigned long)load_byte_resume;
}

/* read, write, exit and rt_sigreturn (after a handler) are allowed. */
static int seccomp_allowed_child(void *unused)
{
	static const char msg[] = "# seccomp strict: write allowed\n";
	unsigned long page = unmapped_page();
	char buf[16];
	long fd = open("/proc/self/maps", O_RDONLY, 0);

	(void)unused;
	if (fd < 0)
		return FAIL("open /proc/self/maps: error %ld", -fd);
	set_handler(SIGSEGV, on_segv_skip, 0, 0);
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0)
		return FAIL("PR_GET_SECCOMP before: not 0");
	if (strict())
		return FAIL("PR_SET_SECCOMP(SECCOMP_MODE_STRICT) failed");
	if (read(fd, buf, sizeof(buf)) != sizeof(buf))
		raw_exit(2);
	if (write(1, msg, sizeof(msg) - 1) != sizeof(msg) - 1)
		raw_exit(3);
	load_byte(page);	/* the handler returns through rt_sigreturn */
	raw_exit(segv_count == 1 ? 42 : 4);
}

static int test_seccomp_allows(void)
{
	int status = run_in_child(seccomp_allowed_child, NULL);

	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 42)
		return 1;
	if (status >= 0 && WIFSIGNALED(status))
		return ktap_fail("killed by %s (%d)", sig_name(WTERMSIG(status)),
				 WTERMSIG(status));
	return ktap_fail("exit status %d: 2 read, 3 write, 4 the handler failed",
			 WEXITSTATUS(status));
}

enum forbidden { CALL_GETPID, CALL_EXIT_GROUP, CALL_GET_SECCOMP, CALL_MMAP };

static int seccomp_forbidden_child(void *arg)
{
	if (strict())
		return FAIL("PR_SET_SECCOMP(SECCOMP_MODE_STRICT) failed");
	switch ((enum forbidden)(long)arg) {
	case CALL_GETPID:
		getpid();
		break;
	case CALL_EXIT_GROUP:
		exit_group(0);
	case CALL_GET_SECCOMP:
		prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
		break;
	case CALL_MMAP:
		map(PROT_READ);
		break;
	}
	raw_exit(3);
}

static int test_seccomp_kills(void)
{
	static const char *const what[] = { "getpid", "exit_group", "prctl(PR_GET_SECCOMP)",
					     "mmap" };
	long i;

	for (i = 0; i < (long)ARRAY_SIZE(what); i++)
		if (!child_killed_by(seccomp_forbidden_child, (void *)i, SIGKILL))
			return ktap_fail("%s in strict mode: not killed by SIGKILL", what[i]);
	return 1;
}

static int seccomp_bad_mode_child(void *unused)
{
	long r;

	(void)unused;
	r = prctl(PR_SET_SECCOMP, 3, 0, 0, 0);
	if (r != -EINVAL)
		return FAIL("PR_SET_SECCOMP(3) returned %ld, expected -EINVAL", r);
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0 || getpid() <= 0)
		return FAIL("not in mode 0 after a refused PR_SET_SECCOMP");
	return 0;
}

static int test_seccomp_bad_mode(void)
{
	return child_passes(seccomp_bad_mode_child, NULL);
}

/* ---- the table ---- */

static const struct sigtest {
	const char *name;
	int (*run)(void);
} tests[] = {
	{ "single_step_sigtrap_trap_trace", test_single_step },
	{ "handler_edits_rip_and_registers", test_rip_edit },
	{ "async_signal_keeps_all_registers", test_async_registers },
	{ "altstack_when_stack_unusable", test_altstack_bad_stack },
	{ "altstack_nested_goes_below", test_altstack_nested },
	{ "unwritable_frame_kills_sigsegv", test_unwritable_frame },
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
	{ "bad_handler_address_sigsegv", test_bad_handler_address },
	{ "fpu_sse_across_handler", test_fpu_across_handler },
	{ "fpu_sse_across_context_switch", test_fpu_context_switch },
	{ "forged_frame_ring0_cs_ss", test_forged_ring0 },
	{ "forged_frame_iopl_vm", test_forged_iopl },
	{ "forged_frame_iopl_sysret_path", test_forged_iopl_sysret },
	{ "forged_frame_mxcsr_reserved_bits", test_forged_mxcsr },
	{ "forged_frame_kernel_rip", test_forged_kernel_rip },
	{ "forged_frame_noncanonical_rip", test_forged_noncanonical_rip },
	{ "forged_frame_noncanonical_rsp", test_forged_noncanonical_rsp },
	{ "forged_frame_kernel_fpstate", test_forged_kernel_fpstate },
	{ "sigreturn_unmapped_frame", test_sigreturn_unmapped_frame },
	{ "nt_flag_then_syscall", test_nt_flag_syscall },
	{ "syscall_from_32bit_mode", test_compat_syscall },
	{ "int_n_every_vector", test_int_sweep },
	{ "syscall_at_end_of_user_space", test_last_page_syscall },
	{ "seccomp_strict_allows_four", test_seccomp_allows },
	{ "seccomp_strict_kills_others", test_seccomp_kills },
	{ "seccomp_bad_mode_einval", test_seccomp_bad_mode },
};

int main(int argc, char **argv, char **envp)
{
	unsigned long i;

	(void)argc, (void)argv, (void)envp;
	ktap_plan(ARRAY_SIZE(fault_cases) + ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(fault_cases); i++) {
		int ok;

		fault_skipped = 0;
		ok = run_fault_case(&fault_cases[i]);
		if (fault_skipped)
			ktap_skip(fault_cases[i].may_not_fault, fault_cases[i].name);
		else
			ktap_ok(ok, "%s", fault_cases[i].name);
	}
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		ktap_ok(tests[i].run(), "%s", tests[i].name);
	return ktap_done();
}
