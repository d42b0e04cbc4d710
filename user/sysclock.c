/* sysclock: setting the wall clock (settimeofday, clock_settime) and every reader, timer and sleeper following it; /dev/rtc; adjtimex. */
#include "vdsoutil.h"

#define RTC_RD_TIME		0x80247009
#define EPERM			1
#define EBUSY			16
#define BAD_POINTER		8l	/* the unmapped first page */
#define CLOCK_REALTIME_COARSE	5

struct rtc_time {
	int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year, tm_wday, tm_yday, tm_isdst;
};

static long settimeofday(const struct timeval *tv, const struct timezone *tz)
{
	return syscall2(__NR_settimeofday, (long)tv, (long)tz);
}

static long clock_settime(int clock, const struct timespec *ts)
{
	return syscall2(__NR_clock_settime, clock, (long)ts);
}

static long ns_of(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000L + ts->tv_nsec;
}

static long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ns_of(&ts);
}

static struct timespec ts_of(long ns)
{
	return (struct timespec){ ns / 1000000000L, ns % 1000000000L };
}

/* Values Linux refuses before it looks at who asks: EINVAL (and EFAULT), never a moved clock. */
static int test_settimeofday_einval(void)
{
	struct timeval tv = { time(NULL), -1 };
	struct timezone tz = { 15 * 60 + 1, 0 };
	long r;

	if (!expect(settimeofday(&tv, NULL), -EINVAL, "settimeofday(usec -1)"))
		return 0;
	tv.tv_usec = 1000000;		/* Linux takes it as 1e9 ns, then refuses that */
	if (!expect(settimeofday(&tv, NULL), -EINVAL, "settimeofday(usec 1000000)"))
		return 0;
	tv = (struct timeval){ -1, 0 };
	if (!expect(settimeofday(&tv, NULL), -EINVAL, "settimeofday(sec -1)") ||
	    !expect(settimeofday((void *)BAD_POINTER, NULL), -EFAULT, "settimeofday(bad pointer)"))
		return 0;
	/* Linux checks CAP_SYS_TIME before the zone: a host without it says EPERM. */
	r = settimeofday(NULL, &tz);
	if (r == -EPERM && !on_ccos())
		return skip("no CAP_SYS_TIME here: the zone's check comes after it");
	return expect(r, -EINVAL, "settimeofday(zone 15 h 1 min west)");
}

static int test_clock_settime_einval(void)
{
	struct timespec ts = { time(NULL), 0 }, bad = { time(NULL), -1 };

	return expect(clock_settime(CLOCK_MONOTONIC, &ts), -EINVAL, "clock_settime(MONOTONIC)") &&
	       expect(clock_settime(CLOCK_REALTIME_COARSE, &ts), -EINVAL, "clock_settime(COARSE)") &&
	       expect(clock_settime(1000, &ts), -EINVAL, "clock_settime(1000)") &&
	       expect(clock_settime(CLOCK_REALTIME, &bad), -EINVAL, "clock_settime(nsec -1)") &&
	       expect(clock_settime(CLOCK_REALTIME, (void *)BAD_POINTER), -EFAULT,
		      "clock_settime(bad pointer)");
}

static int have_vsyscall_page(void)
{
	char maps[8192], line[256];

	return read_maps(maps, sizeof(maps)) > 0 && maps_line(maps, "[vsyscall]", line, sizeof(line));
}

/* got within [want, want + 2 s): read after the clock was set to want. */
static int near(long got, long want, const char *who)
{
	if (got >= want && got < want + 2000000000L)
		return 1;
	return ktap_fail("%s reads %ld.%09ld, set to %ld.%09ld", who, got / 1000000000L,
			 got % 1000000000L, want / 1000000000L, want % 1000000000L);
}

