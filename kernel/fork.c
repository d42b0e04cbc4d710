/* New processes: fork, vfork and clone (the part of it fork, vfork and posix_spawn use). */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/file.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/uaccess.h>

/* clone's flags (linux/sched.h); the low byte is the signal the parent gets at the child's exit. */
#define CSIGNAL			0x000000ff
#define CLONE_VM		0x00000100
#define CLONE_VFORK		0x00004000
#define CLONE_SETTLS		0x00080000
#define CLONE_PARENT_SETTID	0x00100000
#define CLONE_CHILD_CLEARTID	0x00200000
#define CLONE_CHILD_SETTID	0x01000000

/*
 * What ccos does. The rest (CLONE_THREAD, CLONE_SIGHAND, CLONE_FILES,
 * CLONE_FS, namespaces, ...) asks for threads or sharing that ccos does
 * not have yet; Linux's answer to flags it cannot honour is EINVAL. CLONE_VM
 * comes only with CLONE_VFORK: two processes running at once in one
 * address space are threads in all but name.
 */
#define CLONE_SUPPORTED	(CSIGNAL | CLONE_VM | CLONE_VFORK | CLONE_SETTLS | \
			 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID)

/* Store a tid into an address space, as a user write would: only into a writable area. */
static void put_tid(struct mm *mm, uint64_t va, int tid)
{
	struct vma *v = mm_find_vma(mm, va);

	if (v && (v->prot & PROT_WRITE) && va + sizeof(tid) <= v->end)
		copy_to_mm(mm, va, &tid, sizeof(tid));
}

/*
 * CLONE_CHILD_CLEARTID, when the process leaves its address space (exit
 * or exec): Linux writes 0 there and wakes a futex waiter, and only when
 * someone else still uses the memory: here, the vfork parent. ccos has
 * no futex and no threads, so there is no waiter to wake.
 */
void clear_child_tid(struct process *p)
{
	if (p->clear_child_tid && p->mm && p->mm->refs > 1)
		put_tid(p->mm, p->clear_child_tid, 0);
	p->clear_child_tid = 0;
}

/* A signal that ends the process when delivered ends a vfork wait too, as on Linux (killable). */
static void wait_for_vfork_done(struct process *parent, struct process *child)
{
	while (child->vfork_parent == parent && child->state != PROC_ZOMBIE &&
	       !fatal_signal_pending(parent))
		sleep_on(parent);
}

static long do_clone(uint64_t flags, uint64_t newsp, int __user *ptid, uint64_t ctid,
		     uint64_t tls)
{
	struct process *parent = current(), *child;
	int fd, exit_signal = flags & CSIGNAL;

	if (flags & ~CLONE_SUPPORTED || exit_signal > NSIG)
		return -EINVAL;
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
		return -EINVAL;
	if ((flags & CLONE_SETTLS) && tls >= USER_TOP)
		return -EPERM;		/* as arch_prctl(ARCH_SET_FS) answers */
	if (!(child = proc_alloc()))
		return -EAGAIN;
	if (flags & CLONE_VM) {
		child->mm = parent->mm;
		child->mm->refs++;
	} else if (!(child->mm = mm_copy(parent->mm))) {
		proc_free(child);
		return -ENOMEM;
	}
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	child->parent = parent;
	child->pgid = parent->pgid;
	child->sid = parent->sid;
	child->exit_signal = exit_signal;
	*child->tf = *parent->tf;
	child->tf->rax = 0;			/* clone returns 0 in the child */
	if (newsp)
		child->tf->rsp = newsp;
	__asm__ volatile("fxsave64 %0" : "=m"(parent->fpu));
	memcpy(child->fpu, parent->fpu, sizeof(child->fpu));
	child->fs_base = flags & CLONE_SETTLS ? tls : parent->fs_base;
	child->gs_base = parent->gs_base;
	for (fd = 0; fd < NOFILE; fd++)
		if (parent->files[fd])
			child->files[fd] = file_get(parent->files[fd]);
	child->cloexec = parent->cloexec;
	memcpy(child->cwd, parent->cwd, sizeof(child->cwd));
	child->umask = parent->umask;
	child->sig.blocked = parent->sig.blocked;
	memcpy(child->sig.action, parent->sig.action, sizeof(child->sig.action));
	child->sig.altstack = parent->sig.altstack;
	child->seccomp_mode = parent->seccomp_mode;
	child->lockless_syscalls = parent->lockless_syscalls;
	child->personality = parent->personality;
	if (flags & CLONE_CHILD_SETTID)
		put_tid(child->mm, ctid, child->pid);
	if (flags & CLONE_CHILD_CLEARTID)
		child->clear_child_tid = ctid;
	if (flags & CLONE_PARENT_SETTID)
		put_user(child->pid, ptid);	/* Linux ignores a fault here too */
	child->state = PROC_RUNNABLE;
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
