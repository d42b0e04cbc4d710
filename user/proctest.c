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

static int test_no_leak(void)
{
	long before, after;
	int ok;

	fork_exit_wait(10);	/* let the kernel heap reach its working size */
	before = meminfo_kb("MemFree");
	ok = fork_exit_wait(1000);
	after = meminfo_kb("MemFree");
	ktap_diag("MemFree before %ld kB, after 1000 fork+exit+wait %ld kB", before, after);
	if (ok && before != after)
		ktap_fail("MemFree went from %ld kB to %ld kB", before, after);
	return ok && before > 0 && before == after;
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
	{ "fork+exit+wait 1000 times leaks no frame", test_no_leak },
	{ "a full process table gives -EAGAIN, then recovers", test_fork_limit },
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
