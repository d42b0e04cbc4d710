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

/* futex's operations and flags (linux/futex.h); Linux answers ENOSYS to the others. */
#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_REQUEUE		3
#define FUTEX_CMP_REQUEUE	4
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAKE_BITSET	10
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_BITSET_MATCH_ANY	0xffffffffu

/*
 * A futex is a 32-bit word of user memory. FUTEX_WAIT sleeps while the
 * word holds the value the caller saw; FUTEX_WAKE wakes sleepers on it.
 * The kernel keeps no state for a futex, only the queue of its waiters.
 *
 * The key of a futex is (address space, address, private or not). As on
 * Linux, a private wait is woken only by a private wake and a shared one
 * by a shared wake (the kernel's wake at a thread's exit,
 * CLONE_CHILD_CLEARTID, is shared, and so is musl's pthread_join). A
 * shared futex is keyed by its address space too, where Linux keys one
 * in shared memory by the page: ccos has no memory shared between address
 * spaces (mmap refuses MAP_SHARED; fork copies), so only the threads of a
 * process (and a vfork child) can meet on one.
 *
 * One queue, in arrival order, holds every waiter; each waiter's entry
 * lives on its own kernel stack (futex_waitv's in a kmalloc'd vector)
 * while it sleeps, and names what it sleeps on (several entries of one
 * futex_waitv sleep on the same). The queue is the kernel
 * lock's (docs/smp.md): a waiter reads the word, compares and queues
 * itself under it, and sleeps with it (the scheduler takes it over), so a
 * wake on another CPU cannot slip in between.
 */
struct futex_waiter {
	struct mm *mm;
	uint64_t uaddr;
	bool private;
	uint32_t bitset;
	bool queued;
	uint32_t val;		/* futex_waitv's: the value it waits while the word holds */
	const void *sleeper;	/* the channel its thread sleeps on */
	struct futex_waiter *next;
};

static struct futex_waiter *queue;

static void enqueue(struct futex_waiter *w)
{
	struct futex_waiter **pp = &queue;

	while (*pp)
		pp = &(*pp)->next;
	w->next = NULL;
	w->queued = true;
	*pp = w;
}

static void dequeue(struct futex_waiter *w)
{
	struct futex_waiter **pp;

	for (pp = &queue; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			w->queued = false;
			return;
		}
	}
}

/*
 * Wake up to n waiters on (mm, uaddr, private) whose bitset meets bitset, in the
 * order they came; then move up to n2 more to (mm, uaddr2) if requeue is
 * asked for. The count of those woken and moved.
 */
static long wake_and_requeue(struct mm *mm, uint64_t uaddr, bool private, uint32_t bitset,
			     long n, uint64_t uaddr2, long n2)
{
	struct futex_waiter *w, *next;
	long done = 0;

	for (w = queue; w; w = next) {
		next = w->next;
		if (w->mm != mm || w->uaddr != uaddr || w->private != private ||
		    !(w->bitset & bitset))
			continue;
		if (n > 0) {
			dequeue(w);
			wakeup(w->sleeper);
			n--;
		} else if (n2 > 0) {
			w->uaddr = uaddr2;
			n2--;
		} else {
			break;
		}
		done++;
	}
	return done;
}

long futex_wake(struct mm *mm, uint64_t uaddr, int n)
{
	return wake_and_requeue(mm, uaddr, false, FUTEX_BITSET_MATCH_ANY, n, 0, 0);
}

/* Sleep while *uaddr == val, until a wake, the deadline (ns, 0 for none) or a signal. */
static long futex_wait(uint32_t __user *uaddr, bool private, uint32_t val, uint64_t deadline,
		       uint32_t bitset)
{
	struct process *p = current();
	struct futex_waiter w = { .mm = p->mm, .uaddr = (uint64_t)uaddr, .private = private,
				  .bitset = bitset, .sleeper = &w };
	uint32_t cur;

	if (get_user(cur, uaddr))
		return -EFAULT;
	if (cur != val)
		return -EAGAIN;		/* it changed already: the caller looks again */
	enqueue(&w);
	while (w.queued && !signal_pending(p) && (!deadline || ktime_get_ns() < deadline))
		sleep_until(&w, deadline);
	if (!w.queued)
		return 0;
	dequeue(&w);
	return signal_pending(p) ? -EINTR : -ETIMEDOUT;
}

