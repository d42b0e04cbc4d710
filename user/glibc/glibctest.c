/* glibctest: a static glibc program that isattys, forks, waits and spawns, through the KTAP runner. */
#include <errno.h>
#include <spawn.h>
#include <sys/sysinfo.h>
#include <termios.h>
#include "ktap.h"

extern char **environ;

/* 1 if cond; else 0, with errno as the reason. */
static int check(int cond, const char *what)
{
	return cond ? 1 : ktap_fail("%s: errno %d (%s)", what, errno, strerror(errno));
}

/* isatty is ioctl(TCGETS) into a 36-byte kernel termios: it must not smash the stack */
static int test_isatty_stdout(void)
{
	int r = isatty(1);

	ktap_diag("isatty(1) = %d", r);
	return check(r == 1 || (r == 0 && errno == ENOTTY), "isatty(1)");
}

static int test_tcgetattr_tcsetattr(void)
{
	struct termios t;

	return check(tcgetattr(1, &t) == 0 ? tcsetattr(1, TCSANOW, &t) == 0 : errno == ENOTTY,
		     "tcgetattr then tcsetattr");
}

/* fork is clone(CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD) */
static int test_fork_waitpid_minus_1(void)
{
	int status = -1;
	pid_t pid = fork(), w;

	if (pid == 0)
		_exit(7);
	w = waitpid(-1, &status, 0);	/* wait4(0xffffffff, ...) */
	return check(pid > 0 && w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 7,
		     "fork, then waitpid(-1) for its exit 7");
}

static int test_getpid_after_fork(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, &status, 0);
	return check(getpid() != pid && getppid() > 0, "getpid and getppid after fork");
}

/* posix_spawn: clone3 (ENOSYS here), then clone(CLONE_VM | CLONE_VFORK) on a new stack */
static int test_posix_spawn_self(void)
{
	char *argv[] = { (char *)self, "child", NULL };
	int status = -1, r;
	pid_t pid, w;

	r = posix_spawn(&pid, self, NULL, NULL, argv, environ);
	w = r ? -1 : waitpid(pid, &status, 0);
	if (r)
		return ktap_fail("posix_spawn: %s", strerror(r));
	return check(w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 42,
		     "waitpid for the spawned copy's exit 42");
}

static int test_posix_spawn_enoent(void)
{
	char *argv[] = { "/no/such/program", NULL };
	pid_t pid;
	int r = posix_spawn(&pid, "/no/such/program", NULL, NULL, argv, environ);

	return r == ENOENT ? 1 : ktap_fail("posix_spawn returned %d, expected ENOENT", r);
}

static int test_sysinfo(void)
{
	struct sysinfo si;

	return check(sysinfo(&si) == 0 && si.totalram >= si.freeram && si.freeram > 0 &&
		     si.procs > 0, "sysinfo");
}

static const struct test tests[] = {
	{ "isatty_stdout", test_isatty_stdout },
	{ "tcgetattr_tcsetattr", test_tcgetattr_tcsetattr },
	{ "fork_waitpid_minus_1", test_fork_waitpid_minus_1 },
	{ "getpid_after_fork", test_getpid_after_fork },
	{ "posix_spawn_self", test_posix_spawn_self, 1 },
	{ "posix_spawn_enoent", test_posix_spawn_enoent },
	{ "sysinfo", test_sysinfo },
};

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "child"))
		return 42;		/* what the spawned copy does */
	find_self(argv[0]);
	return run_tests(tests, ARRAY_SIZE(tests));
}
