/* labcheck's clock checks: the TSC and the vvar page (lab 5), the vDSO (lab 6). */
#include "labcheck.h"
#include "vdsoutil.h"

#define CLOCK_REALTIME_COARSE	5
#define CLOCK_MONOTONIC_COARSE	6
#define VCLOCK_NONE		0
#define VCLOCK_TSC		1

static long ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000L + ts->tv_nsec;
}

/* ---- lab 5: the TSC and the vvar page ---- */

int test_clock_is_tsc(void)
{
	if (vvar_missing())
		return 0;
	if (gtod->vclock_mode != VCLOCK_TSC)
		return ktap_fail("vvar clock mode %d, not the TSC (%d): did the calibration fail? see the tsc: line",
				 gtod->vclock_mode, VCLOCK_TSC);
	if (!gtod->mult)
		return ktap_fail("vvar mult is 0: no TSC rate was published");
	return 1;
}

static uint64_t hpet_read(void)
{
	return *(volatile uint64_t *)(HPET_ADDRESS + HPET_COUNTER);
}

/*
 * The wall clock in ns as the vvar page gives it with the TSC, read here
 * with labcheck's own seqcount reader: not the kernel's nor the vDSO's
 * (lab 6), so that this lab's grade depends on this lab's code only.
 */
static long vvar_tsc_ns(void)
{
	uint64_t cycles, snsec, last, mask;
	uint32_t seq, mult, shift;
	long sec;

	do {
		while ((seq = gtod->seq) & 1)
			__asm__ volatile("pause");
		last = gtod->cycle_last;
		mask = gtod->mask;
		mult = gtod->mult;
		shift = gtod->shift;
		sec = gtod->wall_time_sec;
		snsec = gtod->wall_time_snsec;
		cycles = rdtsc();
	} while (gtod->seq != seq);
	return sec * 1000000000L +
	       (long)(((unsigned __int128)((cycles - last) & mask) * mult + snsec) >> (shift & 63));
}

/*
 * The vvar page's clock (the TSC, through the kernel's mult and shift)
 * against the HPET's counter over 200 ms: a calibration off by more than
 * 2 % shows here. The HPET's period is its own: the capabilities register.
 */
int test_tsc_rate(void)
{
	uint32_t period;
	uint64_t h0, h1;
	long a, b, clock_ns, hpet_ns, permille;

	if (vvar_missing())
		return 0;
	if (!readable(HPET_ADDRESS))
		return ktap_fail("ring 3 cannot read the HPET page at %#lx (lab 1)", HPET_ADDRESS);
	if (gtod->vclock_mode != VCLOCK_TSC)
		return ktap_fail("the clock is not the TSC (vvar clock mode %d): nothing to compare",
				 gtod->vclock_mode);
	period = *(volatile uint32_t *)(HPET_ADDRESS + HPET_PERIOD);
	if (!period || period > 100000000)
		return ktap_fail("HPET period %u fs: is the HPET page mapped (lab 1)?", period);
	h0 = hpet_read();
	a = vvar_tsc_ns();
	sleep_ns(200 * MSEC);
	h1 = hpet_read();
	b = vvar_tsc_ns();
	clock_ns = b - a;
	hpet_ns = (long)((h1 - h0) * period / 1000000);
	permille = hpet_ns ? (clock_ns - hpet_ns) * 1000 / hpet_ns : 1000;
	ktap_diag("200 ms: the vvar clock %ld ns, HPET %ld ns", clock_ns, hpet_ns);
	if (permille > 20 || permille < -20)
		return ktap_fail("the vvar page's clock ran %ld ns while the HPET counted %ld ns: the TSC rate is off by %ld.%ld %%",
				 clock_ns, hpet_ns, permille / 10, (permille < 0 ? -permille : permille) % 10);
	return 1;
}

/*
 * The writer, CPU 0's tick, makes seq odd, writes, makes it even. A
 * process on CPU 0 never runs inside that update, so every value it reads
 * is even (on another CPU it may catch one half done, as the seqcount
 * allows); over 100 ms of ticks it must have moved on.
 */
int test_vvar_seq(void)
{
	uint64_t cpu0 = 1;
	uint32_t first, seq;
	unsigned long j0;
	long end;

	if (vvar_missing())
		return 0;
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		return ktap_fail("sched_setaffinity to CPU 0 failed");
	end = now_ns() + 100 * MSEC;
	first = seq = gtod->seq;
	j0 = jiffies;
	while (now_ns() < end) {
		seq = gtod->seq;
		if (seq & 1)
			return ktap_fail("ring 3 read an odd seq (%u): the update is not finished when it leaves the kernel",
					 seq);
	}
	if (seq == first)
		return ktap_fail("seq stayed %u over 100 ms (%lu ticks): the updates do not move it",
				 seq, jiffies - j0);
	if ((seq - first) & 1)
		return ktap_fail("seq moved from %u to %u: an odd step", first, seq);
	return 1;
}

