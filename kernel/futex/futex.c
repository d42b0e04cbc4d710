/* Futexes: sleeping until a user word changes (wait, wake, requeue, futex_waitv); robust lists are kernel/futex/robust.c's. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/sched.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/time.h>
#include <ccos/uaccess.h>
#include <ccos/shmem.h>
#include "futex.h"

/*
 * A futex is a 32-bit word of user memory. FUTEX_WAIT sleeps while the
 * word holds the value the caller saw; FUTEX_WAKE wakes sleepers on it.
 * The kernel keeps no state for a futex, only the queue of its waiters.
 *
 * The key of a futex says which word it is, wherever it is mapped. As on
 * Linux, a private wait is woken only by a private wake and a shared one
 * by a shared wake (the kernel's wake at a thread's exit,
 * CLONE_CHILD_CLEARTID, is shared, and so is musl's pthread_join). A
 * private futex (FUTEX_PRIVATE_FLAG) is keyed by its address space and
 * address: only the threads of a process (and a vfork child) can meet on
 * it. A shared one in shared memory (MAP_SHARED anonymous, a SysV
 * segment: mm/shmem.c) is keyed by the memory's object and the word's
 * offset in it, so a waiter in one process is woken by a wake in another
 * that maps the same page at any address; the key holds a reference to
 * the object while its waiter sleeps. A shared futex in private memory
 * is keyed as a private one, as Linux keys it: no other address space
 * can see that word.
 *
 * One queue, in arrival order, holds every waiter; each waiter's entry
 * lives on its own kernel stack (futex_waitv's in a kmalloc'd vector)
 * while it sleeps, and names what it sleeps on (several entries of one
 * futex_waitv sleep on the same). The queue is the kernel
 * lock's (docs/smp.md): a waiter reads the word, compares and queues
 * itself under it, and sleeps with it (the scheduler takes it over), so a
 * wake on another CPU cannot slip in between.
 */
struct futex_waiter *futex_queue;

/* The key of the word at uaddr of mm: -EFAULT for a shared futex where nothing is mapped. */
int get_futex_key(struct mm *mm, uint64_t uaddr, bool private, struct futex_key *key)
{
	struct vma *v;

	*key = (struct futex_key){ .space = mm, .offset = uaddr, .private = private };
	if (private)
		return 0;
	if (!(v = mm_find_vma(mm, uaddr)))
		return -EFAULT;
	if (vma_shares_object(v)) {
		*key = (struct futex_key){ .space = v->shmem, .offset = uaddr - v->start + v->offset,
					   .shmem = true };
		shmem_get(v->shmem);
	}
	return 0;
}

void put_futex_key(struct futex_key *key)
{
	if (key->shmem)
		shmem_put((struct shmem *)key->space);
	key->shmem = false;
}

void futex_key_copy(struct futex_key *to, const struct futex_key *from)
{
	*to = *from;
	if (to->shmem)
		shmem_get((struct shmem *)to->space);
}

bool same_key(const struct futex_key *a, const struct futex_key *b)
{
	return a->space == b->space && a->offset == b->offset && a->private == b->private;
}

void futex_enqueue(struct futex_waiter *w)
{
	struct futex_waiter **pp = &futex_queue;

	while (*pp)
		pp = &(*pp)->next;
	w->next = NULL;
	w->queued = true;
	*pp = w;
}

void futex_dequeue(struct futex_waiter *w)
{
	struct futex_waiter **pp;

	for (pp = &futex_queue; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			w->queued = false;
			return;
		}
	}
}

/*
 * Wake up to n waiters on key whose bitset meets bitset, in the order
 * they came; then move up to n2 more to key2 if requeue is asked for (a
 * waiter keeps its own reference to key2's object). The count of those
 * woken and moved.
 */
