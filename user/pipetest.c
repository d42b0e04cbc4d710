/* pipetest: pipes, dup, fcntl, close-on-exec, poll, process groups and the terminal's ioctls, as on Linux. */
#include "testutil.h"

static int test_pipe_roundtrip(void)
{
	int fds[2];
	char buf[8];

	if (!expect(pipe(fds), 0, "pipe"))
		return 0;
	if (!expect(write(fds[1], "hello", 5), 5, "write") ||
	    !expect(read(fds[0], buf, sizeof(buf)), 5, "read"))
		return 0;
	if (memcmp(buf, "hello", 5))
		return ktap_fail("read back the wrong bytes");
	close(fds[1]);
	return expect(read(fds[0], buf, 1), 0, "read after the writer closed (end of file)") &&
	       expect(close(fds[0]), 0, "close") &&
	       expect(pipe(NULL), -EFAULT, "pipe(NULL)") &&
	       expect(pipe2(fds, 0x1234), -EINVAL, "pipe2(bad flags)");
}

/* A writer fills the 4 KiB pipe and blocks; a child reads everything. */
static int reader_child(void *arg)
{
	int *fds = arg;
	char buf[1000];
	long n, total = 0;

	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0)
		total += n;
	return total == 100000 ? 0 : 1;
}

static int test_pipe_blocking(void)
{
	static char block[10000];
	int fds[2], i, status;
	long pid;

	pipe(fds);
	pid = fork();
	if (pid == 0)
		exit_group(reader_child(fds));
	close(fds[0]);
	for (i = 0; i < 10; i++)
		if (!expect(write(fds[1], block, sizeof(block)), sizeof(block), "write 10000"))
			return 0;
	close(fds[1]);
	wait4(pid, &status, 0, NULL);
	return expect_exit(status, 0, "the child read 100000 bytes");
}

static int test_epipe(void)
{
	int fds[2], status;
	long pid;

	pipe(fds);
	close(fds[0]);
	sigaction(SIGPIPE, (void *)SIG_IGN, 0);
	if (!expect(write(fds[1], "x", 1), -EPIPE, "write with no reader (SIGPIPE ignored)"))
		return 0;
	sigaction(SIGPIPE, (void *)SIG_DFL, 0);
	pid = fork();
	if (pid == 0) {
		write(fds[1], "x", 1);
		exit_group(0);
	}
	close(fds[1]);
	wait4(pid, &status, 0, NULL);
	return expect_signal(status, SIGPIPE, "a writer with no reader");
}

static int test_nonblock(void)
{
	int fds[2];
	char c;

	if (!expect(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0, "pipe2(O_NONBLOCK | O_CLOEXEC)"))
		return 0;
	return expect(read(fds[0], &c, 1), -EAGAIN, "read of an empty non-blocking pipe") &&
	       expect(fcntl(fds[0], F_GETFL, 0), O_NONBLOCK, "F_GETFL") &&
	       expect(fcntl(fds[1], F_GETFL, 0), O_WRONLY | O_NONBLOCK, "F_GETFL of the write end") &&
	       expect(fcntl(fds[0], F_GETFD, 0), FD_CLOEXEC, "F_GETFD") &&
	       expect(fcntl(fds[0], F_SETFL, 0), 0, "F_SETFL 0") &&
	       expect(fcntl(fds[0], F_GETFL, 0), 0, "F_GETFL after F_SETFL") &&
	       expect(fcntl(fds[0], F_SETFD, 0), 0, "F_SETFD 0") &&
	       expect(fcntl(fds[0], F_GETFD, 0), 0, "F_GETFD after F_SETFD") &&
	       expect(fcntl(fds[0], 9999, 0), -EINVAL, "fcntl(unknown)") &&
	       expect(close(fds[0]) | close(fds[1]), 0, "close");
}

