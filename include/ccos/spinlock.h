/* Spinlocks that keep interrupts off while held, and the kernel lock (kernel/locking/spinlock.c). */
#ifndef CCOS_SPINLOCK_H
#define CCOS_SPINLOCK_H

#include <ccos/types.h>

/*
 * A spinlock: one CPU at a time between spin_lock and spin_unlock, with
 * interrupts off on it meanwhile (so an interrupt handler on the same CPU
 * cannot spin on a lock its own CPU holds). Held only for a few steps,
 * never across a sleep or a switch. docs/smp.md lists every lock, what it
 * protects and their order.
 */
struct spinlock {
	int locked;		/* 0 free, 1 held: exchanged atomically */
	int cpu;		/* the holder, for the debug checks; -1 when free */
	const char *name;
};

#define SPINLOCK_INIT(n)	{ 0, -1, n }
#define DEFINE_SPINLOCK(x)	struct spinlock x = SPINLOCK_INIT(#x)

void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
bool spin_held(const struct spinlock *l);	/* by this CPU */

/* Interrupts off, nested: the outermost pop puts IF back as the first push found it. */
void push_irq_off(void);
void pop_irq_off(void);

/*
 * The kernel lock: the one big lock around process-level kernel code (the
 * process table, the scheduler's states, signals, address spaces, files),
 * as Linux 2.0 had it. Taken on the way in from user mode and from a
 * device (arch/x86/entry/common.c); docs/smp.md gives the rule and why.
 */
extern struct spinlock kernel_lock;
void lock_kernel(void);
void unlock_kernel(void);
/* Code that needs the kernel lock says so; lockdebug panics where it is not held. */
void assert_kernel_locked(void);

/* lockdebug (kernel command line): what is wrong, or NULL; kernel/locking/spinlock_test.c. */
const char *lockdebug_acquire_problem(const struct spinlock *l);
const char *lockdebug_switch_problem(void);
const char *lockdebug_kernel_lock_problem(void);
void lockdebug_check_switch(void);

#endif
