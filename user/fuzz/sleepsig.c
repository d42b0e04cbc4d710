/* fuzz's sleep check: sleeping calls that a signal interrupts, their condition met before it or not, and what they return. */
#include "fuzz.h"

/*
 * Each step sleeps in one call (a pipe's read or write, a FIFO's open,
 * wait4, FUTEX_WAIT, poll, pselect6, nanosleep) while a helper child,
 * after a random delay, makes its condition true (bytes, room, the FIFO's
 * writer, its own exit, a wake), then sends SIGUSR1; or only one of the
 * two. SIGUSR1 and SIGCHLD have handlers without SA_RESTART, so the
 * helper's exit is a signal too, after all it did. The call must answer
 * with its condition whenever that came before a signal (Linux looks at
 * it first), and with EINTR when only a signal came; a nanosleep that a
 * signal ended has some of its time left, one that returned 0 lasted it.
 * A step still asleep after BOUND_MS is ended by SIGUSR2 and reported.
 */
#define STEPS		16
#define BOUND_MS	2000
#define FUTEX_WAIT	0
#define FUTEX_WAKE	1
#define L(x)		((long)(x))

enum kind { READ, WRITE, FIFO, WAIT, FUTEX, POLL, PSELECT, NANOSLEEP, NR_KINDS };
enum how { COND_THEN_SIGNAL, SIGNAL_ONLY, COND_ONLY };

static const char *const names[NR_KINDS] = {
	"pipe read", "pipe write", "FIFO open", "wait4", "FUTEX_WAIT", "poll", "pselect6", "nanosleep",
};
static const char *const hows[] = { "its condition, then SIGUSR1", "SIGUSR1 alone", "its condition alone" };

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
}

/* The helper: a few yields, its part, and its exit; with SIGNAL_ONLY its signal again each ms until hold closes. */
static void helper(enum kind kind, enum how how, unsigned long r, int *p, volatile unsigned int *word,
		   int *hold)
{
	char buf[4096];
	long parent = getppid(), i;
	struct pollfd pfd;

	close(hold[1]);
	for (i = r % 64; i > 0; i--)
		sched_yield();
	if (how != SIGNAL_ONLY) {
		if (kind == READ || kind == POLL || kind == PSELECT)
			write(p[1], "0123456789abcdef", 16);
		if (kind == WRITE) {
			fcntl(p[0], F_SETFL, O_NONBLOCK);
			while (read(p[0], buf, sizeof(buf)) > 0)
				;
		}
		if (kind == FIFO)
			open(FUZZ_FIFO, O_WRONLY, 0);
		if (kind == FUTEX) {
			*word = 1;
			syscall6(__NR_futex, L(word), FUTEX_WAKE, 1, 0, 0, 0);
		}
	}
	if (how == SIGNAL_ONLY || (how == COND_THEN_SIGNAL && kind != WAIT))
		kill(parent, SIGUSR1);	/* a wait4's condition is the exit, its signal SIGCHLD */
	/* A signal taken before the call began ends nothing: again, until the parent's call returns. */
	for (pfd = (struct pollfd){ hold[0], POLLIN, 0 }; how == SIGNAL_ONLY && !poll(&pfd, 1, 1);)
		kill(parent, SIGUSR1);
	exit_group(0);
}

/* What the step's call must answer: ok (0: any fd) when its condition came first, else -EINTR. */
static long expected(enum kind kind, enum how how, long pid)
{
	if (how == SIGNAL_ONLY)
		return -EINTR;
	switch (kind) {
	case READ: case WRITE: return 16;
	case WAIT: return pid;
	case POLL: case PSELECT: return 1;
	default: return 0;
	}
}

/* The helper ended within BOUND_MS (0), or killed (1); the step's pipes closed. */
static int reap(long pid, int *hold, int *p)
{
	long t0 = now_ns();
	int status;

	close(hold[1]);
	while (wait4(pid, &status, WNOHANG, NULL) == 0 && now_ns() - t0 < BOUND_MS * MSEC)
		sched_yield();
	if (wait4(pid, &status, WNOHANG, NULL) == 0) {
		kill(pid, SIGKILL);
		while (wait4(pid, &status, 0, NULL) == -EINTR)
			;
		close(p[0]), close(p[1]), close(hold[0]);
		return 1;
	}
	return 0;
}

static int timer;	/* SIGUSR2 once, BOUND_MS after a step begins */

