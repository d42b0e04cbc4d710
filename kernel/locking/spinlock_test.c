/* Tests of spinlocks: mutual exclusion, interrupts off while held, and lockdebug's two checks. */
#include <ccos/ktest.h>
#include <ccos/spinlock.h>
#include <ccos/boot.h>
#include <ccos/proc.h>
#include <asm/arch.h>

static DEFINE_SPINLOCK(test_lock);

/* Held: interrupts off, the holder recorded; released: both as before. */
KTEST(spinlock_keeps_interrupts_off_while_held)
{
	bool was_on = read_rflags() & RFLAGS_IF;

	spin_lock(&test_lock);
	KEXPECT(!(read_rflags() & RFLAGS_IF));
	KEXPECT(spin_held(&test_lock));
	KEXPECT_EQ(test_lock.cpu, this_cpu()->cpu);
	KEXPECT_EQ(this_cpu()->locks_held, 1);
	spin_unlock(&test_lock);
	KEXPECT(!spin_held(&test_lock));
	KEXPECT_EQ(test_lock.cpu, -1);
	KEXPECT_EQ(this_cpu()->locks_held, 0);
	KEXPECT_EQ(!!(read_rflags() & RFLAGS_IF), was_on);
}

/* Two locks nest: interrupts come back on only at the outer unlock. */
KTEST(spinlock_nesting_restores_interrupts_at_the_outermost)
{
	static DEFINE_SPINLOCK(inner);

	sti();
	spin_lock(&test_lock);
	spin_lock(&inner);
	spin_unlock(&inner);
	KEXPECT(!(read_rflags() & RFLAGS_IF));
	spin_unlock(&test_lock);
	KEXPECT(read_rflags() & RFLAGS_IF);
}

/*
 * lockdebug's checks, asked directly (spin_lock panics on what they
 * find): a lock that this CPU holds cannot be taken again, a switch must
 * hold the kernel lock and no other, and code that asserts the kernel
 * lock must hold it. The tests run inside the boot's kernel lock.
 */
KTEST(lockdebug_catches_a_lock_taken_twice)
{
	KEXPECT(lockdebug_acquire_problem(&test_lock) == NULL);
	spin_lock(&test_lock);
	KEXPECT(lockdebug_acquire_problem(&test_lock) != NULL);
	spin_unlock(&test_lock);
	KEXPECT(lockdebug_acquire_problem(&test_lock) == NULL);
}

KTEST(lockdebug_catches_a_lock_held_while_switching)
{
	KEXPECT(lockdebug_switch_problem() == NULL);
	spin_lock(&test_lock);
	KEXPECT(lockdebug_switch_problem() != NULL);
	spin_unlock(&test_lock);
	push_irq_off();			/* no device interrupt while the lock is let go */
	unlock_kernel();
	KEXPECT(lockdebug_switch_problem() != NULL);	/* no kernel lock */
	lock_kernel();
	pop_irq_off();
}

KTEST(lockdebug_catches_the_kernel_lock_missing)
{
	KEXPECT(lockdebug_kernel_lock_problem() == NULL);
	push_irq_off();
	unlock_kernel();
	KEXPECT(lockdebug_kernel_lock_problem() != NULL);
	lock_kernel();
	pop_irq_off();
	KEXPECT(lockdebug_kernel_lock_problem() == NULL);
}
