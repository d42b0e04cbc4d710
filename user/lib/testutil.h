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

/* 1 if the kernel is ccos (uname): its own contract applies exactly; else Linux's answers. */
int on_ccos(void);
long meminfo_kb(const char *field);
/* Every byte of [p, p + n) is c. */
int all_bytes(const char *p, unsigned long n, int c);
/*
 * Fill [p, p + len) by reading the open /dev/zero zero into it: the kernel's
 * copy gives each page its frame at its first touch (docs/memory.md), and
 * stops short when no frame is left, where a store of the program's own
 * would have it killed. The bytes filled.
 */
unsigned long fill_from_zero(char *p, unsigned long len, long zero);
/* A test's own folder in /tmp (the program makes it), and test_dir/name in one of a few rotating buffers. */
extern char test_dir[64];
const char *in_dir(const char *name);
/* Make the data and stack a case will use this process's own, before it reads MemFree (testutil.c). */
void own_memory(void);
/* The whole of a small file into buf, NUL-terminated: its length, or the error. */
long slurp(const char *file, char *buf, long size);
/* The state letter of /proc/PID/stat once it is want (after at most 2 s: what it is then); 0: no such file. */
char state_of(long pid, char want);

long now_ns(void);
long sleep_ns(long ns);
void *map_pages(int n);

/* This program's path, if argv[0] is one (find_self); else NULL. */
extern const char *self;
void find_self(const char *argv0);

/*
 * A case returns 1 (passed), 0 (failed, with ktap_fail's reason) or
 * skip(why). run_case runs it in a child of its own, in a process group
 * of its own where the kernel has them, under a watchdog: after `seconds`
 * (CASE_TIMEOUT if 0) the child and its group are killed and the case is
 * `not ok N name # timed out`. It prints the one KTAP line and returns 1
 * if the case passed or was skipped.
 */
#define SKIPPED		2
#define CASE_TIMEOUT	30
int skip(const char *why);
int run_case(const char *name, int (*run)(void), unsigned int seconds);

/* What a case's child did: one of these, or a wait status (run_watched). */
#define CASE_TIMED_OUT	(-1000)
int run_watched(int (*fn)(void *), void *arg, unsigned int seconds);

/* One KTAP line per test; a test that needs self skips without it. */
struct test {
	const char *name;
	int (*run)(void);
	int needs_self;		/* reads or execs this program's file */
	unsigned int seconds;	/* its watchdog; 0: CASE_TIMEOUT */
};
int run_tests(const struct test *tests, unsigned long n);

#endif