static int test_dup(void)
{
	int fds[2];
	long a, b;
	char buf[4];

	pipe(fds);
	a = dup(fds[1]);
	b = fcntl(fds[1], F_DUPFD, 20);
	if (!expect(a > fds[1], 1, "dup gives a new descriptor") || !expect(b, 20, "F_DUPFD 20"))
		return 0;
	write(a, "ab", 2);
	write(b, "cd", 2);
	if (!expect(read(fds[0], buf, 4), 4, "read what both copies wrote") || memcmp(buf, "abcd", 4))
		return ktap_fail("wrong bytes through the duplicates");
	return expect(dup2(fds[0], 25), 25, "dup2") &&
	       expect(dup2(25, 25), 25, "dup2 onto itself") &&
	       expect(dup3(25, 25, 0), -EINVAL, "dup3 onto itself") &&
	       expect(dup3(fds[0], 26, O_CLOEXEC), 26, "dup3(O_CLOEXEC)") &&
	       expect(fcntl(26, F_GETFD, 0), FD_CLOEXEC, "F_GETFD of the dup3 copy") &&
	       expect(fcntl(fds[0], F_DUPFD_CLOEXEC, 0) > 0, 1, "F_DUPFD_CLOEXEC") &&
	       expect(dup2(999, 3), -EBADF, "dup2(bad)") &&
	       expect(dup2(fds[0], 9999), -EBADF, "dup2 to 9999") &&
	       expect(dup(-1), -EBADF, "dup(-1)");
}

/* Descriptors run out at Linux's EMFILE; closing them all gives them back. */
static int test_emfile(void)
{
	int fds[2], n = 0, first = -1, ok;
	long r;

	while ((r = dup(0)) >= 0) {
		if (first < 0)
			first = r;
		n++;
	}
	ok = expect(r, -EMFILE, "dup past the table") && expect(pipe(fds), -EMFILE, "pipe when full");
	while (n--)
		close(first + n);
	return ok && expect(pipe(fds), 0, "pipe after closing") &&
	       expect(close(fds[0]) | close(fds[1]), 0, "close");
}

static int test_poll(void)
{
	struct pollfd p[3];
	int fds[2];
	long t0;
	char c;

	pipe(fds);
	p[0] = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	p[1] = (struct pollfd){ .fd = fds[1], .events = POLLOUT };
	p[2] = (struct pollfd){ .fd = 999, .events = POLLIN };
	if (!expect(poll(p, 3, 0), 2, "poll: the write end and the bad fd") ||
	    !expect(p[0].revents, 0, "an empty pipe is not readable") ||
	    !expect(p[1].revents, POLLOUT, "the write end is writable") ||
	    !expect(p[2].revents, POLLNVAL, "fd 999 is POLLNVAL"))
		return 0;
	t0 = now_ns();
	if (!expect(poll(p, 1, 50), 0, "poll times out") ||
	    !expect(now_ns() - t0 >= 50 * MSEC, 1, "... after 50 ms"))
		return 0;
	write(fds[1], "x", 1);
	if (!expect(poll(p, 1, -1), 1, "poll after a write") ||
	    !expect(p[0].revents, POLLIN, "readable"))
		return 0;
	close(fds[1]);
	read(fds[0], &c, 1);
	return expect(poll(p, 1, -1), 1, "poll after the writer closed") &&
	       expect(p[0].revents, POLLHUP, "POLLHUP") &&
	       expect(poll((void *)1, 1, 0), -EFAULT, "poll(bad pointer)");
}

/* ppoll's mask lasts the call only: a return with a descriptor ready puts the old one back. */
static int test_ppoll_mask(void)
{
	sigset_t usr1 = 1ul << (SIGUSR1 - 1), old, none = 0, after = ~0ul;
	struct timespec zero = { 0, 0 };
	struct pollfd p;
	int fds[2];
	long r;

	pipe(fds);
	p = (struct pollfd){ .fd = fds[1], .events = POLLOUT };
	rt_sigprocmask(SIG_SETMASK, &none, &old, sizeof(sigset_t));
	r = syscall5(__NR_ppoll, (long)&p, 1, (long)&zero, (long)&usr1, sizeof(sigset_t));
	rt_sigprocmask(SIG_SETMASK, &old, &after, sizeof(sigset_t));
	close(fds[0]);
	close(fds[1]);
	return expect(r, 1, "ppoll with a mask: the write end is ready") &&
	       expect(after, 0, "the mask from before ppoll is back");
}

