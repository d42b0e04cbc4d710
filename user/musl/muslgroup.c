/* muslgroup: an unmodified static musl program: a process's threads as a group: signals, exit, wait4, exec, /proc. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include "ktap.h"
#include "threadutil.h"

/*
 * Built with musl-gcc -static, it runs as it is on ccos and on Linux: the
 * threads of a process as a group. A signal to the process goes to a
 * thread that does not block it, or waits for the first to unblock it;
 * pthread_kill and tgkill to one thread;
 * exit from any thread ends them all, the main thread's pthread_exit only
 * itself; wait4 sees the process when its last thread ends; exec from a
 * thread leaves one thread with the process's pid. Each case runs in a
 * child process of its own (run_case).
 */

static char **g_argv;
static sem_t sem;

/* ---- signals: to the process, to one thread ---- */

static volatile long handled_tid;

static void on_signal(int sig)
{
	(void)sig;
	handled_tid = gettid_();
	sem_post(&sem);
}

static void *worker_wait(void *arg)
{
	long *tid = arg;

	*tid = gettid_();
	sem_post(&sem);
	for (;;)
		pause();
	return NULL;
}

/* Start n threads that wait in pause() with sig unblocked; their tids. */
static void start_waiters(pthread_t *t, long *tids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker_wait, &tids[i]);
	for (i = 0; i < n; i++)
		sem_wait(&sem);
}

/* kill() to the process: the main thread blocks SIGUSR1, so a thread that does not takes it. */
static int test_signal_to_process(void)
{
	pthread_t t;
	long tid;
	sigset_t set;

	sem_init(&sem, 0, 0);
	signal(SIGUSR1, on_signal);
	start_waiters(&t, &tid, 1);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGUSR1);
	while (sem_wait(&sem))
		;
	return handled_tid == tid ? 1 : ktap_fail("SIGUSR1 handled by tid %ld, not the thread %ld "
						  "that does not block it", handled_tid, tid);
}

/* pthread_kill (tkill) and tgkill reach the one thread named, and only in its process. */
static int test_signal_to_thread(void)
{
	pthread_t t[3];
	long tids[3];

	sem_init(&sem, 0, 0);
	signal(SIGUSR2, on_signal);
	start_waiters(t, tids, 3);
	pthread_kill(t[1], SIGUSR2);
	while (sem_wait(&sem))
		;
	if (handled_tid != tids[1])
		return ktap_fail("pthread_kill: handled by tid %ld, not %ld", handled_tid, tids[1]);
	if (syscall(SYS_tgkill, getpid(), tids[2], SIGUSR2))
		return ktap_fail("tgkill(pid, tid, SIGUSR2): %s", strerror(errno));
	while (sem_wait(&sem))
		;
	if (handled_tid != tids[2])
		return ktap_fail("tgkill: handled by tid %ld, not %ld", handled_tid, tids[2]);
	if (syscall(SYS_tgkill, getppid(), tids[2], 0) != -1 || errno != ESRCH)
		return ktap_fail("tgkill with another process's id did not fail with ESRCH");
	return 1;
}

static void *worker_unblocked(void *arg)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	return worker_wait(arg);
}

/*
 * kill() with a thread's id is for its whole process: the thread named
 * blocks SIGUSR1, so another thread, which does not, takes it.
 */
static int test_kill_tid(void)
{
	pthread_t t[2];
	long tids[2];
	sigset_t set;

	sem_init(&sem, 0, 0);
	signal(SIGUSR1, on_signal);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_create(&t[0], NULL, worker_wait, &tids[0]);
	pthread_create(&t[1], NULL, worker_unblocked, &tids[1]);
	sem_wait(&sem);
	sem_wait(&sem);
	if (kill(tids[0], SIGUSR1))
		return ktap_fail("kill(tid, SIGUSR1): %s", strerror(errno));
	while (sem_wait(&sem))
		;
	return handled_tid == tids[1] ? 1 : ktap_fail("SIGUSR1 to tid %ld handled by tid %ld, not by "
						      "%ld, the one thread that does not block it",
						      tids[0], handled_tid, tids[1]);
}

