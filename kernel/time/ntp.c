/* adjtimex and clock_adjtime: the NTP state of the clock, which ccos reads out and never steers. */
#include <ccos/syscall.h>
#include <ccos/time.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>

/*
 * Linux's NTP code slews CLOCK_REALTIME (and CLOCK_MONOTONIC with it) by
 * a frequency and an offset that a daemon sets through adjtimex; the
 * counter itself is CLOCK_MONOTONIC_RAW. ccos has none of that: its
 * clocks run at the clocksource's measured rate (docs/time.md). adjtimex
 * reads the state as Linux's is on a machine no daemon ever told: no
 * frequency or offset, the clock unsynchronised (STA_UNSYNC), and so the
 * return value TIME_ERROR, the errors at their limit (NTP_PHASE_LIMIT),
 * the tick 1/USER_HZ in microseconds, the TAI offset 0 (CLOCK_TAI is
 * CLOCK_REALTIME, kernel/time/time.c). A call that would set something
 * is EPERM, Linux's answer to a caller that may not set the clock: ccos
 * keeps no NTP state to set (settimeofday steps the clock, sys_time.c).
 */
#define ADJ_OFFSET_READONLY	0x2000
#define ADJ_ADJTIME		0x8000	/* the old adjtime(), with ADJ_OFFSET_SINGLESHOT's bit 0 */
#define STA_UNSYNC		0x0040
#define TIME_ERROR		5
#define NTP_PHASE_LIMIT		16000000	/* us: the largest error NTP reports */
#define USER_HZ			100
#define MAXFREQ_PPM		500		/* the largest frequency offset, ppm ... */
#define PPM_SCALE_SHIFT		16		/* ... which timex gives scaled by 2^16 */

/* Linux's struct __kernel_timex, as x86-64 lays it out: 208 bytes. */
struct timex {
	unsigned int modes;
	int pad0;
	long offset, freq, maxerror, esterror;
	int status;
	int pad1;
	long constant, precision, tolerance;
	struct timeval time;
	long tick, ppsfreq, jitter;
	int shift;
	int pad2;
	long stabil, jitcnt, calcnt, errcnt, stbcnt;
	int tai;
	int pad3[11];
};

_Static_assert(sizeof(struct timex) == 208, "struct timex is Linux's");

/*
 * The modes Linux lets anyone use (timekeeping_validate_timex): 0, or
 * adjtime()'s with ADJ_OFFSET_READONLY, which reads what is left of its
 * offset (none here) and applies no other bit.
 */
static long check_modes(unsigned int modes)
{
	if (modes & ADJ_ADJTIME)
		return modes & ADJ_OFFSET_READONLY ? 0 : -EPERM;
	return modes ? -EPERM : 0;
}

static long do_adjtimex(struct timex __user *utx)
{
	struct timex tx;
	struct timespec now;
	long err;

	if (copy_from_user(&tx, utx, sizeof(tx)))
		return -EFAULT;
	if ((err = check_modes(tx.modes)))
		return err;
	do_clock_gettime(CLOCK_REALTIME, &now);
	tx = (struct timex){
		.modes = tx.modes,
		.maxerror = NTP_PHASE_LIMIT,
		.esterror = NTP_PHASE_LIMIT,
		.status = STA_UNSYNC,
		.constant = 2,		/* Linux's starting PLL time constant */
		.precision = 1,
		.tolerance = (long)MAXFREQ_PPM << PPM_SCALE_SHIFT,
		.time = { now.tv_sec, now.tv_nsec / NSEC_PER_USEC },
		.tick = (USEC_PER_SEC + USER_HZ / 2) / USER_HZ,
	};
	if (copy_to_user(utx, &tx, sizeof(tx)))
		return -EFAULT;
	return TIME_ERROR;
}

long sys_adjtimex(struct timex __user *utx)
{
	return do_adjtimex(utx);
}

/*
 * Only CLOCK_REALTIME can be adjusted (Linux's posix_clock_realtime_adj);
 * another clock Linux knows is EOPNOTSUPP (any CPU-time clock id, before
 * its pid is looked at; the alarm clocks), one it does not EINVAL.
 */
long sys_clock_adjtime(clockid_t clock, struct timex __user *utx)
{
	if (clock == CLOCK_REALTIME)
		return do_adjtimex(utx);
	if (is_cpu_clock(clock) || clock == CLOCK_REALTIME_ALARM || clock == CLOCK_BOOTTIME_ALARM ||
	    !do_clock_getres(clock, NULL))
		return -EOPNOTSUPP;
	return -EINVAL;
}