static long wake_and_requeue(const struct futex_key *key, uint32_t bitset, long n,
			     const struct futex_key *key2, long n2)
{
	struct futex_waiter *w, *next;
	long done = 0;

	for (w = futex_queue; w; w = next) {
		next = w->next;
		if (!same_key(&w->key, key) || !(w->bitset & bitset))
			continue;
		if (w->pi || w->requeue_pi)
			return -EINVAL;		/* a PI futex's, or one only FUTEX_CMP_REQUEUE_PI may move */
		if (n > 0) {
			futex_dequeue(w);
			wakeup(w->sleeper);
			n--;
		} else if (n2 > 0) {
			put_futex_key(&w->key);
			futex_key_copy(&w->key, key2);
			n2--;
		} else {
			break;
		}
		done++;
	}
	return done;
}

/* A shared wake of the word at uaddr of mm: a thread's exit (CLONE_CHILD_CLEARTID), a robust list's. */
long futex_wake(struct mm *mm, uint64_t uaddr, int n)
{
	struct futex_key key;
	long woken;

	if (get_futex_key(mm, uaddr, false, &key))
		return -EFAULT;
	woken = wake_and_requeue(&key, FUTEX_BITSET_MATCH_ANY, n, NULL, 0);
	put_futex_key(&key);
	return woken;
}

/* Sleep while *uaddr == val, until a wake, the deadline or a signal. */
static long futex_wait(uint32_t __user *uaddr, bool private, uint32_t val,
		       const struct deadline *deadline, uint32_t bitset)
{
	struct process *p = current();
	struct futex_waiter w = { .bitset = bitset, .sleeper = deadline_chan(deadline, &w) };
	uint32_t cur;
	long err;

	if ((err = get_futex_key(p->mm, (uint64_t)uaddr, private, &w.key)))
		return err;
	if (get_user(cur, uaddr))
		err = -EFAULT;
	else if (cur != val)
		err = -EAGAIN;		/* it changed already: the caller looks again */
	if (err) {
		put_futex_key(&w.key);
		return err;
	}
	futex_enqueue(&w);
	while (w.queued && !signal_pending(p) && !deadline_passed(deadline))
		sleep_until_deadline(w.sleeper, deadline);
	if (w.queued) {
		futex_dequeue(&w);
		err = signal_pending(p) ? -EINTR : -ETIMEDOUT;
	}
	put_futex_key(&w.key);
	return err;
}

/* Wake up to n on uaddr's key, then move up to n2 to uaddr2's (NULL: no requeue). */
static long futex_wake_op(struct mm *mm, uint64_t uaddr, bool private, uint32_t bitset, long n,
			  uint64_t uaddr2, long n2)
{
	struct futex_key key, key2 = { 0 };
	long err;

	if ((err = get_futex_key(mm, uaddr, private, &key)))
		return err;
	if (uaddr2 && (err = get_futex_key(mm, uaddr2, private, &key2))) {
		put_futex_key(&key);
		return err;
	}
	err = wake_and_requeue(&key, bitset, n, &key2, n2);
	put_futex_key(&key);
	put_futex_key(&key2);
	return err;
}

/*
 * The end of the wait: FUTEX_WAIT's timeout is relative (monotonic), the
 * others' absolute, on CLOCK_REALTIME if the op says so, and then it
 * follows the clock when it is set (sleep_until_deadline), as Linux's
 * absolute hrtimer on that clock. None for no timeout; a time past
 * KTIME_MAX is KTIME_MAX, which no clock reaches.
 */
static long futex_deadline(int op, const struct timespec __user *utime, struct deadline *d)
{
	struct timespec ts;
	int64_t ns;

	*d = (struct deadline){ .clock = op & FUTEX_CLOCK_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC };
	if (!utime)
		return 0;
	if (copy_from_user(&ts, utime, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= NSEC_PER_SEC)
		return -EINVAL;
	ns = timespec_to_ns(&ts);
	if ((op & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)) == FUTEX_WAIT)
		*d = (struct deadline){ .clock = CLOCK_MONOTONIC, .ns = ktime_add_safe(ktime_get_ns(), ns) };
	else
		d->ns = MAX(ns, 1);	/* 0 would be none */
	return 0;
}

