/* fuzz's thread rounds: one child's threads on every CPU racing futexes, affinity, signals, unmaps, descriptors, timers and exits. */
#include "fuzz.h"

#define THREAD_FLAGS	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | \
			 CLONE_SYSVSEM)

#define SIGUSR2			12

#define THREADS		4	/* slots: the leader (0) and up to three threads */
#define OPS		8	/* each slot's operations */
#define VICTIM_PAGES	4	/* the memory every thread uses and some unmap */
#define STACK_SIZE	16384

/*
 * The plan comes from the seed alone: each slot's operations, each with
 * random bits that say, when it runs, which word, thread, mask, signal or
 * page it takes. Only what the kernel answers, and the order in which the
 * CPUs get there, differ from run to run. Every wait is bounded (a futex
 * wait has a timeout of at most 8 ms, a sleep 1 ms) but one in 64 futex
 * waits, left to the parent's watchdog.
 */
enum kind {
	OP_CALL, OP_FUTEX, OP_AFFINITY, OP_SIGNAL, OP_FD, OP_BLOCK, OP_UNMAP, OP_PROTECT, OP_REMAP,
	OP_COPY, OP_TOUCH, OP_CLONE, OP_SLEEP, OP_TIMER, OP_EXEC, OP_EXIT, OP_EXIT_GROUP, NR_KINDS
};

static const char *const kind_name[NR_KINDS] = {
	"call", "futex", "affinity", "signal", "fd", "block", "unmap", "protect", "remap", "copy",
	"touch", "clone", "sleep", "timer", "exec", "exit", "exit_group",
};

struct op {
	enum kind kind;
	unsigned long r[4];
	struct call c;		/* OP_CALL's */
};

struct thread_plan {
	int start;		/* threads the leader starts before its own operations */
	int descriptors;	/* a round of descriptors: their changes and sleeps only */
	struct op ops[THREADS][OPS];
};

static struct thread_plan plan;

struct thread_plan *make_threads(void)
{
	static const enum kind descriptor_kinds[] = { OP_FD, OP_BLOCK, OP_BLOCK, OP_SLEEP };
	int t, i, j;

	plan.start = next_random() % THREADS;
	plan.descriptors = next_random() % 2;
	for (t = 0; t < THREADS; t++) {
		for (i = 0; i < OPS; i++) {
			struct op *o = &plan.ops[t][i];
			unsigned long r = next_random();

			/*
			 * Futexes, affinity, signals and the descriptors' changes and
			 * sleeps twice as often; exec and exits half as often. In a
			 * round of descriptors, the threads only change and sleep
			 * on them, so that a sleeper's file is often taken away.
			 */
			o->kind = r % (NR_KINDS + 10);
			if (o->kind >= NR_KINDS)
				o->kind = OP_FUTEX + o->kind % 5;
			if (o->kind >= OP_EXEC && (r >> 32 & 1))
				o->kind = OP_SLEEP;
			if (plan.descriptors)
				o->kind = descriptor_kinds[r % ARRAY_SIZE(descriptor_kinds)];
			for (j = 0; j < 4; j++)
				o->r[j] = next_random();
			if (o->kind == OP_CALL)
				make_call(&o->c);
		}
	}
	return &plan;
}

void trace_threads(long n, const struct thread_plan *p)
{
	int t, i;

	ktap_diag("call %ld: a thread round%s, %d threads started first", n,
		  p->descriptors ? " of descriptors" : "", p->start);
	for (t = 0; t < THREADS; t++)
		for (i = 0; i < OPS; i++) {
			const struct op *o = &p->ops[t][i];

			if (o->kind == OP_CALL)
				trace_call("  slot", t, &o->c);
			else
				ktap_diag("  slot %d: %s %#lx %#lx %#lx %#lx", t, kind_name[o->kind],
					  o->r[0], o->r[1], o->r[2], o->r[3]);
		}
}

/* ---- the child: what the threads share (the child's own copy of this data) ---- */

static unsigned long online_cpus;
static long tgid;
static int tids[THREADS], ctids[THREADS], next_slot = 1;
static unsigned int words[4];			/* futex words */
static unsigned char *victim;
static unsigned long tls_block[8];
static char stacks[THREADS][STACK_SIZE] __attribute__((aligned(16)));
static volatile long signals_seen;

/* The nth CPU of the online mask, n counted round. */
static unsigned long nth_cpu(unsigned long n)
{
	int count = 0, cpu;

	for (cpu = 0; cpu < 64; cpu++)
		count += online_cpus >> cpu & 1;
	n %= count;
	for (cpu = 0; cpu < 64; cpu++)
		if ((online_cpus >> cpu & 1) && !n--)
			break;
	return 1ul << cpu;
}

/* A thread of the round, 0 (the caller), or a tid no process has: never another process. */
static long tid_of(unsigned long r)
{
	int t = r % (THREADS + 2);

	return t < THREADS ? tids[t] : t == THREADS ? 0 : 0x3fff0000 + (long)(r >> 8 & 0xffff);
}

static unsigned long victim_addr(unsigned long r)
{
	return (unsigned long)victim + r % (VICTIM_PAGES * PAGE_SIZE);
}

