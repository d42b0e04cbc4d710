/* futexpi: PI futexes (FUTEX_LOCK_PI, LOCK_PI2, TRYLOCK_PI, UNLOCK_PI) and requeue-PI between processes, with Linux's answers (KTAP). */
#include "testutil.h"

/*
 * A PI lock word holds its owner's thread id, and FUTEX_WAITERS while
 * someone sleeps on it; the kernel hands the lock to a waiter at the
 * owner's FUTEX_UNLOCK_PI. The cases run between a parent and a child that
 * share a page (MAP_SHARED), so every futex is a shared one; each holds on
 * Linux too (tools/tests/test_host.py).
 */

#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_LOCK_PI		6
#define FUTEX_UNLOCK_PI		7
#define FUTEX_TRYLOCK_PI	8
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_CMP_REQUEUE_PI	12
#define FUTEX_LOCK_PI2		13
#define FUTEX_PRIVATE		128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_WAITERS		0x80000000u
#define FUTEX_OWNER_DIED	0x40000000u
#define FUTEX_TID_MASK		0x3fffffffu
#define EDEADLK			35
#define ETIMEDOUT		110
#define SIGUSR1			10

/* The shared page: a lock word, a condition's word, a step the sides go by, and what two waiters saw. */
struct shared {
	volatile unsigned int lock, cond, step, handled;
	volatile long got[2];
	volatile unsigned int word[2];
};

static long futex(volatile unsigned int *w, int op, unsigned int val, const void *ts,
		  volatile unsigned int *w2, unsigned int val3)
{
	return syscall6(__NR_futex, (long)w, op, val, (long)ts, (long)w2, val3);
}

static struct shared *shared_page(void)
{
	struct shared *s = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return IS_ERR_VALUE(s) ? NULL : s;
}

/* An absolute time ms from now on clock. */
static struct timespec in_ms(int clock, long ms)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ts.tv_nsec += ms * MSEC;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

static void wait_step(struct shared *s, unsigned int step)
{
	while (s->step < step)
		sched_yield();
}

static int child_exit(long pid, const char *what)
{
	int status;

	return wait4(pid, &status, 0, NULL) == pid && expect_exit(status, 0, what);
}

/* One side alone: the word's owner, and the errors Linux gives. */
static int test_lock_unlock_trylock_errors(void)
{
	unsigned int w = 0, c = 0;
	int tid = gettid();

	return expect(futex(&w, FUTEX_TRYLOCK_PI | FUTEX_PRIVATE, 0, NULL, NULL, 0), 0, "TRYLOCK_PI of a free lock") &&
	       expect(w, tid, "the word after TRYLOCK_PI: the owner's id") &&
	       expect(futex(&w, FUTEX_LOCK_PI | FUTEX_PRIVATE, 0, NULL, NULL, 0), -EDEADLK, "LOCK_PI by its owner") &&
	       expect(futex(&w, FUTEX_TRYLOCK_PI | FUTEX_PRIVATE, 0, NULL, NULL, 0), -EDEADLK, "TRYLOCK_PI by its owner") &&
	       expect(futex(&w, FUTEX_UNLOCK_PI | FUTEX_PRIVATE, 0, NULL, NULL, 0), 0, "UNLOCK_PI") &&
	       expect(w, 0, "the word after UNLOCK_PI") &&
	       expect(futex(&w, FUTEX_UNLOCK_PI | FUTEX_PRIVATE, 0, NULL, NULL, 0), -EPERM, "UNLOCK_PI of a free lock") &&
	       expect(futex(&w, FUTEX_LOCK_PI | FUTEX_CLOCK_REALTIME, 0, NULL, NULL, 0), -ENOSYS,
		      "LOCK_PI with FUTEX_CLOCK_REALTIME") &&
	       expect(futex(&c, FUTEX_WAIT_REQUEUE_PI | FUTEX_PRIVATE, 0, NULL, &c, 0), -EINVAL,
		      "WAIT_REQUEUE_PI onto its own word") &&
	       expect(futex(&c, FUTEX_CMP_REQUEUE_PI | FUTEX_PRIVATE, 2, NULL, &w, 0), -EINVAL,
		      "CMP_REQUEUE_PI waking 2") &&
	       expect((w = 0x3ffffff0, futex(&w, FUTEX_LOCK_PI | FUTEX_PRIVATE, 0, NULL, NULL, 0)), -ESRCH,
		      "LOCK_PI of a word whose owner is no thread");
}

