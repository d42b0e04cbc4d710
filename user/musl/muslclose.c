/* muslclose: a descriptor closed or replaced by one thread while another thread's call sleeps on it. */
#define _GNU_SOURCE
#include <pthread.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include "ktap.h"
#include "threadutil.h"

/*
 * The open file, not the descriptor, is what a call works on: Linux takes
 * a reference to the file for the length of every call (fdget), so close
 * and dup2 only take the name away. A kernel that looks the file up
 * without one frees it under the sleeping call, which then works on freed
 * memory: in ccos before issue 28, sendfile called through a function
 * pointer the closing thread wrote, and a pipe reader returned another
 * process's bytes.
 */

struct sleeper {
	int fd, in;		/* read(fd) or sendfile(fd, in) */
	size_t len;
	char buf[256];
	long tid, result;
	int err;
};

static void *sleeper_read(void *arg)
{
	struct sleeper *s = arg;

	__atomic_store_n(&s->tid, gettid_(), __ATOMIC_SEQ_CST);
	s->result = read(s->fd, s->buf, s->len);
	s->err = errno;
	return NULL;
}

static void *sleeper_sendfile(void *arg)
{
	struct sleeper *s = arg;

	__atomic_store_n(&s->tid, gettid_(), __ATOMIC_SEQ_CST);
	s->result = sendfile(s->fd, s->in, NULL, s->len);
	s->err = errno;
	return NULL;
}

/* The state letter of /proc/TID/stat ("TID (comm) S ..."), or 0. */
static char thread_state(long tid)
{
	char path[64], line[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", tid);
	if (!(f = fopen(path, "r")))
		return 0;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Start fn on s and wait until the thread sleeps in its call: 1, or 0 after 20 s. */
static int start_sleeper(pthread_t *t, void *(*fn)(void *), struct sleeper *s)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	s->tid = 0;
	if (pthread_create(t, NULL, fn, s))
		return 0;
	while (!__atomic_load_n(&s->tid, __ATOMIC_SEQ_CST) || thread_state(s->tid) != 'S') {
		if (elapsed_ms(&t0) > 20000)
			return 0;
		sched_yield();
	}
	return 1;
}

/* Fill pipe p until a write would block; the bytes written. */
static long fill_pipe(int p[2])
{
	static char junk[4096];
	long total = 0, n;

	fcntl(p[1], F_SETFL, O_NONBLOCK);
	while ((n = write(p[1], junk, sizeof(junk))) > 0)
		total += n;
	fcntl(p[1], F_SETFL, 0);
	return total;
}

/* Many allocations of the size a struct file was, to take its freed memory. */
static void reuse_freed_memory(void)
{
	char name[64];
	int i;

	for (i = 0; i < 32; i++) {
		snprintf(name, sizeof(name), "/tmp/muslclose-%02d-%s", i, "AAAAAAAAAAAAAAAAAAAAAAAA");
		mkdir(name, 0700);
	}
	for (i = 0; i < 32; i++) {
		snprintf(name, sizeof(name), "/tmp/muslclose-%02d-%s", i, "AAAAAAAAAAAAAAAAAAAAAAAA");
		rmdir(name);
	}
}

/*
 * Issue 28's first case: sendfile from a /tmp file into a full pipe
 * sleeps; another thread closes the file's only descriptor, allocates
 * over it, and drains the pipe. sendfile must go on with the file it
 * started with: all 65,536 bytes, the file's own.
 */
static int test_sendfile_input_closed(void)
{
	enum { LEN = 65536 };
	static char data[LEN], got[4 * LEN];
	struct sleeper s = { .len = LEN };
	int p[2], fd, i;
	long full, n, done = 0;
	pthread_t t;

	for (i = 0; i < LEN; i++)
		data[i] = 'a' + i % 23;
	fd = open("/tmp/muslclose-src", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, LEN) != LEN || lseek(fd, 0, SEEK_SET) != 0 || pipe(p))
		return ktap_fail("setting up: %s", strerror(errno));
	unlink("/tmp/muslclose-src");
	if ((full = fill_pipe(p)) > 3 * LEN)
		return ktap_fail("a pipe of %ld bytes: more than this test's buffer", full);
	s.fd = p[1];
	s.in = fd;
	if (!start_sleeper(&t, sleeper_sendfile, &s))
		return ktap_fail("sendfile into a full pipe did not sleep");
	close(fd);
	reuse_freed_memory();
	while (done < full + LEN && (n = read(p[0], got + done, full + LEN - done)) > 0)
		done += n;
	pthread_join(t, NULL);
	if (s.result != LEN)
		return ktap_fail("sendfile returned %ld (%s), expected %d", s.result,
				 s.result < 0 ? strerror(s.err) : "bytes", LEN);
	if (done != full + LEN || memcmp(got + full, data, LEN))
		return ktap_fail("the pipe held %ld bytes after the %ld of filler, not the file's %d",
				 done - full, full, LEN);
	return 1;
}

