/* KTAP output for the musl programs: plan, numbered results, a reason for a failure. */
#ifndef MUSL_KTAP_H
#define MUSL_KTAP_H

#include <stdarg.h>
#include <stdio.h>

static int ktap_next = 1, ktap_failed, ktap_skipped;
static char ktap_reason[200];

/* Record why the current case fails; returns 0 so that a case can return it. */
static int __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ktap_reason, sizeof(ktap_reason), fmt, ap);
	va_end(ap);
	return 0;
}

static void ktap_plan(int n)
{
	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
}

/* stdout is flushed after each line: a fork must not copy unwritten output. */
static void ktap_ok(int ok, const char *name)
{
	if (ok)
		printf("ok %d %s\n", ktap_next, name);
	else if (ktap_reason[0])
		printf("not ok %d %s # %s\n", ktap_next, name, ktap_reason);
	else
		printf("not ok %d %s\n", ktap_next, name);
	fflush(stdout);
	ktap_next++;
	ktap_failed += !ok;
	ktap_reason[0] = '\0';
}

static void __attribute__((unused)) ktap_skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ktap_next++, name, why);
	fflush(stdout);
	ktap_skipped++;
}

static int ktap_done(void)
{
	printf("# Totals: pass:%d fail:%d skip:%d\n", ktap_next - 1 - ktap_failed - ktap_skipped,
	       ktap_failed, ktap_skipped);
	return ktap_failed != 0;
}

#endif
