/* Robust futexes: set_robust_list, get_robust_list, and the walk of a dying thread's list. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>
#include "futex.h"

/*
 * Each thread tells the kernel where its C library keeps the list of the
 * robust mutexes it holds: Linux's struct robust_list_head, 24 bytes. The
 * list is circular through the head; an entry is the `next` field inside
 * a mutex, and the mutex's lock word sits futex_offset bytes from it.
 * list_op_pending names the mutex being locked or unlocked, not yet (or
 * no longer) on the list. Bit 0 of a pointer marks a PI mutex.
 */
struct robust_list_head {
	uint64_t next;
	int64_t futex_offset;
	uint64_t list_op_pending;
};

#define ROBUST_LIST_LIMIT	2048	/* Linux's: a list longer (or looping) ends the walk */

long sys_set_robust_list(uint64_t head, size_t len)
{
	if (len != sizeof(struct robust_list_head))
		return -EINVAL;
	current()->robust_list = head;
	return 0;
}

long sys_get_robust_list(int tid, uint64_t __user *head, size_t __user *len)
{
	struct process *p = tid ? proc_find(tid) : current();

	if (!p)
		return -ESRCH;
	if (put_user(p->robust_list, head) ||
	    put_user(sizeof(struct robust_list_head), len))
		return -EFAULT;
	return 0;
}

/*
 * *p = new if *p == *old, atomically with respect to the other CPUs (the
 * thread's siblings run in user mode meanwhile): LOCK CMPXCHG compares EAX
 * with the dword and, if equal, stores the source there, else loads the
 * dword into EAX (SDM Vol. 2A, CMPXCHG). A fault leaves the word as it
 * was and goes to `fault` through the exception-fixup table.
 */
long futex_cmpxchg_user(uint32_t __user *p, uint32_t *old, uint32_t new)
{
	uint32_t seen = *old;

	if (!access_ok(p, sizeof(*p)))
		return -EFAULT;
	user_access_begin();
	__asm__ goto("1:	lock cmpxchgl %[new], %[m]\n"
		     "	.pushsection .extable, \"a\"\n"
		     "	.quad 1b, %l[fault]\n"
		     "	.popsection\n"
		     : "+a"(seen), [m] "+m"(*p) : [new] "r"(new) : "memory" : fault);
	user_access_end();
	*old = seen;
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/*
 * The lock word at uaddr, if the dead thread p owns it: mark it
 * FUTEX_OWNER_DIED (keeping FUTEX_WAITERS) so that the next locker gets
 * EOWNERDEAD, and wake one waiter if any sleeps on it (a shared wake, as
 * Linux's; a PI lock goes to its first waiter in exit_pi_locks). The
 * pending mutex of an unlock that had cleared the word but not yet woken
 * anyone gets its wake. -EFAULT stops the walk.
 */
static long owner_died(struct process *p, uint32_t __user *uaddr, bool pi, bool pending)
{
	uint32_t val, seen;
	int tries;

	if ((uint64_t)uaddr % sizeof(*uaddr))
		return -EFAULT;
	if (get_user(val, uaddr))
		return -EFAULT;
	if (pending && !pi && !val) {
		futex_wake(p->mm, (uint64_t)uaddr, 1);
		return 0;
	}
	for (tries = 0; tries < CMPXCHG_TRIES; tries++) {
		if ((val & FUTEX_TID_MASK) != (uint32_t)p->pid)
			return 0;		/* not its own: nothing to do */
		seen = val;
		if (futex_cmpxchg_user(uaddr, &seen, (val & FUTEX_WAITERS) | FUTEX_OWNER_DIED))
			return -EFAULT;
		if (seen == val)
			break;
		val = seen;			/* changed meanwhile: look again */
	}
	if (tries == CMPXCHG_TRIES)
		return -EFAULT;
	if (!pi && (val & FUTEX_WAITERS))
		futex_wake(p->mm, (uint64_t)uaddr, 1);
	return 0;		/* a PI lock's waiter is exit_pi_locks' to wake (pi.c) */
}

/* An entry of the list, without its PI bit; false if it cannot be read. */
static bool fetch_entry(const uint64_t __user *from, uint64_t *entry, bool *pi)
{
	uint64_t v;

	if (get_user(v, from))
		return false;
	*entry = v & ~1ul;
	*pi = v & 1;
	return true;
}

/*
 * When a thread leaves its address space (exit, exec), its robust list
 * is walked as Linux's exit_robust_list does: every mutex on it that the
 * thread still owns is marked and one waiter woken (a PI lock's by
 * exit_pi_locks, which the caller calls next), then the pending one.
 * The list is user memory and is trusted for nothing: an entry that
 * cannot be read ends the walk, and so does the 2048th, so that a list
 * that loops cannot hold the kernel. Every thread's list, the last
 * thread of its memory's too: a process-shared mutex in MAP_SHARED memory
 * has its waiters in other processes. Only for the current thread, whose
 * address space is the one loaded.
 */
void exit_robust_list(struct process *p)
{
	struct robust_list_head __user *head = (void __user *)p->robust_list;
	uint64_t entry, next, pending;
	bool pi, next_pi, pending_pi, more;
	int64_t offset;
	int limit = ROBUST_LIST_LIMIT;

	p->robust_list = 0;
	if (!head || p != current() || !p->mm)
		return;
	if (!fetch_entry(&head->next, &entry, &pi) || get_user(offset, &head->futex_offset) ||
	    !fetch_entry(&head->list_op_pending, &pending, &pending_pi))
		return;
	while (entry != (uint64_t)&head->next && limit--) {
		more = fetch_entry((const uint64_t __user *)entry, &next, &next_pi);
		if (entry != pending &&
		    owner_died(p, (uint32_t __user *)(entry + offset), pi, false))
			return;
		if (!more)
			return;
		entry = next;
		pi = next_pi;
	}
	if (pending)
		owner_died(p, (uint32_t __user *)(pending + offset), pending_pi, true);
}
