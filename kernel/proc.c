/* Processes: the table, exit, and starting init. */
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/sched.h>
#include <ccos/path.h>
#include <ccos/time.h>
#include <ccos/syscall.h>
#include <ccos/file.h>
#include <ccos/tty.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/power.h>
#include <ccos/printk.h>
#include <ccos/uaccess.h>
#include <ccos/spinlock.h>

struct process proc_table[NPROC];
struct process *init_process;
static int next_pid = 1;

extern void trap_return(void);

/*
 * A new process whose kernel stack is ready for its first switch_to: the
 * trap frame at the top (to be filled by fork or exec), below it the
 * return addresses trap_return and ret_from_fork (16-byte aligned as a
 * call would leave it: the frame is 176 bytes) and six zeroed
 * callee-saved registers. ret_from_fork (arch/x86/entry/common.c) lets
 * the scheduler's lock go, after the signals sent to the process before
 * it first ran (a kill right after fork), as every return to user mode.
 */
struct process *proc_alloc(void)
{
	struct process *p;
	uint64_t *sp;

	assert_kernel_locked();
	for (p = proc_table; p < proc_table + NPROC; p++)
		if (p->state == PROC_UNUSED && kstack_ready(p))
			break;
	if (p == proc_table + NPROC) {
		kstack_purge();		/* the stacks that waited for their flush */
		for (p = proc_table; p < proc_table + NPROC; p++)
			if (p->state == PROC_UNUSED)
				break;
		if (p == proc_table + NPROC)
			return NULL;
	}
	memset(p, 0, sizeof(*p));
	if (!kstack_map(p))
		return NULL;
	p->pid = next_pid++;
	p->tf = (struct trap_frame *)(p->kstack + KSTACK_SIZE) - 1;
	memset(p->tf, 0, sizeof(*p->tf));
	sp = (uint64_t *)p->tf;
	*--sp = (uint64_t)trap_return;
	*--sp = (uint64_t)ret_from_fork;
	sp -= 6;
	memset(sp, 0, 6 * 8);
	p->context = (uint64_t)sp;
	p->sig.altstack.ss_flags = SS_DISABLE;
	p->lockless_syscalls = syscall_lockless;
	p->cpus_allowed = ~0ul;		/* every CPU, as init's on Linux; fork copies it */
	p->sigpending_cur = p->sigpending_max = SIGPENDING_DEFAULT;	/* and these */
	rlimit_init(p);
	p->timer_slack_ns = TIMER_SLACK_DEFAULT;
	p->state = PROC_SLEEPING;	/* not runnable until its creator says so */
	return p;
}

void proc_free(struct process *p)
{
	sigqueue_free(&p->sig);
	cred_release(&p->cred);
	kstack_free(p);
	p->state = PROC_UNUSED;
	p->pid = 0;
}

/* The id given last, which /proc/loadavg shows. */
int last_pid(void)
{
	return next_pid - 1;
}

struct process *proc_find(int pid)
{
	struct process *p;

	for (p = proc_table; p < proc_table + NPROC; p++)
		if (p->pid == pid && p->state != PROC_UNUSED)
			return p;
	return NULL;
}

/* Who adopts leader's children: its nearest living ancestor that is a child subreaper, else init. */
static struct process *find_reaper(struct process *leader)
{
	struct process *r;
	int depth = 0;

	for (r = leader->parent; r && r != init_process && depth++ < NPROC; r = r->parent)
		if (r->child_subreaper && r->state != PROC_ZOMBIE && r->state != PROC_DEAD)
			return r;
	return init_process;
}

/*
 * A thread ends: its files, actions and memory go at once (the last user
 * of each frees it). While other threads of its process run, a leader
 * waits for them as a zombie and any other thread simply goes: nobody
 * waits for it, and the scheduler frees its slot and kernel stack
 * (PROC_DEAD). The last thread makes the leader the zombie that the
 * parent's wait4 reaps, with the leader's status, or exit_group's.
 */