static void futex_op(const unsigned long *r)
{
	/* WAIT, WAKE, REQUEUE, ...; half as often the PI ones: LOCK_PI, UNLOCK_PI, TRYLOCK_PI, ... */
	static const int ops[] = { 0, 1, 3, 4, 9, 10, 0, 9, 6, 7, 8, 11, 12, 13, 7, 6 };
	unsigned int *word = &words[r[0] % 4];
	unsigned long addr, addr2 = (unsigned long)&words[r[0] >> 2 & 3];
	int op = ops[(r[1] % 8) | (r[1] >> 17 & 8)] | (r[1] >> 3 & 1 ? 128 : 0);	/* FUTEX_PRIVATE_FLAG */
	unsigned int val = r[2] % 4 ? *word : (unsigned int)(r[2] >> 8);
	struct timespec ts = { 0, (long)(r[3] % 8 + 1) * MSEC };

	switch (r[0] >> 4 & 7) {
	case 0: addr = victim_addr(r[0] >> 8) & ~3ul; break;
	case 1: addr = victim_addr(r[0] >> 8); break;		/* maybe not aligned */
	case 2: addr = hostile(r[2] >> 20); break;
	default: addr = (unsigned long)word;
	}
	if (r[1] >> 4 & 1)
		op |= 256;					/* FUTEX_CLOCK_REALTIME */
	if (!(r[1] >> 5 & 63))
		op = r[1] >> 11 & 15;				/* any op, most unknown */
	if ((op & 127) == 9 || (op & 127) == 11 || (op & 127) == 13 || (op & 127) == 6) {
		/* WAIT_BITSET, WAIT_REQUEUE_PI, LOCK_PI2, LOCK_PI (always realtime): an absolute time */
		clock_gettime(op & 256 || (op & 127) == 6 ? CLOCK_REALTIME : CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)(r[3] % 8 + 1) * MSEC;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
	}
	if ((op & 127) == 3 || (op & 127) == 4)		/* REQUEUE: val2 is a count */
		syscall6(__NR_futex, addr, op, val, r[3] % 3, addr2, *word);
	else if ((op & 127) == 12)			/* CMP_REQUEUE_PI: wakes 1 */
		syscall6(__NR_futex, addr, op, r[2] % 8 ? 1 : val, r[3] % 3, addr2, *word);
	else
		syscall6(__NR_futex, addr, op, val, r[3] >> 8 & 63 ? (long)&ts : 0, addr2,
			 r[3] >> 14 & 7 ? ~0ul : r[3] >> 17);
	__atomic_fetch_add(word, 1, __ATOMIC_RELAXED);	/* then a waker that finds it moved */
}

static void affinity_op(const unsigned long *r)
{
	unsigned long masks[] = { nth_cpu(r[1]), online_cpus, 0, ~0ul, r[1] >> 8 };
	unsigned long mask = masks[r[1] % 5], out[2];
	unsigned long ptr = r[2] % 8 ? (unsigned long)&mask : hostile(r[2] >> 12);
	static const unsigned long lens[] = { 8, 8, 4, 0, 16 };

	if (r[3] % 4)
		syscall3(__NR_sched_setaffinity, tid_of(r[0]), lens[r[2] >> 8 & 3], ptr);
	else
		syscall3(__NR_sched_getaffinity, tid_of(r[0]), lens[r[2] >> 8 & 3],
			 r[2] % 8 ? (long)out : (long)ptr);
}

static void signal_op(const unsigned long *r)
{
	static const int sigs[] = { 0, SIGUSR1, SIGUSR2, SIGUSR1, 18 /* SIGCONT */, SIGSTOP,
				    SIGALRM, SIGKILL, SIGSEGV };
	int sig = r[1] % 16 ? sigs[r[1] % ARRAY_SIZE(sigs)] : (int)(r[1] >> 8 & 127);

	if (sig == SIGKILL && r[1] >> 16 & 3)
		sig = SIGUSR2;					/* rarer: it ends the round */
	if (r[2] % 4)
		syscall3(__NR_tgkill, tgid, tid_of(r[0]), sig);
	else
		syscall2(__NR_tkill, tid_of(r[0]), sig);
}

/* The kernel writes or reads the victim, which another thread may be unmapping. */
static void copy_op(const unsigned long *r)
{
	static char mine[2 * PAGE_SIZE];	/* process_vm_readv's and _writev's other side */
	unsigned long addr = victim_addr(r[0]), len = r[1] % (2 * PAGE_SIZE);
	struct iovec local = { mine, len }, remote = { (void *)addr, len };

	switch (r[2] % 6) {
	case 0: read(0, (void *)addr, len); break;
	case 1: syscall3(__NR_getrandom, addr, len, 0); break;
	case 2: clock_gettime(CLOCK_MONOTONIC, (struct timespec *)addr); break;
	case 3: process_vm_readv(tgid, &local, 1, &remote, 1, 0); break;
	case 4: syscall6(__NR_process_vm_writev, tgid, (long)&local, 1, (long)&remote, 1, 0); break;
	default: syscall3(__NR_sched_getaffinity, 0, 8, addr);
	}
}

