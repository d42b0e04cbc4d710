/* New processes and threads: fork, vfork and clone. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/sched.h>
#include <ccos/path.h>
#include <ccos/file.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/uaccess.h>

/* clone's flags (linux/sched.h); the low byte is the signal the parent gets at the child's exit. */
#define CSIGNAL			0x000000ff
#define CLONE_VM		0x00000100
#define CLONE_FS		0x00000200
#define CLONE_FILES		0x00000400
#define CLONE_SIGHAND		0x00000800
#define CLONE_VFORK		0x00004000
#define CLONE_THREAD		0x00010000
#define CLONE_SYSVSEM		0x00040000
#define CLONE_SETTLS		0x00080000
#define CLONE_PARENT_SETTID	0x00100000
#define CLONE_CHILD_CLEARTID	0x00200000
#define CLONE_DETACHED		0x00400000
#define CLONE_CHILD_SETTID	0x01000000

/*
 * What ccos does. CLONE_SYSVSEM shares System V semaphore undo lists,
 * which ccos does not have. CLONE_DETACHED is ignored, as by Linux since
 * 2.6. The rest (namespaces, CLONE_PARENT, CLONE_PTRACE, ...) is EINVAL,
 * Linux's answer to flags it cannot honour.
 */
#define CLONE_SUPPORTED	(CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
			 CLONE_VFORK | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | \
			 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_DETACHED | \
			 CLONE_CHILD_SETTID)

/* Store a tid into an address space, as a user write would: only into a writable area. */
static void put_tid(struct mm *mm, uint64_t va, int tid)
{
	struct vma *v = mm_find_vma(mm, va);

	if (v && (v->prot & PROT_WRITE) && va + sizeof(tid) <= v->end)
		copy_to_mm(mm, va, &tid, sizeof(tid));
}

/*
 * CLONE_CHILD_CLEARTID, when the thread leaves its address space (exit or
 * exec): as Linux, 0 is written there and one futex waiter woken, only
 * when someone else still uses the memory (another thread, a vfork
 * parent). This is how pthread_join learns that a thread has ended.
 */
void clear_child_tid(struct process *p)
{
	if (p->clear_child_tid && p->mm && p->mm->refs > 1) {
		put_tid(p->mm, p->clear_child_tid, 0);
		futex_wake(p->mm, p->clear_child_tid, 1);
	}
	p->clear_child_tid = 0;
}

/* A signal that ends the process when delivered ends a vfork wait too, as on Linux (killable). */
static void wait_for_vfork_done(struct process *parent, struct process *child)
{
	while (child->vfork_parent == parent && child->state != PROC_ZOMBIE &&
	       !fatal_signal_pending(parent))
		sleep_on_killable(parent);
}

/* Linux's rules (copy_process): threads share the actions, which need one address space. */
static bool clone_flags_valid(uint64_t flags)
{
	if (flags & ~CLONE_SUPPORTED || (flags & CSIGNAL) > NSIG)
		return false;
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return false;
	return !(flags & CLONE_SIGHAND) || (flags & CLONE_VM);
}

/* The address space, descriptors, directory and actions: shared or copied, as flags say. */
static int share_or_copy(struct process *parent, struct process *child, uint64_t flags)
{
	if (flags & CLONE_VM) {
		child->mm = parent->mm;
		child->mm->refs++;
	} else if (!(child->mm = mm_copy(parent->mm))) {
		return -ENOMEM;
	}
	child->files = flags & CLONE_FILES ? fdtable_share(parent->files) :
					     fdtable_copy(parent->files);
	child->fs = flags & CLONE_FS ? fs_share(parent->fs) : fs_copy(parent->fs);
	child->sig.action = flags & CLONE_SIGHAND ? sighand_share(parent->sig.action) :
						    sighand_copy(parent->sig.action);
	return child->files && child->fs && child->sig.action ? 0 : -ENOMEM;
}

static void undo_clone(struct process *child)
{
	if (child->mm)
		mm_release(child->mm);
	if (child->files)
		fdtable_put(child->files);
	if (child->fs)
		fs_put(child->fs);
	if (child->sig.action)
		sighand_put(child->sig.action);
	proc_free(child);
}

