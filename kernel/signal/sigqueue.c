/* Pending signals: a thread's own and its process's shared set, queueing, taking the next, rt_sigpending. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>
#include <ccos/time.h>
#include <ccos/spinlock.h>
#include <ccos/mm.h>

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

/*
 * A set: its bits, one siginfo for each signal in it, and the real-time
 * signals sent again while one of their number waited. A signal below
 * SIGRTMIN is pending or not: sent again, it is one signal still (the
 * first one's siginfo stays). A real-time signal is queued each time it
 * is sent, as POSIX wants: the first in the slot, the others in a list,
 * oldest first, each taken in turn. count is how many real-time signals
 * wait in the set, slot and list; leader's process may have at most its
 * RLIMIT_SIGPENDING of them in all its sets (rt_pending).
 */
struct set {
	uint64_t *bits;
	siginfo_t *info;
	struct sigqueue **queued;
	int *count;
	struct process *leader;
};

static struct set thread_set(struct process *p)
{
	return (struct set){ &p->sig.pending, p->sig.info, &p->sig.queued, &p->sig.nr_queued,
			     p->group_leader };
}

static struct set process_set(struct process *p)
{
	struct signal_state *s = shared(p);

	return (struct set){ &s->shared_pending, s->shared_info, &s->shared_queued,
			     &s->shared_nr_queued, p->group_leader };
}

/* The real-time signals that wait for the process of leader: its own set's and each thread's. */
static uint64_t rt_pending(struct process *leader)
{
	uint64_t n = leader->sig.shared_nr_queued;
	struct process *t;

	for_each_thread(t, leader)
		n += t->sig.nr_queued;
	return n;
}

/* A timer's entry is its own, for good: only the others were kmalloc'd. */
static void sigqueue_release(struct sigqueue *q)
{
	if (!q->own)
		kfree(q);
}

/*
 * Queue sig in s: 0, or -EAGAIN, as Linux's __send_signal_locked, when a
 * real-time signal with a siginfo of the sender's (sigqueue, tkill,
 * rt_tgsigqueueinfo) finds the process at its RLIMIT_SIGPENDING, or no
 * memory for the entry: the sender is told, nothing is dropped unseen.
 * kill's and the kernel's then count as a standard signal (one of its
 * number pending is enough), as Linux's. A timer brings its own entry
 * (own), which nothing refuses.
 */
static long queue(struct set s, int sig, const siginfo_t *info, struct sigqueue *own)
{
	siginfo_t si = info ? *info : (siginfo_t){ .si_code = SI_KERNEL };
	bool rt = sig >= SIGRTMIN;
	bool may_refuse = rt && !own && si.si_code != SI_USER && si.si_code != SI_KERNEL;
	struct sigqueue *q = own, **end;

	si.si_signo = sig;
	if (rt && !own && rt_pending(s.leader) >= s.leader->sigpending_cur) {
		if (may_refuse)
			return -EAGAIN;
		rt = false;
	}
	if (!(*s.bits & SIGBIT(sig))) {
		s.info[sig - 1] = si;
		*s.bits |= SIGBIT(sig);
		*s.count += sig >= SIGRTMIN;
		return 0;
	}
	if (!rt)
		return 0;
	if (!q && !(q = kmalloc(sizeof(*q))))
		return may_refuse ? -EAGAIN : 0;
	q->next = NULL;
	q->info = si;
	q->own = q == own;
	for (end = s.queued; *end; end = &(*end)->next)
		;
	*end = q;
	(*s.count)++;
	return 0;
}

/* The one of sig in the slot goes: the next of its number queued takes its place, if any. */
static void unqueue_first(struct set s, int sig)
{
	struct sigqueue **q, *found;

	*s.count -= sig >= SIGRTMIN;
	for (q = s.queued; *q && (*q)->info.si_signo != sig; q = &(*q)->next)
		;
	if (!(found = *q)) {
		*s.bits &= ~SIGBIT(sig);
		return;
	}
	s.info[sig - 1] = found->info;
	*q = found->next;
	sigqueue_release(found);
}