static int step(int fd, unsigned long r, volatile unsigned int *word)
{
	struct timespec bound[2] = { { 0, 0 }, { BOUND_MS / 1000, 0 } }, off[2] = { { 0, 0 }, { 0, 0 } };
	enum kind kind = r % NR_KINDS;
	enum how how = (r >> 8) % 3;
	struct timespec req = { 0, (long)((r >> 16) % 5) * MSEC }, rem = { -1, -1 };
	char block[4096] = { 0 };
	unsigned long in;
	struct pollfd pfd;
	int p[2], hold[2], status;
	long pid, got, want, t0;

	if (pipe2(p, O_NONBLOCK) || pipe(hold))
		return report(fd, "no pipe");
	syscall4(__NR_timer_settime, timer, 0, L(&bound), 0);	/* SIGUSR2 at BOUND_MS, should it hang */
	if (kind == WRITE)
		while (write(p[1], block, sizeof(block)) > 0)
			;
	fcntl(p[0], F_SETFL, 0);
	fcntl(p[1], F_SETFL, 0);
	*word = 0;
	if ((pid = fork()) == 0)
		helper(kind, how, r >> 24, p, word, hold);
	t0 = now_ns();
	pfd = (struct pollfd){ p[0], POLLIN, 0 };
	in = 1ul << p[0];
	switch (kind) {
	case READ: got = read(p[0], block, sizeof(block)); break;
	case WRITE: got = write(p[1], block, 16); break;
	case FIFO: got = open(FUZZ_FIFO, O_RDONLY, 0); break;
	case WAIT: got = wait4(pid, &status, 0, NULL); break;
	case FUTEX: got = syscall6(__NR_futex, L(word), FUTEX_WAIT, 0, 0, 0, 0); break;
	case POLL: got = poll(&pfd, 1, -1); break;
	case PSELECT: got = syscall6(__NR_pselect6, p[0] + 1, L(&in), 0, 0, 0, 0); break;
	default: got = nanosleep(&req, &rem);
	}
	syscall4(__NR_timer_settime, timer, 0, L(&off), 0);
	if (now_ns() - t0 >= BOUND_MS * MSEC)
		return report(fd, "%s with %s still asleep after %d ms (%ld)", names[kind], hows[how],
			      BOUND_MS, got) + reap(pid, hold, p);
	close(hold[1]);
	if (kind == FIFO && got >= 0)
		close(got), got = 0;
	else if (kind == FIFO && how != SIGNAL_ONLY)
		close(open(FUZZ_FIFO, O_RDONLY | O_NONBLOCK, 0));	/* the helper's open ends */
	if (!(kind == WAIT && got == pid) && reap(pid, hold, p))
		return report(fd, "%s with %s: the helper did not end", names[kind], hows[how]);
	close(p[0]), close(p[1]), close(hold[0]);
	want = expected(kind, how, pid);
	if (kind == NANOSLEEP) {
		if (got == 0 && now_ns() - t0 < req.tv_nsec)
			return report(fd, "nanosleep of %ld ns returned 0 after %ld ns", req.tv_nsec, now_ns() - t0);
		if (got == -EINTR && (rem.tv_sec || rem.tv_nsec <= 0 || rem.tv_nsec > req.tv_nsec))
			return report(fd, "nanosleep of %ld ns: EINTR with %ld.%09ld s left", req.tv_nsec,
				      rem.tv_sec, rem.tv_nsec);
		return got && got != -EINTR ? report(fd, "nanosleep gave %ld", got) : 0;
	}
	if (got == want || (kind == FUTEX && how != SIGNAL_ONLY && got == -EAGAIN))
		return 0;
	return report(fd, "%s with %s gave %ld, not %ld", names[kind], hows[how], got, want);
}

int check_interrupted_sleeps(int fd)
{
	volatile unsigned int *word = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct { unsigned long value; int signo, notify, tid, pad[11]; } ev = { .signo = SIGUSR2 };
	int i, bad = 0;

	if (IS_ERR_VALUE(word))
		return report(fd, "no shared page");
	sigaction(SIGUSR1, on_signal, 0);
	sigaction(SIGUSR2, on_signal, 0);
	sigaction(SIGCHLD, on_signal, 0);
	if (syscall3(__NR_timer_create, CLOCK_MONOTONIC, L(&ev), L(&timer)))
		return report(fd, "no timer");
	syscall3(__NR_mknod, L(FUZZ_FIFO), 0010000 | 0600, 0);
	for (i = 0; i < STEPS && bad < 8; i++)
		bad += step(fd, next_random(), word);
	syscall1(__NR_unlink, L(FUZZ_FIFO));
	return bad;
}