/* Every way to read the wall clock: the system calls, the vDSO, the vsyscall page. */
static int readers_agree(long want)
{
	struct timespec ts;
	struct timeval tv;
	int ok = 1;

	clock_gettime(CLOCK_REALTIME, &ts);
	ok = ok && near(ns_of(&ts), want, "clock_gettime");
	gettimeofday(&tv, NULL);
	ok = ok && near(tv.tv_sec * 1000000000L + tv.tv_usec * 1000L, want / 1000 * 1000, "gettimeofday");
	ok = ok && near(time(NULL) * 1000000000L, want / 1000000000L * 1000000000L, "time");
	v_clock_gettime(CLOCK_REALTIME, &ts);
	ok = ok && near(ns_of(&ts), want, "the vDSO's clock_gettime");
	v_clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	ok = ok && near(ns_of(&ts), want / 1000000000L * 1000000000L, "the vDSO's REALTIME_COARSE");
	v_gettimeofday(&tv, NULL);
	ok = ok && near(tv.tv_sec * 1000000000L + tv.tv_usec * 1000L, want / 1000 * 1000,
			"the vDSO's gettimeofday");
	ok = ok && near(v_time(NULL) * 1000000000L, want / 1000000000L * 1000000000L, "the vDSO's time");
	if (ok && have_vsyscall_page()) {
		vgettimeofday(&tv, NULL);
		ok = near(tv.tv_sec * 1000000000L + tv.tv_usec * 1000L, want / 1000 * 1000,
			  "the vsyscall page's gettimeofday") &&
		     near(vtime(NULL) * 1000000000L, want / 1000000000L * 1000000000L,
			  "the vsyscall page's time");
	}
	return ok;
}

/*
 * The clock set 1000.5 s ahead: every reader sees it at once, and
 * CLOCK_MONOTONIC goes on as it was. The clock is put back by what
 * CLOCK_MONOTONIC measured meanwhile, whatever the checks found.
 */
static int have_vdso;		/* find_vdso() in main */

static int test_clock_settime_moves_every_reader(void)
{
	long real0, mono0 = now_ns(), target, mono1;
	struct timespec ts;
	int ok;

	if (!on_ccos())
		return skip("it would move the host's clock");
	if (!have_vdso)
		return ktap_fail("no vDSO to read (see above)");
	real0 = realtime_ns();
	target = real0 + 1000500000000L;
	ts = ts_of(target);
	if (!expect(clock_settime(CLOCK_REALTIME, &ts), 0, "clock_settime(+1000.5 s)"))
		return 0;
	ok = readers_agree(target);
	mono1 = now_ns();
	ts = ts_of(real0 + (now_ns() - mono0));
	if (!expect(clock_settime(CLOCK_REALTIME, &ts), 0, "clock_settime(back)"))
		return 0;
	if (ok && mono1 - mono0 > 2000000000L)
		return ktap_fail("CLOCK_MONOTONIC jumped %ld ns with the wall clock", mono1 - mono0);
	return ok && near(realtime_ns(), ns_of(&ts), "clock_gettime, once put back");
}

/* settimeofday: the time and the zone, which gettimeofday and the vDSO's report. */
static int test_settimeofday_sets_time_and_zone(void)
{
	long real0, mono0 = now_ns();
	struct timeval tv;
	struct timezone tz = { -60, 0 }, got = { 1, 1 }, vgot = { 1, 1 }, utc = { 0, 0 };
	int ok;

	if (!on_ccos())
		return skip("it would move the host's clock");
	if (!have_vdso)
		return ktap_fail("no vDSO to read (see above)");
	real0 = realtime_ns();
	tv = (struct timeval){ real0 / 1000000000L - 3600, 0 };
	if (!expect(settimeofday(&tv, &tz), 0, "settimeofday(an hour back, zone UTC+1)"))
		return 0;
	ok = readers_agree(tv.tv_sec * 1000000000L);
	gettimeofday(&tv, &got);
	v_gettimeofday(&tv, &vgot);
	tv = (struct timeval){ (real0 + now_ns() - mono0) / 1000000000L,
			       (real0 + now_ns() - mono0) % 1000000000L / 1000 };
	if (!expect(settimeofday(&tv, &utc), 0, "settimeofday(back, UTC)"))
		return 0;
	if (ok && (got.tz_minuteswest != -60 || vgot.tz_minuteswest != -60 || got.tz_dsttime))
		return ktap_fail("the zone reads %d (vDSO %d), set to -60", got.tz_minuteswest,
				 vgot.tz_minuteswest);
	return ok;
}

/* A time before the boot would put CLOCK_MONOTONIC ahead of the wall clock: EINVAL, as Linux. */
static int test_clock_settime_before_boot_einval(void)
{
	struct timespec epoch = { 0, 0 };

	if (!on_ccos())
		return skip("if this host took it, its clock would go back to 1970");
	return expect(clock_settime(CLOCK_REALTIME, &epoch), -EINVAL, "clock_settime(1970)");
}

