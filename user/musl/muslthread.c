/* muslthread: an unmodified static musl program using pthreads: create, join, TLS, mutexes (robust ones too), condition variables, semaphores. */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdint.h>
#include <sys/wait.h>
#include "ktap.h"
#include "threadutil.h"

/*
 * Built with musl-gcc -static (user/libc.mk), it runs as it is on
 * ccos and on Linux. musl's pthread_create is clone(CLONE_VM | CLONE_FS |
 * CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
 * CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID |
 * CLONE_DETACHED) on an mmap'ed stack; pthread_join sleeps on a futex
 * that the kernel clears and wakes when the thread exits; mutexes,
 * condition variables and semaphores sleep in futex(FUTEX_WAIT) and wake
 * with FUTEX_WAKE and FUTEX_REQUEUE. Each case runs in a child process of
 * its own (run_case), so a case's threads die with it. user/musl/muslgroup.c
 * has the process's side: signals, exit, exec.
 */

/* ---- create and join ---- */

struct ids {
	long tid, pid;
	pthread_t self;
};

static __attribute__((noinline)) void leave(long v)
{
	pthread_exit((void *)v);
}

static void *worker_ids(void *arg)
{
	struct ids *id = arg;

	id->tid = gettid_();
	id->pid = getpid();
	id->self = pthread_self();
	if (id->tid & 1)
		leave(id->tid * 10);	/* pthread_exit from deep in the thread */
	return (void *)(id->tid * 10);
}

/* Each thread has its own tid, the process's pid, and returns a value that join sees. */
static int test_create_join(void)
{
	enum { N = 8 };
	pthread_t t[N];
	struct ids id[N];
	int i, j;

	for (i = 0; i < N; i++)
		if ((errno = pthread_create(&t[i], NULL, worker_ids, &id[i])))
			return ktap_fail("pthread_create %d: %s", i, strerror(errno));
	for (i = 0; i < N; i++) {
		void *ret;

		if ((errno = pthread_join(t[i], &ret)))
			return ktap_fail("pthread_join %d: %s", i, strerror(errno));
		if ((long)ret != id[i].tid * 10)
			return ktap_fail("thread %d returned %ld, not %ld", i, (long)ret, id[i].tid * 10);
		if (id[i].pid != getpid() || id[i].tid == getpid() || !pthread_equal(id[i].self, t[i]))
			return ktap_fail("thread %d: pid %ld tid %ld (main: pid %d)", i, id[i].pid,
					 id[i].tid, getpid());
		for (j = 0; j < i; j++)
			if (id[j].tid == id[i].tid)
				return ktap_fail("threads %d and %d share tid %ld", j, i, id[i].tid);
	}
	return gettid_() == getpid() ? 1 : ktap_fail("the main thread's tid %ld is not the pid %d",
						 gettid_(), getpid());
}

/* ---- thread-local storage: each thread its own copy, from the PT_TLS image ---- */

static __thread int tls_value = 0x5eed;
static __thread char tls_zero[128];

static void *worker_tls(void *arg)
{
	int i;

	for (i = 0; i < (int)sizeof(tls_zero); i++)
		if (tls_zero[i])
			return (void *)1;
	if (tls_value != 0x5eed)
		return (void *)2;
	tls_value = (int)(long)arg;
	sched_yield();
	if (tls_value != (int)(long)arg)
		return (void *)3;
	return &tls_value;
}

static int test_tls(void)
{
	pthread_t t[4];
	void *ret[4];
	int i;

	tls_value = 1;
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker_tls, (void *)(long)(100 + i));
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], &ret[i]);
		if ((uintptr_t)ret[i] < 4096)
			return ktap_fail("thread %d: TLS check %ld failed", i, (long)ret[i]);
		if (ret[i] == &tls_value)
			return ktap_fail("thread %d's tls_value is the main thread's", i);
	}
	return tls_value == 1 ? 1 : ktap_fail("the main thread's tls_value became %d", tls_value);
}

/* ---- mutexes and condition variables ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

/* Some yields while holding the lock, so that the others sleep on it in the kernel. */
static void *worker_count(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < 20000; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		if (i % 2000 == 0)
			sched_yield();
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static int test_mutex(void)
{
	pthread_t t[4];
	int i;

	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker_count, NULL);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return counter == 80000 ? 1 : ktap_fail("counter %ld, not 80000", counter);
}

/* A bounded queue: producers wait while it is full, consumers while it is empty. */
enum { QSIZE = 4, ITEMS = 500 };
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static long queue[QSIZE], qhead, qlen, consumed_sum, consumed_n;