void proc_exit(int status)
{
	struct process *p = current(), *leader = p->group_leader, *c, *reaper;

	assert_kernel_locked();		/* held to the end: schedule() takes it over */
	if (p == init_process) {
		int code = (status & 0x7f) ? 128 + (status & 0x7f) : (status >> 8) & 0xff;

		if (status & 0x7f)
			printk("ccos: init was killed by signal %d\n", status & 0x7f);
		printk("ccos: init exited with status %d\n", code);
		power_off(code);
	}
	fdtable_put(p->files);
	fs_put(p->fs);
	sighand_put(p->sig.action);
	exit_robust_list(p);
	exit_pi_locks(p);
	clear_child_tid(p);
	mm_release(p->mm);
	p->mm = NULL;
	if (p->vfork_parent) {
		wakeup(p->vfork_parent);
		p->vfork_parent = NULL;
	}
	p->exit_status = status;
	if (p != leader) {	/* its time stays the process's (kernel/sched/cputime.c) */
		account_runtime(p);
		cputime_add(&leader->dead_threads, p->time);
	}
	p->state = p == leader ? PROC_ZOMBIE : PROC_DEAD;
	if (thread_group_alive(leader)) {
		signal_retarget(p, ~0ul);	/* what it might have taken */
		wakeup(leader);		/* an exec waiting for the others to go (de_thread) */
		schedule();
		panic("a dead thread ran");
	}
	if (leader->sid == leader->tgid)
		tty_disassociate(leader->sid, true);	/* a session leader's end: its session loses the console */
	reaper = find_reaper(leader);
	for (c = proc_table; c < proc_table + NPROC; c++) {
		if (c->parent == leader && c->state != PROC_UNUSED) {
			c->parent = reaper;		/* orphans go to init or a subreaper, */
			c->exit_signal = SIGCHLD;	/* which waits for them as for its own */
			if (c->state == PROC_ZOMBIE)
				wakeup(reaper);
			else if (c->pdeath_signal)
				send_signal_thread(c, c->pdeath_signal, NULL);
		}
	}
	exit_posix_timers(leader->tgid);
	memset(leader->itimer, 0, sizeof(leader->itimer));
	if (leader->group_exiting)
		leader->exit_status = leader->group_exit_status;
	leader->state = PROC_ZOMBIE;
	this_cpu()->wake_here = true;	/* this CPU is free right after: the parent may run here */
	notify_parent(leader);
	this_cpu()->wake_here = false;
	schedule();			/* never to return: zombies do not run */
	panic("a zombie ran");
}

/* Process 1: the program named by init= with the words after -- as its arguments. */
void start_init(void)
{
	struct process *p = proc_alloc();
	char *argv[MAX_INIT_ARGS + 1], *envp[] = { "HOME=/", "TERM=linux" };
	int i, err;

	if (!p)
		panic("no memory for process 1");
	init_process = p;
	p->tgid = p->pgid = p->sid = p->pid;
	p->group_leader = p;
	cred_init_root(&p->cred);
	p->files = fdtable_alloc();
	p->fs = fs_alloc();
	p->sig.action = sighand_alloc();
	if (!p->files || !p->fs || !p->sig.action)
		panic("no memory for process 1's files, directory and signal actions");
	argv[0] = boot_options.init;
	for (i = 0; i < boot_options.init_argc; i++)
		argv[i + 1] = boot_options.init_argv[i];
	for (i = 0; i < 3; i++) {
		p->files->fd[i] = i ? file_get(p->files->fd[0]) : console_file();
		if (!p->files->fd[i])
			panic("no memory for the console file");
	}
	err = exec_image(p, boot_options.init, argv, boot_options.init_argc + 1, envp, 2);
	if (err)
		panic("cannot start init %s: error %d (%s)", boot_options.init, err,
		      err == -2 ? "no such module: check the module2 lines of grub.cfg" :
		      err == -8 ? "not an executable ccos can run (see above)" : "see above");
	printk("ccos: starting %s as pid %d\n", boot_options.init, p->pid);
	sched_wake(p);
	scheduler();
}
