/* Signals: delivery, default actions, Linux's rt_sigframe, rt_sigreturn, masks, sigaltstack. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>
#include <ccos/spinlock.h>
#include <asm/arch.h>

#define MINSIGSTKSZ	2048

/* Linux's struct sigcontext: the registers in this order (asm/sigcontext.h). */
struct sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;		/* user address of the FPU state (arch/x86/fpu_signal.c) */
	uint64_t reserved[8];
};

struct ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	stack_t uc_stack;
	struct sigcontext uc_mcontext;
	uint64_t uc_sigmask;
};

/*
 * uc_flags, as Linux sets them for a 64-bit frame: the frame's ss is the
 * interrupted code's (not a field left over from the 32-bit layout), and
 * rt_sigreturn restores it as it is (strict) when the signal came from
 * 64-bit code; UC_FP_XSTATE, that the FPU state is an XSAVE image (where
 * the CPU has XSAVE).
 */
#define UC_FP_XSTATE		0x1
#define UC_SIGCONTEXT_SS	0x2
#define UC_STRICT_RESTORE_SS	0x4

/* What the handler finds at its rsp: the return address first. */
struct rt_sigframe {
	uint64_t pretcode;		/* sa_restorer, which calls rt_sigreturn */
	struct ucontext uc;
	siginfo_t info;
};

BUILD_BUG_ON(sizeof(struct sigcontext) != 256);
BUILD_BUG_ON(offsetof(struct ucontext, uc_mcontext) != 40);
BUILD_BUG_ON(offsetof(struct rt_sigframe, info) != 8 + 304);

/*
 * The most a frame takes below the stack pointer: the rt_sigframe, the
 * FPU state with its 64-byte alignment, the 16-byte alignment of the
 * frame. Linux's get_sigframe_size, which the auxiliary vector gives as
 * AT_MINSIGSTKSZ (5.14): with AVX, 1360 bytes.
 */
unsigned long sigframe_size_max(void)
{
	return ALIGN_UP(sizeof(struct rt_sigframe) + 16 + fpu_sigframe_size() + 63, 16);
}

/*
 * A fault of the current process: as Linux's force_sig_fault, a blocked or
 * ignored synchronous signal cannot be dodged, since returning would just
 * fault again: it is unblocked and its action reset to the default.
 */
void force_sig_fault(int sig, int code, uint64_t addr, struct trap_frame *tf)
{
	struct process *p = current();
	siginfo_t info = { .si_signo = sig, .si_code = code, .fault.addr = addr };
	struct k_sigaction *ka = &p->sig.action[sig - 1];

	assert_kernel_locked();

	if ((p->sig.blocked & SIGBIT(sig)) || ka->handler == SIG_IGN) {
		p->sig.blocked &= ~SIGBIT(sig);
		ka->handler = SIG_DFL;
	}
	p->sig.fault_trapno = tf->vector;
	p->sig.fault_err = tf->error_code;
	p->sig.fault_cr2 = sig == SIGSEGV || sig == SIGBUS ? addr : 0;
	send_signal_thread(p, sig, &info);
}

static bool on_altstack(const struct process *p, uint64_t sp)
{
	const stack_t *ss = &p->sig.altstack;

	return !(ss->ss_flags & SS_DISABLE) && sp > ss->ss_sp && sp <= ss->ss_sp + ss->ss_size;
}

/* The alternate stack set to *ss for a thread whose stack pointer is sp (Linux's do_sigaltstack). */
static long set_altstack(struct process *p, const stack_t *ss, uint64_t sp)
{
	if (on_altstack(p, sp))
		return -EPERM;		/* cannot change the stack a handler runs on */
	if (ss->ss_flags & ~(SS_DISABLE | SS_ONSTACK))
		return -EINVAL;
	if (ss->ss_flags & SS_DISABLE) {
		p->sig.altstack = (stack_t){ .ss_flags = SS_DISABLE };
		return 0;
	}
	if (ss->ss_size < MINSIGSTKSZ)
		return -ENOMEM;
	p->sig.altstack = (stack_t){ .ss_sp = ss->ss_sp, .ss_size = ss->ss_size };
	return 0;
}

