/* The CMOS real-time clock (MC146818): the wall-clock time at boot. */
#ifndef CCOS_RTC_H
#define CCOS_RTC_H

#include <ccos/types.h>
#include <ccos/time_types.h>

/* The time registers as read, before decoding. */
struct rtc_regs {
	uint8_t sec, min, hour, mday, mon, year, century;	/* century 0: none */
	uint8_t status_b;	/* register B: binary/BCD and 12/24-hour bits */
};

/* A decoded calendar time, UTC. */
struct rtc_time {
	int year, mon, mday, hour, min, sec;	/* mon 1-12, mday 1-31 */
};

bool rtc_read(struct rtc_time *t);	/* false if the RTC never settled */
bool rtc_decode(const struct rtc_regs *r, struct rtc_time *t);	/* false if out of range */
time64_t rtc_mktime(const struct rtc_time *t);	/* seconds since 1970-01-01 UTC */
extern uint8_t rtc_century_reg;		/* CMOS index of the century, from ACPI FADT; 0 = none */

#endif
