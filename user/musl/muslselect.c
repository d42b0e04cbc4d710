/* muslselect: select and pselect6, as on Linux: readiness, timeouts written back, errors, signal masks. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/time.h>
#include "ktap.h"
#include "threadutil.h"

/*
 * Built with musl-gcc -static, it runs as it is on ccos and on Linux
 * (musl's pselect is pselect6). musl's select passes the system call a
 * copy of the timeout, carried into whole seconds, so what the kernel
 * itself does with one is asked with the raw call, sys_select. The
 * timeouts are checked against the clock, never against a sleep of our
 * own.
 */
static long sys_select(int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
	return syscall(SYS_select, n, rd, wr, ex, tv);
}

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

static int test_pipe_readiness(void)
{
	struct timeval zero = { 0, 0 };
	fd_set rd, wr;
	int p[2], n;

	if (pipe(p))
		return ktap_fail("pipe: %s", strerror(errno));
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(p[0], &rd);
	FD_SET(p[1], &wr);
	n = select(p[1] + 1, &rd, &wr, NULL, &zero);
	if (n != 1 || FD_ISSET(p[0], &rd) || !FD_ISSET(p[1], &wr))
		return ktap_fail("empty pipe: select %d, read end %d, write end %d; expected 1, 0, 1", n,
				 FD_ISSET(p[0], &rd), FD_ISSET(p[1], &wr));
	write(p[1], "x", 1);
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	FD_SET(p[1], &rd);	/* a write end is never readable */
	n = select(p[1] + 1, &rd, NULL, NULL, NULL);
	if (n != 1 || !FD_ISSET(p[0], &rd) || FD_ISSET(p[1], &rd))
		return ktap_fail("a byte in the pipe: select %d, read end %d; expected 1, 1", n,
				 FD_ISSET(p[0], &rd));
	close(p[1]);
	read(p[0], &n, 1);
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	n = select(p[0] + 1, &rd, NULL, NULL, NULL);	/* no writer: end of file is ready */
	if (n != 1 || !FD_ISSET(p[0], &rd))
		return ktap_fail("a pipe without a writer: select %d, expected 1 (readable)", n);
	return 1;
}

/* select writes back the time left: all of it used, 0. */
static int test_timeout_written_back(void)
{
	struct timeval tv = { 0, 30000 };
	int64_t t0 = mono_ns(), took;
	int n = sys_select(0, NULL, NULL, NULL, &tv);

	took = mono_ns() - t0;
	if (n != 0)
		return ktap_fail("select with nothing to wait for returned %d (%s)", n, strerror(errno));
	if (took < 30000000)
		return ktap_fail("a 30 ms timeout returned after %lld ns", (long long)took);
	return tv.tv_sec == 0 && tv.tv_usec == 0 ? 1 :
	       ktap_fail("the time left: %ld.%06ld s, expected 0", (long)tv.tv_sec, (long)tv.tv_usec);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal ends the wait with EINTR, and the time left is what is left. */
static int test_interrupted(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };
	struct timeval tv = { 5, 0 };
	long long left;
	int n;

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	n = sys_select(0, NULL, NULL, NULL, &tv);
	if (n != -1 || errno != EINTR)
		return ktap_fail("select interrupted by SIGALRM: %d (%s), expected EINTR", n, strerror(errno));
	left = tv.tv_sec * 1000000ll + tv.tv_usec;
	return left >= 0 && left < 5000000 ? 1 :
	       ktap_fail("the time left %ld.%06ld s: expected less than the 5 s asked for",
			 (long)tv.tv_sec, (long)tv.tv_usec);
}

static int test_errors(void)
{
	struct timeval zero = { 0, 0 }, bad = { -1, 0 }, carried = { 0, 1000000 };
	fd_set rd;

	FD_ZERO(&rd);
	FD_SET(20, &rd);	/* not open */
	if (select(21, &rd, NULL, NULL, &zero) != -1 || errno != EBADF)
		return ktap_fail("select of a descriptor that is not open: not EBADF");
	if (select(-1, NULL, NULL, NULL, &zero) != -1 || errno != EINVAL)
		return ktap_fail("select(-1): not EINVAL");
	if (sys_select(0, NULL, NULL, NULL, &bad) != -1 || errno != EINVAL)
		return ktap_fail("select with tv_sec -1: not EINVAL");
	FD_ZERO(&rd);
	FD_SET(1, &rd);	/* stdout: a terminal or a file, never waited for long */
	if (sys_select(2, NULL, &rd, NULL, &carried) < 0)
		return ktap_fail("select with tv_usec 1000000 (carried into a second, as Linux does): %s",
				 strerror(errno));
	if (select(1, (fd_set *)8, NULL, NULL, &zero) != -1 || errno != EFAULT)
		return ktap_fail("select with a bad set pointer: not EFAULT");
	return 1;
}

static volatile int usr1_seen;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_seen++;
}

/* pselect's mask holds for the wait only: a blocked signal it lets in ends the wait. */
static int test_pselect_mask(void)
{
	struct timespec five = { 5, 0 };
	sigset_t block, empty, now;
	int n;

	signal(SIGUSR1, on_usr1);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigemptyset(&empty);
	sigprocmask(SIG_BLOCK, &block, NULL);
	raise(SIGUSR1);
	if (usr1_seen)
		return ktap_fail("SIGUSR1 came while blocked");
	n = pselect(0, NULL, NULL, NULL, &five, &empty);
	sigprocmask(SIG_BLOCK, NULL, &now);
	if (n != -1 || errno != EINTR || usr1_seen != 1)
		return ktap_fail("pselect letting SIGUSR1 in: %d (%s), %d handled; expected EINTR, 1", n,
				 strerror(errno), usr1_seen);
	return sigismember(&now, SIGUSR1) ? 1 : ktap_fail("SIGUSR1 not blocked again after pselect");
}

static const struct test tests[] = {
	{ "select_pipe_readiness", test_pipe_readiness },
	{ "select_timeout_written_back", test_timeout_written_back },
	{ "select_interrupted_eintr", test_interrupted },
	{ "select_errors", test_errors },
	{ "pselect_mask_for_the_wait", test_pselect_mask },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
