/* Tests of RTC decoding (BCD/binary, 12/24-hour, century) and of the epoch conversion. */
#include <ccos/ktest.h>
#include <asm/rtc.h>

#define B_24H		0x02
#define B_BINARY	0x04

static time64_t decode_to_epoch(struct rtc_regs r, bool *ok)
{
	struct rtc_time t;

	*ok = rtc_decode(&r, &t);
	return *ok ? rtc_mktime(&t) : -1;
}

KTEST(rtc_decode_bcd_24h)
{
	struct rtc_regs r = { .sec = 0x56, .min = 0x34, .hour = 0x12, .mday = 0x29,
			      .mon = 0x02, .year = 0x24, .century = 0x20, .status_b = B_24H };
	bool ok;

	KEXPECT_EQ(decode_to_epoch(r, &ok), 1709210096);	/* 2024-02-29 12:34:56 */
	KEXPECT(ok);
}

KTEST(rtc_decode_binary_24h)
{
	struct rtc_regs r = { .sec = 59, .min = 59, .hour = 23, .mday = 31, .mon = 12,
			      .year = 99, .century = 19, .status_b = B_24H | B_BINARY };
	bool ok;

	KEXPECT_EQ(decode_to_epoch(r, &ok), 946684799);	/* 1999-12-31 23:59:59 */
	KEXPECT(ok);
}

KTEST(rtc_decode_12h)
{
	struct rtc_regs r = { .sec = 0x08, .min = 0x14, .mday = 0x19, .mon = 0x01,
			      .year = 0x38, .century = 0x20, .status_b = 0 };
	struct rtc_time t;

	r.hour = 0x03;			/* 3 AM, BCD */
	KEXPECT(rtc_decode(&r, &t));
	KEXPECT_EQ(t.hour, 3);
	KEXPECT_EQ(rtc_mktime(&t), 2147483648);	/* 2038-01-19 03:14:08: 2^31 */
	r.hour = 0x80 | 0x01;		/* 1 PM */
	KEXPECT(rtc_decode(&r, &t));
	KEXPECT_EQ(t.hour, 13);
	r.hour = 0x12;			/* 12 AM: midnight */
	KEXPECT(rtc_decode(&r, &t));
	KEXPECT_EQ(t.hour, 0);
	r.hour = 0x80 | 0x12;		/* 12 PM: noon */
	KEXPECT(rtc_decode(&r, &t));
	KEXPECT_EQ(t.hour, 12);
	r = (struct rtc_regs){ .sec = 40, .min = 17, .hour = 0x80 | 8, .mday = 20, .mon = 7,
			       .year = 69, .status_b = B_BINARY };	/* 8 PM, binary */
	KEXPECT(rtc_decode(&r, &t));
	KEXPECT_EQ(t.hour, 20);
	KEXPECT_EQ(t.year, 2069);	/* no century register: 69 is 2069 */
	KEXPECT_EQ(rtc_mktime(&t), 3141577060);
}

KTEST(rtc_decode_rejects_bad_values)
{
	struct rtc_regs good = { .sec = 0x00, .min = 0x00, .hour = 0x00, .mday = 0x01,
				 .mon = 0x01, .year = 0x70, .status_b = B_24H };
	struct rtc_regs r;
	struct rtc_time t;

	r = good;
	KEXPECT(rtc_decode(&r, &t));
	KEXPECT_EQ(t.year, 1970);
	KEXPECT_EQ(rtc_mktime(&t), 0);
	r = good;
	r.sec = 0x5a;			/* not BCD */
	KEXPECT(!rtc_decode(&r, &t));
	r = good;
	r.mon = 0x13;			/* month 13 */
	KEXPECT(!rtc_decode(&r, &t));
	r = good;
	r.mon = 0x02;
	r.mday = 0x29;			/* 1970 was not a leap year */
	KEXPECT(!rtc_decode(&r, &t));
	r = good;
	r.status_b = 0;			/* 12-hour: hour 0 does not exist */
	KEXPECT(!rtc_decode(&r, &t));
	r = good;
	r.hour = 0x24;
	KEXPECT(!rtc_decode(&r, &t));
}

KTEST(rtc_mktime_known_dates)
{
	struct rtc_time t = { 2000, 3, 1, 0, 0, 0 };

	KEXPECT_EQ(rtc_mktime(&t), 951868800);
	t = (struct rtc_time){ 2100, 3, 1, 0, 0, 0 };	/* 2100 is not a leap year */
	KEXPECT_EQ(rtc_mktime(&t), 4107542400);
}
