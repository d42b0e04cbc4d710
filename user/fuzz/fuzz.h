/* fuzz: what user/fuzz.c and its thread rounds (user/fuzz/threads.c) share. */
#ifndef USER_FUZZ_H
#define USER_FUZZ_H

#include "testutil.h"

struct call {
	unsigned long nr, a[6];
};

/* The sequence of a seed (xorshift64*), hostile arguments, and one random call. */
unsigned long next_random(void);
unsigned long random_arg(void);
unsigned long hostile(unsigned long r);	/* random_arg's values, from r's bits */
void make_call(struct call *c);
/* kill, tkill and tgkill aimed at the process tgid itself; reboot replaced. */
void aim_call(struct call *c, long tgid);
void trace_call(const char *what, long n, const struct call *c);
/* SysV shared memory (user/fuzz/shm.c): shm calls aimed at segments that exist; all of them removed. */
void aim_shm_call(struct call *c, unsigned long r);
void remove_segments(void);

/*
 * A thread round: a plan drawn from the seed (make_threads), then, in a
 * forked child, its threads run it on every CPU of online (a CPU mask).
 */
struct thread_plan;
struct thread_plan *make_threads(void);
void trace_threads(long n, const struct thread_plan *p);
void run_threads(const struct thread_plan *p, unsigned long online) __attribute__((noreturn));

/* A thread round's descriptors (user/fuzz/fdops.c): set up, changed, slept on, and the sleepers woken. */
void fds_setup(void);
void fd_op(const unsigned long *r);
void block_op(const unsigned long *r, int thread);
void fds_drain(void);
/* A thread round's timers (user/fuzz/timerops.c): tid is a thread of the round, 0 or nobody's. */
void timer_op(const unsigned long *r, long tid);
#define FUZZ_FILES	4		/* the rounds' files of /tmp: /tmp/fuzz-fd0 ... */
#define FUZZ_MODEL_FILE	"/tmp/fuzz-model"
void fuzz_file_name(char *name, int len, unsigned long i);
#define FUZZ_SPRAY	16		/* directories made and removed over freed memory */
void fuzz_spray_name(char *name, int len, int i);

/*
 * The check rounds: each runs in a child of its own and writes what it saw
 * wrong, a line each, to fd (report); 0 if all was right.
 */
int check_copyout(int fd);		/* user/fuzz/copyout.c */
int check_sigframes(int fd);		/* user/fuzz/sigframe.c */
int check_file_model(int fd);		/* user/fuzz/filemodel.c */
int check_fork_after_fill(int fd);	/* user/fuzz/memfill.c */
int check_time_values(int fd);		/* user/fuzz/timevals.c */
int check_interrupted_sleeps(int fd);	/* user/fuzz/sleepsig.c */
#define FUZZ_FIFO	"/tmp/fuzz-fifo"	/* the sleep check's */
int report(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));	/* 1 */
#define CANARY		0x5a		/* what a buffer holds before the kernel writes it */
int kernel_address(unsigned long v);	/* in the kernel half, and not -4095 ... -1 */

#endif
