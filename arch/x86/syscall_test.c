/* In-kernel tests of the SYSCALL MSRs and the CR0 bits that the user ABI relies on. */
#include <ccos/ktest.h>
#include <asm/arch.h>
#include <asm/x86.h>

extern void syscall_entry(void), syscall_entry_pti(void);
extern void syscall32_entry(void);

/*
 * Both SYSCALL entries are ours: a 32-bit SYSCALL must not run address 0.
 * The 64-bit one switches CR3 with pti=on only: pti=off pays nothing.
 */
KTEST(syscall_entry_points)
{
	KEXPECT_EQ(rdmsr(MSR_LSTAR), pti_enabled ? (uint64_t)syscall_entry_pti
						: (uint64_t)syscall_entry);
	KEXPECT_EQ(rdmsr(MSR_CSTAR), (uint64_t)syscall32_entry);
}

/* The kernel never runs with the user's IF, TF, DF, AC or NT (an iretq with NT faults). */
KTEST(syscall_fmask_clears_user_flags)
{
	uint64_t fmask = rdmsr(MSR_FMASK);

	KEXPECT(fmask & RFLAGS_IF);
	KEXPECT(fmask & RFLAGS_TF);
	KEXPECT(fmask & RFLAGS_DF);
	KEXPECT(fmask & RFLAGS_AC);
	KEXPECT(fmask & RFLAGS_NT);
}

/* NE: x87 errors are #MF (SIGFPE), not IRQ 13; AM: #AC for programs that set EFLAGS.AC. */
KTEST(cr0_fpu_and_alignment_bits)
{
	uint64_t cr0 = read_cr0();

	KEXPECT(cr0 & CR0_NE);
	KEXPECT(cr0 & CR0_AM);
	KEXPECT(cr0 & CR0_MP);
	KEXPECT(!(cr0 & CR0_EM));
}
