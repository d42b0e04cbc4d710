/* sysched: scheduling policies and priorities (sched_setscheduler and the rest) as Linux answers them (KTAP). */
#include "testutil.h"

/*
 * ccos keeps each thread's policy and priority and reports them, and fork
 * passes them on (SCHED_RESET_ON_FORK aside), but its scheduler does not
 * enforce them (docs/processes.md): these cases check the calls, not the
 * scheduling. Each real-time policy is set in a child that exits at once,
 * so that nothing runs real-time on the Linux host (tools/tests/test_host.py).
 */
#define SCHED_OTHER		0
#define SCHED_FIFO		1
#define SCHED_RR		2
#define SCHED_BATCH		3
#define SCHED_IDLE		5
#define SCHED_DEADLINE		6
#define SCHED_RESET_ON_FORK	0x40000000

static long setscheduler(int pid, int policy, const int *prio)
{
	return syscall3(__NR_sched_setscheduler, pid, policy, (long)prio);
}

static long getparam(int pid)
{
	int prio = -1;
	long r = syscall2(__NR_sched_getparam, pid, (long)&prio);

	return r ? r : prio;
}

/* Each policy's range, and an unknown policy's EINVAL. */
static int test_priority_ranges(void)
{
	static const struct { int policy, min, max; } ranges[] = {
		{ SCHED_OTHER, 0, 0 }, { SCHED_FIFO, 1, 99 }, { SCHED_RR, 1, 99 },
		{ SCHED_BATCH, 0, 0 }, { SCHED_IDLE, 0, 0 }, { SCHED_DEADLINE, 0, 0 },
		{ 4, -EINVAL, -EINVAL }, { -1, -EINVAL, -EINVAL },
	};
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(ranges); i++)
		if (!expect(syscall1(__NR_sched_get_priority_min, ranges[i].policy), ranges[i].min,
			    "sched_get_priority_min") ||
		    !expect(syscall1(__NR_sched_get_priority_max, ranges[i].policy), ranges[i].max,
			    "sched_get_priority_max"))
			return ktap_fail("policy %d", ranges[i].policy);
	return 1;
}

/* What a forked child reports in its exit code: its policy * 16, 8 for SCHED_RESET_ON_FORK, its priority mod 8; 255 if a call failed. */
static int child_policy(void)
{
	long pid = fork(), policy, prio;
	int status;

	if (pid == 0) {
		policy = syscall1(__NR_sched_getscheduler, 0);
		prio = getparam(0);
		exit(policy < 0 || prio < 0 ? 255 : (policy & 0xf) * 16 + (policy & SCHED_RESET_ON_FORK ? 8 : 0) +
			prio % 8);
	}
	wait4(pid, &status, 0, NULL);
	return (status >> 8) & 0xff;
}

static int set_and_get(void)
{
	int prio = 10, bad = 0, zero = 0, one = 1, missing = 0x3ffffff0;

	bad |= expect(setscheduler(0, SCHED_FIFO, &prio), 0, "SCHED_FIFO 10") == 0;
	bad |= expect(syscall1(__NR_sched_getscheduler, 0), SCHED_FIFO, "the policy after it") == 0;
	bad |= expect(getparam(0), 10, "the priority after it") == 0;
	prio = 20;
	bad |= expect(syscall2(__NR_sched_setparam, 0, (long)&prio), 0, "sched_setparam 20") == 0;
	bad |= expect(getparam(getpid()), 20, "the priority after sched_setparam, by pid") == 0;
	bad |= expect(child_policy(), SCHED_FIFO * 16 + 20 % 8, "a forked child's policy and priority") == 0;
	bad |= expect(setscheduler(0, SCHED_FIFO, &zero), -EINVAL, "SCHED_FIFO 0") == 0;
	bad |= expect(setscheduler(0, SCHED_OTHER, &one), -EINVAL, "SCHED_OTHER 1") == 0;
	bad |= expect(setscheduler(0, 99, &zero), -EINVAL, "an unknown policy") == 0;
	bad |= expect(setscheduler(0, SCHED_DEADLINE, &zero), -EINVAL, "SCHED_DEADLINE (sched_setattr's)") == 0;
	bad |= expect(setscheduler(-1, SCHED_OTHER, &zero), -EINVAL, "pid -1") == 0;
	bad |= expect(setscheduler(0, SCHED_OTHER, NULL), -EINVAL, "no parameter") == 0;
	bad |= expect(setscheduler(missing, SCHED_OTHER, &zero), -ESRCH, "a thread that does not exist") == 0;
	bad |= expect(setscheduler(0, SCHED_OTHER, (int *)8), -EFAULT, "a bad parameter pointer") == 0;
	bad |= expect(syscall1(__NR_sched_getscheduler, -1), -EINVAL, "sched_getscheduler of pid -1") == 0;
	prio = 5;
	bad |= expect(setscheduler(0, SCHED_RR | SCHED_RESET_ON_FORK, &prio), 0, "SCHED_RR | SCHED_RESET_ON_FORK") == 0;
	bad |= expect(syscall1(__NR_sched_getscheduler, 0), SCHED_RR | SCHED_RESET_ON_FORK, "the policy after it") == 0;
	bad |= expect(child_policy(), SCHED_OTHER * 16, "a child after SCHED_RESET_ON_FORK: SCHED_OTHER 0") == 0;
	bad |= expect(setscheduler(0, SCHED_OTHER, &zero), 0, "back to SCHED_OTHER") == 0;
	return bad;
}

/* Set, read back, inherited by fork, reset on fork; each error in Linux's order. */
static int test_set_and_get(void)
{
	int status;
	long pid = fork();

	if (pid == 0)
		exit(set_and_get());
	wait4(pid, &status, 0, NULL);
	return expect_exit(status, 0, "the child that set its policy");
}

static const struct test tests[] = {
	{ "priority_ranges", test_priority_ranges },
	{ "set_get_fork_reset", test_set_and_get },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
