/* A thread's FPU, SSE and AVX registers: XSAVE with the size CPUID reports where the CPU has it, else FXSAVE. */
#include <asm/arch.h>
#include <asm/x86.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>

/*
 * The kernel never uses these registers itself (-mgeneral-regs-only), so
 * while a thread runs, in user mode or in the kernel, they hold its state;
 * the scheduler saves them to the thread's area when it switches away and
 * loads them from it when it switches back (kernel/sched/sched.c).
 *
 * FXSAVE (SDM Vol. 1 §10.5) saves x87 and SSE: 512 bytes, 16-aligned.
 * XSAVE (SDM Vol. 1 ch. 13) saves every state component XCR0 enables:
 * the same 512-byte legacy area, then a 64-byte header whose first
 * quadword, XSTATE_BV, says which components the image holds (a clear
 * bit: that component is in its initial configuration), then each
 * further component at the offset CPUID.(EAX=0DH,ECX=i):EBX gives (the
 * standard form, which XSAVEC's and XSAVES's compacted form is not:
 * ccos uses neither, as Linux's signal frame cannot). The image must be
 * 64-aligned, or XSAVE and XRSTOR raise #GP (§13.4).
 */
#define XCR0_X87		(1ull << 0)
#define XCR0_SSE		(1ull << 1)
#define XCR0_AVX		(1ull << 2)	/* YMM upper halves */
#define XCR0_AVX512		(7ull << 5)	/* opmask, ZMM upper halves, ZMM16-31 */

/*
 * The user state components ccos handles: those whose state is only
 * registers, saved and restored whole. AVX-512's three end at 2688 bytes,
 * FPU_STATE_MAX, in the standard form. Left out: MPX (bits 3-4, gone from
 * Linux), PKRU (bit 9, wants CR4.PKE and its own rules at a signal) and
 * AMX (bits 17-18, wants a permission per process and XFD).
 */
#define XFEATURES_HANDLED	(XCR0_X87 | XCR0_SSE | XCR0_AVX | XCR0_AVX512)

#define CPUID1_ECX_XSAVE	(1u << 26)
#define CPUID_D1_EAX_XSAVEOPT	(1u << 0)

uint64_t fpu_xfeatures;			/* XCR0; 0 without XSAVE */
unsigned int fpu_state_size = 512;	/* of the thread's area: FXSAVE's, or CPUID's */
uint32_t fpu_mxcsr_mask;		/* MXCSR bits XRSTOR and FXRSTOR accept */
static bool has_xsaveopt;
uint8_t fpu_initial_state[FPU_STATE_MAX] __aligned(64);

