/* KTAP output for user tests: plan, numbered results, skips and a verdict. */
#include "ulib.h"

static int ktap_next = 1;
static int ktap_failed, ktap_skipped;
static char ktap_reason[160];

void ktap_plan(int n)
{
	printf("KTAP version 1\n1..%d\n", n);
}

/* Record why the next result fails; returns 0 so a test can return it. */
int ktap_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ktap_reason, sizeof(ktap_reason), fmt, ap);
	va_end(ap);
	return 0;
}

/* Print "ok N name" or "not ok N name # reason"; returns cond. */
int ktap_ok(int cond, const char *fmt, ...)
{
	char name[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (cond)
		printf("ok %d %s\n", ktap_next++, name);
	else if (ktap_reason[0])
		printf("not ok %d %s # %s\n", ktap_next++, name, ktap_reason);
	else
		printf("not ok %d %s\n", ktap_next++, name);
	ktap_failed += !cond;
	ktap_reason[0] = '\0';
	return cond;
}

void ktap_skip(const char *reason, const char *name)
{
	printf("ok %d %s # SKIP %s\n", ktap_next++, name, reason);
	ktap_skipped++;
}

/* Count a result that a child printed (0 passed, 1 failed, 2 skipped). */
void ktap_count(int result)
{
	ktap_next++;
	ktap_failed += result == 1;
	ktap_skipped += result == 2;
}

void ktap_diag(const char *fmt, ...)
{
	char line[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("# %s\n", line);
}

/* Print the totals; the exit status is 0 if nothing failed, else 1. */
int ktap_done(void)
{
	int run = ktap_next - 1;

	printf("# Totals: pass:%d fail:%d skip:%d\n",
	       run - ktap_failed - ktap_skipped, ktap_failed, ktap_skipped);
	return ktap_failed ? 1 : 0;
}
