/* fuzz's timer races: in a thread round, threads create, set, read and delete timers that fire at threads that exit. */
#include "fuzz.h"

#define SIGUSR2			12
#define SIGEV_SIGNAL		0
#define SIGEV_NONE		1
#define SIGEV_THREAD_ID		4
#define TIMER_ABSTIME		1
#define ITIMER_VIRTUAL		1
#define ITIMER_PROF		2
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID	3
#define THREAD_SCHED_CLOCK(tid)	((int)(~(unsigned int)(tid) << 3) | 6)	/* Linux's encoding */
#define TIMER_IDS		4	/* the ids the operations name: most of the round's timers */

struct sigevent_raw {
	unsigned long value;
	int signo, notify, tid;
	int pad[11];
};

struct itimerval_raw {
	long interval_sec, interval_usec, value_sec, value_usec;
};

/*
 * One operation of a thread round on the process's timers, whose ids
 * the threads share: create one on a clock of time, of the process or of
 * a thread (maybe one that is gone or about to go), to the process, to a
 * thread or to nobody (or, rarely, SIGALRM to the process: no sigevent); set one, relative or absolute, to a few ms with a
 * 1 ms interval or to stop; read it and its overruns; delete it; or set
 * ITIMER_VIRTUAL or ITIMER_PROF, whose default action would end the round
 * (so rarely). Every signal is SIGUSR1 or SIGUSR2, which the round
 * handles, and the exit deletes whatever is still armed. tid is a thread
 * of the round, 0, or a tid no process has.
 */
void timer_op(const unsigned long *r, long tid)
{
	static const int clocks[] = { CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_PROCESS_CPUTIME_ID,
				      CLOCK_THREAD_CPUTIME_ID, -1 };
	static const int notify[] = { SIGEV_SIGNAL, SIGEV_THREAD_ID, SIGEV_NONE, SIGEV_THREAD_ID };
	struct sigevent_raw ev = { .value = r[2], .signo = r[2] & 1 ? SIGUSR1 : SIGUSR2,
				   .notify = notify[r[1] >> 4 & 3], .tid = (int)tid };
	struct timespec its[2] = { { 0, (long)(r[2] >> 8 & 1) * MSEC },
				   { 0, (long)((r[2] >> 9) % 8 + 1) * MSEC } }, now, out[2];
	int clock = clocks[r[1] % ARRAY_SIZE(clocks)], id = r[3] % TIMER_IDS, flags = 0;
	struct itimerval_raw iv = { 0, (long)(r[2] >> 8 & 1) * 1000, 0, (long)((r[2] >> 12) % 8) * 1000 };

	if (clock == -1)
		clock = THREAD_SCHED_CLOCK(tid);
	switch (r[0] % 8) {
	case 0:
	case 1: {
		int created;

		syscall3(__NR_timer_create, clock, r[1] >> 6 & 63 ? (long)&ev : 0, (long)&created);
		break;
	}
	case 2:
	case 3:
		if (r[3] >> 4 & 1 && !clock_gettime(CLOCK_MONOTONIC, &now)) {
			its[1].tv_sec = now.tv_sec;
			its[1].tv_nsec = now.tv_nsec < 900 * MSEC ? now.tv_nsec + 10 * MSEC : 0;
			flags = TIMER_ABSTIME;
		}
		if (!(r[3] >> 5 & 7))
			its[1] = (struct timespec){ 0, 0 };	/* stop it */
		syscall4(__NR_timer_settime, id, flags, (long)its, r[3] >> 8 & 1 ? (long)out : 0);
		break;
	case 4: syscall2(__NR_timer_gettime, id, (long)out); break;
	case 5: syscall1(__NR_timer_getoverrun, id); break;
	case 6: syscall1(__NR_timer_delete, id); break;
	default:
		if (!(r[1] >> 20 & 15))
			syscall3(__NR_setitimer, r[1] >> 24 & 1 ? ITIMER_PROF : ITIMER_VIRTUAL, (long)&iv, 0);
		else
			syscall2(__NR_timer_gettime, id, (long)out);
	}
}
