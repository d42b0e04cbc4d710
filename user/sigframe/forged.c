/* sigframe: forged frames passed to rt_sigreturn, and what comes of each. */
#include "sigframe.h"

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

/*
 * A case whose return faults on purpose: the one signal its handler must
 * see first, and the rax it lands with. trapno ANY_TRAPNO: a bad frame,
 * no trap, where Linux leaves the thread's last trap number.
 */
#define ANY_TRAPNO	(~0ul)

static struct {
	int signo, code;
	unsigned long rip, rsp, addr, trapno, rax;
} want;

void forged_landed(void)
{
	int bad = 0;

	if (want.signo && (seen.count != 1 || seen.signo != want.signo || seen.code != want.code ||
			   seen.rip != want.rip || seen.rsp != want.rsp || seen.addr != want.addr ||
			   (seen.trapno != want.trapno && want.trapno != ANY_TRAPNO)))
		bad = FAIL("caught %d signals, the last %s code %#x at rip %#lx rsp %#lx addr %#lx "
			   "trap %lu; expected %s code %#x at rip %#lx rsp %#lx addr %#lx trap %lu",
			   seen.count, sig_name(seen.signo), seen.code, seen.rip, seen.rsp,
			   seen.addr, seen.trapno, sig_name(want.signo), want.code, want.rip,
			   want.rsp, want.addr, want.trapno);

	if (landed_rax != want.rax)
		bad = FAIL("rax %#lx, expected %#lx", landed_rax, want.rax);
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
	FORGE_KERNEL_FPSTATE, FORGE_UNMAPPED_FRAME, FORGE_UNMAPPED_FRAME_SIGSEGV_BLOCKED,
	FORGE_NONCANONICAL_RIP_CAUGHT, FORGE_NONCANONICAL_RSP_CAUGHT,
	FORGE_UNMAPPED_FRAME_CAUGHT, FORGE_KERNEL_FPSTATE_CAUGHT,
};

/*
 * A non-canonical rip or rsp is the program's own mistake, as on Linux:
 * rt_sigreturn takes it, and the return faults in user mode, a signal
 * the program may catch. The rip's return is the #GP that iretq would
 * raise in ring 0 (SIGSEGV, SI_KERNEL, no address, the bad rip in the
 * frame); the rsp's lands at an int3, which needs no stack, and whose
 * SIGTRAP comes on the alternate stack with the bad rsp in the frame.
 * The handler (record) sends the program to forged_landing on a stack
 * that works.
 */
extern const char forged_int3[], forged_int3_after[];
__asm__(".text\n"
	"forged_int3:\n"
	"	int3\n"
	"forged_int3_after:\n"
	"	ud2\n");

/*
 * rt_sigreturn with rsp at a frame that cannot be read (rdi): as on
 * Linux, a SIGSEGV at the instruction after the syscall, with that rsp,
 * which only a handler on the alternate stack can take; rax 0.
 */
void sigreturn_at(unsigned long rsp) __attribute__((noreturn));
extern const char sigreturn_at_after[];
__asm__(".text\n"
	"sigreturn_at:\n"
	"	movq %rdi, %rsp\n"
	"	movl $15, %eax\n"
	"	syscall\n"
	"sigreturn_at_after:\n"
	"	ud2\n");

static char alt_stack[16384] __attribute__((aligned(16)));

static void on_fault_land(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;

	record(sig, si, ctx);
	mc->rip = (unsigned long)forged_landing;
	mc->rsp = (unsigned long)landing_stack + sizeof(landing_stack) - 8;
}

static void catch_on_alt_stack(int sig)
{
	stack_t ss = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) };

	sigaltstack(&ss, NULL);
	set_handler(sig, on_fault_land, SA_ONSTACK, 0);
}