/* The child holds the lock; the parent's LOCK_PI sleeps (FUTEX_WAITERS) and gets it at the child's unlock. */
static int test_lock_pi_waits_for_the_owner(void)
{
	struct shared *s = shared_page();
	long pid;
	int ok;

	if (!s)
		return ktap_fail("mmap failed");
	if ((pid = fork()) == 0) {
		if (futex(&s->lock, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0))
			exit(1);
		s->step = 1;
		while (!(s->lock & FUTEX_WAITERS))
			sched_yield();
		exit(futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) ? 2 : 0);
	}
	wait_step(s, 1);
	ok = expect(futex(&s->lock, FUTEX_LOCK_PI, 0, NULL, NULL, 0), 0, "LOCK_PI of the child's lock") &&
	     expect(s->lock, gettid() | FUTEX_WAITERS, "the word handed over: the new owner and FUTEX_WAITERS") &&
	     expect(futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0), 0, "UNLOCK_PI") &&
	     expect(s->lock, 0, "the word after the last unlock");
	return child_exit(pid, "the child (1: TRYLOCK_PI, 2: UNLOCK_PI)") && ok;
}

/*
 * A lock the child holds: LOCK_PI's timeout is on CLOCK_REALTIME,
 * LOCK_PI2's on CLOCK_MONOTONIC unless FUTEX_CLOCK_REALTIME, and
 * TRYLOCK_PI does not wait; WAIT_REQUEUE_PI times out on either clock.
 */
static int test_timeouts(void)
{
	struct shared *s = shared_page();
	struct timespec ts;
	long pid;
	int ok;

	if (!s)
		return ktap_fail("mmap failed");
	if ((pid = fork()) == 0) {
		if (futex(&s->lock, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0))
			exit(1);
		s->step = 1;
		wait_step(s, 2);
		exit(futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) ? 2 : 0);
	}
	wait_step(s, 1);
	ts = in_ms(CLOCK_REALTIME, 20);
	ok = expect(futex(&s->lock, FUTEX_LOCK_PI, 0, &ts, NULL, 0), -ETIMEDOUT, "LOCK_PI, CLOCK_REALTIME");
	ts = in_ms(CLOCK_MONOTONIC, 20);
	ok = ok && expect(futex(&s->lock, FUTEX_LOCK_PI2, 0, &ts, NULL, 0), -ETIMEDOUT, "LOCK_PI2, CLOCK_MONOTONIC");
	ts = in_ms(CLOCK_REALTIME, 20);
	ok = ok && expect(futex(&s->lock, FUTEX_LOCK_PI2 | FUTEX_CLOCK_REALTIME, 0, &ts, NULL, 0), -ETIMEDOUT,
			  "LOCK_PI2, CLOCK_REALTIME");
	ok = ok && expect(futex(&s->lock, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0), -EAGAIN, "TRYLOCK_PI of a held lock");
	ts = in_ms(CLOCK_MONOTONIC, 20);
	ok = ok && expect(futex(&s->cond, FUTEX_WAIT_REQUEUE_PI, 0, &ts, &s->lock, 0), -ETIMEDOUT,
			  "WAIT_REQUEUE_PI, CLOCK_MONOTONIC");
	ts = in_ms(CLOCK_REALTIME, 20);
	ok = ok && expect(futex(&s->cond, FUTEX_WAIT_REQUEUE_PI | FUTEX_CLOCK_REALTIME, 0, &ts, &s->lock, 0),
			  -ETIMEDOUT, "WAIT_REQUEUE_PI, CLOCK_REALTIME");
	s->step = 2;
	return child_exit(pid, "the child (1: TRYLOCK_PI, 2: UNLOCK_PI)") && ok;
}

