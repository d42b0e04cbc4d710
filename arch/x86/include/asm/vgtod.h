/*
 * The time data the kernel publishes in the vvar page, and the one reader
 * of it. The reader is used by the kernel (do_clock_gettime), the native
 * vsyscall page and the vDSO alike, so this header calls nothing of the
 * kernel's: it reads memory, the TSC and the HPET, and nothing else.
 */
#ifndef CCOS_VGTOD_H
#define CCOS_VGTOD_H

#include <ccos/types.h>
#include <ccos/time_types.h>

/* How user mode can read the clocksource's counter. */
#define VCLOCK_NONE	0	/* it cannot: only coarse time, else a system call */
#define VCLOCK_TSC	1	/* rdtsc */
#define VCLOCK_HPET	2	/* the HPET main counter, mapped at HPET_USER_ADDR */

#define HPET_COUNTER_OFFSET	0xf0	/* main counter value register */

/*
 * Written by the timekeeping code (kernel/time/time.c) at every tick, read
 * anywhere. Time at the last tick is wall_time_sec + wall_time_snsec >>
 * shift; a reader adds the cycles since: ((counter - cycle_last) & mask)
 * * mult >> shift nanoseconds. Nanoseconds are kept shifted left by
 * `shift` so that summing ticks loses no fraction of a nanosecond: time
 * read just before a tick can never be later than time read just after.
 */
struct vsyscall_gtod_data {
	uint32_t seq;			/* odd while the kernel writes */
	int32_t vclock_mode;		/* VCLOCK_* */
	uint64_t cycle_last;		/* counter value at the last update */
	uint64_t mask;			/* counter width: 2^bits - 1 */
	uint32_t mult;			/* ns = cycles * mult >> shift */
	uint32_t shift;
	int64_t wall_time_sec;		/* CLOCK_REALTIME at cycle_last */
	uint64_t wall_time_snsec;	/* its nanoseconds << shift */
	struct timespec wall_to_monotonic; /* MONOTONIC = REALTIME + this */
	struct timespec wall_time_coarse;  /* REALTIME at the last tick */
	struct timezone sys_tz;
};

/* docs/time.md lists these offsets; code built apart (the vDSO) relies on them. */
BUILD_BUG_ON(offsetof(struct vsyscall_gtod_data, cycle_last) != 8);
BUILD_BUG_ON(offsetof(struct vsyscall_gtod_data, mult) != 24);
BUILD_BUG_ON(offsetof(struct vsyscall_gtod_data, wall_time_sec) != 32);
BUILD_BUG_ON(offsetof(struct vsyscall_gtod_data, wall_to_monotonic) != 48);
BUILD_BUG_ON(offsetof(struct vsyscall_gtod_data, wall_time_coarse) != 64);
BUILD_BUG_ON(offsetof(struct vsyscall_gtod_data, sys_tz) != 80);

/*
 * rdtsc may run before earlier loads complete; lfence keeps it after the
 * read of seq (SDM Vol. 2 RDTSC: "If software requires RDTSC to be
 * executed only after all previous instructions have executed ... it can
 * execute LFENCE immediately before RDTSC").
 */
static inline uint64_t vgtod_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * The reader (lab 6). The sequence counter: the writer makes seq odd,
 * writes, makes it even again. A reader that saw an odd value, or a
 * different value after reading, may have seen half an update and tries
 * again. On x86 loads are not reordered with loads, nor stores with
 * stores, so compiler barriers are all the ordering this needs.
 *
 * The counter: the TSC (vgtod_rdtsc), never taken below cycle_last: the
 * TSCs of two CPUs may differ a little, and time must not step back. Or
 * the HPET's main counter at HPET_COUNTER_OFFSET in hpet, 64 or 32 bits
 * wide (mask): a 32-bit one is read with a 32-bit load.
 *
 * vgtod_gettime reads clock `clock` into *ts. hpet is where the caller sees the HPET's
 * registers (the kernel: its ioremap; user mode: HPET_USER_ADDR), or NULL.
 * Returns false when this reader cannot answer: a clock id it does not
 * serve, or REALTIME/MONOTONIC/BOOTTIME with no user-readable counter
 * (VCLOCK_NONE). The caller then asks the kernel (a system call), which
 * falls back on its own jiffies-based time.
 */
/* LAB vdso: BEGIN */
static inline uint32_t vgtod_read_begin(const struct vsyscall_gtod_data *g)
{
	uint32_t seq;

	while ((seq = READ_ONCE(g->seq)) & 1)
		__asm__ volatile("pause");
	barrier();
	return seq;
}

static inline bool vgtod_read_retry(const struct vsyscall_gtod_data *g, uint32_t seq)
{
	barrier();
	return READ_ONCE(g->seq) != seq;
}

