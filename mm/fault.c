/* The page-fault handler: user faults go to the process, kernel faults to a fixup or panic. */
#include <ccos/mm.h>
#include <ccos/trap.h>
#include <ccos/printk.h>
#include <ccos/ktest.h>
#include <ccos/x86.h>

/* Page-fault error code bits (SDM Vol. 3 §4.7). */
#define PF_PROT		(1u << 0)	/* 0: page not present, 1: protection violation */
#define PF_WRITE	(1u << 1)
#define PF_USER		(1u << 2)
#define PF_RSVD		(1u << 3)	/* a reserved bit was set in an entry */
#define PF_INSTR	(1u << 4)	/* instruction fetch */

/* Handed a user-mode fault; the process code replaces this when it exists. */
__attribute__((weak)) void user_page_fault(struct trap_frame *tf, uint64_t addr)
{
	panic_frame(tf, "page fault at %lx from user mode with no process to signal", addr);
}

static void page_fault(struct trap_frame *tf)
{
	uint64_t addr = read_cr2(), off;
	uint32_t err = tf->error_code;
	const char *sym;

	if (user_mode(tf)) {
		user_page_fault(tf, addr);
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
