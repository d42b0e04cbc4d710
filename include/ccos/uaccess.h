/* Safe access to user memory: range checks, SMAP windows and -EFAULT on faults. */
#ifndef CCOS_UACCESS_H
#define CCOS_UACCESS_H

#include <ccos/types.h>
#include <ccos/layout.h>

/* The whole range lies in the user half and does not wrap. */
static inline bool access_ok(const void __user *p, size_t n)
{
	uint64_t a = (uint64_t)p;

	return a + n >= a && a + n <= USER_TOP;
}

/* 0, or -EFAULT with nothing (copy_to_user) or part (copy_from_user) copied. */
long copy_to_user(void __user *dst, const void *src, size_t n);
long copy_from_user(void *dst, const void __user *src, size_t n);
/* The string's length (< max), -ENAMETOOLONG if no NUL in max bytes, or -EFAULT. */
long strncpy_from_user(char *dst, const char __user *src, size_t max);

#define get_user(x, ptr)	copy_from_user(&(x), (ptr), sizeof(*(ptr)))
#define put_user(x, ptr)						\
	({ __typeof__(*(ptr)) v_ = (x); copy_to_user((ptr), &v_, sizeof(v_)); })

#endif