static void *producer(void *arg)
{
	long i;

	for (i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&lock);
		while (qlen == QSIZE)
			pthread_cond_wait(&not_full, &lock);
		queue[(qhead + qlen++) % QSIZE] = i * (long)arg;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (consumed_n < 2 * ITEMS) {
		if (!qlen) {
			pthread_cond_wait(&not_empty, &lock);
			continue;
		}
		consumed_sum += queue[qhead];
		qhead = (qhead + 1) % QSIZE;
		qlen--;
		consumed_n++;
		pthread_cond_broadcast(&not_full);
		if (consumed_n == 2 * ITEMS)
			pthread_cond_broadcast(&not_empty);	/* the other consumer: done */
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static int test_condvar(void)
{
	pthread_t t[4];
	long want = (1 + 2) * (long)ITEMS * (ITEMS + 1) / 2;
	int i;

	pthread_create(&t[0], NULL, consumer, NULL);
	pthread_create(&t[1], NULL, consumer, NULL);
	pthread_create(&t[2], NULL, producer, (void *)1);
	pthread_create(&t[3], NULL, producer, (void *)2);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	if (consumed_n != 2 * ITEMS || consumed_sum != want)
		return ktap_fail("consumed %ld items summing to %ld, not %d and %ld", consumed_n,
				 consumed_sum, 2 * ITEMS, want);
	return 1;
}

/* pthread_cond_timedwait with nobody to signal: ETIMEDOUT, after the time. */
static int test_cond_timeout(void)
{
	struct timespec t0, at;
	long ms;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_REALTIME, &at);
	at.tv_nsec += 50 * 1000000;
	if (at.tv_nsec >= 1000000000) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lock);
	r = pthread_cond_timedwait(&not_empty, &lock, &at);
	pthread_mutex_unlock(&lock);
	ms = elapsed_ms(&t0);
	if (r != ETIMEDOUT)
		return ktap_fail("pthread_cond_timedwait returned %d, not ETIMEDOUT", r);
	return ms >= 45 && ms < 2000 ? 1 : ktap_fail("timed out after %ld ms, not 50", ms);
}

/* ---- detached threads, semaphores ---- */

static sem_t sem;

static void *worker_post(void *arg)
{
	(void)arg;
	sem_post(&sem);
	return NULL;
}

static int test_detached(void)
{
	pthread_attr_t a;
	pthread_t t;
	int i;

	sem_init(&sem, 0, 0);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	for (i = 0; i < 20; i++)
		if ((errno = pthread_create(&t, &a, worker_post, NULL)))
			return ktap_fail("pthread_create %d: %s", i, strerror(errno));
	for (i = 0; i < 20; i++)
		sem_wait(&sem);
	return 1;
}

static void *worker_fork(void *arg)
{
	int status;
	pid_t pid = fork();

	(void)arg;
	if (pid == 0)
		_exit(getpid() == gettid_() ? 5 : 6);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return (void *)-1;
	return (void *)(long)status;
}

/* A thread forks: the child is a process of one thread; the thread waits for it. */
static int test_fork_from_thread(void)
{
	pthread_t t;
	void *status;

	pthread_create(&t, NULL, worker_fork, NULL);
	pthread_join(t, &status);
	return WIFEXITED((long)status) && WEXITSTATUS((long)status) == 5 ? 1 :
	       ktap_fail("the child's wait status %#lx, not exit 5", (long)status);
}

/* ---- what threads share besides memory: descriptors, directory, umask ---- */

static int shared_fds[2];

static void *worker_share(void *arg)
{
	(void)arg;
	if (pipe2(shared_fds, O_CLOEXEC) || chdir("/tmp"))
		return (void *)1;
	umask(077);
	return NULL;
}

/* A thread's pipe2, chdir and umask are the process's (CLONE_FILES, CLONE_FS). */
static int test_share_files_fs(void)
{
	pthread_t t;
	void *ret;
	char cwd[64], c = 0;

	umask(022);
	pthread_create(&t, NULL, worker_share, NULL);
	pthread_join(t, &ret);
	if (ret)
		return ktap_fail("pipe2 or chdir in the thread failed");
	if (write(shared_fds[1], "x", 1) != 1 || read(shared_fds[0], &c, 1) != 1 || c != 'x')
		return ktap_fail("the thread's pipe does not work from the main thread");
	if (fcntl(shared_fds[0], F_GETFD) != FD_CLOEXEC)
		return ktap_fail("the thread's O_CLOEXEC is not seen by the main thread");
	if (!getcwd(cwd, sizeof(cwd)) || strcmp(cwd, "/tmp"))
		return ktap_fail("the main thread's directory is %s after the thread's chdir(/tmp)", cwd);
	if (umask(022) != 077)
		return ktap_fail("the thread's umask(077) is not the main thread's");
	return 1;
}

/* ---- robust mutexes: an owner that dies holding one ---- */

static pthread_mutex_t robust;
static volatile int robust_held;