/* Build the rt_sigframe on the user stack and point the registers at the handler. */
static bool setup_frame(struct process *p, struct k_sigaction *ka, const siginfo_t *info,
			struct trap_frame *tf)
{
	struct rt_sigframe f = { 0 };
	uint64_t sp = tf->rsp, fpstate, frame;
	struct sigcontext *sc = &f.uc.uc_mcontext;
	/* rt_sigreturn restores this: after rt_sigsuspend, the mask from before it */
	uint64_t old_mask = p->sig.restore_mask ? p->sig.saved_mask : p->sig.blocked;
	bool entering = false;

	if ((ka->flags & SA_ONSTACK) && !(p->sig.altstack.ss_flags & SS_DISABLE) &&
	    !on_altstack(p, sp)) {
		sp = p->sig.altstack.ss_sp + p->sig.altstack.ss_size;
		entering = true;
	} else {
		sp -= 128;			/* step over the red zone (psABI §3.2.2) */
	}
	fpstate = ALIGN_DOWN(sp - fpu_sigframe_size(), 64);
	frame = ALIGN_DOWN(fpstate - sizeof(f), 16) - 8;	/* as if just called */

	if (!(ka->flags & SA_RESTORER))
		return false;		/* x86-64 has no kernel-provided return trampoline */
	if (ka->handler >= USER_TOP)
		return false;		/* iretq to a non-canonical rip would fault in ring 0 */
	if ((entering || on_altstack(p, tf->rsp)) && !on_altstack(p, frame))
		return false;		/* the alternate stack is too small for the frame */
	f.pretcode = ka->restorer;
	f.uc.uc_flags = UC_SIGCONTEXT_SS | (user_64bit_mode(tf) ? UC_STRICT_RESTORE_SS : 0) |
			(fpu_xfeatures ? UC_FP_XSTATE : 0);
	f.uc.uc_stack = p->sig.altstack;
	f.uc.uc_stack.ss_flags = on_altstack(p, tf->rsp) ? SS_ONSTACK : p->sig.altstack.ss_flags;
	*sc = (struct sigcontext){
		tf->r8, tf->r9, tf->r10, tf->r11, tf->r12, tf->r13, tf->r14, tf->r15,
		tf->rdi, tf->rsi, tf->rbp, tf->rbx, tf->rdx, tf->rax, tf->rcx, tf->rsp,
		tf->rip, tf->rflags, tf->cs, 0, 0, tf->ss,
		.err = p->sig.fault_err, .trapno = p->sig.fault_trapno,
		.oldmask = old_mask, .cr2 = p->sig.fault_cr2, .fpstate = fpstate,
	};
	f.uc.uc_sigmask = old_mask;
	f.info = *info;

	/* The thread's own FPU area is free while it runs: the image is made there. */
	if (fpu_to_sigframe(p->fpu, fpstate) ||
	    copy_to_user((void __user *)frame, &f, sizeof(f)))
		return false;

	/* The handler runs with a clean FPU, DF clear and no single-stepping. */
	fpu_reset();
	tf->rdi = info->si_signo;
	tf->rsi = frame + offsetof(struct rt_sigframe, info);
	tf->rdx = frame + offsetof(struct rt_sigframe, uc);
	tf->rax = 0;
	tf->rsp = frame;
	tf->rip = ka->handler;
	tf->rflags &= ~(RFLAGS_TF | (1ul << 10) | RFLAGS_AC);
	/* 64-bit code, whatever ran (32-bit code too); SS kept if it is usable */
	tf->cs = USER_CS;
	force_valid_ss(tf);
	return true;
}

/*
 * The thread's mask: the signals of the process it stops taking may be
 * for another thread now (signal_retarget).
 */
static void set_blocked(struct process *p, uint64_t mask)
{
	uint64_t more = mask & ~UNBLOCKABLE & ~p->sig.blocked;

	p->sig.blocked = mask & ~UNBLOCKABLE;
	if (more & p->group_leader->sig.shared_pending)
		signal_retarget(p, more);
}

