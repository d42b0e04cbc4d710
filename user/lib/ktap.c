/* ktap: KTAP output and the runner, each case in a child under a watchdog (ktap.h, docs/testing.md). */
#include "ktap.h"

static int ktap_next = 1;
static int ktap_failed, ktap_skipped;
static char ktap_reason[200];

/*
 * stdout is flushed after each line and before each fork: a C library's
 * buffer must not be copied into a child unwritten (it would come out
 * twice), nor lost at a child's _exit. ulib's printf has no buffer.
 */
void ktap_plan(int n)
{
	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
}

int ktap_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ktap_reason, sizeof(ktap_reason), fmt, ap);
	va_end(ap);
	return 0;
}

int ktap_ok(int cond, const char *fmt, ...)
{
	char name[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (cond)
		printf("ok %d %s\n", ktap_next, name);
	else if (ktap_reason[0])
		printf("not ok %d %s # %s\n", ktap_next, name, ktap_reason);
	else
		printf("not ok %d %s\n", ktap_next, name);
	fflush(stdout);
	ktap_next++;
	ktap_failed += !cond;
	ktap_reason[0] = '\0';
	return cond;
}

void ktap_skip(const char *reason, const char *name)
{
	printf("ok %d %s # SKIP %s\n", ktap_next++, name, reason);
	fflush(stdout);
	ktap_skipped++;
}

void ktap_diag(const char *fmt, ...)
{
	char line[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("# %s\n", line);
	fflush(stdout);
}

int ktap_done(void)
{
	int run = ktap_next - 1;

	printf("# Totals: pass:%d fail:%d skip:%d\n",
	       run - ktap_failed - ktap_skipped, ktap_failed, ktap_skipped);
	fflush(stdout);
	return ktap_failed ? 1 : 0;
}

const char *self;

void find_self(const char *argv0)
{
	int fd;

	if (strchr(argv0, '/') && (fd = open(argv0, O_RDONLY, 0)) >= 0) {
		self = argv0;
		close(fd);
	}
}

/* ---- the watchdog ---- */

static volatile long watched;		/* the child the watchdog will kill */
static volatile int watched_group;	/* ... with its own process group */
static volatile int watchdog_fired;

/* SIGALRM in the parent: kill the case and whatever it started. */
static void on_watchdog(int sig)
{
	(void)sig;
	watchdog_fired = 1;
	if (watched > 0 && watched_group)
		kill(-watched, SIGKILL);
	if (watched > 0)
		kill(watched, SIGKILL);
}

/*
 * The child leads a process group of its own (both sides call setpgid, so
 * neither waits for the other), and a timeout kills that group; without
 * groups (setpgid fails) only the child is killed, never kill(-pid), which
 * would reach others. signal() restarts the wait after the handler (BSD's
 * rule, which glibc, musl and ulib keep); should some other handler of the
 * program's end it, it is asked again while the child is there to wait for.
 */
int run_watched(int (*fn)(void *), void *arg, unsigned int seconds)
{
	long pid, r;
	int status = 0;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return pid;
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGALRM, SIG_DFL);
		r = fn(arg);
		fflush(stdout);
		_exit(r);
	}
	watched_group = setpgid(pid, pid) == 0 || getpgid(pid) == pid;
	watchdog_fired = 0;
	watched = pid;
	signal(SIGALRM, on_watchdog);
	alarm(seconds ? seconds : CASE_TIMEOUT);
	while ((r = waitpid(pid, &status, 0)) != pid && kill(pid, 0) == 0)
		;
	alarm(0);
	watched = 0;
	if (r != pid)
		return r < 0 ? r : -1;
	return watchdog_fired ? CASE_TIMED_OUT : status;
}

/* ---- the runner ---- */

static char skip_reason[120];

int skip(const char *why)
{
	snprintf(skip_reason, sizeof(skip_reason), "%s", why);
	return SKIPPED;
}

/* In the case's child: print its line; exit 0 passed, 1 failed, 2 skipped. */
static int case_child(void *arg)
{
	const struct test *t = arg;
	int r = t->run();

	if (r == SKIPPED) {
		ktap_skip(skip_reason, t->name);
		return 2;
	}
	return !ktap_ok(r, "%s", t->name);
}

static int run_one(const struct test *t)
{
	int status = run_watched(case_child, (void *)t, t->seconds);

	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) <= 2) {
		/* the child printed the line: count it here too */
		ktap_next++;
		ktap_failed += WEXITSTATUS(status) == 1;
		ktap_skipped += WEXITSTATUS(status) == 2;
		return WEXITSTATUS(status) != 1;
	}
	if (status == CASE_TIMED_OUT)
		ktap_fail("timed out after %u s", t->seconds ? t->seconds : CASE_TIMEOUT);
	else if (status < 0)
		ktap_fail("fork or waitpid failed (%d)", status);
	else if (WIFSIGNALED(status))
		ktap_fail("killed by signal %d before its result", WTERMSIG(status));
	else
		ktap_fail("exit status %d before its result", WEXITSTATUS(status));
	return ktap_ok(0, "%s", t->name);
}

int run_case(const char *name, int (*run)(void), unsigned int seconds)
{
	const struct test t = { name, run, 0, seconds };

	return run_one(&t);
}

int run_tests(const struct test *tests, unsigned long n)
{
	unsigned long i;

	ktap_plan(n);
	for (i = 0; i < n; i++) {
		if (tests[i].needs_self && !self)
			ktap_skip("argv[0] is not a path to this program's file", tests[i].name);
		else
			run_one(&tests[i]);
	}
	return ktap_done();
}