/* ---- timers and sleepers of wall-clock time follow the clock when it is set ---- */

#define SEC			1000000000L
#define SIGEV_SIGNAL		0
#define SIGEV_NONE		1

struct sigevent_raw {
	unsigned long value;
	int signo, notify, tid, pad[11];
};

/* Set the wall clock to real0 + off + the monotonic time since mono0: 1, or 0 with the reason. */
static int set_clock(long real0, long mono0, long off)
{
	struct timespec ts = ts_of(real0 + off + (now_ns() - mono0));

	return expect(clock_settime(CLOCK_REALTIME, &ts), 0, "clock_settime");
}

static long timer_left(int id)
{
	struct timespec cur[2];

	return syscall2(__NR_timer_gettime, id, (long)cur) ? -1 : ns_of(&cur[1]);
}

/*
 * A timer set to an absolute CLOCK_REALTIME time is due when the clock
 * reads it: with the clock set 1000 s back it has 1000 s more to go, and
 * set past the time it fires at once. One set to a relative time counts
 * on unmoved (Linux keeps both kinds so, hrtimer's REALTIME and MONOTONIC
 * bases).
 */
static int test_wall_timer_follows_the_clock(void)
{
	struct sigevent_raw ev = { .signo = SIGUSR1, .notify = SIGEV_SIGNAL },
			    none = { .notify = SIGEV_NONE };
	struct timespec its[2] = { { 0, 0 }, { 100, 0 } }, five = { 5, 0 };
	sigset_t usr1 = 1ul << (SIGUSR1 - 1);
	long real0 = realtime_ns(), mono0 = now_ns(), abs_left, rel_left, sig;
	int abs_id, rel_id;

	if (!on_ccos())
		return skip("it would move the host's clock");
	rt_sigprocmask(SIG_BLOCK, &usr1, NULL, sizeof(usr1));
	if (syscall3(__NR_timer_create, CLOCK_REALTIME, (long)&ev, (long)&abs_id) ||
	    syscall3(__NR_timer_create, CLOCK_REALTIME, (long)&none, (long)&rel_id) ||
	    syscall4(__NR_timer_settime, rel_id, 0, (long)its, 0))
		return ktap_fail("timer_create or timer_settime failed");
	its[1] = ts_of(real0 + 100 * SEC);
	if (syscall4(__NR_timer_settime, abs_id, TIMER_ABSTIME, (long)its, 0) ||
	    !set_clock(real0, mono0, -1000 * SEC))
		return set_clock(real0, mono0, 0), ktap_fail("timer_settime(TIMER_ABSTIME) failed");
	abs_left = timer_left(abs_id);
	rel_left = timer_left(rel_id);
	if (!set_clock(real0, mono0, 200 * SEC))
		return set_clock(real0, mono0, 0), 0;
	sig = syscall4(__NR_rt_sigtimedwait, (long)&usr1, 0, (long)&five, sizeof(usr1));
	if (!set_clock(real0, mono0, 0))
		return 0;
	if (abs_left < 1090 * SEC || abs_left > 1100 * SEC)
		return ktap_fail("absolute timer: %ld ns left with the clock set 1000 s back", abs_left);
	if (rel_left < 90 * SEC || rel_left > 100 * SEC || timer_left(rel_id) < 90 * SEC)
		return ktap_fail("relative timer: %ld ns left, then %ld", rel_left, timer_left(rel_id));
	return expect(sig, SIGUSR1, "the absolute timer's signal, the clock set past its time");
}

/*
 * clock_nanosleep until a CLOCK_REALTIME time follows the clock too: the
 * sleeper of 2 s goes on sleeping past them once the clock is set 1000 s
 * back (which must happen within them: else nothing can be told), and
 * wakes when the clock is set past its time.
 */