/* The HPET's main counter, 64 or 32 bits wide. */
static inline uint64_t vgtod_read_hpet(const struct vsyscall_gtod_data *g, const volatile void *hpet)
{
	const volatile char *counter = (const volatile char *)hpet + HPET_COUNTER_OFFSET;

	return g->mask > 0xffffffffu ? *(const volatile uint64_t *)counter
				     : *(const volatile uint32_t *)counter;
}

/*
 * The TSC, never below the value the kernel last saw: the TSCs of two
 * CPUs may differ a little, and time must not step back.
 */
static inline uint64_t vgtod_read_tsc(const struct vsyscall_gtod_data *g)
{
	uint64_t cycles = vgtod_rdtsc(), last = g->cycle_last;

	return (int64_t)(cycles - last) < 0 ? last : cycles;
}

static inline bool vgtod_gettime(const struct vsyscall_gtod_data *g,
				 const volatile void *hpet, clockid_t clock,
				 struct timespec *ts)
{
	uint64_t cycles, ns;
	int64_t sec;
	uint32_t seq;
	int mode;

	do {
		seq = vgtod_read_begin(g);
		switch (clock) {
		case CLOCK_REALTIME:
		case CLOCK_MONOTONIC:
		case CLOCK_BOOTTIME:	/* ccos never suspends: boot = monotonic */
			mode = g->vclock_mode;
			if (mode == VCLOCK_TSC)
				cycles = vgtod_read_tsc(g);
			else if (mode == VCLOCK_HPET && hpet)
				cycles = vgtod_read_hpet(g, hpet);
			else
				return false;
			/*
			 * shift is 32 at most (clocks_calc_mult_shift): saying
			 * it is under 64 lets the compiler shift the 128-bit
			 * sum with one shrd.
			 */
			ns = (uint64_t)(((unsigned __int128)((cycles - g->cycle_last) & g->mask)
					 * g->mult + g->wall_time_snsec) >> (g->shift & 63));
			sec = g->wall_time_sec;
			break;
		case CLOCK_REALTIME_COARSE:
		case CLOCK_MONOTONIC_COARSE:
			sec = g->wall_time_coarse.tv_sec;
			ns = g->wall_time_coarse.tv_nsec;
			break;
		default:
			return false;
		}
		if (clock != CLOCK_REALTIME && clock != CLOCK_REALTIME_COARSE) {
			sec += g->wall_to_monotonic.tv_sec;
			ns += g->wall_to_monotonic.tv_nsec;
		}
	} while (vgtod_read_retry(g, seq));

	/*
	 * ns is a few seconds at most (a tick's worth of cycles, plus the
	 * nanoseconds of two timespecs): subtracting costs less than a
	 * division, as in Linux's __iter_div_u64_rem.
	 */
	while (ns >= NSEC_PER_SEC) {
		ns -= NSEC_PER_SEC;
		sec++;
	}
	ts->tv_sec = sec;
	ts->tv_nsec = ns;
	return true;
}

/* LAB vdso: STUB
static inline bool vgtod_gettime(const struct vsyscall_gtod_data *g,
				 const volatile void *hpet, clockid_t clock,
				 struct timespec *ts)
{
	// 1. Loop: seq as the comment above says (wait while it is odd,
	//    compiler barriers), the reads, again if seq changed.
	// 2. REALTIME, MONOTONIC, BOOTTIME (ccos never suspends: BOOTTIME is
	//    MONOTONIC): the counter g->vclock_mode says; false for none.
	//    ns = ((counter - cycle_last) & mask) * mult + wall_time_snsec,
	//    shifted right by shift: a 128-bit product (unsigned __int128).
	// 3. The coarse clocks: wall_time_coarse. Any other id: false.
	// 4. MONOTONIC and MONOTONIC_COARSE add wall_to_monotonic.
	// 5. Carry whole seconds out of the nanoseconds, fill *ts, true.
	// Until then: the coarse clocks read once, and false for the rest
	// (the kernel then answers the fine clocks with the coarse time).
	(void)hpet;
	if (clock != CLOCK_REALTIME_COARSE && clock != CLOCK_MONOTONIC_COARSE)
		return false;
	*ts = g->wall_time_coarse;
	if (clock == CLOCK_MONOTONIC_COARSE) {
		ts->tv_sec += g->wall_to_monotonic.tv_sec + (ts->tv_nsec + g->wall_to_monotonic.tv_nsec) / NSEC_PER_SEC;
		ts->tv_nsec = (ts->tv_nsec + g->wall_to_monotonic.tv_nsec) % NSEC_PER_SEC;
	}
	return true;
}
   LAB vdso: END */

/* time(): the wall clock's seconds at the last tick; one aligned load. */
static inline time64_t vgtod_time(const struct vsyscall_gtod_data *g)
{
	return READ_ONCE(g->wall_time_coarse.tv_sec);
}

#endif
