/* vdsotest: find the vDSO as a C library would, check every function against the system call, and time it. */
#include "vdsoutil.h"

/*
 * The same binary runs on ccos and on Linux (./build/user/vdsotest.elf on
 * the host): the cases that depend on ccos's own kernel (its vvar page,
 * its mprotect answer) say so and adapt; the rest must pass on both.
 */

#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_MONOTONIC_RAW	4
#define CLOCK_REALTIME_COARSE	5
#define CLOCK_MONOTONIC_COARSE	6
#define CLOCK_BOOTTIME		7
#define PR_SET_SECCOMP		22
#define SECCOMP_MODE_STRICT	1
#define VSYSCALL_LINE		"ffffffffff600000-ffffffffff601000"
#define VVAR_ADDRESS		0xffffffffff5ff000ul
#define VGTOD_VCLOCK_MODE	(128 + 4)	/* vvar: gtod at 128, vclock_mode after seq */


static long ts_cmp(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec ? a->tv_sec - b->tv_sec : a->tv_nsec - b->tv_nsec;
}

/* ---- each function against the system call ---- */

/* syscall <= vDSO <= syscall, many times over, for each clock served in user mode. */
static int test_clock_gettime(int clock, const char *name)
{
	struct timespec s1, v, s2;
	int i, r;

	for (i = 0; i < 1000; i++) {
		clock_gettime(clock, &s1);
		r = v_clock_gettime(clock, &v);
		clock_gettime(clock, &s2);
		if (r)
			return ktap_fail("vDSO clock_gettime(%s) returned %d", name, r);
		if (v.tv_nsec < 0 || v.tv_nsec >= 1000000000)
			return ktap_fail("tv_nsec %ld out of range", v.tv_nsec);
		if (ts_cmp(&s1, &v) > 0 || ts_cmp(&v, &s2) > 0)
			return ktap_fail("round %d: syscall %ld.%09ld, vDSO %ld.%09ld, syscall %ld.%09ld",
					 i, s1.tv_sec, s1.tv_nsec, v.tv_sec, v.tv_nsec,
					 s2.tv_sec, s2.tv_nsec);
	}
	return 1;
}

/* The clocks the vDSO serves in user mode. */
#define CLOCK_CASE(id)	static int test_##id(void) { return test_clock_gettime(id, #id); }
CLOCK_CASE(CLOCK_REALTIME)
CLOCK_CASE(CLOCK_MONOTONIC)
CLOCK_CASE(CLOCK_REALTIME_COARSE)
CLOCK_CASE(CLOCK_MONOTONIC_COARSE)

/* Clocks the vDSO leaves to the kernel give the kernel's answer, whatever it is. */
static int test_other_clocks(void)
{
	static const int others[] = { CLOCK_BOOTTIME, CLOCK_MONOTONIC_RAW,
				      CLOCK_PROCESS_CPUTIME_ID, 3, 8, 11 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(others); i++) {
		struct timespec s1, v, s2;
		long rs = clock_gettime(others[i], &s1);
		int rv = v_clock_gettime(others[i], &v);

		clock_gettime(others[i], &s2);
		if (rv != rs)
			return ktap_fail("clock %d: vDSO returned %d, the system call %ld", others[i], rv, rs);
		/* the CPU-time clocks need not be ordered against a wall clock; these are */
		if (!rs && (others[i] == CLOCK_BOOTTIME || others[i] == CLOCK_MONOTONIC_RAW) &&
		    (ts_cmp(&s1, &v) > 0 || ts_cmp(&v, &s2) > 0))
			return ktap_fail("clock %d: syscall %ld.%09ld, vDSO %ld.%09ld, syscall %ld.%09ld",
					 others[i], s1.tv_sec, s1.tv_nsec, v.tv_sec, v.tv_nsec,
					 s2.tv_sec, s2.tv_nsec);
	}
	return 1;
}

static int test_invalid_clock(void)
{
	static const int bad[] = { -1, 64, 100, 0x7fffffff };	/* Linux 6.17 made 16-23 aux clocks */
	struct timespec ts;
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if ((r = v_clock_gettime(bad[i], &ts)) != -EINVAL)
			return ktap_fail("clock_gettime(%d) returned %d, not -EINVAL", bad[i], r);
		if (v_clock_getres && (r = v_clock_getres(bad[i], &ts)) != -EINVAL)
			return ktap_fail("clock_getres(%d) returned %d, not -EINVAL", bad[i], r);
	}
	return 1;
}

