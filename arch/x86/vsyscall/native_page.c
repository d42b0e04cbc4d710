/* The native vsyscall page: user-mode code that linker/vsyscall.ld links at 0xffffffffff600000. */
#include <ccos/mm.h>
#include <asm/vvar.h>
#include <asm/vgtod.h>
#include <asm/vgetcpu.h>
#include <asm/unistd_64.h>

/*
 * This is not kernel code: it runs in user mode, in every process, at an
 * address every process knows. So it reads only the vvar page, the TSC
 * and the HPET page (through the same vgtod reader as the kernel), and it
 * has no data of its own (the link refuses .data and .bss). Each entry is
 * in a section of its own, which the link puts at the entry's offset:
 * .vsyscall_0 at +0x000, .vsyscall_1 at +0x400, .vsyscall_2 at +0x800.
 * vvar.h checks the offsets of the vvar page's fields at build time.
 */
#define VVAR		((const struct vvar_page *)VVAR_ADDRESS)
#define HPET_USER	((const volatile void *)HPET_USER_ADDR)

#define __entry(n)	__attribute__((section(".vsyscall_" #n), used))

/*
 * With no user-readable counter (VCLOCK_NONE: the jiffies clocksource),
 * gettimeofday asks the kernel, as Linux's vsyscall page did until 3.1.
 * This is the page's one `syscall` instruction: exactly what the
 * emulate mode exists to remove from fixed addresses.
 */
static __attribute__((always_inline)) inline long
syscall_gettimeofday(struct timeval *tv, struct timezone *tz)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)__NR_gettimeofday), "D"(tv), "S"(tz)
			 : "rcx", "r11", "memory");
	return ret;
}

__entry(0) long vsyscall_gettimeofday(struct timeval *tv, struct timezone *tz)
{
	const struct vsyscall_gtod_data *g = &VVAR->vsyscall_gtod_data;
	struct timespec ts;

	if (tv) {
		if (!vgtod_gettime(g, HPET_USER, CLOCK_REALTIME, &ts))
			return syscall_gettimeofday(tv, tz);
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / NSEC_PER_USEC;
	}
	if (tz)
		*tz = g->sys_tz;
	return 0;
}

/* The wall clock's seconds at the last tick: one load, no loop. */
__entry(1) long vsyscall_time(long *t)
{
	long now = vgtod_time(&VVAR->vsyscall_gtod_data);

	if (t)
		*t = now;
	return now;
}

/*
 * tcache, as in Linux 3.0: the answer is stored with the jiffy it was read
 * in, and reused while jiffies has not moved. A thread seldom changes CPU
 * within a tick, and getcpu promises no more than a hint anyway.
 */
__entry(2) long vsyscall_getcpu(unsigned int *cpu, unsigned int *node,
				struct getcpu_cache *tcache)
{
	unsigned long j = 0;
	unsigned int p;

	if (tcache && tcache->blob[0] == (j = VVAR->jiffies))
		p = tcache->blob[1];
	else
		p = vgetcpu_read(VVAR->vgetcpu_mode);
	if (tcache) {
		tcache->blob[0] = j;
		tcache->blob[1] = p;
	}
	if (cpu)
		*cpu = p & VGETCPU_CPU_MASK;
	if (node)
		*node = p >> VGETCPU_CPU_BITS;
	return 0;
}
