/* The scheduler: round robin over the process table, preempted by the timer tick. */
#include <ccos/proc.h>
#include <ccos/printk.h>
#include <ccos/mm.h>
#include <ccos/time.h>
#include <ccos/spinlock.h>
#include <ccos/x86.h>

/*
 * The kernel is not preemptible: it runs with interrupts off, except in
 * the idle loop below. A process gives the CPU up by calling schedule() (to
 * sleep, to exit, or when the tick asked for it on the way back to user
 * mode); schedule() switches to the scheduler's own context, which picks the
 * next runnable process in table order and switches to it.
 */
static uint64_t scheduler_context;
bool need_resched;

static void run(struct process *p)
{
	p->state = PROC_RUNNING;
	this_cpu()->current = p;
	this_cpu()->kernel_rsp = p->kstack + KSTACK_SIZE;
	tss_set_rsp0(p->kstack + KSTACK_SIZE);
	switch_address_space(p->mm->pml4);
	wrmsr(MSR_FS_BASE, p->fs_base);
	wrmsr(MSR_KERNEL_GS_BASE, p->gs_base);	/* the user's GS, after swapgs */
	__asm__ volatile("fxrstor64 %0" : : "m"(p->fpu));
	switch_to(&scheduler_context, p->context);
	__asm__ volatile("fxsave64 %0" : "=m"(p->fpu));
	this_cpu()->current = NULL;
	if (p->state == PROC_DEAD)
		proc_free(p);	/* a thread that ended, now off its kernel stack */
}

/* Wake the sleepers whose time has come; send SIGALRM to those whose alarm has. */
static void wake_sleepers(uint64_t now)
{
	struct process *p;

	for (p = proc_table; p < proc_table + NPROC; p++) {
		if (p->alarm_at_ns && now >= p->alarm_at_ns && p->state != PROC_ZOMBIE) {
			p->alarm_at_ns = 0;
			send_signal(p, SIGALRM, NULL);
		}
		if (p->state == PROC_SLEEPING && p->wake_at_ns && now >= p->wake_at_ns)
			p->state = PROC_RUNNABLE;
	}
}

void scheduler(void)
{
	struct process *p = proc_table;

	cli();
	lock_kernel();
	for (;;) {
		int i;

		wake_sleepers(ktime_get_ns());
		for (i = 0; i < NPROC; i++) {
			p = p + 1 < proc_table + NPROC ? p + 1 : proc_table;
			if (p->state == PROC_RUNNABLE)
				break;
		}
		if (i < NPROC) {
			need_resched = false;
			run(p);
			continue;
		}
		/* Nothing to run: wait for an interrupt with them enabled. */
		switch_address_space(kernel_pml4);
		unlock_kernel();
		safe_halt();
		cli();
		lock_kernel();
	}
}

/* Give the CPU to the scheduler; come back here when picked again. */
void schedule(void)
{
	lockdebug_check_switch();
	switch_to(&current()->context, scheduler_context);
}

void yield(void)
{
	current()->state = PROC_RUNNABLE;
	schedule();
}

void sleep_until(const void *chan, uint64_t wake_at_ns)
{
	struct process *p = current();

	p->wait_chan = chan;
	p->wake_at_ns = wake_at_ns;
	p->state = PROC_SLEEPING;
	schedule();
	p->wait_chan = NULL;
	p->wake_at_ns = 0;
}

void sleep_on(const void *chan)
{
	sleep_until(chan, 0);
}

void wakeup(const void *chan)
{
	struct process *p;

	for (p = proc_table; p < proc_table + NPROC; p++)
		if (p->state == PROC_SLEEPING && p->wait_chan == chan)
			p->state = PROC_RUNNABLE;
}

/* From the timer interrupt: a process that used up its tick yields on its way out. */
void sched_tick(struct trap_frame *tf)
{
	if (user_mode(tf) && current())
		need_resched = true;
}

/* The slow part of return_to_user (include/ccos/proc.h): a reschedule, or signal work. */
void return_to_user_work(struct trap_frame *tf)
{
	lock_kernel();
	if (need_resched)
		yield();
	deliver_signals(tf);
	unlock_kernel();
}