/* The child's WAIT_REQUEUE_PI, from the condition's word onto the lock: it returns owning the lock. */
static int requeue_pi_child(struct shared *s)
{
	long r;

	s->step = 1;
	r = futex(&s->cond, FUTEX_WAIT_REQUEUE_PI, 0, NULL, &s->lock, 0);
	if (r)
		return 1;
	if ((s->lock & FUTEX_TID_MASK) != (unsigned int)gettid())
		return 2;
	return futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) ? 3 : 0;
}

/* CMP_REQUEUE_PI, called until it finds the child's waiter: what it answered then. */
static long requeue_when_queued(struct shared *s, long pid, int nr_requeue)
{
	long r = 0;
	int i;

	state_of(pid, 'S');
	for (i = 0; i < 1000 && r == 0; i++)
		r = futex(&s->cond, FUTEX_CMP_REQUEUE_PI, 1, (void *)(long)nr_requeue, &s->lock, 0);
	return r;
}

/*
 * A free lock: CMP_REQUEUE_PI takes it for the condition's first waiter,
 * which wakes owning it; a plain FUTEX_WAKE of such a waiter is -EINVAL.
 */
static int test_requeue_pi_takes_a_free_lock(void)
{
	struct shared *s = shared_page();
	long pid;
	int ok;

	if (!s)
		return ktap_fail("mmap failed");
	if ((pid = fork()) == 0)
		exit(requeue_pi_child(s));
	wait_step(s, 1);
	state_of(pid, 'S');
	ok = expect(futex(&s->cond, FUTEX_WAKE, 1, NULL, NULL, 0), -EINVAL, "FUTEX_WAKE of a WAIT_REQUEUE_PI waiter") &&
	     expect(requeue_when_queued(s, pid, 0), 1, "CMP_REQUEUE_PI: the waiter woken owning the lock");
	return child_exit(pid, "the child (1: WAIT_REQUEUE_PI, 2: not the owner, 3: UNLOCK_PI)") && ok;
}

/*
 * A held lock: the waiter moves onto it (FUTEX_WAITERS), even with a
 * requeue count of 0 (Linux moves up to 1 + the count in all), and gets
 * it at the owner's UNLOCK_PI.
 */
static int test_requeue_pi_onto_a_held_lock(void)
{
	struct shared *s = shared_page();
	long pid;
	int ok;

	if (!s || futex(&s->lock, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0))
		return ktap_fail("mmap or TRYLOCK_PI failed");
	if ((pid = fork()) == 0)
		exit(requeue_pi_child(s));
	wait_step(s, 1);
	ok = expect(requeue_when_queued(s, pid, 0), 1, "CMP_REQUEUE_PI: the waiter moved (nr_requeue 0 moves one)") &&
	     expect(s->lock, gettid() | FUTEX_WAITERS, "the lock word with a waiter moved onto it") &&
	     expect(futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0), 0, "UNLOCK_PI");
	return child_exit(pid, "the child (1: WAIT_REQUEUE_PI, 2: not the owner, 3: UNLOCK_PI)") && ok;
}

/* A FUTEX_WAIT waiter is not CMP_REQUEUE_PI's to move (-EINVAL); a FUTEX_WAKE still wakes it. */
static int test_requeue_pi_of_a_plain_waiter(void)
{
	struct shared *s = shared_page();
	long pid;
	int ok;

	if (!s)
		return ktap_fail("mmap failed");
	if ((pid = fork()) == 0) {
		s->step = 1;
		exit(futex(&s->cond, FUTEX_WAIT, 0, NULL, NULL, 0) != 0);
	}
	wait_step(s, 1);
	ok = expect(requeue_when_queued(s, pid, 0), -EINVAL, "CMP_REQUEUE_PI of a FUTEX_WAIT waiter") &&
	     expect(futex(&s->cond, FUTEX_WAKE, 1, NULL, NULL, 0), 1, "FUTEX_WAKE of it");
	return child_exit(pid, "the child's FUTEX_WAIT") && ok;
}

