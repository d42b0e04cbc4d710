/* The scheduler (kernel/sched/sched.c): switching, sleeping and waking up. */
#ifndef CCOS_SCHED_H
#define CCOS_SCHED_H

#include <ccos/types.h>

struct process;

/*
 * CPU time in nanoseconds (kernel/sched/cputime.c): user and system time
 * charged a tick at a time; runtime measured at each switch (Linux's
 * sum_exec_runtime, what CLOCK_THREAD_CPUTIME_ID reads).
 */
struct cputime {
	uint64_t user, sys;
	uint64_t runtime;
};

__noreturn void scheduler(void);
void yield(void);
void schedule(void);
void sleep_on(const void *chan);
void sleep_on_killable(const void *chan);	/* only a fatal signal ends it */
void sched_kick(struct process *p);		/* a running p looks at its signals */
void sleep_until(const void *chan, uint64_t wake_at_ns);
void wakeup(const void *chan);
void sched_wake(struct process *p);	/* make p runnable, and wake an idle CPU for it */

#endif
