/* time_init: bring up ACPI, HPET, TSC, RTC and timekeeping, then the tick: the local APIC timer, else the PIT. */
#include <ccos/time.h>
#include <ccos/clock.h>
#include <asm/acpi.h>
#include <asm/rtc.h>
#include <asm/pic.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <asm/lapic.h>
#include <asm/x86.h>

uint64_t tick_nsec = NSEC_PER_SEC / HZ;	/* until time_init measures the PIT's */

/*
 * IRQ 0. The 8259A in edge mode takes the next tick as soon as it has its
 * EOI, but the CPU not before iretq (an interrupt gate cleared IF), so the
 * EOI goes first: the process may be switched out on its way back to user
 * mode (sched_tick asks for that) and this handler's frame resumed only
 * much later.
 */
static void timer_interrupt(struct trap_frame *tf)
{
	irq_eoi(IRQ_TIMER);
	timekeeping_tick();
	sched_tick(tf);
}

static time64_t boot_wall_time(void)
{
	struct rtc_time t;

	rtc_century_reg = acpi_info.century_reg;
	if (!rtc_read(&t)) {
		printk(KERN_WARNING "rtc: no consistent date in the CMOS clock; the wall clock starts at 1970-01-01\n");
		return 0;
	}
	printk("rtc: %04d-%02d-%02d %02d:%02d:%02d UTC\n", t.year, t.mon, t.mday, t.hour,
	       t.min, t.sec);
	return rtc_mktime(&t);
}

/* One tick lasts count cycles of a clock of hz: what jiffies measures time in. */
static void set_tick_length(uint64_t count, uint64_t hz)
{
	tick_nsec = (count * NSEC_PER_SEC + hz / 2) / hz;
	clocks_calc_mult_shift(&jiffies_clocksource.mult, &jiffies_clocksource.shift,
			       count * NSEC_PER_SEC, hz);
}

/*
 * The tick: each CPU's local APIC timer where there is a local APIC
 * (arch/x86/lapic_timer.c), else PIT channel 0 through the 8259 to CPU 0.
 */
void time_init(void)
{
	struct clocksource *cs;
	time64_t wall;
	uint16_t divisor;
	uint64_t count, rate;

	if ((void *)&vvar != (void *)__vvar_page)
		panic("vvar is at %p, not at the vvar page %p: check .vvar in linker/kernel.ld",
		      (void *)&vvar, (void *)__vvar_page);
	acpi_init(boot_info.rsdp);
	hpet_init(acpi_info.hpet_address);
	lapic_ready = lapic_init();
	if (lapic_ready)
		lapic_timer_calibrate_begin();
	tsc_init();
	wall = boot_wall_time();

	pic_init();
	if (lapic_ready && lapic_timer_init(&count, &rate)) {
		set_tick_length(count, rate);
		cs = clocksource_select(boot_options.clocksource);
		timekeeping_init(cs, wall);
		lapic_timer_start();
		printk("timer: local APIC timer at %d Hz (%lu counts of %lu Hz, %lu ns a tick) on every CPU, vector 0x%x\n",
		       HZ, count, rate, tick_nsec, LAPIC_TIMER_VECTOR);
		sti();
		return;
	}
	divisor = pit_start_periodic(HZ);
	/* One tick is divisor / PIT_HZ seconds: 10000151 ns, not 10^7, at HZ = 100. */
	set_tick_length(divisor, PIT_HZ);
	cs = clocksource_select(boot_options.clocksource);
	timekeeping_init(cs, wall);
	irq_set_handler(IRQ_TIMER, timer_interrupt);
	printk("timer: PIT channel 0 at %d Hz (divisor %u, %lu ns a tick) on IRQ 0, vector 0x%x\n",
	       HZ, divisor, tick_nsec, IRQ_BASE + IRQ_TIMER);
	sti();
}
