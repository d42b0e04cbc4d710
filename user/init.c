/* init: the first user process; starts the shell, or runs each test program and reports KTAP. */
#include "ktap.h"

/* The programs init runs when its one argument is `test` (the test boots give it);
 * `test PROG...` runs the programs named instead. */
static const char *const programs[] = {
	"/bin/sysmisc",
	"/bin/sysproc",
	"/bin/sysmem",
	"/bin/cowtest",
	"/bin/shmtest",
	"/bin/sysvshm",
	"/bin/futexpi",
	"/bin/futexclock",
	"/bin/sysched",
	"/bin/sysfile",
	"/bin/systime",
	"/bin/proctest",
	"/bin/timetest",
	"/bin/vdsotest",
	"/bin/vdsomap",
	"/bin/vsyscalltest",
	"/bin/sigfault",
	"/bin/sigframe",
	"/bin/sigmask",
	"/bin/sigstate",
	"/bin/xstate",
	"/bin/mapstest",
	"/bin/watchdogtest",
	"/bin/pipetest",
	"/bin/tmpfstest",
	"/bin/musltest",
	"/bin/muslsig",
	"/bin/muslthread",
	"/bin/muslgroup",
	"/bin/muslfutex",
	"/bin/muslclose",
	"/bin/muslsmp",
	"/bin/muslseg",
	"/bin/musltimer",
	"/bin/muslselect",
	"/bin/muslcpuclock",
	"/bin/muslfutexv",
	"/bin/muslrobust",
	"/bin/muslsigqueue",
	"/bin/muslcred",
	"/bin/sysabi",
	"/bin/sysclone",
	"/bin/sysbusy",
	"/bin/syslink",
	"/bin/syspath",
	"/bin/syswait",
	"/bin/sysclock",
	"/bin/sysfsinfo",
	"/bin/timelimits",
	"/bin/syswake",
	"/bin/glibctest",
	"/bin/glibcproc",
	"/bin/glibclock",
};

/* Built only where musl-gcc is (user/libc.mk): a skip when missing. */
static const char *const optional[] = {
	"/bin/musltest",
	"/bin/muslsig",
	"/bin/muslthread",
	"/bin/muslgroup",
	"/bin/muslfutex",
	"/bin/muslclose",
	"/bin/muslsmp",
	"/bin/muslseg",
	"/bin/musltimer",
	"/bin/muslselect",
	"/bin/muslcpuclock",
	"/bin/muslfutexv",
	"/bin/muslrobust",
	"/bin/muslsigqueue",
	"/bin/muslcred",
	"/bin/glibctest",
	"/bin/glibcproc",
	"/bin/glibclock",
};
#define NOT_BUILT	(-ENOENT)

static int not_built(const char *path)
{
	unsigned long i;
	long fd;

	for (i = 0; i < ARRAY_SIZE(optional); i++) {
		if (strcmp(path, optional[i]))
			continue;
		if ((fd = open(path, O_RDONLY, 0)) < 0)
			return 1;
		close(fd);
	}
	return 0;
}

/* Fork, exec argv[0], and wait for it (reaping orphans meanwhile). */
static int run(char **argv, char **envp)
{
	long pid, r;
	int status;

	pid = fork();
	if (pid < 0)
		return pid;
	if (pid == 0) {
		r = execve(argv[0], argv, envp);
		dprintf(2, "init: cannot execute %s: error %ld\n", argv[0], -r);
		exit_group(127);
	}
	do
		r = wait4(-1, &status, 0, NULL);
	while (r >= 0 && r != pid);
	return r < 0 ? r : status;
}

/* One KTAP line for a program, from its wait status (or -errno). */
static void report(const char *name, int status)
{
	if (status == NOT_BUILT) {
		ktap_skip(strcmp(name, "/bin/glibctest") ?
			  "not built: no musl-gcc (tools/setup installs musl-tools)" :
			  "not built: no libc.a for gcc -static (tools/setup installs libc6-dev)", name);
		return;
	}
	if (status < 0)
		ktap_fail("fork or wait4 failed: error %d", -status);
	else if (WIFSIGNALED(status))
		ktap_fail("killed by signal %d", WTERMSIG(status));
	else if (WEXITSTATUS(status) == 127)
		ktap_fail("exit status 127: execve failed (see the message above)");
	else
		ktap_fail("exit status %d", WEXITSTATUS(status));
	ktap_ok(status == 0, "%s", name);
}

/*
 * Each program prints its own KTAP document while it runs; init prints its
 * own document, one line per program, after they have all finished, so the
 * documents follow one another instead of nesting.
 */
int main(int argc, char **argv, char **envp)
{
	char *args[2] = { NULL, NULL };
	const char *const *list = programs;
	int n = ARRAY_SIZE(programs);
	int status[ARRAY_SIZE(programs)];
	int i;

	printf("ccos init: hello from ring 3\n");
	if (argc == 1) {
		/* make run: the shell on the console; its end powers the machine off. */
		args[0] = "/bin/sh";
		status[0] = run(args, envp);
		return status[0] < 0 ? 1 : WIFSIGNALED(status[0]) ? 128 + WTERMSIG(status[0]) :
		       WEXITSTATUS(status[0]);
	}
	if (strcmp(argv[1], "test")) {
		/* init=/bin/init -- /bin/foo ARGS: run only that program */
		status[0] = run(argv + 1, envp);
		ktap_plan(1);
		report(argv[1], status[0]);
		return ktap_done();
	}
	if (argc > 2) {
		/* -- test /bin/a /bin/b: those programs, one after the other */
		list = (const char *const *)argv + 2;
		n = argc - 2 < n ? argc - 2 : n;
	}
	for (i = 0; i < n; i++) {
		args[0] = (char *)list[i];
		status[i] = not_built(list[i]) ? NOT_BUILT : run(args, envp);
	}
	ktap_plan(n);
	for (i = 0; i < n; i++)
		report(list[i], status[i]);
	return ktap_done();
}
