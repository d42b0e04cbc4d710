/* threadutil.h: what the musl thread programs share: the thread id, time, /proc's thread state and status. */
#ifndef MUSL_THREADUTIL_H
#define MUSL_THREADUTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline long gettid_(void)
{
	return syscall(SYS_gettid);
}

static inline long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Wait until thread tid sleeps in the kernel (its state in /proc/TID/stat
 * is S), polling for up to 20 s: 1 if it does, 0 if not.
 */
static inline int wait_until_sleeping(long tid)
{
	char file[64], line[256], *p;
	int i;

	snprintf(file, sizeof(file), "/proc/%ld/stat", tid);
	for (i = 0; i < 20000; i++) {
		FILE *f = fopen(file, "r");
		int sleeping = 0;

		if (f && fgets(line, sizeof(line), f) && (p = strrchr(line, ')')))
			sleeping = p[1] == ' ' && p[2] == 'S';
		if (f)
			fclose(f);
		if (sleeping)
			return 1;
		sleep_ms(1);
	}
	return 0;
}

/* The value of a "Field:\t..." line of /proc/self/status, or -1. */
static inline long status_field(const char *field)
{
	char line[128];
	size_t n = strlen(field);
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

#endif
