/* syswake: a sleeping call whose condition comes with a signal answers with what is ready, not EINTR, as on Linux (KTAP). */
#include "testutil.h"

/*
 * Linux's sleeping calls look at what they wait for before they look at
 * signals: a child that writes to a pipe and exits wakes its parent's
 * read with the bytes there and SIGCHLD pending, and the read returns the
 * bytes (the handler runs after). Each case has a parent, with a SIGCHLD
 * handler without SA_RESTART, sleep in the call; a child on the same CPU
 * waits until it sleeps, makes its condition true and exits at once, so
 * that both come before the parent runs again. ROUNDS times: ccos, which
 * looked at signals first, gave EINTR in most rounds.
 */

#define ROUNDS		20
#define S_IFIFO		0010000
#define FUTEX_WAIT	0
#define FUTEX_WAKE	1
#define ITIMER_REAL	0
#define TIMER_ABSTIME	1

struct itimerval {
	struct timeval it_interval, it_value;
};

static volatile int signals;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	signals++;
}

/* The parent and its children on CPU 0, a SIGCHLD handler that does not restart calls. */
static void setup(void)
{
	unsigned long cpu0 = 1;

	sched_setaffinity(0, sizeof(cpu0), &cpu0);
	sigaction(SIGCHLD, on_signal, 0);
	sigaction(SIGALRM, on_signal, 0);
}

/* A child that, once its parent sleeps, does act(arg) and exits. */
static long child_then_exit(void (*act)(long), long arg)
{
	long parent = getpid(), pid = fork();

	if (pid == 0) {
		state_of(parent, 'S');
		if (act)
			act(arg);
		exit_group(0);
	}
	return pid;
}

static void reap(long pid)
{
	int status;

	while (wait4(pid, &status, 0, NULL) == -EINTR)
		;
}

/* ---- pipes and FIFOs ---- */

static void write16(long fd)
{
	write(fd, "0123456789abcdef", 16);
}

static int test_pipe_read_gets_the_bytes(void)
{
	char buf[64];
	int p[2], i;
	long pid, r;

	setup();
	for (i = 0; i < ROUNDS; i++) {
		if (!expect(pipe(p), 0, "pipe"))
			return 0;
		pid = child_then_exit(write16, p[1]);
		r = read(p[0], buf, sizeof(buf));
		reap(pid);
		close(p[0]), close(p[1]);
		if (r != 16)
			return ktap_fail("round %d: read gave %ld, the 16 bytes in the pipe", i, r);
	}
	return 1;
}

