/*
 * Time types and clock ids of the Linux x86-64 ABI. Shared by the kernel and
 * by code that runs in user mode (the vDSO, the native vsyscall page): only
 * types and constants here, nothing that needs the kernel.
 */
#ifndef CCOS_TIME_TYPES_H
#define CCOS_TIME_TYPES_H

#include <ccos/types.h>

typedef int64_t time64_t;
typedef int clockid_t;

struct timespec {
	long tv_sec;
	long tv_nsec;		/* 0 .. 999999999 */
};

struct timeval {
	long tv_sec;
	long tv_usec;		/* 0 .. 999999 */
};

struct timezone {
	int tz_minuteswest;	/* minutes west of Greenwich */
	int tz_dsttime;		/* type of daylight-saving correction */
};

/* clockid_t values (Linux include/uapi/linux/time.h). */
#define CLOCK_REALTIME		0
#define CLOCK_MONOTONIC		1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID	3
#define CLOCK_MONOTONIC_RAW	4
#define CLOCK_REALTIME_COARSE	5
#define CLOCK_MONOTONIC_COARSE	6
#define CLOCK_BOOTTIME		7
#define CLOCK_REALTIME_ALARM	8
#define CLOCK_BOOTTIME_ALARM	9
#define CLOCK_TAI		11

/* The interval timers (setitimer) and a POSIX timer's setting (timer_settime). */
#define ITIMER_REAL		0
#define ITIMER_VIRTUAL		1
#define ITIMER_PROF		2
#define NR_ITIMERS		3

struct itimerval {
	struct timeval it_interval;
	struct timeval it_value;
};

struct itimerspec {
	struct timespec it_interval;
	struct timespec it_value;
};

#define NSEC_PER_USEC	1000L
#define NSEC_PER_MSEC	1000000L
#define NSEC_PER_SEC	1000000000L
#define USEC_PER_SEC	1000000L

#endif
