/* Signals: Linux's numbers, siginfo and sigaction, and the per-process state. */
#ifndef CCOS_SIGNAL_H
#define CCOS_SIGNAL_H

#include <ccos/types.h>

#define NSIG		64
#define SIGRTMIN	32	/* from here on real-time signals: each sent is queued */
#define SIGHUP		1
#define SIGINT		2
#define SIGQUIT		3
#define SIGILL		4
#define SIGTRAP		5
#define SIGABRT		6
#define SIGBUS		7
#define SIGFPE		8
#define SIGKILL		9
#define SIGUSR1		10
#define SIGSEGV		11
#define SIGUSR2		12
#define SIGPIPE		13
#define SIGALRM		14
#define SIGTERM		15
#define SIGCHLD		17
#define SIGCONT		18
#define SIGSTOP		19
#define SIGVTALRM	26
#define SIGPROF		27
#define SIGSYS		31

/* si_code values */
#define SI_USER		0
#define SI_KERNEL	0x80
#define SI_TIMER	(-2)
#define SI_TKILL	(-6)
#define CLD_EXITED	1
#define CLD_KILLED	2
#define CLD_DUMPED	3
#define SEGV_MAPERR	1
#define SEGV_ACCERR	2
#define ILL_ILLOPN	2
#define FPE_INTDIV	1
#define FPE_FLTDIV	3
#define FPE_FLTOVF	4
#define FPE_FLTUND	5
#define FPE_FLTRES	6
#define FPE_FLTINV	7
#define TRAP_BRKPT	1
#define TRAP_TRACE	2
#define BUS_ADRALN	1
#define BUS_ADRERR	2

/* siginfo_t as Linux lays it out for these signals (128 bytes). */
typedef struct {
	int si_signo, si_errno, si_code, pad;
	union {
		struct { int pid; uint32_t uid; } kill;
		struct { uint64_t addr; } fault;
		struct { int pid; uint32_t uid; int status; long utime, stime; } chld;
		struct { int id; int overrun; uint64_t value; } timer;	/* POSIX timers */
		char raw[112];
	};
} siginfo_t;
BUILD_BUG_ON(sizeof(siginfo_t) != 128);

#define SA_SIGINFO	0x00000004
#define SA_ONSTACK	0x08000000
#define SA_RESTART	0x10000000
#define SA_NODEFER	0x40000000
#define SA_RESETHAND	0x80000000
#define SA_RESTORER	0x04000000
#define SIG_DFL		0ul
#define SIG_IGN		1ul

/* The kernel's struct sigaction for rt_sigaction (not libc's). */
struct k_sigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

typedef struct {
	uint64_t ss_sp;
	int ss_flags;
	int pad;
	uint64_t ss_size;
} stack_t;
#define SS_ONSTACK	1
#define SS_DISABLE	2

/* The actions, shared by the threads of a process (CLONE_SIGHAND): kernel/signal/sighand.c. */
struct sighand {
	int refs;
	struct k_sigaction action[NSIG];
};

/*
 * A thread's signals: pending and blocked are its own, the actions its
 * sighand's. The process's own pending signals, which any of its threads
 * may take, are its leader's shared_pending (kernel/signal/sigqueue.c).
 */
/* A real-time signal sent again while one of its number waited (kernel/signal/sigqueue.c). */
struct sigqueue {
	struct sigqueue *next;
	siginfo_t info;
	bool own;			/* a POSIX timer's, which keeps it: not kmalloc'd */
};

struct signal_state {
	uint64_t pending, blocked;		/* bit (sig - 1) */
	struct k_sigaction *action;		/* the action[] of a struct sighand */
	siginfo_t info[NSIG];			/* what the pending ones carry */
	struct sigqueue *queued;		/* real-time ones sent again, oldest first */
	int nr_queued;				/* the real-time ones waiting, first ones too */
	uint64_t shared_pending;		/* of a leader: the process's */
	siginfo_t shared_info[NSIG];
	struct sigqueue *shared_queued;
	int shared_nr_queued;
	uint64_t waiting_for;			/* rt_sigtimedwait's set, while it sleeps */
	stack_t altstack;
	uint64_t fault_trapno, fault_err, fault_cr2;	/* for the next frame's sigcontext */
	uint64_t saved_mask;		/* rt_sigsuspend, ppoll: the mask to go back to */
	bool restore_mask;		/* ... after the handler it waited for */
};

