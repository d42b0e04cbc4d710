/* Thread groups: a process's threads, exit of one vs all, exec from a thread, signals to a group. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>

/*
 * A process of several threads is a group of struct process, each with
 * its own pid (the thread id), kernel stack, registers, signal mask and
 * pending signals; they share the address space (CLONE_VM), the
 * descriptors (CLONE_FILES), the directory and umask (CLONE_FS) and the
 * signal actions (CLONE_SIGHAND). The group is named by its first
 * thread, the leader: tgid is the leader's pid, which getpid answers,
 * kill and wait4 take, and the parent waits for. The leader's slot lives
 * until the parent reaps the group, so every thread may point to it. All
 * of it is the kernel lock's (docs/smp.md).
 */

static bool live(const struct process *t)
{
	return t->state == PROC_RUNNABLE || t->state == PROC_RUNNING || t->state == PROC_SLEEPING;
}

bool thread_group_alive(const struct process *leader)
{
	struct process *t;

	for_each_thread(t, leader)
		if (live(t))
			return true;
	return false;
}

static void kill_other_threads(struct process *p)
{
	struct process *t;

	for_each_thread(t, p)
		if (t != p && live(t))
			send_signal_thread(t, SIGKILL, NULL);
}

/*
 * exit_group, and death by a signal: every thread ends, and the first
 * status is the group's. The others are sent SIGKILL, which they act on
 * at their next return to user mode (a sleeping one is woken for it), and
 * end with proc_exit there, since the group is already exiting.
 */
void do_group_exit(int status)
{
	struct process *p = current(), *leader = p->group_leader;

	if (!leader->group_exiting) {
		leader->group_exiting = true;
		leader->group_exit_status = status;
		kill_other_threads(p);
	}
	proc_exit(status);
}

/*
 * The exec'ing thread p becomes the leader, as on Linux: it takes the
 * leader's pid (the process keeps its id for its parent, its group and
 * its children), its parent and exit signal, and the leader's slot, a
 * zombie by now, is freed.
 */
static void take_leadership(struct process *p, struct process *leader)
{
	struct process *c;

	for (c = proc_table; c < proc_table + NPROC; c++)
		if (c->parent == leader && c->state != PROC_UNUSED)
			c->parent = p;
	p->pid = leader->pid;
	p->group_leader = p;
	p->parent = leader->parent;
	p->exit_signal = leader->exit_signal;
	p->sig.shared_pending = leader->sig.shared_pending;	/* the process's signals stay */
	memcpy(p->sig.shared_info, leader->sig.shared_info, sizeof(p->sig.shared_info));
	p->dead_threads = leader->dead_threads;		/* and its time, the old leader's too */
	cputime_add(&p->dead_threads, leader->time);
	p->children = leader->children;
	p->sig.shared_queued = leader->sig.shared_queued;
	p->sig.shared_nr_queued = leader->sig.shared_nr_queued;
	leader->sig.shared_queued = NULL;
	p->sigpending_cur = leader->sigpending_cur;	/* the process's limit */
	p->sigpending_max = leader->sigpending_max;
	memcpy(p->rlim, leader->rlim, sizeof(p->rlim));
	memcpy(p->itimer, leader->itimer, sizeof(p->itimer));	/* exec keeps them */
	p->next_timer_id = leader->next_timer_id;
	if (init_process == leader)
		init_process = p;
	proc_free(leader);
}

/*
 * execve from a thread of a process with others: as Linux, the others are
 * killed first and the new program starts as a process of one thread. The
 * group counts as exiting meanwhile, so that the threads killed end alone
 * rather than taking p with them. -EINTR if p itself is killed meanwhile.
 */
int de_thread(struct process *p)
{
	struct process *leader = p->group_leader, *t;
	bool others = false;

	for_each_thread(t, p)
		others |= t != p && live(t);
	if (!others && p == leader)
		return 0;
	if (leader->group_exiting)
		return -EINTR;		/* exit_group or another exec got there first */
	leader->group_exiting = true;
	leader->group_exit_status = SIGKILL;
	kill_other_threads(p);
	for (;;) {
		others = false;
		for_each_thread(t, p)
			others |= t != p && live(t);
		if (!others)
			break;
		if (fatal_signal_pending(p))
			return -EINTR;
		sleep_on_killable(leader);	/* proc_exit wakes it as each thread goes */
	}
	leader->group_exiting = false;
	if (p != leader)
		take_leadership(p, leader);
	return 0;
}

/* setpgid and setsid move the whole process: every thread of it. */
void thread_group_set_pgrp(struct process *p, int pgid, int sid)
{
	struct process *t;

	for_each_thread(t, p) {
		t->pgid = pgid;
		t->sid = sid;
	}
}

/* A live thread of p's process that does not block sig: p if it can, else the first; or NULL. */
static struct process *signal_taker(struct process *p, int sig)
{
	struct process *t;

	if (live(p) && !(p->sig.blocked & SIGBIT(sig)))
		return p;
	for_each_thread(t, p)
		if (live(t) && !(t->sig.blocked & SIGBIT(sig)))
			return t;
	return NULL;
}

