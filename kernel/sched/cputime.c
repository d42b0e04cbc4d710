/* CPU time: the tick charges it to a thread; getrusage and times report it; wait hands it to the parent. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/time.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>

/*
 * Linux's tick accounting (without VIRT_CPU_ACCOUNTING): each CPU's tick
 * charges a whole tick to what it interrupted, and the CS the interrupt
 * saved says what that was. RPL 3: user mode, the thread's user time.
 * RPL 0 with a thread current: the kernel at work for it, system time.
 * No thread: the idle loop. A sample, not a measure: a thread that runs
 * only between ticks is charged nothing, one the tick happens to find a
 * whole tick; over many ticks the sums come right. ccos's kernel runs
 * with interrupts off but in its irq_windows (long unmaps and copies),
 * so its system time is what the tick finds there: little.
 * Only this CPU's tick writes the time of the thread it runs, and a
 * thread runs on one CPU at a time: no lock.
 */
void account_tick(const struct trap_frame *tf)
{
	struct percpu *c = this_cpu();
	struct process *p = c->current;

	if (!p) {
		c->idle_time += tick_nsec;
	} else if (user_mode(tf)) {
		p->time.user += tick_nsec;
		c->time.user += tick_nsec;
	} else {
		p->time.sys += tick_nsec;
		c->time.sys += tick_nsec;
	}
}

/*
 * The runtime is measured, not sampled: the scheduler notes the time a
 * thread begins to run (ran_since) and adds what it ran when it switches
 * away, as Linux's update_curr adds to sum_exec_runtime. A thread running
 * now has also run since ran_since. Under the kernel lock, which the
 * scheduler holds from switch to switch: no reader sees half of it.
 */
void account_runtime(struct process *p)
{
	uint64_t now = ktime_get_ns();

	p->time.runtime += now - p->ran_since;
	p->ran_since = now;
}

uint64_t thread_runtime(const struct process *t)
{
	uint64_t ns = t->time.runtime;

	if (t->state == PROC_RUNNING)
		ns += ktime_get_ns() - t->ran_since;
	return ns;
}

/* Its threads' (a thread that ended added its own to the leader's dead_threads: proc_exit). */
uint64_t group_runtime(const struct process *leader)
{
	uint64_t ns = leader->dead_threads.runtime;
	struct process *t;

	for_each_thread(t, leader)
		if (t->state != PROC_DEAD)
			ns += thread_runtime(t);
	return ns;
}

void cputime_add(struct cputime *to, struct cputime t)
{
	to->user += t.user;
	to->sys += t.sys;
	to->runtime += t.runtime;
}

/*
 * A process's time: that of its threads, the leader's even as a zombie,
 * and that of the threads that ended, which proc_exit added to the
 * leader's dead_threads (so a PROC_DEAD one, not yet freed, counts there).
 */
struct cputime group_cputime(const struct process *leader)
{
	struct cputime sum = leader->dead_threads;
	struct process *t;

	for_each_thread(t, leader)
		if (t->state != PROC_DEAD)
			cputime_add(&sum, t->time);
	return sum;
}

uint64_t ns_to_clock_t(uint64_t ns)
{
	return ns / (NSEC_PER_SEC / USER_HZ);
}

static struct timeval ns_to_timeval(uint64_t ns)
{
	return (struct timeval){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC / NSEC_PER_USEC };
}

/* The rusage of wait4, waitid and getrusage: the times; ccos counts nothing else. */
long put_rusage(struct rusage __user *ru, struct cputime t)
{
	struct rusage k;

	memset(&k, 0, sizeof(k));
	k.ru_utime = ns_to_timeval(t.user);
	k.ru_stime = ns_to_timeval(t.sys);
	return copy_to_user(ru, &k, sizeof(k)) ? -EFAULT : 0;
}

#define RUSAGE_SELF	0
#define RUSAGE_CHILDREN	(-1)
#define RUSAGE_THREAD	1

long sys_getrusage(int who, struct rusage __user *ru)
{
	struct process *p = current();

	switch (who) {
	case RUSAGE_SELF:
		return put_rusage(ru, group_cputime(p->group_leader));
	case RUSAGE_CHILDREN:
		return put_rusage(ru, p->group_leader->children);
	case RUSAGE_THREAD:
		return put_rusage(ru, p->time);
	}
	return -EINVAL;
}

/* The process's times and its reaped children's; the clock ticks since boot (Linux's jiffies). */
long sys_times(struct tms __user *buf)
{
	const struct process *leader = current()->group_leader;
	struct cputime self = group_cputime(leader);
	struct tms k = {
		ns_to_clock_t(self.user), ns_to_clock_t(self.sys),
		ns_to_clock_t(leader->children.user), ns_to_clock_t(leader->children.sys),
	};

	if (buf && copy_to_user(buf, &k, sizeof(k)))
		return -EFAULT;
	return jiffies * USER_HZ / HZ;
}