/*
 * futex(uaddr, op, val, timeout or val2, uaddr2, val3). The PI
 * operations are kernel/futex/pi.c's. The word must be
 * 4-byte aligned and in user memory. A wake on memory that is not mapped
 * is EFAULT for a shared futex and 0 for a private one, as on Linux (only
 * a shared key needs the page).
 */
long sys_futex(uint32_t __user *uaddr, int op, uint32_t val, const struct timespec __user *utime,
	       uint32_t __user *uaddr2, uint32_t val3)
{
	struct mm *mm = current()->mm;
	int cmd = op & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	bool private = op & FUTEX_PRIVATE_FLAG;
	long n2 = (long)(uint32_t)(uint64_t)utime, err;
	struct deadline deadline = { 0 };
	uint32_t cur;

	if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET &&
	    cmd != FUTEX_WAIT_REQUEUE_PI && cmd != FUTEX_LOCK_PI2)
		return -ENOSYS;
	if ((uint64_t)uaddr % 4)
		return -EINVAL;
	if (!access_ok(uaddr, 4))
		return -EFAULT;
	switch (cmd) {
	case FUTEX_WAIT:
		val3 = FUTEX_BITSET_MATCH_ANY;
		/* fall through */
	case FUTEX_WAIT_BITSET:
		if (!val3)
			return -EINVAL;
		if ((err = futex_deadline(op, utime, &deadline)))
			return err;
		return futex_wait(uaddr, private, val, &deadline, val3);
	case FUTEX_WAKE:
		val3 = FUTEX_BITSET_MATCH_ANY;
		/* fall through */
	case FUTEX_WAKE_BITSET:
		if (!val3)
			return -EINVAL;
		/* As Linux, a count of 0 (or less) still wakes one. */
		return futex_wake_op(mm, (uint64_t)uaddr, private, val3, MAX((int)val, 1), 0, 0);
	case FUTEX_CMP_REQUEUE:
		if (get_user(cur, uaddr))
			return -EFAULT;
		if (cur != val3)
			return -EAGAIN;
		/* fall through */
	case FUTEX_REQUEUE:
		if ((int)val < 0 || (int)n2 < 0)
			return -EINVAL;
		if ((uint64_t)uaddr2 % 4)
			return -EINVAL;
		if (!access_ok(uaddr2, 4))
			return -EFAULT;
		return futex_wake_op(mm, (uint64_t)uaddr, private, FUTEX_BITSET_MATCH_ANY, (int)val,
				     (uint64_t)uaddr2, n2);
	case FUTEX_LOCK_PI:	/* its timeout is on CLOCK_REALTIME, the flag or not */
	case FUTEX_LOCK_PI2:
	case FUTEX_TRYLOCK_PI:
		if (cmd != FUTEX_TRYLOCK_PI &&
		    (err = futex_deadline(cmd == FUTEX_LOCK_PI ? op | FUTEX_CLOCK_REALTIME : op,
					  utime, &deadline)))
			return err;
		return futex_lock_pi(uaddr, private, &deadline, cmd == FUTEX_TRYLOCK_PI);
	case FUTEX_UNLOCK_PI:
		return futex_unlock_pi(uaddr, private);
	case FUTEX_WAIT_REQUEUE_PI:
	case FUTEX_CMP_REQUEUE_PI:
		if ((uint64_t)uaddr2 % 4)
			return -EINVAL;
		if (!access_ok(uaddr2, 4))
			return -EFAULT;
		if (cmd == FUTEX_CMP_REQUEUE_PI)
			return val != 1 ? -EINVAL : futex_cmp_requeue_pi(uaddr, private, (int)n2, uaddr2, val3);
		if ((err = futex_deadline(op, utime, &deadline)))
			return err;
		return futex_wait_requeue_pi(uaddr, private, val, &deadline, uaddr2);
	}
	return -ENOSYS;
}

