/* muslseg: FS and GS belong to a thread: arch_prctl reads the base in use, and a switch keeps each thread's selector and base. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <cpuid.h>
#include <sys/auxv.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <ucontext.h>
#include "ktap.h"
#include "threadutil.h"

#define ARCH_SET_GS	0x1001
#define ARCH_SET_FS	0x1002
#define ARCH_GET_FS	0x1003
#define ARCH_GET_GS	0x1004
#define FUTEX_WAIT	0
#define FUTEX_WAKE	1

/*
 * Built with musl-gcc -static, it runs as it is on ccos and on Linux. A
 * program changes its GS two ways: arch_prctl(ARCH_SET_GS), which the
 * kernel sees, and a segment load (mov %ss, %gs), which it does not: in
 * 64-bit mode the load sets the base too (the descriptor's, 0 here; a
 * null selector gives 0 on Intel CPUs, and may keep the old base on AMD
 * ones). What a thread sees must be what it last put there, whoever ran
 * on its CPU in between, and arch_prctl(ARCH_GET_GS) must say the base
 * in use. musl keeps its thread pointer in FS, so the FS case changes it
 * only between raw system calls, and puts it back before any libc call.
 */

/*
 * The base in use, read from the fault it gives: a load at %gs:0 from a
 * base where nothing is mapped faults at the base. probe_gs returns the
 * address in rax and 1 in rdx when it faulted (the handler sets both and
 * resumes after the load), what it read and 0 when it did not.
 */
struct probe {
	unsigned long addr, faulted;
};
struct probe probe_gs(void);
struct probe probe_fs(void);
extern char probe_gs_load[], probe_fs_load[], probe_done[];
__asm__(".text\n"
	"probe_gs:\n"
	"	xorl %edx, %edx\n"
	"probe_gs_load:\n"
	"	movq %gs:0, %rax\n"
	"	ret\n"
	"probe_fs:\n"
	"	xorl %edx, %edx\n"
	"probe_fs_load:\n"
	"	movq %fs:0, %rax\n"
	"probe_done:\n"
	"	ret\n");

static void on_probe_fault(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	greg_t *r = uc->uc_mcontext.gregs;

	if (r[REG_RIP] != (greg_t)probe_gs_load && r[REG_RIP] != (greg_t)probe_fs_load) {
		signal(sig, SIG_DFL);	/* not ours: die of it */
		return;
	}
	r[REG_RAX] = (greg_t)si->si_addr;
	r[REG_RDX] = 1;
	r[REG_RIP] = (greg_t)probe_done;
}

static void catch_probes(void)
{
	struct sigaction sa = { .sa_sigaction = on_probe_fault, .sa_flags = SA_SIGINFO | SA_NODEFER };

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

/* Raw calls: no errno, so nothing of musl's reads FS while it is not musl's. */
static long arch_prctl_raw(long code, unsigned long addr)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(SYS_arch_prctl), "D"(code), "S"(addr)
			 : "rcx", "r11", "memory");
	return r;
}

static unsigned short gs_selector(void)
{
	unsigned short sel;

	__asm__ volatile("mov %%gs, %0" : "=r"(sel));
	return sel;
}

/* Bases where nothing is mapped, so that the probe faults at them. */
#define BASE_A	0x200000000ul
#define BASE_B	0x300000000ul
#define BASE_C	1ul

/* What a thread does to its GS: arch_prctl, a segment load after it, or both. */
enum gs_state { SET_A, SET_C_LOAD_SS, SET_B_LOAD_NULL, SET_C, NR_STATES };

static const char *const state_names[] = {
	"ARCH_SET_GS(0x200000000)", "ARCH_SET_GS(1); mov %ss, %gs",
	"ARCH_SET_GS(0x300000000); mov $0, %gs", "ARCH_SET_GS(1)",
};

static void apply(enum gs_state s)
{
	static const unsigned long base[] = { BASE_A, BASE_C, BASE_B, BASE_C };

	arch_prctl_raw(ARCH_SET_GS, base[s]);
	if (s == SET_C_LOAD_SS)
		__asm__ volatile("mov %%ss, %%ax; mov %%ax, %%gs" : : : "rax");
	else if (s == SET_B_LOAD_NULL)
		__asm__ volatile("mov %0, %%gs" : : "r"(0));
}

