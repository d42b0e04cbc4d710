/* Random numbers: RDRAND where the CPU has it, else the TSC stirred by a mixer. */
#include <ccos/random.h>
#include <ccos/printk.h>
#include <ccos/x86.h>

static bool have_rdrand;
static uint64_t state;

void random_init(void)
{
	uint32_t a, b, c, d;

	/* CPUID.1:ECX bit 30 = RDRAND. */
	cpuid(1, 0, &a, &b, &c, &d);
	have_rdrand = c & (1u << 30);
	state = rdtsc();
	printk("random: %s\n", have_rdrand ? "RDRAND" : "no RDRAND; the TSC through splitmix64");
}

/* splitmix64 (Steele, Lea, Flood 2014): a good mixer for a counter-like seed. */
static uint64_t splitmix64(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ul ^ rdtsc());

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
	return z ^ (z >> 31);
}

uint64_t get_random_u64(void)
{
	uint64_t v;
	int tries;
	bool ok;

	/* RDRAND sets CF when it delivered a value; Intel advises 10 retries. */
	for (tries = 0; have_rdrand && tries < 10; tries++) {
		__asm__ volatile("rdrand %0; setc %1" : "=r"(v), "=qm"(ok));
		if (ok)
			return v;
	}
	return splitmix64();
}
