/* glibctest: a static glibc program that isattys, forks, waits and spawns, printing KTAP. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

extern char **environ;

static int n;

static void ok(int cond, const char *name)
{
	printf("%s %d %s\n", cond ? "ok" : "not ok", ++n, name);
	if (!cond)
		printf("# errno %d (%s)\n", errno, strerror(errno));
}

int main(int argc, char **argv)
{
	struct termios t;
	struct sysinfo si;
	char *spawn_argv[] = { argv[0], "child", NULL };
	int status = -1, r;
	pid_t pid, w;

	if (argc == 2 && !strcmp(argv[1], "child"))
		return 42;		/* what the spawned copy does */
	setvbuf(stdout, NULL, _IONBF, 0);	/* nothing printed twice after fork */
	printf("KTAP version 1\n1..7\n");

	/* isatty is ioctl(TCGETS) into a 36-byte kernel termios: it must not smash the stack */
	r = isatty(1);
	printf("# isatty(1) = %d\n", r);
	ok(r == 1 || (r == 0 && errno == ENOTTY), "isatty_stdout");
	ok(tcgetattr(1, &t) == 0 ? tcsetattr(1, TCSANOW, &t) == 0 : errno == ENOTTY,
	   "tcgetattr_tcsetattr");

	/* fork is clone(CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD) */
	pid = fork();
	if (pid == 0)
		_exit(7);
	w = waitpid(-1, &status, 0);	/* wait4(0xffffffff, ...) */
	ok(pid > 0 && w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 7,
	   "fork_waitpid_minus_1");
	ok(getpid() != pid && getppid() > 0, "getpid_after_fork");

	/* posix_spawn: clone3 (ENOSYS here), then clone(CLONE_VM | CLONE_VFORK) on a new stack */
	r = posix_spawn(&pid, argv[0], NULL, NULL, spawn_argv, environ);
	w = r ? -1 : waitpid(pid, &status, 0);
	ok(r == 0 && w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 42,
	   "posix_spawn_self");
	r = posix_spawn(&pid, "/no/such/program", NULL, NULL, spawn_argv, environ);
	ok(r == ENOENT, "posix_spawn_enoent");

	ok(sysinfo(&si) == 0 && si.totalram >= si.freeram && si.freeram > 0 && si.procs > 0,
	   "sysinfo");
	return 0;
}
