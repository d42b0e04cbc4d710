/* prctl: a process's name, seccomp, parent-death signal, timer slack, TSC access and child subreaper. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/signal.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>

#define PR_SET_PDEATHSIG	1
#define PR_GET_PDEATHSIG	2
#define PR_GET_KEEPCAPS		7
#define PR_SET_KEEPCAPS		8
#define PR_SET_NAME		15
#define PR_GET_NAME		16
#define PR_GET_SECCOMP		21
#define PR_SET_SECCOMP		22
#define PR_CAPBSET_READ		23
#define PR_GET_TSC		25
#define PR_SET_TSC		26
#define PR_SET_TIMERSLACK	29
#define PR_GET_TIMERSLACK	30
#define PR_SET_CHILD_SUBREAPER	36
#define PR_GET_CHILD_SUBREAPER	37
#define PR_SET_NO_NEW_PRIVS	38
#define PR_GET_NO_NEW_PRIVS	39
#define SECCOMP_MODE_STRICT	1
#define PR_TSC_ENABLE		1
#define PR_TSC_SIGSEGV		2

/*
 * What each option keeps, and where it acts:
 * - the parent-death signal, a thread's own, is sent to it when its parent
 *   process ends (kernel/proc.c); fork clears it, as Linux's;
 * - the timer slack, a thread's, is kept and reported: ccos's timers wake
 *   at their time, with no slack to give (0 sets the default back, 50 us);
 * - PR_TSC_SIGSEGV makes rdtsc and rdtscp fault in ring 3, so that the
 *   thread gets SIGSEGV: the scheduler sets CR4.TSD while it runs
 *   (kernel/sched/sched.c; SDM Vol. 3 §2.5, TSD: RDTSC at CPL > 0 is #GP);
 * - a child subreaper (a process's) adopts the orphans of its
 *   descendants instead of init (kernel/proc.c).
 */
long sys_prctl(int option, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	struct process *p = current();
	char name[16] = { 0 };	/* comm is zero-padded, as Linux's: PR_GET_NAME copies all 16 bytes */
	long len;

	switch (option) {
	case PR_GET_KEEPCAPS:
		return p->cred.keep_caps;
	case PR_SET_KEEPCAPS:
		if (a2 > 1)
			return -EINVAL;
		p->cred.keep_caps = a2;
		return 0;
	case PR_CAPBSET_READ:
		return a2 > CAP_LAST_CAP ? -EINVAL : !!(p->cred.cap_bset & CAP_BIT(a2));
	case PR_SET_NO_NEW_PRIVS:	/* once set, for good: exec never grants privileges again */
		if (a2 != 1 || a3 || a4 || a5)
			return -EINVAL;
		p->cred.no_new_privs = true;
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		return a2 || a3 || a4 || a5 ? -EINVAL : p->cred.no_new_privs;
	case PR_SET_PDEATHSIG:
		if (a2 >= NSIG)
			return -EINVAL;
		p->pdeath_signal = a2;
		return 0;
	case PR_GET_PDEATHSIG:
		return put_user(p->pdeath_signal, (int __user *)a2) ? -EFAULT : 0;
	case PR_SET_NAME:
		len = strncpy_from_user(name, (const char __user *)a2, sizeof(name));
		if (len == -EFAULT)
			return -EFAULT;
		name[sizeof(name) - 1] = '\0';
		memcpy(p->comm, name, sizeof(name));
		return 0;
	case PR_GET_NAME:
		return copy_to_user((void __user *)a2, p->comm, sizeof(p->comm)) ? -EFAULT : 0;
	case PR_GET_SECCOMP:
		return p->seccomp_mode;
	case PR_SET_SECCOMP:
		if (a2 != SECCOMP_MODE_STRICT)
			return -EINVAL;
		p->seccomp_mode = SECCOMP_MODE_STRICT;
		p->lockless_syscalls = syscall_lockless_none;
		return 0;
	case PR_GET_TSC:
		return put_user(p->tsc_sigsegv ? PR_TSC_SIGSEGV : PR_TSC_ENABLE, (int __user *)a2) ?
		       -EFAULT : 0;
	case PR_SET_TSC:
		if (a2 != PR_TSC_ENABLE && a2 != PR_TSC_SIGSEGV)
			return -EINVAL;
		p->tsc_sigsegv = a2 == PR_TSC_SIGSEGV;
		tsc_access_load(p);
		return 0;
	case PR_SET_TIMERSLACK:
		p->timer_slack_ns = a2 ? a2 : TIMER_SLACK_DEFAULT;
		return 0;
	case PR_GET_TIMERSLACK:
		return p->timer_slack_ns;
	case PR_SET_CHILD_SUBREAPER:
		p->group_leader->child_subreaper = a2 != 0;
		return 0;
	case PR_GET_CHILD_SUBREAPER:
		return put_user(p->group_leader->child_subreaper, (int __user *)a2) ? -EFAULT : 0;
	}
	return -EINVAL;
}