/*
 * The owner takes the mutex, holds it a while (ms), and ends with the exit
 * system call itself: musl's pthread_exit would give the mutex up in user
 * mode, walking its own list, so only the kernel's walk of the robust list
 * (set_robust_list) can mark it now. musl hands the kernel only its
 * process-shared robust mutexes, and Linux's wake at a death is a shared
 * one: so PTHREAD_PROCESS_SHARED.
 */
static void *robust_owner(void *arg)
{
	pthread_mutex_lock(&robust);
	robust_held = 1;
	sleep_ms((long)arg);
	syscall(SYS_exit, 0);
	return NULL;
}

/* The next locker gets EOWNERDEAD, makes it consistent, and the mutex works again. */
static int recover(int r, const char *how)
{
	if (r != EOWNERDEAD)
		return ktap_fail("%s after its owner died: %s, not EOWNERDEAD", how, strerror(r));
	if ((r = pthread_mutex_consistent(&robust)) || (r = pthread_mutex_unlock(&robust)) ||
	    (r = pthread_mutex_lock(&robust)) || (r = pthread_mutex_unlock(&robust)))
		return ktap_fail("consistent, unlock, lock, unlock after EOWNERDEAD: %s", strerror(r));
	return 1;
}

/* A thread that dies owning it; robust_held says when it holds it. */
static void robust_start(long hold_ms)
{
	pthread_mutexattr_t a;
	pthread_t t;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&robust, &a);
	robust_held = 0;
	pthread_create(&t, NULL, robust_owner, (void *)hold_ms);
	while (!robust_held)
		sched_yield();
}

/*
 * First a locker asleep in the kernel when the owner dies (FUTEX_WAITERS:
 * the kernel must wake it), then one that finds the mutex after the death
 * (trylock is EBUSY while the owner lives). Without the kernel's walk the
 * first times out and the second stays EBUSY.
 */
static int test_robust_mutex(void)
{
	struct timespec until;
	int r, i;

	robust_start(100);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	if (!recover(pthread_mutex_timedlock(&robust, &until), "a lock asleep on it"))
		return 0;
	robust_start(0);
	for (i = 0; i < 500 && (r = pthread_mutex_trylock(&robust)) == EBUSY; i++)
		sleep_ms(10);
	return recover(r, "trylock");
}

/*
 * The kernel trusts nothing of the list. A thread sets its own and exits
 * without musl: its one entry, whose word it owns, leads on to a pointer
 * into the kernel's half (the walk must stop there), or to itself, never
 * back to the head (the walk must stop after Linux's 2048 entries). Either
 * way the word is marked first.
 */
struct bad_list {
	void *entry[2];		/* next, and the owner's lock word after it */
	long head[3];		/* next, futex_offset, list_op_pending */
};

static void *bad_list_owner(void *arg)
{
	struct bad_list *l = arg;
	uint32_t *word = (uint32_t *)&l->entry[1];

	l->head[0] = (long)l->entry;
	l->head[1] = (char *)word - (char *)l->entry;
	__atomic_store_n(word, gettid_(), __ATOMIC_SEQ_CST);
	syscall(SYS_set_robust_list, l->head, sizeof(l->head));
	syscall(SYS_exit, 0);
	return NULL;
}

static int test_robust_bad_lists(void)
{
	static struct bad_list lists[2] = {
		{ .entry = { (void *)0xffffffff80000000ul } },	/* into the kernel */
		{ .entry = { &lists[1].entry } },		/* itself */
	};
	pthread_t t;
	uint32_t w = 0;
	int i, n;

	for (n = 0; n < 2; n++) {
		uint32_t *word = (uint32_t *)&lists[n].entry[1];

		pthread_create(&t, NULL, bad_list_owner, &lists[n]);
		for (i = 0; i < 500 && !((w = __atomic_load_n(word, __ATOMIC_SEQ_CST)) & 0x40000000);
		     i++)
			sleep_ms(10);
		if (w != 0x40000000)
			return ktap_fail("%s: the owner's word is %#x, not FUTEX_OWNER_DIED (0x40000000)",
					 n ? "a list that loops" : "a list into the kernel", w);
	}
	return 1;
}

static const struct test tests[] = {
	{ "create_join_return_value", test_create_join },
	{ "thread_local_storage", test_tls },
	{ "mutex_counter", test_mutex },
	{ "condvar_producer_consumer", test_condvar },
	{ "cond_timedwait_timeout", test_cond_timeout },
	{ "detached_threads_semaphore", test_detached },
	{ "fork_from_thread", test_fork_from_thread },
	{ "files_directory_umask_shared", test_share_files_fs },
	{ "robust_mutex_owner_dies_eownerdead", test_robust_mutex },
	{ "robust_list_looping_or_kernel_ends_walk", test_robust_bad_lists },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
