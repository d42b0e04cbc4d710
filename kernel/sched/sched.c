/* The scheduler: every CPU picks round robin from the one process table, preempted by its own tick; sched_yield, affinity. */
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/syscall.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/mm.h>
#include <ccos/time.h>
#include <asm/arch.h>
#include <ccos/spinlock.h>

/*
 * The kernel is not preemptible: it runs with interrupts off, except in
 * the idle loop below. A process gives the CPU up by calling schedule() (to
 * sleep, to exit, or when the tick asked for it on the way back to user
 * mode); schedule() switches to its CPU's scheduler context, which picks
 * the next runnable process that may run on this CPU, in table order, and
 * switches to it.
 *
 * One shared run queue: the process table itself, under the kernel lock,
 * which the scheduler holds from its pick through the switch (the process
 * gives it up on its way to user mode). A process that runs on one CPU is
 * RUNNING, so no other CPU picks it; one that yields becomes RUNNABLE for
 * any CPU its mask allows, so processes move to idle CPUs by themselves.
 */
static void run(struct process *p)
{
	struct percpu *c = this_cpu();

	p->state = PROC_RUNNING;
	p->cpu = c->cpu;
	c->current = p;
	c->kernel_rsp = p->kstack + KSTACK_SIZE;
	tss_set_rsp0(p->kstack + KSTACK_SIZE);
	switch_address_space(p->mm->pml4);
	fsgs_load(p);
	tsc_access_load(p);
	fpu_restore(p->fpu);
	c->switches++;
	p->ran_since = ktime_get_ns();
	switch_to(&c->scheduler_context, p->context);
	account_runtime(p);
	fpu_save(p->fpu);
	fsgs_save(p);
	this_cpu()->current = NULL;
	if (p->state == PROC_DEAD)
		proc_free(p);	/* a thread that ended, now off its kernel stack */
}

/*
 * A process became runnable: if a CPU that may run it is halted in its
 * idle loop, wake it with an IPI rather than leave it to its next tick.
 * Not when the waker is exiting (a child waking its parent) and p may run
 * here: this CPU is about to be free, and an IPI would only move p to
 * another CPU, while this one halts (/proc/smpstat counted both).
 */
void sched_wake(struct process *p)
{
	struct percpu *c = this_cpu();
	int i;

	assert_kernel_locked();
	p->state = PROC_RUNNABLE;
	if (c->wake_here && (p->cpus_allowed & (1ul << c->cpu)))
		return;
	for (i = 0; i < nr_cpus; i++) {
		if (READ_ONCE(cpus[i].idle) && (p->cpus_allowed & (1ul << i))) {
			cpus[i].idle = false;
			smp_send_reschedule(i);
			return;
		}
	}
}

/*
 * Run the timers whose time has come; wake the sleepers whose time has.
 * ran is the process this CPU just switched from (NULL after a halt):
 * the CPU-time timers are its (timers_run).
 */
static void wake_sleepers(uint64_t now, struct process *ran)
{
	struct process *p;

	timers_run(now, ran);
	for (p = proc_table; p < proc_table + NPROC; p++)
		if (p->state == PROC_SLEEPING && p->wake_at_ns && now >= p->wake_at_ns)
			sched_wake(p);
}

/* The next process this CPU may run, after the one it ran last; NULL if none. */
static struct process *pick(struct percpu *c)
{
	uint64_t me = 1ul << c->cpu;
	int i;

	for (i = 1; i <= NPROC; i++) {
		struct process *p = &proc_table[(c->last_run + i) % NPROC];

		if (p->state == PROC_RUNNABLE && (p->cpus_allowed & me)) {
			c->last_run = p - proc_table;
			return p;
		}
	}
	return NULL;
}

/* Entered with the kernel lock held (kmain's, ap_main's), which it keeps but while halted. */
void scheduler(void)
{
	struct percpu *c = this_cpu();
	struct process *ran = NULL;

	cli();
	assert_kernel_locked();
	for (;;) {
		struct process *p;

		wake_sleepers(ktime_get_ns(), ran);
		ran = NULL;
		p = pick(c);
		if (p) {
			c->need_resched = false;
			run(p);
			ran = p;
			continue;
		}
		/*
		 * Nothing to run: wait for an interrupt with them enabled, the
		 * kernel lock and the last address space let go. A wakeup meant
		 * for this CPU while it halts comes as an IPI (sched_wake).
		 */
		switch_address_space(kernel_pml4);
		c->idle = true;
		c->halts++;
		c->outside_lock = true;
		unlock_kernel();
		safe_halt();
		cli();
		lock_kernel();
		c->outside_lock = false;
		c->idle = false;
	}
}

