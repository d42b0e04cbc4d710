/* The in-kernel test runner: runs every KTEST case and prints KTAP. */
#include <ccos/ktest.h>
#include <ccos/printk.h>
#include <asm/arch.h>
#include <ccos/power.h>

extern const struct ktest __ktest_start[], __ktest_end[];

static bool case_failed;
static const char *skip_reason;
static const struct ktest *current_case;

void ktest_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk("    # %s: %s:%d: %s\n", current_case->name, file, line, msg);
	case_failed = true;
}

void ktest_skip(const char *reason)
{
	skip_reason = reason;
}

/*
 * The expected-fault helper: __builtin_setjmp remembers this frame; when
 * fn faults, the trap handler (still on this stack, below us) jumps back
 * here with __builtin_longjmp, dropping the trap frame.
 */
static void *catch_buf[5];
static bool catch_armed;
static int caught_vector;
uint64_t ktest_fault_cr2, ktest_fault_error;

bool ktest_catch_fault(struct trap_frame *tf)
{
	if (!catch_armed)
		return false;
	catch_armed = false;
	caught_vector = tf->vector;
	ktest_fault_error = tf->error_code;
	ktest_fault_cr2 = read_cr2();
	__builtin_longjmp(catch_buf, 1);
}

int __attribute__((noinline)) ktest_expect_fault(void (*fn)(void *), void *arg)
{
	uint64_t flags = read_rflags();

	caught_vector = -1;
	if (__builtin_setjmp(catch_buf) == 0) {
		catch_armed = true;
		fn(arg);
		catch_armed = false;
	}
	if (flags & RFLAGS_IF)	/* the trap gate cleared IF */
		sti();
	return caught_vector;
}

void ktest_run_all(void)
{
	const struct ktest *t;
	int n = 1, failed = 0, skipped = 0;

	printk("KTAP version 1\n1..%ld\n", (long)(__ktest_end - __ktest_start));
	for (t = __ktest_start; t < __ktest_end; t++, n++) {
		current_case = t;
		case_failed = false;
		skip_reason = NULL;
		t->fn();
		if (skip_reason && !case_failed) {
			printk("ok %d %s # SKIP %s\n", n, t->name, skip_reason);
			skipped++;
			continue;
		}
		printk("%s %d %s\n", case_failed ? "not ok" : "ok", n, t->name);
		failed += case_failed;
	}
	printk("# ktest: %d passed, %d failed, %d skipped\n", n - 1 - failed - skipped, failed,
	       skipped);
	power_off(failed ? 1 : 0);
}
