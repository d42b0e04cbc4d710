/* muslrobust: process-shared robust mutexes, plain and PI, whose owning process exits, execs or loses its last thread. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ktap.h"
#include "threadutil.h"

/*
 * A mutex with PTHREAD_PROCESS_SHARED and PTHREAD_MUTEX_ROBUST in a
 * MAP_SHARED page: a child process takes it and leaves it held, by
 * exiting, by exec, or by the exit of its last thread. As on Linux, the
 * kernel walks the robust list of every thread that exits or execs (the
 * child's only thread too), so the parent's lock answers EOWNERDEAD, and
 * a parent already asleep on it is woken. Each case has a PI twin
 * (PTHREAD_PRIO_INHERIT), whose word the kernel marks the same way.
 */

static char **g_argv;
static int pi;			/* this case's mutexes are PI ones */

static pthread_mutex_t *shared_mutex(void)
{
	pthread_mutex_t *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				  -1, 0);
	pthread_mutexattr_t a;

	if (m == MAP_FAILED)
		return NULL;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (pi)
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	if (pthread_mutex_init(m, &a)) {
		munmap(m, 4096);
		return NULL;
	}
	return m;
}

/* The lock of a mutex whose owner is gone: EOWNERDEAD, then consistent, and it works again. */
static int recovered(pthread_mutex_t *m, const char *how)
{
	struct timespec until;
	int r;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	if ((r = pthread_mutex_timedlock(m, &until)) != EOWNERDEAD)
		return ktap_fail("%s: pthread_mutex_timedlock gave %s, not EOWNERDEAD", how, strerror(r));
	if ((r = pthread_mutex_consistent(m)) || (r = pthread_mutex_unlock(m)) ||
	    (r = pthread_mutex_lock(m)) || (r = pthread_mutex_unlock(m)))
		return ktap_fail("%s: consistent, unlock, lock, unlock: %s", how, strerror(r));
	return 1;
}

static int reaped(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return ktap_fail("waitpid: %s", strerror(errno));
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 1 :
	       ktap_fail("the owner's wait status %#x, not exit 0", status);
}

/* The state letter of pid in /proc/PID/stat, or 0. */
static char state_of(pid_t pid)
{
	char path[64], buf[256], *paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] ? paren[2] : 0;
}

/*
 * The owner dies with the parent asleep on the mutex: the kernel wakes it.
 * The page's word after the mutex says when the parent is about to lock.
 */
static int test_exit_with_a_waiter(void)
{
	pthread_mutex_t *m = shared_mutex();
	volatile int *step = (volatile int *)(m + 1);
	pid_t parent = getpid(), pid;
	int ok, i;

	if (!m)
		return ktap_fail("mmap or pthread_mutex_init failed");
	if ((pid = fork()) == 0) {
		if (pthread_mutex_lock(m))
			_exit(1);
		*step = 1;
		while (*step != 2)
			sched_yield();
		for (i = 0; i < 2000 && state_of(parent) != 'S'; i++)
			sleep_ms(1);
		_exit(0);
	}
	while (*step != 1)
		sched_yield();
	*step = 2;
	ok = recovered(m, "asleep on it as its owner exits");
	return reaped(pid) && ok;
}

/* The owner exits holding it, then the parent locks it. */
static int test_exit_then_lock(void)
{
	pthread_mutex_t *m = shared_mutex();
	pid_t pid;

	if (!m)
		return ktap_fail("mmap or pthread_mutex_init failed");
	if ((pid = fork()) == 0)
		_exit(pthread_mutex_lock(m) ? 1 : 0);
	return reaped(pid) && recovered(m, "after its owner exited");
}

/*
 * The owner execs holding it: the new program lives on (it waits for the
 * end of the pipe it is given), and the word is marked at the exec, as the
 * list was the old program's. The close-on-exec pipe tells the parent the
 * exec happened.
 */
static int test_exec_then_lock(void)
{
	pthread_mutex_t *m = shared_mutex();
	int done[2], hold[2], ok;
	char fd[16], c;
	pid_t pid;

	if (!m || pipe2(done, O_CLOEXEC) || pipe(hold))
		return ktap_fail("mmap, pthread_mutex_init or pipe failed");
	if ((pid = fork()) == 0) {
		char *argv[] = { g_argv[0], "hold", fd, NULL };

		close(done[0]);
		close(hold[1]);
		snprintf(fd, sizeof(fd), "%d", hold[0]);
		if (pthread_mutex_lock(m))
			_exit(1);
		execv(g_argv[0], argv);
		_exit(2);
	}
	close(done[1]);
	close(hold[0]);
	if (read(done[0], &c, 1) != 0)
		return ktap_fail("the close-on-exec pipe did not end at the exec");
	ok = recovered(m, "after its owner's exec");
	close(hold[1]);
	return reaped(pid) && ok;
}

/* The new program of the exec case: it waits for the parent to close its pipe. */
static int hold(const char *fd)
{
	char c;

	return read(atoi(fd), &c, 1) == 0 ? 0 : 3;
}

static int main_gone = 1;	/* cleared by the kernel when the main thread exits (set_tid_address) */
static pthread_mutex_t *last_mutex;

static void *last_thread(void *arg)
{
	(void)arg;
	if (pthread_mutex_lock(last_mutex))
		syscall(SYS_exit_group, 1);
	__atomic_store_n(&main_gone, 2, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&main_gone, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &main_gone, 0 /* FUTEX_WAIT */, 2, NULL, NULL, 0);
	syscall(SYS_exit, 0);	/* the last thread: the process ends with it */
	return NULL;
}

/*
 * A thread of the owner's process takes it; the main thread leaves first
 * (the exit system call, its thread alone), and then the holder, the last
 * thread, exits.
 */
static int test_last_thread_exits(void)
{
	pthread_mutex_t *m = shared_mutex();
	pthread_t t;
	pid_t pid;

	if (!m)
		return ktap_fail("mmap or pthread_mutex_init failed");
	if ((pid = fork()) == 0) {
		last_mutex = m;
		if (pthread_create(&t, NULL, last_thread, NULL))
			_exit(1);
		while (__atomic_load_n(&main_gone, __ATOMIC_SEQ_CST) != 2)
			sched_yield();
		syscall(SYS_set_tid_address, &main_gone);
		syscall(SYS_exit, 0);
	}
	return reaped(pid) && recovered(m, "after the exit of its process's last thread");
}

static int test_pi_exit_with_a_waiter(void) { pi = 1; return test_exit_with_a_waiter(); }
static int test_pi_exit_then_lock(void) { pi = 1; return test_exit_then_lock(); }
static int test_pi_exec_then_lock(void) { pi = 1; return test_exec_then_lock(); }
static int test_pi_last_thread_exits(void) { pi = 1; return test_last_thread_exits(); }

static const struct test tests[] = {
	{ "exit_with_a_waiter", test_exit_with_a_waiter },
	{ "exit_then_lock", test_exit_then_lock },
	{ "exec_then_lock", test_exec_then_lock },
	{ "last_thread_exits", test_last_thread_exits },
	{ "pi_exit_with_a_waiter", test_pi_exit_with_a_waiter },
	{ "pi_exit_then_lock", test_pi_exit_then_lock },
	{ "pi_exec_then_lock", test_pi_exec_then_lock },
	{ "pi_last_thread_exits", test_pi_last_thread_exits },
};

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(argv[2]);
	g_argv = argv;
	return run_tests(tests, ARRAY_SIZE(tests));
}