static sem_t go;
static volatile int taker_saw_it;

static int usr1_pending(void)
{
	sigset_t set;

	return !sigpending(&set) && sigismember(&set, SIGUSR1);
}

/* Blocking SIGUSR1 (from its creator), it waits for go, looks, then unblocks it. */
static void *worker_takes_later(void *arg)
{
	sigset_t set;

	*(long *)arg = gettid_();
	while (sem_wait(&go))
		;
	taker_saw_it = usr1_pending();
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);	/* the handler runs here */
	return NULL;
}

/*
 * A signal to the process that every thread blocks waits for the process,
 * not for one thread: rt_sigpending shows it in both, and the thread that
 * unblocks it first takes it, although kill named the main thread.
 */
static int test_process_pending(void)
{
	struct timespec until;
	pthread_t t;
	long tid = 0;
	sigset_t set;
	int main_saw_it, r;

	sem_init(&sem, 0, 0);
	sem_init(&go, 0, 0);
	signal(SIGUSR1, on_signal);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_create(&t, NULL, worker_takes_later, &tid);
	kill(getpid(), SIGUSR1);
	main_saw_it = usr1_pending();
	sem_post(&go);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	while ((r = sem_timedwait(&sem, &until)) && errno == EINTR)
		;
	pthread_join(t, NULL);
	if (!main_saw_it || !taker_saw_it)
		return ktap_fail("rt_sigpending after kill: SIGUSR1 %s in the main thread, %s in the other",
				 main_saw_it ? "seen" : "not seen", taker_saw_it ? "seen" : "not seen");
	if (r)
		return ktap_fail("the thread that unblocked SIGUSR1 did not take it in 5 s");
	if (handled_tid != tid)
		return ktap_fail("SIGUSR1 handled by tid %ld, not %ld, which unblocked it", handled_tid, tid);
	return usr1_pending() ? ktap_fail("SIGUSR1 still pending in the main thread once taken") : 1;
}

static void *worker_kills_later(void *arg)
{
	(void)arg;
	sleep_ms(50);
	kill(getpid(), SIGUSR2);
	return NULL;
}

/*
 * sigtimedwait takes a blocked signal without its handler: one already
 * pending (raise: tkill), one that another thread sends to the process
 * while it waits (with a timeout too long to count in nanoseconds, which
 * waits as long as needed), a SIGCHLD whose default is to ignore it;
 * nothing within the timeout is EAGAIN.
 */
static int test_sigtimedwait(void)
{
	struct timespec t0, zero = { 0, 0 }, five = { 5, 0 }, short_ = { 0, 50000000 };
	struct timespec endless = { LONG_MAX, 999999999 };
	siginfo_t si;
	sigset_t set;
	pthread_t t;
	long ms;
	int r;

	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR1);
	if ((r = sigtimedwait(&set, &si, &zero)) != SIGUSR1 || si.si_signo != SIGUSR1 ||
	    si.si_code != SI_TKILL)
		return ktap_fail("sigtimedwait after raise(SIGUSR1): %d, si_signo %d, si_code %d", r,
				 si.si_signo, si.si_code);
	pthread_create(&t, NULL, worker_kills_later, NULL);
	r = sigtimedwait(&set, &si, &endless);
	pthread_join(t, NULL);
	if (r != SIGUSR2 || si.si_code != SI_USER || si.si_pid != getpid())
		return ktap_fail("sigtimedwait for a thread's kill(SIGUSR2): %d, si_code %d, si_pid %d",
				 r, si.si_code, si.si_pid);
	if (fork() == 0)
		_exit(5);
	if ((r = sigtimedwait(&set, &si, &five)) != SIGCHLD || si.si_status != 5)
		return ktap_fail("sigtimedwait for SIGCHLD: %d, si_status %d", r, si.si_status);
	wait(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = sigtimedwait(&set, &si, &short_);
	ms = elapsed_ms(&t0);
	if (r != -1 || errno != EAGAIN || ms < 40)
		return ktap_fail("sigtimedwait with nothing sent: %d (%s) after %ld ms, not EAGAIN after 50",
				 r, strerror(errno), ms);
	return handled_tid ? ktap_fail("a handler ran for a signal sigtimedwait took") : 1;
}

