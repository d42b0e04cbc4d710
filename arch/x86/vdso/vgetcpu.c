/* The vDSO's getcpu: the CPU and node by one instruction, which the kernel chose at boot (RDTSCP or LSL). */
#include <asm/vgetcpu.h>
#include "vdso_syscall.h"

/*
 * node << 12 | cpu, which the kernel stores once per CPU (IA32_TSC_AUX,
 * and the limit of the PERCPU_SEL segment: arch/x86/include/asm/vgetcpu.h),
 * stored where the caller asked. tcache is unused, as on Linux since 2.6.24.
 */
static inline long store_cpunode(unsigned int *cpu, unsigned int *node, unsigned int p)
{
	if (cpu)
		*cpu = p & VGETCPU_CPU_MASK;
	if (node)
		*node = p >> VGETCPU_CPU_BITS;
	return 0;
}

/*
 * The image's getcpu reads the number with LSL, which every x86-64 CPU
 * has (SDM Vol. 2 LSL: the limit of the descriptor the selector names,
 * at any privilege level since PERCPU_SEL's DPL is 3).
 */
VDSO_EXPORT long __vdso_getcpu(unsigned int *cpu, unsigned int *node, void *tcache)
{
	unsigned int p;

	(void)tcache;
	__asm__ volatile("lsl %1, %0" : "=r"(p) : "r"((unsigned int)PERCPU_SEL) : "cc");
	return store_cpunode(cpu, node, p);
}
long getcpu(unsigned int *, unsigned int *, void *)
	VDSO_EXPORT __attribute__((weak, alias("__vdso_getcpu")));

/*
 * Where the CPU has RDTSCP (SDM Vol. 2 RDTSCP: ecx = IA32_TSC_AUX[31:0]),
 * vdso_init (arch/x86/vdso/vdso.c) copies this function over the one
 * above at boot, before any process maps the image: the choice is made
 * once, as Linux's alternatives make it (apply_alternatives on its
 * vDSO), not by loading and testing vvar's vgetcpu_mode on every call,
 * and RDTSCP needs no selector loaded first. It is shorter, and it must
 * run wherever it is copied: the build checks that it has no operand
 * relative to rip and no call or jump out of itself (tools/vdsocheck
 * --movable).
 */
__attribute__((used)) long vdso_getcpu_rdtscp(unsigned int *cpu, unsigned int *node, void *tcache)
{
	unsigned int p;

	(void)tcache;
	__asm__ volatile("rdtscp" : "=c"(p) : : "eax", "edx");
	return store_cpunode(cpu, node, p);
}
