/* /proc files, made at open time: /proc/PID's, stat, loadavg and uptime in Linux's format, and ccos's smpstat; cpuinfo, meminfo, maps, mounts and sys have files of their own. */
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/time.h>
#include <ccos/clock.h>
#include <asm/arch.h>

#define SMPSTAT_LINE_MAX 256	/* 63 columns of text, a CPU's number and 7 of at most 20 digits */

static int live_threads(struct process *p)
{
	struct process *t;
	int threads = 0;

	for_each_thread(t, p)
		threads += t->state != PROC_ZOMBIE && t->state != PROC_DEAD;
	return threads;
}

/* Linux's letters: R running or runnable, S asleep (interruptibly), Z a zombie. */
static char state_letter(struct process *p)
{
	return p->state == PROC_ZOMBIE || p->state == PROC_DEAD ? 'Z' :
	       p->state == PROC_SLEEPING ? 'S' : 'R';
}

/*
 * Some of Linux's lines of /proc/PID/status, for the process (as Linux
 * shows its leader, whichever thread reads): Threads counts the live ones;
 * Uid and Gid are real, effective, saved and fs; Groups ends in a space,
 * as Linux's does.
 */
static char *status(struct process *p, size_t *len)
{
	const struct cred *c = &p->cred;
	uint32_t i, ngroups = c->groups ? c->groups->n : 0;
	size_t size = 512 + 11 * ngroups, n;
	char *buf = kmalloc(size);

	if (!buf)
		return NULL;
	n = snprintf(buf, size, "Name:\t%s\nState:\t%c\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\n"
		     "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nGroups:\t",
		     p->comm, state_letter(p), p->tgid, p->tgid, p->parent ? p->parent->tgid : 0,
		     c->uid, c->euid, c->suid, c->fsuid, c->gid, c->egid, c->sgid, c->fsgid);
	for (i = 0; i < ngroups; i++)
		n += snprintf(buf + n, size - n, i ? " %u" : "%u", c->groups->gid[i]);
	n += snprintf(buf + n, size - n, " \nThreads:\t%d\nCapInh:\t%016lx\nCapPrm:\t%016lx\n"
		      "CapEff:\t%016lx\nCapBnd:\t%016lx\nCapAmb:\t%016lx\nNoNewPrivs:\t%d\n",
		      live_threads(p), c->cap_inheritable, c->cap_permitted, c->cap_effective,
		      c->cap_bset, 0ul, c->no_new_privs);
	*len = n;
	return buf;
}

/*
 * /proc/PID/stat: Linux's 52 fields (proc(5)) on one line. The process's
 * CPU time and its reaped children's (fields 14 to 17, clock ticks) are
 * the tick's (kernel/sched/cputime.c); ccos counts no faults, so those are 0, as
 * are the addresses Linux hides from other users; priority is 20 + nice
 * (setpriority's, kernel/sched/nice.c).
 */
static char *pid_stat(struct process *p, size_t *len)
{
	struct process *leader = p->group_leader;
	struct cputime t = group_cputime(leader);
	uint64_t vsize = 0;
	struct vma *v;
	char *buf = kmalloc(512);

	for (v = p->mm ? vma_next(p->mm, 0) : NULL; v; v = vma_next(p->mm, v->end))
		vsize += v->end - v->start;
	if (buf)
		*len = snprintf(buf, 512, "%d (%s) %c %d %d %d 0 -1 0 0 0 0 0 %lu %lu %lu %lu %d %d %d 0 0 "
				"%lu 0 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 %d %d 0 0 0 0 0 "
				"0 0 0 %lu %lu 0 0 0\n",
				p->tgid, p->comm, state_letter(p), p->parent ? p->parent->tgid : 0,
				p->pgid, p->sid, ns_to_clock_t(t.user), ns_to_clock_t(t.sys),
				ns_to_clock_t(leader->children.user), ns_to_clock_t(leader->children.sys),
				20 + p->nice, p->nice,
				live_threads(p), vsize, p->exit_signal, p->cpu,
				p->mm ? p->mm->arg_start : 0, p->mm ? p->mm->arg_end : 0);
	return buf;
}

