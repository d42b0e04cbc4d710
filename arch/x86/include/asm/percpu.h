/* Per-CPU data, through the GS base: struct percpu, this_cpu(), current(). */
#ifndef CCOS_ASM_PERCPU_H
#define CCOS_ASM_PERCPU_H

#include <ccos/types.h>
#include <ccos/sched.h>

struct process;

#define MAX_CPUS	8

/*
 * Per-CPU data, found through the GS base in the kernel (swapgs; see
 * arch/x86/entry/trap_entry.asm). cpus[n] is CPU n's, n being its number in
 * the MADT's order, the boot CPU first (arch/x86/smp.c).
 */
struct percpu {
	struct percpu *self;
	uint64_t kernel_rsp;		/* loaded by the SYSCALL entry */
	uint64_t user_rsp;		/* the user's rsp, saved there */
	struct process *current;
	int cpu;
	uint32_t apic_id;
	/* What this CPU read back after setting its getcpu values (smp.c). */
	uint32_t getcpu_lsl, getcpu_rdtscp;
	volatile bool online;
	/* Spinlocks (kernel/locking/spinlock.c): interrupts-off nesting, locks held. */
	int irq_off_depth;
	bool irq_was_on;
	int locks_held;
	/* The scheduler (kernel/sched/sched.c). */
	uint64_t scheduler_context;	/* its saved rsp while a process runs */
	bool need_resched;		/* set by the tick: yield on the way to user mode */
	bool idle;			/* halted in the idle loop: a wakeup sends an IPI */
	bool outside_lock;		/* halted without the kernel lock: an interrupt takes it */
	bool wake_here;			/* the waker exits: whom it wakes may run here */
	int last_run;			/* index in proc_table of the last one run */
	uint64_t pml4;			/* the address space in CR3 (arch/x86/tlb.c) */
	/* Counts for /proc/smpstat (fs/procfs.c). */
	uint64_t klock_taken, klock_waited, klock_wait_cycles;
	uint64_t switches, halts, shootdowns, shootdown_cycles;
	struct cputime time;		/* the threads' time here (/proc/stat), */
	uint64_t idle_time;		/* and the idle loop's, ns */
} __aligned(4096);

extern struct percpu cpus[MAX_CPUS];
void percpu_init(int cpu);	/* GS base = &cpus[cpu]: first thing on each CPU */

/* The running CPU's block: GS:0 holds its address (percpu.self). */
static inline struct percpu *this_cpu(void)
{
	struct percpu *c;

	__asm__ volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

/*
 * One GS-relative load, as the old global's was: every system call asks.
 * Not volatile: a process is itself wherever it runs, so the compiler may
 * reuse the value, even across a switch to another CPU (this_cpu may not).
 */
static inline struct process *current(void)
{
	struct process *p;

	__asm__("movq %%gs:%c1, %0" : "=r"(p) : "i"(offsetof(struct percpu, current)));
	return p;
}

#endif
