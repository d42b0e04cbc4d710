/* Processes: the process structure, the table, fork, exit, threads, exec, kernel stacks. */
#ifndef CCOS_PROC_H
#define CCOS_PROC_H

#include <ccos/types.h>
#include <asm/arch.h>
#include <ccos/layout.h>
#include <ccos/signal.h>
#include <ccos/sched.h>
#include <ccos/time_types.h>
#include <ccos/cred.h>

#define NPROC		64	/* process and thread slots; a multiple of 64 (kernel/kstack.c) */
#define KSTACK_SIZE	(16 * 1024)
#define STACK_SIZE	(256 * 1024ul)	/* a program's stack, RLIMIT_STACK */
#define BRK_MAX		(64ul << 20)	/* the heap's limit, RLIMIT_DATA */
#define SIGPENDING_DEFAULT	1024	/* RLIMIT_SIGPENDING's, soft and hard, for init */
#define TIMER_SLACK_DEFAULT	50000	/* ns, Linux's */
#define PID_MAX		4194304		/* /proc/sys/kernel/pid_max: Linux's largest, on 64 bits */

/* PROC_DEAD: a thread that exited and is not waited for; the scheduler frees it once off its stack. */
enum proc_state { PROC_UNUSED, PROC_RUNNABLE, PROC_RUNNING, PROC_SLEEPING, PROC_ZOMBIE, PROC_DEAD };

/* getrlimit's limits: RLIMIT_NOFILE (7) is the one ccos's calls check (kernel/sys_info.c). */
#define RLIM_NLIMITS	16
#define RLIMIT_NOFILE	7
struct rlimit64 {
	uint64_t cur, max;
};

struct file;
struct mm;
struct fdtable;
struct fs_struct;

/*
 * A thread, Linux's task: pid is its thread id. The threads of a process
 * (CLONE_THREAD) form a group named by its leader's pid, tgid, which is
 * what getpid answers (kernel/thread.c).
 */
struct process {
	int pid;
	int tgid;
	struct process *group_leader;	/* itself for a leader; outlives the group's threads */
	enum proc_state state;
	char comm[16];
	struct process *parent;
	int exit_status;		/* wait4's encoding */

	/* Kernel side: the stack, the saved user registers, the context. */
	uint64_t kstack;		/* lowest address; a guard page lies below */
	struct trap_frame *tf;		/* at the top of the kernel stack */
	uint64_t context;		/* saved kernel rsp while switched out */
	uint8_t fpu[FPU_STATE_MAX] __aligned(64);	/* XSAVE or FXSAVE image (arch/x86/fpu.c) */
	/* FS and GS as the thread left them: selectors and bases (arch/x86/fsgs.c). */
	uint64_t fs_base, gs_base;
	uint16_t fsindex, gsindex;

	struct mm *mm;			/* shared with the parent during vfork */

	struct fdtable *files;		/* descriptors, shared by CLONE_FILES (fs/fdtable.c) */
	struct fs_struct *fs;		/* directory and umask, shared by CLONE_FS (fs/fs_struct.c) */

	/* Sleeping: on a channel, until a time, or both. */
	const void *wait_chan;
	uint64_t wake_at_ns;		/* 0 = no deadline */
	/* Of a leader: setitimer's timers (kernel/time/itimer.c): value 0 = stopped. */
	struct itimer {
		uint64_t value;		/* ITIMER_REAL: a CLOCK_MONOTONIC deadline; else ns left */
		uint64_t incr;		/* the interval: 0 = once */
	} itimer[NR_ITIMERS];
	int next_timer_id;		/* of a leader: the id its next POSIX timer tries first */
	/* Of a leader: RLIMIT_SIGPENDING, its real-time signals waiting at most (signal/sigqueue.c). */
	uint64_t sigpending_cur, sigpending_max;
	struct rlimit64 rlim[RLIM_NLIMITS];	/* of a leader: setrlimit's limits */
	struct process *vfork_parent;	/* woken when this child execs or exits */

