/* Processes: the process structure, the scheduler and the per-CPU data. */
#ifndef CCOS_PROC_H
#define CCOS_PROC_H

#include <ccos/types.h>
#include <asm/arch.h>
#include <ccos/layout.h>
#include <ccos/signal.h>
#include <ccos/path.h>

#define NPROC		64
#define NOFILE		32
#define KSTACK_SIZE	(16 * 1024)
#define STACK_SIZE	(256 * 1024ul)	/* a program's stack, RLIMIT_STACK */
#define BRK_MAX		(64ul << 20)	/* the heap's limit, RLIMIT_DATA */

/* PROC_DEAD: a thread that exited and is not waited for; the scheduler frees it once off its stack. */
enum proc_state { PROC_UNUSED, PROC_RUNNABLE, PROC_RUNNING, PROC_SLEEPING, PROC_ZOMBIE, PROC_DEAD };

/* A user memory area, as /proc/self/maps shows it. */
struct vma {
	uint64_t start, end;
	int prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	bool shared;		/* kernel-owned frames (the vDSO): never written */
	const char *name;	/* a path, "[heap]", "[stack]", or NULL */
	uint64_t offset;	/* in the file, for ELF segments */
	/* The tree of areas (mm/vma.c): children, and of the subtree: */
	struct vma *left, *right;
	uint64_t lo, hi;	/* the lowest start and the highest end */
	uint64_t gap;		/* the largest hole between two of its areas */
	int height;
};

/* An address space: page tables and the areas in them. */
struct mm {
	uint64_t pml4;
	struct vma *vmas;	/* the root of the tree of areas */
	size_t nr_vmas;
	uint64_t brk_start, brk;
	uint64_t vdso_base;
	uint64_t mmap_base;		/* mmap areas grow down from here */
	uint64_t arg_start, arg_end;	/* exec's argument strings, which /proc/PID/cmdline reads */
	int refs;
};

struct file;

/* CPU time in nanoseconds, charged a tick at a time (kernel/sched/cputime.c). */
struct cputime {
	uint64_t user, sys;
};

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
	uint8_t fpu[512] __aligned(16);	/* fxsave area: x87, SSE registers */
	uint64_t fs_base, gs_base;

	struct mm *mm;			/* shared with the parent during vfork */

	struct fdtable *files;		/* descriptors, shared by CLONE_FILES (fs/fdtable.c) */
	struct fs_struct *fs;		/* directory and umask, shared by CLONE_FS (fs/fs_struct.c) */

	/* Sleeping: on a channel, until a time, or both. */
	const void *wait_chan;
	uint64_t wake_at_ns;		/* 0 = no deadline */
	uint64_t alarm_at_ns;		/* SIGALRM then (alarm); 0 = none */
	struct process *vfork_parent;	/* woken when this child execs or exits */

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
	int cpu;			/* the CPU it runs or last ran on */
	const struct module_file *exe;	/* the program, which /proc/self/exe names */
	struct cputime time;		/* this thread's */
	/* Of a group leader: its ended threads' time, and its reaped children's. */
	struct cputime dead_threads, children;
	/* A kernel buffer the user copies accept while sendfile runs (fs/sendfile.c). */
	const char *kbuf;
	size_t kbuf_len;
};

#define MAX_CPUS	8

/*
 * Per-CPU data, found through the GS base in the kernel (swapgs; see
 * arch/x86/entry/trap_entry.asm). cpus[n] is CPU n's, n being its number in
 * the MADT's order, the boot CPU first (arch/x86/smp.c).
 */
struct percpu {
	struct percpu *self;
	uint64_t kernel_rsp;		/* loaded by the SYSCALL entry */
	uint64_t user_rsp;		/* the user's rsp, saved there */
	struct process *current;
	int cpu;
	uint32_t apic_id;
	/* What this CPU read back after setting its getcpu values (smp.c). */
	uint32_t getcpu_lsl, getcpu_rdtscp;
	volatile bool online;
	/* Spinlocks (kernel/locking/spinlock.c): interrupts-off nesting, locks held. */
	int irq_off_depth;
	bool irq_was_on;
	int locks_held;
	/* The scheduler (kernel/sched/sched.c). */
	uint64_t scheduler_context;	/* its saved rsp while a process runs */
	bool need_resched;		/* set by the tick: yield on the way to user mode */
	bool idle;			/* halted in the idle loop: a wakeup sends an IPI */
	bool outside_lock;		/* halted without the kernel lock: an interrupt takes it */
	bool wake_here;			/* the waker exits: whom it wakes may run here */
	int last_run;			/* index in proc_table of the last one run */
	uint64_t pml4;			/* the address space in CR3 (arch/x86/tlb.c) */
	/* Counts for /proc/smpstat (fs/procfs.c). */
	uint64_t klock_taken, klock_waited, klock_wait_cycles;
	uint64_t switches, halts, shootdowns, shootdown_cycles;
	struct cputime time;		/* the threads' time here (/proc/stat), */
	uint64_t idle_time;		/* and the idle loop's, ns */
};

extern struct percpu cpus[MAX_CPUS];
void percpu_init(int cpu);	/* GS base = &cpus[cpu]: first thing on each CPU */
extern struct process *init_process;
extern struct process proc_table[NPROC];

