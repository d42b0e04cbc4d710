/* fuzz's signal-frame check: a handler's frame, built on an alternate stack of CANARY, holds nothing stray; corrupt FPU states come back as SIGSEGV. */
#include "fuzz.h"

#define ALT_SIZE	16384
#define FRAME_SIZE	440		/* the return address, struct ucontext (304), siginfo (128) */
#define USER_TOP	0x0000800000000000ul
#define SEGV_MAPERR	1
#define FP_XSTATE_MAGIC1	0x46505853u
#define FP_XSTATE_MAGIC2	0x46505845u

static unsigned char altstack[ALT_SIZE] __attribute__((aligned(64)));
static int report_fd, failures;
static const char *kind;
static int expect_sig;
static unsigned long expect_addr;

static void saw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void saw(const char *fmt, ...)
{
	char line[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (failures++ < 4)
		report(report_fd, "signal frame of %s: %s", kind, line);
}

/* [from, to) of the frame is padding: zero or still CANARY (ccos zeroes, Linux leaves it). */
static void padding(const unsigned char *base, const unsigned char *from, const unsigned char *to)
{
	for (; from < to; from++)
		if (*from && *from != CANARY) {
			saw("byte %ld above the frame is %#x, in padding", (long)(from - base), *from);
			return;
		}
}

static void no_kernel_words(const unsigned char *base, const unsigned char *from,
			    const unsigned char *to)
{
	for (; from + 8 <= to; from += 8) {
		unsigned long v;

		memcpy(&v, from, 8);
		if (kernel_address(v)) {
			saw("the word %ld above the frame holds %#lx, a kernel-half address",
			    (long)(from - base), v);
			return;
		}
	}
}

/* An XSAVE image: its sizes agree, MAGIC2 follows it, the reserved bytes and the header's are zero. */
static void xstate_frame(const unsigned char *frame, const unsigned char *fx, const unsigned char *top)
{
	uint32_t extended_size, xstate_size, magic2;

	memcpy(&extended_size, fx + 468, 4);
	memcpy(&xstate_size, fx + 480, 4);
	if (xstate_size < 576 || extended_size != xstate_size + 4 || fx + extended_size > top) {
		saw("fx_sw_bytes: xstate_size %u, extended_size %u", xstate_size, extended_size);
		return;
	}
	memcpy(&magic2, fx + xstate_size, 4);
	if (magic2 != FP_XSTATE_MAGIC2)
		saw("%#x after the XSAVE image, expected FP_XSTATE_MAGIC2", magic2);
	padding(frame, fx + 416, fx + 464);			/* reserved in the legacy area */
	padding(frame, fx + 488, fx + 512);			/* fx_sw_bytes' padding */
	padding(frame, fx + 520, fx + 576);			/* the header after XSTATE_BV */
	padding(frame, fx + extended_size, top);
}

/*
 * The frame as Linux lays it out (rt_sigframe: the return address, the
 * ucontext, the siginfo; the FPU state above them, 64-aligned: an fxsave
 * area, or an XSAVE image with fx_sw_bytes at 464 and MAGIC2 after it). The
 * saved registers hold this program's values, whatever they are; every
 * other word must be a user address or a small number, every gap zero or
 * CANARY, and the siginfo zero after its fields.
 */
static void check_frame(siginfo_t *si, ucontext_t *uc)
{
	unsigned char *frame = (unsigned char *)uc - 8, *top = altstack + ALT_SIZE;
	unsigned char *mc = (unsigned char *)&uc->uc_mcontext, *fx = (unsigned char *)uc->uc_mcontext.fpstate;
	unsigned long pretcode;

	if (frame < altstack || frame + FRAME_SIZE > top || (unsigned char *)si != frame + 8 + 304) {
		saw("at %p, siginfo at %p: not Linux's layout on the alternate stack %p", frame, si,
		    altstack);
		return;
	}
	memcpy(&pretcode, frame, 8);
	if (pretcode != (unsigned long)rt_sigreturn || uc->uc_link ||
	    uc->uc_stack.ss_sp != altstack || uc->uc_stack.ss_size != ALT_SIZE ||
	    uc->uc_stack.ss_flags)
		saw("return address %#lx, uc_link %p, uc_stack %p %#x %lu", pretcode, uc->uc_link,
		    uc->uc_stack.ss_sp, uc->uc_stack.ss_flags, uc->uc_stack.ss_size);
	if (uc->uc_mcontext.rip >= USER_TOP || uc->uc_mcontext.rsp >= USER_TOP ||
	    uc->uc_mcontext.cs != 0x33 || fx < frame + FRAME_SIZE || fx + 512 > top ||
	    (unsigned long)fx % 64)
		saw("rip %#lx, rsp %#lx, cs %#x, fpstate %p", uc->uc_mcontext.rip,
		    uc->uc_mcontext.rsp, uc->uc_mcontext.cs, fx);
	if (si->si_signo != expect_sig || si->si_errno ||
	    (expect_sig == SIGSEGV ? si->si_code != SEGV_MAPERR || (unsigned long)si->si_addr != expect_addr ||
				     uc->uc_mcontext.cr2 != expect_addr || uc->uc_mcontext.trapno != 14
				   : si->si_code != SI_USER || si->si_pid != getpid() || uc->uc_mcontext.cr2))
		saw("siginfo %d %d %d %#lx, cr2 %#lx, trapno %lu", si->si_signo, si->si_errno,
		    si->si_code, (unsigned long)si->si_addr, uc->uc_mcontext.cr2, uc->uc_mcontext.trapno);
	if (fx < frame + FRAME_SIZE || fx + 512 > top)
		return;
	no_kernel_words(frame, frame, frame + 8 + 40);	/* return address, uc_flags, uc_link, uc_stack */
	no_kernel_words(frame, mc + 152, mc + 256 + 8);	/* err ... reserved, uc_sigmask */
	no_kernel_words(frame, (unsigned char *)si, (unsigned char *)si + 128);
	no_kernel_words(frame, fx + 416, top);
	padding(frame, (unsigned char *)&uc->uc_stack + 12, (unsigned char *)&uc->uc_stack + 16);
	padding(frame, mc + 192, mc + 256);			/* reserved1 */
	padding(frame, (unsigned char *)si + 24, (unsigned char *)si + 128);
	padding(frame, frame + FRAME_SIZE, fx);
	if (((uint32_t *)(fx + 464))[0] != FP_XSTATE_MAGIC1) {
		padding(frame, fx + 416, fx + 512);		/* fxsave64 writes 0-415 only */
		padding(frame, fx + 512, top);
		return;
	}
	xstate_frame(frame, fx, top);
}

/* The one load that faults: its handler moves rip to fault_resume. */
extern char fault_insn[], fault_resume[];

static __attribute__((noinline)) void load_from(unsigned long addr)
{
	__asm__ volatile(".globl fault_insn, fault_resume\n"
			 "fault_insn:	movq (%0), %%rax\n"
			 "fault_resume:\n" : : "r"(addr) : "rax", "memory");
}

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	check_frame(si, uc);
	if (si->si_signo == SIGSEGV && uc->uc_mcontext.rip == (unsigned long)fault_insn)
		uc->uc_mcontext.rip = (unsigned long)fault_resume;
	else if (si->si_signo == SIGSEGV)
		exit_group(report(report_fd, "SIGSEGV at %#lx, not at the load", uc->uc_mcontext.rip));
}

