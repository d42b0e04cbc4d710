/* sigfault: each fault kind's signal, si_code, si_addr and frame registers; single-stepping; int $N. */
#include "sigutil.h"

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

/* ---- faulting instructions (FAULT_FN: sigutil.h) ---- */

FAULT_FN(store_byte, "", "movb $1, (%rdi)", "");
FAULT_FN(call_addr, "", "call *%rdi", "");
FAULT_FN(do_hlt, "", "hlt", "");
FAULT_FN(do_cli, "", "cli", "");
FAULT_FN(do_out, "movw $0x80, %dx", "outb %al, %dx", "");
FAULT_FN(do_ud2, "", "ud2", "");
/* an LDT selector (index 8) into GS, with no LDT: #GP(0x44), never a read of the table */
FAULT_FN(load_ldt_gs, "movl $0x47, %eax", "movl %eax, %gs", "");
/* into: invalid in 64-bit mode (SDM Vol. 2A INTO: #UD in 64-bit mode,
 * whatever OF is). xor clears OF, so an emulator that executes it
 * anyway (QEMU 10's TCG) runs it as a no-op instead of raising #OF. */
FAULT_FN(do_into, "xorl %eax, %eax", ".byte 0xce", "");
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
	{ "ldt_selector_gp_si_kernel", load_ldt_gs, load_ldt_gs_insn, load_ldt_gs_resume,
	  NULL, SIGSEGV, SI_KERNEL, AT_ZERO, AT_INSN, 13, 0x44 },
	{ "ud2_sigill_illopn", do_ud2, do_ud2_insn, do_ud2_resume,
	  NULL, SIGILL, ILL_ILLOPN, AT_INSN, AT_INSN, 6, 0 },
	{ "into_sigill_illopn", do_into, do_into_insn, do_into_resume,
	  NULL, SIGILL, ILL_ILLOPN, AT_INSN, AT_INSN, 6, 0, 0,
	  "into ran without #UD: an emulator bug (QEMU 10's TCG executes it in 64-bit mode)" },
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

static unsigned long read_eflags(void)
{
	unsigned long f;

	asm volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

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

/* ---- int $N for every N ---- */

/*
 * int $N for every N: only the gates user mode may use (DPL 3, as
 * Linux's idt.c has them: 3, int3's #BP, SIGTRAP; 4, #OF, SIGSEGV; 0xcc
 * for the vsyscall emulation; 0x80 on Linux with IA32 emulation) do
 * anything, a trap whose rip is after the int; the others raise #GP
 * with the error code of an IDT entry (N << 3 | 2; QEMU 7.2 says N << 4
 * | 2, the entry's offset in the table), a fault at the int, so user
 * mode cannot fake an interrupt or an exception. Each stub is 8 bytes:
 * movl $-1, %eax (an invalid system call number for int $0x80); int $N; ret.
 *
 * Each vector runs in a child of its own under a short watchdog. The
 * answer is the IDT's on ccos, checked exactly. A Linux host may answer
 * otherwise and still be right: with FRED event delivery (or a hypervisor
 * that emulates it) there is no IDT to name, int $N is #GP(0), and
 * `int $3` (cd 03, not the one-byte int3) and `int $1` are software
 * interrupts like the others. There the differences are listed and the
 * case is skipped: they describe the host, not the expectations.
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

#define INT_TIMEOUT	2	/* seconds for one vector */
#define INT_SHOWN	4	/* differences printed as # lines */

static int int_shown;

/* In a child: int $n, and 0 if the answer is the IDT's, else 1 (and why). */
static int int_child(void *arg)
{
	int n = (int)(long)arg;
	const char *stub = int_stubs + 8 * n;
	unsigned long gp = n << 3 | 2, gp_qemu = n << 4 | 2;

	catch_faults(0);
	seen.count = 0;
	resume_at = (unsigned long)stub + 7;
	((void (*)(void))stub)();
	if (n == 0x80 && seen.count == 0)
		return 0;		/* Linux's 32-bit system calls */
	if (seen.count != 1)
		goto differs;
	if (n == 3 || n == 4)		/* a trap: rip after the int */
		return !(seen.signo == (n == 3 ? SIGTRAP : SIGSEGV) && seen.code == SI_KERNEL &&
			 seen.trapno == (unsigned long)n && seen.err == 0 &&
			 seen.rip == (unsigned long)stub + 7);
	if (seen.signo == SIGSEGV && (n == 0xcc || n == 0x80))
		return 0;		/* the vsyscall emulation's SIGSEGV; Linux's 0x80 without IA32 */
	if (seen.signo == SIGSEGV && seen.trapno == 13 && (seen.err == gp || seen.err == gp_qemu) &&
	    seen.rip == (unsigned long)stub + 5)
		return 0;		/* #GP, a fault: rip at the int */
differs:
	if (int_shown < INT_SHOWN)
		ktap_diag("int $%#x: %d signals, %s code %#x, trapno %lu err %#lx at stub+%ld; "
			  "expected %s", n, seen.count, sig_name(seen.signo), seen.code,
			  seen.trapno, seen.err, (long)(seen.rip - (unsigned long)stub),
			  n == 3 ? "SIGTRAP (#BP, 3) at stub+7" :
			  n == 4 ? "SIGSEGV (#OF, 4) at stub+7" :
			  "SIGSEGV, #GP (13) with the gate's error code at stub+5");
	return 1;
}

static int test_int_sweep(void)
{
	int n, differ = 0, hung = 0, status;

	for (n = 0; n < 256 && hung < 3; n++) {
		int_shown = differ;
		status = run_watched(int_child, (void *)(long)n, INT_TIMEOUT);
		if (status == 0)
			continue;
		differ++;
		if (status == CASE_TIMED_OUT) {
			hung++;
			ktap_diag("int $%#x: no answer in %d s", n, INT_TIMEOUT);
		} else if (!WIFEXITED(status)) {
			ktap_diag("int $%#x: wait status %#x", n, status);
		}
	}
	if (!differ)
		return 1;
	if (!on_ccos())
		return skip("this host answers int $N otherwise (FRED-style delivery?): "
			    "see the # lines");
	return ktap_fail("%d vectors answered otherwise (the # lines above)", differ);
}

/* ---- the table ---- */

/* A fault case, in the child that run_case made for it. */
static const struct fault_case *current_case;

static int run_current_fault_case(void)
{
	const struct fault_case *c = current_case;
	int bad = fault_child((void *)c);

	if (bad == 77)
		return skip(c->may_not_fault);
	return bad ? ktap_fail("see the # lines above") : 1;
}

static const struct test tests[] = {
	{ "single_step_sigtrap_trap_trace", test_single_step },
	{ "int_n_every_vector", test_int_sweep, 0, 256 * INT_TIMEOUT },
};

int main(int argc, char **argv, char **envp)
{
	unsigned long i;

	(void)argc, (void)argv, (void)envp;
	ktap_plan(ARRAY_SIZE(fault_cases) + ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(fault_cases); i++) {
		current_case = &fault_cases[i];
		run_case(fault_cases[i].name, run_current_fault_case, 0);
	}
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		run_case(tests[i].name, tests[i].run, tests[i].seconds);
	return ktap_done();
}
