/* Clocksources (TSC, HPET, jiffies) and the timer hardware behind them. */
#ifndef CCOS_CLOCK_H
#define CCOS_CLOCK_H

#include <ccos/types.h>

/*
 * A free-running counter that timekeeping reads: ns = cycles * mult >> shift.
 * vclock_mode says whether user mode can read it too (VCLOCK_*).
 */
struct clocksource {
	const char *name;
	uint64_t (*read)(void);
	uint64_t mask;		/* 2^bits - 1: the counter wraps there */
	uint32_t mult, shift;
	int vclock_mode;
	bool usable;
};

extern struct clocksource tsc_clocksource, hpet_clocksource, jiffies_clocksource;

/* kernel/time/clocksource.c */
void clocks_calc_mult_shift(uint32_t *mult, uint32_t *shift, uint64_t num, uint64_t den);
uint64_t clocksource_cyc2ns(const struct clocksource *cs, uint64_t cycles);
struct clocksource *clocksource_select(int requested);	/* enum clocksource_id */

/* arch/x86/hpet.c: the High Precision Event Timer (IA-PC HPET spec 1.0a). */
bool hpet_init(uint64_t phys);
uint64_t hpet_read(void);
extern volatile void *hpet_regs;	/* kernel mapping, or NULL without an HPET */
extern uint32_t hpet_period_fs;		/* femtoseconds per count */

/* arch/x86/tsc.c: the time-stamp counter. */
void tsc_init(void);
extern uint64_t tsc_khz;

/* A counter of known rate that the TSC is measured against (lab 5: the HPET, or a test's). */
struct calib_counter {
	uint64_t (*read)(void);
	uint64_t period_fs;	/* femtoseconds per count */
	uint64_t mask;		/* 2^bits - 1: the counter wraps there */
};
uint64_t tsc_calibrate_counter(const struct calib_counter *c);	/* kHz, 0 if it did not count */
uint64_t tsc_calibrate_pit(void);

/* arch/x86/pit.c: the 8254 programmable interval timer. */
#define PIT_HZ		1193182		/* its input clock: 14.31818 MHz / 12 */
uint16_t pit_start_periodic(unsigned int hz);	/* channel 0, IRQ 0; returns the divisor */
void pit_ch2_start_oneshot(uint16_t count);
bool pit_ch2_expired(void);

#endif
