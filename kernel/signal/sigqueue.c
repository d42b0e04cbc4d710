/* Pending signals: a thread's own and its process's shared set, queueing, taking the next, rt_sigpending. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>
#include <ccos/time.h>
#include <ccos/spinlock.h>

/*
 * Two sets wait for each thread, as on Linux: its own (p->sig.pending:
 * tkill, tgkill, its faults, SIGPIPE) and its process's (kill, a process
 * group's signals, SIGCHLD, SIGALRM), kept in the leader's slot, which
 * lives as long as the process does. A thread takes its own first, then
 * the process's, each time the lowest number it does not block; so a
 * signal for the process that every thread blocks waits for the first
 * thread that unblocks it. All of it is the kernel lock's (docs/smp.md).
 */
static struct signal_state *shared(struct process *p)
{
	return &p->group_leader->sig;
}

static uint64_t ready(struct process *p)
{
	return (p->sig.pending | shared(p)->shared_pending) & (~p->sig.blocked | UNBLOCKABLE);
}

bool sig_default_ignores(int sig)
{
	/* No job control in ccos: the stop signals are ignored too. */
	return sig == SIGCHLD || sig == SIGCONT || sig == 23 /* SIGURG */ ||
	       sig == 28 /* SIGWINCH */ || sig == SIGSTOP || sig == 20 || sig == 21 || sig == 22;
}

/* Its delivery would do nothing: SIG_IGN, or a default that ignores. */
static bool ignored(struct process *p, int sig)
{
	uint64_t handler = p->sig.action[sig - 1].handler;

	return sig != SIGKILL &&
	       (handler == SIG_IGN || (handler == SIG_DFL && sig_default_ignores(sig)));
}

/*
 * A signal p could take, one that is not to be ignored: what ends its
 * sleeps with -EINTR. An ignored one may wait in a set (it was blocked
 * when sent: a SIGCHLD while musl's pthread_create blocks everything),
 * but it must not interrupt a call that Linux would restart unseen.
 */
bool signal_pending(struct process *p)
{
	uint64_t r = ready(p);

	for (; r; r &= r - 1)
		if (!ignored(p, __builtin_ctzl(r) + 1) || (p->sig.waiting_for & (r & -r)))
			return true;
	return false;
}

static bool kills(struct process *p, int sig)
{
	return sig == SIGKILL ||
	       (p->sig.action[sig - 1].handler == SIG_DFL && !sig_default_ignores(sig));
}

bool fatal_signal_pending(struct process *p)
{
	uint64_t r = ready(p);
	int sig;

	for (sig = 1; sig <= NSIG; sig++)
		if ((r & SIGBIT(sig)) && kills(p, sig))
			return true;
	return false;
}

/* Ignored and not blocked: Linux drops it at once, so it wakes nobody (sig_ignored). */
static bool dropped_at_send(struct process *p, int sig)
{
	return !((p->sig.blocked | p->sig.waiting_for) & SIGBIT(sig)) && ignored(p, sig);
}

static void queue(uint64_t *set, siginfo_t *slot, int sig, const siginfo_t *info)
{
	if (info)
		*slot = *info;
	else
		*slot = (siginfo_t){ .si_signo = sig, .si_code = SI_KERNEL };
	slot->si_signo = sig;
	*set |= SIGBIT(sig);
}

/* Sleeps are interruptible: a sleeper that can take it wakes and returns -EINTR. */
void signal_wake(struct process *t)
{
	if (t->state == PROC_SLEEPING && signal_pending(t))
		sched_wake(t);
	else
		sched_kick(t);
}

bool send_signal_thread(struct process *p, int sig, const siginfo_t *info)
{
	assert_kernel_locked();
	if (p->state == PROC_ZOMBIE || p->state == PROC_DEAD || dropped_at_send(p, sig))
		return false;
	queue(&p->sig.pending, &p->sig.info[sig - 1], sig, info);
	signal_wake(p);
	return true;
}

/*
 * A POSIX timer's signal is queued once (kernel/time/posix-timers.c): it
 * leaves the set with its overrun count filled in, and a timer that is
 * set again or deleted takes its pending signal back (Linux drops it at
 * delivery instead, as stale; the program sees the same).
 */