/* The arguments, each ending in a NUL, read from the process's stack as Linux does. */
static char *cmdline(struct process *p, size_t *len)
{
	size_t n = p->mm ? MIN(p->mm->arg_end - p->mm->arg_start, PAGE_SIZE) : 0;
	char *buf = kmalloc(n + 1);

	if (buf && n && copy_from_mm(p->mm, buf, p->mm->arg_start, n))
		n = 0;
	*len = n;
	return buf;
}

static char *comm(struct process *p, size_t *len)
{
	char *buf = kmalloc(sizeof(p->comm) + 1);

	if (buf)
		*len = snprintf(buf, sizeof(p->comm) + 1, "%s\n", p->comm);
	return buf;
}

/*
 * ccos's own, no Linux file: per CPU, the kernel lock taken, how often it
 * was found held and how long this CPU waited for it, switches to a
 * process, and halts in the idle loop (docs/smp.md).
 */
static char *smpstat(size_t *len)
{
	size_t size = nr_cpus * SMPSTAT_LINE_MAX, n = 0;
	char *buf = kmalloc(size);
	int i;

	if (!buf)
		return NULL;
	for (i = 0; i < nr_cpus; i++) {
		const struct percpu *c = &cpus[i];

		n += snprintf(buf + n, size - n,
			      "cpu%d kernel_lock %lu waited %lu for %lu us switches %lu halts %lu tlb %lu for %lu us\n",
			      i, c->klock_taken, c->klock_waited,
			      tsc_khz ? c->klock_wait_cycles * 1000 / tsc_khz : 0, c->switches,
			      c->halts, c->shootdowns,
			      tsc_khz ? c->shootdown_cycles * 1000 / tsc_khz : 0);
	}
	*len = MIN(n, size);
	return buf;
}

/* How many processes (not threads) are running or runnable, and how many there are. */
static void count_processes(int *running, int *all)
{
	struct process *p;

	*running = *all = 0;
	for (p = proc_table; p < proc_table + NPROC; p++)
		if (p->state != PROC_UNUSED && p->state != PROC_DEAD && p->pid == p->tgid) {
			++*all;
			*running += p->state == PROC_RUNNING || p->state == PROC_RUNNABLE;
		}
}

/* A cpu line of /proc/stat: user, nice, system, idle, then six times ccos does not count. */
static size_t cpu_line(char *buf, size_t left, const char *name, struct cputime t, uint64_t idle)
{
	return snprintf(buf, left, "%s %lu 0 %lu %lu 0 0 0 0 0 0\n", name, ns_to_clock_t(t.user),
			ns_to_clock_t(t.sys), ns_to_clock_t(idle));
}

/*
 * /proc/stat and /proc/loadavg in Linux's format, for top and uptime: each
 * CPU's user, system and idle time as its tick charged them
 * (kernel/sched/cputime.c), in clock ticks; ccos keeps no load average, so that is 0.
 */
static char *cpu_stat(size_t *len)
{
	size_t size = (nr_cpus + 6) * 96, n;
	char *buf = kmalloc(size), name[8];
	struct cputime all_cpus = { 0 };
	uint64_t idle = 0;
	struct timespec now, up;
	int i, running, all;

	if (!buf)
		return NULL;
	do_clock_gettime(0 /* CLOCK_REALTIME */, &now);
	do_clock_gettime(1 /* CLOCK_MONOTONIC */, &up);
	count_processes(&running, &all);
	for (i = 0; i < nr_cpus; i++) {
		cputime_add(&all_cpus, cpus[i].time);
		idle += cpus[i].idle_time;
	}
	n = cpu_line(buf, size, "cpu ", all_cpus, idle);
	for (i = 0; i < nr_cpus; i++) {
		snprintf(name, sizeof(name), "cpu%d", i);
		n += cpu_line(buf + n, size - n, name, cpus[i].time, cpus[i].idle_time);
	}
	n += snprintf(buf + n, size - n, "intr 0\nctxt 0\nbtime %ld\nprocesses %d\n"
		      "procs_running %d\nprocs_blocked 0\n", now.tv_sec - up.tv_sec, last_pid(), running);
	*len = MIN(n, size);
	return buf;
}

