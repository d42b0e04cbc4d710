/* proctest: exec refuses malformed ELF files and runs odd ones, processes leak nothing, limits are errors. */
#include "testutil.h"

/* The files tools/mkbadelf makes, each added as module /bin/bad-NAME: exec refuses them. */
static const char *const bad_files[] = {
	"magic", "class32", "bigendian", "machine", "type-rel", "phoff-past-end",
	"truncated", "kernel-half", "wrapping", "filesz-gt-memsz", "overlap", "wx",
	"huge", "text", "empty", "truncated-header", "phnum0", "phnum-huge", "phentsize",
	"no-load", "interp", "vaddr-zero", "noncanonical", "vsyscall-page",
	"offset-past-end", "offset-unaligned", "overlap-bss",
};

/* And /bin/odd-NAME, legal but unusual: each runs as on Linux, to exit 42 or to a signal. */
static const struct {
	const char *name;
	int exit_code, signal;
} odd_files[] = {
	{ "memsz0-after-text", 42 },
	{ "memsz0-inside-text", 42 },
	{ "memsz0-unaligned", 42 },
	{ "memsz0-alone", 0, SIGSEGV },		/* nothing mapped at the entry */
	{ "bss-alone", 42 },
};

/* execve in a child: its exit code is -errno, or 100 if exec succeeded. */
static int exec_child(void *path)
{
	char *argv[] = { path, NULL };

	return -execve(path, argv, NULL);
}

static char bad_path[64];	/* the file of the case that runs */

static int test_bad_elf(void)
{
	int status = run_in_child(exec_child, bad_path);

	if (status < 0 || !WIFEXITED(status))
		return ktap_fail("wait status %#x", status);
	if (WEXITSTATUS(status) != ENOEXEC)
		return ktap_fail("execve returned %d, expected -ENOEXEC (-8)", -WEXITSTATUS(status));
	return 1;
}

static size_t odd;	/* the odd_files entry of the case that runs */

static int test_odd_elf(void)
{
	int status = run_in_child(exec_child, bad_path);

	return odd_files[odd].signal ? expect_signal(status, odd_files[odd].signal, bad_path) :
				       expect_exit(status, odd_files[odd].exit_code, bad_path);
}


static int fork_exit_wait(int rounds)
{
	int i, status;

	for (i = 0; i < rounds; i++) {
		long pid = fork();

		if (pid == 0)
			exit_group(i & 0x7f);
		if (pid < 0 || wait4(pid, &status, 0, NULL) != pid || WEXITSTATUS(status) != (i & 0x7f))
			return ktap_fail("round %d: fork %ld, status %#x", i, pid, status);
	}
	return 1;
}

/*
 * MemFree counts the kernel heap's free blocks, so it is exact to the kB:
 * 256 rounds show a leak of 4 bytes a round, in a few seconds even on a
 * loaded machine (1000 took more than the case's 30 s beside 4 busy loops).
 */
#define NO_LEAK_FORKS	256

static int test_no_leak(void)
{
	long before, after;
	int ok;

	fork_exit_wait(10);	/* let the kernel heap reach its working size */
	own_memory();
	before = meminfo_kb("MemFree");
	ok = fork_exit_wait(NO_LEAK_FORKS);
	after = meminfo_kb("MemFree");
	ktap_diag("MemFree before %ld kB, after %d fork+exit+wait %ld kB", before, NO_LEAK_FORKS,
		  after);
	if (ok && before != after)
		ktap_fail("MemFree went from %ld kB to %ld kB", before, after);
	return ok && before > 0 && before == after;
}

/*
 * One child of the storm: pinned to CPU cpu, it maps and touches memory,
 * forks a grandchild that does the same, and reports the CPU it ran on.
 */
static void storm_child(unsigned int cpu)
{
	unsigned long mask = 1ul << cpu;
	unsigned int here = ~0u;
	int status, i;
	long gc;

	if (sched_setaffinity(0, sizeof(mask), &mask))
		exit_group(100);
	for (i = 0; i < 2; i++) {
		char *p = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			exit_group(101);
		memset(p, i + 1, 16 * 4096);
		munmap(p, 16 * 4096);
		if (i)
			break;
		gc = fork();
		if (gc == 0)
			continue;	/* the grandchild maps too, then exits */
		if (gc < 0 || wait4(gc, &status, 0, NULL) != gc || !WIFEXITED(status))
			exit_group(102);
		break;
	}
	getcpu(&here, NULL, NULL);
	exit_group(here);
}