struct process;
struct trap_frame;

#define SIGBIT(sig)	(1ul << ((sig) - 1))
#define UNBLOCKABLE	(SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

/*
 * Queue sig for p's process (info NULL: sent by the kernel with SI_KERNEL):
 * the first of its threads that does not block it takes it (kernel/thread.c).
 * 1 when queued, 0 when dropped (ignored, or nobody left to take it), or
 * -EAGAIN: a real-time signal past the process's RLIMIT_SIGPENDING.
 */
long send_signal(struct process *p, int sig, const siginfo_t *info);
/* The same for a POSIX timer, to p's process or (thread) to p alone, with the entry it owns. */
long send_sigqueue(struct process *p, bool thread, int sig, const siginfo_t *info, struct sigqueue *q);
/* Whom a timer of p's process sends to: ran (a thread that just ran), or one that runs, not one asleep. */
struct process *signal_awake_thread(struct process *p, int sig, struct process *ran);
/*
 * Whether a signal a program sends must be dropped because p belongs to
 * init (kernel/pgrp.c): the one check kill, tkill and tgkill all make.
 */
bool init_protected(const struct process *p, int sig);
bool kill_permitted(const struct process *p, int sig);	/* kernel/pgrp.c */
/* Queue sig for the thread p alone (tkill, a fault, SIGPIPE): send_signal's answers. */
long send_signal_thread(struct process *p, int sig, const siginfo_t *info);
long queue_signal_thread(struct process *p, int sig, const siginfo_t *info, struct sigqueue *own);
/* A timer's pending signal goes (timer_settime, timer_delete): kernel/signal/sigqueue.c. */
void flush_timer_signal(struct process *p, bool thread, int sig, int timer_id);
void sigqueue_free(struct signal_state *s);	/* a thread's slot is freed */
/* kernel/signal/sigqueue.c: the process's set, a thread woken for it, the next to deliver. */
long queue_signal_shared(struct process *p, int sig, const siginfo_t *info, struct sigqueue *own);
void signal_wake(struct process *t);
int dequeue_signal(struct process *p, siginfo_t *info);
uint64_t signals_deliverable(struct process *p);
bool sig_default_ignores(int sig);
/* kernel/thread.c: p stopped taking the signals of set; another thread may */
void signal_retarget(struct process *p, uint64_t set);
/* A POSIX timer's signal leaves its set: its overrun count (kernel/time/posix-timers.c). */
void posix_timer_dequeued(struct process *p, siginfo_t *info);
unsigned long sigframe_size_max(void);	/* AT_MINSIGSTKSZ: the largest signal frame */
/* A fault in user mode becomes a signal to the current process. */
void force_sig_fault(int sig, int code, uint64_t addr, struct trap_frame *tf);
/* The same, and exit, from a lockless call (arch/x86/entry/common.c takes the lock for them). */
void lockless_force_sig_fault(int sig, int code, uint64_t addr, struct trap_frame *tf);
__noreturn void lockless_exit(int status);
/* On the way back to user mode: run the default action or build a frame. */
void deliver_signals(struct trap_frame *tf);
bool signal_pending(struct process *p);
long sigmask_set_temporary(const uint64_t __user *umask, size_t setsize);
void sigmask_restore(void);
/* A signal is pending that will end p when delivered (SIGKILL, or a default action that kills). */
bool fatal_signal_pending(struct process *p);

/* kernel/signal/sighand.c */
struct k_sigaction *sighand_alloc(void);
struct k_sigaction *sighand_copy(struct k_sigaction *action);
struct k_sigaction *sighand_share(struct k_sigaction *action);
void sighand_put(struct k_sigaction *action);
int sighand_unshare(struct k_sigaction **action);

#endif