/* The running CPU's block: GS:0 holds its address (percpu.self). */
static inline struct percpu *this_cpu(void)
{
	struct percpu *c;

	__asm__ volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

/*
 * One GS-relative load, as the old global's was: every system call asks.
 * Not volatile: a process is itself wherever it runs, so the compiler may
 * reuse the value, even across a switch to another CPU (this_cpu may not).
 */
static inline struct process *current(void)
{
	struct process *p;

	__asm__("movq %%gs:%c1, %0" : "=r"(p) : "i"(offsetof(struct percpu, current)));
	return p;
}

/* kernel/proc.c */
struct process *proc_alloc(void);
void proc_free(struct process *p);
struct process *proc_find(int pid);
int last_pid(void);
__noreturn void proc_exit(int status);
__noreturn void start_init(void);
void notify_parent(struct process *leader);	/* kernel/wait.c: the exit signal */

/* kernel/fork.c */
void clear_child_tid(struct process *p);

/* kernel/sched/cputime.c: the tick charges the time, threads and wait add it up */
void account_tick(const struct trap_frame *tf);
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

/* A process's descriptors: one table shared by its threads (CLONE_FILES), copied by fork. */
struct fdtable {
	int refs;
	uint64_t cloexec;		/* bit fd: close fd at exec (FD_CLOEXEC) */
	struct file *fd[NOFILE];
};

/* fs/fdtable.c */
struct fdtable *fdtable_alloc(void);
struct fdtable *fdtable_copy(struct fdtable *t);
struct fdtable *fdtable_share(struct fdtable *t);
void fdtable_put(struct fdtable *t);
int fdtable_unshare(struct fdtable **t);

/* Where relative paths start, and the umask: shared by CLONE_FS, copied by fork. */
struct fs_struct {
	int refs;
	uint32_t umask;
	struct place cwd;		/* the working directory, its node held (fs/path.c) */
};

/* fs/fs_struct.c */
struct fs_struct *fs_alloc(void);
struct fs_struct *fs_copy(struct fs_struct *fs);
struct fs_struct *fs_share(struct fs_struct *fs);
void fs_put(struct fs_struct *fs);
void fs_chdir(struct fs_struct *fs, const struct place *to);

/* kernel/futex/futex.c */
long futex_wake(struct mm *mm, uint64_t uaddr, int n);
void exit_robust_list(struct process *p);	/* kernel/futex/robust.c */

/* kernel/sched/sched.c */
__noreturn void scheduler(void);
void yield(void);
void schedule(void);
void sleep_on(const void *chan);
void sleep_on_killable(const void *chan);	/* only a fatal signal ends it */
void sched_kick(struct process *p);		/* a running p looks at its signals */
void sleep_until(const void *chan, uint64_t wake_at_ns);
void wakeup(const void *chan);
void sched_wake(struct process *p);	/* make p runnable, and wake an idle CPU for it */

/* mm/vm.c: address spaces */
struct mm *mm_create(void);
struct mm *mm_copy(struct mm *old);
void mm_release(struct mm *mm);
int mm_map(struct mm *mm, uint64_t start, uint64_t len, int prot, const char *name);
int mm_map_shared(struct mm *mm, uint64_t start, uint64_t phys, size_t npages, int prot,
		  const char *name);
int mm_unmap(struct mm *mm, uint64_t start, uint64_t len);
int mm_protect(struct mm *mm, uint64_t start, uint64_t len, int prot);
uint64_t mm_find_gap(struct mm *mm, uint64_t len);
int copy_to_mm(struct mm *mm, uint64_t va, const void *src, size_t n);
int copy_from_mm(struct mm *mm, void *dst, uint64_t va, size_t n);
int copy_mm_as_user(struct mm *mm, uint64_t va, void *buf, size_t n, bool to_mm);
uint64_t prot_to_pte(int prot);

/* mm/vma.c: the areas, by address */
void vma_insert(struct mm *mm, struct vma *v);
void vma_remove(struct mm *mm, struct vma *v);
struct vma *vma_next(struct mm *mm, uint64_t addr);	/* the first area ending above addr */
struct vma *mm_find_vma(struct mm *mm, uint64_t addr);	/* the area holding addr, or NULL */
uint64_t vma_find_gap(struct mm *mm, uint64_t lo, uint64_t hi, uint64_t len);
void vma_free_all(struct mm *mm);
/* Each area that meets [from, to), in order; the body may split v, not free it. */
#define for_each_vma_in(v, mm, from, to) \
	for ((v) = vma_next((mm), (from)); (v) && (v)->start < (to); (v) = vma_next((mm), (v)->end))

/* arch/x86/vdso: map the vDSO into a new address space (AT_SYSINFO_EHDR) */
void vdso_init(void);
int map_vdso(struct mm *mm, bool randomize);

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

/* arch/x86/switch_to.asm and arch/x86/syscall.c */
void switch_to(uint64_t *save_rsp, uint64_t new_rsp);
void syscall_init(void);
void fpu_init(void);
extern uint8_t fpu_initial_state[512];

#endif
