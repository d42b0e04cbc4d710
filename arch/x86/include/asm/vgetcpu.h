/*
 * How getcpu learns the CPU and node it runs on, without a system call.
 * Shared by the kernel (sys_getcpu) and the native vsyscall page, so that
 * both always give the same answer: this header calls nothing of the
 * kernel's, it only runs rdtscp or lsl.
 */
#ifndef CCOS_VGETCPU_H
#define CCOS_VGETCPU_H

#include <ccos/types.h>
#include <asm/trap.h>

/*
 * vvar.vgetcpu_mode: which instruction reads the number (Linux's values).
 * Both read the same 32-bit word, node << 12 | cpu, which the kernel
 * stores once per CPU (arch/x86/vsyscall/vsyscall.c).
 */
#define VGETCPU_RDTSCP	1	/* rdtscp returns MSR IA32_TSC_AUX in ecx */
#define VGETCPU_LSL	2	/* lsl returns the limit of the PERCPU_SEL segment */

#define VGETCPU_CPU_BITS	12
#define VGETCPU_CPU_MASK	0xfffu

/* getcpu's third argument: a per-thread cache that the native page keeps. */
struct getcpu_cache {
	unsigned long blob[128 / sizeof(long)];
};

static inline unsigned int vgetcpu_read(int mode)
{
	unsigned int p;

	if (mode == VGETCPU_RDTSCP) {
		/* SDM Vol. 2 RDTSCP: EDX:EAX = TSC, ECX = IA32_TSC_AUX[31:0]. */
		__asm__ volatile("rdtscp" : "=c"(p) : : "eax", "edx");
	} else {
		/*
		 * SDM Vol. 2 LSL: loads the segment limit of the descriptor that
		 * the selector names (byte granular here, G = 0). It works at
		 * CPL 3 because PERCPU_SEL's DPL is 3.
		 */
		__asm__ volatile("lsl %1, %0" : "=r"(p) : "r"((unsigned int)PERCPU_SEL));
	}
	return p;
}

#endif