/* GS as this thread sees it: selector, the base in use, and the kernel's word for it. */
struct gs_view {
	unsigned short sel;
	unsigned long base, reported;
	int faulted;
};

static struct gs_view look(void)
{
	struct gs_view v = { .sel = gs_selector() };
	struct probe p = probe_gs();

	v.base = p.addr;
	v.faulted = p.faulted;
	arch_prctl_raw(ARCH_GET_GS, (unsigned long)&v.reported);
	return v;
}

static int same(const struct gs_view *a, const struct gs_view *b)
{
	return a->sel == b->sel && a->base == b->base && a->faulted == b->faulted;
}

/* ---- one thread: ARCH_GET_GS and ARCH_GET_FS say the base in use ---- */

static int test_get_gs_after_load(void)
{
	enum gs_state s;

	catch_probes();
	for (s = 0; s < NR_STATES; s++) {
		struct gs_view v;

		apply(s);
		v = look();
		if (!v.faulted)
			return ktap_fail("after %s: a load at %%gs:0 did not fault (base %#lx?)",
					 state_names[s], v.base);
		if (v.reported != v.base)
			return ktap_fail("after %s: GS base in use %#lx (selector %#x), ARCH_GET_GS says %#lx",
					 state_names[s], v.base, v.sel, v.reported);
	}
	return 1;
}

static int test_get_fs_after_load(void)
{
	unsigned long old = 0, reported = 1;
	struct probe p;

	catch_probes();
	if (arch_prctl_raw(ARCH_GET_FS, (unsigned long)&old))
		return ktap_fail("ARCH_GET_FS failed");
	/* From here to ARCH_SET_FS(old), FS is not musl's. */
	arch_prctl_raw(ARCH_SET_FS, BASE_A);
	__asm__ volatile("mov %%ss, %%ax; mov %%ax, %%fs" : : : "rax");
	p = probe_fs();
	arch_prctl_raw(ARCH_GET_FS, (unsigned long)&reported);
	arch_prctl_raw(ARCH_SET_FS, old);
	if (!p.faulted)
		return ktap_fail("after mov %%ss, %%fs: a load at %%fs:0 did not fault");
	if (p.addr != 0 || reported != 0)
		return ktap_fail("after ARCH_SET_FS(%#lx) and mov %%ss, %%fs: FS base in use %#lx, "
				 "ARCH_GET_FS says %#lx (both should be 0)", BASE_A, p.addr, reported);
	return 1;
}

/* ---- two threads or two processes take turns on their CPUs ---- */

/*
 * Rounds of turns: in round r the first side puts state r / 4 in its GS
 * and passes the turn; the second looks at what it left in its GS the
 * round before, puts state r % 4 there and passes the turn back; the
 * first looks at its own. So every pair of states meets, each side after
 * the other ran. pass() gives the turn away and waits for it back.
 */
struct turns {
	void (*pass)(struct turns *t, int me);
	volatile int *turn;	/* threads: whose turn, a futex word */
	int fd[2][2];		/* processes: a pipe to each side */
	int bad;
	char why[160];
};

static void side(struct turns *t, int me)
{
	struct gs_view before, after;
	int r;

	for (r = 0; r < NR_STATES * NR_STATES; r++) {
		apply(me == 0 ? r / NR_STATES : r % NR_STATES);
		before = look();
		t->pass(t, me);
		after = look();
		if (!t->bad && !same(&before, &after)) {
			t->bad = 1;
			snprintf(t->why, sizeof(t->why),
				 "%s thread: after \"%s\", GS was %#x/%#lx and became %#x/%#lx",
				 me ? "second" : "first", state_names[me ? r % NR_STATES : r / NR_STATES],
				 before.sel, before.base, after.sel, after.base);
		}
	}
	if (me == 0)
		t->pass(t, me);		/* the second side's last look */
}

