/* labcheck's readers during updates: ring 3 on CPU 1 reads the clock while CPU 0 rewrites it (labs 5 and 6). */
#include "labcheck.h"
#include "vdsoutil.h"

#define STORM_MS		300
#define JUMP_SEC		100000	/* a torn read of a jump this size shows */

static uint64_t cpu_mask(int cpu)
{
	return 1ul << cpu;
}

/*
 * CPU 0: the wall clock set JUMP_SEC ahead and back again, as fast as the
 * system call goes, for STORM_MS; each update rewrites the vvar page's
 * time data under its sequence counter. Back means where it would be had
 * there been no jump, so the boot's wall clock ends right.
 */
static void storm(const struct timeval *start, long mono0)
{
	uint64_t cpu0 = cpu_mask(0);
	struct timeval t;
	long now;

	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		exit_group(2);
	while ((now = now_ns()) - mono0 < STORM_MS * MSEC) {
		t.tv_sec = start->tv_sec + JUMP_SEC;
		t.tv_usec = start->tv_usec;
		syscall2(__NR_settimeofday, (long)&t, 0);
		now = (now - mono0) / 1000 + start->tv_usec;
		t.tv_sec = start->tv_sec + now / 1000000;
		t.tv_usec = now % 1000000;
		if (syscall2(__NR_settimeofday, (long)&t, 0))
			exit_group(3);
	}
	exit_group(0);
}

/*
 * Run read_once on CPU 1, again and again, while CPU 0 storms; it returns
 * 0 with why filled in when it saw something no consistent update holds.
 */
static int during_storm(int (*read_once)(char *why, size_t size), const char *name)
{
	uint64_t cpu1 = cpu_mask(1), all = ~0ul;
	struct timeval start;
	char why[200] = "";
	long pid, mono0, reads = 0;
	int status, ok = 1, i;

	if (sched_setaffinity(0, sizeof(cpu1), &cpu1)) {
		ktap_skip("one CPU: no reader can run during an update", name);
		return -1;
	}
	gettimeofday(&start, NULL);
	mono0 = now_ns();
	pid = fork();
	if (pid == 0)
		storm(&start, mono0);
	while (pid > 0 && wait4(pid, &status, WNOHANG, NULL) == 0)
		for (i = 0; i < 1000 && ok; i++, reads++)
			ok = read_once(why, sizeof(why));
	sched_setaffinity(0, sizeof(all), &all);
	if (pid < 0)
		return ktap_fail("fork failed");
	ktap_diag("%ld reads on CPU 1 during %d ms of settimeofday on CPU 0", reads, STORM_MS);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return ktap_fail("the settimeofday loop on CPU 0 failed: status %#x", status);
	if (!ok)
		return ktap_fail("after %ld reads: %s", reads, why);
	return 1;
}

/*
 * The vvar page read as a reader must (seq even and unchanged around the
 * reads): each update writes the wall time twice, wall_time_sec and
 * wall_time_snsec, and wall_time_coarse. Read whole, they agree.
 */
static int vvar_consistent(char *why, size_t size)
{
	uint32_t seq, shift;
	long sec, csec, cnsec;
	uint64_t snsec;

	do {
		while ((seq = gtod->seq) & 1)
			__asm__ volatile("pause");
		sec = gtod->wall_time_sec;
		snsec = gtod->wall_time_snsec;
		shift = gtod->shift;
		csec = gtod->wall_time_coarse.tv_sec;
		cnsec = gtod->wall_time_coarse.tv_nsec;
	} while (gtod->seq != seq);
	if (sec == csec && cnsec == (long)(snsec >> (shift & 63)))
		return 1;
	snprintf(why, size, "seq %u: wall_time %ld s %lu ns, wall_time_coarse %ld s %ld ns: half of an update",
		 seq, sec, (unsigned long)(snsec >> (shift & 63)), csec, cnsec);
	return 0;
}

int test_vvar_never_torn(void)
{
	if (vvar_missing())
		return 0;
	return during_storm(vvar_consistent, "vvar_never_torn_across_cpus");
}

/* The vDSO's CLOCK_MONOTONIC: a jump of the wall clock leaves it alone, unless read torn. */
static int vdso_monotonic_steady(char *why, size_t size)
{
	static struct timespec prev;
	struct timespec now;
	long d;

	if (v_clock_gettime(CLOCK_MONOTONIC, &now)) {
		snprintf(why, size, "the vDSO's CLOCK_MONOTONIC failed");
		return 0;
	}
	d = (now.tv_sec - prev.tv_sec) * 1000000000L + now.tv_nsec - prev.tv_nsec;
	if (prev.tv_sec && (d < 0 || d > 1000000000L)) {
		snprintf(why, size, "CLOCK_MONOTONIC %ld.%09ld after %ld.%09ld: a torn read of an update",
			 now.tv_sec, now.tv_nsec, prev.tv_sec, prev.tv_nsec);
		return 0;
	}
	prev = now;
	return 1;
}

int test_vdso_never_torn(void)
{
	return during_storm(vdso_monotonic_steady, "vdso_never_torn_across_cpus");
}
