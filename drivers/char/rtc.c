/* /dev/rtc0 (and /dev/rtc, a link to it): the CMOS clock, read as Linux's RTC_RD_TIME gives it (hwclock -r). */
#include <ccos/file.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>
#include <asm/arch.h>

#define RTC_RD_TIME	0x80247009	/* _IOR('p', 0x09, struct linux_rtc_time) */
#define RTC_MAJOR	252		/* Linux gives the RTC class a free major: 252 on a PC, mostly */

/* struct rtc_time of Linux's <linux/rtc.h>: struct tm's first nine fields. */
struct linux_rtc_time {
	int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year, tm_wday, tm_yday, tm_isdst;
};

/*
 * The clock's registers now (arch/x86/rtc.c: read twice until they agree);
 * the month from 0, the year from 1900, the day of the week (1970-01-01 was
 * a Thursday) and of the year worked out, as Linux's rtc_time64_to_tm does.
 * The kernel lock keeps two readers off the CMOS index port at once.
 */
static long rtc_ioctl(struct file *f, unsigned int req, uint64_t arg)
{
	struct rtc_time t, jan1;
	struct linux_rtc_time lt;
	time64_t days;

	(void)f;
	if (req != RTC_RD_TIME)
		return -ENOTTY;		/* setting the clock, alarms, interrupts: not offered */
	if (!rtc_read(&t))
		return -EIO;
	jan1 = (struct rtc_time){ .year = t.year, .mon = 1, .mday = 1 };
	days = rtc_mktime(&t) / 86400;
	lt = (struct linux_rtc_time){
		.tm_sec = t.sec, .tm_min = t.min, .tm_hour = t.hour, .tm_mday = t.mday,
		.tm_mon = t.mon - 1, .tm_year = t.year - 1900, .tm_wday = (days + 4) % 7,
		.tm_yday = days - rtc_mktime(&jan1) / 86400,
	};
	return copy_to_user((void __user *)arg, &lt, sizeof(lt)) ? -EFAULT : 0;
}

static void rtc_stat(struct file *f, struct stat *st)
{
	(void)f;
	st->st_mode = S_IFCHR | 0600;
	st->st_rdev = RTC_MAJOR << 8;
}

static const struct file_ops rtc_ops = { .ioctl = rtc_ioctl, .stat = rtc_stat, .stream = true };

struct file *rtc_open(void)
{
	return file_new(&rtc_ops, NULL, 0);
}
