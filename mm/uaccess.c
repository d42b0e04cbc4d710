/* copy_to_user and friends: the only kernel code that touches user memory. */
#include <ccos/uaccess.h>
#include <ccos/mm.h>
#include <ccos/errno.h>
#include <ccos/lib.h>

/*
 * With SMAP (CR4 bit 21) the kernel faults on any user page unless
 * RFLAGS.AC is set: stac opens the window, clac closes it (SDM Vol. 3
 * §4.6.1). On CPUs without SMAP these instructions would be #UD.
 */
static inline void user_access_begin(void)
{
	if (cpu_has_smap)
		__asm__ volatile("stac" ::: "memory");
}

static inline void user_access_end(void)
{
	if (cpu_has_smap)
		__asm__ volatile("clac" ::: "memory");
}

/*
 * One rep movsb: if it faults, the exception-fixup table sends the CPU to
 * label 2 with rcx = the bytes left. Returns the bytes not copied.
 */
static size_t copy_raw(void *dst, const void *src, size_t n)
{
	user_access_begin();
	__asm__ volatile(
		"1:	rep movsb\n"
		"2:\n"
		"	.pushsection .extable, \"a\"\n"
		"	.quad 1b, 2b\n"
		"	.popsection\n"
		: "+D"(dst), "+S"(src), "+c"(n) : : "memory");
	user_access_end();
	return n;
}

long copy_to_user(void __user *dst, const void *src, size_t n)
{
	if (!access_ok(dst, n))
		return -EFAULT;
	return copy_raw(dst, src, n) ? -EFAULT : 0;
}

long copy_from_user(void *dst, const void __user *src, size_t n)
{
	if (!access_ok(src, n))
		return -EFAULT;
	return copy_raw(dst, src, n) ? -EFAULT : 0;
}

long strncpy_from_user(char *dst, const char __user *src, size_t max)
{
	size_t i;

	for (i = 0; i < max; i++) {
		if (copy_from_user(&dst[i], src + i, 1))
			return -EFAULT;
		if (!dst[i])
			return i;
	}
	return -ENAMETOOLONG;
}
