/* FS and GS per thread: selectors and bases saved at a switch and loaded back, and arch_prctl. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>
#include <asm/x86.h>

/*
 * A program changes FS and GS in two ways: arch_prctl(ARCH_SET_FS/GS),
 * which the kernel sees, and a segment load (mov $0, %gs), which it does
 * not. In 64-bit mode a load sets the selector and the base both: the
 * base becomes the descriptor's (0 for every ccos segment), or 0 for a
 * null selector on Intel CPUs; AMD CPUs may keep the old base instead
 * (SDM Vol. 3A 3.4.4; Linux's X86_BUG_NULL_SEG). So the kernel never
 * trusts a value it cached: what belongs to a thread is what the CPU
 * holds when the thread leaves it. fsgs_save reads it back there (the
 * selectors with mov, the bases from their MSRs), fsgs_load puts the
 * next thread's back, selector first, since the load overwrites the
 * base. Linux guesses instead, to save two rdmsr per switch
 * (save_base_legacy in arch/x86/kernel/process_64.c); exact is simpler.
 *
 * While the kernel runs, GS is the kernel's (swapgs, trap_entry.asm):
 * the user's base waits in IA32_KERNEL_GS_BASE, and loading the user's
 * selector into GS would overwrite the kernel's base. load_gs_selector
 * swaps, loads and swaps back, with interrupts off (the scheduler runs
 * so). An NMI between the two swaps finds a user base in GS, which
 * paranoid_entry sets aside for the kernel's while it runs.
 *
 * A saved selector cannot fault when loaded again: the CPU loaded it for
 * the program already, and the GDT does not change (ccos has no LDT).
 */
static uint16_t read_fs(void)
{
	uint16_t sel;

	__asm__ volatile("mov %%fs, %0" : "=r"(sel));
	return sel;
}

static uint16_t read_gs(void)
{
	uint16_t sel;

	__asm__ volatile("mov %%gs, %0" : "=r"(sel));
	return sel;
}

static void load_fs_selector(uint16_t sel)
{
	__asm__ volatile("mov %0, %%fs" : : "r"(sel));
}

static void load_gs_selector(uint16_t sel)
{
	__asm__ volatile("swapgs; mov %0, %%gs; swapgs" : : "r"(sel) : "memory");
}

/* p leaves the CPU: keep what it left in FS and GS. */
void fsgs_save(struct process *p)
{
	p->fsindex = read_fs();
	p->gsindex = read_gs();
	p->fs_base = rdmsr(MSR_FS_BASE);
	p->gs_base = rdmsr(MSR_KERNEL_GS_BASE);	/* the user's GS, after swapgs */
}

/* p runs on this CPU: its selectors, then its bases. */
void fsgs_load(const struct process *p)
{
	load_fs_selector(p->fsindex);
	load_gs_selector(p->gsindex);
	wrmsr(MSR_FS_BASE, p->fs_base);
	wrmsr(MSR_KERNEL_GS_BASE, p->gs_base);
}

/*
 * CR4.FSGSBASE (SDM Vol. 3A 2.5) lets ring 3 read and write its FS and GS
 * bases itself: rdfsbase, rdgsbase, wrfsbase, wrgsbase, where CPUID
 * leaf 7 says the CPU has them (EBX bit 0). Every CPU turns it on for
 * itself; programs learn it from AT_HWCAP2 (HWCAP2_FSGSBASE), as on
 * Linux since 5.9. Nothing above changes: a base written so is one more
 * the kernel did not see, and fsgs_save reads it back. What does change
 * is that a user's GS base may now be a kernel address: paranoid_entry
 * (trap_entry.asm) no longer guesses from it.
 */
bool cpu_has_fsgsbase;

void fsgsbase_init(void)
{
	uint32_t a, b, c, d, max;

	cpuid(0, 0, &max, &b, &c, &d);
	if (max < 7)
		return;
	cpuid(7, 0, &a, &b, &c, &d);
	if (!(b & 1))
		return;
	write_cr4(read_cr4() | CR4_FSGSBASE);
	cpu_has_fsgsbase = true;
}

static bool user_canonical(uint64_t a)
{
	return a < USER_TOP;
}

/*
 * As Linux: SET writes the base and a null selector (the selector a
 * program had would mean another base); GET reads the base the CPU uses
 * now, whatever set it. wrmsr with a non-canonical value would #GP.
 */
long sys_arch_prctl(int code, uint64_t addr)
{
	struct process *p = current();

	switch (code) {
	case ARCH_SET_FS:
		if (!user_canonical(addr))
			return -EPERM;
		fsgs_save(p);
		p->fsindex = 0;
		p->fs_base = addr;
		fsgs_load(p);
		return 0;
	case ARCH_SET_GS:
		if (!user_canonical(addr))
			return -EPERM;
		fsgs_save(p);
		p->gsindex = 0;
		p->gs_base = addr;
		fsgs_load(p);
		return 0;
	case ARCH_GET_FS:
		return put_user(rdmsr(MSR_FS_BASE), (uint64_t __user *)addr);
	case ARCH_GET_GS:
		return put_user(rdmsr(MSR_KERNEL_GS_BASE), (uint64_t __user *)addr);
	}
	return fpu_xstate_prctl(code, addr);
}
