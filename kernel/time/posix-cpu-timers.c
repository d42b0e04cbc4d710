/* CPU-time clocks: the clock ids of processes and threads, and clock_gettime, clock_getres and clock_nanosleep on them. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/time.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>
#include <ccos/spinlock.h>

/*
 * Linux encodes a CPU-time clock in a negative clockid_t, which
 * clock_getcpuclockid and pthread_getcpuclockid build: the pid or tid,
 * complemented, above three bits; bit 2 set for a thread's clock (else
 * its process's); bits 0-1 the time it counts: PROF (user and system),
 * VIRT (user) or SCHED (the runtime, measured: kernel/sched/cputime.c).
 * pid 0 is the caller. Bits 0-2 = 3 is a clock of a file descriptor (a
 * PTP device), which ccos has none of. CLOCK_PROCESS_CPUTIME_ID and
 * CLOCK_THREAD_CPUTIME_ID are the caller's SCHED clocks by other names.
 */
#define CPUCLOCK_PROF		0
#define CPUCLOCK_VIRT		1
#define CPUCLOCK_SCHED		2
#define CPUCLOCK_MAX		3
#define CPUCLOCK_PERTHREAD	4
#define CLOCKFD			3
#define CPUCLOCK_PID(clock)	((int)~((clock) >> 3))
#define CPUCLOCK_WHICH(clock)	((clock) & 3)
#define MAKE_CPUCLOCK(pid, which) ((clockid_t)((unsigned int)~(pid) << 3) | (which))
#define TIMER_ABSTIME		1

bool is_cpu_clock(clockid_t clock)
{
	return clock == CLOCK_PROCESS_CPUTIME_ID || clock == CLOCK_THREAD_CPUTIME_ID ||
	       (clock < 0 && (clock & 7) != CLOCKFD);
}

/* The named clocks as the caller's own, in the encoding. */
static clockid_t cpu_clock_encoded(clockid_t clock)
{
	if (clock == CLOCK_PROCESS_CPUTIME_ID)
		return MAKE_CPUCLOCK(0, CPUCLOCK_SCHED);
	if (clock == CLOCK_THREAD_CPUTIME_ID)
		return MAKE_CPUCLOCK(0, CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD);
	return clock;
}

/*
 * Whose clock it is, as Linux's pid_for_clock: a thread's clock only for
 * a thread of the caller's own process; a process's clock for any
 * process, named by its pid (or, to read it, by the caller's own tid).
 * NULL for none: EINVAL.
 */
static struct process *clock_owner(clockid_t clock, bool reading)
{
	struct process *self = current(), *p;
	int pid = CPUCLOCK_PID(clock);

	if (!is_cpu_clock(clock) || CPUCLOCK_WHICH(clock) >= CPUCLOCK_MAX || !self)
		return NULL;
	if (pid == 0)
		return clock & CPUCLOCK_PERTHREAD ? self : self->group_leader;
	if (!(p = proc_find(pid)) || p->state == PROC_DEAD)
		return NULL;
	if (clock & CPUCLOCK_PERTHREAD)
		return p->tgid == self->tgid ? p : NULL;
	if (reading && p == self)
		return p->group_leader;
	return p == p->group_leader ? p : NULL;
}

/* The time on clock of p, a thread or a process (its leader) as the clock says. */
static uint64_t sample(const struct process *p, clockid_t clock)
{
	struct cputime t;

	if (CPUCLOCK_WHICH(clock) == CPUCLOCK_SCHED)
		return clock & CPUCLOCK_PERTHREAD ? thread_runtime(p) : group_runtime(p);
	t = clock & CPUCLOCK_PERTHREAD ? p->time : group_cputime(p);
	return CPUCLOCK_WHICH(clock) == CPUCLOCK_VIRT ? t.user : t.user + t.sys;
}

/* The clock with pid 0 made the caller's pid or tid: what a timer keeps, to read it later. */
int cpu_clock_resolve(clockid_t clock, clockid_t *resolved)
{
	struct process *p;

	clock = cpu_clock_encoded(clock);
	if (!(p = clock_owner(clock, false)))
		return -EINVAL;
	*resolved = MAKE_CPUCLOCK(p->pid, clock & 7);
	return 0;
}

