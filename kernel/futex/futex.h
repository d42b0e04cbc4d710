/* What the futex files share (kernel/futex/): the keys, the queue of waiters, the lock word's bits. */
#ifndef KERNEL_FUTEX_H
#define KERNEL_FUTEX_H

#include <ccos/types.h>

struct mm;

/* futex's operations and flags (linux/futex.h); Linux answers ENOSYS to the others. */
#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_REQUEUE		3
#define FUTEX_CMP_REQUEUE	4
#define FUTEX_LOCK_PI		6
#define FUTEX_UNLOCK_PI		7
#define FUTEX_TRYLOCK_PI	8
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAKE_BITSET	10
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_CMP_REQUEUE_PI	12
#define FUTEX_LOCK_PI2		13
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_BITSET_MATCH_ANY	0xffffffffu

/*
 * A lock word of a PI or robust mutex holds its owner's thread id in its
 * low 30 bits, FUTEX_WAITERS when someone sleeps on it, and
 * FUTEX_OWNER_DIED once the kernel has found its owner dead.
 */
#define FUTEX_WAITERS		0x80000000u
#define FUTEX_OWNER_DIED	0x40000000u
#define FUTEX_TID_MASK		0x3fffffffu
#define CMPXCHG_TRIES		64	/* a word that keeps changing under us is given up */

struct futex_key {
	const void *space;	/* the address space, or the shared memory object */
	uint64_t offset;	/* the address in it, or the offset in the object */
	bool private;
	bool shmem;		/* space is an object, and the key holds a reference to it */
};

/*
 * A sleeper on a futex, in the one queue. A PI waiter (pi) waits for the
 * lock word's ownership, which FUTEX_UNLOCK_PI hands it (got_lock), or
 * its owner's death (owner_died: the thread owner, which held the lock,
 * is gone); a waiter of FUTEX_WAIT_REQUEUE_PI (requeue_pi) waits on a
 * condition's word to be moved onto the PI lock at key2 by
 * FUTEX_CMP_REQUEUE_PI.
 */
struct futex_waiter {
	struct futex_key key, key2;
	uint32_t bitset;
	bool queued;
	bool pi, requeue_pi, got_lock, owner_died;
	uint32_t tid;		/* a PI waiter's thread id, which the lock word gets */
	uint32_t owner;		/* a PI waiter's: the id of the lock's owner */
	uint32_t val;		/* futex_waitv's: the value it waits while the word holds */
	const void *sleeper;	/* the channel its thread sleeps on */
	struct futex_waiter *next;
};

extern struct futex_waiter *futex_queue;	/* every waiter, in arrival order */
void futex_enqueue(struct futex_waiter *w);
void futex_dequeue(struct futex_waiter *w);
int get_futex_key(struct mm *mm, uint64_t uaddr, bool private, struct futex_key *key);
void put_futex_key(struct futex_key *key);
void futex_key_copy(struct futex_key *to, const struct futex_key *from);	/* with its own reference */
bool same_key(const struct futex_key *a, const struct futex_key *b);
long futex_cmpxchg_user(uint32_t __user *p, uint32_t *old, uint32_t new);	/* robust.c */

/* pi.c: the PI operations, called by sys_futex with the key's private flag and the deadline. */
struct deadline;
long futex_lock_pi(uint32_t __user *uaddr, bool private, const struct deadline *deadline, bool trylock);
long futex_unlock_pi(uint32_t __user *uaddr, bool private);
long futex_wait_requeue_pi(uint32_t __user *uaddr, bool private, uint32_t val,
			   const struct deadline *deadline, uint32_t __user *uaddr2);
long futex_cmp_requeue_pi(uint32_t __user *uaddr, bool private, int nr_requeue,
			  uint32_t __user *uaddr2, uint32_t cmpval);

#endif