static int test_gettimeofday(void)
{
	struct timeval s1, v, s2;
	struct timezone tzs = { -1, -1 }, tzv = { -2, -2 };
	int i, r;

	for (i = 0; i < 1000; i++) {
		gettimeofday(&s1, &tzs);
		r = v_gettimeofday(&v, &tzv);
		gettimeofday(&s2, NULL);
		if (r)
			return ktap_fail("vDSO gettimeofday returned %d", r);
		if (v.tv_usec < 0 || v.tv_usec >= 1000000)
			return ktap_fail("tv_usec %ld out of range", v.tv_usec);
		if (s1.tv_sec * 1000000 + s1.tv_usec > v.tv_sec * 1000000 + v.tv_usec ||
		    v.tv_sec * 1000000 + v.tv_usec > s2.tv_sec * 1000000 + s2.tv_usec)
			return ktap_fail("round %d: syscall %ld.%06ld, vDSO %ld.%06ld, syscall %ld.%06ld",
					 i, s1.tv_sec, s1.tv_usec, v.tv_sec, v.tv_usec,
					 s2.tv_sec, s2.tv_usec);
		if (tzs.tz_minuteswest != tzv.tz_minuteswest || tzs.tz_dsttime != tzv.tz_dsttime)
			return ktap_fail("time zone %d/%d, the system call's %d/%d", tzv.tz_minuteswest,
					 tzv.tz_dsttime, tzs.tz_minuteswest, tzs.tz_dsttime);
	}
	if ((r = v_gettimeofday(NULL, NULL)) != 0)
		return ktap_fail("gettimeofday(NULL, NULL) returned %d", r);
	return 1;
}

static int test_time(void)
{
	long s1, v, s2, t = -1;

	s1 = time(NULL);
	v = v_time(&t);
	s2 = time(NULL);
	if (t != v)
		return ktap_fail("time(&t) returned %ld but stored %ld", v, t);
	if (s1 > v || v > s2)
		return ktap_fail("syscall %ld, vDSO %ld, syscall %ld", s1, v, s2);
	return 1;
}

/* Pinned to the CPU it is on, a process must get the same answer both ways. */
static int test_getcpu(void)
{
	unsigned long mask[16] = { 0 };
	unsigned int cs, ns, cv = ~0u, nv = ~0u, only;
	long r;

	if ((r = getcpu(&cs, &ns, NULL)))
		return ktap_fail("the getcpu system call failed: %ld", r);
	mask[cs / 64] = 1ul << (cs % 64);
	sched_setaffinity(0, sizeof(mask), mask);
	getcpu(&cs, &ns, NULL);
	if ((r = v_getcpu(&cv, &nv, NULL)))
		return ktap_fail("vDSO getcpu returned %ld", r);
	if (cv != cs || nv != ns)
		return ktap_fail("vDSO says cpu %u node %u, the system call cpu %u node %u", cv, nv, cs, ns);
	if (v_getcpu(&only, NULL, NULL) || only != cs || v_getcpu(NULL, NULL, NULL))
		return ktap_fail("getcpu with NULL node or cpu failed");
	ktap_diag("getcpu: cpu %u node %u", cv, nv);
	return 1;
}

static int test_clock_getres(void)
{
	int clock;

	if (!v_clock_getres)
		return ktap_fail("no __vdso_clock_getres");
	for (clock = 0; clock < 12; clock++) {
		struct timespec rs = { -1, -1 }, rv = { -2, -2 };
		long s = clock_getres(clock, &rs);
		int v = v_clock_getres(clock, &rv);

		if (v != s || (!s && ts_cmp(&rs, &rv)))
			return ktap_fail("clock %d: vDSO %d %ld.%09ld, system call %ld %ld.%09ld", clock, v,
					 rv.tv_sec, rv.tv_nsec, s, rs.tv_sec, rs.tv_nsec);
		if (v_clock_getres(clock, NULL) != s)
			return ktap_fail("clock %d: with res NULL, not the system call's %ld", clock, s);
	}
	return 1;
}

/*
 * The legacy vsyscall page answers the same three questions at fixed
 * addresses (design.md). Where it answers (vsyscall=emulate, native,
 * xonly; Linux's xonly), its answers must fit between two of the vDSO's.
 * It runs in a child: in vsyscall=none, or before the page exists, the
 * call dies of SIGSEGV, and that is a skip, not a failure of the vDSO.
 */
static int child_vsyscall_agrees(void *arg)
{
	gettimeofday_fn vs_gettimeofday = vgettimeofday;
	time_fn vs_time = vtime;
	getcpu_fn vs_getcpu = vgetcpu;
	struct timeval a, s, b;
	unsigned int cv, nv, cs, ns;
	long t1, ts, t2;

	(void)arg;
	v_gettimeofday(&a, NULL);
	vs_gettimeofday(&s, NULL);
	v_gettimeofday(&b, NULL);
	if (a.tv_sec * 1000000 + a.tv_usec > s.tv_sec * 1000000 + s.tv_usec ||
	    s.tv_sec * 1000000 + s.tv_usec > b.tv_sec * 1000000 + b.tv_usec)
		return 1;
	t1 = v_time(NULL);
	ts = vs_time(NULL);
	t2 = v_time(NULL);
	if (t1 > ts || ts > t2)
		return 2;
	if (v_getcpu(&cv, &nv, NULL) || vs_getcpu(&cs, &ns, NULL) || cv != cs || nv != ns)
		return 3;
	return 0;
}

