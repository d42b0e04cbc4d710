/* SYSCALL setup (STAR, LSTAR, FMASK) and the per-CPU block. */
#include <ccos/proc.h>
#include <asm/arch.h>
#include <asm/x86.h>
#include <ccos/printk.h>
#include <ccos/lab.h>

BUILD_BUG_ON(offsetof(struct percpu, kernel_rsp) != 8);
BUILD_BUG_ON(offsetof(struct percpu, user_rsp) != 16);

extern void syscall32_entry(void);

void syscall_init(void)
{
	/* LAB syscall: BEGIN */
	/* STAR[47:32]: kernel CS (SS = +8); STAR[63:48]: base of the user
	 * selectors, SYSRET takes CS = base + 16 and SS = base + 8. */
	wrmsr(MSR_STAR, (uint64_t)USER32_CS << 48 | (uint64_t)KERNEL_CS << 32);
	wrmsr(MSR_LSTAR, syscall_entry_address());	/* pti.c chose it */
	/* A SYSCALL in 32-bit compatibility mode goes to CSTAR instead (AMD,
	 * and QEMU; Intel raises #UD). Left at 0 it would run address 0 in
	 * ring 0 on the user's stack: see syscall32_entry. */
	wrmsr(MSR_CSTAR, (uint64_t)syscall32_entry);
	/*
	 * FMASK: the RFLAGS bits SYSCALL clears on entry. IF: no interrupts
	 * until we are on the kernel stack. TF: no single-step trap in the
	 * kernel. DF: the C ABI wants it clear. AC: no user access by
	 * accident under SMAP. NT: popf lets a program set it, and an iretq
	 * with NT set raises #GP in 64-bit mode (SDM Vol. 2A IRET), so a
	 * system call leaving through iretq would fault in the kernel.
	 */
	wrmsr(MSR_FMASK, RFLAGS_IF | RFLAGS_TF | RFLAGS_AC | RFLAGS_DF | RFLAGS_NT);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* LAB syscall: STUB
	// SYSCALL (SDM Vol. 2B) finds everything in MSRs (asm/x86.h names them):
	// 1. STAR: the kernel's CS at bits 47:32 (SS is CS + 8), and at 63:48
	//    the base SYSRET adds to: CS = base + 16, SS = base + 8 (asm/trap.h).
	// 2. LSTAR: where a 64-bit SYSCALL lands: syscall_entry_address()
	//    (pti.c chose syscall_entry, or with pti=on syscall_entry_pti).
	// 3. CSTAR: where a 32-bit one lands: syscall32_entry.
	// 4. FMASK: the RFLAGS bits SYSCALL clears: which may the kernel not
	//    start with (interrupts, single-step, direction, AC, NT)?
	// 5. EFER.SCE, without which SYSCALL is #UD.
	lab_todo("00-syscall");
	   LAB syscall: END */
}
