/* Spinlocks, interrupts off while one is held, the kernel lock, and lockdebug's checks. */
#include <ccos/spinlock.h>
#include <ccos/boot.h>
#include <ccos/printk.h>
#include <ccos/proc.h>
#include <asm/arch.h>

/*
 * As xv6's push_off/pop_off: spin_lock turns interrupts off on this CPU
 * before it spins, so an interrupt handler can never spin on a lock that
 * the code it interrupted holds. Locks nest, so the CPU counts: the
 * outermost push remembers whether interrupts were on, the matching pop
 * puts them back.
 */
void push_irq_off(void)
{
	bool was_on = read_rflags() & RFLAGS_IF;
	struct percpu *c;

	cli();
	c = this_cpu();
	if (!c->irq_off_depth++)
		c->irq_was_on = was_on;
}

void pop_irq_off(void)
{
	struct percpu *c = this_cpu();

	if (read_rflags() & RFLAGS_IF)
		panic("pop_irq_off on CPU %d: interrupts are on inside a spinlock", c->cpu);
	if (c->irq_off_depth <= 0)
		panic("pop_irq_off on CPU %d: no matching push_irq_off", c->cpu);
	if (!--c->irq_off_depth && c->irq_was_on)
		sti();
}

bool spin_held(const struct spinlock *l)
{
	return READ_ONCE(l->locked) && READ_ONCE(l->cpu) == this_cpu()->cpu;
}

/* lockdebug: a lock this CPU already holds would spin forever. */
const char *lockdebug_acquire_problem(const struct spinlock *l)
{
	return spin_held(l) ? "taken twice on the same CPU" : NULL;
}

/* lockdebug: switching away from a process holding a spinlock leaves it held by no one running. */
const char *lockdebug_switch_problem(void)
{
	if (this_cpu()->locks_held)
		return "a spinlock held while switching to another process or sleeping";
	if (!spin_held(&kernel_lock))
		return "switching without the kernel lock";
	return NULL;
}

static void lockdebug_check_acquire(const struct spinlock *l)
{
	const char *problem = lockdebug_acquire_problem(l);

	if (problem)
		panic("lockdebug: %s: %s", l->name, problem);
}

void lockdebug_check_switch(void)
{
	const char *problem;

	if (boot_options.lockdebug && (problem = lockdebug_switch_problem()))
		panic("lockdebug: CPU %d: %s", this_cpu()->cpu, problem);
}

/*
 * One atomic exchange wins the lock; losers spin on plain reads, which
 * stay in their cache, with `pause` (it tells the CPU this is a spin
 * loop: on a hyperthread it yields to the sibling, and the exit from the
 * loop needs no memory-order rollback). Returns the TSC cycles it waited.
 */
static uint64_t acquire(struct spinlock *l, bool answer_tlb)
{
	uint64_t start;

	if (!__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		l->cpu = this_cpu()->cpu;
		return 0;
	}
	start = rdtsc();
	do {
		while (READ_ONCE(l->locked)) {
			if (answer_tlb)
				tlb_shootdown_poll();
			pause();
		}
	} while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE));
	l->cpu = this_cpu()->cpu;
	return rdtsc() - start + 1;
}

static void release(struct spinlock *l)
{
	if (l->cpu != this_cpu()->cpu)
		panic("spin_unlock(%s) on CPU %d, which does not hold it (holder: %d)", l->name,
		      this_cpu()->cpu, l->cpu);
	WRITE_ONCE(l->cpu, -1);
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

void spin_lock(struct spinlock *l)
{
	push_irq_off();
	if (boot_options.lockdebug)
		lockdebug_check_acquire(l);
	acquire(l, false);
	this_cpu()->locks_held++;
}

void spin_unlock(struct spinlock *l)
{
	this_cpu()->locks_held--;
	release(l);
	pop_irq_off();
}

/*
 * The kernel lock is held across a switch (the scheduler takes it over),
 * and with interrupts on in irq_window: no interrupt handler ever spins on
 * it while its CPU holds it (arch/x86/entry/common.c takes it for an
 * interrupt only where its CPU was outside it). So it leaves interrupts
 * alone. A CPU waiting for it keeps answering TLB shootdowns
 * (arch/x86/tlb.c): the holder may be waiting for its answer.
 */
DEFINE_SPINLOCK(kernel_lock);

void lock_kernel(void)
{
	struct percpu *c;
	uint64_t waited;

	if (boot_options.lockdebug)
		lockdebug_check_acquire(&kernel_lock);
	waited = acquire(&kernel_lock, true);
	c = this_cpu();
	c->klock_taken++;
	if (waited) {
		c->klock_waited++;
		c->klock_wait_cycles += waited;
	}
}

void unlock_kernel(void)
{
	release(&kernel_lock);
}

/* lockdebug: code that needs the kernel lock asks for it to be held here. */
const char *lockdebug_kernel_lock_problem(void)
{
	return spin_held(&kernel_lock) ? NULL : "the kernel lock is not held";
}

void assert_kernel_locked(void)
{
	const char *problem;

	if (boot_options.lockdebug && (problem = lockdebug_kernel_lock_problem()))
		panic("lockdebug: CPU %d: %s", this_cpu()->cpu, problem);
}
