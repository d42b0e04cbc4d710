/* sigframe: the cs and ss that rt_sigreturn takes from a frame: 32-bit code, and the #GP of a selector that names no ring-3 segment. */
#include "sigframe.h"

/*
 * A SIGUSR1 handler edits its frame's cs and ss (and, for 32-bit code,
 * rip and rsp) and returns; rt_sigreturn takes them as Linux does (RPL
 * 3 forced), and the return either runs there or faults as iretq would,
 * in user mode: SIGSEGV, si_code SI_KERNEL, trapno 13 and the selector
 * in err, the frame's values in the handler's frame. The handler of
 * what follows (after_return, on the alternate stack) records what it
 * saw and resumes the program after its kill, from the registers the
 * SIGUSR1 frame had. A host whose kernel has no 32-bit code segment at
 * 0x23 (IA32 emulation off) faults at the return to it: NO_COMPAT, a skip.
 */
#define USER32_CS		0x23
#define UC_SIGCONTEXT_SS	0x2
#define UC_STRICT_RESTORE_SS	0x4
#define NO_COMPAT		78

/* What one case asks the SIGUSR1 handler for. */
static struct request {
	unsigned short cs, ss;
	int code32;		/* rip and rsp into code32, a stack below 4 GiB */
	int nonstrict;		/* clear UC_STRICT_RESTORE_SS */
	int sysret;		/* rcx = rip, r11 = rflags: as after a plain system call */
} req;

static volatile struct {
	int signo, code;
	unsigned long uc_flags, trapno, err, rip, rax, rcx;
	unsigned short cs, ss;
} after;

static struct sigcontext before;	/* the SIGUSR1 frame's registers, to resume from */
static char seg_alt_stack[16384] __attribute__((aligned(16)));
static char stack32[4096] __attribute__((aligned(16)));

/* 32-bit code: a push and a pop through SS, SS into ecx, then a trap. */
extern const char code32[], code32_trap[];
__asm__(".text\n"
	".code32\n"
	"code32:\n"
	"	pushl $0x5aadc0de\n"
	"	popl %eax\n"
	"	movl %ss, %ecx\n"
	"	int3\n"
	"code32_trap:\n"
	"	ud2\n"
	".code64\n");

static void on_usr1_edit(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	struct sigcontext *mc = &uc->uc_mcontext;

	(void)sig, (void)si;
	before = *mc;
	mc->cs = req.cs;
	mc->ss = req.ss;
	if (req.code32) {
		mc->rip = (unsigned long)code32;
		mc->rsp = (unsigned long)stack32 + sizeof(stack32);
	}
	if (req.nonstrict)
		uc->uc_flags &= ~UC_STRICT_RESTORE_SS;
	mc->rcx = req.sysret ? mc->rip : 0;
	if (req.sysret)
		mc->r11 = mc->eflags;
}

static void after_return(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	struct sigcontext *mc = &uc->uc_mcontext;

	after.signo = sig;
	after.code = si->si_code;
	after.uc_flags = uc->uc_flags;
	after.trapno = mc->trapno;
	after.err = mc->err;
	after.rip = mc->rip;
	after.rax = mc->rax;
	after.rcx = mc->rcx;
	after.cs = mc->cs;
	after.ss = mc->ss;
	/* back to 64-bit code after the kill: every register but fpstate */
	memcpy(mc, &before, __builtin_offsetof(struct sigcontext, err));
	uc->uc_flags |= UC_STRICT_RESTORE_SS;
}

/* Ask for req, send SIGUSR1, and come back with `after` filled in (signo 0: nothing followed). */
static unsigned short run_request(void)
{
	stack_t ss = { .ss_sp = seg_alt_stack, .ss_size = sizeof(seg_alt_stack) };
	unsigned short ss_now;
	int sigs[] = { SIGSEGV, SIGBUS, SIGTRAP, SIGILL };
	unsigned int i;

	sigaltstack(&ss, NULL);
	set_handler(SIGUSR1, on_usr1_edit, 0, 0);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		set_handler(sigs[i], after_return, SA_ONSTACK, 0);
	after.signo = 0;
	syscall2(__NR_kill, syscall0(__NR_getpid), SIGUSR1);
	asm volatile("movw %%ss, %0" : "=r"(ss_now));
	ktap_diag("cs %#x ss %#x%s%s: %s trapno %lu err %#lx, frame cs %#x ss %#x uc_flags %#lx",
		  req.cs, req.ss, req.nonstrict ? " (not strict)" : "",
		  req.sysret ? " (a SYSRET candidate)" : "", after.signo ? sig_name(after.signo) : "no signal",
		  after.trapno, after.err, after.cs, after.ss, after.uc_flags);
	return ss_now;
}