/* ---- lab 6: the vDSO ---- */

static int within(const struct timespec *lo, const struct timespec *v, const struct timespec *hi)
{
	return ts_ns(lo) <= ts_ns(v) && ts_ns(v) <= ts_ns(hi);
}

int test_vdso_clocks(void)
{
	static const long clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC,
				       CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE };
	struct timespec a, v, b;
	unsigned int i;
	long r;

	for (i = 0; i < ARRAY_SIZE(clocks); i++) {
		clock_gettime(clocks[i], &a);
		r = v_clock_gettime(clocks[i], &v);
		clock_gettime(clocks[i], &b);
		if (r)
			return ktap_fail("clock %ld: the vDSO returned %ld", clocks[i], r);
		if (!within(&a, &v, &b))
			return ktap_fail("clock %ld: the vDSO said %ld.%09ld, the system call %ld.%09ld then %ld.%09ld",
					 clocks[i], v.tv_sec, v.tv_nsec, a.tv_sec, a.tv_nsec, b.tv_sec, b.tv_nsec);
	}
	return 1;
}

/* Under strict seccomp, a CPU-time clock through the vDSO: SIGKILL if it asks the kernel. */
static int cputime_under_seccomp(void *arg)
{
	struct timespec ts;

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0))
		return 100;
	v_clock_gettime((long)arg, &ts);
	syscall1(__NR_exit, 0);
	return 101;
}

/*
 * Valid clocks the vDSO does not answer itself (vdso_serves): BOOTTIME,
 * MONOTONIC_RAW, TAI and the CPU-time clocks get the system call's
 * answer, whatever the kernel says of them; and for the CPU-time clocks,
 * which only the kernel can know, the vDSO must have asked it (a system
 * call under strict seccomp: SIGKILL), not said -EINVAL on its own.
 */
int test_vdso_other_clocks(void)
{
	static const long clocks[] = { 7 /* BOOTTIME */, 4 /* MONOTONIC_RAW */, 11 /* TAI */,
				       2 /* PROCESS_CPUTIME_ID */, 3 /* THREAD_CPUTIME_ID */ };
	struct timespec a, v, b;
	unsigned int i;
	long r, sys;
	int st;

	for (i = 0; i < ARRAY_SIZE(clocks); i++) {
		sys = clock_gettime(clocks[i], &a);
		r = v_clock_gettime(clocks[i], &v);
		clock_gettime(clocks[i], &b);
		if (r != sys)
			return ktap_fail("clock %ld: the vDSO returned %ld, the system call %ld", clocks[i], r, sys);
		if (!r && !within(&a, &v, &b))
			return ktap_fail("clock %ld: the vDSO said %ld.%09ld, the system call %ld.%09ld then %ld.%09ld",
					 clocks[i], v.tv_sec, v.tv_nsec, a.tv_sec, a.tv_nsec, b.tv_sec, b.tv_nsec);
		if (clocks[i] > 3)
			continue;
		st = run_in_child(cputime_under_seccomp, (void *)clocks[i]);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
			return ktap_fail("clock %ld under strict seccomp: status %#x; the vDSO must ask the kernel, "
					 "which alone knows CPU time", clocks[i], st);
	}
	return 1;
}

/*
 * The vDSO's REALTIME against the vvar page read here (vvar_tsc_ns): the
 * kernel's system call uses the same reader as the vDSO, so agreeing with
 * it proves little; agreeing with the page's data and the TSC does.
 */
int test_vdso_matches_vvar(void)
{
	struct timespec v;
	long a, b;

	if (gtod->vclock_mode != VCLOCK_TSC)
		return ktap_fail("the clock is not the TSC (vvar clock mode %d)", gtod->vclock_mode);
	a = vvar_tsc_ns();
	if (v_clock_gettime(CLOCK_REALTIME, &v))
		return ktap_fail("the vDSO's CLOCK_REALTIME failed");
	b = vvar_tsc_ns();
	if (ts_ns(&v) < a || ts_ns(&v) > b)
		return ktap_fail("the vDSO said %ld ns; the vvar page and the TSC said %ld then %ld", ts_ns(&v), a, b);
	return 1;
}