static int test_vsyscall_agrees(void)
{
	int st = run_in_child(child_vsyscall_agrees, NULL);
	char why[80];

	if (WIFSIGNALED(st)) {
		snprintf(why, sizeof(why), "the vsyscall page does not answer here (signal %d)",
			 WTERMSIG(st));
		return skip(why);
	}
	if (st)
		return ktap_fail("the vsyscall %s disagrees with the vDSO",
				 WEXITSTATUS(st) == 1 ? "gettimeofday" :
				 WEXITSTATUS(st) == 2 ? "time" : "getcpu");
	return 1;
}

/* ---- where it is mapped, exec after exec ---- */

static char maps[16384];

/*
 * The article's experiment: the same program, exec'd twice, finds the vDSO
 * somewhere else each time, and the vsyscall page where it always is. The
 * helper modes below run in the exec'd processes: the first records its
 * [vdso] and [vsyscall] lines and execs the second with them, which
 * compares and says by its exit status.
 */
enum { SAME_VDSO = 1, VSYSCALL_MOVED = 2, NO_MAPS = 3, EXEC_FAILED = 4 };

static int exec_helper(char *self, int argc, char **argv)
{
	char vd[160], vs[160] = "-";

	if (read_maps(maps, sizeof(maps)) <= 0 || !maps_line(maps, "[vdso]", vd, sizeof(vd)))
		return NO_MAPS;
	maps_line(maps, "[vsyscall]", vs, sizeof(vs));
	if (!strcmp(argv[1], "exec-first")) {
		char *args[] = { self, "exec-second", vd, vs, NULL };

		execve(self, args, environ);
		return EXEC_FAILED;
	}
	if (argc < 4)
		return NO_MAPS;
	printf("# exec 1: %s\n# exec 2: %s\n", argv[2], vd);
	if (strcmp(vs, "-"))
		printf("# exec 1: %s\n# exec 2: %s\n", argv[3], vs);
	if (hex(argv[2]) == hex(vd))
		return SAME_VDSO;
	if (strcmp(argv[3], vs) || (strcmp(vs, "-") && memcmp(vs, VSYSCALL_LINE, strlen(VSYSCALL_LINE))))
		return VSYSCALL_MOVED;
	return 0;
}

static char *self_path;

static int test_two_execs(void)
{
	long pid = fork(), r;
	int status;

	if (pid < 0)
		return ktap_fail("fork: %ld", pid);
	if (pid == 0) {
		char *args[] = { self_path, "exec-first", NULL };

		execve(self_path, args, environ);
		exit_group(EXEC_FAILED);
	}
	r = wait4(pid, &status, 0, NULL);
	if (r != pid || WIFSIGNALED(status))
		return ktap_fail("the helper died: wait4 %ld, status %#x", r, status);
	switch (WEXITSTATUS(status)) {
	case 0:
		return 1;
	case SAME_VDSO:
		return ktap_fail("both execs found the vDSO at the same address");
	case VSYSCALL_MOVED:
		return ktap_fail("[vsyscall] differs between the execs or is not at ffffffffff600000");
	case NO_MAPS:
		return ktap_fail("the helper found no [vdso] line");
	default:
		return ktap_fail("the helper could not exec %s", self_path);
	}
}

/* ---- seccomp: the vDSO makes no system call ---- */

/*
 * Strict seccomp allows read, write, exit and rt_sigreturn only; anything
 * else is SIGKILL. So a child that survives a clock_gettime in that mode
 * made no system call. It leaves with the raw exit (exit_group would be
 * killed too).
 */
static int seccomp_child(void *arg)
{
	struct timespec ts;
	long how = (long)arg;

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0))
		return 100;
	if (how == 0)
		v_clock_gettime(CLOCK_MONOTONIC, &ts);
	else if (how == 1)
		v_clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	else
		syscall2(__NR_clock_gettime, CLOCK_MONOTONIC, (long)&ts);
	exit(0);
}

/* ccos only: the vvar page's clock mode; VCLOCK_NONE (0) sends MONOTONIC to the kernel. */
static int ccos_clock_mode(void)
{
	return *(volatile int *)(VVAR_ADDRESS + VGTOD_VCLOCK_MODE);
}