/*
 * A system call that a signal interrupted (-ERESTARTSYS) runs again, from
 * its syscall instruction (0f 05, two bytes back) with its number in rax
 * again, when the handler has SA_RESTART or no handler runs; otherwise it
 * returns -EINTR (Linux's handle_signal and arch_do_signal_or_restart).
 * -ERESTARTNOINTR (FUTEX_LOCK_PI's) runs again in every case. This comes
 * before the frame is built, so that rt_sigreturn goes back to the
 * restart.
 */
static void syscall_restart(struct trap_frame *tf, bool restart)
{
	if (tf->vector != SYSCALL_MARK || tf->error_code == NO_SYSCALL ||
	    (tf->rax != (uint64_t)-ERESTARTSYS && tf->rax != (uint64_t)-ERESTARTNOINTR))
		return;
	if (restart || tf->rax == (uint64_t)-ERESTARTNOINTR) {
		tf->rax = tf->error_code;
		tf->rip -= 2;
	} else {
		tf->rax = -EINTR;
	}
}

/* Act on the pending signals: true when a handler's frame is built (one handler at a time). */
static bool handle_pending(struct process *p, struct trap_frame *tf)
{
	siginfo_t info;
	int sig;

	while ((sig = dequeue_signal(p, &info))) {
		struct k_sigaction *ka = &p->sig.action[sig - 1];

		if (sig == SIGKILL || ka->handler == SIG_DFL) {
			if (sig != SIGKILL && sig_default_ignores(sig))
				continue;
			do_group_exit(sig);	/* the wait status of a signal death */
		}
		if (ka->handler == SIG_IGN)
			continue;
		syscall_restart(tf, ka->flags & SA_RESTART);
		if (!setup_frame(p, ka, &info, tf)) {
			/* No room for the frame: as Linux's force_sigsegv, a
			 * SIGSEGV, whose own handler may run elsewhere (on the
			 * alternate stack); fatal when it was the SIGSEGV's. */
			if (sig == SIGSEGV)
				do_group_exit(SIGSEGV);
			force_sig_fault(SIGSEGV, SI_KERNEL, 0, tf);
			continue;
		}
		set_blocked(p, p->sig.blocked | ka->mask |
				       (ka->flags & SA_NODEFER ? 0 : SIGBIT(sig)));
		if (ka->flags & SA_RESETHAND)
			ka->handler = SIG_DFL;
		p->sig.fault_trapno = p->sig.fault_err = p->sig.fault_cr2 = 0;
		p->sig.restore_mask = false;	/* the frame holds the mask to restore */
		return true;
	}
	return false;
}

void deliver_signals(struct trap_frame *tf)
{
	struct process *p = current();

	if (handle_pending(p, tf))
		return;
	syscall_restart(tf, true);
	/*
	 * iretq raises #GP in ring 0, before it reaches user mode, when the
	 * rip it returns to is not canonical, or the cs or ss that
	 * rt_sigreturn took from a frame names no ring-3 segment (SDM Vol. 2A
	 * IRET; arch/x86/user_segments.c). A syscall instruction in the last
	 * two bytes of user space leaves rcx, the return address, at
	 * 0x800000000000, and so does an int3 in the last byte: make that the
	 * #GP it would be in user mode, before the way out trips on it. Only
	 * when no handler runs first: a SIGTRAP handler for that int3 runs at
	 * a good rip, and its frame keeps the bad one for sigreturn to bring
	 * back.
	 */
	if (iret_would_fault(tf)) {
		force_sig_fault(SIGSEGV, SI_KERNEL, 0, tf);
		if (handle_pending(p, tf))
			return;
	}
	if (p->sig.restore_mask) {		/* rt_sigsuspend, and no handler ran */
		set_blocked(p, p->sig.saved_mask);
		p->sig.restore_mask = false;
	}
}

