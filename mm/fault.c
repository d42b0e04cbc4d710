/* The page-fault handler: user faults go to the process, kernel faults to a fixup or panic. */
#include <ccos/mm.h>
#include <asm/arch.h>
#include <ccos/printk.h>
#include <ccos/ktest.h>
#include <ccos/signal.h>
#include <ccos/proc.h>
#include <ccos/vm.h>

/*
 * The kernel-half pages that Linux maps as an area of the process
 * ([vvar], with the HPET page beside it) where one exists; the vsyscall
 * page it never made one.
 */
static bool in_gate_area(uint64_t addr)
{
	uint64_t page = ALIGN_DOWN(addr, PAGE_SIZE);

	return (page == VVAR_ADDRESS || page == HPET_USER_ADDR) && walk_pte(kernel_pml4, page);
}

/*
 * A fault in user mode, as Linux reports it. si_code says whether anything
 * is mapped there: SEGV_ACCERR when the address lies in one of the
 * process's areas (the access broke its permissions, PROT_NONE included,
 * whose pages are not present), SEGV_MAPERR otherwise. On a kernel
 * address the error code gets PF_PROT whether or not the page is mapped,
 * so that a fault does not show user space the kernel's layout (Linux's
 * sanitize_error_code); the handler's REG_ERR is that code. In the
 * vsyscall page the mode had its say first (arch/x86/entry/common.c
 * asked vsyscall_fault): xonly emulated a call from its fetch fault,
 * none warned. Inside the kernel lock: the process's areas, its signals.
 */
static void user_page_fault(struct trap_frame *tf, uint64_t addr)
{
	int code = SEGV_MAPERR;

	if (addr >= USER_TOP)
		tf->error_code |= PF_PROT;
	if (addr < USER_TOP ? mm_find_vma(current()->mm, addr) != NULL : in_gate_area(addr))
		code = SEGV_ACCERR;
	force_sig_fault(SIGSEGV, code, addr, tf);
}

/* A fault in kernel mode: a uaccess function's fixup, a test that expects it, or a panic. */
static void kernel_page_fault(struct trap_frame *tf, uint64_t addr)
{
	uint32_t err = tf->error_code;
	const char *sym;
	uint64_t off;

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

static void page_fault(struct trap_frame *tf)
{
	uint64_t addr = read_cr2();

	if (!user_mode(tf)) {
		kernel_page_fault(tf, addr);
		return;
	}
	user_page_fault(tf, addr);	/* the process's problem: SIGSEGV, si_addr = CR2 */
}

void page_fault_init(void)
{
	idt_set_handler(X86_PF, page_fault, 0);
}