/* Give the CPU to the scheduler; come back here when picked again, maybe on another CPU. */
void schedule(void)
{
	lockdebug_check_switch();
	switch_to(&current()->context, this_cpu()->scheduler_context);
}

void yield(void)
{
	current()->state = PROC_RUNNABLE;
	schedule();
}

static void sleep(const void *chan, uint64_t wake_at_ns)
{
	struct process *p = current();

	p->wait_chan = chan;
	p->wake_at_ns = wake_at_ns;
	p->state = PROC_SLEEPING;
	schedule();
	p->wait_chan = NULL;
	p->wake_at_ns = 0;
}

/*
 * Sleeps are interruptible: a pending signal ends them (send_signal wakes
 * a sleeper), and one already pending keeps the process from sleeping at
 * all. With several CPUs that case is real: a signal sent while the
 * process ran in user mode on another CPU is still pending when its next
 * system call sleeps. Every caller loops: it looks at what it waits for,
 * and only when that is not there at signal_pending, before it sleeps
 * again, as Linux's wait_event_interruptible; so a condition met and a
 * signal that come together give the call's answer, not -EINTR.
 */
void sleep_until(const void *chan, uint64_t wake_at_ns)
{
	if (!signal_pending(current()))
		sleep(chan, wake_at_ns);
}

void sleep_on(const void *chan)
{
	sleep_until(chan, 0);
}

/* Only a signal that will kill the process ends this one (Linux's TASK_KILLABLE): vfork's wait. */
void sleep_on_killable(const void *chan)
{
	if (!fatal_signal_pending(current()))
		sleep(chan, 0);
}

/* A signal for p, running on another CPU: an IPI makes it enter the kernel, where it sees it. */
void sched_kick(struct process *p)
{
	if (p->state == PROC_RUNNING && p->cpu != this_cpu()->cpu)
		smp_send_reschedule(p->cpu);
}

void wakeup(const void *chan)
{
	struct process *p;

	assert_kernel_locked();
	for (p = proc_table; p < proc_table + NPROC; p++)
		if (p->state == PROC_SLEEPING && p->wait_chan == chan)
			sched_wake(p);
}

/* From each CPU's tick: the tick's time charged; a process that used up its tick yields on its way out. */
void sched_tick(struct trap_frame *tf)
{
	account_tick(tf);
	if (user_mode(tf) && current())
		this_cpu()->need_resched = true;
}

long sys_sched_yield(void)
{
	yield();
	return 0;
}

/*
 * CPU masks as Linux's: bit n is CPU n, in longs; the kernel's is one long
 * (MAX_CPUS <= 64), so a buffer for it is 8 bytes. getaffinity answers the
 * CPUs the process may run on that are online, and the mask's size.
 */
static uint64_t online_cpus(void)
{
	return (1ul << nr_cpus) - 1;
}

long sys_sched_getaffinity(int pid, unsigned int len, void __user *mask)
{
	struct process *p = pid ? proc_find(pid) : current();
	uint64_t m;

	if (len < sizeof(m) || len % sizeof(long))
		return -EINVAL;
	if (!p)
		return -ESRCH;
	m = p->cpus_allowed & online_cpus();
	if (copy_to_user(mask, &m, sizeof(m)))
		return -EFAULT;
	return sizeof(m);
}

/*
 * A shorter mask is taken as zeros beyond its end, a longer one is cut to
 * the kernel's (Linux's get_user_cpu_mask); one with no online CPU is
 * EINVAL. A process no longer allowed where it runs moves at once: the
 * caller yields to a CPU it may run on; another is sent an IPI, and moves
 * on its way back to user mode.
 */
long sys_sched_setaffinity(int pid, unsigned int len, const void __user *mask)
{
	struct process *p;
	uint64_t m = 0;

	if (copy_from_user(&m, mask, MIN(len, sizeof(m))))
		return -EFAULT;
	p = pid ? proc_find(pid) : current();
	if (!p)
		return -ESRCH;
	if (!(m & online_cpus()))
		return -EINVAL;
	p->cpus_allowed = m;
	if (p->state != PROC_RUNNING || (m & (1ul << p->cpu)))
		return 0;
	if (p == current()) {
		sched_wake(p);
		schedule();
	} else {
		sched_kick(p);
	}
	return 0;
}
