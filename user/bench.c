/* bench: TSC cycles of each way to ask the time, of lmbench's paths and of mmap and mprotect among many areas, in batches that no tick fell into (for `make bench`, not a test). */
#include "ulib.h"
#include "gate.h"
#include "vdso.h"

/* Whether this boot's vsyscall page can be called: [vsyscall] is executable. */
static int vsyscall_callable(void)
{
	static char buf[4096];
	long fd = open("/proc/self/maps", O_RDONLY, 0), n;
	char *line;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (line = buf; *line; line++)
		if (!strncmp(line, "ffffffffff600000-ffffffffff601000 ", 34))
			return line[36] == 'x';
	return 0;
}

/*
 * A figure is the best of 5 batches that no timer tick fell into. A tick
 * costs thousands of instructions; a batch that pays for one and a batch
 * that does not differ by that, so a figure with ticks in it moves with
 * the ticks' phase, from run to run and from one compiler to another.
 * times() returns the tick count: a batch is clean when it did not move
 * across it (the two calls lie outside the timed part). A batch of BATCH
 * slow calls never fits between two ticks (one every 10 ms: 78,125
 * instructions under make bench's -icount shift=7), so it shrinks to 10
 * calls, then 2, then 1; a call longer than a tick keeps its ticks, the
 * best of the single calls tried.
 */
static const long batch_sizes[] = { BATCH, 10, 2, 1 };
#define NSIZES	4
#define CLEAN	5	/* clean batches a figure needs */
#define TRIES	20	/* batches tried at each size */

struct batches {
	int size;		/* index into batch_sizes */
	int tries, clean;
	unsigned long best, best_ticked;
};

/* The empty loop's cycles, at each size: subtracted from every figure. */
static unsigned long loop_cycles[NSIZES];

static long ticks(void)
{
	return syscall1(__NR_times, 0);
}

static long batch_calls(const struct batches *b)
{
	return batch_sizes[b->size];
}

static int batches_done(const struct batches *b)
{
	return b->clean == CLEAN || (b->size == NSIZES - 1 && b->tries == TRIES);
}

/* One batch measured: keep the best, and shrink the batch when TRIES found too few clean. */
static void batch_measured(struct batches *b, unsigned long cycles, int ticked)
{
	b->tries++;
	if (!ticked) {
		b->clean++;
		if (cycles < b->best)
			b->best = cycles;
	} else if (cycles < b->best_ticked) {
		b->best_ticked = cycles;
	}
	if (b->clean < CLEAN && b->tries == TRIES && b->size < NSIZES - 1)
		*b = (struct batches){ b->size + 1, 0, 0, ~0UL, ~0UL };
}

/* The net cycles of a figure: its best batch (a clean one if any) less the empty loop's. */
static unsigned long batch_net(const struct batches *b)
{
	unsigned long best = b->clean ? b->best : b->best_ticked;

	return best > loop_cycles[b->size] ? best - loop_cycles[b->size] : 0;
}

/* Batches of `call` from size `first` on, until batches_done; the loop is never unrolled (gate.h). */
#define MEASURE(b, first, call) do {					\
	*(b) = (struct batches){ first, 0, 0, ~0UL, ~0UL };		\
	while (!batches_done(b)) {					\
		long n_ = batch_calls(b), i_, tick_ = ticks();		\
		unsigned long t_ = rdtsc();				\
		_Pragma("GCC unroll 1")					\
		for (i_ = 0; i_ < n_; i_++)				\
			call;						\
		t_ = rdtsc() - t_;					\
		batch_measured(b, t_, ticks() != tick_);		\
	}								\
} while (0)

/*
 * One line per figure: `bench: NAME PATH CYCLES CALLS`, the net CYCLES of a
 * batch of CALLS calls; tools/bench turns them into guest instructions.
 */
#define REPORT(name, path, call) do {					\
	struct batches b_;						\
	MEASURE(&b_, 0, call);						\
	printf("bench: %-13s %-8s %8lu %ld\n", name, path,		\
	       batch_net(&b_), batch_calls(&b_));			\
} while (0)

/* The empty loop at each size; `bench: loop - CYCLES BATCH` gives tools/bench its own cost. */
static void measure_loop(void)
{
	struct batches b;
	int size;

	for (size = 0; size < NSIZES; size++) {
		MEASURE(&b, size, __asm__ volatile(""));
		loop_cycles[size] = b.best;
		if (size == 0)
			printf("bench: %-13s %-8s %8lu %ld\n", "loop", "-", b.best, (long)BATCH);
	}
}

#define NAREAS	16384