/* ---- exit: one thread vs the process; wait4; exec ---- */

/* Run body in a child process and return its wait status (-1 on failure). */
static int in_child(void (*body)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		body();
		_exit(100);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static void *worker_exit7(void *arg)
{
	(void)arg;
	sleep_ms(20);
	exit(7);		/* exit_group: the whole process */
}

static void *worker_sleep(void *arg)
{
	(void)arg;
	for (;;)
		sleep_ms(10000);
	return NULL;
}

static void body_exit_group(void)
{
	pthread_t t;
	int i;

	for (i = 0; i < 3; i++)
		pthread_create(&t, NULL, worker_sleep, NULL);
	pthread_create(&t, NULL, worker_exit7, NULL);
	pthread_join(t, NULL);	/* never returns: exit(7) ends every thread */
}

static int test_exit_group(void)
{
	struct timespec t0;
	int status;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	status = in_child(body_exit_group);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 7)
		return ktap_fail("wait status %#x, not exit 7", status);
	/* Ended at once, not at their next wake-up 10 s on (5 s: room for a busy host). */
	return elapsed_ms(&t0) < 5000 ? 1 : ktap_fail("took %ld ms: sleeping threads were not ended",
						      elapsed_ms(&t0));
}

static int pipefd[2], gofd[2];

/* The last thread: it waits for the parent's word, then writes and ends the process. */
static void *worker_late(void *arg)
{
	char c;

	(void)arg;
	read(gofd[0], &c, 1);
	write(pipefd[1], "w", 1);
	exit(9);
}

static long threads_of(pid_t pid);

/*
 * Whether the main thread of pid has ended: Linux keeps it as a zombie
 * (state Z in /proc/PID/stat) until the last thread goes, and counts it
 * in Threads: till then; ccos counts only the live ones.
 */
static int main_thread_gone(pid_t pid)
{
	char file[64], line[256], *p;
	FILE *f;
	int zombie = 0;

	snprintf(file, sizeof(file), "/proc/%d/stat", (int)pid);
	if ((f = fopen(file, "r"))) {
		if (fgets(line, sizeof(line), f) && (p = strrchr(line, ')')))
			zombie = p[1] == ' ' && p[2] == 'Z';
		fclose(f);
	}
	return zombie || threads_of(pid) == 1;
}

/*
 * The main thread ends (pthread_exit) while another waits on: the process
 * lives, kill(pid, 0) finds it, and wait4 reports it only when the last
 * thread has gone, with that thread's exit status.
 */
static int test_main_exits_first(void)
{
	pthread_t t;
	char c;
	int status, i;
	pid_t pid;

	if (pipe(pipefd) || pipe(gofd))
		return ktap_fail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		pthread_create(&t, NULL, worker_late, NULL);
		pthread_exit(NULL);
	}
	for (i = 0; i < 2000 && !main_thread_gone(pid); i++)
		sleep_ms(10);
	if (!main_thread_gone(pid))
		return ktap_fail("the child's main thread has not ended after 20 s");
	if (waitpid(pid, &status, WNOHANG) != 0)
		return ktap_fail("wait4 reported the process while a thread still ran");
	if (kill(pid, 0))
		return ktap_fail("kill(pid, 0) after the main thread's exit: %s", strerror(errno));
	write(gofd[1], "g", 1);
	if (waitpid(pid, &status, 0) != pid)
		return ktap_fail("waitpid: %s", strerror(errno));
	if (read(pipefd[0], &c, 1) != 1)
		return ktap_fail("the last thread did not write before the process was reaped");
	return WIFEXITED(status) && WEXITSTATUS(status) == 9 ? 1 :
	       ktap_fail("wait status %#x, not exit 9", status);
}

