/* KTAP output for the musl programs: plan, numbered results, a reason for a failure, the watchdog, the table runner. */
#ifndef MUSL_KTAP_H
#define MUSL_KTAP_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int ktap_next = 1, ktap_failed, ktap_skipped;
static char ktap_reason[200];

/* Record why the current case fails; returns 0 so that a case can return it. */
static int __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ktap_reason, sizeof(ktap_reason), fmt, ap);
	va_end(ap);
	return 0;
}

static void ktap_plan(int n)
{
	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
}

/* stdout is flushed after each line: a fork must not copy unwritten output. */
static void ktap_ok(int ok, const char *name)
{
	if (ok)
		printf("ok %d %s\n", ktap_next, name);
	else if (ktap_reason[0])
		printf("not ok %d %s # %s\n", ktap_next, name, ktap_reason);
	else
		printf("not ok %d %s\n", ktap_next, name);
	fflush(stdout);
	ktap_next++;
	ktap_failed += !ok;
	ktap_reason[0] = '\0';
}

/* A case that cannot run here returns skip_case(why): its line says SKIP and why. */
#define KTAP_SKIPPED	2

static int __attribute__((unused)) skip_case(const char *why)
{
	snprintf(ktap_reason, sizeof(ktap_reason), "%s", why);
	return KTAP_SKIPPED;
}

static void __attribute__((unused)) ktap_skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ktap_next++, name, why);
	fflush(stdout);
	ktap_skipped++;
}

/*
 * As run_case in user/lib/testutil.c: each case in a child of its own
 * (leading its own process group where the kernel has them), which prints
 * its line; a case still running after CASE_TIMEOUT seconds is killed with
 * its group and reported `not ok N name # timed out`.
 */
#define CASE_TIMEOUT	30

static volatile pid_t watched;
static volatile int watched_group, watchdog_fired;

static void on_watchdog(int sig)
{
	(void)sig;
	watchdog_fired = 1;
	if (watched > 0 && watched_group)
		kill(-watched, SIGKILL);
	if (watched > 0)
		kill(watched, SIGKILL);
}

static void ktap_case(const char *name, int (*run)(void))
{
	struct sigaction sa = { .sa_handler = on_watchdog };	/* no SA_RESTART */
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGALRM, SIG_DFL);
		int ok = run();

		if (ok == KTAP_SKIPPED) {
			ktap_skip(name, ktap_reason);
			_exit(KTAP_SKIPPED);
		}
		ktap_ok(ok, name);
		_exit(!ok);
	}
	watched_group = pid > 0 && (setpgid(pid, pid) == 0 || getpgid(pid) == pid);
	watchdog_fired = 0;
	watched = pid;
	sigaction(SIGALRM, &sa, NULL);
	alarm(CASE_TIMEOUT);
	while (pid > 0 && waitpid(pid, &status, 0) < 0)
		;
	alarm(0);
	watched = 0;
	if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) <= KTAP_SKIPPED && !watchdog_fired) {
		ktap_failed += WEXITSTATUS(status) == 1;
		ktap_skipped += WEXITSTATUS(status) == KTAP_SKIPPED;
		ktap_next++;
		return;
	}
	if (pid < 0)
		fail("fork failed");
	else if (watchdog_fired)
		fail("timed out after %d s", CASE_TIMEOUT);
	else if (WIFSIGNALED(status))
		fail("killed by signal %d before its result", WTERMSIG(status));
	else
		fail("exit status %d before its result", WEXITSTATUS(status));
	ktap_ok(0, name);
}

static int ktap_done(void)
{
	printf("# Totals: pass:%d fail:%d skip:%d\n", ktap_next - 1 - ktap_failed - ktap_skipped,
	       ktap_failed, ktap_skipped);
	return ktap_failed != 0;
}

/* A program's cases, in order; KTAP_MAIN(cases) runs them all and is main's status. */
struct ktap_test {
	const char *name;
	int (*run)(void);
};

static int __attribute__((unused)) ktap_run(const struct ktap_test *cases, unsigned int n)
{
	unsigned int i;

	ktap_plan(n);
	for (i = 0; i < n; i++)
		ktap_case(cases[i].name, cases[i].run);
	return ktap_done();
}

#define KTAP_MAIN(cases)	ktap_run(cases, sizeof(cases) / sizeof(cases[0]))

#endif
