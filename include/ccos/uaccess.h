/* Safe access to user memory: range checks, SMAP windows and -EFAULT on faults. */
#ifndef CCOS_UACCESS_H
#define CCOS_UACCESS_H

#include <ccos/types.h>
#include <ccos/layout.h>
#include <ccos/errno.h>

/* The whole range lies in the user half and does not wrap. */
static inline bool access_ok(const void __user *p, size_t n)
{
	/* a + n <= USER_TOP, said without overflow: one compare for a constant n */
	return n <= USER_TOP && (uint64_t)p <= USER_TOP - n;
}

/* 0, or -EFAULT with part copied (a copy across pages can fault in its middle). */
long copy_to_user(void __user *dst, const void *src, size_t n);
long copy_from_user(void *dst, const void __user *src, size_t n);
/* The string's length (< max), -ENAMETOOLONG if no NUL in max bytes, or -EFAULT. */
long strncpy_from_user(char *dst, const char __user *src, size_t max);

/*
 * With SMAP (CR4 bit 21) the kernel faults on any user page unless
 * RFLAGS.AC is set: stac opens the window, clac closes it (SDM Vol. 3
 * §4.6.1). On CPUs without SMAP these instructions would be #UD, so each
 * one's address goes to the section .smap_sites, and smap_patch_init
 * (mm/uaccess.c) overwrites them all with a 3-byte nop at boot there: the
 * window costs one instruction, not a test of cpu_has_smap too.
 */
extern bool cpu_has_smap;

#define SMAP_INSN(insn)							\
	__asm__ volatile("1:	" insn "\n"					\
			 "	.pushsection .smap_sites, \"a\"\n"		\
			 "	.quad 1b\n"					\
			 "	.popsection\n" ::: "memory")

static inline void user_access_begin(void)
{
	SMAP_INSN("stac");
}

static inline void user_access_end(void)
{
	SMAP_INSN("clac");
}

void smap_patch_init(void);

/*
 * get_user and put_user: one mov of 1, 2, 4 or 8 bytes, so all or
 * nothing is written (a faulting instruction has no effect: SDM Vol. 3
 * §6.5). A fault in the mov goes through the exception-fixup table to
 * the C label `fault` (asm goto), which closes the SMAP window and
 * returns -EFAULT; the mov that succeeds costs nothing more.
 */
#define UACCESS_MOV(insn, outputs, ...)				\
	__asm__ goto("1:	" insn "\n"					\
		     "	.pushsection .extable, \"a\"\n"			\
		     "	.quad 1b, %l[fault]\n"				\
		     "	.popsection\n"					\
		     : outputs : __VA_ARGS__ : "memory" : fault)

static inline long get_user_n(uint64_t *v, const void __user *p, size_t n)
{
	uint64_t x;

	if (!access_ok(p, n))
		return -EFAULT;
	user_access_begin();
	if (n == 1)
		UACCESS_MOV("movzbl %[m], %k[x]", [x] "=r"(x), [m] "m"(*(const uint8_t *)p));
	else if (n == 2)
		UACCESS_MOV("movzwl %[m], %k[x]", [x] "=r"(x), [m] "m"(*(const uint16_t *)p));
	else if (n == 4)
		UACCESS_MOV("movl %[m], %k[x]", [x] "=r"(x), [m] "m"(*(const uint32_t *)p));
	else
		UACCESS_MOV("movq %[m], %[x]", [x] "=r"(x), [m] "m"(*(const uint64_t *)p));
	user_access_end();
	*v = x;
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

static inline long put_user_n(uint64_t x, void __user *p, size_t n)
{
	if (!access_ok(p, n))
		return -EFAULT;
	user_access_begin();
	if (n == 1)
		UACCESS_MOV("movb %b[x], %[m]", , [m] "m"(*(uint8_t *)p), [x] "r"(x));
	else if (n == 2)
		UACCESS_MOV("movw %w[x], %[m]", , [m] "m"(*(uint16_t *)p), [x] "r"(x));
	else if (n == 4)
		UACCESS_MOV("movl %k[x], %[m]", , [m] "m"(*(uint32_t *)p), [x] "r"(x));
	else
		UACCESS_MOV("movq %[x], %[m]", , [m] "m"(*(uint64_t *)p), [x] "r"(x));
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/* x = *ptr, or -EFAULT and x untouched; x and *ptr are integers or pointers of 1, 2, 4 or 8 bytes. */
#define get_user(x, ptr) ({						\
	uint64_t v_ = 0;						\
	long e_ = get_user_n(&v_, (ptr), sizeof(*(ptr)));		\
	BUILD_BUG_ON(sizeof(*(ptr)) & (sizeof(*(ptr)) - 1) || sizeof(*(ptr)) > 8); \
	if (!e_)							\
		(x) = (__typeof__(*(ptr)))v_;				\
	e_;								\
})
#define put_user(x, ptr)						\
	put_user_n((uint64_t)(__typeof__(*(ptr)))(x), (ptr), sizeof(*(ptr)))

#endif
