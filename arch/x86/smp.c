/* Starting the other CPUs: the MADT's list, the trampoline below 1 MiB, INIT-SIPI-SIPI, and each CPU's own setup. */
#include <asm/lapic.h>
#include <asm/acpi.h>
#include <ccos/mm.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/printk.h>
#include <ccos/lib.h>
#include <ccos/time.h>
#include <asm/vgetcpu.h>
#include <asm/vsyscall.h>
#include <asm/vvar.h>
#include <asm/tlb.h>
#include <asm/trap.h>
#include <asm/x86.h>
#include <ccos/spinlock.h>

struct percpu cpus[MAX_CPUS];
const uint64_t percpu_stride = sizeof(struct percpu);	/* paranoid_entry's (trap_entry.asm) */
int nr_cpus = 1;
bool lapic_ready;
static bool aps_released;	/* smp_start_aps: the APs may enter the scheduler */

/* For the CPU being started: which one it is, and its stack (boot/entry.asm). */
static int ap_booting;
uint64_t ap_boot_rsp;

extern const uint8_t trampoline_start[], trampoline_gdt[], trampoline_end[];
extern uint32_t trampoline_gdtr_base[];

/*
 * The kernel's GS base: this CPU's block, where GS:0 points to itself
 * (this_cpu). IA32_KERNEL_GS_BASE holds the user's while the kernel runs;
 * swapgs exchanges the two (trap_entry.asm). First on every CPU, since
 * spinlocks (printk's among them) ask which CPU they run on.
 */
void percpu_init(int cpu)
{
	cpus[cpu].self = &cpus[cpu];
	cpus[cpu].cpu = cpu;
	wrmsr(MSR_GS_BASE, (uint64_t)&cpus[cpu]);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
}

/*
 * Each CPU reads back its getcpu values the way user mode will (rdtscp,
 * lsl), for the ktest to compare with its number (arch/x86/smp_test.c).
 */
static void getcpu_self_check(struct percpu *c)
{
	c->getcpu_lsl = vgetcpu_read(VGETCPU_LSL);
	c->getcpu_rdtscp = vvar.vgetcpu_mode == VGETCPU_RDTSCP ? vgetcpu_read(VGETCPU_RDTSCP) : ~0u;
}

/* A reschedule IPI: a process became runnable for this CPU, or it must look again (sched_wake). */
static void reschedule_interrupt(struct trap_frame *tf)
{
	(void)tf;
	lapic_eoi();
	this_cpu()->need_resched = true;
}

void smp_send_reschedule(int cpu)
{
	lapic_send_ipi(cpus[cpu].apic_id, RESCHEDULE_VECTOR);
}

/*
 * An application processor, on its own stack and the kernel's page tables
 * (boot/entry.asm): the per-CPU state that the boot CPU set up in kmain,
 * in the same order. Then it waits, halted with interrupts on, until
 * kmain has made the kernel's read-only-after-init pages read-only
 * (smp_start_aps); it drops whatever its TLB cached of them while they
 * were writable, starts its tick and enters the scheduler.
 */
__noreturn void ap_main(void)
{
	int cpu = ap_booting;
	struct percpu *c = &cpus[cpu];

	percpu_init(cpu);
	paging_init_ap();
	gdt_init(cpu);
	idt_load();
	syscall_init();
	fsgsbase_init();
	fpu_init();		/* with the boot CPU's XCR0 */
	lapic_setup_cpu();
	vsyscall_set_cpu(cpu, 0);
	getcpu_self_check(c);
	c->pml4 = kernel_pml4;
	c->outside_lock = true;	/* halted, interrupts on, no kernel lock */
	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&aps_released, __ATOMIC_ACQUIRE))
		safe_halt();
	cli();
	c->outside_lock = false;
	write_cr3(read_cr3());	/* no global pages: this flushes the whole TLB */
	lapic_timer_start();
	lock_kernel();
	scheduler();
}

/* After mark_ro_after_init: release the APs into the scheduler. */
void smp_start_aps(void)
{
	int i;

	__atomic_store_n(&aps_released, true, __ATOMIC_RELEASE);
	for (i = 1; i < nr_cpus; i++)
		smp_send_reschedule(i);
}

