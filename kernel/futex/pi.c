/* PI futexes: FUTEX_LOCK_PI, LOCK_PI2, TRYLOCK_PI and UNLOCK_PI, and condition waiters requeued onto such a lock (WAIT_REQUEUE_PI, CMP_REQUEUE_PI). */
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/errno.h>
#include <ccos/time.h>
#include <ccos/uaccess.h>
#include "futex.h"

/*
 * A PI futex is a mutex whose word says who holds it: the owner's thread
 * id, FUTEX_WAITERS while someone sleeps on it (so that the owner's
 * unlock comes to the kernel instead of clearing the word in user mode),
 * FUTEX_OWNER_DIED after its owner died holding it. User space takes a free
 * lock with one compare-and-exchange, 0 to its id, and gives it back the
 * same way; the kernel is asked only when the lock is contended. Then,
 * as Linux, the kernel hands the lock over itself: FUTEX_UNLOCK_PI writes
 * the first waiter's id into the word and wakes it owning the lock, so no
 * third thread can slip in between.
 *
 * Linux also lends the owner the priority of its highest waiter (priority
 * inheritance, the PI), so that a low-priority owner cannot hold up a
 * real-time waiter. ccos's scheduler has no priorities to lend (every
 * thread runs round robin, docs/processes.md): the waiters queue in the
 * order they came and nobody is boosted. The word's protocol, the
 * handover and the errors are Linux's, which is what programs see.
 *
 * Lock rule: the kernel lock, as the queue of waiters (futex.c).
 */

/* The first PI waiter on key, in arrival order; NULL if none. */
static struct futex_waiter *first_pi_waiter(const struct futex_key *key)
{
	struct futex_waiter *w;

	for (w = futex_queue; w; w = w->next)
		if (w->pi && same_key(&w->key, key))
			return w;
	return NULL;
}

static bool thread_exists(uint32_t tid)
{
	struct process *p = proc_find(tid);

	return p && p->state != PROC_ZOMBIE && p->state != PROC_DEAD;
}

/* The lock at key is tid's now: its waiters wait for that thread. */
static void set_owner(const struct futex_key *key, uint32_t tid)
{
	struct futex_waiter *w;

	for (w = futex_queue; w; w = w->next)
		if (w->pi && same_key(&w->key, key))
			w->owner = tid;
}

/* The PI lock thread tid sleeps for: its waiter, or NULL if it sleeps for none. */
static struct futex_waiter *pi_waiter_of(uint32_t tid)
{
	struct futex_waiter *w;

	for (w = futex_queue; w; w = w->next)
		if (w->pi && w->tid == tid)
			return w;
	return NULL;
}

/*
 * Whether tid, sleeping for a lock that owner holds, would close a cycle:
 * owner sleeps for a lock whose owner sleeps for one ... that tid holds,
 * so that none of them would ever wake (Linux's chain walk answers
 * -EDEADLK). A chain longer than PI_CHAIN_MAX counts as one, as Linux's
 * max_lock_depth, so the walk is bounded whatever the waiters.
 */
#define PI_CHAIN_MAX	1024

static bool closes_cycle(uint32_t tid, uint32_t owner)
{
	struct futex_waiter *w;
	int links;

	for (links = 0; links < PI_CHAIN_MAX; links++) {
		if (owner == tid)
			return true;
		if (!(w = pi_waiter_of(owner)))
			return false;
		owner = w->owner;
	}
	return true;
}

/*
 * One try at the lock word for thread tid, as Linux's futex_lock_pi_atomic:
 * 1 when tid took it (FUTEX_OWNER_DIED kept, FUTEX_WAITERS set if
 * waiters), 0 when another thread holds it, whose unlock FUTEX_WAITERS
 * now sends to the kernel (*owner: its id); -EDEADLK when tid holds it
 * already, -ESRCH when the id in the word is no thread's (FUTEX_WAITERS
 * set all the same, as Linux's), -EFAULT, or -EAGAIN when user space
 * keeps changing the word. dead is the id of an owner that died holding
 * the lock for tid to take (exit_pi_locks), or 0: tid takes it from that
 * thread, or from none after a robust list marked it, with
 * FUTEX_WAITERS and FUTEX_OWNER_DIED, as Linux's fixup_pi_state_owner.
 */
static long lock_word(uint32_t __user *uaddr, uint32_t tid, bool waiters, uint32_t dead,
		      uint32_t *owner)
{
	uint32_t val, seen, want, holder;
	int tries;

	if (get_user(val, uaddr))
		return -EFAULT;
	for (tries = 0; tries < CMPXCHG_TRIES; tries++) {
		holder = val & FUTEX_TID_MASK;
		if (holder == tid)
			return -EDEADLK;
		if (!holder || holder == dead)
			want = (val & FUTEX_OWNER_DIED) | tid | (waiters || dead ? FUTEX_WAITERS : 0) |
			       (dead ? FUTEX_OWNER_DIED : 0);
		else
			want = val | FUTEX_WAITERS;
		seen = val;
		if (want != val && futex_cmpxchg_user(uaddr, &seen, want))
			return -EFAULT;
		if (seen == val) {
			*owner = holder;
			if (!holder || holder == dead)
				return 1;
			return thread_exists(holder) ? 0 : -ESRCH;
		}
		val = seen;		/* changed meanwhile: look again */
	}
	return -EAGAIN;
}

