/* Kernel time: the tick, jiffies, and the clock API for system calls and the scheduler. */
#ifndef CCOS_TIME_H
#define CCOS_TIME_H

#include <ccos/types.h>
#include <ccos/time_types.h>
#include <asm/arch.h>

#define HZ		100	/* timer interrupts per second */
#define TICK_NSEC	(NSEC_PER_SEC / HZ)	/* a tick as HZ names it: what clock_getres reports */

/*
 * The kernel's view of the vvar page (kernel/time/vvar.c). `jiffies` is the
 * same memory as vvar.jiffies (offset 0): ticks since time_init, advanced
 * by the timer interrupt only.
 */
extern struct vvar_page vvar;
extern volatile unsigned long jiffies;

/*
 * The last nanosecond a time can name, as Linux's KTIME_MAX (in 2262 on
 * the wall clock, which cannot be set so far: SETTOD_SEC_MAX). Every user
 * time and length of time becomes nanoseconds through timespec_to_ns or
 * timeval_to_ns, which saturate here, and deadlines add with
 * ktime_add_safe: a deadline at KTIME_MAX is one no clock reaches.
 */
#define KTIME_MAX	((int64_t)(~0ull >> 1))
#define KTIME_SEC_MAX	(KTIME_MAX / NSEC_PER_SEC)

/* A valid time (tv_sec >= 0, tv_nsec below a second) in ns; KTIME_MAX from KTIME_SEC_MAX s on, as Linux. */
static inline int64_t timespec_to_ns(const struct timespec *ts)
{
	return ts->tv_sec >= KTIME_SEC_MAX ? KTIME_MAX : ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static inline int64_t timeval_to_ns(const struct timeval *tv)
{
	struct timespec ts = { tv->tv_sec, tv->tv_usec * NSEC_PER_USEC };

	return timespec_to_ns(&ts);
}

/* a + b, at most KTIME_MAX: a deadline a length of time from a time. */
static inline uint64_t ktime_add_safe(uint64_t a, uint64_t b)
{
	return a >= (uint64_t)KTIME_MAX || b >= KTIME_MAX - a ? KTIME_MAX : a + b;
}

/* Nanoseconds one tick really lasts (the PIT cannot divide exactly by HZ). */
extern uint64_t tick_nsec;

struct trap_frame;

/* Bring up ACPI, HPET, TSC, RTC, clocksource, timekeeping and the tick; enables interrupts. */

/*
 * Called from the timer interrupt after jiffies and time advanced, with
 * interrupts off and the interrupt already acknowledged. The scheduler
 * provides it; kernel/time/time.c has an empty weak one until then.
 */
void sched_tick(struct trap_frame *tf);

/* The clock API (Linux's clock ids and errno values). */
int do_clock_gettime(clockid_t clock, struct timespec *ts);	/* 0 or -EINVAL */
int do_clock_getres(clockid_t clock, struct timespec *res);	/* res may be NULL */
int do_gettimeofday(struct timeval *tv, struct timezone *tz);	/* either may be NULL */
time64_t ktime_get_real_seconds(void);	/* wall-clock seconds since the epoch */
uint64_t ktime_get_ns(void);		/* CLOCK_MONOTONIC in nanoseconds */
long timeout_deadline(const struct timespec __user *uts, uint64_t *deadline); /* 0: none */
int do_settimeofday(const struct timespec *ts, const struct timezone *tz);	/* either may be NULL */
void ktime_boot_wall(struct timespec *ts);	/* the wall clock at boot */

/*
 * The end of a wait (kernel/time/sys_time.c): a time of CLOCK_MONOTONIC,
 * or of the wall clock (CLOCK_REALTIME, CLOCK_TAI) for a wait until an
 * absolute time of it, which then follows the clock when it is set, as
 * Linux's hrtimers on the REALTIME base do. Such a wait sleeps on
 * clock_was_set (deadline_chan says so), which setting the clock wakes.
 */
struct deadline {
	clockid_t clock;
	uint64_t ns;		/* the time on clock; 0: none */
};
extern const char clock_was_set;
const void *deadline_chan(const struct deadline *d, const void *chan);	/* what to sleep on */
bool deadline_passed(const struct deadline *d);
void sleep_until_deadline(const void *chan, const struct deadline *d);

/* CPU-time clocks (kernel/time/posix-cpu-timers.c), under the kernel lock; -EINVAL for none. */
bool is_cpu_clock(clockid_t clock);
int cpu_clock_resolve(clockid_t clock, clockid_t *resolved);	/* pid 0 made the caller's */
int cpu_clock_sample(clockid_t resolved, uint64_t *ns);	/* anyone's, at any time */
int cpu_clock_gettime(clockid_t clock, struct timespec *ts);
int cpu_clock_getres(clockid_t clock, struct timespec *res);
long cpu_clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
			 struct timespec __user *rem);
/* cpu_clock_gettime or cpu_clock_getres from a lockless call, the lock taken for them (arch/x86/entry/common.c). */
int lockless_cpu_clock(int (*fn)(clockid_t clock, struct timespec *ts), clockid_t clock,
		       struct timespec *ts);

/* Timers (kernel/time/itimer.c, posix-timers.c): run from the scheduler's pass. */
struct process;
/* ran: the process the CPU just switched from, or NULL; its CPU-time timers run only then. */
void timers_run(uint64_t now, struct process *ran);	/* every timer whose time has come */
void itimers_run(uint64_t now, struct process *ran);	/* setitimer's */
bool cpu_clock_charged_by(clockid_t resolved, const struct process *t);	/* t's time moves it */
void exit_posix_timers(int tgid);		/* exec, and the process's end */

/* Timekeeping internals shared with the tick (kernel/time/time.c). */
struct clocksource;
void timekeeping_init(struct clocksource *cs, time64_t wall_sec);
void timekeeping_tick(void);
struct vsyscall_gtod_data;
/* Publish what fill writes into g under g's sequence counter (lab 5). */
void vgtod_publish(struct vsyscall_gtod_data *g, void (*fill)(struct vsyscall_gtod_data *g));

#endif
