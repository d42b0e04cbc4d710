/* The CMOS RTC: read its registers consistently, decode BCD/binary and 12/24-hour, convert to epoch seconds. */
#include <asm/rtc.h>
#include <asm/x86.h>

#define CMOS_INDEX	0x70
#define CMOS_DATA	0x71

/* MC146818 registers (and the PC's CMOS map). */
#define RTC_SEC		0x00
#define RTC_MIN		0x02
#define RTC_HOUR	0x04
#define RTC_MDAY	0x07
#define RTC_MON		0x08
#define RTC_YEAR	0x09
#define RTC_STATUS_A	0x0a
#define RTC_STATUS_B	0x0b
#define RTC_A_UIP	0x80	/* update in progress: the time registers are changing */
#define RTC_B_24H	0x02	/* hours 0-23; else 1-12 with bit 7 = PM */
#define RTC_B_BINARY	0x04	/* binary values; else BCD */
#define RTC_HOUR_PM	0x80

uint8_t rtc_century_reg;

static uint8_t cmos_read(uint8_t reg)
{
	outb(CMOS_INDEX, reg);
	return inb(CMOS_DATA);
}

static bool rtc_wait_no_update(void)
{
	int i;

	for (i = 0; i < 1000000; i++)
		if (!(cmos_read(RTC_STATUS_A) & RTC_A_UIP))
			return true;
	return false;
}

static void rtc_read_regs(struct rtc_regs *r)
{
	r->sec = cmos_read(RTC_SEC);
	r->min = cmos_read(RTC_MIN);
	r->hour = cmos_read(RTC_HOUR);
	r->mday = cmos_read(RTC_MDAY);
	r->mon = cmos_read(RTC_MON);
	r->year = cmos_read(RTC_YEAR);
	r->century = rtc_century_reg ? cmos_read(rtc_century_reg) : 0;
	r->status_b = cmos_read(RTC_STATUS_B);
}

static bool regs_equal(const struct rtc_regs *a, const struct rtc_regs *b)
{
	return a->sec == b->sec && a->min == b->min && a->hour == b->hour &&
	       a->mday == b->mday && a->mon == b->mon && a->year == b->year &&
	       a->century == b->century && a->status_b == b->status_b;
}

/*
 * The RTC updates its registers once a second, and a read during the
 * update (UIP set, about 2 ms) can mix old and new values: wait for UIP to
 * clear, read everything, and accept it only when a second read agrees.
 */
bool rtc_read(struct rtc_time *t)
{
	struct rtc_regs a, b;
	int tries;

	for (tries = 0; tries < 10; tries++) {
		if (!rtc_wait_no_update())
			return false;
		rtc_read_regs(&a);
		if (!rtc_wait_no_update())
			return false;
		rtc_read_regs(&b);
		if (regs_equal(&a, &b))
			return rtc_decode(&a, t);
	}
	return false;
}

/* A BCD byte (two decimal digits) as a number, or -1 if it is not BCD. */
static int bcd(uint8_t v)
{
	if ((v & 0xf) > 9 || (v >> 4) > 9)
		return -1;
	return (v >> 4) * 10 + (v & 0xf);
}

static bool is_leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
	static const uint8_t days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return days[m - 1] + (m == 2 && is_leap(y));
}

bool rtc_decode(const struct rtc_regs *r, struct rtc_time *t)
{
	bool binary = r->status_b & RTC_B_BINARY, h24 = r->status_b & RTC_B_24H;
	bool pm = !h24 && (r->hour & RTC_HOUR_PM);
	uint8_t hour = h24 ? r->hour : r->hour & ~RTC_HOUR_PM;
	int century;

#define DECODE(v) (binary ? (int)(v) : bcd(v))
	t->sec = DECODE(r->sec);
	t->min = DECODE(r->min);
	t->hour = DECODE(hour);
	t->mday = DECODE(r->mday);
	t->mon = DECODE(r->mon);
	t->year = DECODE(r->year);
	century = r->century ? DECODE(r->century) : 0;
#undef DECODE
	if (t->sec < 0 || t->min < 0 || t->hour < 0 || t->mday < 0 || t->mon < 0 ||
	    t->year < 0 || t->year > 99 || century < 0)
		return false;
	if (!h24) {
		/* 12-hour clock: 12 AM is midnight (0), 12 PM is noon (12). */
		if (t->hour < 1 || t->hour > 12)
			return false;
		t->hour = t->hour % 12 + (pm ? 12 : 0);
	}
	/* Without a century register, two digits mean 1970-2069. */
	t->year += century ? century * 100 : t->year < 70 ? 2000 : 1900;
	return t->sec < 60 && t->min < 60 && t->hour < 24 && t->mon >= 1 && t->mon <= 12 &&
	       t->mday >= 1 && t->mday <= days_in_month(t->year, t->mon);
}

/*
 * Days since 1970-01-01 of a proleptic Gregorian date: count from 1 March,
 * so that the leap day ends a year, in 400-year eras of 146097 days.
 */
time64_t rtc_mktime(const struct rtc_time *t)
{
	int64_t y = t->year - (t->mon <= 2), era, yoe, doy, doe, days;

	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (t->mon + (t->mon > 2 ? -3 : 9)) + 2) / 5 + t->mday - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	days = era * 146097 + doe - 719468;	/* 719468: days from 0000-03-01 to 1970-01-01 */
	return days * 86400 + t->hour * 3600 + t->min * 60 + t->sec;
}
