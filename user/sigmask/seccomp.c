/* sigmask: seccomp strict mode: the four calls it lets through, every other one SIGKILL, a bad mode EINVAL. */
#include "sigmask.h"

static long strict(void)
{
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
}

static void raw_exit(int code) __attribute__((noreturn));
static void raw_exit(int code)
{
	syscall1(__NR_exit, code);
	__builtin_unreachable();
}

/* A handler that makes no system call (record asks for the mask). */
static volatile int segv_count;

static void on_segv_skip(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si;
	segv_count++;
	((ucontext_t *)ctx)->uc_mcontext.rip = (unsigned long)load_byte_resume;
}

/* read, write, exit and rt_sigreturn (after a handler) are allowed. */
static int seccomp_allowed_child(void *unused)
{
	static const char msg[] = "# seccomp strict: write allowed\n";
	unsigned long page = unmapped_page();
	char buf[16];
	long fd = open("/proc/self/maps", O_RDONLY, 0);

	(void)unused;
	if (fd < 0)
		return FAIL("open /proc/self/maps: error %ld", -fd);
	set_handler(SIGSEGV, on_segv_skip, 0, 0);
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0)
		return FAIL("PR_GET_SECCOMP before: not 0");
	if (strict())
		return FAIL("PR_SET_SECCOMP(SECCOMP_MODE_STRICT) failed");
	if (read(fd, buf, sizeof(buf)) != sizeof(buf))
		raw_exit(2);
	if (write(1, msg, sizeof(msg) - 1) != sizeof(msg) - 1)
		raw_exit(3);
	load_byte(page);	/* the handler returns through rt_sigreturn */
	raw_exit(segv_count == 1 ? 42 : 4);
}

int test_seccomp_allows(void)
{
	int status = run_in_child(seccomp_allowed_child, NULL);

	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 42)
		return 1;
	if (status >= 0 && WIFSIGNALED(status))
		return ktap_fail("killed by %s (%d)", sig_name(WTERMSIG(status)),
				 WTERMSIG(status));
	return ktap_fail("exit status %d: 2 read, 3 write, 4 the handler failed",
			 WEXITSTATUS(status));
}

enum forbidden { CALL_GETPID, CALL_EXIT_GROUP, CALL_GET_SECCOMP, CALL_MMAP };

static int seccomp_forbidden_child(void *arg)
{
	if (strict())
		return FAIL("PR_SET_SECCOMP(SECCOMP_MODE_STRICT) failed");
	switch ((enum forbidden)(long)arg) {
	case CALL_GETPID:
		getpid();
		break;
	case CALL_EXIT_GROUP:
		exit_group(0);
	case CALL_GET_SECCOMP:
		prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
		break;
	case CALL_MMAP:
		map(PROT_READ);
		break;
	}
	raw_exit(3);
}

int test_seccomp_kills(void)
{
	static const char *const what[] = { "getpid", "exit_group", "prctl(PR_GET_SECCOMP)",
					     "mmap" };
	long i;

	for (i = 0; i < (long)ARRAY_SIZE(what); i++)
		if (!child_killed_by(seccomp_forbidden_child, (void *)i, SIGKILL))
			return ktap_fail("%s in strict mode: not killed by SIGKILL", what[i]);
	return 1;
}

static int seccomp_bad_mode_child(void *unused)
{
	long r;

	(void)unused;
	r = prctl(PR_SET_SECCOMP, 3, 0, 0, 0);
	if (r != -EINVAL)
		return FAIL("PR_SET_SECCOMP(3) returned %ld, expected -EINVAL", r);
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0 || getpid() <= 0)
		return FAIL("not in mode 0 after a refused PR_SET_SECCOMP");
	return 0;
}

int test_seccomp_bad_mode(void)
{
	return child_passes(seccomp_bad_mode_child, NULL);
}

