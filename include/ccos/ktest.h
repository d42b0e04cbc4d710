/* In-kernel tests: cases in a linker section, run with `ktest`, reported as KTAP. */
#ifndef CCOS_KTEST_H
#define CCOS_KTEST_H

#include <ccos/types.h>

struct trap_frame;

struct ktest {
	const char *name;
	void (*fn)(void);
};

/*
 * __aligned(8) keeps GCC from raising the entry's alignment to 16 (it
 * does so for 16-byte objects): the section would then get padding that
 * the runner, walking from __ktest_start, would take for an entry.
 */
#define KTEST(name)							\
	static void ktest_##name(void);					\
	static const struct ktest ktest_entry_##name			\
		__section(".ktest") __attribute__((used, aligned(8))) =	\
		{ #name, ktest_##name };				\
	static void ktest_##name(void)

void ktest_fail(const char *file, int line, const char *fmt, ...) __printf(3, 4);
/* The case cannot run on this machine: KTAP's `ok N name # SKIP reason`. */
void ktest_skip(const char *reason);

#define KEXPECT(cond)							\
	do {								\
		if (!(cond))						\
			ktest_fail(__FILE__, __LINE__, "expected %s", #cond); \
	} while (0)

#define KEXPECT_EQ(actual, expected)					\
	do {								\
		int64_t a_ = (int64_t)(actual), e_ = (int64_t)(expected); \
		if (a_ != e_)						\
			ktest_fail(__FILE__, __LINE__,			\
				   "%s == %s: expected %ld (0x%lx), got %ld (0x%lx)", \
				   #actual, #expected, e_, e_, a_, a_);	\
	} while (0)

#define KEXPECT_STREQ(actual, expected)					\
	do {								\
		const char *a_ = (actual), *e_ = (expected);		\
		if (strcmp(a_, e_))					\
			ktest_fail(__FILE__, __LINE__,			\
				   "%s: expected \"%s\", got \"%s\"",	\
				   #actual, e_, a_);			\
	} while (0)

/* Run fn(arg); return the vector of the exception it raised, or -1. */
int ktest_expect_fault(void (*fn)(void *), void *arg);
extern uint64_t ktest_fault_cr2, ktest_fault_error;
bool ktest_catch_fault(struct trap_frame *tf);
__noreturn void ktest_run_all(void);

#endif