static int test_wall_sleep_follows_the_clock(void)
{
	long real0 = realtime_ns(), mono0 = now_ns(), pid, r = 0;
	struct timespec until = ts_of(real0 + 2 * SEC);
	char before, after;
	int status = -1;

	if (!on_ccos())
		return skip("it would move the host's clock");
	if ((pid = fork()) == 0)
		exit(clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &until, NULL) ? 2 : 0);
	before = state_of(pid, 'S');
	if (!set_clock(real0, mono0, -1000 * SEC) || now_ns() - mono0 >= 2 * SEC) {
		kill(pid, SIGKILL), wait4(pid, &status, 0, NULL), set_clock(real0, mono0, 0);
		return now_ns() - mono0 >= 2 * SEC ? skip("the clock was set after the 2 s sleep's end")
						   : 0;
	}
	while (now_ns() - mono0 < 2 * SEC + 500 * MSEC)	/* past the time the sleep was for */
		sleep_ns(10 * MSEC);
	after = state_of(pid, 'S');
	if (!set_clock(real0, mono0, 10 * SEC))
		return kill(pid, SIGKILL), wait4(pid, &status, 0, NULL), set_clock(real0, mono0, 0), 0;
	while (now_ns() - mono0 < 10 * SEC && (r = wait4(pid, &status, WNOHANG, NULL)) == 0)
		sleep_ns(10 * MSEC);
	if (!r)
		kill(pid, SIGKILL), wait4(pid, &status, 0, NULL);
	if (!set_clock(real0, mono0, 0))
		return 0;
	if (before != 'S' || after != 'S')
		return ktap_fail("the sleeper's state: %c, then %c with the clock 1000 s back", before,
				 after);
	return r ? expect_exit(status, 0, "the sleeper, once the clock passed its time")
		 : ktap_fail("the sleeper slept on with the clock set past its time");
}

/* Days from 1970-01-01 to a date of the Gregorian calendar (month 0-11). */
static long days_from_civil(long y, long m, long d)
{
	long era, yoe, doy, doe;

	y -= m < 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 1 ? -2 : 10)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* RTC_RD_TIME: a date in range, its weekday and day of the year right; on ccos, the wall clock's. */
static int test_rtc_rd_time(void)
{
	struct rtc_time t;
	long fd = open("/dev/rtc", O_RDONLY, 0), r, days, secs;

	if (fd == -ENOENT && !on_ccos())
		return skip("this host has no /dev/rtc");
	if (fd == -EBUSY && !on_ccos())
		return skip("another process has the host's /dev/rtc open");
	if (!expect(fd < 0 ? fd : 0, 0, "open(/dev/rtc)"))
		return 0;
	r = ioctl(fd, RTC_RD_TIME, (unsigned long)&t);
	close(fd);
	if (!expect(r, 0, "ioctl(RTC_RD_TIME)"))
		return 0;
	if (t.tm_sec < 0 || t.tm_sec > 59 || t.tm_min < 0 || t.tm_min > 59 || t.tm_hour < 0 ||
	    t.tm_hour > 23 || t.tm_mday < 1 || t.tm_mday > 31 || t.tm_mon < 0 || t.tm_mon > 11 ||
	    t.tm_year < 120)
		return ktap_fail("RTC_RD_TIME gave %d-%d-%d %d:%d:%d", t.tm_year, t.tm_mon, t.tm_mday,
				 t.tm_hour, t.tm_min, t.tm_sec);
	days = days_from_civil(t.tm_year + 1900, t.tm_mon, t.tm_mday);
	if (t.tm_wday != (days + 4) % 7 ||
	    t.tm_yday != days - days_from_civil(t.tm_year + 1900, 0, 1))
		return ktap_fail("weekday %d, day of the year %d: want %ld, %ld", t.tm_wday, t.tm_yday,
				 (days + 4) % 7, days - days_from_civil(t.tm_year + 1900, 0, 1));
	if (!on_ccos())
		return 1;		/* a host's RTC may keep local time, or drift */
	secs = days * 86400 + t.tm_hour * 3600 + t.tm_min * 60 + t.tm_sec;
	if (secs < time(NULL) - 5 || secs > time(NULL) + 5)
		return ktap_fail("the RTC says %ld, the wall clock %ld", secs, time(NULL));
	return 1;
}

/* Linux's struct __kernel_timex, as x86-64 lays it out. */
struct timex {
	unsigned int modes;
	int pad0;
	long offset, freq, maxerror, esterror;
	int status, pad1;
	long constant, precision, tolerance;
	struct timeval time;
	long tick, ppsfreq, jitter;
	int shift, pad2;
	long stabil, jitcnt, calcnt, errcnt, stbcnt;
	int tai, pad3[11];
};

#define __NR_adjtimex		159
#define __NR_clock_adjtime	305
#define __NR_setuid		105
#define ADJ_FREQUENCY		0x0002
#define ADJ_OFFSET_SS_READ	0xa001
#define STA_UNSYNC		0x0040
#define TIME_ERROR		5
#define EOPNOTSUPP		95
#define NOBODY			65534

