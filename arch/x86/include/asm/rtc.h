/* The CMOS real-time clock (MC146818): the wall-clock time at boot. */
#ifndef CCOS_RTC_H
#define CCOS_RTC_H

#include <ccos/types.h>
#include <ccos/time_types.h>
#include <asm/arch.h>

/* The time registers as read, before decoding. */
struct rtc_regs {
	uint8_t sec, min, hour, mday, mon, year, century;	/* century 0: none */
	uint8_t status_b;	/* register B: binary/BCD and 12/24-hour bits */
};

/* struct rtc_time, rtc_read, rtc_mktime: asm/arch.h */
bool rtc_decode(const struct rtc_regs *r, struct rtc_time *t);	/* false if out of range */
extern uint8_t rtc_century_reg;		/* CMOS index of the century, from ACPI FADT; 0 = none */

#endif
