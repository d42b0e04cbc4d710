/* time_init: bring up ACPI, HPET, TSC, RTC and timekeeping, then the PIT tick through the PIC. */
#include <ccos/time.h>
#include <ccos/clock.h>
#include <ccos/acpi.h>
#include <ccos/rtc.h>
#include <ccos/pic.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/x86.h>

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
	pic_eoi(IRQ_TIMER);
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

void time_init(void)
{
	struct clocksource *cs;
	time64_t wall;
	uint16_t divisor;

	if ((void *)&vvar != (void *)__vvar_page)
		panic("vvar is at %p, not at the vvar page %p: check .vvar in linker/kernel.ld",
		      (void *)&vvar, (void *)__vvar_page);
	acpi_init(boot_info.rsdp);
	hpet_init(acpi_info.hpet_address);
	tsc_init();
	wall = boot_wall_time();

	pic_init();
	divisor = pit_start_periodic(HZ);
	/* One tick is divisor / PIT_HZ seconds: 10000151 ns, not 10^7, at HZ = 100. */
	tick_nsec = ((uint64_t)divisor * NSEC_PER_SEC + PIT_HZ / 2) / PIT_HZ;
	clocks_calc_mult_shift(&jiffies_clocksource.mult, &jiffies_clocksource.shift,
			       (uint64_t)divisor * NSEC_PER_SEC, PIT_HZ);
	jiffies_clocksource.res_ns = NSEC_PER_SEC / HZ;

	cs = clocksource_select(boot_options.clocksource);
	timekeeping_init(cs, wall);
	irq_set_handler(IRQ_TIMER, timer_interrupt);
	printk("timer: PIT channel 0 at %d Hz (divisor %u, %lu ns a tick) on IRQ 0, vector 0x%x\n",
	       HZ, divisor, tick_nsec, IRQ_BASE + IRQ_TIMER);
	sti();
}