static bool awake_for(const struct process *t, int sig)
{
	return (t->state == PROC_RUNNING || t->state == PROC_RUNNABLE) &&
	       !(t->sig.blocked & SIGBIT(sig));
}

/*
 * A thread of p's process that does not block sig and is on a CPU, or
 * else waits for one; p if none is. A timer's signal for the process goes
 * to it, as Linux gives it to current when current is of the process (a
 * POSIX timer's, send_sigqueue since 6.3; a CPU interval timer's, whose
 * check runs in the tick of the thread it charges): the thread that ran
 * the clock out takes it, and no sleeping thread is woken for it. The
 * timers run at the scheduler's pass, so Linux's current is ran, the
 * thread this CPU just switched from, if it is of the process.
 */
struct process *signal_awake_thread(struct process *p, int sig, struct process *ran)
{
	struct process *t;

	if (ran && ran->tgid == p->tgid && awake_for(ran, sig))
		return ran;
	for_each_thread(t, p)
		if (t->state == PROC_RUNNING && awake_for(t, sig))
			return t;
	for_each_thread(t, p)
		if (awake_for(t, sig))
			return t;
	return p;
}

/*
 * A signal for a process waits in the process's set (kernel/signal/sigqueue.c)
 * for one of its threads to take it. The thread named, if it does not
 * block it, else the first that does not, is woken for it, as Linux's
 * complete_signal chooses; when every thread blocks it, nobody is, and
 * the first thread to unblock it takes it (rt_sigpending shows it in
 * every thread meanwhile).
 */
long send_sigqueue(struct process *p, bool thread, int sig, const siginfo_t *info,
		   struct sigqueue *q)
{
	struct process *t;
	long queued;

	if (thread)
		return queue_signal_thread(p, sig, info, q);
	if (!thread_group_alive(p->group_leader))
		return 0;
	if ((queued = queue_signal_shared(p, sig, info, q)) <= 0)
		return queued;
	if ((t = signal_taker(p, sig)))
		signal_wake(t);
	return 1;
}

long send_signal(struct process *p, int sig, const siginfo_t *info)
{
	return send_sigqueue(p, false, sig, info, NULL);
}

/*
 * p blocks the signals of set from now on, or is gone: a thread was woken
 * for those of the process's that are pending, and it may have been p, so
 * another that can take them is woken, as Linux's retarget_shared_pending.
 */
void signal_retarget(struct process *p, uint64_t set)
{
	uint64_t pending = p->group_leader->sig.shared_pending & set;
	struct process *t;
	int sig;

	for (sig = 1; sig <= NSIG; sig++)
		if ((pending & SIGBIT(sig)) && (t = signal_taker(p, sig)))
			signal_wake(t);
}

/*
 * tkill and tgkill send to one thread; tgkill checks that it belongs to
 * the process tgid, so that a thread id reused since cannot be hit by
 * mistake. si_code SI_TKILL tells the receiver how it came (musl's raise
 * and pthread_kill use tkill).
 */
static long send_to_thread(int tgid, int tid, int sig, siginfo_t *info)
{
	struct process *p = proc_find(tid);

	if (tid <= 0 || sig < 0 || sig > NSIG)
		return -EINVAL;
	if (!p || (tgid >= 0 && tgid != p->tgid))
		return -ESRCH;
	if (!kill_permitted(p, sig))
		return -EPERM;
	info->si_signo = sig;
	if (sig && live(p) && !init_protected(p, sig))
		return MIN(send_signal_thread(p, sig, info), 0);
	return 0;
}

static long tkill(int tgid, int tid, int sig)
{
	siginfo_t info = { .si_code = SI_TKILL, .kill.pid = current()->tgid, .kill.uid = current()->cred.uid };

	return send_to_thread(tgid, tid, sig, &info);
}

long sys_tkill(int tid, int sig)
{
	return tkill(-1, tid, sig);
}

long sys_tgkill(int tgid, int tid, int sig)
{
	if (tgid <= 0)
		return -EINVAL;
	return tkill(tgid, tid, sig);
}

/*
 * rt_tgsigqueueinfo: tgkill with the sender's own siginfo (a value to
 * pass, say). As Linux, a program may not make its signal look like the
 * kernel's or kill's (si_code >= 0) or tkill's, but to itself.
 */
long sys_rt_tgsigqueueinfo(int tgid, int tid, int sig, const siginfo_t __user *uinfo)
{
	siginfo_t info;

	if (tgid <= 0 || tid <= 0)
		return -EINVAL;
	if (copy_from_user(&info, uinfo, sizeof(info)))
		return -EFAULT;
	if ((info.si_code >= 0 || info.si_code == SI_TKILL) && tid != current()->pid)
		return -EPERM;
	return send_to_thread(tgid, tid, sig, &info);
}

long sys_getpid(void)
{
	return current()->tgid;
}

long sys_gettid(void)
{
	return current()->pid;
}
