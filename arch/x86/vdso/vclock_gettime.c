/* The vDSO's clocks: clock_gettime, gettimeofday, time and clock_getres, in user mode where it can. */
#include <asm/vvar.h>
#include <asm/vgtod.h>
#include <asm/vdso.h>
#include <ccos/mm.h>
#include "vdso_syscall.h"

/*
 * The vvar page and the HPET sit at fixed addresses (design.md), the same
 * in every process, so this position-independent code reaches them with
 * plain constants: no relocation needed. The HPET page is mapped only
 * where there is an HPET; the kernel says VCLOCK_HPET only then, so the
 * reader touches it only then.
 */
#define vvar	((const struct vvar_page *)VVAR_ADDRESS)
#define gtod	(&vvar->vsyscall_gtod_data)
#define hpet	((const volatile void *)HPET_USER_ADDR)

/*
 * Written by the kernel into this image at boot (arch/x86/include/asm/vdso.h).
 * The compiler sees the zeros of the initializer; params() hides the
 * address from it (as Linux's OPTIMIZER_HIDE_VAR), so that it reads the
 * memory the kernel filled in instead of folding the zeros into the code.
 */
const struct vdso_params vdso_params = { .magic = VDSO_PARAMS_MAGIC };

static const struct vdso_params *params(void)
{
	const struct vdso_params *p = &vdso_params;

	__asm__("" : "+r"(p));
	return p;
}

/*
 * The clocks answered here, in user mode; every other id, valid or not,
 * goes to the kernel, which also says -EINVAL for a bad one.
 */
static bool vdso_serves(clockid_t clock)
{
	return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC ||
	       clock == CLOCK_REALTIME_COARSE || clock == CLOCK_MONOTONIC_COARSE;
}

static bool is_coarse(clockid_t clock)
{
	return clock == CLOCK_REALTIME_COARSE || clock == CLOCK_MONOTONIC_COARSE;
}

/*
 * The one reader (vgtod_gettime) does the work; it answers the fine clocks
 * only with a user-readable counter (TSC, or the HPET), and the coarse
 * ones always. When it cannot, the kernel can: a real system call.
 */
VDSO_EXPORT int __vdso_clock_gettime(clockid_t clock, struct timespec *ts)
{
	/* LAB vdso: BEGIN */
	if (vdso_serves(clock) && vgtod_gettime(gtod, hpet, clock, ts))
		return 0;
	return vdso_syscall2(__NR_clock_gettime, clock, (long)ts);
	/* LAB vdso: STUB
	static const char todo[] = "LAB TODO: arch/x86/vdso/vclock_gettime.c: "
				   "__vdso_clock_gettime() is yours to write (docs/labs/06-vdso.md)\n";

	vdso_syscall3(__NR_write, 2, (long)todo, sizeof(todo) - 1);
	return vdso_syscall2(__NR_clock_gettime, clock, (long)ts);
	   LAB vdso: END */
}
int clock_gettime(clockid_t, struct timespec *)
	VDSO_EXPORT __attribute__((weak, alias("__vdso_clock_gettime")));

/* CLOCK_REALTIME in microseconds, and the time zone the kernel keeps. */
VDSO_EXPORT int __vdso_gettimeofday(struct timeval *tv, struct timezone *tz)
{
	/* LAB vdso: BEGIN */
	struct timespec ts;

	if (tv) {
		if (!vgtod_gettime(gtod, hpet, CLOCK_REALTIME, &ts))
			return vdso_syscall2(__NR_gettimeofday, (long)tv, (long)tz);
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / NSEC_PER_USEC;
	}
	if (tz) {
		tz->tz_minuteswest = READ_ONCE(gtod->sys_tz.tz_minuteswest);
		tz->tz_dsttime = READ_ONCE(gtod->sys_tz.tz_dsttime);
	}
	return 0;
	/* LAB vdso: STUB
	static const char todo[] = "LAB TODO: arch/x86/vdso/vclock_gettime.c: "
				   "__vdso_gettimeofday() is yours to write (docs/labs/06-vdso.md)\n";

	vdso_syscall3(__NR_write, 2, (long)todo, sizeof(todo) - 1);
	return vdso_syscall2(__NR_gettimeofday, (long)tv, (long)tz);
	   LAB vdso: END */
}
int gettimeofday(struct timeval *, struct timezone *)
	VDSO_EXPORT __attribute__((weak, alias("__vdso_gettimeofday")));

/* The wall clock's seconds at the last tick: one aligned load, no counter. */
VDSO_EXPORT time64_t __vdso_time(time64_t *t)
{
	time64_t now = vgtod_time(gtod);

	if (t)
		*t = now;
	return now;
}
time64_t time(time64_t *)
	VDSO_EXPORT __attribute__((weak, alias("__vdso_time")));

/*
 * The kernel's answers (kernel/time/time.c do_clock_getres), from the values it
 * wrote into vdso_params: the timers' resolution for the fine clocks (a
 * tick on ccos, 1 ns on a Linux with high-resolution timers), a tick for
 * the coarse ones. res may be NULL, as for the system call.
 */
VDSO_EXPORT int __vdso_clock_getres(clockid_t clock, struct timespec *res)
{
	const struct vdso_params *p = params();
	uint64_t ns;

	if (!vdso_serves(clock) || !p->hres_ns)		/* not filled in: ask */
		return vdso_syscall2(__NR_clock_getres, clock, (long)res);
	ns = is_coarse(clock) ? p->coarse_ns : p->hres_ns;
	if (res) {
		res->tv_sec = ns / NSEC_PER_SEC;
		res->tv_nsec = ns % NSEC_PER_SEC;
	}
	return 0;
}
int clock_getres(clockid_t, struct timespec *)
	VDSO_EXPORT __attribute__((weak, alias("__vdso_clock_getres")));
