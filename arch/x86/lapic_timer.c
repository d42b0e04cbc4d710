/* Each CPU's tick: its local APIC timer, periodic at HZ, measured in the TSC's calibration window. */
#include <asm/lapic.h>
#include <ccos/clock.h>
#include <ccos/printk.h>
#include <ccos/time.h>
#include <asm/trap.h>
#include <ccos/proc.h>
#include <asm/x86.h>

/*
 * The timer's registers (SDM Vol. 3, "APIC Timer"): it counts the current
 * count down from the initial count at the bus clock divided by the divide
 * configuration, and at zero raises the LVT timer entry's vector; in
 * periodic mode it reloads the initial count and goes on.
 */
#define LVT_TIMER	0x320
#define TIMER_INITIAL	0x380
#define TIMER_CURRENT	0x390
#define TIMER_DIVIDE	0x3e0
#define DIVIDE_BY_16	0x3	/* bits 3,1,0 = 0,1,1 */
#define LVT_MASKED	(1u << 16)
#define LVT_PERIODIC	(1u << 17)	/* timer mode bits 18:17 = 01 */

#define CALIBRATE_PIT_COUNT	11932	/* 10 ms of the PIT's 1193182 Hz */

static uint32_t tick_count;	/* timer counts in one tick: its rate / HZ */
static uint64_t window_tsc;	/* the TSC when the measuring count-down started */

/* Count down, masked, from the top. */
static void count_down_from_top(void)
{
	lapic_write(TIMER_DIVIDE, DIVIDE_BY_16);
	lapic_write(LVT_TIMER, LVT_MASKED | LAPIC_TIMER_VECTOR);
	lapic_write(TIMER_INITIAL, ~0u);
}

/*
 * The timer's rate is the bus clock's, which no register tells, so it is
 * measured. time_init starts the count-down before tsc_init measures the
 * TSC against the HPET or the PIT, and ends it after: the same window,
 * so no wait of its own, and the TSC, now known, times it. Without a TSC
 * PIT channel 2 times 10 ms of it instead.
 */
void lapic_timer_calibrate_begin(void)
{
	count_down_from_top();
	window_tsc = rdtsc();
}

static uint64_t calibrate_end(void)
{
	uint64_t counts, cycles;

	if (!tsc_khz) {
		count_down_from_top();
		pit_ch2_start_oneshot(CALIBRATE_PIT_COUNT);
		while (!pit_ch2_expired())
			pause();
		counts = ~0u - lapic_read(TIMER_CURRENT);
		lapic_write(TIMER_INITIAL, 0);	/* stops it */
		return counts * PIT_HZ / CALIBRATE_PIT_COUNT;
	}
	counts = ~0u - lapic_read(TIMER_CURRENT);
	cycles = (rdtsc() - window_tsc) / 1000;	/* in the window's tens of ms: no overflow below */
	lapic_write(TIMER_INITIAL, 0);
	return cycles ? counts * tsc_khz / cycles : 0;
}

/* Every CPU's tick: CPU 0 keeps the time (its one writer), each CPU its scheduling. */
static void lapic_timer_interrupt(struct trap_frame *tf)
{
	lapic_eoi();
	if (this_cpu()->cpu == 0)
		timekeeping_tick();
	sched_tick(tf);
}

/* The boot CPU: measure the rate; false if the timer does not count. */
bool lapic_timer_init(uint64_t *count, uint64_t *hz)
{
	uint64_t rate = calibrate_end();

	if (rate < 10 * HZ || rate / HZ > 0xffffffffu) {
		printk(KERN_WARNING "lapic: the timer counted %lu a second; the PIT keeps the tick\n",
		       rate);
		return false;
	}
	tick_count = rate / HZ;
	*count = tick_count;
	*hz = rate;
	idt_set_handler(LAPIC_TIMER_VECTOR, lapic_timer_interrupt);
	return true;
}

/* This CPU's timer, periodic: HZ interrupts a second from now on. */
void lapic_timer_start(void)
{
	lapic_write(TIMER_DIVIDE, DIVIDE_BY_16);
	lapic_write(LVT_TIMER, LVT_PERIODIC | LAPIC_TIMER_VECTOR);
	lapic_write(TIMER_INITIAL, tick_count);
}
