/* Timekeeping: advance wall and monotonic time from the clocksource at each tick, set the wall clock, and publish both in the vvar page. */
#include <ccos/time.h>
#include <ccos/clock.h>
#include <asm/arch.h>
#include <ccos/errno.h>
#include <ccos/lab.h>
#include <ccos/spinlock.h>

/*
 * The kernel's own record, changed under timekeeping_lock with interrupts
 * off: by CPU 0's tick, and by settimeofday on any CPU. Wall time at
 * cycle_last is sec + snsec >> shift; snsec keeps the nanoseconds
 * shifted, with their fraction.
 */
static struct {
	struct clocksource *cs;
	uint64_t cycle_last;
	int64_t sec;
	uint64_t snsec;
	struct timespec wall_to_monotonic;
	struct timezone tz;
} tk;
static DEFINE_SPINLOCK(timekeeping_lock);
static struct timespec boot_wall;	/* the wall clock when timekeeping started */

/* Copy tk to the vvar page's time data; update_vsyscall makes it safe to read meanwhile. */
static void vgtod_fill(struct vsyscall_gtod_data *g)
{
	g->vclock_mode = tk.cs->vclock_mode;
	g->cycle_last = tk.cycle_last;
	g->mask = tk.cs->mask;
	g->mult = tk.cs->mult;
	g->shift = tk.cs->shift;
	g->wall_time_sec = tk.sec;
	g->wall_time_snsec = tk.snsec;
	g->wall_to_monotonic = tk.wall_to_monotonic;
	g->wall_time_coarse.tv_sec = tk.sec;
	g->wall_time_coarse.tv_nsec = tk.snsec >> tk.cs->shift;
	g->sys_tz = tk.tz;
}

/*
 * Publish what fill writes into g under g's sequence counter
 * (arch/x86/include/asm/vgtod.h): a reader on another CPU, or ring 3
 * reading between two of fill's stores, must see seq odd or changed and
 * read again. The tick calls this with g the vvar page's copy and fill
 * vgtod_fill; the in-kernel tests (timekeeping_test.c) with their own.
 */
void vgtod_publish(struct vsyscall_gtod_data *g, void (*fill)(struct vsyscall_gtod_data *g))
{
	/* LAB timekeeping: BEGIN */
	WRITE_ONCE(g->seq, g->seq + 1);		/* odd: readers wait or retry */
	barrier();
	fill(g);
	barrier();
	WRITE_ONCE(g->seq, g->seq + 1);		/* even: consistent again */
	/* LAB timekeeping: STUB
	// Readers (asm/vgtod.h) wait while seq is odd and read again when it
	// changed. Make it say so around fill(g),
	// and keep the compiler from moving stores across those steps.
	lab_todo("05-timekeeping");
	fill(g);
	   LAB timekeeping: END */
}

static void update_vsyscall(void)
{
	vgtod_publish(&vvar.vsyscall_gtod_data, vgtod_fill);
}

/* Start time at wall_sec (from the RTC); monotonic time starts at 0. */
void timekeeping_init(struct clocksource *cs, time64_t wall_sec)
{
	tk.cs = cs;
	tk.cycle_last = cs->read();
	tk.sec = wall_sec;
	tk.snsec = 0;
	tk.wall_to_monotonic.tv_sec = -wall_sec;
	tk.wall_to_monotonic.tv_nsec = 0;
	boot_wall.tv_sec = wall_sec;
	update_vsyscall();
}

/* The clocksource's cycles since cycle_last, added to the wall time: exact in shifted nanoseconds. */
static void forward_now(void)
{
	const struct clocksource *cs = tk.cs;
	unsigned __int128 sum;
	uint64_t now, ns;

	now = cs->read();
	sum = (unsigned __int128)((now - tk.cycle_last) & cs->mask) * cs->mult + tk.snsec;
	tk.cycle_last = now;
	ns = (uint64_t)(sum >> cs->shift);
	tk.sec += ns / NSEC_PER_SEC;
	tk.snsec = (uint64_t)(ns % NSEC_PER_SEC) << cs->shift |
		   (uint64_t)(sum & ((1ul << cs->shift) - 1));
}

/*
 * The timer interrupt's share: one more jiffy, and the clocksource's
 * cycles since the last tick added to the wall time. The sum is exact in
 * shifted nanoseconds, so readers see no step at the tick. For the jiffies
 * clocksource, the jiffy counted here is the cycle it reads.
 */
void timekeeping_tick(void)
{
	spin_lock(&timekeeping_lock);
	WRITE_ONCE(vvar.jiffies, vvar.jiffies + 1);
	forward_now();
	update_vsyscall();
	spin_unlock(&timekeeping_lock);
}

/*
 * settimeofday and clock_settime(CLOCK_REALTIME): the wall clock jumps to
 * ts and monotonic time goes on unmoved, so wall_to_monotonic takes the
 * jump the other way; readers of the vvar page (the vDSO, the vsyscall
 * page, the kernel) see the new time at once, under the sequence counter.
 * As Linux's do_settimeofday64: -EINVAL for a time before the boot, which
 * would put monotonic time ahead of the wall clock. tz, if given, is the
 * time zone gettimeofday reports.
 */
int do_settimeofday(const struct timespec *ts, const struct timezone *tz)
{
	struct timespec wtm;
	int err = 0;

	spin_lock(&timekeeping_lock);
	if (tz)
		tk.tz = *tz;
	if (ts) {
		forward_now();
		/* wtm - (ts - now), normalized to 0 <= tv_nsec < 1e9 as the readers add it */
		wtm.tv_sec = tk.wall_to_monotonic.tv_sec - ts->tv_sec + tk.sec;
		wtm.tv_nsec = tk.wall_to_monotonic.tv_nsec - ts->tv_nsec +
			      (int64_t)(tk.snsec >> tk.cs->shift);
		while (wtm.tv_nsec < 0) {
			wtm.tv_nsec += NSEC_PER_SEC;
			wtm.tv_sec--;
		}
		while (wtm.tv_nsec >= NSEC_PER_SEC) {
			wtm.tv_nsec -= NSEC_PER_SEC;
			wtm.tv_sec++;
		}
		if (wtm.tv_sec > 0 || (wtm.tv_sec == 0 && wtm.tv_nsec > 0)) {
			err = -EINVAL;
		} else {
			tk.sec = ts->tv_sec;
			tk.snsec = (uint64_t)ts->tv_nsec << tk.cs->shift;
			tk.wall_to_monotonic = wtm;
		}
	}
	update_vsyscall();
	spin_unlock(&timekeeping_lock);
	return err;
}

/* The wall clock's time at the boot, as the RTC gave it (what the modules' files are dated). */
void ktime_boot_wall(struct timespec *ts)
{
	*ts = boot_wall;
}
