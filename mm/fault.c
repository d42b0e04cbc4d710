/* The page-fault handler: user faults go to the process's memory or the process, kernel faults to a fixup or panic. */
#include <ccos/mm.h>
#include <asm/arch.h>
#include <ccos/printk.h>
#include <ccos/ktest.h>
#include <ccos/signal.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/spinlock.h>
#include <ccos/uaccess.h>
#include <ccos/errno.h>

/*
 * The kernel-half pages that Linux maps as an area of the process
 * ([vvar], with the HPET page beside it) where one exists; the vsyscall
 * page it never made one. Where user mode has a table of its own (pti=on),
 * where that one maps them: the HPET only if the vDSO reads it.
 */
static bool in_gate_area(uint64_t addr)
{
	uint64_t page = ALIGN_DOWN(addr, PAGE_SIZE);

	return (page == VVAR_ADDRESS || page == HPET_USER_ADDR) &&
	       walk_pte(pti_enabled ? pti_user_template : kernel_pml4, page);
}

/*
 * Most faults on user addresses are no failure: a page's first touch, or
 * a write to a page fork shares (mm/memory.c). Then the access is retried
 * (true). No frame left for it: the process is killed, as Linux's OOM
 * killer would, were this process the one it picked. A page past the end
 * of a shared area's object (mremap grew the area beyond it) is SIGBUS
 * with BUS_ADRERR, as Linux's shmem answers: answered too, by the signal.
 * Never a fault without PF_USER: the CPU itself was reading, as a
 * supervisor (an implicit access: SDM Vol. 3 §4.6), which SMAP refuses on
 * a user page whatever is mapped there, so retried it would fault for ever. Real
 * CPUs make such accesses only to the kernel's tables; QEMU 7.2's TCG
 * makes the stack reads of lretq so. Linux stops there too
 * (page_fault_oops); ccos sends the SIGSEGV.
 */
static bool memory_answers(struct trap_frame *tf, uint64_t addr)
{
	struct process *p = current();
	int err;

	if ((tf->error_code & (PF_RSVD | PF_USER)) != PF_USER)
		return false;
	err = handle_mm_fault(p->mm, addr, tf->error_code & (PF_WRITE | PF_INSTR));
	if (err == -ENOMEM) {
		printk(KERN_ERR "Out of memory: killed process %d (%s): no frame for its page at %lx\n",
		       p->tgid, p->comm, addr);
		do_group_exit(SIGKILL);
	}
	if (err == -EIO) {
		force_sig_fault(SIGBUS, BUS_ADRERR, addr, tf);
		return true;
	}
	return !err;
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

	if (addr < USER_TOP && memory_answers(tf, addr))
		return;
	if (addr >= USER_TOP)
		tf->error_code |= PF_PROT;
	if (addr < USER_TOP ? mm_find_vma(current()->mm, addr) != NULL : in_gate_area(addr))
		code = SEGV_ACCERR;
	force_sig_fault(SIGSEGV, code, addr, tf);
}

/*
 * A user-access function (copy_to_user, put_user, ...) met a user page
 * that is not there yet, or that fork shares. As Linux does, the fault is
 * answered as the user's own access would be, and the instruction runs
 * again; only a fault the process's memory cannot answer goes to the
 * fixup (-EFAULT). This needs the kernel's writes to fault as the user's
 * do: it writes with CR0.WP set (mm/paging.c), so a read-only user page
 * stops it too. The other way, which Linux had to take on the 80386
 * (whose kernel mode ignored W), checks every page and breaks its sharing
 * before each copy_to_user: that costs every copy, this only the copy
 * that meets such a page. A lockless system call (or the vsyscall
 * emulation) holds no kernel lock: the entry layer, which knows, takes it
 * for the answer then (uaccess_handle_mm_fault). The handler works with the SMAP
 * window closed; iretq reopens it for the retry (the frame's RFLAGS has
 * AC set).
 */
static bool uaccess_fault_answered(struct trap_frame *tf, uint64_t addr)
{
	struct process *p = current();
	unsigned int access = tf->error_code & PF_WRITE;

	if (addr >= USER_TOP || (tf->error_code & PF_RSVD) || !p || !p->mm ||
	    !search_exception_table(tf->rip))
		return false;
	user_access_end();
	return !uaccess_handle_mm_fault(p->mm, addr, access);
}

/* A fault in kernel mode: a uaccess function's fixup, a test that expects it, or a panic. */
static void kernel_page_fault(struct trap_frame *tf, uint64_t addr)
{
	uint32_t err = tf->error_code;
	const char *sym;
	uint64_t off;

	if (uaccess_fault_answered(tf, addr) || fixup_exception(tf) || ktest_catch_fault(tf))
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
	idt_set_handler(X86_PF, page_fault);
}
