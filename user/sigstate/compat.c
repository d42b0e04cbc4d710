/* sigstate: 32-bit compatibility mode: SYSCALL there, its stack segment, and the far return into it. */
#include "sigstate.h"

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

/*
 * Linux returns from a 32-bit SYSCALL to the landing pad of its 32-bit
 * vDSO, which a 64-bit process does not have: there the child faults in
 * 32-bit mode, and that is as good as a return. ccos answers -ENOSYS.
 * A Linux host whose kernel offers no 32-bit code segment (ia32
 * emulation off, or a GDT of another layout) faults at the far jump
 * itself, still in 64-bit mode: NO_COMPAT, a skip there.
 */
#define NO_COMPAT	78
#define NO_COMPAT_WHY	"this host has no 32-bit code segment at 0x23: " \
			"the far jump faulted (#GP or #NP with its selector)"

static int no_compat(int status)
{
	return status > 0 && WIFEXITED(status) && WEXITSTATUS(status) == NO_COMPAT;
}

static void on_compat_fault(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;

	(void)si;
	ktap_diag("%s at rip %#lx cs %#x trapno %lu err %#lx cr2 %#lx", sig_name(sig),
		  mc->rip, mc->cs, mc->trapno, mc->err, mc->cr2);
	if (!on_ccos() && sig == SIGSEGV && mc->cs == USER_CS && mc->err == (0x23 & ~3))
		exit_group(NO_COMPAT);
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

int test_compat_syscall(void)
{
	int status = run_in_child(compat_child, NULL);

	/* returned, or #UD on an Intel CPU */
	if (status == 0 || (WIFSIGNALED(status) && WTERMSIG(status) == SIGILL))
		return 1;
	if (no_compat(status))
		return skip(NO_COMPAT_WHY);
	return ktap_fail("wait status %#x", status);
}

/*
 * 32-bit code's stack: in compatibility mode SS is no longer ignored, and
 * the user data segment (0x2b, which SYSRET and the kernel give SS) must
 * be flat with its B flag set, as Linux's __USER_DS, so that a push uses
 * ESP and its whole 4 GiB. With B clear a push writes at SP (the low 16
 * bits of ESP, a page far below the stack) and faults.
 */
long compat_push_pop(long value);
__asm__(".text\n"
	"compat_push_pop:\n"
	"	pushq %rbx; pushq %rbp; pushq %r12; pushq %r13; pushq %r14; pushq %r15\n"
	"	movq %rsp, compat_saved_rsp(%rip)\n"
	"	leaq compat_stack+4096(%rip), %rsp\n"
	"	ljmpl *compat_push_far(%rip)\n"
	".code32\n"
	"compat_push:\n"
	"	pushl %edi\n"
	"	pushl $0\n"
	"	popl %eax\n"
	"	popl %eax\n"
	"	ljmp $0x33, $compat_push_back\n"
	".code64\n"
	"compat_push_back:\n"
	"	movq compat_saved_rsp(%rip), %rsp\n"
	"	popq %r15; popq %r14; popq %r13; popq %r12; popq %rbp; popq %rbx\n"
	"	movl %eax, %eax\n"
	"	ret\n"
	".section .rodata\n"
	"compat_push_far: .long compat_push; .word 0x23\n"
	".text\n");

/* Any fault is a failure, but the far jump's on a host without 0x23. */
static void on_compat_stack_fault(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;

	(void)si;
	ktap_diag("%s at rip %#lx cs %#x trapno %lu err %#lx cr2 %#lx", sig_name(sig),
		  mc->rip, mc->cs, mc->trapno, mc->err, mc->cr2);
	if (!on_ccos() && sig == SIGSEGV && mc->cs == USER_CS && mc->err == (0x23 & ~3))
		exit_group(NO_COMPAT);
	exit_group(sig);
}

static int compat_stack_child(void *unused)
{
	long r;

	(void)unused;
	set_handler(SIGSEGV, on_compat_stack_fault, 0, 0);
	set_handler(SIGBUS, on_compat_stack_fault, 0, 0);
	r = compat_push_pop(0x5aadc0de);
	return r == 0x5aadc0de ? 0 : FAIL("popped %#lx, pushed 0x5aadc0de", r);
}

int test_compat_stack(void)
{
	int status = run_in_child(compat_stack_child, NULL);

	if (status == 0)
		return 1;
	if (no_compat(status))
		return skip(NO_COMPAT_WHY);
	return ktap_fail("wait status %#x: a push in 32-bit mode faulted (the # line above)", status);
}

/*
 * The same by a far return (lretq), as Linux's selftests enter 32-bit
 * code. QEMU 7.2's TCG pops it with a supervisor access, which SMAP
 * refuses on a user page: a page fault from ring 3 without PF_USER, that
 * no mapping can answer, so the kernel must make it a SIGSEGV rather
 * than retry it for ever. Elsewhere the return works.
 */
long compat_lret(long value);
__asm__(".text\n"
	"compat_lret:\n"
	"	pushq %rbx; pushq %rbp; pushq %r12; pushq %r13; pushq %r14; pushq %r15\n"
	"	movq %rsp, compat_saved_rsp(%rip)\n"
	"	leaq compat_stack+4096(%rip), %rsp\n"
	"	pushq $0x23\n"
	"	leaq compat_push(%rip), %rax\n"
	"	pushq %rax\n"
	"	lretq\n");

static int compat_lret_child(void *unused)
{
	(void)unused;
	set_handler(SIGSEGV, on_compat_stack_fault, 0, 0);
	return compat_lret(1) == 1 ? 0 : FAIL("the 32-bit code did not run");
}

int test_compat_lret(void)
{
	int status = run_in_child(compat_lret_child, NULL);

	if (status == 0 || (on_ccos() && status > 0 && WIFEXITED(status) &&
			    WEXITSTATUS(status) == SIGSEGV))
		return 1;
	if (no_compat(status))
		return skip(NO_COMPAT_WHY);
	return ktap_fail("wait status %#x, expected a return or (QEMU 7.2) SIGSEGV", status);
}
