/* gate.h: the fixed gate pages (vsyscall, vvar), the time functions' types, and rdtsc. */
#ifndef USER_GATE_H
#define USER_GATE_H

#include "linux.h"

/* The legacy vsyscall page's entries (design.md: Linux's fixed ABI). */
#define VSYSCALL_ADDR		0xffffffffff600000UL
#define VSYS_GETTIMEOFDAY	(VSYSCALL_ADDR + 0x000)
#define VSYS_TIME		(VSYSCALL_ADDR + 0x400)
#define VSYS_GETCPU		(VSYSCALL_ADDR + 0x800)
#define VVAR_ADDR		0xffffffffff5ff000UL	/* jiffies at 0, vgetcpu_mode at 16 */

/* The signatures the vsyscall entries and the vDSO's functions share. */
typedef int (*clock_gettime_fn)(int clock, struct timespec *ts);
typedef int (*gettimeofday_fn)(struct timeval *tv, struct timezone *tz);
typedef long (*time_fn)(long *t);
typedef long (*getcpu_fn)(unsigned int *cpu, unsigned int *node, void *tcache);

#define vgettimeofday	((gettimeofday_fn)VSYS_GETTIMEOFDAY)
#define vtime		((time_fn)VSYS_TIME)
#define vgetcpu		((getcpu_fn)VSYS_GETCPU)

/* The TSC, after every earlier instruction (lfence: SDM Vol. 2, RDTSC). */
static inline unsigned long rdtsc(void)
{
	unsigned int lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (unsigned long)hi << 32 | lo;
}

/*
 * Cycles for a batch of BATCH calls of `call`: the best of 5 batches,
 * since the tick (and under QEMU, the host) can only make a batch slower.
 * The batch's loop is never unrolled: make bench subtracts an empty
 * batch's cycles, which must count the same loop (GCC 14 unrolled the
 * empty one away, and every figure then kept the loop's instructions).
 */
#define BATCH	50
#define CYCLES_PER_BATCH(call) ({					\
	unsigned long best_ = ~0UL, t_;					\
	int b_, i_;							\
	for (b_ = 0; b_ < 5; b_++) {					\
		t_ = rdtsc();						\
		_Pragma("GCC unroll 1")					\
		for (i_ = 0; i_ < BATCH; i_++)				\
			call;						\
		t_ = rdtsc() - t_;					\
		if (t_ < best_)						\
			best_ = t_;					\
	}								\
	best_;								\
})
#define CYCLES_PER_CALL(call)	(CYCLES_PER_BATCH(call) / BATCH)

#endif