/* The Threads: line of /proc/PID/status, or -1. */
static long threads_of(pid_t pid)
{
	char file[64], line[128];
	long v = -1;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/status", (int)pid);
	if (!(f = fopen(file, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Threads:", 8))
			v = strtol(line + 8, NULL, 10);
	fclose(f);
	return v;
}

/* A signal whose default action kills ends every thread: sent once all four run (polled for up to 20 s). */
static int test_fatal_signal(void)
{
	pthread_t t;
	int status, i;
	long n = 0;
	pid_t pid = fork();

	if (pid == 0) {
		for (i = 0; i < 3; i++)
			pthread_create(&t, NULL, worker_sleep, NULL);
		worker_sleep(NULL);
	}
	for (i = 0; i < 2000 && (n = threads_of(pid)) < 4; i++)
		sleep_ms(10);
	if (n < 4) {
		kill(pid, SIGKILL), waitpid(pid, &status, 0);
		return ktap_fail("the process has %ld threads after 20 s, not 4", n);
	}
	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid)
		return ktap_fail("waitpid: %s", strerror(errno));
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM ? 1 :
	       ktap_fail("wait status %#x, not killed by SIGTERM", status);
}

/* After exec the process is one thread again, with its pid: see exec_check in main. */
static void *worker_exec(void *arg)
{
	char pid[16];
	char *argv[] = { g_argv[0], "exec-check", pid, NULL };

	(void)arg;
	snprintf(pid, sizeof(pid), "%d", getpid());
	execv(g_argv[0], argv);
	_exit(101);
}

static void body_exec(void)
{
	pthread_t t;
	int i;

	for (i = 0; i < 2; i++)
		pthread_create(&t, NULL, worker_sleep, NULL);
	pthread_create(&t, NULL, worker_exec, NULL);
	for (;;)
		pause();
}

static int test_exec_from_thread(void)
{
	int status = in_child(body_exec);

	return WIFEXITED(status) && WEXITSTATUS(status) == 42 ? 1 :
	       ktap_fail("wait status %#x, not exit 42 (see exec_check)", status);
}

static int exec_check(const char *pid)
{
	long threads = status_field("Threads");

	if (getpid() != atoi(pid) || gettid_() != getpid() || threads != 1) {
		printf("# after exec from a thread: pid %d (was %s), tid %ld, %ld threads\n",
		       getpid(), pid, gettid_(), threads);
		return 1;
	}
	return 42;
}

/* ---- /proc, fork from a thread ---- */

/* /proc/self/status counts the threads and names the process. */
static int test_proc_status(void)
{
	pthread_t t[3];
	long tids[3];
	long threads, tgid;

	sem_init(&sem, 0, 0);
	start_waiters(t, tids, 3);
	threads = status_field("Threads");
	tgid = status_field("Tgid");
	if (threads != 4 || tgid != getpid())
		return ktap_fail("/proc/self/status: Threads %ld Tgid %ld, not 4 and %d", threads,
				 tgid, getpid());
	return 1;
}

static const struct test tests[] = {
	{ "signal_to_process_unblocked_thread", test_signal_to_process },
	{ "pthread_kill_tgkill_one_thread", test_signal_to_thread },
	{ "kill_thread_id_is_for_its_process", test_kill_tid },
	{ "process_pending_taken_by_first_to_unblock", test_process_pending },
	{ "sigtimedwait_takes_without_handler", test_sigtimedwait },
	{ "exit_from_thread_ends_process", test_exit_group },
	{ "main_thread_exits_first", test_main_exits_first },
	{ "fatal_signal_ends_all_threads", test_fatal_signal },
	{ "exec_from_thread", test_exec_from_thread },
	{ "proc_self_status_threads", test_proc_status },
};

int main(int argc, char **argv)
{
	g_argv = argv;
	if (argc == 3 && !strcmp(argv[1], "exec-check"))
		return exec_check(argv[2]);
	return run_tests(tests, ARRAY_SIZE(tests));
}
