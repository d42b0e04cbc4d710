/* What the system has and allows: sysinfo, and the resource limits of getrlimit and prlimit64. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/file.h>
#include <ccos/mm.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/time.h>
#include <ccos/uaccess.h>

/* Linux's struct sysinfo (linux/sysinfo.h), as free and uptime read it. */
struct sysinfo {
	int64_t uptime;			/* seconds since boot */
	uint64_t loads[3];		/* 1, 5, 15 minutes, fixed point << 16 */
	uint64_t totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	uint16_t procs, pad;
	uint64_t totalhigh, freehigh;
	uint32_t mem_unit;		/* the unit of the memory sizes, in bytes */
};
BUILD_BUG_ON(sizeof(struct sysinfo) != 112);

/* ccos computes no load average: the loads stay 0. Memory counts in bytes (mem_unit 1). */
long sys_sysinfo(struct sysinfo __user *uinfo)
{
	struct sysinfo info = { 0 };
	struct process *p;

	info.uptime = (ktime_get_ns() + NSEC_PER_SEC - 1) / NSEC_PER_SEC;	/* rounded up */
	info.totalram = (frames_free() + frames_used()) * PAGE_SIZE;
	info.freeram = mem_free_bytes();	/* as MemFree */
	for (p = proc_table; p < proc_table + NPROC; p++)
		if (p->state != PROC_UNUSED)
			info.procs++;
	info.mem_unit = 1;
	return copy_to_user(uinfo, &info, sizeof(info)) ? -EFAULT : 0;
}

#define RLIM_INFINITY	(~0ul)
#define RLIMIT_DATA	2
#define RLIMIT_STACK	3
#define RLIMIT_CORE	4
#define RLIMIT_NPROC	6
#define RLIMIT_MEMLOCK	8
#define RLIMIT_SIGPENDING	11

/*
 * init's limits, which fork copies and exec keeps, as on Linux: where
 * ccos has a fixed bound (the stack, the heap, the descriptor table) it
 * is the hard limit, and RLIMIT_NOFILE's soft limit is Linux's 1024;
 * RLIMIT_MEMLOCK is Linux's 8 MiB, RLIMIT_NPROC the process table;
 * RLIMIT_CORE's soft 0 is Linux's (ccos writes no core file anyway).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"	/* the defaults, then the rest */
static const struct rlimit64 rlimit_defaults[RLIM_NLIMITS] = {
	[0 ... RLIM_NLIMITS - 1] = { RLIM_INFINITY, RLIM_INFINITY },
	[RLIMIT_DATA] = { BRK_MAX, BRK_MAX },
	[RLIMIT_STACK] = { STACK_SIZE, STACK_SIZE },
	[RLIMIT_CORE] = { 0, RLIM_INFINITY },
	[RLIMIT_NPROC] = { NPROC, NPROC },
	[RLIMIT_NOFILE] = { NOFILE, NOFILE },
	[RLIMIT_MEMLOCK] = { 8 << 20, 8 << 20 },
	[RLIMIT_SIGPENDING] = { SIGPENDING_DEFAULT, SIGPENDING_DEFAULT },
};
#pragma GCC diagnostic pop

void rlimit_init(struct process *p)
{
	memcpy(p->rlim, rlimit_defaults, sizeof(p->rlim));
}

/* The limit a process's calls meet: its group's soft limit. */
uint64_t rlimit(const struct process *p, unsigned int resource)
{
	return p->group_leader->rlim[resource].cur;
}

/*
 * The old limit, and a new one, each process's own (fork copies them,
 * exec keeps them). A hard limit may rise with CAP_SYS_RESOURCE only, and
 * another user's process's limits change only with CAP_SYS_RESOURCE too
 * (Linux's check_prlimit_permission); never past a bound ccos has (the
 * defaults' hard limits where not infinity): EPERM, as Linux's past nr_open.
 * RLIMIT_SIGPENDING lives beside the signal queue (signal/sigqueue.c).
 */
long sys_prlimit64(int pid, unsigned int resource, const struct rlimit64 __user *unew,
		   struct rlimit64 __user *uold)
{
	struct process *p = pid ? proc_find(pid) : current();
	struct rlimit64 lim, want;

	if (resource >= RLIM_NLIMITS)
		return -EINVAL;
	if (!p)
		return -ESRCH;
	p = p->group_leader;
	lim = p->rlim[resource];
	if (resource == RLIMIT_SIGPENDING)
		lim = (struct rlimit64){ p->sigpending_cur, p->sigpending_max };
	if (unew) {
		if (copy_from_user(&want, unew, sizeof(want)))
			return -EFAULT;
		if (want.cur > want.max)
			return -EINVAL;
		if (p->tgid != current()->tgid && !capable(CAP_SYS_RESOURCE) &&
		    (p->cred.uid != current()->cred.uid || p->cred.suid != current()->cred.uid))
			return -EPERM;
		if (want.max > lim.max && !capable(CAP_SYS_RESOURCE))
			return -EPERM;
		if (want.max > rlimit_defaults[resource].max && resource != RLIMIT_SIGPENDING &&
		    resource != RLIMIT_CORE && resource != RLIMIT_MEMLOCK)
			return -EPERM;
		p->rlim[resource] = want;
		if (resource == RLIMIT_SIGPENDING) {
			p->sigpending_cur = want.cur;
			p->sigpending_max = want.max;
		}
	}
	return uold && copy_to_user(uold, &lim, sizeof(lim)) ? -EFAULT : 0;
}

long sys_getrlimit(unsigned int resource, struct rlimit64 __user *old)
{
	return sys_prlimit64(0, resource, NULL, old);
}

long sys_setrlimit(unsigned int resource, const struct rlimit64 __user *new)
{
	return sys_prlimit64(0, resource, new, NULL);
}
