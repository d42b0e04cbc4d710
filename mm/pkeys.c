/* Memory protection keys as a Linux kernel built without them answers: pkey_alloc, pkey_free, pkey_mprotect. */
#include <ccos/syscall.h>
#include <ccos/mm.h>
#include <ccos/errno.h>

/*
 * Protection keys (Intel's PKU: CR4.PKE and the PKRU register, SDM Vol. 3
 * §4.6.2) tag pages with one of 16 keys whose rights a thread sets in user
 * mode. ccos leaves CR4.PKE clear, and answers as Linux without
 * CONFIG_X86_INTEL_MEMORY_PROTECTION_KEYS (include/linux/pkeys.h): key 0,
 * every page's, is the only one, always allocated and never freed.
 */
#define PKEY_ACCESS_MASK	3	/* PKEY_DISABLE_ACCESS | PKEY_DISABLE_WRITE */

long sys_pkey_alloc(unsigned long flags, unsigned long init_val)
{
	if (flags || (init_val & ~PKEY_ACCESS_MASK))
		return -EINVAL;
	return -ENOSPC;
}

long sys_pkey_free(int pkey)
{
	(void)pkey;
	return -EINVAL;
}

/* mprotect with key -1 (none) or 0; another key is EINVAL, after mprotect's own first checks. */
long sys_pkey_mprotect(uint64_t addr, uint64_t len, long prot, int pkey)
{
	if (pkey == -1 || pkey == 0)
		return sys_mprotect(addr, len, prot);
	if (addr % PAGE_SIZE)
		return -EINVAL;
	return len ? -EINVAL : 0;
}
