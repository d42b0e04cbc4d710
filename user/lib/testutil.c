/* testutil: expectations, time, small mappings and the table runner of the test programs. */
#include "testutil.h"

const char *self;
const char *test_skip_reason;

int expect(long got, long want, const char *what)
{
	if (got == want)
		return 1;
	return ktap_fail("%s returned %ld, expected %ld", what, got, want);
}

int expect_exit(int status, int code, const char *what)
{
	if (status < 0)
		return ktap_fail("%s: fork or wait4 failed: %d", what, status);
	if (WIFSIGNALED(status))
		return ktap_fail("%s: killed by signal %d, expected exit %d",
				 what, WTERMSIG(status), code);
	return expect(WEXITSTATUS(status), code, what);
}

int expect_signal(int status, int sig, const char *what)
{
	if (status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == sig)
		return 1;
	return ktap_fail("%s: wait status %#x, expected killed by signal %d",
			 what, status, sig);
}

long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

long sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	return nanosleep(&ts, NULL);
}

void *map_pages(int n)
{
	return mmap(NULL, n * PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

void find_self(const char *argv0)
{
	long fd;

	if (strchr(argv0, '/') && (fd = open(argv0, O_RDONLY, 0)) >= 0) {
		self = argv0;
		close(fd);
	}
}

int run_tests(const struct test *tests, unsigned long n)
{
	unsigned long i;

	ktap_plan(n);
	for (i = 0; i < n; i++) {
		int ok;

		test_skip_reason = NULL;
		if (tests[i].needs_self && !self) {
			ktap_skip("argv[0] is not a path to this program's file",
				  tests[i].name);
			continue;
		}
		ok = tests[i].run();
		if (test_skip_reason && ok)
			ktap_skip(test_skip_reason, tests[i].name);
		else
			ktap_ok(ok, "%s", tests[i].name);
	}
	return ktap_done();
}