/* A waiter that takes the lock and exits holding it: what LOCK_PI answered and the word then. */
static void lock_and_exit(struct shared *s, int i)
{
	s->got[i] = futex(&s->lock, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	s->word[i] = s->lock;
	exit(0);
}

/*
 * Two waiters sleep on the lock of an owner that exits without a robust
 * list: as Linux's exit_pi_state_list, the first gets the lock, its id in
 * the word with FUTEX_WAITERS and FUTEX_OWNER_DIED; when it exits holding
 * it in turn, the second gets it the same way.
 */
static int test_owner_exit_hands_the_lock_on(void)
{
	struct shared *s = shared_page();
	long owner, w[2];
	int i, ok = 1;

	if (!s)
		return ktap_fail("mmap failed");
	if ((owner = fork()) == 0) {
		if (futex(&s->lock, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0))
			exit(1);
		s->step = 1;
		wait_step(s, 2);
		exit(0);
	}
	wait_step(s, 1);
	for (i = 0; i < 2; i++) {
		s->got[i] = 1;
		if ((w[i] = fork()) == 0)
			lock_and_exit(s, i);
		while (!(s->lock & FUTEX_WAITERS))
			sched_yield();
		ok = ok && expect(state_of(w[i], 'S'), 'S', "a waiter's state");
	}
	s->step = 2;
	ok = child_exit(owner, "the owner (1: TRYLOCK_PI)") && ok;
	for (i = 0; i < 2; i++) {
		ok = child_exit(w[i], "a waiter") && ok &&
		     expect(s->got[i], 0, "LOCK_PI of a lock whose owner exited") &&
		     expect(s->word[i], w[i] | FUTEX_WAITERS | FUTEX_OWNER_DIED,
			    "the word: the waiter's id, FUTEX_WAITERS and FUTEX_OWNER_DIED");
	}
	return ok;
}

/*
 * The owner exited with nobody waiting: the word holds a dead thread's id.
 * LOCK_PI is -ESRCH, as Linux's handle_exit_race, having set
 * FUTEX_WAITERS first; TRYLOCK_PI the same.
 */
static int test_lock_pi_of_an_exited_owner(void)
{
	struct shared *s = shared_page();
	long owner;

	if (!s)
		return ktap_fail("mmap failed");
	if ((owner = fork()) == 0)
		exit(futex(&s->lock, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0) ? 1 : 0);
	if (!child_exit(owner, "the owner (1: TRYLOCK_PI)"))
		return 0;
	return expect(s->lock, owner, "the word after its owner's exit") &&
	       expect(futex(&s->lock, FUTEX_LOCK_PI, 0, NULL, NULL, 0), -ESRCH, "LOCK_PI") &&
	       expect(s->lock, owner | FUTEX_WAITERS, "the word after LOCK_PI") &&
	       expect(futex(&s->lock, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0), -ESRCH, "TRYLOCK_PI");
}

static struct shared *handled;

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)si, (void)ctx;
	handled->handled = 1;
}

/* A signal's handler (without SA_RESTART) runs, and LOCK_PI goes on waiting: it is restarted, never -EINTR. */
static int test_lock_pi_restarts_after_a_handler(void)
{
	struct shared *s = shared_page();
	long pid, r;
	int ok;

	if (!s || futex(&s->lock, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0))
		return ktap_fail("mmap or TRYLOCK_PI failed");
	if ((pid = fork()) == 0) {
		handled = s;
		sigaction(SIGUSR1, on_usr1, 0);
		s->step = 1;
		r = futex(&s->lock, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
		if (r || !s->handled)
			exit(r ? 1 : 2);
		exit(futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) ? 3 : 0);
	}
	wait_step(s, 1);
	while (!(s->lock & FUTEX_WAITERS))
		sched_yield();
	state_of(pid, 'S');
	kill(pid, SIGUSR1);
	while (!s->handled)
		sched_yield();
	state_of(pid, 'S');
	ok = expect(futex(&s->lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0), 0, "UNLOCK_PI after the signal");
	return child_exit(pid, "the child (1: LOCK_PI failed, 2: no handler ran, 3: UNLOCK_PI)") && ok;
}