static void *map_page(void)
{
	return mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/*
 * A search for a hole and a lookup with a split, first in an address space
 * of a few areas, then with 16,384 more (alternately writable and
 * read-only, so that none could merge): their cost should grow with the
 * logarithm of the count, not with the count.
 */
static void bench_areas(void)
{
	char *one = map_page(), *many;
	long i;

	REPORT("mmap+munmap", "few", munmap(map_page(), PAGE_SIZE));
	REPORT("mprotect", "few", mprotect(one, PAGE_SIZE, PROT_READ));
	many = mmap(NULL, NAREAS * PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (IS_ERR_VALUE(many))
		return;
	for (i = 1; i < NAREAS; i += 2)
		mprotect(many + i * PAGE_SIZE, PAGE_SIZE, PROT_READ);
	REPORT("mmap+munmap", "16k-areas", munmap(map_page(), PAGE_SIZE));
	REPORT("mprotect", "16k-areas", mprotect(many + NAREAS / 2 * PAGE_SIZE, PAGE_SIZE, PROT_READ));
}

/* lmbench's paths (lat_proc, lat_pipe, lat_syscall, lat_sig, lat_pagefault's mmap). */
#define BIN_FILE	"/bin/sh"
#define NR_UNKNOWN	511	/* no system call, on ccos and on Linux */

static char *self_path;

static void fork_exit_wait(void)
{
	long pid = fork();

	if (!pid)
		exit(0);
	wait4(pid, NULL, 0, NULL);
}

/* The child runs this program again, which exits at once (main's first test). */
static void fork_exec_wait(void)
{
	char *argv[] = { self_path, "exit", NULL };
	long pid = fork();

	if (!pid) {
		execve(self_path, argv, NULL);
		exit(127);
	}
	wait4(pid, NULL, 0, NULL);
}

/* A byte to a child and back: two pipes, two switches. */
static void bench_pipe(void)
{
	int to[2], from[2];
	char c = 0;
	long pid;

	if (pipe(to) || pipe(from))
		return;
	pid = fork();
	if (!pid) {
		close(to[1]);
		close(from[0]);
		while (read(to[0], &c, 1) == 1)
			write(from[1], &c, 1);
		exit(0);
	}
	close(to[0]);
	close(from[1]);
	REPORT("pipe", "roundtrip", (write(to[1], &c, 1), read(from[0], &c, 1)));
	close(to[1]);
	close(from[0]);
	wait4(pid, NULL, 0, NULL);
}

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
}

/* mmap, a write to every page, munmap: the pages' first touch included. */
static void map_touch_unmap(long npages)
{
	char *p = mmap(NULL, npages * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	for (i = 0; i < npages; i++)
		p[i * PAGE_SIZE] = 1;
	munmap(p, npages * PAGE_SIZE);
}

static void bench_lmbench(void)
{
	struct stat st;
	long pid = getpid();

	REPORT("enosys", "syscall", syscall0(NR_UNKNOWN));
	REPORT("fork", "exit+wait", fork_exit_wait());
	REPORT("fork", "exec+wait", fork_exec_wait());
	bench_pipe();
	REPORT("yield", "syscall", sched_yield());
	sigaction(SIGUSR1, on_usr1, 0);
	REPORT("signal", "handler", kill(pid, SIGUSR1));
	REPORT("open+close", "bin", close(open(BIN_FILE, O_RDONLY, 0)));
	REPORT("stat", "bin", syscall2(__NR_stat, (long)BIN_FILE, (long)&st));
	REPORT("mmap+touch", "1-page", map_touch_unmap(1));
	REPORT("mmap+touch", "64-pages", map_touch_unmap(64));
}

/* The time calls through each gate, then lmbench's paths and the areas. */
static void bench_all(unsigned long started)
{
	clock_gettime_fn d_clock_gettime = vdso_sym("LINUX_2.6", "__vdso_clock_gettime");
	gettimeofday_fn d_gettimeofday = vdso_sym("LINUX_2.6", "__vdso_gettimeofday");
	time_fn d_time = vdso_sym("LINUX_2.6", "__vdso_time");
	getcpu_fn d_getcpu = vdso_sym("LINUX_2.6", "__vdso_getcpu");
	int vs = vsyscall_callable();
	struct timespec ts;
	struct timeval tv;
	unsigned int cpu, node;

	printf("bench: batch %d calls; init started at TSC %lu\n", BATCH, started);
	measure_loop();
	REPORT("null", "syscall", getppid());
	REPORT("gettimeofday", "syscall", gettimeofday(&tv, NULL));
	REPORT("time", "syscall", time(NULL));
	REPORT("getcpu", "syscall", getcpu(&cpu, &node, NULL));
	REPORT("clock_gettime", "syscall", clock_gettime(CLOCK_MONOTONIC, &ts));
	if (vs) {
		REPORT("gettimeofday", "vsyscall", vgettimeofday(&tv, NULL));
		REPORT("time", "vsyscall", vtime(NULL));
		REPORT("getcpu", "vsyscall", vgetcpu(&cpu, &node, NULL));
	}
	if (d_clock_gettime && d_gettimeofday && d_time && d_getcpu) {
		REPORT("gettimeofday", "vdso", d_gettimeofday(&tv, NULL));
		REPORT("time", "vdso", d_time(NULL));
		REPORT("getcpu", "vdso", d_getcpu(&cpu, &node, NULL));
		REPORT("clock_gettime", "vdso", d_clock_gettime(CLOCK_MONOTONIC, &ts));
	}
	bench_lmbench();
	bench_areas();
}

int main(int argc, char **argv, char **envp)
{
	unsigned long started = rdtsc();	/* first: the boot's end, as init */

	(void)envp;
	if (argc > 1 && !strcmp(argv[1], "exit"))
		return 0;		/* fork+exec's child */
	self_path = argv[0];
	bench_all(started);
	return 0;
}