/*
 * How long the BSP waits for an AP to say it is up, after INIT-SIPI-SIPI:
 * Linux waits 10 s for a CPU's first sign of life (do_boot_cpu), because
 * under a hypervisor on a busy host a virtual CPU may not run for a long
 * time; a real CPU answers in microseconds.
 */
#define AP_START_WAIT_MS 10000

/* Start CPU cpu at APIC id apic_id from the trampoline page; wait for it. */
static bool start_cpu(int cpu, uint32_t apic_id)
{
	struct percpu *c = &cpus[cpu];
	int ms;

	c->apic_id = apic_id;
	ap_booting = cpu;
	ap_boot_rsp = (uint64_t)kernel_stacks[cpu][0].top;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* all of it before the IPI */
	if (!lapic_start_cpu(apic_id, trampoline_frame >> 12))
		return false;
	for (ms = 0; ms < AP_START_WAIT_MS; ms++) {
		if (__atomic_load_n(&c->online, __ATOMIC_ACQUIRE))
			return true;
		udelay(1000);
	}
	return false;
}

/*
 * The trampoline's copy: the code uses CS-relative addresses, but the
 * base of its GDT, which lgdt reads, is linear, so it is set here.
 */
static void copy_trampoline(void)
{
	uint8_t *page = phys_to_virt(trampoline_frame);
	size_t gdt_off = trampoline_gdt - trampoline_start;
	size_t base_off = (const uint8_t *)trampoline_gdtr_base - trampoline_start;
	uint32_t gdt_phys = trampoline_frame + gdt_off;

	BUILD_BUG_ON(PAGE_SIZE < 256);
	if (trampoline_end - trampoline_start > (long)PAGE_SIZE)
		panic("smp: the trampoline is %ld bytes, more than a page",
		      (long)(trampoline_end - trampoline_start));
	memcpy(page, trampoline_start, trampoline_end - trampoline_start);
	memcpy(page + base_off, &gdt_phys, 4);
}

static void print_cpus(void)
{
	char ids[MAX_CPUS * 4 + 1] = "";
	int i, len = 0;

	for (i = 0; i < nr_cpus; i++)
		len += snprintf(ids + len, sizeof(ids) - len, " %u", cpus[i].apic_id);
	printk("smp: %d CPU%s up, APIC ids%s (%s); processes run on every CPU\n",
	       nr_cpus, nr_cpus == 1 ? "" : "s", ids, x2apic ? "x2APIC" : "xAPIC");
}

/*
 * After kmain set up CPU 0, before mark_ro_after_init: each CPU writes its
 * GDT (the TSS busy bit, its getcpu limit), which is read-only after.
 */
void smp_init(void)
{
	uint32_t bsp;
	int i, n;

	cpus[0].online = true;
	cpus[0].pml4 = kernel_pml4;
	getcpu_self_check(&cpus[0]);
	idt_set_handler(RESCHEDULE_VECTOR, reschedule_interrupt);
	tlb_init();
	if (!lapic_ready)
		goto out;
	bsp = cpus[0].apic_id = lapic_id();
	if (acpi_info.n_cpus > MAX_CPUS)
		printk(KERN_WARNING "smp: the MADT lists %d CPUs; ccos starts the first %d\n",
		       acpi_info.n_cpus, MAX_CPUS);
	n = MIN(acpi_info.n_cpus, MAX_CPUS);
	if (n > 1 && !trampoline_frame) {
		printk(KERN_WARNING "smp: no free page below 1 MiB for the trampoline; the other CPUs stay off\n");
		goto out;
	}
	if (n > 1)
		copy_trampoline();
	for (i = 0; i < n; i++) {
		uint32_t id = acpi_info.cpu_apic_ids[i];

		if (id == bsp)
			continue;
		if (nr_cpus == MAX_CPUS)
			break;
		if (!start_cpu(nr_cpus, id)) {
			/* It may still come up later, on this stack: start no other. */
			printk(KERN_WARNING "smp: the CPU with APIC id %u did not start within %d s\n",
			       id, AP_START_WAIT_MS / 1000);
			while (++i < n)
				if (acpi_info.cpu_apic_ids[i] != bsp)
					printk(KERN_WARNING "smp: the CPU with APIC id %u is not started either\n",
					       acpi_info.cpu_apic_ids[i]);
			break;
		}
		nr_cpus++;
	}
out:
	print_cpus();
}
