/* The entry layer: every way into the kernel and back out, and where the kernel lock is taken. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/errno.h>
#include <ccos/spinlock.h>
#include <ccos/lab.h>
#include <ccos/time.h>
#include <asm/unistd_64.h>
#include <asm/vsyscall.h>
#include <asm/x86.h>
#include <ccos/vm.h>
#include <ccos/lab.h>

/*
 * The one rule of the kernel lock (docs/smp.md): kernel code runs inside
 * it, and this file takes it, on every entry from user mode (a system
 * call, an exception) and on every device interrupt, and lets it go on
 * the way back. The lockless calls are the exception: the system calls
 * marked in syscall_lockless and the vsyscall page's calls, which are
 * three of them by another door. They run without it, and take it here
 * only for what needs it: the work of the way back, a failure's signal,
 * a user page their copy meets that must be made ready first, the
 * areas the vsyscall emulation's slow way reads, or a CPU-time clock's
 * other threads (clock_gettime and clock_getres on one). The tick and the IPIs need it for nothing. Below this layer
 * code asserts the lock where it needs it (assert_kernel_locked), and
 * lockdebug checks the assertions. Besides this file only the scheduler
 * (which holds it across switches and lets it go to halt) and each CPU's
 * start (kmain, ap_main) take it.
 */

/* This CPU's need_resched, tested in one GS-relative compare. */
static inline bool need_resched(void)
{
	__asm__ goto("cmpb $0, %%gs:%c0\n\tjne %l[yes]"
		     : : "i"(offsetof(struct percpu, need_resched)) : "cc" : yes);
	return false;
yes:
	return true;
}

/* The way back's work, inside the lock: a reschedule, then the signals. */
static void exit_work(struct trap_frame *tf)
{
	if (need_resched())
		yield();
	deliver_signals(tf);
}

/* Is there any? One GS-relative compare, and the two pending sets or-ed into one test. */
static inline bool exit_work_pending(void)
{
	struct process *p = current();

	return need_resched() || (p->sig.pending | p->group_leader->sig.shared_pending);
}

/* The way back from a lockless entry, which takes the lock for its work (also trap_return's). */
void return_to_user_work(struct trap_frame *tf)
{
	lock_kernel();
	exit_work(tf);
	unlock_kernel();
}

/*
 * The last step before a return to user mode from a lockless entry. Most
 * have nothing to do. A mask to put back needs no test of its own:
 * rt_sigsuspend and ppoll leave restore_mask set only when they return
 * with a signal pending. A rip above the user half is the way out's to
 * test (trap_return), where the sysret path tests it anyway.
 */
static inline void return_to_user(struct trap_frame *tf)
{
	if (exit_work_pending())
		return_to_user_work(tf);
}

/* The same from a locked entry: the work, then the lock let go. */
static void unlock_to_user(struct trap_frame *tf)
{
	if (exit_work_pending())
		exit_work(tf);
	unlock_kernel();
}

/* LAB syscall: BEGIN */
/* Seccomp strict mode (Linux's SECCOMP_MODE_STRICT): these four only. */
static bool seccomp_allows(uint64_t nr)
{
	return nr == __NR_read || nr == __NR_write || nr == __NR_exit || nr == __NR_rt_sigreturn;
}

/*
 * Every call but the lockless ones and the unknown numbers (out of line:
 * those pay nothing for it). A number past the table is -ENOSYS, as on
 * Linux: every number in it has an entry (sys_ni_syscall for the holes),
 * so a bounds check is all the dispatch needs. The six arguments are the
 * registers that the entry saved: rdi rsi rdx r10 r8 r9, r10 where a C
 * call has rcx, which SYSCALL overwrote with the return address.
 */
static __noinline void syscall_locked(struct trap_frame *tf, uint64_t nr)
{
	lock_kernel();
	if (current()->seccomp_mode && !seccomp_allows(nr))
		proc_exit(SIGKILL);
	tf->rax = nr < NR_SYSCALLS ? syscall_table[nr](tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9)
				   : -ENOSYS;
	/*
	 * A call a signal interrupted: deliver_signals restarts it or makes
	 * it -EINTR, even when no signal is left to deliver (another thread
	 * took it). Only here: the lockless calls do not sleep.
	 */
	if (tf->rax == (uint64_t)-ERESTARTSYS || tf->rax == (uint64_t)-ERESTARTNOINTR)
		exit_work(tf);
	unlock_to_user(tf);
}

