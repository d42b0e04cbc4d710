/* The page-fault handler: user faults go to the process, kernel faults to a fixup or panic. */
#include <ccos/mm.h>
#include <ccos/trap.h>
#include <ccos/printk.h>
#include <ccos/ktest.h>
#include <ccos/x86.h>
#include <ccos/signal.h>
#include <ccos/vsyscall.h>

static void page_fault(struct trap_frame *tf)
{
	uint64_t addr = read_cr2(), off;
	uint32_t err = tf->error_code;
	const char *sym;

	/*
	 * A user fault is the process's problem: SIGSEGV, si_addr = CR2. In
	 * the vsyscall page the mode has its say first: xonly emulates a call
	 * from its fetch fault, none warns.
	 */
	if (user_mode(tf)) {
		if (in_vsyscall_page(addr) && vsyscall_fault(tf, addr))
			return;
		force_sig_fault(SIGSEGV, err & PF_PROT ? SEGV_ACCERR : SEGV_MAPERR, addr, tf);
		return;
	}
	if (fixup_exception(tf) || ktest_catch_fault(tf))
		return;
	sym = ksym_lookup(tf->rip, &off);
	panic_frame(tf, "page fault at %016lx: %s, %s, %s mode%s%s; RIP %lx <%s+0x%lx>",
		    addr, err & PF_PROT ? "protection violation" : "page not present",
		    err & PF_INSTR ? "instruction fetch" : err & PF_WRITE ? "write" : "read",
		    err & PF_USER ? "user" : "kernel",
		    err & PF_RSVD ? ", reserved bit set" : "",
		    addr < USER_TOP && !(err & PF_USER) ? " (a kernel access to user memory outside the uaccess functions?)" : "",
		    tf->rip, sym ? sym : "?", off);
}

void page_fault_init(void)
{
	idt_set_handler(X86_PF, page_fault, 0);
}