static int code32_child(void *unused)
{
	(void)unused;
	req = (struct request){ .cs = USER32_CS, .ss = USER_DS, .code32 = 1 };
	run_request();
	if (!on_ccos() && after.signo == SIGSEGV && after.cs == USER32_CS &&
	    after.err == (USER32_CS & ~3))
		return NO_COMPAT;
	if (after.signo != SIGTRAP || after.rip != (unsigned long)code32_trap)
		return FAIL("expected SIGTRAP at %p, the int3 of the 32-bit code", code32_trap);
	if (after.cs != USER32_CS || (after.rcx & 0xffff) != USER_DS)
		return FAIL("it ran with cs %#x ss %#lx, expected %#x %#x", after.cs,
			    after.rcx & 0xffff, USER32_CS, USER_DS);
	if ((unsigned int)after.rax != 0x5aadc0de)
		return FAIL("eax %#lx after a push and a pop of 0x5aadc0de", after.rax);
	/* UC_FP_XSTATE (1) aside: the frame of a signal from 32-bit code is not strict */
	if ((after.uc_flags & ~1ul) != UC_SIGCONTEXT_SS)
		return FAIL("uc_flags %#lx, expected UC_SIGCONTEXT_SS alone", after.uc_flags);
	return 0;
}

int test_sigreturn_to_32bit_code(void)
{
	int status = run_in_child(code32_child, NULL);

	if (status > 0 && WIFEXITED(status) && WEXITSTATUS(status) == NO_COMPAT)
		return skip("this host has no 32-bit code segment at 0x23: the return to it faulted");
	if (status == 0)
		return 1;
	return ktap_fail("wait status %#x (the # lines above)", status);
}

/* One return that must fault with #GP(err), its frame holding what was asked. */
static int expect_gp(struct request r, unsigned long err, int strict)
{
	req = r;
	run_request();
	if (after.signo != SIGSEGV || after.code != SI_KERNEL || after.trapno != 13 ||
	    after.err != err)
		return FAIL("expected SIGSEGV (SI_KERNEL) of #GP(%#lx)", err);
	if (after.cs != (r.cs | 3) || after.ss != (r.ss | 3) || after.rip != before.rip)
		return FAIL("the frame says cs %#x ss %#x rip %#lx, expected %#x %#x %#lx",
			    after.cs, after.ss, after.rip, r.cs | 3, r.ss | 3, before.rip);
	if (!!(after.uc_flags & UC_STRICT_RESTORE_SS) != strict)
		return FAIL("uc_flags %#lx: UC_STRICT_RESTORE_SS %s", after.uc_flags,
			    strict ? "missing (cs is 64-bit code)" : "set (cs is not 64-bit code)");
	return 0;
}

/*
 * A code segment as SS, a null CS: rt_sigreturn takes them, and the
 * return faults in user mode. Also with rcx and r11 as a plain system
 * call leaves them: SYSRET, which loads CS and SS from MSR_STAR, must
 * not take that frame back.
 */
static int bad_selectors_child(void *unused)
{
	(void)unused;
	return expect_gp((struct request){ .cs = USER_CS, .ss = USER_CS }, USER_CS & ~3, 1) ||
	       expect_gp((struct request){ .cs = USER_CS, .ss = USER_CS, .sysret = 1 },
			 USER_CS & ~3, 1) ||
	       expect_gp((struct request){ .cs = 0, .ss = USER_DS }, 0, 0) ||
	       expect_gp((struct request){ .cs = USER_CS, .ss = 0, .sysret = 1 }, 0, 1);
}

int test_sigreturn_bad_selectors_caught(void)
{
	return child_passes(bad_selectors_child, NULL);
}

/*
 * Without UC_STRICT_RESTORE_SS, a return to 64-bit code gets a usable SS
 * whatever the frame says (Linux keeps this for DOSEMU and CRIU, which
 * wrote frames before the field was restored): no fault, SS 0x2b.
 */
static int nonstrict_child(void *unused)
{
	unsigned short ss;

	(void)unused;
	req = (struct request){ .cs = USER_CS, .ss = 0, .nonstrict = 1 };
	ss = run_request();
	if (after.signo)
		return FAIL("the return faulted (%s), expected SS made %#x", sig_name(after.signo),
			    USER_DS);
	return ss == USER_DS ? 0 : FAIL("SS %#x after the return, expected %#x", ss, USER_DS);
}

int test_sigreturn_nonstrict_ss_fixed(void)
{
	return child_passes(nonstrict_child, NULL);
}