	struct cred cred;		/* its ids and capabilities (kernel/cred.c) */
	struct signal_state sig;
	int seccomp_mode;
	const bool *lockless_syscalls;	/* arch/x86/entry/syscall_64.c: none in seccomp mode */
	unsigned int personality;	/* ADDR_NO_RANDOMIZE: see mm/aslr.c */
	uint64_t clear_child_tid;	/* CLONE_CHILD_CLEARTID, set_tid_address */
	int exit_signal;		/* sent to the parent at exit: SIGCHLD, or clone's choice */
	int pgid, sid;			/* process group and session */
	uint64_t robust_list;		/* set_robust_list's head (kernel/futex/robust.c) */
	/* Of a group leader, for the whole group: exit_group's status. */
	bool group_exiting;
	int group_exit_status;
	uint64_t cpus_allowed;		/* sched_setaffinity's mask: bit n = CPU n */
	/* sched_setscheduler's, kept and reported, not enforced (kernel/sched/policy.c). */
	int sched_policy, sched_priority;
	bool sched_reset_on_fork;
	int nice;			/* setpriority's, -20 to 19 (kernel/sched/nice.c) */
	int cpu;			/* the CPU it runs or last ran on */
	const struct module_file *exe;	/* the program, which /proc/self/exe names */
	/* prctl's (kernel/prctl.c): */
	int pdeath_signal;		/* sent when the parent process ends; 0 = none */
	uint64_t timer_slack_ns;
	bool tsc_sigsegv;		/* PR_TSC_SIGSEGV: rdtsc in ring 3 faults (CR4.TSD) */
	bool child_subreaper;		/* of a leader: adopts its descendants' orphans */
	struct cputime time;		/* this thread's */
	uint64_t ran_since;		/* CLOCK_MONOTONIC ns when it last began to run */
	/* Of a group leader: its ended threads' time, and its reaped children's. */
	struct cputime dead_threads, children;
	/* A kernel buffer the user copies accept while sendfile runs (fs/sendfile.c). */
	const char *kbuf;
	size_t kbuf_len;
};

extern struct process *init_process;
extern struct process proc_table[NPROC];

/* kernel/proc.c */
struct process *proc_alloc(void);
void proc_free(struct process *p);
struct process *proc_find(int pid);
int last_pid(void);
__noreturn void proc_exit(int status);
__noreturn void start_init(void);
void notify_parent(struct process *leader);	/* kernel/wait.c: the exit signal */

/* kernel/sys_info.c */
void rlimit_init(struct process *p);		/* init's limits */
uint64_t rlimit(const struct process *p, unsigned int resource);	/* its soft limit */

void tsc_access_load(const struct process *p);	/* arch/x86/tsc.c: CR4.TSD for p */

/* kernel/sched/policy.c */
void sched_fork_policy(struct process *child, const struct process *parent);

/* kernel/fork.c */
void clear_child_tid(struct process *p);

/* kernel/sched/cputime.c: the tick charges the time, threads and wait add it up */
void account_tick(const struct trap_frame *tf);
void account_runtime(struct process *p);	/* add the time p ran since ran_since */
uint64_t thread_runtime(const struct process *t);	/* what it ran, so far */
uint64_t group_runtime(const struct process *leader);	/* the same for its whole process */
struct cputime group_cputime(const struct process *leader);	/* its threads', ended ones too */
void cputime_add(struct cputime *to, struct cputime t);
uint64_t ns_to_clock_t(uint64_t ns);	/* in USER_HZ ticks */
struct rusage;
long put_rusage(struct rusage __user *ru, struct cputime t);	/* 0 or -EFAULT */

/* kernel/thread.c: thread groups */
bool thread_group_alive(const struct process *leader);	/* a thread of it still runs */
__noreturn void do_group_exit(int status);
int de_thread(struct process *p);
void thread_group_set_pgrp(struct process *p, int pgid, int sid);
#define for_each_thread(t, p) \
	for ((t) = proc_table; (t) < proc_table + NPROC; (t)++) \
		if ((t)->state != PROC_UNUSED && (t)->tgid == (p)->tgid)

/* kernel/futex/futex.c */
long futex_wake(struct mm *mm, uint64_t uaddr, int n);
void exit_robust_list(struct process *p);	/* kernel/futex/robust.c */
void exit_pi_locks(struct process *p);		/* kernel/futex/pi.c: after exit_robust_list */

/* Kernel stacks (kernel/kstack.c): a freed one waits, unmapped, for one flush of many. */
bool kstack_map(struct process *p);
void kstack_free(struct process *p);
bool kstack_ready(const struct process *p);	/* its slot's old stack is flushed */
void kstack_purge(void);
size_t kstack_waiting_frames(void);	/* free but for the flush: MemFree counts them */
struct process *kstack_guard_owner(uint64_t addr);

/* fs/sys_fd.c */
void close_on_exec(struct process *p);

/* kernel/exec.c */
int exec_image(struct process *p, const char *path, char *const argv[], int argc,
	       char *const envp[], int envc);

#endif
