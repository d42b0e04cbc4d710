/* watchdogtest: alarm, and the test runner's watchdog that ends a case that hangs. */
#include "testutil.h"

/*
 * With the argument `hang` (tools/tests/test_host.py), two cases that fail
 * on purpose come first: one hangs, which the runner must report `not ok
 * 1 hangs_on_purpose # timed out after 1 s`, leaving no process behind;
 * one kills itself before its result, `not ok 2 dies_on_purpose # killed
 * by signal 11 before its result`; and the runner goes on with the rest.
 */

static volatile int alarms, alarm_code;

static void on_alarm(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)ctx;
	alarms++;
	alarm_code = si->si_code;
}

static int test_alarm_returns_seconds_left(void)
{
	return expect(alarm(100), 0, "alarm(100) with none set") &&
	       expect(alarm(5), 100, "alarm(5) after alarm(100)") &&
	       expect(alarm(0), 5, "alarm(0) after alarm(5)") &&
	       expect(alarm(0), 0, "alarm(0) with none set");
}

static int test_alarm_delivers_sigalrm(void)
{
	long t0 = now_ns(), t;

	sigaction(SIGALRM, on_alarm, 0);
	alarm(1);
	while (!alarms && now_ns() - t0 < 5000 * MSEC)
		pause();
	t = now_ns() - t0;
	ktap_diag("SIGALRM after %ld ms", t / MSEC);
	if (alarms != 1 || alarm_code != SI_KERNEL)
		return ktap_fail("%d SIGALRM, si_code %d; expected one, SI_KERNEL", alarms,
				 alarm_code);
	if (t < 900 * MSEC || t > 3000 * MSEC)
		return ktap_fail("SIGALRM after %ld ms, expected about 1000", t / MSEC);
	return 1;
}

static int alarm_left_in_child(void *unused)
{
	(void)unused;
	return alarm(0) != 0;
}

static int test_fork_drops_the_alarm(void)
{
	int status;

	alarm(100);
	status = run_in_child(alarm_left_in_child, NULL);
	alarm(0);
	return expect_exit(status, 0, "alarm(0) in a child forked with an alarm set");
}

/* Spin with every signal blocked: only SIGKILL can end it. */
static __attribute__((noreturn)) int hang(void *unused)
{
	sigset_t all = ~0UL;

	(void)unused;
	rt_sigprocmask(SIG_BLOCK, &all, NULL, sizeof(all));
	for (;;)
		__asm__ volatile("pause");
}

/* A hanging grandchild too: a timeout kills the case's whole group. */
static int hang_with_child(void)
{
	if (fork() >= 0)
		hang(NULL);
	return 0;
}

/* A case that dies before it prints its line: the parent prints it. */
static int die(void)
{
	kill(getpid(), SIGSEGV);
	return 1;
}

static int test_watchdog_ends_a_hang(void)
{
	long t0 = now_ns(), t;
	int status = run_watched(hang, NULL, 1);

	t = now_ns() - t0;
	ktap_diag("a hanging child was ended after %ld ms", t / MSEC);
	if (status != CASE_TIMED_OUT)
		return ktap_fail("run_watched returned %#x, expected CASE_TIMED_OUT", status);
	if (t < 900 * MSEC || t > 5000 * MSEC)
		return ktap_fail("the 1 s watchdog fired after %ld ms", t / MSEC);
	return expect(wait4(-1, &status, WNOHANG, NULL), -ECHILD, "wait4 after the timeout");
}

static int test_watchdog_passes_results_on(void)
{
	return expect(run_watched(alarm_left_in_child, NULL, 5), 0, "a quick child's status");
}

static const struct test tests[] = {
	{ "hangs_on_purpose", hang_with_child, 0, 1 },	/* only with `hang` */
	{ "dies_on_purpose", die },			/* only with `hang` */
	{ "alarm_returns_seconds_left", test_alarm_returns_seconds_left },
	{ "alarm_delivers_sigalrm_once", test_alarm_delivers_sigalrm },
	{ "fork_drops_the_alarm", test_fork_drops_the_alarm },
	{ "watchdog_ends_a_hanging_child", test_watchdog_ends_a_hang },
	{ "watchdog_passes_results_on", test_watchdog_passes_results_on },
};

int main(int argc, char **argv, char **envp)
{
	int skipped = argc > 1 && !strcmp(argv[1], "hang") ? 0 : 2;	/* the two on purpose */

	(void)envp;
	return run_tests(tests + skipped, ARRAY_SIZE(tests) - skipped);
}