/*
 * From arch/x86/entry/syscall_entry.asm: the call in rax, on the frame the
 * entry pushed; the result goes back in the frame's rax, which the way out
 * restores. The number is the low half of rax, unsigned, as Linux's
 * do_syscall_64(regs, int nr) takes it: the upper half is ignored
 * (0x100000027 is getpid), a negative int is past the table, and so is
 * every number with the x32 bit (0x40000000), an ABI ccos does not have.
 */
void syscall_dispatch(struct trap_frame *tf)
{
	uint32_t low_half;
	uint64_t nr;
	struct process *p = current();

	/*
	 * One 32-bit load of rax's low half (the x86 is little-endian), which
	 * zero-extends; a cast of the whole field costs the null call one
	 * instruction more (make bench).
	 */
	__builtin_memcpy(&low_half, &tf->rax, sizeof(low_half));
	nr = low_half;

	if (nr < NR_SYSCALLS && p->lockless_syscalls[nr]) {
		tf->rax = syscall_table[nr](tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9);
		return_to_user(tf);
		return;
	}
	/* A number with no call: nothing to lock (strict seccomp is killed the locked way). */
	if ((nr >= NR_SYSCALLS || syscall_table[nr] == SYS_NI) && !p->seccomp_mode) {
		tf->rax = -ENOSYS;
		return_to_user(tf);
		return;
	}
	syscall_locked(tf, nr);
}
/* LAB syscall: STUB
// From arch/x86/entry/syscall_entry.asm: the call's number in tf->rax, its
// six arguments in the registers the entry saved in *tf.
void syscall_dispatch(struct trap_frame *tf)
{
	// 1. The number: the low 32 bits of rax, unsigned (Linux ignores the
	//    upper half). Past the table (NR_SYSCALLS entries, holes filled
	//    with sys_ni_syscall) it is -ENOSYS, as on Linux; a negative
	//    int is past it too.
	// 2. A lockless call (current()->lockless_syscalls[nr]) runs at once,
	//    then return_to_user(tf).
	// 3. A number with no call (past the table, or its entry SYS_NI) from
	//    a process not in strict seccomp: -ENOSYS at once, without the lock,
	//    then return_to_user(tf).
	// 4. Any other: lock_kernel(); a strict-seccomp process
	//    (current()->seccomp_mode) may make only read, write, exit and
	//    rt_sigreturn, any other kills it (proc_exit(SIGKILL)).
	// 5. Call syscall_table[nr] with the six argument registers of the
	//    x86-64 system call ABI, in order; the result goes in tf->rax.
	// 6. -ERESTARTSYS or -ERESTARTNOINTR: exit_work(tf), which restarts
	//    the call or makes it -EINTR, even with no signal left to deliver.
	// 7. unlock_to_user(tf).
	lab_todo("00-syscall");
	(void)tf;
	lockless_exit(SIGSYS);	// until then every system call kills its caller
}
   LAB syscall: END */

/* A new process's first return to user mode: it holds the scheduler's lock (proc_alloc). */
void ret_from_fork(void)
{
	unlock_to_user(current()->tf);
}

static bool device_interrupt(uint64_t vector)
{
	return vector - IRQ_BASE < 16;
}

/*
 * From kernel mode: a kernel fault, or an interrupt. Interrupts are on
 * in the kernel only inside the lock (irq_window, kmain) or in the idle
 * loop's halt, outside it (percpu.outside_lock): a device interrupt
 * finds the lock held or takes it.
 */
static void trap_from_kernel(struct trap_frame *tf)
{
	if (device_interrupt(tf->vector) && this_cpu()->outside_lock) {
		lock_kernel();
		trap_handlers[tf->vector](tf);
		unlock_kernel();
		return;
	}
	if (device_interrupt(tf->vector))
		assert_kernel_locked();
	trap_handlers[tf->vector](tf);
}

/* Every trap but the vsyscall page's calls. */
static void trap_other(struct trap_frame *tf)
{
	uint64_t addr;

	if (!user_mode(tf)) {
		trap_from_kernel(tf);
		return;
	}
	/* The vsyscall page's other faults: vsyscall_fault may warn, or emulate too. */
	if (tf->vector == X86_PF && in_vsyscall_page(addr = read_cr2()) && vsyscall_fault(tf, addr)) {
		return_to_user(tf);
		return;
	}
	/* The tick and the IPIs: lockless. */
	if (tf->vector >= 32 && !device_interrupt(tf->vector)) {
		trap_handlers[tf->vector](tf);
		return_to_user(tf);
		return;
	}
	lock_kernel();
	trap_handlers[tf->vector](tf);
	unlock_to_user(tf);
}

