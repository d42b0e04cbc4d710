/* A child's end as its parent learns it: the exit signal, wait4 and waitid, and the reaping. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>

#define WSTOPPED	WUNTRACED
#define WEXITED		4
#define WNOWAIT		0x01000000
#define __WNOTHREAD	0x20000000
#define __WALL		0x40000000
#define __WCLONE	0x80000000

/* waitid's idtype */
#define P_ALL		0
#define P_PID		1
#define P_PGID		2
#define P_PIDFD		3

/* wait4's status as siginfo gives it: CLD_EXITED and the exit code, or CLD_KILLED (CLD_DUMPED) and the signal. */
static int si_code_of(int status, int *si_status)
{
	if (!(status & 0x7f)) {
		*si_status = (status >> 8) & 0xff;
		return CLD_EXITED;
	}
	*si_status = status & 0x7f;
	return status & 0x80 ? CLD_DUMPED : CLD_KILLED;
}

/*
 * The exit signal, SIGCHLD for fork's children, with Linux's siginfo: how
 * the process ended, and the CPU time it used (clock ticks).
 */
void notify_parent(struct process *leader)
{
	struct cputime t = group_cputime(leader);
	siginfo_t info = { .chld = { leader->pid, 0, 0, ns_to_clock_t(t.user), ns_to_clock_t(t.sys) } };

	info.si_code = si_code_of(leader->exit_status, &info.chld.status);
	if (leader->exit_signal)
		send_signal(leader->parent, leader->exit_signal, &info);
	wakeup(leader->parent);
}

/* Which children a wait is for: wait4's pid and waitid's idtype both become one of these. */
enum wait_for { ANY_CHILD, CHILD_PID, CHILD_PGID };

/*
 * As on Linux, a child whose exit signal is not SIGCHLD (a "clone
 * child") is waited for only with __WCLONE or __WALL, and the others only
 * without __WCLONE.
 */
static bool wait_matches(const struct process *c, enum wait_for which, int id, int options)
{
	bool clone_child = c->exit_signal != SIGCHLD;

	if (!(options & __WALL) && clone_child != !!(options & __WCLONE))
		return false;
	if (which == CHILD_PID)
		return c->pid == id;
	if (which == CHILD_PGID)
		return c->pgid == id;
	return true;
}

/*
 * Any thread of a process waits for the children of its process; those
 * are group leaders (a thread is nobody's child), and a leader has ended
 * only when the last thread of its group has. The pid of the child found,
 * in *found; 0 with WNOHANG when none has ended yet; -ECHILD when no child
 * matches. ccos stops no process, so WSTOPPED and WCONTINUED wait for
 * children that never come: alone, they sleep until a signal (or say 0 at
 * once with WNOHANG), as Linux's do while no child stops.
 */
static long find_ended_child(enum wait_for which, int id, int options, struct process **found)
{
	struct process *p = current()->group_leader, *c;

	for (;;) {
		bool have_child = false;

		for (c = proc_table; c < proc_table + NPROC; c++) {
			if (c->parent != p || c->state == PROC_UNUSED || c->pid != c->tgid ||
			    !wait_matches(c, which, id, options))
				continue;
			have_child = true;
			if ((options & WEXITED) && c->state == PROC_ZOMBIE && !thread_group_alive(c)) {
				*found = c;
				return c->pid;
			}
		}
		if (!have_child)
			return -ECHILD;
		if (options & WNOHANG)
			return 0;
		if (signal_pending(current()))
			return -ERESTARTSYS;
		sleep_on(p);
	}
}

/* What wait4's and waitid's rusage tell of a child: its time and its own reaped children's. */
static struct cputime child_time(const struct process *c)
{
	struct cputime t = group_cputime(c);

	cputime_add(&t, c->children);
	return t;
}

/* The child's time goes to its parent's children's, as it leaves the table. */
static void reap(struct process *c)
{
	cputime_add(&c->parent->children, child_time(c));
	proc_free(c);
}

/*
 * pid > 0: that child; -1: any; 0: any in the caller's group; < -1: any in
 * group -pid. As on Linux the child is reaped before its status and rusage
 * are copied out: a bad pointer is -EFAULT, and the child is gone.
 */
long sys_wait4(int pid, int __user *ustatus, int options, struct rusage __user *ru)
{
	enum wait_for which = pid > 0 ? CHILD_PID : pid == -1 ? ANY_CHILD : CHILD_PGID;
	int id = pid > 0 ? pid : pid == 0 ? current()->pgid : -pid, status;
	struct process *c;
	struct cputime t;
	long r;

	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WALL | __WCLONE))
		return -EINVAL;
	if (pid == -2147483647 - 1)
		return -ESRCH;		/* -pid does not exist: Linux's answer */
	r = find_ended_child(which, id, options | WEXITED, &c);
	if (r <= 0)
		return r;
	status = c->exit_status;
	t = child_time(c);
	reap(c);
	if (ustatus && put_user(status, ustatus))
		return -EFAULT;
	if (ru && put_rusage(ru, t))
		return -EFAULT;
	return r;
}

/*
 * Linux's waitid: P_PID, P_PGID (0: the caller's group) or P_ALL, and
 * which changes to wait for (WEXITED; WSTOPPED and WCONTINUED, see
 * find_ended_child); WNOWAIT leaves the child to be waited for again.
 * As Linux, six fields of the siginfo are written, each with its own
 * store, and the rest of it is left as it was: si_signo SIGCHLD,
 * si_errno 0, si_code, si_pid, si_uid, si_status; all six 0 when WNOHANG
 * found nobody.
 */
long sys_waitid(int idtype, int id, siginfo_t __user *info, int options, struct rusage __user *ru)
{
	int signo = 0, code = 0, pid = 0, status = 0;
	enum wait_for which;
	struct process *c;
	long r;

	if (options & ~(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED | __WNOTHREAD |
			__WALL | __WCLONE) ||
	    !(options & (WEXITED | WSTOPPED | WCONTINUED)))
		return -EINVAL;
	switch (idtype) {
	case P_ALL:
		which = ANY_CHILD;
		break;
	case P_PID:
		if (id <= 0)
			return -EINVAL;
		which = CHILD_PID;
		break;
	case P_PGID:
		if (id < 0)
			return -EINVAL;
		which = CHILD_PGID;
		id = id ? id : current()->pgid;
		break;
	case P_PIDFD:
		return id < 0 ? -EINVAL : -EBADF;	/* ccos makes no pidfd: no descriptor is one */
	default:
		return -EINVAL;
	}
	r = find_ended_child(which, id, options, &c);
	if (r < 0)
		return r;
	if (r) {
		struct cputime t = child_time(c);

		signo = SIGCHLD;
		pid = c->pid;
		code = si_code_of(c->exit_status, &status);
		if (!(options & WNOWAIT))
			reap(c);
		if (ru && put_rusage(ru, t))
			return -EFAULT;
	}
	if (info && (put_user(signo, &info->si_signo) || put_user(0, &info->si_errno) ||
		     put_user(code, &info->si_code) || put_user(pid, &info->chld.pid) ||
		     put_user(0, &info->chld.uid) || put_user(status, &info->chld.status)))
		return -EFAULT;
	return 0;
}