static void xsetbv(uint32_t reg, uint64_t v)
{
	__asm__ volatile("xsetbv" : : "c"(reg), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

/* XSAVE's and XRSTOR's EDX:EAX is a mask ANDed with XCR0: all ones, every component. */
static void xsave(void *area)
{
	__asm__ volatile("xsave64 %0" : "+m"(*(uint8_t (*)[FPU_STATE_MAX])area)
			 : "a"(-1), "d"(-1));
}

static void xsaveopt(void *area)
{
	__asm__ volatile("xsaveopt64 %0" : "+m"(*(uint8_t (*)[FPU_STATE_MAX])area)
			 : "a"(-1), "d"(-1));
}

static void xrstor(const void *area)
{
	__asm__ volatile("xrstor64 %0" : : "m"(*(const uint8_t (*)[FPU_STATE_MAX])area),
			 "a"(-1), "d"(-1));
}

/*
 * SSE needs CR4.OSFXSR (fxsave/fxrstor know the XMM state) and
 * CR4.OSXMMEXCPT (#XM rather than #UD for SIMD exceptions); CR0.EM must be
 * clear and CR0.MP set (SDM Vol. 3 §13.1). CR0.NE makes an unmasked x87
 * exception a #MF (SIGFPE) rather than the PC's old FERR# line to IRQ 13.
 * CR0.AM lets a program that sets EFLAGS.AC get #AC (SIGBUS) for an
 * unaligned access; it has no effect in ring 0. Where CPUID.1:ECX.XSAVE
 * (bit 26) is set, CR4.OSXSAVE enables XGETBV, XSETBV and the XSAVE
 * family, and XCR0 says which components they and the CPU handle (SDM
 * Vol. 3 §13.3): x87 must stay set, and AVX needs SSE. Every CPU does this
 * for itself, with the boot CPU's choice.
 */
void fpu_init(void)
{
	uint32_t a, b, c, d;

	write_cr0((read_cr0() & ~CR0_EM) | CR0_MP | CR0_NE | CR0_AM);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	if (fpu_xfeatures) {
		write_cr4(read_cr4() | CR4_OSXSAVE);
		xsetbv(0, fpu_xfeatures);
		return;
	}
	cpuid(1, 0, &a, &b, &c, &d);
	if (!(c & CPUID1_ECX_XSAVE))
		return;
	write_cr4(read_cr4() | CR4_OSXSAVE);
	/* CPUID.(EAX=0DH,ECX=0): EDX:EAX the components XCR0 may enable. */
	cpuid(0xd, 0, &a, &b, &c, &d);
	fpu_xfeatures = (((uint64_t)d << 32 | a) & XFEATURES_HANDLED);
	if ((fpu_xfeatures & XCR0_AVX512) != XCR0_AVX512 || !(fpu_xfeatures & XCR0_AVX))
		fpu_xfeatures &= ~XCR0_AVX512;	/* all three or none (§13.3) */
	if (!(fpu_xfeatures & XCR0_SSE))
		fpu_xfeatures &= ~XCR0_AVX;
	xsetbv(0, fpu_xfeatures);
	/* EBX: the size of the standard form for the components XCR0 enables now. */
	cpuid(0xd, 0, &a, &b, &c, &d);
	if (b > FPU_STATE_MAX)
		panic("fpu: XSAVE needs %u bytes for XCR0 0x%lx, the area has %u",
		      b, (unsigned long)fpu_xfeatures, FPU_STATE_MAX);
	fpu_state_size = b;
	cpuid(0xd, 1, &a, &b, &c, &d);
	has_xsaveopt = a & CPUID_D1_EAX_XSAVEOPT;
}

/*
 * The state a program starts with, as Linux's: x87 control word 0x37f
 * (all exceptions masked, 64-bit precision, round to nearest), an empty
 * register stack, MXCSR 0x1f80 (the same for SSE), every register zero.
 * Written, not saved, so no firmware's leftovers come along. In the XSAVE
 * image a zero XSTATE_BV says the same of every component: XRSTOR puts
 * each one in its initial configuration (SDM Vol. 1 §13.8.1), and MXCSR,
 * which belongs to SSE and AVX both, is loaded from the legacy area all
 * the same. The boot CPU runs this after fpu_init.
 */
void fpu_init_state(void)
{
	uint8_t fx[512] __aligned(16);
	uint16_t fcw = 0x37f;
	uint32_t mxcsr = 0x1f80;

	memset(fx, 0, sizeof(fx));
	__asm__ volatile("fxsave64 %0" : "+m"(fx));
	memcpy(&fpu_mxcsr_mask, fx + 28, 4);
	if (!fpu_mxcsr_mask)
		fpu_mxcsr_mask = 0xffbf;	/* 0: a CPU from before DAZ (§11.6.6) */
	memset(fpu_initial_state, 0, sizeof(fpu_initial_state));
	memcpy(fpu_initial_state + 0, &fcw, 2);
	memcpy(fpu_initial_state + 24, &mxcsr, 4);
	memcpy(fpu_initial_state + 28, &fpu_mxcsr_mask, 4);
	fpu_restore(fpu_initial_state);
	if (fpu_xfeatures)
		printk("fpu: XSAVE%s, XCR0 0x%lx (x87 SSE%s%s), %u bytes a thread\n",
		       has_xsaveopt ? "OPT" : "", (unsigned long)fpu_xfeatures,
		       fpu_xfeatures & XCR0_AVX ? " AVX" : "",
		       fpu_xfeatures & XCR0_AVX512 ? " AVX-512" : "", fpu_state_size);
	else
		printk("fpu: FXSAVE (no XSAVE), x87 SSE, 512 bytes a thread\n");
}

/*
 * At a switch and at fork: XSAVEOPT skips what did not change since the
 * last XRSTOR from the same address (SDM Vol. 1 §13.9), which holds here:
 * the scheduler loads each thread from its own area, and whatever else
 * loads the registers while it runs (exec, a signal, rt_sigreturn) either
 * loads them from that area or from another address, which makes
 * XSAVEOPT save in full.
 */
void fpu_save(void *area)
{
	if (!fpu_xfeatures)
		__asm__ volatile("fxsave64 %0" : "+m"(*(uint8_t (*)[512])area));
	else if (has_xsaveopt)
		xsaveopt(area);
	else
		xsave(area);
}

/* A full save, every enabled component written or marked initial: what a signal frame gets. */
void fpu_save_full(void *area)
{
	if (fpu_xfeatures)
		xsave(area);
	else
		__asm__ volatile("fxsave64 %0" : "+m"(*(uint8_t (*)[512])area));
}

/* Load the registers from an area the kernel made or checked: a fault here would be the kernel's. */
void fpu_restore(const void *area)
{
	if (fpu_xfeatures)
		xrstor(area);
	else
		__asm__ volatile("fxrstor64 %0" : : "m"(*(const uint8_t (*)[512])area));
}

/* The registers as a program starts: at exec, and for a signal handler. */
void fpu_reset(void)
{
	fpu_restore(fpu_initial_state);
}

/*
 * The same, and the thread's area too, when it holds an image that must
 * not stay there: XSAVE and XSAVEOPT write only XSTATE_BV's bits for
 * XCR0's components and never the header's bytes 8-63 (SDM Vol. 1
 * §13.7), so a bad bit or XCOMP_BV left in the area would make the
 * XRSTOR of the next switch raise #GP in the kernel.
 */
void fpu_reset_area(void *area)
{
	memcpy(area, fpu_initial_state, fpu_state_size);
	fpu_restore(area);
}

/*
 * arch_prctl's questions about the XSAVE components (Linux 5.16's, made
 * for AMX, whose 8 KB of tile data a process must ask for before its
 * first use): SUPP, the components the kernel supports for user mode,
 * which is XCR0 as fpu_init set it (x87 and SSE without XSAVE); PERM,
 * those this process may use, every one of them here: Linux keeps back
 * only AMX's tile data (component 18), which ccos never enables. The
 * GUEST codes ask the same for a KVM guest, whose permissions start as
 * the process's. A request names one component: Linux grants only 18,
 * where the CPU has it, and answers -EOPNOTSUPP for any other below
 * XFEATURE_MAX (19), as ccos does for all; -EINVAL from 19 up.
 */
#define ARCH_GET_XCOMP_SUPP		0x1021
#define ARCH_GET_XCOMP_PERM		0x1022
#define ARCH_REQ_XCOMP_PERM		0x1023
#define ARCH_GET_XCOMP_GUEST_PERM	0x1024
#define ARCH_REQ_XCOMP_GUEST_PERM	0x1025
#define XFEATURE_MAX			19

long fpu_xstate_prctl(int option, uint64_t arg)
{
	switch (option) {
	case ARCH_GET_XCOMP_SUPP:
	case ARCH_GET_XCOMP_PERM:
	case ARCH_GET_XCOMP_GUEST_PERM:
		return put_user(fpu_xfeatures | XCR0_X87 | XCR0_SSE, (uint64_t __user *)arg);
	case ARCH_REQ_XCOMP_PERM:
	case ARCH_REQ_XCOMP_GUEST_PERM:
		return arg >= XFEATURE_MAX ? -EINVAL : -EOPNOTSUPP;
	}
	return -EINVAL;
}