/*
 * The deadline on CLOCK_MONOTONIC in ns: FUTEX_WAIT's timeout is relative
 * (monotonic), FUTEX_WAIT_BITSET's absolute, on CLOCK_REALTIME if the op
 * says so. 0 (none) for no timeout or one past the end of time; 1 for one
 * already past.
 */
static long futex_deadline(int op, const struct timespec __user *utime, uint64_t *deadline)
{
	struct timespec ts, now;
	int64_t ns, mono = ktime_get_ns();

	*deadline = 0;
	if (!utime)
		return 0;
	if (copy_from_user(&ts, utime, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= NSEC_PER_SEC)
		return -EINVAL;
	if (ts.tv_sec > (1l << 62) / NSEC_PER_SEC)
		return 0;
	ns = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	if ((op & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)) == FUTEX_WAIT) {
		*deadline = mono + ns;
		return 0;
	}
	do_clock_gettime(op & FUTEX_CLOCK_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC, &now);
	ns += mono - (now.tv_sec * NSEC_PER_SEC + now.tv_nsec);	/* now on CLOCK_MONOTONIC */
	*deadline = ns > 0 ? ns : 1;
	return 0;
}

/*
 * futex(uaddr, op, val, timeout or val2, uaddr2, val3). The word must be
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
	uint64_t deadline;
	uint32_t cur;

	if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET)
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
		return futex_wait(uaddr, private, val, deadline, val3);
	case FUTEX_WAKE:
		val3 = FUTEX_BITSET_MATCH_ANY;
		/* fall through */
	case FUTEX_WAKE_BITSET:
		if (!val3)
			return -EINVAL;
		if (!private && !mm_find_vma(mm, (uint64_t)uaddr))
			return -EFAULT;
		/* As Linux, a count of 0 (or less) still wakes one. */
		return wake_and_requeue(mm, (uint64_t)uaddr, private, val3, MAX((int)val, 1), 0, 0);
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
		return wake_and_requeue(mm, (uint64_t)uaddr, private, FUTEX_BITSET_MATCH_ANY,
					(int)val, (uint64_t)uaddr2, n2);
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

/* The waiters, checked in Linux's order: each one's fields, then every address, then every word. */
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
		w[i] = (struct futex_waiter){ .mm = current()->mm, .uaddr = v.uaddr,
					      .private = v.flags & FUTEX2_PRIVATE,
					      .bitset = FUTEX_BITSET_MATCH_ANY, .val = v.val,
					      .sleeper = sleeper };
	}
	for (i = 0; i < n; i++) {
		if (w[i].uaddr % 4)
			return -EINVAL;
		if (!access_ok((void __user *)w[i].uaddr, 4))
			return -EFAULT;
	}
	for (i = 0; i < n; i++) {
		if (get_user(cur, (uint32_t __user *)w[i].uaddr))
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
	uint64_t deadline = 0;
	long err, woken = -1;
	unsigned int i;

	if (flags || !n || n > FUTEX_WAITV_MAX || !uwaitv)
		return -EINVAL;
	if (timeout && clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
		return -EINVAL;
	if ((err = futex_deadline(FUTEX_WAIT_BITSET | (clock == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0),
				  timeout, &deadline)))
		return err;
	if (!(w = kmalloc(n * sizeof(*w))))
		return -ENOMEM;
	if ((err = waitv_setup(w, uwaitv, n, w))) {
		kfree(w);
		return err;
	}
	for (i = 0; i < n; i++)
		enqueue(&w[i]);
	while (!signal_pending(p) && (!deadline || ktime_get_ns() < deadline)) {
		for (i = 0; i < n && w[i].queued; i++)
			;
		if (i < n)
			break;
		sleep_until(w, deadline);
	}
	for (i = 0; i < n; i++) {
		if (w[i].queued)
			dequeue(&w[i]);
		else
			woken = i;
	}
	kfree(w);
	if (woken >= 0)
		return woken;
	return signal_pending(p) ? -ERESTARTSYS : -ETIMEDOUT;
}