static int seccomp_status(long how, int *status)
{
	*status = run_in_child(seccomp_child, (void *)how);
	return *status;
}

/*
 * On Linux, strict seccomp also disables RDTSC for the process (CR4.TSD,
 * disable_TSC): the vDSO's CLOCK_MONOTONIC then dies of SIGSEGV at its
 * rdtsc, not of SIGKILL at a syscall. Still no system call; ccos leaves
 * RDTSC alone, so there the call simply works.
 */
static int test_seccomp(void)
{
	int st, fine_in_user_mode = !on_ccos() || ccos_clock_mode() != 0;

	seccomp_status(2, &st);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
		return ktap_fail("the raw clock_gettime syscall under seccomp: status %#x, not SIGKILL", st);
	seccomp_status(1, &st);
	if (st)
		return ktap_fail("vDSO CLOCK_MONOTONIC_COARSE under seccomp: status %#x, not exit 0", st);
	seccomp_status(0, &st);
	if (!on_ccos() && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV) {
		ktap_diag("Linux: strict seccomp disabled RDTSC: the vDSO's rdtsc faulted (SIGSEGV), no syscall");
		return 1;
	}
	if (!on_ccos() && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
		ktap_diag("Linux: this host's clocksource cannot be read in user mode; its vDSO made the syscall");
		return 1;
	}
	if (fine_in_user_mode && st)
		return ktap_fail("vDSO CLOCK_MONOTONIC under seccomp: status %#x, not exit 0", st);
	if (!fine_in_user_mode && (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL))
		return ktap_fail("clock mode none: the vDSO should have asked the kernel and been killed; status %#x", st);
	if (!fine_in_user_mode)
		ktap_diag("clock mode none: the vDSO's CLOCK_MONOTONIC is a system call, and was killed");
	return 1;
}

/* ---- what it buys ---- */

/* TSC cycles per call, the best of several batches (gate.h's CYCLES_PER_CALL). */
static void measure(void)
{
	struct timespec ts;
	int i;

	for (i = 0; i < 100; i++)	/* warm the caches and the TLB */
		v_clock_gettime(CLOCK_MONOTONIC, &ts), clock_gettime(CLOCK_MONOTONIC, &ts);
	ktap_diag("clock_gettime(CLOCK_MONOTONIC): vDSO %lu cycles/call, system call %lu cycles/call",
		  CYCLES_PER_CALL(v_clock_gettime(CLOCK_MONOTONIC, &ts)),
		  CYCLES_PER_CALL(clock_gettime(CLOCK_MONOTONIC, &ts)));
	ktap_diag("vDSO CLOCK_MONOTONIC_COARSE %lu cycles/call, vDSO time %lu cycles/call",
		  CYCLES_PER_CALL(v_clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)),
		  CYCLES_PER_CALL(v_time(NULL)));
}

static const struct test tests[] = {
	{ "clock_gettime_realtime_between_two_syscalls", test_CLOCK_REALTIME },
	{ "clock_gettime_monotonic_between_two_syscalls", test_CLOCK_MONOTONIC },
	{ "clock_gettime_realtime_coarse_between_two_syscalls", test_CLOCK_REALTIME_COARSE },
	{ "clock_gettime_monotonic_coarse_between_two_syscalls", test_CLOCK_MONOTONIC_COARSE },
	{ "other_clocks_answered_by_the_kernel", test_other_clocks },
	{ "invalid_clock_einval", test_invalid_clock },
	{ "gettimeofday_between_two_syscalls", test_gettimeofday },
	{ "time_between_two_syscalls", test_time },
	{ "getcpu_equals_syscall", test_getcpu },
	{ "clock_getres_equals_syscall", test_clock_getres },
	{ "vsyscall_agrees_with_vdso", test_vsyscall_agrees },
	{ "two_execs_two_vdso_addresses_one_vsyscall", test_two_execs },
	{ "seccomp_strict_survives_vdso_dies_on_syscall", test_seccomp },
};

/* vdso_found_through_auxv first: without a vDSO the others are skipped. */
int main(int argc, char **argv, char **envp)
{
	size_t i;

	(void)envp;
	self_path = argv[0];
	if (argc >= 2 && !strncmp(argv[1], "exec-", 5))
		return exec_helper(argv[0], argc, argv);

	ktap_plan(1 + ARRAY_SIZE(tests));
	if (!ktap_ok(find_vdso(), "vdso_found_through_auxv")) {
		for (i = 0; i < ARRAY_SIZE(tests); i++)
			ktap_skip("no vDSO to test", tests[i].name);
		return ktap_done();
	}
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		run_case(tests[i].name, tests[i].run, 0);
	measure();
	return ktap_done();
}
