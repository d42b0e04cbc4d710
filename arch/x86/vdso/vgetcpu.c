/* The vDSO's getcpu: the CPU and node through the shared reader (RDTSCP or LSL), else a system call. */
#include <asm/vvar.h>
#include <asm/vgetcpu.h>
#include <ccos/mm.h>
#include "vdso_syscall.h"

#define vvar	((const struct vvar_page *)VVAR_ADDRESS)

/*
 * arch/x86/include/asm/vgetcpu.h reads node << 12 | cpu with the instruction the
 * kernel chose at boot (vvar's vgetcpu_mode), the same reader that
 * sys_getcpu and the native vsyscall page use. Before the kernel has
 * chosen (mode 0), only the kernel knows. tcache is unused, as on Linux
 * since 2.6.24.
 */
VDSO_EXPORT long __vdso_getcpu(unsigned int *cpu, unsigned int *node, void *tcache)
{
	int mode = READ_ONCE(vvar->vgetcpu_mode);
	unsigned int p;

	if (mode != VGETCPU_RDTSCP && mode != VGETCPU_LSL)
		return vdso_syscall3(__NR_getcpu, (long)cpu, (long)node, (long)tcache);
	p = vgetcpu_read(mode);
	if (cpu)
		*cpu = p & VGETCPU_CPU_MASK;
	if (node)
		*node = p >> VGETCPU_CPU_BITS;
	return 0;
}
long getcpu(unsigned int *, unsigned int *, void *)
	VDSO_EXPORT __attribute__((weak, alias("__vdso_getcpu")));