/*
 * futex_waitv (449): wait on up to 128 futexes at once, as Linux's. Each
 * waiter is { val, uaddr, flags, __reserved }; flags says the size (only
 * FUTEX2_SIZE_U32 is implemented, as on Linux) and FUTEX2_PRIVATE. The
 * timeout is absolute, on CLOCK_MONOTONIC or CLOCK_REALTIME. The answer
 * is the index of a futex woken (the highest, when several were), or
 * EAGAIN when a word no longer holds its value, ETIMEDOUT, or a signal's
 * -ERESTARTSYS. ccos does not implement FUTEX2_NUMA and FUTEX2_MPOL
 * (futexes placed on a NUMA node): EINVAL.
 */
#define FUTEX_WAITV_MAX		128
#define FUTEX2_SIZE_U32		0x02
#define FUTEX2_SIZE_MASK	0x03
#define FUTEX2_PRIVATE		FUTEX_PRIVATE_FLAG

struct futex_waitv {
	uint64_t val, uaddr;
	uint32_t flags, reserved;
};

/*
 * The waiters, checked in Linux's order: each one's fields, then every
 * address, then every key and word. The caller puts every key, made or
 * not (put_futex_key leaves a key that holds nothing alone).
 */
static long waitv_setup(struct futex_waiter *w, const struct futex_waitv __user *uwaitv,
			unsigned int n, const void *sleeper)
{
	struct futex_waitv v;
	unsigned int i;
	uint32_t cur;

	for (i = 0; i < n; i++) {
		if (copy_from_user(&v, &uwaitv[i], sizeof(v)))
			return -EFAULT;
		if ((v.flags & ~(FUTEX2_SIZE_MASK | FUTEX2_PRIVATE)) || v.reserved ||
		    (v.flags & FUTEX2_SIZE_MASK) != FUTEX2_SIZE_U32 || v.val >> 32)
			return -EINVAL;
		w[i] = (struct futex_waiter){ .key = { .offset = v.uaddr,
						       .private = v.flags & FUTEX2_PRIVATE },
					      .bitset = FUTEX_BITSET_MATCH_ANY, .val = v.val,
					      .sleeper = sleeper };
	}
	for (i = 0; i < n; i++) {
		if (w[i].key.offset % 4)
			return -EINVAL;
		if (!access_ok((void __user *)w[i].key.offset, 4))
			return -EFAULT;
	}
	for (i = 0; i < n; i++) {
		uint64_t uaddr = w[i].key.offset;

		if (get_futex_key(current()->mm, uaddr, w[i].key.private, &w[i].key))
			return -EFAULT;
		if (get_user(cur, (uint32_t __user *)uaddr))
			return -EFAULT;
		if (cur != w[i].val)
			return -EAGAIN;
	}
	return 0;
}

long sys_futex_waitv(const struct futex_waitv __user *uwaitv, unsigned int n, unsigned int flags,
		     const struct timespec __user *timeout, int clock)
{
	struct process *p = current();
	struct futex_waiter *w;
	struct deadline deadline;
	long err, woken = -1;
	unsigned int i;

	if (flags || !n || n > FUTEX_WAITV_MAX || !uwaitv)
		return -EINVAL;
	if (timeout && clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
		return -EINVAL;
	if ((err = futex_deadline(FUTEX_WAIT_BITSET | (clock == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0),
				  timeout, &deadline)))
		return err;
	if (!(w = kzalloc(n * sizeof(*w))))
		return -ENOMEM;
	if ((err = waitv_setup(w, uwaitv, n, deadline_chan(&deadline, w)))) {
		for (i = 0; i < n; i++)
			put_futex_key(&w[i].key);
		kfree(w);
		return err;
	}
	for (i = 0; i < n; i++)
		futex_enqueue(&w[i]);
	while (!signal_pending(p) && !deadline_passed(&deadline)) {
		for (i = 0; i < n && w[i].queued; i++)
			;
		if (i < n)
			break;
		sleep_until_deadline(w->sleeper, &deadline);
	}
	for (i = 0; i < n; i++) {
		if (w[i].queued)
			futex_dequeue(&w[i]);
		else
			woken = i;
		put_futex_key(&w[i].key);
	}
	kfree(w);
	if (woken >= 0)
		return woken;
	return signal_pending(p) ? -ERESTARTSYS : -ETIMEDOUT;
}
