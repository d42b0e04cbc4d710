/* Process groups and sessions, and kill, which picks its targets by them. */
#include <ccos/syscall.h>
#include <ccos/tty.h>
#include <ccos/proc.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>

/* A process, named by its leader, one of whose threads still runs. */
static bool alive(const struct process *p)
{
	return p->state != PROC_UNUSED && p->pid == p->tgid && thread_group_alive(p);
}

/*
 * Linux's init is protected (SIGNAL_UNKILLABLE): a signal a program sends
 * to any of its threads whose action is the default one is dropped,
 * SIGKILL included, so that no program can end the system. Only a handler
 * init installed runs. Every sender from user space asks here: kill and
 * the terminal's signals below, tkill and tgkill (kernel/thread.c).
 */
bool init_protected(const struct process *p, int sig)
{
	return init_process && p->tgid == init_process->tgid &&
	       init_process->sig.action[sig - 1].handler == SIG_DFL;
}

/*
 * Who may signal whom, as Linux's check_kill_permission: the same user
 * (kernel/capability.c's may_signal), or CAP_KILL, or SIGCONT within a
 * session. Asked for signal 0 too, which only asks.
 */
bool kill_permitted(const struct process *p, int sig)
{
	return may_signal(p) || (sig == SIGCONT && p->sid == current()->sid);
}

/* 0, or -EAGAIN: a real-time signal past the receiver's RLIMIT_SIGPENDING. */
static long send_from_user(struct process *p, int sig, const siginfo_t *info)
{
	if (sig && !init_protected(p, sig))
		return MIN(send_signal(p, sig, info), 0);
	return 0;
}

/*
 * pid > 0: that process (a thread's id names its process, as on Linux).
 * 0: every process of the caller's group. -1: every process but init and
 * the caller. < -1: every process of group -pid. ESRCH when nobody was
 * there to receive it.
 */
long sys_kill(int pid, int sig)
{
	struct process *p, *me = current();
	struct process *target = pid > 0 ? proc_find(pid) : NULL;	/* a thread names its process */
	siginfo_t info = { .si_signo = sig, .si_code = SI_USER, .kill.uid = me->cred.uid };
	int sent = 0, refused = 0;

	if (sig < 0 || sig > NSIG)
		return -EINVAL;
	if (pid == INT32_MIN)
		return -ESRCH;		/* -pid would overflow: no such group */
	info.kill.pid = me->tgid;
	for (p = proc_table; p < proc_table + NPROC; p++) {
		if (!alive(p))
			continue;
		if (pid > 0 && (!target || p->tgid != target->tgid))
			continue;
		if (pid == 0 && p->pgid != me->pgid)
			continue;
		if (pid == -1 && (p == init_process || p->tgid == me->tgid))
			continue;
		if (pid < -1 && p->pgid != -pid)
			continue;
		/* As Linux: one refused is EPERM; a group is EPERM if all were; -1 never is. */
		if (!kill_permitted(p, sig)) {
			refused++;
			continue;
		}
		send_from_user(p, sig, &info);
		sent++;
	}
	if (refused && !sent && pid != -1)
		return -EPERM;
	return sent || refused ? 0 : -ESRCH;
}

/* rt_sigqueueinfo: kill of one process with the sender's own siginfo (rt_tgsigqueueinfo's rule). */
long sys_rt_sigqueueinfo(int pid, int sig, const siginfo_t __user *uinfo)
{
	struct process *p;
	siginfo_t info;

	if (copy_from_user(&info, uinfo, sizeof(info)))
		return -EFAULT;
	if ((info.si_code >= 0 || info.si_code == SI_TKILL) && pid != current()->pid)
		return -EPERM;
	if (pid <= 0 || !(p = proc_find(pid)) || !alive(p->group_leader))
		return -ESRCH;
	if (!kill_permitted(p, sig))
		return -EPERM;
	if (sig < 0 || sig > NSIG)
		return -EINVAL;
	info.si_signo = sig;
	return send_from_user(p->group_leader, sig, &info);
}

/* The signal of ^C or ^\ from the terminal: to every member of the group. */
int kill_pgrp(int pgid, int sig)
{
	struct process *p;
	int n = 0;

	for (p = proc_table; p < proc_table + NPROC; p++) {
		if (alive(p) && p->pgid == pgid) {
			send_from_user(p, sig, NULL);
			n++;
		}
	}
	return n;
}

/*
 * Whether group pgid has a member in session sid. As on Linux, a zombie
 * not yet waited for is still a member: the first command of a pipeline
 * may have ended when the last one joins its group and brings it to the
 * foreground.
 */
bool pgrp_in_session(int pgid, int sid)
{
	struct process *p;

	for (p = proc_table; p < proc_table + NPROC; p++)
		if (p->state != PROC_UNUSED && p->pgid == pgid && p->sid == sid)
			return true;
	return false;
}

/* The process pid names (a thread id names its process): 0 is the caller. */
static struct process *find_or_self(int pid)
{
	struct process *p = pid ? proc_find(pid) : current();

	return p && alive(p->group_leader) ? p->group_leader : NULL;
}

/*
 * Move pid (the caller or a child of it, in its session) into group pgid,
 * an existing group of the session or a new one named after pid. A
 * session leader stays where it is.
 */
long sys_setpgid(int pid, int pgid)
{
	struct process *p = find_or_self(pid), *me = current();

	if (pgid < 0)
		return -EINVAL;
	if (!p || (p->tgid != me->tgid && p->parent != me->group_leader))
		return -ESRCH;
	if (p->sid != me->sid)
		return -EPERM;
	if (p->sid == p->tgid)
		return -EPERM;
	if (!pgid)
		pgid = p->tgid;
	if (pgid != p->tgid && !pgrp_in_session(pgid, me->sid))
		return -EPERM;
	thread_group_set_pgrp(p, pgid, p->sid);
	return 0;
}

long sys_getpgid(int pid)
{
	struct process *p = find_or_self(pid);

	return p ? p->pgid : -ESRCH;
}

long sys_getpgrp(void)
{
	return current()->pgid;
}

/* A new session and group, both named after the caller, unless it already leads a group. */
long sys_setsid(void)
{
	struct process *p, *me = current();

	for (p = proc_table; p < proc_table + NPROC; p++)
		if (alive(p) && p->pgid == me->tgid)
			return -EPERM;
	thread_group_set_pgrp(me, me->tgid, me->tgid);
	return me->sid;
}

long sys_getsid(int pid)
{
	struct process *p = find_or_self(pid);

	return p ? p->sid : -ESRCH;
}
