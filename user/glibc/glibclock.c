/* glibclock: file locks (POSIX record locks, OFD locks, flock) and pipes' sizes and packets, as LTP tests them (issue 44). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include "ktap.h"

static char path[96];

static int check(int cond, const char *what)
{
	return cond ? 1 : ktap_fail("%s: errno %d (%s)", what, errno, strerror(errno));
}

static int lock(int fd, int cmd, short type, long start, long len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };

	return fcntl(fd, cmd, &fl);
}

/* The state letter of /proc/PID/stat ('S' asleep), or 0. */
static char proc_state(pid_t pid)
{
	char name[64], buf[512], *p;
	int fd;
	long n;

	snprintf(name, sizeof(name), "/proc/%d/stat", pid);
	fd = open(name, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

/* Poll every 10 ms, for up to 20 s, until pid sleeps (in the wait the case gave it). */
static int wait_asleep(pid_t pid)
{
	struct timespec ms = { 0, 10000000 };
	int i;

	for (i = 0; i < 2000; i++) {
		if (proc_state(pid) == 'S')
			return 1;
		nanosleep(&ms, NULL);
	}
	return 0;
}

/* A lock the parent holds: the child's F_GETLK names it, with the parent's pid; F_SETLK is EAGAIN. */
static int test_getlk_sees_the_holder(void)
{
	int fd = open(path, O_RDWR | O_CREAT, 0644), status = -1;
	pid_t pid;

	if (lock(fd, F_SETLK, F_WRLCK, 10, 5) || lock(fd, F_SETLK, F_RDLCK, 20, 0))
		return check(0, "F_SETLK");
	if ((pid = fork()) == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 100 };

		if (fcntl(fd, F_GETLK, &fl) || fl.l_type != F_WRLCK || fl.l_start != 10 || fl.l_len != 5 ||
		    fl.l_pid != getppid())
			_exit(1);
		fl = (struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 20, .l_len = 5 };
		if (fcntl(fd, F_GETLK, &fl) || fl.l_type != F_UNLCK)
			_exit(2);	/* two read locks do not conflict */
		_exit(lock(fd, F_SETLK, F_WRLCK, 12, 1) == -1 && errno == EAGAIN ? 0 : 3);
	}
	waitpid(pid, &status, 0);
	close(fd);
	return status == 0 ? 1 : ktap_fail("child's check %d failed", WEXITSTATUS(status));
}

/* An owner's locks join and split: unlocking the middle of one leaves two. */
static int test_locks_split_and_merge(void)
{
	int fd = open(path, O_RDWR | O_CREAT, 0644), status = -1;
	pid_t pid;

	if (lock(fd, F_SETLK, F_WRLCK, 0, 10) || lock(fd, F_SETLK, F_WRLCK, 10, 10) ||
	    lock(fd, F_SETLK, F_UNLCK, 5, 5))
		return check(0, "F_SETLK");
	if ((pid = fork()) == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };

		if (fcntl(fd, F_GETLK, &fl) || fl.l_start != 0 || fl.l_len != 5)
			_exit(1);
		fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = 0 };
		_exit(fcntl(fd, F_GETLK, &fl) || fl.l_start != 10 || fl.l_len != 10 ? 2 : 0);
	}
	waitpid(pid, &status, 0);
	close(fd);
	return status == 0 ? 1 : ktap_fail("child's check %d failed", WEXITSTATUS(status));
}

/* Two processes each waiting for the other's lock: the second wait is EDEADLK. */
static int test_setlkw_edeadlk(void)
{
	int fd = open(path, O_RDWR | O_CREAT, 0644), p[2], status = -1, r, err;
	char c;
	pid_t pid;

	if (pipe(p) || lock(fd, F_SETLK, F_WRLCK, 0, 1))
		return check(0, "pipe, F_SETLK");
	if ((pid = fork()) == 0) {
		if (lock(fd, F_SETLK, F_WRLCK, 1, 1) || write(p[1], "l", 1) != 1)
			_exit(1);
		_exit(lock(fd, F_SETLKW, F_WRLCK, 0, 1) ? 2 : 0);	/* waits for the parent */
	}
	if (read(p[0], &c, 1) != 1 || !wait_asleep(pid))
		return ktap_fail("the child did not wait for the lock");
	r = lock(fd, F_SETLKW, F_WRLCK, 1, 1);
	err = errno;
	lock(fd, F_SETLK, F_UNLCK, 0, 0);	/* the child gets its lock and goes */
	waitpid(pid, &status, 0);
	close(fd);
	if (r != -1 || err != EDEADLK)
		return ktap_fail("F_SETLKW returned %d, errno %d, expected EDEADLK", r, err);
	return status == 0 ? 1 : ktap_fail("child %#x", status);
}

/* A bad pointer is EFAULT; an unknown type EINVAL; a write lock on a read-only file EBADF. */
static int test_setlk_errors(void)
{
	int fd = open(path, O_RDONLY | O_CREAT, 0644), ok;

	ok = fcntl(fd, F_SETLK, (void *)8) == -1 && errno == EFAULT;
	ok = ok && lock(fd, F_SETLK, 9, 0, 1) == -1 && errno == EINVAL;
	ok = ok && lock(fd, F_SETLK, F_WRLCK, 0, 1) == -1 && errno == EBADF;
	close(fd);
	return check(ok, "EFAULT, EINVAL, EBADF");
}

