/* getcpu pinned to each CPU in turn: the system call, the vsyscall page, the vDSO and the instruction agree. */
#include "vsyscalltest.h"
#include "vdsoutil.h"
#include "vdso.h"

/* What the instruction the kernel chose reads: TSC_AUX (rdtscp) or the per-CPU segment limit (lsl). */
static unsigned int instruction_says(void)
{
	unsigned int p;

	if (vvar_vgetcpu_mode() == VGETCPU_RDTSCP)
		__asm__ volatile("rdtscp" : "=c"(p) : : "eax", "edx");
	else
		__asm__ volatile("lsl %1, %0" : "=r"(p) : "r"(PERCPU_SEL));
	return p & 0xfff;
}

/* Pinned to CPU n: every path must say n, node 0. */
static int check_cpu(unsigned int n)
{
	unsigned long one = 1ul << n;
	unsigned int cpu[3] = { ~0u, ~0u, ~0u }, node[3] = { ~0u, ~0u, ~0u }, i;
	static const char *const path[] = { "system call", "vsyscall page", "vDSO" };

	if (sched_setaffinity(0, sizeof(one), &one))
		return ktap_fail("sched_setaffinity to CPU %u failed", n);
	getcpu(&cpu[0], &node[0], NULL);
	vgetcpu(&cpu[1], &node[1], NULL);
	v_getcpu(&cpu[2], &node[2], NULL);
	for (i = 0; i < 3; i++)
		if (cpu[i] != n || node[i] != 0)
			return ktap_fail("pinned to CPU %u, the %s says cpu %u node %u", n, path[i],
					 cpu[i], node[i]);
	if (instruction_says() != n)
		return ktap_fail("pinned to CPU %u, %s says %u", n,
				 vvar_vgetcpu_mode() == VGETCPU_RDTSCP ? "rdtscp" : "lsl",
				 instruction_says());
	return 1;
}

int test_getcpu_pinned(void)
{
	unsigned long all = 0;
	unsigned int n, count = 0;
	int ok = 1;

	/* Labs 0 to 5: the lookup (user/lib/vdso.c) is still lab 6's stub. */
	if (!vdso_sym("LINUX_2.6", "__vdso_getcpu"))
		return skip("the vDSO's getcpu is not found by name (user/lib/vdso.c, lab 6)");
	if (!find_vdso())
		return 0;
	if (sched_getaffinity(0, sizeof(all), &all) != sizeof(all))
		return ktap_fail("sched_getaffinity failed");
	for (n = 0; n < 64 && ok; n++)
		if (all & (1ul << n)) {
			ok = check_cpu(n);
			count++;
		}
	sched_setaffinity(0, sizeof(all), &all);
	if (ok)
		ktap_diag("getcpu pinned: %u CPUs, each one read through all four paths (%s)", count,
			  vvar_vgetcpu_mode() == VGETCPU_RDTSCP ? "rdtscp" : "lsl");
	return ok;
}
