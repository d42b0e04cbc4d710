/* The scheduler (kernel/sched/sched.c): switching, sleeping and waking up. */
#ifndef CCOS_SCHED_H
#define CCOS_SCHED_H

#include <ccos/types.h>

struct process;

/* CPU time in nanoseconds, charged a tick at a time (kernel/sched/cputime.c). */
struct cputime {
	uint64_t user, sys;
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
