/* Tests of the CPUs' start: every CPU of the MADT up, its per-CPU data and its getcpu values. */
#include <ccos/ktest.h>
#include <asm/lapic.h>
#include <asm/acpi.h>
#include <ccos/mm.h>
#include <ccos/proc.h>
#include <ccos/time.h>
#include <asm/vgetcpu.h>
#include <asm/vvar.h>
#include <asm/x86.h>

/* Every enabled local APIC of the MADT (up to MAX_CPUS) is a CPU that is up, each with its own id. */
KTEST(smp_every_madt_cpu_is_up)
{
	int i, j;

	if (!acpi_info.n_cpus) {
		ktest_skip("no MADT: no list of CPUs to start");
		return;
	}
	KEXPECT_EQ(nr_cpus, MIN(acpi_info.n_cpus, MAX_CPUS));
	for (i = 0; i < nr_cpus; i++) {
		KEXPECT(cpus[i].online);
		KEXPECT(cpus[i].self == &cpus[i]);
		KEXPECT_EQ(cpus[i].cpu, i);
		for (j = 0; j < i; j++)
			if (cpus[j].apic_id == cpus[i].apic_id)
				ktest_fail(__FILE__, __LINE__, "CPUs %d and %d both have APIC id %u",
					   j, i, cpus[i].apic_id);
	}
	for (; i < MAX_CPUS; i++)
		KEXPECT(!cpus[i].online);
	/* The ktests run on CPU 0, the boot CPU, whose GS base is cpus[0]. */
	KEXPECT(this_cpu() == &cpus[0]);
	KEXPECT_EQ(rdmsr(MSR_GS_BASE), (uint64_t)&cpus[0]);
	if (nr_cpus > 1)	/* the local APIC is mapped */
		KEXPECT_EQ(lapic_id(), cpus[0].apic_id);
}

/*
 * Each CPU read back node << 12 | cpu, node 0, through lsl of its own GDT
 * and, where the CPU has it, rdtscp of its own IA32_TSC_AUX, after
 * setting them (smp.c's getcpu_self_check). CPU 0 reads its own again now.
 */
KTEST(smp_getcpu_on_every_cpu)
{
	bool rdtscp = vvar.vgetcpu_mode == VGETCPU_RDTSCP;
	int i;

	for (i = 0; i < nr_cpus; i++) {
		if (cpus[i].getcpu_lsl != (uint32_t)i)
			ktest_fail(__FILE__, __LINE__, "CPU %d: lsl of PERCPU_SEL gave %#x, expected %#x",
				   i, cpus[i].getcpu_lsl, i);
		if (rdtscp && cpus[i].getcpu_rdtscp != (uint32_t)i)
			ktest_fail(__FILE__, __LINE__, "CPU %d: rdtscp gave TSC_AUX %#x, expected %#x",
				   i, cpus[i].getcpu_rdtscp, i);
		if (!rdtscp && cpus[i].getcpu_rdtscp != ~0u)
			ktest_fail(__FILE__, __LINE__, "CPU %d: no RDTSCP, yet a TSC_AUX value %#x",
				   i, cpus[i].getcpu_rdtscp);
	}
	KEXPECT_EQ(vgetcpu_read(VGETCPU_LSL), 0);
	if (rdtscp)
		KEXPECT_EQ(vgetcpu_read(VGETCPU_RDTSCP), 0);
}

/* Every CPU's stacks lie above unmapped guard pages, as the boot CPU's do (stacks_test.c). */
KTEST(smp_every_cpu_stack_has_a_guard)
{
	int cpu, i;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		for (i = 0; i < NR_FIXED_STACKS; i++) {
			const struct kernel_stack *s = &kernel_stacks[cpu][i];

			if (walk_pte(kernel_pml4, (uint64_t)s->guard))
				ktest_fail(__FILE__, __LINE__, "CPU %d: the guard page of its %s stack is mapped",
					   cpu, s->name);
			KEXPECT(walk_pte(kernel_pml4, (uint64_t)s->top - PAGE_SIZE) != NULL);
		}
	}
}
