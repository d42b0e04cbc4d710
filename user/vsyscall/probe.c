/* vsyscalltest's probe: call or touch an address, and record the signal if it faults. */
#include "vsyscalltest.h"

/*
 * Calls that are expected to fault go through probe(): a little assembly
 * trampoline calls the target, and the signal handler, running on an
 * alternate stack, records what the kernel reported (signal, si_code,
 * si_addr, rip, trapno, err, cr2) and resumes the trampoline at its
 * landing label with the stack pointer it saved: a siglongjmp without libc.
 */

static struct probe last;
static int probe_armed;
unsigned long probe_rsp;	/* saved by probe_call; the handler lands there */

/* Single-stepping (test_single_step): the handler counts instead of landing. */
int stepping;
int steps_total, steps_in_page;
unsigned long page_steps[MAX_PAGE_STEPS];

/*
 * probe_call(target, a1, a2, a3): target(a1, a2, a3) with the callee-saved
 * registers kept on the stack, so that landing after a signal restores
 * them. probe_jump_with_stack jumps to target with rsp set to a value of
 * our choosing (no return address: the kernel must notice). step_call
 * makes one call with the trap flag set (SDM Vol. 3 §17.3.1.4: a #DB
 * after each instruction while RFLAGS.TF is 1).
 */
__asm__(
	"	.text\n"
	"	.globl probe_call, probe_jump_with_stack, probe_landing\n"
	"probe_call:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	sub $8, %rsp\n"			/* rsp % 16 == 0 at the call */
	"	mov %rsp, probe_rsp(%rip)\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	mov %rdx, %rsi\n"
	"	mov %rcx, %rdx\n"
	"	call *%rax\n"
	"probe_landing:\n"
	"	add $8, %rsp\n"
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
	"	ret\n"
	"probe_jump_with_stack:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	sub $8, %rsp\n"
	"	mov %rsp, probe_rsp(%rip)\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rsp\n"
	"	mov %rdx, %rdi\n"
	"	mov %rcx, %rsi\n"
	"	jmp *%rax\n"
	"	.globl step_call\n"
	"step_call:\n"
	"	sub $8, %rsp\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	mov %rdx, %rsi\n"
	"	xor %edx, %edx\n"
	"	pushfq; orq $0x100, (%rsp); popfq\n"
	"	call *%rax\n"
	"	pushfq; andq $~0x100, (%rsp); popfq\n"
	"	add $8, %rsp\n"
	"	ret\n"
	"	.globl probe_load, probe_store, own_int_0xcc\n"
	"probe_load:\n"				/* rax = *(long *)rdi */
	"	mov (%rdi), %rax\n"
	"	ret\n"
	"probe_store:\n"			/* *(long *)rdi = rsi */
	"	mov %rsi, (%rdi)\n"
	"	ret\n"
	"own_int_0xcc:\n"			/* not in the vsyscall page */
	"	int $0xcc\n"
	"	ret\n");

static void handler(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *sc = &((ucontext_t *)ctx)->uc_mcontext;

	if (stepping && sig == SIGTRAP && si->si_code == TRAP_TRACE) {
		steps_total++;
		if (sc->rip - VSYSCALL_ADDR < PAGE_SIZE) {
			if (steps_in_page < MAX_PAGE_STEPS)
				page_steps[steps_in_page] = sc->rip;
			steps_in_page++;
		}
		return;
	}
	if (!probe_armed) {
		printf("# unexpected signal %d (si_code %d, si_addr %p) at rip %lx\n",
		       sig, si->si_code, si->si_addr, sc->rip);
		exit_group(2);
	}
	last.sig = sig;
	last.code = si->si_code;
	last.addr = (unsigned long)si->si_addr;
	last.rip = sc->rip;
	last.trapno = sc->trapno;
	last.err = sc->err;
	last.cr2 = sc->cr2;
	sc->rip = (unsigned long)probe_landing;
	sc->rsp = probe_rsp;
	sc->eflags &= ~RFLAGS_TF;
}

static char altstack[16384] __attribute__((aligned(16)));

void install_handlers(void)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };

	sigaltstack(&ss, NULL);
	sigaction(SIGSEGV, handler, SA_ONSTACK);
	sigaction(SIGTRAP, handler, SA_ONSTACK);
	sigaction(SIGBUS, handler, SA_ONSTACK);
	sigaction(SIGILL, handler, SA_ONSTACK);
}

struct probe probe(unsigned long target, long a1, long a2, long a3)
{
	memset(&last, 0, sizeof(last));
	probe_armed = 1;
	last.ret = probe_call(target, a1, a2, a3);
	probe_armed = 0;
	return last;
}

struct probe probe_bad_stack(unsigned long target, unsigned long rsp, long a1, long a2)
{
	memset(&last, 0, sizeof(last));
	probe_armed = 1;
	last.ret = probe_jump_with_stack(target, rsp, a1, a2);
	probe_armed = 0;
	return last;
}

const char *signame(int sig)
{
	switch (sig) {
	case 0: return "no signal";
	case SIGSEGV: return "SIGSEGV";
	case SIGTRAP: return "SIGTRAP";
	case SIGKILL: return "SIGKILL";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	}
	return "another signal";
}

/* What a probe saw, for failure messages. */
int probe_fail(const struct probe *p, const char *what, const char *expected)
{
	return ktap_fail("%s: %s (si_code %d, si_addr %lx, rip %lx, trapno %lu, err %lx), expected %s",
			 what, signame(p->sig), p->code, p->addr, p->rip, p->trapno, p->err, expected);
}

/* A SIGSEGV with si_addr = addr (a page fault at addr). */
int expect_segv_at(const struct probe *p, unsigned long addr, const char *what)
{
	if (p->sig == SIGSEGV && p->addr == addr)
		return 1;
	return probe_fail(p, what, "SIGSEGV at that address");
}