static void drain(long fd)
{
	char buf[4096];

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

/* The pipe full, the parent's write of 16 bytes sleeps; the child empties it and exits. */
static int test_pipe_write_writes(void)
{
	static char block[4096];
	int p[2], i;
	long pid, r;

	setup();
	for (i = 0; i < ROUNDS; i++) {
		if (!expect(pipe2(p, O_NONBLOCK), 0, "pipe2"))
			return 0;
		while (write(p[1], block, sizeof(block)) > 0)
			;
		fcntl(p[1], F_SETFL, 0);
		pid = child_then_exit(drain, p[0]);
		r = write(p[1], block, 16);
		reap(pid);
		close(p[0]), close(p[1]);
		if (r != 16)
			return ktap_fail("round %d: write gave %ld, with room for the 16 bytes", i, r);
	}
	return 1;
}

static char fifo[64];

static void open_writer(long unused)
{
	(void)unused;
	open(fifo, O_WRONLY, 0);
}

static int test_fifo_open_opens(void)
{
	long pid, fd;
	int i;

	setup();
	snprintf(fifo, sizeof(fifo), "/tmp/syswake-fifo-%ld", getpid());
	if (!expect(syscall3(__NR_mknod, (long)fifo, S_IFIFO | 0600, 0), 0, "mknod(FIFO)"))
		return 0;
	for (i = 0; i < ROUNDS; i++) {
		pid = child_then_exit(open_writer, 0);
		fd = open(fifo, O_RDONLY, 0);
		reap(pid);
		if (fd < 0)
			break;
		close(fd);
	}
	syscall1(__NR_unlink, (long)fifo);
	return i == ROUNDS || ktap_fail("round %d: open(O_RDONLY) gave %ld, with a writer there", i, fd);
}

/* ---- wait, futex, poll and select ---- */

static int test_wait_reaps(void)
{
	long pid, r;
	int i, status;

	setup();
	for (i = 0; i < ROUNDS; i++) {
		pid = child_then_exit(NULL, 0);
		r = wait4(pid, &status, 0, NULL);
		if (r != pid) {
			reap(pid);
			return ktap_fail("round %d: wait4 gave %ld, with the child %ld a zombie", i, r, pid);
		}
	}
	return 1;
}

static void wake_word(long word)
{
	*(volatile unsigned int *)word = 1;
	syscall6(__NR_futex, word, FUTEX_WAKE, 1, 0, 0, 0);
}

static int test_futex_wait_is_woken(void)
{
	unsigned int *word = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long pid, r;
	int i;

	setup();
	for (i = 0; i < ROUNDS; i++) {
		*word = 0;
		pid = child_then_exit(wake_word, (long)word);
		r = syscall6(__NR_futex, (long)word, FUTEX_WAIT, 0, 0, 0, 0);
		reap(pid);
		if (r != 0)
			return ktap_fail("round %d: FUTEX_WAIT gave %ld, woken by FUTEX_WAKE", i, r);
	}
	return 1;
}

static int test_poll_and_select_see_the_bytes(void)
{
	unsigned long in;
	struct pollfd pfd;
	int p[2], i;
	long pid, r;

	setup();
	for (i = 0; i < ROUNDS; i++) {
		if (!expect(pipe(p), 0, "pipe"))
			return 0;
		pfd = (struct pollfd){ p[0], POLLIN, 0 };
		in = 1ul << p[0];
		pid = child_then_exit(write16, p[1]);
		r = i % 2 ? syscall5(__NR_select, p[0] + 1, (long)&in, 0, 0, 0) : poll(&pfd, 1, -1);
		reap(pid);
		close(p[0]), close(p[1]);
		if (r != 1)
			return ktap_fail("round %d: %s gave %ld, the pipe readable", i, i % 2 ? "select" : "poll", r);
	}
	return 1;
}

/* ---- sleeps that end as a signal comes ---- */

/*
 * A sleep of 20 ms, and SIGALRM 1 ms after its end: the sleep returns 0,
 * its time come (Linux's do_nanosleep answers 0 once its timer ran, a
 * signal pending or not). ccos's end at a tick gives both to one pass of
 * the scheduler, and it said EINTR with 0 s left. A signal that comes
 * first (the machine was slow between the two calls) may end the sleep
 * with EINTR and the time left, as Linux: only EINTR with nothing left
 * is wrong. The absolute sleep has no time left to say: it is wrong when
 * the clock, read as it returns, is past its time in most rounds.
 */
static int sleep_ends(int wall)
{
	struct itimerval v = { { 0, 0 }, { 0, 21000 } };
	struct timespec req = { 0, 20 * MSEC }, rem, at, now;
	int i, seen, late = 0;
	long r, bound;

	setup();
	for (i = 0; i < ROUNDS / 2; i++) {
		seen = signals;
		rem = (struct timespec){ 0, 0 };
		clock_gettime(CLOCK_REALTIME, &at);
		at.tv_nsec += 20 * MSEC;
		at.tv_sec += at.tv_nsec / 1000000000L, at.tv_nsec %= 1000000000L;
		syscall3(__NR_setitimer, ITIMER_REAL, (long)&v, 0);
		r = wall ? clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL) : nanosleep(&req, &rem);
		clock_gettime(CLOCK_REALTIME, &now);
		for (bound = now_ns() + 1000 * MSEC; signals == seen && now_ns() < bound;)
			sleep_ns(MSEC);
		if (r && r != -EINTR)
			return ktap_fail("round %d: the sleep gave %ld", i, r);
		if (r && !wall && !rem.tv_sec && !rem.tv_nsec)
			return ktap_fail("round %d: nanosleep gave EINTR with 0 s left, its time come", i);
		late += r && (now.tv_sec > at.tv_sec || (now.tv_sec == at.tv_sec && now.tv_nsec >= at.tv_nsec));
	}
	return late <= ROUNDS / 8 ||
	       ktap_fail("the wall sleep gave EINTR past its time in %d rounds of %d", late, ROUNDS / 2);
}

static int test_nanosleep_ends_as_a_signal_comes(void)
{
	return sleep_ends(0);
}

static int test_wall_sleep_ends_as_a_signal_comes(void)
{
	return sleep_ends(1);
}

static const struct test tests[] = {
	{ "pipe_read_gets_the_bytes", test_pipe_read_gets_the_bytes },
	{ "pipe_write_writes", test_pipe_write_writes },
	{ "fifo_open_opens", test_fifo_open_opens },
	{ "wait_reaps", test_wait_reaps },
	{ "futex_wait_is_woken", test_futex_wait_is_woken },
	{ "poll_and_select_see_the_bytes", test_poll_and_select_see_the_bytes },
	{ "nanosleep_ends_as_a_signal_comes", test_nanosleep_ends_as_a_signal_comes },
	{ "wall_sleep_ends_as_a_signal_comes", test_wall_sleep_ends_as_a_signal_comes },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
