/*
 * muslvdso: an unmodified static musl program. musl finds the vDSO by
 * itself (AT_SYSINFO_EHDR, then __vdso_clock_gettime in LINUX_2.6) at its
 * first clock_gettime. Strict seccomp shows it: a child that calls
 * clock_gettime and time through musl survives, and one that makes the
 * same call as a raw system call is killed with SIGKILL.
 * Built by tools/tests/test_vdso.py with musl-gcc -static; prints KTAP.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SECCOMP_MODE_STRICT	1	/* <linux/seccomp.h>, which musl-gcc does not see */

enum { VIA_MUSL, RAW_SYSCALL };

/* The child's fate: only read, write, exit and rt_sigreturn are left to it. */
static int in_strict_seccomp(int how)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct timespec ts;

		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0))
			syscall(SYS_exit, 100);
		if (how == VIA_MUSL) {
			clock_gettime(CLOCK_MONOTONIC, &ts);	/* the first call: musl's lookup too */
			clock_gettime(CLOCK_REALTIME, &ts);
			time(NULL);
		} else {
			syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
		}
		syscall(SYS_exit, 0);	/* exit_group is not allowed either */
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

int main(void)
{
	int musl = in_strict_seccomp(VIA_MUSL), raw = in_strict_seccomp(RAW_SYSCALL);
	int ok1 = musl == 0, ok2 = raw >= 0 && WIFSIGNALED(raw) && WTERMSIG(raw) == SIGKILL;
	struct timespec ts;

	printf("KTAP version 1\n1..3\n");
	printf("# through musl under strict seccomp: wait status %#x\n", musl);
	printf("%s 1 musl_clock_gettime_survives_strict_seccomp\n", ok1 ? "ok" : "not ok");
	printf("# the raw system call under strict seccomp: wait status %#x\n", raw);
	printf("%s 2 raw_clock_gettime_syscall_is_killed\n", ok2 ? "ok" : "not ok");
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("# CLOCK_MONOTONIC %ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
	printf("%s 3 musl_clock_gettime_monotonic\n", ts.tv_sec >= 0 && ts.tv_nsec >= 0 ? "ok" : "not ok");
	return ok1 && ok2 ? 0 : 1;
}