/*
 * A ring of n processes, each holding its own PI lock and LOCK_PI-ing the
 * next one's, each starting once the one before sleeps: the last, which
 * closes the cycle, is -EDEADLK at once, as Linux's chain walk answers,
 * while the others sleep on. It then gives its lock up, and each in turn
 * gets the next lock and gives both up.
 */
#define RING_MAX	4

struct ring {
	volatile unsigned int lock[RING_MAX];
	volatile long pid[RING_MAX];
	volatile long closing;		/* what the last one's LOCK_PI answered */
};

static void ring_member(struct shared *s, struct ring *r, int i, int n)
{
	struct timespec until = in_ms(CLOCK_REALTIME, 10000);
	long got;

	if (futex(&r->lock[i], FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0))
		exit(1);
	s->step = i + 1;
	wait_step(s, n);
	if (i) {
		while (!(r->lock[i] & FUTEX_WAITERS))
			sched_yield();
		state_of(r->pid[i - 1], 'S');
	}
	got = futex(&r->lock[(i + 1) % n], FUTEX_LOCK_PI, 0, &until, NULL, 0);
	if (i == n - 1) {
		r->closing = got;
		exit(got == -EDEADLK && !futex(&r->lock[i], FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) ? 0 : 2);
	}
	exit(got || futex(&r->lock[i + 1], FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) ||
	     futex(&r->lock[i], FUTEX_UNLOCK_PI, 0, NULL, NULL, 0) ? 3 : 0);
}

static int deadlock_ring(int n)
{
	struct shared *s = shared_page();
	struct ring *r = (struct ring *)(s + 1);
	int i, status, ok = 1;

	if (!s)
		return ktap_fail("mmap failed");
	r->closing = 1;
	for (i = 0; i < n; i++) {
		if ((r->pid[i] = fork()) == 0)
			ring_member(s, r, i, n);
		wait_step(s, i + 1);
	}
	for (i = 0; i < n; i++)
		ok = wait4(-1, &status, 0, NULL) > 0 &&
		     expect_exit(status, 0, "a ring member (1: TRYLOCK_PI, 2: the last one's LOCK_PI "
				 "or UNLOCK_PI, 3: another's LOCK_PI or UNLOCK_PI)") && ok;
	return expect(r->closing, -EDEADLK, "the LOCK_PI that closes the cycle") && ok;
}

static int test_lock_pi_deadlock_of_two(void)
{
	return deadlock_ring(2);
}

static int test_lock_pi_deadlock_of_four(void)
{
	return deadlock_ring(RING_MAX);
}

static const struct test tests[] = {
	{ "lock_unlock_trylock_errors", test_lock_unlock_trylock_errors },
	{ "lock_pi_waits_for_the_owner", test_lock_pi_waits_for_the_owner },
	{ "timeouts", test_timeouts },
	{ "requeue_pi_takes_a_free_lock", test_requeue_pi_takes_a_free_lock },
	{ "requeue_pi_onto_a_held_lock", test_requeue_pi_onto_a_held_lock },
	{ "requeue_pi_of_a_plain_waiter", test_requeue_pi_of_a_plain_waiter },
	{ "lock_pi_restarts_after_a_handler", test_lock_pi_restarts_after_a_handler },
	{ "owner_exit_hands_the_lock_on", test_owner_exit_hands_the_lock_on },
	{ "lock_pi_of_an_exited_owner", test_lock_pi_of_an_exited_owner },
	{ "lock_pi_deadlock_of_two", test_lock_pi_deadlock_of_two },
	{ "lock_pi_deadlock_of_four", test_lock_pi_deadlock_of_four },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