/*
 * The time of a clock cpu_clock_resolve gave, whoever asks (a timer, at
 * the tick); -EINVAL once its thread or process is gone.
 */
int cpu_clock_sample(clockid_t resolved, uint64_t *ns)
{
	struct process *p = proc_find(CPUCLOCK_PID(resolved));

	if (!p || p->state == PROC_DEAD ||
	    (!(resolved & CPUCLOCK_PERTHREAD) && p != p->group_leader))
		return -EINVAL;
	*ns = sample(p, resolved);
	return 0;
}

/* Whether t's running moves the clock cpu_clock_resolve gave: its own, or its process's. */
bool cpu_clock_charged_by(clockid_t resolved, const struct process *t)
{
	int pid = CPUCLOCK_PID(resolved);

	return resolved & CPUCLOCK_PERTHREAD ? t->pid == pid : t->tgid == pid;
}

/*
 * A CPU-time clock reads other threads and the process table, the kernel
 * lock's. clock_gettime and clock_getres are lockless calls (docs/smp.md):
 * they come here through the entry layer's lockless_cpu_clock, which takes
 * the lock for them (kernel/time/sys_time.c); every other caller holds it.
 */
int cpu_clock_gettime(clockid_t clock, struct timespec *ts)
{
	struct process *p;
	uint64_t ns;

	assert_kernel_locked();
	clock = cpu_clock_encoded(clock);
	if (!(p = clock_owner(clock, true)))
		return -EINVAL;
	ns = sample(p, clock);
	*ts = (struct timespec){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };
	return 0;
}

/* The sampled clocks resolve a tick (given as 1/HZ, as Linux), the measured one a nanosecond. */
int cpu_clock_getres(clockid_t clock, struct timespec *res)
{
	assert_kernel_locked();
	clock = cpu_clock_encoded(clock);
	if (!clock_owner(clock, false))
		return -EINVAL;
	if (res)
		*res = (struct timespec){ 0, CPUCLOCK_WHICH(clock) == CPUCLOCK_SCHED ? 1 : TICK_NSEC };
	return 0;
}

/*
 * Sleep until clock reaches deadline: a process's clock, or another
 * thread's (its own thread's clock never moves while it sleeps: EINVAL,
 * as on Linux; CLOCK_THREAD_CPUTIME_ID, which Linux gives no sleep,
 * -EOPNOTSUPP: sys_clock_nanosleep). Only the tick moves the clocks a
 * sleeper waits on, so the sleeper looks at each tick, as Linux looks at
 * its CPU timers at each tick (run_posix_cpu_timers). A signal ends it
 * with -EINTR and, for a relative sleep, the CPU time left in rem, unless
 * the clock has reached the deadline (then 0, as Linux). The
 * end of the thread or process whose clock it is ends it too (on Linux
 * the sleep would last until a signal).
 */
long cpu_clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
			 struct timespec __user *rem)
{
	uint64_t now, deadline, ns = timespec_to_ns(req);
	struct process *self = current();

	clock = cpu_clock_encoded(clock);
	if ((clock & CPUCLOCK_PERTHREAD) &&
	    (CPUCLOCK_PID(clock) == 0 || CPUCLOCK_PID(clock) == self->pid))
		return -EINVAL;
	if (cpu_clock_resolve(clock, &clock) || cpu_clock_sample(clock, &now))
		return -EINVAL;
	deadline = flags & TIMER_ABSTIME ? ns : ktime_add_safe(now, ns);
	while (!cpu_clock_sample(clock, &now) && now < deadline) {
		if (!signal_pending(self)) {
			sleep_until(NULL, ktime_get_ns() + tick_nsec);
			continue;
		}
		if (!(flags & TIMER_ABSTIME) && rem) {
			struct timespec r = { (deadline - now) / NSEC_PER_SEC,
					      (deadline - now) % NSEC_PER_SEC };

			if (copy_to_user(rem, &r, sizeof(r)))
				return -EFAULT;
		}
		return -EINTR;
	}
	return 0;
}