/* Every one of sig waiting in s goes. */
static void unqueue_all(struct set s, int sig)
{
	while (*s.bits & SIGBIT(sig))
		unqueue_first(s, sig);
}

void sigqueue_free(struct signal_state *st)
{
	struct sigqueue **lists[] = { &st->queued, &st->shared_queued }, *q;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		while ((q = *lists[i])) {
			*lists[i] = q->next;
			sigqueue_release(q);
		}
	}
	st->nr_queued = st->shared_nr_queued = 0;
}

/* Sleeps are interruptible: a sleeper that can take it wakes and returns -EINTR. */
void signal_wake(struct process *t)
{
	if (t->state == PROC_SLEEPING && signal_pending(t))
		sched_wake(t);
	else
		sched_kick(t);
}

/*
 * Queue sig for the thread p alone (own: a timer's entry, or NULL): 1 when
 * queued, 0 when p is gone or would drop it, or queue's -EAGAIN.
 */
long queue_signal_thread(struct process *p, int sig, const siginfo_t *info, struct sigqueue *own)
{
	long err;

	assert_kernel_locked();
	if (p->state == PROC_ZOMBIE || p->state == PROC_DEAD || dropped_at_send(p, sig))
		return 0;
	if ((err = queue(thread_set(p), sig, info, own)))
		return err;
	signal_wake(p);
	return 1;
}

long send_signal_thread(struct process *p, int sig, const siginfo_t *info)
{
	return queue_signal_thread(p, sig, info, NULL);
}

/*
 * A POSIX timer's signal is queued once (kernel/time/posix-timers.c): it
 * leaves the set with its overrun count filled in, and a timer that is
 * set again or deleted takes its pending signal back (Linux drops it at
 * delivery instead, as stale; the program sees the same).
 */
static bool of_timer(const siginfo_t *info, int timer_id)
{
	return info->si_code == SI_TIMER && info->timer.id == timer_id;
}

void flush_timer_signal(struct process *p, bool thread, int sig, int timer_id)
{
	struct set s = thread ? thread_set(p) : process_set(p);
	struct sigqueue **q, *found;

	if (!(*s.bits & SIGBIT(sig)))
		return;
	if (of_timer(&s.info[sig - 1], timer_id)) {
		unqueue_first(s, sig);
		return;
	}
	for (q = s.queued; *q && !of_timer(&(*q)->info, timer_id); q = &(*q)->next)
		;
	if ((found = *q)) {
		*q = found->next;
		sigqueue_release(found);
		(*s.count)--;
	}
}

/* Into p's process's set, unless p would drop it: 1 when queued, 0 if dropped, or -EAGAIN. */
long queue_signal_shared(struct process *p, int sig, const siginfo_t *info, struct sigqueue *own)
{
	long err;

	if (dropped_at_send(p, sig))
		return 0;
	return (err = queue(process_set(p), sig, info, own)) ? err : 1;
}

/* Take the lowest signal of allowed from one set: its number (info filled in), or 0. */
static int take_from(struct set s, uint64_t allowed, siginfo_t *info)
{
	int sig;

	if (!(*s.bits & allowed))
		return 0;
	sig = __builtin_ctzl(*s.bits & allowed) + 1;
	*info = s.info[sig - 1];
	unqueue_first(s, sig);
	return sig;
}

/* Take the lowest of allowed that waits for p, its own set first: its number (info filled in), or 0. */
static int take(struct process *p, uint64_t allowed, siginfo_t *info)
{
	int sig = take_from(thread_set(p), allowed, info);

	if (!sig)
		sig = take_from(process_set(p), allowed, info);
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
			unqueue_all(thread_set(p), sig);
			unqueue_all(process_set(p), sig);
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
