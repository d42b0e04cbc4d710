/* Random numbers (AT_RANDOM, the vDSO's address, getrandom): RDRAND/RDSEED where the CPU has them, else the TSC mixed with the RTC. */
#include <ccos/random.h>
#include <ccos/syscall.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>
#include <asm/arch.h>
#include <ccos/printk.h>

/* SDM Vol. 2: CPUID.1:ECX bit 30 = RDRAND; CPUID.(EAX=7,ECX=0):EBX bit 18 = RDSEED. */
#define CPUID1_ECX_RDRAND	(1u << 30)
#define CPUID7_EBX_RDSEED	(1u << 18)

static bool have_rdrand, have_rdseed;
static uint64_t state;		/* the fallback's: seeded from the TSC and the RTC */

/*
 * Both instructions set CF when they delivered a value. RDRAND reads a
 * generator that the CPU's entropy source reseeds; Intel's DRNG guide
 * says that 10 failures in a row mean it is broken. RDSEED reads the
 * entropy source itself and may run dry for a moment: pause and retry.
 */
static bool rdrand64(uint64_t *v)
{
	bool ok;
	int i;

	for (i = 0; i < 10; i++) {
		__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
		if (ok)
			return true;
	}
	return false;
}

static bool rdseed64(uint64_t *v)
{
	bool ok;
	int i;

	for (i = 0; i < 100; i++) {
		__asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
		if (ok)
			return true;
		__asm__ volatile("pause");
	}
	return false;
}

/* splitmix64's finalizer (Steele, Lea, Flood 2014): every input bit moves about half the output bits. */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ul;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebul;
	return z ^ (z >> 31);
}

/*
 * Without RDRAND or RDSEED there is no true entropy source on a bare PC
 * that is simple to read. The TSC at boot (how long firmware, GRUB and
 * the kernel took, to the cycle) and the RTC's date are what differs from
 * one boot to the next; each later call also mixes in the TSC of that
 * moment. Good enough against guessing the vDSO's place from outside,
 * not against an attacker who can time the machine's boot.
 */
static uint64_t tsc_rtc_seed(void)
{
	struct rtc_time t;
	uint64_t rtc = 0;

	if (rtc_read(&t))
		rtc = (uint64_t)rtc_mktime(&t);
	return mix64(rdtsc()) ^ mix64(rtc + 0x9e3779b97f4a7c15ul);
}

void random_init(void)
{
	uint32_t a, b, c, d, max;
	uint64_t seed;

	cpuid(0, 0, &max, &b, &c, &d);
	cpuid(1, 0, &a, &b, &c, &d);
	have_rdrand = c & CPUID1_ECX_RDRAND;
	b = 0;
	if (max >= 7)
		cpuid(7, 0, &a, &b, &c, &d);
	have_rdseed = b & CPUID7_EBX_RDSEED;

	state = tsc_rtc_seed();
	if (have_rdseed && rdseed64(&seed))
		state ^= seed;
	if (have_rdrand || have_rdseed)
		printk("random: entropy from the CPU: %s%s%s\n", have_rdrand ? "RDRAND" : "",
		       have_rdrand && have_rdseed ? " and " : "", have_rdseed ? "RDSEED" : "");
	else
		printk(KERN_WARNING "random: no RDRAND or RDSEED on this CPU; using the TSC mixed "
		       "with the RTC (weak: guessable by whoever can time the boot)\n");
}

uint64_t get_random_u64(void)
{
	uint64_t v;

	if (have_rdrand && rdrand64(&v))
		return v;
	if (have_rdseed && rdseed64(&v))
		return v;
	state = mix64(state ^ rdtsc()) + 0x9e3779b97f4a7c15ul;
	return mix64(state);
}

#define GRND_NONBLOCK	1
#define GRND_RANDOM	2
#define GRND_INSECURE	4

/* The kernel's generator (drivers/char/random.c), which is ready from boot on: it never blocks. */
long sys_getrandom(void __user *buf, size_t len, unsigned int flags)
{
	size_t done = 0;

	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE) ||
	    (flags & GRND_RANDOM && flags & GRND_INSECURE))
		return -EINVAL;
	len = MIN(len, 33554431ul);	/* Linux's limit for one call */
	if (!access_ok(buf, len))
		return -EFAULT;
	while (done < len) {
		uint64_t r = get_random_u64();
		size_t n = MIN(len - done, sizeof(r));

		if (copy_to_user((char __user *)buf + done, &r, n))
			return done ? (long)done : -EFAULT;
		done += n;
	}
	return done;
}