/* A close of any descriptor of the file drops the process's POSIX locks on it. */
static int test_close_drops_posix_locks(void)
{
	int fd = open(path, O_RDWR | O_CREAT, 0644), fd2 = open(path, O_RDONLY), status = -1;
	pid_t pid;

	if (lock(fd, F_SETLK, F_WRLCK, 0, 0))
		return check(0, "F_SETLK");
	close(fd2);
	if ((pid = fork()) == 0)
		_exit(lock(fd, F_SETLK, F_WRLCK, 0, 0) ? 1 : 0);
	waitpid(pid, &status, 0);
	close(fd);
	return status == 0 ? 1 : ktap_fail("the lock outlived the close");
}

/* OFD locks belong to the open file: two opens in one process conflict; F_OFD_GETLK's pid is -1. */
static int test_ofd_locks(void)
{
	int a = open(path, O_RDWR | O_CREAT, 0644), b = open(path, O_RDWR), ok;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };

	ok = !lock(a, F_OFD_SETLK, F_WRLCK, 0, 1);
	ok = ok && lock(b, F_OFD_SETLK, F_WRLCK, 0, 1) == -1 && errno == EAGAIN;
	ok = ok && !fcntl(b, F_OFD_GETLK, &fl) && fl.l_type == F_WRLCK && fl.l_pid == -1;
	ok = ok && !lock(a, F_SETLK, F_WRLCK, 5, 1) && !lock(b, F_SETLK, F_WRLCK, 5, 1);	/* one owner */
	close(a);
	ok = ok && !lock(b, F_OFD_SETLK, F_WRLCK, 0, 1);
	close(b);
	return check(ok, "F_OFD_SETLK between two opens");
}

/* flock: exclusive between two opens (EWOULDBLOCK), shared with shared, gone with the open file. */
static int test_flock(void)
{
	int a = open(path, O_RDWR | O_CREAT, 0644), b = open(path, O_RDWR), ok;

	ok = !flock(a, LOCK_EX) && flock(b, LOCK_EX | LOCK_NB) == -1 && errno == EWOULDBLOCK;
	ok = ok && !flock(a, LOCK_SH) && !flock(b, LOCK_SH | LOCK_NB);
	ok = ok && !flock(b, LOCK_UN) && flock(a, 0) == -1 && errno == EINVAL;
	close(a);
	ok = ok && !flock(b, LOCK_EX | LOCK_NB);
	close(b);
	return check(ok, "flock");
}

/* F_GETPIPE_SZ is Linux's 64 KiB; F_SETPIPE_SZ rounds up to pages, and the pipe then takes that much. */
static int test_pipe_size(void)
{
	int p[2], size, n = 0;
	char page[4096] = { 0 };

	if (pipe2(p, O_NONBLOCK))
		return check(0, "pipe2");
	if ((size = fcntl(p[1], F_GETPIPE_SZ)) != 65536)
		return ktap_fail("F_GETPIPE_SZ %d", size);
	if ((size = fcntl(p[1], F_SETPIPE_SZ, 5000)) != 8192)
		return ktap_fail("F_SETPIPE_SZ 5000 gave %d, expected 8192", size);
	while (write(p[1], page, sizeof(page)) == sizeof(page))
		n++;
	if (n != 2 || errno != EAGAIN)
		return ktap_fail("%d pages went in", n);
	if (fcntl(p[1], F_SETPIPE_SZ, 4096) != -1 || errno != EBUSY)
		return check(0, "F_SETPIPE_SZ below what the pipe holds is EBUSY");
	return check(fcntl(p[0], F_GETPIPE_SZ) == 8192, "the read end's size");
}

/* A write of at most PIPE_BUF goes in whole or not at all. */
static int test_pipe_buf_atomic(void)
{
	int p[2];
	char buf[8192] = { 0 };

	if (pipe2(p, O_NONBLOCK) || fcntl(p[1], F_SETPIPE_SZ, 8192) != 8192)
		return check(0, "pipe2, F_SETPIPE_SZ");
	if (write(p[1], buf, 5000) != 5000)
		return check(0, "write 5000");
	return check(write(p[1], buf, 4096) == -1 && errno == EAGAIN, "a 4096-byte write with 3192 free");
}

/* pipe2(O_DIRECT): each write a packet, each read one packet, the rest of a long one dropped. */
static int test_pipe_packets(void)
{
	int p[2];
	char buf[16];
	long a, b, c;

	if (pipe2(p, O_DIRECT))
		return check(0, "pipe2(O_DIRECT)");
	if (write(p[1], "abc", 3) != 3 || write(p[1], "defgh", 5) != 5 || write(p[1], "ij", 2) != 2)
		return check(0, "write");
	a = read(p[0], buf, sizeof(buf));
	b = read(p[0], buf, 2);
	c = read(p[0], buf + 2, sizeof(buf) - 2);
	if (a != 3 || b != 2 || c != 2 || memcmp(buf, "deij", 4))
		return ktap_fail("reads %ld %ld %ld \"%.4s\", expected 3 2 2 \"deij\"", a, b, c, buf);
	return 1;
}

static const struct test tests[] = {
	{ "getlk_sees_the_holder", test_getlk_sees_the_holder },
	{ "locks_split_and_merge", test_locks_split_and_merge },
	{ "setlkw_edeadlk", test_setlkw_edeadlk },
	{ "setlk_errors", test_setlk_errors },
	{ "close_drops_posix_locks", test_close_drops_posix_locks },
	{ "ofd_locks", test_ofd_locks },
	{ "flock", test_flock },
	{ "pipe_size", test_pipe_size },
	{ "pipe_buf_atomic", test_pipe_buf_atomic },
	{ "pipe_packets", test_pipe_packets },
};

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	int r;

	snprintf(path, sizeof(path), "%s/glibclock.%d", tmp && *tmp ? tmp : "/tmp", getpid());
	r = run_tests(tests, ARRAY_SIZE(tests));
	unlink(path);
	return r;
}