/*
 * A handler that spoils its own frame's FPU state before it returns: a
 * random byte of the image (the header, the software bytes, MAGIC2 among
 * them) or the fpstate pointer itself. rt_sigreturn must load what the
 * CPU accepts and answer the rest with a SIGSEGV (SI_KERNEL) the program
 * catches, never a kernel fault.
 */
static void on_spoil(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	unsigned char *fx = (unsigned char *)uc->uc_mcontext.fpstate;
	unsigned long r = next_random();
	uint32_t size = 512;

	(void)sig, (void)si;
	if (((uint32_t *)(fx + 464))[0] == FP_XSTATE_MAGIC1)
		memcpy(&size, fx + 468, 4);
	if (r % 4 == 0)
		uc->uc_mcontext.fpstate = (struct fpstate *)hostile(next_random());
	else if (r % 4 == 1)
		fx[512 + (r >> 8) % 64] ^= 1u << ((r >> 16) % 8);	/* the header */
	else
		fx[(r >> 8) % size] = next_random();
}

static void on_bad_fpstate(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)ctx;
	if (si->si_code != SI_KERNEL)
		saw("SIGSEGV code %d after a spoiled FPU state, expected SI_KERNEL", si->si_code);
}

static void spoil_frames(void)
{
	int i;

	kind = "a spoiled FPU state";
	sigaction(SIGUSR2, on_spoil, 0);
	sigaction(SIGSEGV, on_bad_fpstate, 0);
	for (i = 0; i < 16; i++)
		kill(getpid(), SIGUSR2);
	/* Whatever state came back: exceptions masked again, for the C code after. */
	__asm__ volatile("fninit; ldmxcsr %0" : : "m"((uint32_t){ 0x1f80 }));
}

int check_sigframes(int fd)
{
	stack_t ss = { altstack, 0, ALT_SIZE };

	report_fd = fd;
	failures = 0;
	sigaltstack(&ss, NULL);
	sigaction(SIGUSR1, on_signal, SA_ONSTACK);
	sigaction(SIGSEGV, on_signal, SA_ONSTACK);

	kind = "kill(SIGUSR1)";
	expect_sig = SIGUSR1;
	memset(altstack, CANARY, sizeof(altstack));
	kill(getpid(), SIGUSR1);

	kind = "a load from an unmapped page (SIGSEGV)";
	expect_sig = SIGSEGV;
	expect_addr = 8;
	memset(altstack, CANARY, sizeof(altstack));
	load_from(expect_addr);
	spoil_frames();
	return failures;
}
