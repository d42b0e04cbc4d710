/* The vDSO's getcpu: the CPU and node from RDTSCP or LSL, else a system call. */
#include <ccos/vvar.h>
#include <ccos/vdso.h>
#include <ccos/mm.h>
#include "vdso_syscall.h"

#define vvar	((const struct vvar_page *)VVAR_ADDRESS)

/*
 * RDTSCP loads ecx with the TSC_AUX MSR, which the kernel sets to
 * node << 12 | cpu (and the TSC into edx:eax, unused here).
 */
static unsigned int rdtscp_aux(void)
{
	unsigned int lo, hi, aux;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	return aux;
}

/*
 * LSL loads the segment limit of a descriptor that ring 3 may see, here
 * the per-CPU data segment whose limit the kernel set to node << 12 | cpu.
 * It sets ZF when the selector was valid; if not, the kernel is asked.
 */
static bool lsl_percpu(unsigned int *p)
{
	unsigned int limit;
	bool ok;

	__asm__ volatile("lsl %2, %0" "\n\t" "setz %1"
			 : "=r"(limit), "=q"(ok) : "r"(VDSO_PERCPU_SEL) : "cc");
	*p = limit;
	return ok;
}

/* tcache is unused, as on Linux since 2.6.24. */
VDSO_EXPORT long __vdso_getcpu(unsigned int *cpu, unsigned int *node, void *tcache)
{
	unsigned int p;

	if (READ_ONCE(vvar->vgetcpu_mode) == VGETCPU_RDTSCP)
		p = rdtscp_aux();
	else if (!lsl_percpu(&p))
		return vdso_syscall3(__NR_getcpu, (long)cpu, (long)node, (long)tcache);
	if (cpu)
		*cpu = p & VGETCPU_CPU_MASK;
	if (node)
		*node = p >> 12;
	return 0;
}
long getcpu(unsigned int *, unsigned int *, void *)
	VDSO_EXPORT __attribute__((weak, alias("__vdso_getcpu")));
