/* testutil: what the ulib test programs share: addresses, expectations, time; the runner is ktap.h. */
#ifndef USER_TESTUTIL_H
#define USER_TESTUTIL_H

#include "ktap.h"

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

#endif