void flush_timer_signal(struct process *p, bool thread, int sig, int timer_id)
{
	uint64_t *set = thread ? &p->sig.pending : &shared(p)->shared_pending;
	siginfo_t *info = thread ? &p->sig.info[sig - 1] : &shared(p)->shared_info[sig - 1];

	if ((*set & SIGBIT(sig)) && info->si_code == SI_TIMER && info->timer.id == timer_id)
		*set &= ~SIGBIT(sig);
}

/* Into p's process's set, unless p would drop it: whether it was queued. */
bool queue_signal_shared(struct process *p, int sig, const siginfo_t *info)
{
	struct signal_state *s = shared(p);

	if (dropped_at_send(p, sig))
		return false;
	queue(&s->shared_pending, &s->shared_info[sig - 1], sig, info);
	return true;
}

/* Take the lowest signal of allowed from one set: its number (info filled in), or 0. */
static int take_from(uint64_t *set, const siginfo_t *infos, uint64_t allowed, siginfo_t *info)
{
	int sig;

	if (!(*set & allowed))
		return 0;
	sig = __builtin_ctzl(*set & allowed) + 1;
	*set &= ~SIGBIT(sig);
	*info = infos[sig - 1];
	return sig;
}

/* Take the lowest of allowed that waits for p, its own set first: its number (info filled in), or 0. */
static int take(struct process *p, uint64_t allowed, siginfo_t *info)
{
	struct signal_state *s = shared(p);
	int sig = take_from(&p->sig.pending, p->sig.info, allowed, info);

	if (!sig)
		sig = take_from(&s->shared_pending, s->shared_info, allowed, info);
	if (sig && info->si_code == SI_TIMER)
		posix_timer_dequeued(p, info);	/* its overrun count, and it may queue again */
	return sig;
}

/* Take the next signal p does not block: its number (info filled in), or 0. */
int dequeue_signal(struct process *p, siginfo_t *info)
{
	return take(p, ~p->sig.blocked | UNBLOCKABLE, info);
}

/*
 * The signals p could take that would have an effect: a handler, or a
 * default that is not to ignore. Those that would be ignored are dropped,
 * as their delivery would.
 */
uint64_t signals_deliverable(struct process *p)
{
	uint64_t r = ready(p), mask = 0;
	int sig;

	for (sig = 1; sig <= NSIG; sig++) {
		if (!(r & SIGBIT(sig)))
			continue;
		if (ignored(p, sig)) {
			p->sig.pending &= ~SIGBIT(sig);
			shared(p)->shared_pending &= ~SIGBIT(sig);
		} else {
			mask |= SIGBIT(sig);
		}
	}
	return mask;
}

/* What rt_sigpending reports: the signals, the thread's and the process's, that wait because it blocks them. */
long sys_rt_sigpending(uint64_t __user *set, size_t setsize)
{
	struct process *p = current();
	uint64_t pending = (p->sig.pending | shared(p)->shared_pending) & p->sig.blocked;

	if (setsize > sizeof(pending))
		return -EINVAL;
	return copy_to_user(set, &pending, setsize) ? -EFAULT : 0;
}

/*
 * rt_sigtimedwait (sigwait, sigtimedwait): take a signal of the set, the
 * thread's or the process's, without running its handler, as Linux does:
 * while it sleeps the set is unblocked, so that a signal of it sent to the
 * process wakes this thread, and counts even where its action ignores it
 * (SIGCHLD); a signal outside the set that is not blocked ends the wait
 * with -EINTR, the timeout with -EAGAIN.
 */
long sys_rt_sigtimedwait(const uint64_t __user *uset, siginfo_t __user *uinfo,
			 const struct timespec __user *uts, size_t setsize)
{
	struct process *p = current();
	uint64_t set, blocked = p->sig.blocked, deadline;
	siginfo_t info;
	long err;
	int sig;

	if (setsize != sizeof(set))
		return -EINVAL;
	if (copy_from_user(&set, uset, sizeof(set)))
		return -EFAULT;
	set &= ~UNBLOCKABLE;
	if ((err = timeout_deadline(uts, &deadline)))
		return err;
	p->sig.blocked &= ~set;
	p->sig.waiting_for = set;
	while (!(sig = take(p, set, &info)) && !signal_pending(p) &&
	       (!deadline || ktime_get_ns() < deadline))
		sleep_until(&p->sig, deadline);
	p->sig.waiting_for = 0;
	p->sig.blocked = blocked;
	if (!sig)
		return signal_pending(p) ? -EINTR : -EAGAIN;
	if (uinfo && copy_to_user(uinfo, &info, sizeof(info)))
		return -EFAULT;
	return sig;
}