/*
 * A fork storm across every CPU: waves of children, two per CPU, each
 * pinned to its CPU, all running at once; every CPU must report in, and
 * MemFree must come back to where it was.
 */
static int test_fork_storm(void)
{
	unsigned long all = 0, used = 0, seen = 0;
	unsigned int cpus[64], ncpu = 0, i;
	long pids[16], before, after;
	int wave, n, status;

	if (sched_getaffinity(0, sizeof(all), &all) != sizeof(all))
		return ktap_fail("sched_getaffinity failed");
	for (i = 0; i < 64 && ncpu < 8; i++)
		if (all & (1ul << i)) {
			cpus[ncpu++] = i;
			used |= 1ul << i;
		}
	fork_exit_wait(10);
	own_memory();
	before = meminfo_kb("MemFree");
	for (wave = 0; wave < 20; wave++) {
		for (n = 0; n < (int)(2 * ncpu); n++) {
			pids[n] = fork();
			if (pids[n] == 0)
				storm_child(cpus[n % ncpu]);
			if (pids[n] < 0)
				return ktap_fail("wave %d: fork %d failed: %ld", wave, n, pids[n]);
		}
		while (n--) {
			if (wait4(pids[n], &status, 0, NULL) != pids[n] || !WIFEXITED(status) ||
			    WEXITSTATUS(status) != cpus[n % ncpu])
				return ktap_fail("wave %d: child %d (CPU %u) ended with status %#x", wave,
						 n, cpus[n % ncpu], status);
			seen |= 1ul << WEXITSTATUS(status);
		}
	}
	after = meminfo_kb("MemFree");
	ktap_diag("fork storm: %u CPUs, 20 waves of %u children; MemFree %ld kB before, %ld kB after",
		  ncpu, 2 * ncpu, before, after);
	if (seen != used)
		return ktap_fail("CPUs that ran a child: %#lx, expected %#lx", seen, used);
	if (before != after)
		return ktap_fail("MemFree went from %ld kB to %ld kB", before, after);
	return before > 0;
}

/* Fill the process table: fork fails with -EAGAIN, and everything recovers. */
static int test_fork_limit(void)
{
	long pids[128], r = 0;
	int n, i, status;

	for (n = 0; n < 128; n++) {
		r = fork();
		if (r == 0) {
			for (;;)
				sched_yield();
		}
		if (r < 0)
			break;
		pids[n] = r;
	}
	for (i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		wait4(pids[i], &status, 0, NULL);
	}
	ktap_diag("%d children before fork failed with %ld", n, r);
	return r == -EAGAIN && fork_exit_wait(5);
}

static int test_mmap_too_big(void)
{
	long r = (long)mmap(NULL, 1UL << 40, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (r != -ENOMEM)
		ktap_fail("mmap of 1 TiB returned %ld", r);
	return r == -ENOMEM && fork_exit_wait(1);
}

static const struct test tests[] = {
	{ "fork+exit+wait 256 times leaks no byte", test_no_leak },
	{ "a full process table gives -EAGAIN, then recovers", test_fork_limit },
	{ "a fork storm on every CPU leaks nothing", test_fork_storm },
	{ "mmap of more memory than exists gives -ENOMEM", test_mmap_too_big },
};

int main(int argc, char **argv, char **envp)
{
	char name[96];
	size_t i;

	(void)argc, (void)argv, (void)envp;
	ktap_plan(ARRAY_SIZE(bad_files) + ARRAY_SIZE(odd_files) + ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(bad_files); i++) {
		snprintf(bad_path, sizeof(bad_path), "/bin/bad-%s", bad_files[i]);
		snprintf(name, sizeof(name), "execve %s refused with ENOEXEC", bad_path);
		run_case(name, test_bad_elf, 0);
	}
	for (odd = 0; odd < ARRAY_SIZE(odd_files); odd++) {
		snprintf(bad_path, sizeof(bad_path), "/bin/odd-%s", odd_files[odd].name);
		snprintf(name, sizeof(name), "execve %s runs", bad_path);
		run_case(name, test_odd_elf, 0);
	}
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		run_case(tests[i].name, tests[i].run, 0);
	return ktap_done();
}