static char *loadavg(size_t *len)
{
	char *buf = kmalloc(64);
	int running, all;

	count_processes(&running, &all);
	if (buf)
		*len = snprintf(buf, 64, "0.00 0.00 0.00 %d/%d %d\n", running, all, last_pid());
	return buf;
}

/* /proc/uptime: seconds since the boot, and the seconds all CPUs spent idle, to a hundredth. */
static char *uptime(size_t *len)
{
	char *buf = kmalloc(64);
	struct timespec up;
	uint64_t idle = 0, up_cs;
	int i;

	do_clock_gettime(1 /* CLOCK_MONOTONIC: ccos never suspends */, &up);
	for (i = 0; i < nr_cpus; i++)
		idle += cpus[i].idle_time;
	up_cs = up.tv_sec * 100 + up.tv_nsec / 10000000;
	idle /= 10000000;
	if (buf)
		*len = snprintf(buf, 64, "%lu.%02lu %lu.%02lu\n", up_cs / 100, up_cs % 100, idle / 100,
				idle % 100);
	return buf;
}

static const struct {
	const char *path;
	char *(*generate)(size_t *len);
} proc_files[] = {
	{ "/proc/cpuinfo", proc_cpuinfo },
	{ "/proc/loadavg", loadavg },
	{ "/proc/stat", cpu_stat },
	{ "/proc/meminfo", proc_meminfo },
	{ "/proc/uptime", uptime },
	{ "/proc/mounts", proc_mounts },
	{ "/proc/smpstat", smpstat },
};

/* The files of /proc/PID; its exe is a link (fs/symlink.c). */
static const struct {
	const char *name;
	char *(*generate)(struct process *p, size_t *len);
} pid_files[] = {
	{ "cmdline", cmdline }, { "comm", comm }, { "maps", proc_maps }, { "smaps", proc_smaps },
	{ "smaps_rollup", proc_smaps_rollup },
	{ "stat", pid_stat }, { "status", status },
};

/* The process of a path /proc/PID..., and the rest of the path ("" or "/..."); NULL if none. */
struct process *procfs_process(const char *path, const char **rest)
{
	const char *s = path + 6;
	struct process *p;
	int pid = 0;

	if (path[0] != '/' || path[1] != 'p' || strncmp(path, "/proc/", 6) || *s < '1' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9' && pid < (1 << 24); s++)
		pid = pid * 10 + *s - '0';
	if ((*s && *s != '/') || !(p = proc_find(pid)) || p->state == PROC_DEAD)
		return NULL;
	*rest = s;
	return p;
}

/* /proc's i-th process folder: a group leader's id, or 0 past the last. */
int procfs_pid_at(uint64_t i)
{
	struct process *p;

	for (p = proc_table; p < proc_table + NPROC; p++)
		if (p->state != PROC_UNUSED && p->state != PROC_DEAD && p->pid == p->tgid && !i--)
			return p->pid;
	return 0;
}

/* The i-th name of a /proc/PID folder, or NULL past the last. */
const char *procfs_pid_file_at(uint64_t i)
{
	return i < ARRAY_SIZE(pid_files) ? pid_files[i].name : i == ARRAY_SIZE(pid_files) ? "exe" : NULL;
}

/* The text of a /proc file: 0, -ENOENT when there is no such file, -ENOMEM when it does not fit. */
long procfs_generate(const char *path, char **text, size_t *len)
{
	struct process *p = procfs_process(path, &path);
	size_t i;

	for (i = 0; p && i < ARRAY_SIZE(pid_files); i++)
		if (path[0] == '/' && !strcmp(path + 1, pid_files[i].name))
			return (*text = pid_files[i].generate(p, len)) ? 0 : -ENOMEM;
	for (i = 0; !p && i < ARRAY_SIZE(proc_files); i++)
		if (!strcmp(path, proc_files[i].path))
			return (*text = proc_files[i].generate(len)) ? 0 : -ENOMEM;
	return p ? -ENOENT : proc_sys_generate(path, text, len);
}
