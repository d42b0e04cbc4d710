/* labcheck.h: what the parts of user/labcheck share: the fixed pages, the vvar layout, the checks. */
#ifndef USER_LABCHECK_H
#define USER_LABCHECK_H

#include "sigutil.h"

#define VVAR_ADDRESS		0xffffffffff5ff000UL
#define HPET_ADDRESS		0xffffffffff5fe000UL
#define HPET_PERIOD		0x004	/* upper half of the capabilities register: fs per count */
#define HPET_COUNTER		0x0f0

/* The vvar page's time data (docs/time.md gives the layout): read, never trusted. */
struct gtod {
	uint32_t seq;
	int vclock_mode;
	uint64_t cycle_last, mask;
	uint32_t mult, shift;
	long wall_time_sec;
	uint64_t wall_time_snsec;
	struct timespec wall_to_monotonic, wall_time_coarse;
	struct timezone sys_tz;
};
_Static_assert(__builtin_offsetof(struct gtod, wall_time_sec) == 32, "gtod layout");
_Static_assert(__builtin_offsetof(struct gtod, sys_tz) == 80, "gtod layout");

#define gtod	((volatile const struct gtod *)(VVAR_ADDRESS + 128))
#define jiffies	(*(volatile const unsigned long *)VVAR_ADDRESS)

/* labcheck.c */
int readable(unsigned long addr);
int vvar_missing(void);

/* syscall.c: lab 0 */
int test_syscall_reaches_its_call(void);
int test_syscall_enosys(void);
int test_syscall_six_args(void);
int test_syscall_registers(void);
int test_syscall_flags(void);
int test_syscall_with_tf(void);

/* clock.c: labs 5 and 6 */
int test_clock_is_tsc(void);
int test_tsc_rate(void);
int test_vvar_seq(void);
int test_vdso_user_mode(void);
int test_vdso_clocks(void);
int test_vdso_other_clocks(void);
int test_vdso_matches_vvar(void);
int test_vdso_gettimeofday(void);
int test_vdso_monotonic(void);
int test_vdso_einval(void);
int test_vdso_fallback(void);

/* storm.c: readers on CPU 1 while CPU 0 updates (labs 5 and 6) */
int test_vvar_never_torn(void);
int test_vdso_never_torn(void);

#endif
