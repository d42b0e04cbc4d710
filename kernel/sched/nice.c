/* Nice values: getpriority and setpriority, kept and reported (the round robin does not weigh them), with Linux's permission rules. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/errno.h>

#define PRIO_PROCESS	0
#define PRIO_PGRP	1
#define PRIO_USER	2
#define MIN_NICE	(-20)
#define MAX_NICE	19

/* The threads a (which, who) pair names: one thread, a process group's, a user's. */
static bool names(const struct process *t, int which, int who)
{
	const struct process *me = current();

	switch (which) {
	case PRIO_PROCESS:
		return t->pid == (who ? who : me->pid);
	case PRIO_PGRP:
		return t->pgid == (who ? who : me->pgid);
	default:
		return t->cred.uid == (who ? (uint32_t)who : me->cred.uid);
	}
}

static bool live(const struct process *t)
{
	return t->state != PROC_UNUSED && t->state != PROC_ZOMBIE && t->state != PROC_DEAD;
}

/* As Linux: 20 - nice, the highest of those named (so that no answer is negative); ESRCH if none. */
long sys_getpriority(int which, int who)
{
	struct process *t;
	long best = -ESRCH;

	if (which < PRIO_PROCESS || which > PRIO_USER)
		return -EINVAL;
	for (t = proc_table; t < proc_table + NPROC; t++)
		if (live(t) && names(t, which, who) && 20 - t->nice > best)
			best = 20 - t->nice;
	return best;
}

/*
 * Another user's thread (neither its real nor its effective uid the
 * caller's effective one) needs CAP_SYS_NICE (EPERM), and so does a lower
 * nice value than the thread has (EACCES): RLIMIT_NICE is 0, as Linux's
 * default. The value is clamped to -20..19.
 */
long sys_setpriority(int which, int who, int nice)
{
	const struct cred *c = &current()->cred;
	struct process *t;
	long err = -ESRCH;

	if (which < PRIO_PROCESS || which > PRIO_USER)
		return -EINVAL;
	nice = nice < MIN_NICE ? MIN_NICE : nice > MAX_NICE ? MAX_NICE : nice;
	for (t = proc_table; t < proc_table + NPROC; t++) {
		if (!live(t) || !names(t, which, who))
			continue;
		if (t->cred.uid != c->euid && t->cred.euid != c->euid && !capable(CAP_SYS_NICE))
			err = -EPERM;
		else if (nice < t->nice && !capable(CAP_SYS_NICE))
			err = -EACCES;
		else {
			t->nice = nice;
			if (err == -ESRCH)
				err = 0;
		}
	}
	return err;
}