/*
 * Back from a handler: restore what the frame says, but only what user
 * mode may have: the rflags bits a program can set itself (no IOPL, no
 * VM; IF stays on), and cs and ss with RPL 3. rip, rsp, cs and ss are
 * taken as they are, as Linux takes them: they are the program's to get
 * wrong, and the return faults in user mode, a signal it may catch. A
 * kernel-half rip faults at its first fetch (the page is not user; the
 * vsyscall page's is, and a signal can arrive there); a non-canonical
 * one, or a cs or ss that is no ring-3 segment, would fault in ring 0,
 * in iretq, so the way out never takes it there (trap_return and the
 * system call's, deliver_signals): it becomes the #GP user mode would
 * get. A
 * non-canonical rsp is loaded as it is (iretq does not check it) and
 * faults at its first use, or never, for code that needs no stack.
 * Without UC_STRICT_RESTORE_SS in the frame, a return to 64-bit code
 * gets a usable ss whatever the frame says (force_valid_ss), for
 * programs written before the frame had one.
 */
#define USER_RFLAGS	0x254dd5ul	/* CF PF AF ZF SF TF DF OF NT RF AC ID */

/*
 * A frame that cannot be read, or whose FPU state the CPU would refuse:
 * as Linux's signal_fault, a SIGSEGV (SI_KERNEL) with force_sig's rule
 * (force_sig_fault: blocked or ignored, it kills), which a handler may
 * catch, on the alternate stack when rsp is what was bad; and the call
 * returns 0, so the handler's frame holds rax 0. What was restored
 * before the fault stays.
 */
static long bad_frame(struct trap_frame *tf)
{
	struct process *p = current();

	force_sig_fault(SIGSEGV, SI_KERNEL, 0, tf);
	p->sig.fault_trapno = p->sig.fault_err = 0;	/* no trap: a bad frame */
	return 0;
}

long sys_rt_sigreturn(void)
{
	struct process *p = current();
	struct trap_frame *tf = p->tf;
	uint64_t frame = tf->rsp - 8;
	struct ucontext uc;
	struct sigcontext *sc = &uc.uc_mcontext;

	if (copy_from_user(&uc, (void __user *)(frame + offsetof(struct rt_sigframe, uc)), sizeof(uc)))
		return bad_frame(tf);	/* nothing taken from it */
	tf->r8 = sc->r8; tf->r9 = sc->r9; tf->r10 = sc->r10; tf->r11 = sc->r11;
	tf->r12 = sc->r12; tf->r13 = sc->r13; tf->r14 = sc->r14; tf->r15 = sc->r15;
	tf->rdi = sc->rdi; tf->rsi = sc->rsi; tf->rbp = sc->rbp; tf->rbx = sc->rbx;
	tf->rdx = sc->rdx; tf->rax = sc->rax; tf->rcx = sc->rcx; tf->rsp = sc->rsp;
	tf->rip = sc->rip;
	tf->rflags = (tf->rflags & ~USER_RFLAGS) | (sc->eflags & USER_RFLAGS) | RFLAGS_IF;
	tf->cs = sc->cs | 3;
	tf->ss = sc->ss | 3;
	if (!(uc.uc_flags & UC_STRICT_RESTORE_SS) && user_64bit_mode(tf))
		force_valid_ss(tf);
	tf->error_code = NO_SYSCALL;	/* its rax is the frame's, no call to restart */
	set_blocked(p, uc.uc_sigmask);
	/*
	 * No FPU state in the frame: Linux starts it afresh. A state that
	 * cannot be read or that the CPU would refuse (fpu_from_sigframe)
	 * is, as on Linux, a fresh FPU and a bad frame, its handler seeing
	 * the registers just restored.
	 */
	if (!sc->fpstate) {
		fpu_reset();
	} else if (fpu_from_sigframe(p->fpu, sc->fpstate)) {
		fpu_reset_area(p->fpu);	/* which held the bad image */
		return bad_frame(tf);
	}
	/*
	 * The alternate stack the frame names, set as sigaltstack would from
	 * the stack returned to; as Linux's restore_altstack, its refusals
	 * (EPERM on the alternate stack, EINVAL, ENOMEM) are ignored.
	 */
	set_altstack(p, &uc.uc_stack, tf->rsp);
	return tf->rax;
}