/* User-mode reads and writes of the victim: a fault ends the round with SIGSEGV. */
static void touch_op(const unsigned long *r)
{
	volatile unsigned char *p = victim + r[0] % VICTIM_PAGES * PAGE_SIZE;
	unsigned long i;

	for (i = 0; i < r[1] % 2000; i++)
		p[(i * 61) % PAGE_SIZE] += r[2] & 1 ? 1 : p[i % 64];
}

static void thread_main(long slot);

static void start_thread(const unsigned long *r)
{
	int slot = __atomic_fetch_add(&next_slot, 1, __ATOMIC_RELAXED);
	unsigned long flags = THREAD_FLAGS, tls = 0;
	int *ctid = &ctids[slot % THREADS];
	long tid;

	if (slot >= THREADS)
		return;
	if (r[1] & 1)
		flags |= CLONE_PARENT_SETTID;
	if (r[1] & 2)
		flags |= CLONE_CHILD_SETTID;
	if (r[1] & 4)
		flags |= CLONE_CHILD_CLEARTID;
	if (r[1] & 8) {
		flags |= CLONE_SETTLS;
		tls = r[1] & 16 ? (unsigned long)tls_block : hostile(r[2]);
	}
	if (!(r[1] >> 5 & 15))
		ctid = (int *)hostile(r[3]);
	tid = thread_clone(flags, stacks[slot] + STACK_SIZE, &tids[slot], ctid, tls, thread_main,
			   slot);
	if (tid > 0)
		tids[slot] = tid;
}

static void run_op(const struct op *o, int slot)
{
	const unsigned long *r = o->r;
	struct call c = o->c;

	switch (o->kind) {
	case OP_CALL:
		aim_call(&c, tgid);
		syscall6(c.nr, c.a[0], c.a[1], c.a[2], c.a[3], c.a[4], c.a[5]);
		if (getpid() != tgid)
			exit_group(0);	/* a process it forked: gone before it could outlive the round */
		break;
	case OP_FUTEX: futex_op(r); break;
	case OP_AFFINITY: affinity_op(r); break;
	case OP_SIGNAL: signal_op(r); break;
	case OP_FD: fd_op(r); break;
	case OP_BLOCK: block_op(r, slot); break;
	case OP_UNMAP:
		munmap((void *)(victim_addr(r[0]) & ~(PAGE_SIZE - 1)), (r[1] % VICTIM_PAGES + 1) * PAGE_SIZE);
		break;
	case OP_PROTECT:
		syscall3(__NR_mprotect, victim_addr(r[0]) & ~(PAGE_SIZE - 1),
			 (r[1] % VICTIM_PAGES + 1) * PAGE_SIZE, r[2] % 8);
		break;
	case OP_REMAP:
		mmap((void *)(victim_addr(r[0]) & ~(PAGE_SIZE - 1)), (r[1] % VICTIM_PAGES + 1) * PAGE_SIZE,
		     PROT_READ | PROT_WRITE, (r[2] & 1 ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS | MAP_FIXED,
		     -1, 0);
		break;
	case OP_COPY: copy_op(r); break;
	case OP_TOUCH: touch_op(r); break;
	case OP_CLONE: start_thread(r); break;
	case OP_SLEEP:
		if (r[0] & 1)
			sched_yield();
		else
			sleep_ns(MSEC);
		break;
	case OP_TIMER: timer_op(r, tid_of(r[0] >> 32)); break;
	case OP_EXEC: {
		/* The other threads end first; echo's write to the read-only fd 1 fails. */
		static char *const argv[] = { "echo", "exec", NULL }, *const envp[] = { NULL };

		execve("/bin/echo", argv, envp);
		break;
	}
	case OP_EXIT: syscall1(__NR_exit, 0); break;
	case OP_EXIT_GROUP: exit_group(0); break;
	default: break;
	}
}

static void thread_main(long slot)
{
	unsigned long mask = nth_cpu(slot);
	int i;

	sched_setaffinity(0, sizeof(mask), &mask);	/* each slot on its own CPU, if there are */
	for (i = 0; i < OPS; i++)
		run_op(&plan.ops[slot][i], slot);
}

static void count_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	signals_seen++;
}

/* The child runs the plan: its threads share memory, files and signal actions. */
void run_threads(const struct thread_plan *p, unsigned long online)
{
	int i;

	online_cpus = online ? online : 1;
	tgid = getpid();
	tids[0] = tgid;
	sigaction(SIGUSR1, count_signal, 0);
	sigaction(SIGUSR2, count_signal, 0);
	victim = mmap(NULL, VICTIM_PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
		      (p->ops[0][0].r[2] & 1 ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
	if (victim == MAP_FAILED)
		exit_group(1);
	fds_setup();
	for (i = 0; i < p->start; i++)
		start_thread(p->ops[THREADS - 1][i].r);
	thread_main(0);
	fds_drain();
	syscall1(p->ops[0][0].r[3] & 1 ? __NR_exit : __NR_exit_group, 0);
	__builtin_unreachable();
}