/*
 * A new thread of the caller's process (CLONE_THREAD) or a new process. A
 * thread joins its creator's group and has the group's parent; it sends
 * no signal when it ends, and nobody waits for it (kernel/thread.c).
 */
static void set_family(struct process *parent, struct process *child, uint64_t flags)
{
	if (flags & CLONE_THREAD) {
		child->tgid = parent->tgid;
		child->group_leader = parent->group_leader;
		child->parent = parent->group_leader->parent;
		child->exit_signal = 0;
	} else {
		child->tgid = child->pid;
		child->group_leader = child;
		child->parent = parent->group_leader;
		child->exit_signal = flags & CSIGNAL;
	}
	child->pgid = parent->pgid;
	child->sid = parent->sid;
	child->exe = parent->exe;
}

static long do_clone(uint64_t flags, uint64_t newsp, int __user *ptid, uint64_t ctid,
		     uint64_t tls)
{
	struct process *parent = current(), *child;
	int err;

	if (!clone_flags_valid(flags))
		return -EINVAL;
	if ((flags & CLONE_SETTLS) && tls >= USER_TOP)
		return -EPERM;		/* as arch_prctl(ARCH_SET_FS) answers */
	if (!(child = proc_alloc()))
		return -EAGAIN;
	if ((err = share_or_copy(parent, child, flags))) {
		undo_clone(child);
		return err;
	}
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	set_family(parent, child, flags);
	*child->tf = *parent->tf;
	child->tf->rax = 0;			/* clone returns 0 in the child */
	if (newsp)
		child->tf->rsp = newsp;
	fpu_save(parent->fpu);		/* the child starts with the parent's registers */
	memcpy(child->fpu, parent->fpu, fpu_state_size);
	fsgs_save(parent);		/* what it holds now, not what it last set */
	child->fsindex = flags & CLONE_SETTLS ? 0 : parent->fsindex;
	child->fs_base = flags & CLONE_SETTLS ? tls : parent->fs_base;
	child->gsindex = parent->gsindex;
	child->gs_base = parent->gs_base;
	child->sig.blocked = parent->sig.blocked;
	/* A new stack in the same memory (a thread) starts without the creator's alternate one. */
	if ((flags & (CLONE_VM | CLONE_VFORK)) != CLONE_VM)
		child->sig.altstack = parent->sig.altstack;
	child->seccomp_mode = parent->seccomp_mode;
	child->lockless_syscalls = parent->lockless_syscalls;
	child->personality = parent->personality;
	cred_copy(&child->cred, &parent->cred);
	if (flags & CLONE_CHILD_SETTID)
		put_tid(child->mm, ctid, child->pid);
	if (flags & CLONE_CHILD_CLEARTID)
		child->clear_child_tid = ctid;
	if (flags & CLONE_PARENT_SETTID)
		put_user(child->pid, ptid);	/* Linux ignores a fault here too */
	child->cpus_allowed = parent->cpus_allowed;
	child->sigpending_cur = parent->group_leader->sigpending_cur;
	child->sigpending_max = parent->group_leader->sigpending_max;
	memcpy(child->rlim, parent->group_leader->rlim, sizeof(child->rlim));
	child->timer_slack_ns = parent->timer_slack_ns;
	child->tsc_sigsegv = parent->tsc_sigsegv;
	sched_fork_policy(child, parent);
	sched_wake(child);
	if (flags & CLONE_VFORK) {
		child->vfork_parent = parent;
		wait_for_vfork_done(parent, child);
	}
	return child->pid;
}

long sys_fork(void)
{
	return do_clone(SIGCHLD, 0, NULL, 0, 0);
}

long sys_vfork(void)
{
	return do_clone(CLONE_VM | CLONE_VFORK | SIGCHLD, 0, NULL, 0, 0);
}

/* x86-64's order: flags (32 bits of it, as Linux reads), stack, parent_tid, child_tid, tls. */
long sys_clone(unsigned long flags, uint64_t newsp, int __user *ptid, int __user *ctid,
	       unsigned long tls)
{
	return do_clone((uint32_t)flags, newsp, ptid, (uint64_t)ctid, tls);
}
