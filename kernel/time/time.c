/* The clock API for system calls and the scheduler: clock_gettime, clock_getres, gettimeofday, ktime_*. */
#include <ccos/time.h>
#include <ccos/clock.h>
#include <asm/arch.h>
#include <ccos/errno.h>

static const struct vsyscall_gtod_data *const gtod = &vvar.vsyscall_gtod_data;

static bool clock_id_valid(clockid_t clock)
{
	switch (clock) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		return true;
	}
	return false;
}

/*
 * Two clocks are others under another name here. CLOCK_MONOTONIC_RAW is
 * the counter without NTP's corrections, and ccos makes none: it is
 * CLOCK_MONOTONIC. CLOCK_TAI is CLOCK_REALTIME plus the TAI offset that
 * adjtimex sets (37 s since 2017), which ccos never sets, so 0, as on a
 * Linux machine no NTP daemon told. The vDSO leaves both to the kernel.
 */
static clockid_t clock_served_as(clockid_t clock)
{
	if (clock == CLOCK_MONOTONIC_RAW)
		return CLOCK_MONOTONIC;
	if (clock == CLOCK_TAI)
		return CLOCK_REALTIME;
	return clock;
}

/*
 * The kernel reads time with the same reader as user mode, through its
 * own mapping of the HPET. With the jiffies clocksource (VCLOCK_NONE) the
 * reader has no counter to interpolate with; the kernel's time then
 * advances by whole ticks, which is exactly what the coarse clocks hold.
 */
int do_clock_gettime(clockid_t clock, struct timespec *ts)
{
	if (is_cpu_clock(clock))
		return cpu_clock_gettime(clock, ts);
	if (!clock_id_valid(clock))
		return -EINVAL;
	clock = clock_served_as(clock);
	if (vgtod_gettime(gtod, hpet_regs, clock, ts))
		return 0;
	vgtod_gettime(gtod, NULL, clock == CLOCK_REALTIME ? CLOCK_REALTIME_COARSE
							  : CLOCK_MONOTONIC_COARSE, ts);
	return 0;
}

/*
 * A clock's resolution, as Linux gives it, is its timers': on ccos a
 * sleep or a timer ends at the scheduler's first pass past its deadline
 * (wake_sleepers in kernel/sched/sched.c, which runs the timers), the next
 * tick unless a switch comes sooner, since the local APIC timer runs
 * periodic and nothing is programmed to fire at a deadline. That is
 * Linux's hrtimer without high resolution (CONFIG_HIGH_RES_TIMERS off,
 * or highres=off), whose resolution is then LOW_RES_NSEC, a tick: so
 * every clock here, as the coarse ones are on any Linux. Reading a clock
 * is finer (the clocksource's count), but that is not what this says.
 * The tick as HZ names it (TICK_NSEC), not the PIT's slightly longer one.
 */
int do_clock_getres(clockid_t clock, struct timespec *res)
{
	if (is_cpu_clock(clock))
		return cpu_clock_getres(clock, res);
	if (!clock_id_valid(clock))
		return -EINVAL;
	if (res)
		*res = (struct timespec){ 0, TICK_NSEC };
	return 0;
}

int do_gettimeofday(struct timeval *tv, struct timezone *tz)
{
	struct timespec ts;

	if (tv) {
		do_clock_gettime(CLOCK_REALTIME, &ts);
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / NSEC_PER_USEC;
	}
	if (tz)
		*tz = gtod->sys_tz;
	return 0;
}

time64_t ktime_get_real_seconds(void)
{
	return vgtod_time(gtod);
}

uint64_t ktime_get_ns(void)
{
	struct timespec ts;

	do_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}