static void pass_futex(struct turns *t, int me)
{
	*t->turn = !me;
	syscall(SYS_futex, t->turn, FUTEX_WAKE, 1, NULL, NULL, 0);
	while (*t->turn != me)
		syscall(SYS_futex, t->turn, FUTEX_WAIT, !me, NULL, NULL, 0);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !sched_setaffinity(0, sizeof(set), &set);
}

static int ncpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
}

struct second {
	struct turns *t;
	int cpu;
};

static void *second_thread(void *arg)
{
	struct second *s = arg;

	if (!pin(s->cpu)) {
		s->t->bad = 1;
		snprintf(s->t->why, sizeof(s->t->why), "cannot pin the second thread");
	}
	while (*s->t->turn != 1)
		syscall(SYS_futex, s->t->turn, FUTEX_WAIT, 0, NULL, NULL, 0);
	side(s->t, 1);
	*s->t->turn = 0;
	syscall(SYS_futex, s->t->turn, FUTEX_WAKE, 1, NULL, NULL, 0);
	return NULL;
}

static int threads_on(int cpu0, int cpu1)
{
	static volatile int turn;
	struct turns t = { .pass = pass_futex, .turn = &turn };
	struct second s = { &t, cpu1 };
	pthread_t th;

	if (ncpus() <= (cpu0 > cpu1 ? cpu0 : cpu1))
		return skip("one CPU: no second one to run the other thread");
	catch_probes();
	if (!pin(cpu0))
		return ktap_fail("cannot pin the first thread to CPU %d", cpu0);
	pthread_create(&th, NULL, second_thread, &s);
	side(&t, 0);
	pthread_join(th, NULL);
	return t.bad ? ktap_fail("%s", t.why) : 1;
}

static int test_threads_one_cpu(void)
{
	return threads_on(0, 0);
}

static int test_threads_two_cpus(void)
{
	return threads_on(0, 1);
}

static void pass_pipe(struct turns *t, int me)
{
	char c = 0;

	if (write(t->fd[!me][1], &c, 1) != 1 || read(t->fd[me][0], &c, 1) != 1)
		t->bad = 1;
}

static int processes_on(int cpu0, int cpu1)
{
	struct turns t = { .pass = pass_pipe };
	int status;
	char c;
	pid_t pid;

	if (ncpus() <= (cpu0 > cpu1 ? cpu0 : cpu1))
		return skip("one CPU: no second one to run the other process");
	catch_probes();
	if (pipe(t.fd[0]) || pipe(t.fd[1]))
		return ktap_fail("pipe failed");
	pid = fork();
	if (pid == 0) {
		if (!pin(cpu1) || read(t.fd[1][0], &c, 1) != 1)
			_exit(2);
		side(&t, 1);
		if (write(t.fd[0][1], &c, 1) != 1)	/* the first side's last turn back */
			t.bad = 1;
		if (t.bad)
			printf("# %s\n", t.why);
		_exit(t.bad);
	}
	if (!pin(cpu0))
		return ktap_fail("cannot pin the first process to CPU %d", cpu0);
	side(&t, 0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return ktap_fail("the second process did not exit");
	if (t.bad)
		return ktap_fail("%s", t.why);
	return WEXITSTATUS(status) ? ktap_fail("the second process saw its GS change (above)") : 1;
}

static int test_processes_one_cpu(void)
{
	return processes_on(0, 0);
}

static int test_processes_two_cpus(void)
{
	return processes_on(0, 1);
}

/* fork gives the child the GS in use, not the last one arch_prctl set. */
static int test_fork_copies_gs_in_use(void)
{
	struct gs_view parent, child;
	int fd[2], status;
	pid_t pid;

	catch_probes();
	if (pipe(fd))
		return ktap_fail("pipe failed");
	apply(SET_C_LOAD_SS);
	parent = look();
	pid = fork();
	if (pid == 0) {
		child = look();
		_exit(write(fd[1], &child, sizeof(child)) != sizeof(child));
	}
	if (read(fd[0], &child, sizeof(child)) != sizeof(child) || waitpid(pid, &status, 0) != pid)
		return ktap_fail("no word from the child");
	if (!same(&parent, &child) || child.reported != parent.base)
		return ktap_fail("parent's GS %#x/%#lx, child's %#x/%#lx (ARCH_GET_GS %#lx)",
				 parent.sel, parent.base, child.sel, child.base, child.reported);
	return 1;
}

/* ---- FSGSBASE: the program writes its bases itself ---- */

#define HWCAP2_FSGSBASE	(1 << 1)

static int cpu_has_fsgsbase(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & 1);
}

