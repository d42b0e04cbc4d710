/* Exceptions: their names, the signal each is in user mode, and what a kernel fault does. */
#include <asm/trap.h>
#include <ccos/printk.h>
#include <ccos/ktest.h>
#include <asm/x86.h>
#include <ccos/signal.h>
#include <ccos/proc.h>
#include <ccos/lib.h>

static const char *const exception_names[32] = {
	[X86_DE] = "divide error (#DE)",
	[X86_DB] = "debug (#DB)",
	[X86_NMI] = "non-maskable interrupt (NMI)",
	[X86_BP] = "breakpoint (#BP)",
	[X86_OF] = "overflow (#OF)",
	[X86_BR] = "bound range exceeded (#BR)",
	[X86_UD] = "invalid opcode (#UD)",
	[X86_NM] = "device not available (#NM)",
	[X86_DF] = "double fault (#DF)",
	[9] = "coprocessor segment overrun",
	[X86_TS] = "invalid TSS (#TS)",
	[X86_NP] = "segment not present (#NP)",
	[X86_SS] = "stack-segment fault (#SS)",
	[X86_GP] = "general protection (#GP)",
	[X86_PF] = "page fault (#PF)",
	[X86_MF] = "x87 floating-point error (#MF)",
	[X86_AC] = "alignment check (#AC)",
	[X86_MC] = "machine check (#MC)",
	[X86_XM] = "SIMD floating-point (#XM)",
	[X86_VE] = "virtualization (#VE)",
	[X86_CP] = "control protection (#CP)",
};

const char *exception_name(uint64_t vector)
{
	if (vector < 32 && exception_names[vector])
		return exception_names[vector];
	return vector < 32 ? "reserved exception" : "interrupt";
}

void dump_registers(const struct trap_frame *tf)
{
	uint64_t off;
	const char *sym = ksym_lookup(tf->rip, &off);

	printk(KERN_ERR "RIP: %04lx:%016lx <%s+0x%lx>  RFLAGS: %08lx\n",
	       tf->cs, tf->rip, sym ? sym : "?", off, tf->rflags);
	printk(KERN_ERR "RSP: %04lx:%016lx  ERR: %lx  CR2: %016lx  CR3: %016lx\n",
	       tf->ss, tf->rsp, tf->error_code, read_cr2(), read_cr3());
	printk(KERN_ERR "RAX: %016lx RBX: %016lx RCX: %016lx\n", tf->rax, tf->rbx, tf->rcx);
	printk(KERN_ERR "RDX: %016lx RSI: %016lx RDI: %016lx\n", tf->rdx, tf->rsi, tf->rdi);
	printk(KERN_ERR "RBP: %016lx R8:  %016lx R9:  %016lx\n", tf->rbp, tf->r8, tf->r9);
	printk(KERN_ERR "R10: %016lx R11: %016lx R12: %016lx\n", tf->r10, tf->r11, tf->r12);
	printk(KERN_ERR "R13: %016lx R14: %016lx R15: %016lx\n", tf->r13, tf->r14, tf->r15);
}

extern const struct extable_entry __extable_start[], __extable_end[];

/* The exception-table entry of a user-access instruction at rip, or NULL. */
const struct extable_entry *search_exception_table(uint64_t rip)
{
	const struct extable_entry *e;

	for (e = __extable_start; e < __extable_end; e++)
		if (e->insn == rip)
			return e;
	return NULL;
}

/* A fault inside a user-access function resumes at its fixup: -EFAULT. */
bool fixup_exception(struct trap_frame *tf)
{
	const struct extable_entry *e = search_exception_table(tf->rip);

	if (e)
		tf->rip = e->fixup;
	return e != NULL;
}

/* An exception in kernel mode: a fixup, an expected fault in a ktest, or a panic. */
void kernel_fault(struct trap_frame *tf)
{
	if (fixup_exception(tf) || ktest_catch_fault(tf))
		return;
	panic_frame(tf, "%s in kernel mode, error code 0x%lx",
		    exception_name(tf->vector), tf->error_code);
}

/* What an exception in user mode becomes: Linux's signal and si_code. */
static const struct {
	uint8_t sig, code;
} user_fault_signals[32] = {
	[X86_DE] = { SIGFPE, FPE_INTDIV },
	[X86_DB] = { SIGTRAP, TRAP_TRACE },
	[X86_BP] = { SIGTRAP, SI_KERNEL },
	[X86_OF] = { SIGSEGV, SI_KERNEL },
	[X86_BR] = { SIGSEGV, SI_KERNEL },
	[X86_UD] = { SIGILL, ILL_ILLOPN },
	[X86_NM] = { SIGFPE, SI_KERNEL },
	[X86_TS] = { SIGSEGV, SI_KERNEL },
	[X86_NP] = { SIGBUS, SI_KERNEL },
	[X86_SS] = { SIGBUS, SI_KERNEL },
	[X86_GP] = { SIGSEGV, SI_KERNEL },
	[X86_MF] = { SIGFPE, SI_KERNEL },
	[X86_AC] = { SIGBUS, BUS_ADRALN },
	[X86_XM] = { SIGFPE, SI_KERNEL },
};

/*
 * The si_code of an x87 (#MF) or SSE (#XM) exception: the first of the
 * exception flags that is raised and not masked, in Linux's order
 * (fpu__exception_code). The state is still the user's: the kernel does
 * not use the FPU. x87: flags in the status word, masks in the control
 * word, same bits; MXCSR: flags in bits 0-5, masks in bits 7-12.
 */
static int fpu_exception_code(uint64_t vector)
{
	uint8_t fx[512] __aligned(16);
	uint16_t cwd, swd;
	uint32_t mxcsr, err;

	__asm__ volatile("fxsave64 %0" : "=m"(fx));
	memcpy(&cwd, fx + 0, 2);
	memcpy(&swd, fx + 2, 2);
	memcpy(&mxcsr, fx + 24, 4);
	err = vector == X86_MF ? swd & ~cwd : mxcsr & ~(mxcsr >> 7);
	if (err & 0x01)
		return FPE_FLTINV;	/* invalid operation */
	if (err & 0x04)
		return FPE_FLTDIV;	/* divide by zero */
	if (err & 0x08)
		return FPE_FLTOVF;	/* overflow */
	if (err & 0x12)
		return FPE_FLTUND;	/* denormal operand, underflow */
	if (err & 0x20)
		return FPE_FLTRES;	/* inexact result */
	return SI_KERNEL;		/* no flag to name */
}

static void user_fault(struct trap_frame *tf)
{
	int sig = user_fault_signals[tf->vector].sig;
	int code = user_fault_signals[tf->vector].code;
	uint64_t addr = 0;

	/* #UD, #DE, #MF, #XM and #DB report the instruction; #GP and int3 no address. */
	if (sig == SIGILL || sig == SIGFPE || tf->vector == X86_DB)
		addr = tf->rip;
	if (tf->vector == X86_MF || tf->vector == X86_XM)
		code = fpu_exception_code(tf->vector);
	force_sig_fault(sig, code, addr, tf);
}

/* The handler of every vector that has none of its own (idt.c fills the table with it). */
void unhandled_trap(struct trap_frame *tf)
{
	if (tf->vector >= 32)
		printk(KERN_WARNING "warning: interrupt on vector %lu with no handler ignored\n",
		       tf->vector);
	else if (!user_mode(tf))
		kernel_fault(tf);
	else if (user_fault_signals[tf->vector].sig)
		user_fault(tf);
	else
		panic_frame(tf, "%s (vector %lu) from user mode",
			    exception_name(tf->vector), tf->vector);
}
