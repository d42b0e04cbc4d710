/* SYSCALL setup (STAR, LSTAR, FMASK), the per-CPU block and the FPU/SSE state. */
#include <ccos/proc.h>
#include <asm/arch.h>
#include <asm/x86.h>
#include <ccos/printk.h>
#include <ccos/lab.h>

uint8_t fpu_initial_state[512] __aligned(16);

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

/*
 * SSE needs CR4.OSFXSR (fxsave/fxrstor know the XMM state) and
 * CR4.OSXMMEXCPT (#XM rather than #UD for SIMD exceptions); CR0.EM must be
 * clear and CR0.MP set (SDM Vol. 3 §13.1). CR0.NE makes an unmasked x87
 * exception a #MF (SIGFPE) rather than the PC's old FERR# line to IRQ 13.
 * CR0.AM lets a program that sets EFLAGS.AC get #AC (SIGBUS) for an
 * unaligned access; it has no effect in ring 0. The kernel itself never
 * uses these registers (-mgeneral-regs-only), so saving them at each
 * context switch is enough.
 */
void fpu_init(void)
{
	write_cr0((read_cr0() & ~CR0_EM) | CR0_MP | CR0_NE | CR0_AM);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	__asm__ volatile("fninit");
	/* MXCSR 0x1f80: all SIMD exceptions masked, round to nearest. */
	__asm__ volatile("ldmxcsr %0" : : "m"((uint32_t){ 0x1f80 }));
	__asm__ volatile("fxsave64 %0" : "=m"(fpu_initial_state));
}