/*
 * Sleep in the queue until the lock is handed over (1), a wake to try
 * again (0: its owner died), the deadline (-ETIMEDOUT) or a signal
 * (-ERESTARTNOINTR, as Linux: the call starts over after the handler).
 */
static long pi_sleep(struct futex_waiter *w, const struct deadline *deadline)
{
	struct process *p = current();

	w->got_lock = w->owner_died = false;
	futex_enqueue(w);
	while (w->queued && !signal_pending(p) && !deadline_passed(deadline))
		sleep_until_deadline(w->sleeper, deadline);
	if (!w->queued)
		return w->got_lock;
	futex_dequeue(w);
	return signal_pending(p) ? -ERESTARTNOINTR : -ETIMEDOUT;
}

/*
 * Take the lock at uaddr (w's key) for w, sleeping while another thread
 * holds it unless trylock: 1 once w owns it, 0 when trylock would sleep,
 * or the error (-EDEADLK when its sleep would close a cycle of waiters).
 */
static long take_lock(struct futex_waiter *w, uint32_t __user *uaddr, const struct deadline *deadline,
		      bool trylock)
{
	long err;

	for (;;) {
		err = lock_word(uaddr, w->tid, first_pi_waiter(&w->key), w->owner_died ? w->owner : 0,
				&w->owner);
		if (err || trylock)
			break;
		if (closes_cycle(w->tid, w->owner)) {
			err = -EDEADLK;
			break;
		}
		if ((err = pi_sleep(w, deadline)))
			break;
	}
	if (err == 1)
		set_owner(&w->key, w->tid);
	return err;
}

/* FUTEX_LOCK_PI, LOCK_PI2 and TRYLOCK_PI (which never sleeps: -EAGAIN when it would). */
long futex_lock_pi(uint32_t __user *uaddr, bool private, const struct deadline *deadline,
		   bool trylock)
{
	struct process *p = current();
	struct futex_waiter w = { .pi = true, .tid = p->pid, .bitset = FUTEX_BITSET_MATCH_ANY,
				  .sleeper = deadline_chan(deadline, &w) };
	long err;

	if ((err = get_futex_key(p->mm, (uint64_t)uaddr, private, &w.key)))
		return err;
	err = take_lock(&w, uaddr, deadline, trylock);
	put_futex_key(&w.key);
	if (err == 1)
		return 0;
	return err ? err : -EAGAIN;
}

/*
 * FUTEX_UNLOCK_PI: only the owner may (-EPERM). The first waiter gets the
 * lock, its id and FUTEX_WAITERS in the word, and wakes owning it; with no
 * waiter the word becomes 0.
 */
long futex_unlock_pi(uint32_t __user *uaddr, bool private)
{
	struct process *p = current();
	struct futex_waiter *w;
	struct futex_key key;
	uint32_t val, seen;
	long err;
	int tries;

	if ((err = get_futex_key(p->mm, (uint64_t)uaddr, private, &key)))
		return err;
	w = first_pi_waiter(&key);
	err = get_user(val, uaddr) ? -EFAULT : -EAGAIN;
	for (tries = 0; err == -EAGAIN && tries < CMPXCHG_TRIES; tries++) {
		if ((val & FUTEX_TID_MASK) != (uint32_t)p->pid) {
			err = -EPERM;
			break;
		}
		seen = val;
		if (futex_cmpxchg_user(uaddr, &seen, w ? w->tid | FUTEX_WAITERS : 0))
			err = -EFAULT;
		else if (seen == val)
			err = 0;
		val = seen;
	}
	if (!err && w) {
		futex_dequeue(w);
		set_owner(&key, w->tid);
		w->got_lock = true;
		wakeup(w->sleeper);
	}
	put_futex_key(&key);
	return err;
}

/*
 * FUTEX_WAIT_REQUEUE_PI: wait on a condition's word (uaddr, while it holds
 * val) to be moved onto the PI lock at uaddr2 by FUTEX_CMP_REQUEUE_PI,
 * and return owning that lock. The same word twice is -EINVAL. Before the
 * move a signal restarts the call (-ERESTARTNOINTR); after it, the call
 * cannot start over as it was (the condition's word has moved on), and
 * Linux answers -EAGAIN. Moved onto a lock whose owner then died, it takes
 * the lock as FUTEX_LOCK_PI would.
 */
