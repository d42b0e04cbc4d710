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

/*
 * A thread round: a plan drawn from the seed (make_threads), then, in a
 * forked child, its threads run it on every CPU of online (a CPU mask).
 */
struct thread_plan;
struct thread_plan *make_threads(void);
void trace_threads(long n, const struct thread_plan *p);
void run_threads(const struct thread_plan *p, unsigned long online) __attribute__((noreturn));

#endif