long sys_rt_sigaction(int sig, const struct k_sigaction __user *act,
		      struct k_sigaction __user *old, size_t setsize)
{
	struct process *p = current();
	struct k_sigaction ka;

	if (setsize != sizeof(uint64_t) || sig < 1 || sig > NSIG)
		return -EINVAL;
	if (act && (sig == SIGKILL || sig == SIGSTOP))
		return -EINVAL;
	if (act && copy_from_user(&ka, act, sizeof(ka)))
		return -EFAULT;
	if (old && copy_to_user(old, &p->sig.action[sig - 1], sizeof(*old)))
		return -EFAULT;
	if (act) {
		ka.mask &= ~UNBLOCKABLE;
		p->sig.action[sig - 1] = ka;
	}
	return 0;
}

#define SIG_BLOCK	0
#define SIG_UNBLOCK	1
#define SIG_SETMASK	2

long sys_rt_sigprocmask(int how, const uint64_t __user *uset, uint64_t __user *old,
			size_t setsize)
{
	struct process *p = current();
	uint64_t set;

	if (setsize != sizeof(uint64_t))
		return -EINVAL;
	if (uset && copy_from_user(&set, uset, sizeof(set)))
		return -EFAULT;
	if (old && put_user(p->sig.blocked, old))
		return -EFAULT;
	if (!uset)
		return 0;
	switch (how) {
	case SIG_BLOCK: set_blocked(p, p->sig.blocked | set); break;
	case SIG_UNBLOCK: set_blocked(p, p->sig.blocked & ~set); break;
	case SIG_SETMASK: set_blocked(p, set); break;
	default: return -EINVAL;
	}
	return 0;
}

long sys_sigaltstack(const stack_t __user *uss, stack_t __user *old)
{
	struct process *p = current();
	stack_t ss, cur = p->sig.altstack;

	if (on_altstack(p, p->tf->rsp))
		cur.ss_flags = SS_ONSTACK;
	if (uss && copy_from_user(&ss, uss, sizeof(ss)))
		return -EFAULT;
	if (old && copy_to_user(old, &cur, sizeof(cur)))
		return -EFAULT;
	return uss ? set_altstack(p, &ss, p->tf->rsp) : 0;
}

/* Sleep until a signal that runs a handler or kills; signals that would be ignored do not end it. */
static long wait_for_signal(void)
{
	struct process *p = current();

	while (!signals_deliverable(p))
		sleep_on(&p->sig);
	return -EINTR;
}

long sys_pause(void)
{
	return wait_for_signal();
}

/*
 * Wait with a temporary mask. The handler runs with it (and its sa_mask);
 * its frame holds the mask from before, which rt_sigreturn puts back.
 */
long sys_rt_sigsuspend(const uint64_t __user *umask, size_t setsize)
{
	long err = sigmask_set_temporary(umask, setsize);

	return err ? err : wait_for_signal();
}

/*
 * Block the user's mask (never SIGKILL or SIGSTOP) until the calling system
 * call returns: rt_sigsuspend and ppoll. A signal delivered on the way out
 * puts the old mask in its frame, for rt_sigreturn; otherwise the call puts
 * it back itself (sigmask_restore).
 */
long sigmask_set_temporary(const uint64_t __user *umask, size_t setsize)
{
	struct process *p = current();
	uint64_t mask;

	if (setsize != sizeof(mask))
		return -EINVAL;
	if (copy_from_user(&mask, umask, sizeof(mask)))
		return -EFAULT;
	p->sig.saved_mask = p->sig.blocked;
	p->sig.restore_mask = true;
	set_blocked(p, mask);
	return 0;
}

/* The end of a call that set a temporary mask and has no signal to deliver. */
void sigmask_restore(void)
{
	struct process *p = current();

	set_blocked(p, p->sig.saved_mask);
	p->sig.restore_mask = false;
}