/* Where the CPU has the instructions, the kernel lets ring 3 use them and says so (AT_HWCAP2). */
static int test_fsgsbase_offered(void)
{
	unsigned long base;

	if (!cpu_has_fsgsbase())
		return skip("the CPU has no FSGSBASE (CPUID.7.0:EBX bit 0)");
	if (!(getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE))
		return ktap_fail("the CPU has FSGSBASE, but AT_HWCAP2 %#lx says it may not be used",
				 getauxval(AT_HWCAP2));
	__asm__ volatile("rdfsbase %0" : "=r"(base));	/* #UD, SIGILL, if CR4.FSGSBASE is off */
	return base == (unsigned long)pthread_self() ? 1 :
	       ktap_fail("rdfsbase %#lx, musl's thread pointer %p", base, (void *)pthread_self());
}

static volatile int spin_stop;

static void *spin_wrgsbase(void *arg)
{
	(void)arg;
	while (!spin_stop) {
		__asm__ volatile("wrgsbase %0" : : "r"(0x123456789000ul));
		sched_yield();
	}
	return NULL;
}

static void on_usr1_nothing(int sig)
{
	(void)sig;
}

/*
 * A base written with wrgsbase, a kernel address even (a program may
 * write any canonical one), stays the thread's across system calls,
 * signals and switches to another thread that writes its own on the
 * same CPU; the kernel's GS never sees it.
 */
static int test_wrgsbase_kept(void)
{
	const unsigned long mine = 0xffffffff80001000ul;
	unsigned long base, reported;
	pthread_t th;
	int i;

	if (!(getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE))
		return skip("FSGSBASE is not offered here (AT_HWCAP2)");
	if (!pin(0))
		return ktap_fail("cannot pin to CPU 0");
	signal(SIGUSR1, on_usr1_nothing);
	pthread_create(&th, NULL, spin_wrgsbase, NULL);
	__asm__ volatile("wrgsbase %0" : : "r"(mine));
	for (i = 0; i < 200; i++) {
		sched_yield();
		if (i % 50 == 0)
			raise(SIGUSR1);
		__asm__ volatile("rdgsbase %0" : "=r"(base));
		if (base != mine)
			break;
	}
	arch_prctl_raw(ARCH_GET_GS, (unsigned long)&reported);
	__asm__ volatile("wrgsbase %0" : : "r"(0ul));
	spin_stop = 1;
	pthread_join(th, NULL);
	if (base != mine || reported != mine)
		return ktap_fail("wrgsbase(%#lx): after %d switches rdgsbase %#lx, ARCH_GET_GS %#lx", mine,
				 i, base, reported);
	return 1;
}

static const struct test tests[] = {
	{ "arch_get_gs_reads_the_base_in_use", test_get_gs_after_load },
	{ "arch_get_fs_reads_the_base_in_use", test_get_fs_after_load },
	{ "gs_kept_across_switch_two_threads_one_cpu", test_threads_one_cpu },
	{ "gs_kept_across_switch_two_threads_two_cpus", test_threads_two_cpus },
	{ "gs_kept_across_switch_two_processes_one_cpu", test_processes_one_cpu },
	{ "gs_kept_across_switch_two_processes_two_cpus", test_processes_two_cpus },
	{ "fork_copies_the_gs_in_use", test_fork_copies_gs_in_use },
	{ "fsgsbase_offered_where_the_cpu_has_it", test_fsgsbase_offered },
	{ "wrgsbase_kernel_address_kept_across_switches", test_wrgsbase_kept },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