static int forged_child(void *arg)
{
	struct sigcontext *sc = &fake.uc.uc_mcontext;

	fake_init();
	want.rax = LANDED_RAX;
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
	case FORGE_NONCANONICAL_RIP_CAUGHT:
		catch_on_alt_stack(SIGSEGV);
		sc->rip = sc->rcx = want.rip = NONCANONICAL;
		sc->r11 = sc->eflags;		/* as a plain system call's: a SYSRET candidate */
		want.signo = SIGSEGV;
		want.code = SI_KERNEL;
		want.rsp = sc->rsp;
		want.trapno = 13;		/* #GP */
		break;
	case FORGE_NONCANONICAL_RSP_CAUGHT:
		catch_on_alt_stack(SIGTRAP);
		sc->rip = (unsigned long)forged_int3;
		sc->rsp = want.rsp = NONCANONICAL;
		want.signo = SIGTRAP;
		want.code = SI_KERNEL;
		want.rip = (unsigned long)forged_int3_after;
		want.trapno = 3;		/* #BP */
		break;
	case FORGE_MXCSR:
		asm volatile("fxsave64 %0" : "=m"(fake_fp));
		fake_fp.mxcsr = 0xffffffff;
		sc->fpstate = &fake_fp;
		break;
	case FORGE_KERNEL_FPSTATE:
		sc->fpstate = (struct fpstate *)KERNEL_ADDR;
		break;
	case FORGE_KERNEL_FPSTATE_CAUGHT:
		/* the registers come back first, then the FPU state faults */
		catch_on_alt_stack(SIGSEGV);
		sc->fpstate = (struct fpstate *)KERNEL_ADDR;
		want.signo = SIGSEGV;
		want.code = SI_KERNEL;
		want.rip = sc->rip;
		want.rsp = sc->rsp;
		want.trapno = ANY_TRAPNO;
		want.rax = 0;
		break;
	case FORGE_UNMAPPED_FRAME:
		sigreturn_at(unmapped_page() + 64);
	case FORGE_UNMAPPED_FRAME_SIGSEGV_BLOCKED: {
		/* force_sig's rule: a blocked SIGSEGV is unblocked and made fatal */
		sigset_t segv = { SIGBIT(SIGSEGV) };

		catch_on_alt_stack(SIGSEGV);
		rt_sigprocmask(SIG_BLOCK, &segv, NULL, sizeof(segv));
		sigreturn_at(unmapped_page() + 64);
	}
	case FORGE_UNMAPPED_FRAME_CAUGHT:
		catch_on_alt_stack(SIGSEGV);
		want.signo = SIGSEGV;
		want.code = SI_KERNEL;
		want.rip = (unsigned long)sigreturn_at_after;
		want.rsp = unmapped_page() + 64;
		want.trapno = ANY_TRAPNO;
		want.rax = 0;
		sigreturn_at(want.rsp);
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

int test_forged_ring0(void) { return forged(FORGE_RING0_CS_SS, SIGSEGV, 0); }
int test_forged_iopl(void) { return forged(FORGE_IOPL, SIGSEGV, 0); }
int test_forged_iopl_sysret(void) { return forged(FORGE_IOPL_SYSRET, SIGSEGV, 0); }
int test_forged_mxcsr(void) { return forged(FORGE_MXCSR, SIGSEGV, 0); }

/* These return to a fault; with no handler for it the process dies (and the kernel lives). */
static int forged_dies(enum forgery f, int sig1, int sig2)
{
	int status = run_in_child(forged_child, (void *)(long)f);

	if (status >= 0 && WIFSIGNALED(status) &&
	    (WTERMSIG(status) == sig1 || WTERMSIG(status) == sig2))
		return 1;
	return ktap_fail("wait status %#x, expected killed by %s", status, sig_name(sig1));
}

int test_forged_kernel_rip(void) { return forged_dies(FORGE_KERNEL_RIP, SIGSEGV, 0); }
int test_forged_noncanonical_rip(void)
{
	return forged_dies(FORGE_NONCANONICAL_RIP, SIGSEGV, 0);
}
/* The first push faults: #SS (SIGBUS) on hardware, #GP (SIGSEGV) in QEMU. */
int test_forged_noncanonical_rsp(void)
{
	return forged_dies(FORGE_NONCANONICAL_RSP, SIGSEGV, SIGBUS);
}
int test_forged_kernel_fpstate(void)
{
	return forged_dies(FORGE_KERNEL_FPSTATE, SIGSEGV, 0);
}
int test_sigreturn_unmapped_frame(void)
{
	return forged_dies(FORGE_UNMAPPED_FRAME, SIGSEGV, 0);
}
int test_sigreturn_unmapped_frame_blocked(void)
{
	return forged_dies(FORGE_UNMAPPED_FRAME_SIGSEGV_BLOCKED, SIGSEGV, 0);
}

/* The same two with a handler: it runs, and the program goes on (issue 27: they used to kill). */
static int forged_lands(enum forgery f)
{
	int status = run_in_child(forged_child, (void *)(long)f);

	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 42)
		return 1;
	if (status >= 0 && WIFSIGNALED(status))
		return ktap_fail("killed by %s (%d): the handler did not run",
				 sig_name(WTERMSIG(status)), WTERMSIG(status));
	return ktap_fail("wait status %#x: the handler saw something else (the # lines above)",
			 status);
}

int test_forged_noncanonical_rip_caught(void)
{
	return forged_lands(FORGE_NONCANONICAL_RIP_CAUGHT);
}

int test_forged_noncanonical_rsp_caught(void)
{
	return forged_lands(FORGE_NONCANONICAL_RSP_CAUGHT);
}

/* A frame rt_sigreturn cannot read, and one whose FPU state it cannot: SIGSEGV, caught. */
int test_sigreturn_unmapped_frame_caught(void)
{
	return forged_lands(FORGE_UNMAPPED_FRAME_CAUGHT);
}

int test_forged_kernel_fpstate_caught(void)
{
	return forged_lands(FORGE_KERNEL_FPSTATE_CAUGHT);
}
