/* testutil: what the test programs share: addresses, expectations, time, a table runner. */
#ifndef USER_TESTUTIL_H
#define USER_TESTUTIL_H

#include "ulib.h"

#define KERNEL_ADDR	0xffffffff80000000UL
#define VSYSCALL_ADDR	0xffffffffff600000UL
#define NONCANONICAL	0x0000800000000000UL
#define MSEC		1000000L

/* 1 if as expected; else 0, with the reason for the next KTAP line. */
int expect(long got, long want, const char *what);
int expect_exit(int status, int code, const char *what);
int expect_signal(int status, int sig, const char *what);

long now_ns(void);
long sleep_ns(long ns);
void *map_pages(int n);

/* This program's path, if argv[0] is one (find_self); else NULL. */
extern const char *self;
void find_self(const char *argv0);

/* One KTAP line per test; a test that needs self skips without it. */
struct test {
	const char *name;
	int (*run)(void);
	int needs_self;		/* reads or execs this program's file */
};
int run_tests(const struct test *tests, unsigned long n);
/* A test that cannot run on this machine sets the reason: a KTAP skip. */
extern const char *test_skip_reason;

#endif