int test_vdso_gettimeofday(void)
{
	struct timeval a, v, b;
	struct timezone tz = { -1, -1 }, ktz;
	long r;

	gettimeofday(&a, &ktz);
	r = v_gettimeofday(&v, &tz);
	gettimeofday(&b, NULL);
	if (r)
		return ktap_fail("the vDSO's gettimeofday returned %ld", r);
	if (a.tv_sec * 1000000 + a.tv_usec > v.tv_sec * 1000000 + v.tv_usec ||
	    v.tv_sec * 1000000 + v.tv_usec > b.tv_sec * 1000000 + b.tv_usec)
		return ktap_fail("the vDSO said %ld.%06ld, the system call %ld.%06ld then %ld.%06ld",
				 v.tv_sec, v.tv_usec, a.tv_sec, a.tv_usec, b.tv_sec, b.tv_usec);
	if (tz.tz_minuteswest != ktz.tz_minuteswest || tz.tz_dsttime != ktz.tz_dsttime)
		return ktap_fail("time zone %d/%d, the system call's %d/%d", tz.tz_minuteswest,
				 tz.tz_dsttime, ktz.tz_minuteswest, ktz.tz_dsttime);
	if (v_gettimeofday(NULL, &tz))
		return ktap_fail("gettimeofday(NULL, &tz) failed");
	return 1;
}

/*
 * Strict seccomp allows read, write, exit and rt_sigreturn: any other
 * system call is SIGKILL. A child that survives its calls made none.
 */
static int calls_under_seccomp(void *arg)
{
	struct timespec ts;
	struct timeval tv;
	int fine = arg != NULL;

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0))
		return 100;
	v_clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	v_clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	if (fine) {
		v_clock_gettime(CLOCK_MONOTONIC, &ts);
		v_clock_gettime(CLOCK_REALTIME, &ts);
		v_gettimeofday(&tv, NULL);
	}
	syscall1(__NR_exit, 0);		/* exit_group is not allowed */
	return 101;
}

static int served_in_user_mode;

int test_vdso_user_mode(void)
{
	int fine, st;

	if (vvar_missing())
		return 0;
	fine = gtod->vclock_mode != VCLOCK_NONE;
	st = run_in_child(calls_under_seccomp, fine ? (void *)1 : NULL);

	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		return ktap_fail("killed under strict seccomp: the vDSO made a system call for %s",
				 fine ? "a fine or a coarse clock" : "a coarse clock");
	served_in_user_mode = expect_exit(st, 0, "the calls under strict seccomp");
	return served_in_user_mode;
}

/* Many reads across several ticks: a torn read of the vvar page would step back. */
int test_vdso_monotonic(void)
{
	struct timespec prev, now;
	long i, start;

	if (!served_in_user_mode)
		return ktap_fail("not tried: the vDSO does not answer in user mode yet");
	v_clock_gettime(CLOCK_MONOTONIC, &prev);
	start = ts_ns(&prev);
	for (i = 0; i < 2000000 && ts_ns(&prev) - start < 50 * MSEC; i++) {
		v_clock_gettime(CLOCK_MONOTONIC, &now);
		if (ts_ns(&now) < ts_ns(&prev))
			return ktap_fail("call %ld: %ld.%09ld after %ld.%09ld", i, now.tv_sec, now.tv_nsec,
					 prev.tv_sec, prev.tv_nsec);
		prev = now;
	}
	return 1;
}

int test_vdso_einval(void)
{
	struct timespec ts;

	return expect(v_clock_gettime(12345, &ts), -EINVAL, "clock 12345 through the vDSO");
}

/* Without a counter user mode can read, the fine clocks are the kernel's. */
int test_vdso_fallback(void)
{
	struct timespec a, v, b;
	int st;

	if (vvar_missing())
		return 0;
	if (gtod->vclock_mode != VCLOCK_NONE) {
		ktap_skip("the clock has a counter here; a clocksource=jiffies boot checks this",
			  "vdso_falls_back_without_counter");
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (v_clock_gettime(CLOCK_MONOTONIC, &v))
		return ktap_fail("the vDSO's CLOCK_MONOTONIC failed");
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (!within(&a, &v, &b))
		return ktap_fail("CLOCK_MONOTONIC %ld.%09ld, outside the system call's %ld.%09ld..%ld.%09ld",
				 v.tv_sec, v.tv_nsec, a.tv_sec, a.tv_nsec, b.tv_sec, b.tv_nsec);
	st = run_in_child(calls_under_seccomp, (void *)1);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
		return ktap_fail("the fine clocks under seccomp: status %#x; with no counter they must make the system call",
				 st);
	return 1;
}
