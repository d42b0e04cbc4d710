/*
 * The vDSO's way into the kernel: a real `syscall`, for what it cannot
 * answer in user mode. Included by the vDSO's sources only.
 */
#ifndef VDSO_SYSCALL_H
#define VDSO_SYSCALL_H

#include <asm/unistd_64.h>	/* Linux's x86-64 system-call numbers */

/* syscall clobbers rcx (return rip) and r11 (saved rflags); the kernel may write memory. */
static inline long vdso_syscall2(long nr, long a1, long a2)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a1), "S"(a2)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline long vdso_syscall3(long nr, long a1, long a2, long a3)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a1), "S"(a2), "d"(a3)
			 : "rcx", "r11", "memory");
	return ret;
}

/* What the vDSO exports is visible; everything else stays inside it. */
#define VDSO_EXPORT	__attribute__((visibility("default")))

#endif
