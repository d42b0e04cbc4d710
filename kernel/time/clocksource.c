/* Clocksources: cycles-to-nanoseconds factors, the jiffies clocksource, and choosing one. */
#include <ccos/clock.h>
#include <ccos/boot.h>
#include <ccos/time.h>
#include <ccos/printk.h>

/*
 * Find mult and shift with ns = cycles * mult >> shift, for a counter whose
 * cycle lasts num/den nanoseconds. A bigger shift keeps more fraction of a
 * nanosecond per cycle; mult must still fit in 32 bits, and num << shift
 * in 64. Readers multiply in 128 bits, so no shift is too big for them.
 */
void clocks_calc_mult_shift(uint32_t *mult, uint32_t *shift, uint64_t num, uint64_t den)
{
	uint64_t m = 0;
	uint32_t s;

	for (s = 32; s > 0; s--) {
		if (num > (~0ul >> s))
			continue;
		m = ((num << s) + den / 2) / den;
		if (m <= 0xffffffffu)
			break;
	}
	if (s == 0)
		m = (num + den / 2) / den;
	*mult = m;
	*shift = s;
}

uint64_t clocksource_cyc2ns(const struct clocksource *cs, uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * cs->mult) >> cs->shift);
}

/*
 * jiffies as a clocksource: one count per tick, always there. User mode
 * cannot interpolate between ticks, so it asks the kernel (VCLOCK_NONE);
 * time_init sets mult and shift from the tick's true length.
 */
static uint64_t jiffies_read(void)
{
	return jiffies;
}

struct clocksource jiffies_clocksource = {
	.name = "jiffies",
	.read = jiffies_read,
	.mask = ~0ul,
	.vclock_mode = VCLOCK_NONE,
	.usable = true,
};

static struct clocksource *const clocksources[] = {
	[CLOCK_TSC] = &tsc_clocksource,
	[CLOCK_HPET] = &hpet_clocksource,
	[CLOCK_JIFFIES] = &jiffies_clocksource,
};

static const char *const unusable_reason[] = {
	[CLOCK_TSC] = "this CPU has no TSC, or its frequency could not be measured",
	[CLOCK_HPET] = "there is no HPET (none in the ACPI tables, or it failed its checks)",
	[CLOCK_JIFFIES] = "",
};

/* The requested clocksource if usable; else TSC, HPET, jiffies: the first usable. */
struct clocksource *clocksource_select(int requested)
{
	int id;

	if (requested != CLOCK_DEFAULT) {
		if (clocksources[requested]->usable) {
			printk("clocksource: %s (clocksource=%s)\n", clocksources[requested]->name,
			       clocksource_names[requested]);
			return clocksources[requested];
		}
		printk(KERN_WARNING "clocksource: clocksource=%s is not usable: %s; choosing another\n",
		       clocksource_names[requested], unusable_reason[requested]);
	}
	for (id = CLOCK_TSC; id <= CLOCK_JIFFIES; id++)
		if (clocksources[id]->usable)
			break;
	printk("clocksource: %s (%s)\n", clocksources[id]->name,
	       requested == CLOCK_DEFAULT ? "default: the first usable of tsc, hpet, jiffies"
					  : "replacing the unusable choice");
	return clocksources[id];
}