/*
 * A reader asleep on an empty pipe whose both ends another thread closes:
 * its read holds the pipe, which sees no writer left: end of file (0).
 * Meanwhile a new pipe, whose memory may be the old one's, must keep its
 * own bytes: the reader must not return them or move them.
 */
static int test_pipe_both_ends_closed(void)
{
	static const char msg[] = "fifty-one bytes that belong to the second pipe only";
	struct sleeper s = { .len = sizeof(s.buf) };
	char got[sizeof(msg)];
	int p[2], q[2];
	pthread_t t;

	if (pipe(p))
		return ktap_fail("pipe: %s", strerror(errno));
	s.fd = p[0];
	if (!start_sleeper(&t, sleeper_read, &s))
		return ktap_fail("read of an empty pipe did not sleep");
	close(p[0]);
	close(p[1]);
	if (pipe(q) || write(q[1], msg, sizeof(msg) - 1) != sizeof(msg) - 1)
		return ktap_fail("the second pipe: %s", strerror(errno));
	pthread_join(t, NULL);
	if (s.result != 0)
		return ktap_fail("the reader returned %ld, expected 0 (end of file)", s.result);
	if (read(q[0], got, sizeof(got)) != sizeof(msg) - 1 || memcmp(got, msg, sizeof(msg) - 1))
		return ktap_fail("the second pipe lost its bytes");
	return 1;
}

/*
 * dup2 over a descriptor another thread is reading: the reader keeps the
 * pipe it started on, and gets what is written to that pipe.
 */
static int test_dup2_over_fd_in_use(void)
{
	struct sleeper s = { .len = 5 };
	int p[2], other;
	pthread_t t;

	if (pipe(p) || (other = open("/dev/null", O_RDONLY)) < 0)
		return ktap_fail("setting up: %s", strerror(errno));
	s.fd = p[0];
	if (!start_sleeper(&t, sleeper_read, &s))
		return ktap_fail("read of an empty pipe did not sleep");
	if (dup2(other, p[0]) != p[0])
		return ktap_fail("dup2: %s", strerror(errno));
	if (write(p[1], "hello", 5) != 5)
		return ktap_fail("write: %s", strerror(errno));
	pthread_join(t, NULL);
	if (s.result != 5 || memcmp(s.buf, "hello", 5))
		return ktap_fail("the reader returned %ld, expected the pipe's 5 bytes", s.result);
	return 1;
}

int main(void)
{
	static const struct test cases[] = {
		{ "sendfile_input_closed_while_asleep", test_sendfile_input_closed },
		{ "pipe_both_ends_closed_while_read_asleep", test_pipe_both_ends_closed },
		{ "dup2_over_fd_in_use", test_dup2_over_fd_in_use },
	};

	return run_tests(cases, ARRAY_SIZE(cases));
}
