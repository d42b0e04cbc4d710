/* copy_to_user, copy_from_user, strncpy_from_user: the bulk copies (get_user and put_user are inline, in uaccess.h). */
#include <ccos/uaccess.h>
#include <ccos/mm.h>
#include <ccos/errno.h>
#include <ccos/lib.h>

/*
 * One rep movsq when n is a multiple of 8 (a 16-byte timespec is two
 * steps, not sixteen), else one rep movsb. If it faults, the
 * exception-fixup table sends the CPU to label 2 with rcx = the steps
 * left. Returns the bytes not copied.
 */
static size_t copy_raw(void *dst, const void *src, size_t n)
{
	size_t left;

	user_access_begin();
	if (n % 8 == 0) {
		left = n / 8;
		__asm__ volatile(
			"1:	rep movsq\n"
			"2:\n"
			"	.pushsection .extable, \"a\"\n"
			"	.quad 1b, 2b\n"
			"	.popsection\n"
			: "+D"(dst), "+S"(src), "+c"(left) : : "memory");
		left *= 8;
	} else {
		left = n;
		__asm__ volatile(
			"1:	rep movsb\n"
			"2:\n"
			"	.pushsection .extable, \"a\"\n"
			"	.quad 1b, 2b\n"
			"	.popsection\n"
			: "+D"(dst), "+S"(src), "+c"(left) : : "memory");
	}
	user_access_end();
	return left;
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
		if (get_user(dst[i], src + i))
			return -EFAULT;
		if (!dst[i])
			return i;
	}
	return -ENAMETOOLONG;
}