static long adjtimex(struct timex *tx)
{
	return syscall1(__NR_adjtimex, (long)tx);
}

/*
 * adjtimex and clock_adjtime(CLOCK_REALTIME) read the clock's NTP state:
 * a state from TIME_OK to TIME_ERROR, Linux's constants (precision 1 us,
 * tolerance 500 ppm scaled by 2^16, the tick 1/USER_HZ within the 10 %
 * ADJ_TICK allows), the time now. ccos never steers its clock: it says so
 * as a Linux machine no NTP daemon told does (unsynchronised, no
 * frequency or offset). Only CLOCK_REALTIME is adjustable; a caller that
 * may not set the clock gets EPERM for any change (ccos: everyone).
 */
static int test_adjtimex_reads_the_state(void)
{
	struct timex tx = { 0 }, tx2 = { 0 };
	long r = adjtimex(&tx), r2;

	if (r < 0 || r > TIME_ERROR)
		return ktap_fail("adjtimex(modes 0) = %ld", r);
	if (tx.precision != 1 || tx.tolerance != 500l << 16 || tx.tick < 9000 || tx.tick > 11000)
		return ktap_fail("precision %ld, tolerance %ld, tick %ld", tx.precision, tx.tolerance,
				 tx.tick);
	/* time() reads the coarse clock, up to a tick behind adjtimex's: a second at a boundary. */
	if (tx.time.tv_sec < time(NULL) - 1 || tx.time.tv_sec > time(NULL) + 1)
		return ktap_fail("adjtimex's time %ld, time() %ld", tx.time.tv_sec, time(NULL));
	if (on_ccos() && (r != TIME_ERROR || !(tx.status & STA_UNSYNC) || tx.freq || tx.offset ||
			  tx.tick != 10000 || tx.tai))
		return ktap_fail("ccos: state %ld, status %#x, freq %ld, offset %ld, tick %ld, tai %d",
				 r, tx.status, tx.freq, tx.offset, tx.tick, tx.tai);
	r2 = syscall2(__NR_clock_adjtime, CLOCK_REALTIME, (long)&tx2);
	if (r2 != r || tx2.tick != tx.tick || tx2.tolerance != tx.tolerance)
		return ktap_fail("clock_adjtime(CLOCK_REALTIME) = %ld, adjtimex %ld", r2, r);
	tx2.modes = ADJ_OFFSET_SS_READ;
	if (!expect(adjtimex(&tx2), r, "adjtimex(ADJ_OFFSET_SS_READ)") ||
	    !expect(syscall2(__NR_clock_adjtime, CLOCK_MONOTONIC, (long)&tx), -EOPNOTSUPP,
		    "clock_adjtime(CLOCK_MONOTONIC)") ||
	    !expect(syscall2(__NR_clock_adjtime, 1000, (long)&tx), -EINVAL, "clock_adjtime(1000)") ||
	    !expect(adjtimex((void *)BAD_POINTER), -EFAULT, "adjtimex(bad pointer)"))
		return 0;
	if (getuid() == 0 && syscall1(__NR_setuid, NOBODY) && !on_ccos())
		return ktap_fail("setuid(nobody) failed");
	tx = (struct timex){ .modes = ADJ_FREQUENCY };
	return expect(adjtimex(&tx), -EPERM, "adjtimex(ADJ_FREQUENCY) by nobody");
}

static const struct test tests[] = {
	{ "settimeofday_einval", test_settimeofday_einval },
	{ "clock_settime_einval", test_clock_settime_einval },
	{ "clock_settime_moves_every_reader", test_clock_settime_moves_every_reader },
	{ "settimeofday_sets_time_and_zone", test_settimeofday_sets_time_and_zone },
	{ "clock_settime_before_boot_einval", test_clock_settime_before_boot_einval },
	{ "rtc_rd_time", test_rtc_rd_time },
	{ "adjtimex_reads_the_state", test_adjtimex_reads_the_state },
	{ "wall_timer_follows_the_clock", test_wall_timer_follows_the_clock },
	{ "wall_sleep_follows_the_clock", test_wall_sleep_follows_the_clock },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	/* Once, before the cases' children: each vDSO line stands for one exec. */
	if (on_ccos())
		have_vdso = find_vdso();
	return run_tests(tests, ARRAY_SIZE(tests));
}
