/* Scheduling policies as Linux names them: sched_setscheduler, sched_getscheduler, sched_setparam, sched_getparam and the priority ranges. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>

/*
 * Linux's policies: SCHED_OTHER (0, the time-sharing default), SCHED_FIFO
 * (1) and SCHED_RR (2) with a real-time priority of 1 to 99, SCHED_BATCH
 * (3) and SCHED_IDLE (5) with 0; SCHED_RESET_ON_FORK asks fork to give the
 * child SCHED_OTHER. ccos keeps and reports each thread's policy and
 * priority, which fork passes on, but its scheduler runs every thread
 * round robin whatever they say (docs/processes.md): a SCHED_FIFO thread
 * gets no precedence. Programs that set a policy before they start their
 * threads (glibc's pthread_create with PTHREAD_EXPLICIT_SCHED, Linux's
 * PI futex selftests) run; none may count on real-time scheduling.
 * SCHED_DEADLINE (6) needs sched_setattr, which ccos does not have:
 * EINVAL here, as Linux answers sched_setscheduler.
 */
#define SCHED_OTHER		0
#define SCHED_FIFO		1
#define SCHED_RR		2
#define SCHED_BATCH		3
#define SCHED_IDLE		5
#define SCHED_DEADLINE		6
#define SCHED_RESET_ON_FORK	0x40000000

static bool valid_policy(int policy)
{
	return policy == SCHED_OTHER || policy == SCHED_FIFO || policy == SCHED_RR ||
	       policy == SCHED_BATCH || policy == SCHED_IDLE;
}

static bool realtime(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* The ranges: SCHED_DEADLINE's too (0, as Linux's), though no call here sets it. */
long sys_sched_get_priority_max(int policy)
{
	if (!valid_policy(policy) && policy != SCHED_DEADLINE)
		return -EINVAL;
	return realtime(policy) ? 99 : 0;
}

long sys_sched_get_priority_min(int policy)
{
	if (!valid_policy(policy) && policy != SCHED_DEADLINE)
		return -EINVAL;
	return realtime(policy) ? 1 : 0;
}

/* The thread pid names (0: the caller), or NULL. */
static struct process *sched_target(int pid)
{
	return pid ? proc_find(pid) : current();
}

/* Linux's order: the arguments, the priority read, the thread, the priority's range. */
static long set_policy(int pid, int policy, const int __user *param, bool keep_policy)
{
	struct process *p;
	bool reset = policy & SCHED_RESET_ON_FORK;
	int prio;

	if (pid < 0 || !param)
		return -EINVAL;
	policy &= ~SCHED_RESET_ON_FORK;
	if (!keep_policy && !valid_policy(policy))
		return -EINVAL;
	if (get_user(prio, param))
		return -EFAULT;
	if (!(p = sched_target(pid)))
		return -ESRCH;
	if (keep_policy) {
		policy = p->sched_policy;
		reset = p->sched_reset_on_fork;
	}
	if (prio < sys_sched_get_priority_min(policy) || prio > sys_sched_get_priority_max(policy))
		return -EINVAL;
	p->sched_policy = policy;
	p->sched_priority = prio;
	p->sched_reset_on_fork = reset;
	return 0;
}

long sys_sched_setscheduler(int pid, int policy, const int __user *param)
{
	return set_policy(pid, policy, param, false);
}

long sys_sched_setparam(int pid, const int __user *param)
{
	return set_policy(pid, 0, param, true);
}

long sys_sched_getscheduler(int pid)
{
	struct process *p;

	if (pid < 0)
		return -EINVAL;
	if (!(p = sched_target(pid)))
		return -ESRCH;
	return p->sched_policy | (p->sched_reset_on_fork ? SCHED_RESET_ON_FORK : 0);
}

long sys_sched_getparam(int pid, int __user *param)
{
	struct process *p;

	if (pid < 0 || !param)
		return -EINVAL;
	if (!(p = sched_target(pid)))
		return -ESRCH;
	return put_user(p->sched_priority, param) ? -EFAULT : 0;
}

/* fork and clone: the parent's policy, or SCHED_OTHER where it asked for SCHED_RESET_ON_FORK. */
void sched_fork_policy(struct process *child, const struct process *parent)
{
	bool reset = parent->sched_reset_on_fork;

	child->sched_policy = reset && realtime(parent->sched_policy) ? SCHED_OTHER : parent->sched_policy;
	child->sched_priority = reset ? 0 : parent->sched_priority;
	child->sched_reset_on_fork = false;
	child->nice = reset && parent->nice < 0 ? 0 : parent->nice;
}