static int test_pgrp(void)
{
	long me = getpid(), pid;
	int status;

	if (!expect(getpgid(0), getpgrp(), "getpgid(0) == getpgrp()") ||
	    !expect(getsid(0) > 0, 1, "getsid") ||
	    !expect(getpgid(99999), -ESRCH, "getpgid(no such process)"))
		return 0;
	pid = fork();
	if (pid == 0) {
		long sid = setsid();

		exit_group(sid == getpid() && getpgrp() == getpid() && getsid(0) == getpid() &&
			   setpgid(0, 0) == -EPERM ? 0 : 1);
	}
	wait4(pid, &status, 0, NULL);
	if (!expect_exit(status, 0, "setsid in a child: a new session and group, setpgid refused"))
		return 0;
	pid = fork();
	if (pid == 0) {
		for (;;)
			sched_yield();
	}
	if (!expect(setpgid(pid, pid), 0, "setpgid(child, child)") ||
	    !expect(getpgid(pid), pid, "the child leads its group") ||
	    !expect(setpgid(pid, 424242), -EPERM, "setpgid to a group that does not exist") ||
	    !expect(setpgid(1, 1), -ESRCH, "setpgid of a process that is not a child") ||
	    !expect(kill(-pid, SIGKILL), 0, "kill(-pgid)"))
		return 0;
	wait4(pid, &status, 0, NULL);
	return expect_signal(status, SIGKILL, "the group got the signal") &&
	       expect(getpid(), me, "still here");
}

/* The console: Linux's 36-byte termios, window size, foreground group. */
static int test_tty_ioctls(void)
{
	struct termios t, saved;
	struct winsize w = { 0 }, big = { 50, 132, 0, 0 };
	char over[64];

	memset(over, 0x55, sizeof(over));
	if (!expect(ioctl(0, TCGETS, (unsigned long)over), 0, "TCGETS on standard input, the console") ||
	    !expect(over[36] == 0x55 && over[35] == 0, 1, "TCGETS writes 36 bytes, no more"))
		return 0;
	ioctl(0, TCGETS, (unsigned long)&saved);
	t = saved;
	t.c_lflag &= ~(ICANON | ECHO);
	if (!expect(ioctl(0, TCSETS, (unsigned long)&t), 0, "TCSETS raw") ||
	    !expect(ioctl(0, TCGETS, (unsigned long)&t), 0, "TCGETS") ||
	    !expect(t.c_lflag & (ICANON | ECHO), 0, "raw mode reads back") ||
	    !expect(ioctl(0, TCSETS, (unsigned long)&saved), 0, "TCSETS back") ||
	    !expect(ioctl(0, TIOCSWINSZ, (unsigned long)&big), 0, "TIOCSWINSZ") ||
	    !expect(ioctl(0, TIOCGWINSZ, (unsigned long)&w), 0, "TIOCGWINSZ") ||
	    !expect(w.ws_row * 1000 + w.ws_col, 50132, "the size set") ||
	    !expect(ioctl(0, TIOCGWINSZ, 1), -EFAULT, "TIOCGWINSZ(bad pointer)"))
		return 0;
	big = (struct winsize){ 24, 80, 0, 0 };
	ioctl(0, TIOCSWINSZ, (unsigned long)&big);
	return expect(tcgetpgrp(0) > 0, 1, "tcgetpgrp") &&
	       expect(tcsetpgrp(0, 424242), -EPERM, "tcsetpgrp(no such group)") &&
	       expect(tcsetpgrp(0, tcgetpgrp(0)), 0, "tcsetpgrp(the same)");
}

static const struct test tests[] = {
	{ "pipe_roundtrip", test_pipe_roundtrip },
	{ "pipe_blocking", test_pipe_blocking },
	{ "epipe_sigpipe", test_epipe },
	{ "nonblock_fcntl", test_nonblock },
	{ "dup_dup2_dup3", test_dup },
	{ "emfile", test_emfile },
	{ "poll", test_poll },
	{ "ppoll_mask", test_ppoll_mask },
	{ "pgrp_session", test_pgrp },
	{ "tty_ioctls", test_tty_ioctls },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)envp;
	find_self(argv[0]);
	return run_tests(tests, ARRAY_SIZE(tests));
}