long futex_wait_requeue_pi(uint32_t __user *uaddr, bool private, uint32_t val,
			   const struct deadline *deadline, uint32_t __user *uaddr2)
{
	struct process *p = current();
	struct futex_waiter w = { .requeue_pi = true, .tid = p->pid, .bitset = FUTEX_BITSET_MATCH_ANY,
				  .sleeper = deadline_chan(deadline, &w) };
	uint32_t cur;
	long err;

	if (uaddr == uaddr2)
		return -EINVAL;
	if ((err = get_futex_key(p->mm, (uint64_t)uaddr, private, &w.key)))
		return err;
	if ((err = get_futex_key(p->mm, (uint64_t)uaddr2, private, &w.key2))) {
		put_futex_key(&w.key);
		return err;
	}
	if (get_user(cur, uaddr))
		err = -EFAULT;
	else if (cur != val)
		err = -EAGAIN;
	if (!err) {
		futex_enqueue(&w);
		while (w.queued && !signal_pending(p) && !deadline_passed(deadline))
			sleep_until_deadline(w.sleeper, deadline);
		if (w.queued) {
			futex_dequeue(&w);
			err = !signal_pending(p) ? -ETIMEDOUT : w.pi ? -EAGAIN : -ERESTARTNOINTR;
		} else if (w.owner_died) {
			err = take_lock(&w, uaddr2, deadline, false);
			err = err == 1 ? 0 : err == -ERESTARTNOINTR ? -EAGAIN : err;
		}
	}
	put_futex_key(&w.key);
	put_futex_key(&w.key2);
	return err;
}

/*
 * FUTEX_CMP_REQUEUE_PI: while the condition's word holds cmpval, the
 * first of its waiters takes the lock at uaddr2 if it is free (and wakes
 * owning it), and the others become the lock's PI waiters, up to 1 +
 * nr_requeue in all, as Linux counts them: with the lock held and
 * nr_requeue 0, the first waiter is moved. Every waiter there must be FUTEX_WAIT_REQUEUE_PI's, waiting
 * for this lock: any other is -EINVAL (a FUTEX_WAIT's would otherwise
 * wake owning a lock it never asked for). The count woken and moved.
 */
long futex_cmp_requeue_pi(uint32_t __user *uaddr, bool private, int nr_requeue,
			  uint32_t __user *uaddr2, uint32_t cmpval)
{
	struct process *p = current();
	struct futex_waiter *w, *next, *top = NULL;
	struct futex_key key, key2;
	long err, done = 0;
	uint32_t cur, owner = 0;

	if (nr_requeue < 0)
		return -EINVAL;
	if ((err = get_futex_key(p->mm, (uint64_t)uaddr, private, &key)))
		return err;
	if ((err = get_futex_key(p->mm, (uint64_t)uaddr2, private, &key2))) {
		put_futex_key(&key);
		return err;
	}
	if (same_key(&key, &key2))
		err = -EINVAL;
	else if (get_user(cur, uaddr))
		err = -EFAULT;
	else if (cur != cmpval)
		err = -EAGAIN;
	for (w = futex_queue; w && !err; w = w->next) {
		if (!same_key(&w->key, &key))
			continue;
		if (!w->requeue_pi || !same_key(&w->key2, &key2))
			err = -EINVAL;
		top = top ? top : w;
	}
	if (!err && top) {
		err = lock_word(uaddr2, top->tid, true, 0, &owner);	/* FUTEX_WAITERS set, as Linux's proxy lock */
		if (err == 1) {
			owner = top->tid;
			futex_dequeue(top);
			top->got_lock = true;
			wakeup(top->sleeper);
			done++;
		}
	}
	for (w = err >= 0 ? futex_queue : NULL; w && done < 1 + (long)nr_requeue; w = next) {
		next = w->next;
		if (!same_key(&w->key, &key))
			continue;
		put_futex_key(&w->key);
		futex_key_copy(&w->key, &key2);
		w->pi = true;
		w->owner = owner;
		done++;
	}
	put_futex_key(&key);
	put_futex_key(&key2);
	return err < 0 ? err : done;
}

/*
 * Thread p dies, or execs, perhaps holding PI locks that others wait for:
 * as Linux's exit_pi_state_list, each such lock goes to its first waiter,
 * which takes it itself, marked FUTEX_OWNER_DIED (lock_word), whether or
 * not a robust list marked it first; the others then wait for that one.
 * A lock nobody waits for keeps the dead owner's id: the next LOCK_PI is
 * -ESRCH.
 */
void exit_pi_locks(struct process *p)
{
	struct futex_waiter *w, *next;

	for (w = futex_queue; w; w = next) {
		next = w->next;
		if (!w->pi || w->owner != (uint32_t)p->pid)
			continue;
		futex_dequeue(w);
		set_owner(&w->key, w->tid);
		w->owner_died = true;
		wakeup(w->sleeper);
	}
}
