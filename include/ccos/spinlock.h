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
 * as Linux 2.0 had it. See docs/smp.md for who takes it and why.
 */
extern struct spinlock kernel_lock;
void lock_kernel(void);
void unlock_kernel(void);
/* For code reached both inside and outside the lock: true if it took it (then unlock). */
bool lock_kernel_if_needed(void);

/* lockdebug (kernel command line): what is wrong, or NULL; kernel/locking/spinlock_test.c. */
const char *lockdebug_acquire_problem(const struct spinlock *l);
const char *lockdebug_switch_problem(void);
void lockdebug_check_switch(void);

#endif
