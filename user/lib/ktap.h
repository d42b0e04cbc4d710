/* ktap: the one KTAP runner of the ring-3 programs, for ulib, musl and glibc alike (docs/testing.md). */
#ifndef USER_KTAP_H
#define USER_KTAP_H

/*
 * ktap.c uses only calls that ulib and the C libraries all have: fork,
 * setpgid, signal, alarm, waitpid, kill, _exit, printf and fflush. ulib is
 * built freestanding (__STDC_HOSTED__ 0); the musl and glibc programs are
 * ordinary hosted programs and get the headers they would include anyway.
 */
#if __STDC_HOSTED__
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#else
#include "ulib.h"
#endif

/*
 * The document: ktap_plan first ("KTAP version 1" and "1..N"), then one
 * result per case, numbered in order, and ktap_done last ("# Totals: ...");
 * ktap_done's value is the program's exit status: 1 if a case failed, else 0.
 */
void ktap_plan(int n);
int ktap_done(void);
/* A line "# ..." (the KTAP spec's diagnostic) of the current case. */
void ktap_diag(const char *fmt, ...) __printf(1, 2);

/* Record why the next result fails ("not ok N name # why"); returns 0 so that a case can return it. */
int ktap_fail(const char *fmt, ...) __printf(1, 2);
/* Print "ok N name" or "not ok N name # why" (and forget why); returns cond. */
int ktap_ok(int cond, const char *fmt, ...) __printf(2, 3);
/* Print "ok N name # SKIP reason". */
void ktap_skip(const char *reason, const char *name);

/*
 * A case returns 1 (passed), 0 (failed, with ktap_fail's reason) or
 * skip(why). run_case runs it in a child of its own, leading a process
 * group of its own where the kernel has them, under a watchdog: after
 * `seconds` (CASE_TIMEOUT if 0) the group is killed with SIGKILL and the
 * case is "not ok N name # timed out after S s". The child prints the
 * case's line; a child that ends without it is "not ok", with how it
 * ended. run_case returns 1 if the case passed or was skipped.
 */
#define SKIPPED		2
#define CASE_TIMEOUT	30
int skip(const char *why);
int run_case(const char *name, int (*run)(void), unsigned int seconds);

/* A program's cases: run_tests prints the plan, runs each and returns ktap_done(). */
struct test {
	const char *name;
	int (*run)(void);
	int needs_self;		/* reads or execs this program's file: a skip without self */
	unsigned int seconds;	/* its watchdog; 0: CASE_TIMEOUT */
};
int run_tests(const struct test *tests, unsigned long n);

/* This program's path, if argv[0] is one (find_self); else NULL. */
extern const char *self;
void find_self(const char *argv0);

/*
 * The watchdog alone: fn(arg) in a child (its exit status is fn's value),
 * killed with its group after `seconds`; the child's wait status,
 * CASE_TIMED_OUT, or a negative number if fork or waitpid failed.
 */
#define CASE_TIMED_OUT	(-1000)
int run_watched(int (*fn)(void *), void *arg, unsigned int seconds);

#endif
