/* copy_to_user, copy_from_user, strncpy_from_user: the bulk copies (get_user and put_user are inline, in uaccess.h). */
#include <ccos/uaccess.h>
#include <ccos/mm.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/proc.h>

extern const uint64_t __smap_sites_start[], __smap_sites_end[];

/*
 * Without SMAP, every stac and clac (0f 01 cb, 0f 01 ca) becomes the
 * 3-byte nop 0f 1f 00 (SDM Vol. 2B, NOP). Once, on the boot CPU, before
 * any user access and before any other CPU runs: the text is written
 * through its direct-map alias, writable until mark_ro_after_init. The
 * function's return is the jump that SDM Vol. 3 §8.1.3 asks for between
 * modifying code and executing it.
 */
void smap_patch_init(void)
{
	static const uint8_t nop3[3] = { 0x0f, 0x1f, 0x00 };
	const uint64_t *site;

	if (cpu_has_smap)
		return;
	for (site = __smap_sites_start; site < __smap_sites_end; site++)
		memcpy(phys_to_virt(virt_to_phys((void *)*site)), nop3, sizeof(nop3));
}

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

/*
 * User memory, or the one kernel buffer through which sendfile moves data
 * (fs/sendfile.c) while it calls two files' read and write: only
 * then, only in that process, and only inside that buffer.
 */
static bool user_or_kbuf(const void __user *p, size_t n)
{
	const struct process *me;

	if (access_ok(p, n))
		return true;
	me = current();
	return me && me->kbuf && (const char *)p >= me->kbuf && n <= me->kbuf_len &&
	       (size_t)((const char *)p - me->kbuf) <= me->kbuf_len - n;
}

long copy_to_user(void __user *dst, const void *src, size_t n)
{
	if (!user_or_kbuf(dst, n))
		return -EFAULT;
	return copy_raw(dst, src, n) ? -EFAULT : 0;
}

long copy_from_user(void *dst, const void __user *src, size_t n)
{
	if (!user_or_kbuf(src, n))
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