/* A call of the vsyscall page, lockless as the three system calls it stands for. */
static void vsyscall_call(struct trap_frame *tf)
{
	/* LAB gate: BEGIN */
	/*
	 * Vector 0xcc's way in (trap_entries below) and out: the emulation
	 * without the kernel lock, then the way back's work, which delivers
	 * the signal the emulation may have sent. From the kernel it panics,
	 * never to return.
	 */
	emulate_vsyscall(tf);
	return_to_user(tf);
	/* LAB gate: STUB
	// Vector 0xcc's entry path, called by trap_dispatch (trap_entries
	// below): run the emulation (emulate_vsyscall, lab 3's) without the
	// kernel lock, as the system calls it stands for, then take the way
	// back to user mode that a lockless entry takes, which delivers a
	// signal the emulation sent.
	lab_todo("02-gate");
	(void)tf;
	   LAB gate: END */
}

/* A page fault: first the one that is no failure, xonly's call into the vsyscall page. */
static void page_fault_entry(struct trap_frame *tf)
{
	/* LAB xonly: BEGIN */
	if (is_xonly_call(tf, read_cr2())) {
		vsyscall_call(tf);
		return;
	}
	/* LAB xonly: STUB
	// The fast path (docs/labs/04-xonly.md): a call in xonly
	// (is_xonly_call on CR2) goes straight to vsyscall_call, lockless,
	// as int $0xcc does; every other fault goes on to trap_other, which
	// asks vsyscall_fault about faults in the page.
	lab_todo("04-xonly");
	   LAB xonly: END */
	trap_other(tf);
}

/*
 * How each vector comes in: the vsyscall page's calls first, each in a
 * function of its own, so that they pay for no test of the others.
 * Every other vector starts at trap_other. The override is the point:
 * GCC's -Woverride-init would warn of it.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static void (*const trap_entries[256])(struct trap_frame *tf) = {
	[0 ... 255] = trap_other,
	[X86_PF] = page_fault_entry,
	[VSYSCALL_EMU_VECTOR] = vsyscall_call,
};
#pragma GCC diagnostic pop

/* From arch/x86/entry/trap_entry.asm: every vector, on the frame the stub pushed. */
void trap_dispatch(struct trap_frame *tf)
{
	trap_entries[tf->vector](tf);
}

/*
 * A lockless call that fails after all and must signal (the vsyscall
 * emulation: a bad entry, stack or pointer; a strict-seccomp caller):
 * the signal is sent inside the lock, taken here for it.
 */
void lockless_force_sig_fault(int sig, int code, uint64_t addr, struct trap_frame *tf)
{
	lock_kernel();
	force_sig_fault(sig, code, addr, tf);
	unlock_kernel();
}

void lockless_exit(int status)
{
	lock_kernel();
	proc_exit(status);
}

/*
 * A user access of the kernel's that faults on a page the process's memory
 * can make ready (its first touch, or the copy of a page fork shares:
 * mm/fault.c). The memory is the lock's: a locked call holds it; a
 * lockless one (this CPU does not hold it) takes it here. The fault came
 * from kernel code, so which of the two was running is the lock's state.
 */
int uaccess_handle_mm_fault(struct mm *mm, uint64_t addr, unsigned int access)
{
	int err;

	if (spin_held(&kernel_lock))
		return handle_mm_fault(mm, addr, access);
	lock_kernel();
	err = handle_mm_fault(mm, addr, access);
	unlock_kernel();
	return err;
}

/* A lockless call's step that needs the process's areas to hold still: fn(tf) inside the lock. */
long lockless_with_areas(long (*fn)(const struct trap_frame *tf), const struct trap_frame *tf)
{
	long ret;

	lock_kernel();
	ret = fn(tf);
	unlock_kernel();
	return ret;
}

/*
 * clock_gettime or clock_getres, lockless, on a CPU-time clock
 * (kernel/time/posix-cpu-timers.c): fn(clock, ts) inside the lock, which
 * the threads' runtimes (the scheduler adds to them at each switch) and
 * the process table need. Only those clocks pay for it.
 */
int lockless_cpu_clock(int (*fn)(clockid_t clock, struct timespec *ts), clockid_t clock,
		       struct timespec *ts)
{
	int ret;

	lock_kernel();
	ret = fn(clock, ts);
	unlock_kernel();
	return ret;
}
