/* The kernel's address-space layout (design.md: virtual memory map). */
#ifndef CCOS_LAYOUT_H
#define CCOS_LAYOUT_H

#include <ccos/types.h>

#define PAGE_SIZE	4096ul
#define KERNEL_VMA	0xffffffff80000000ul	/* kernel image: phys + KERNEL_VMA */
#define DIRECT_MAP_BASE	0xffff800000000000ul	/* all RAM: phys + DIRECT_MAP_BASE */
#define USER_TOP	0x0000800000000000ul	/* first non-canonical address */

static inline void *phys_to_virt(uint64_t phys)
{
	return (void *)(phys + DIRECT_MAP_BASE);
}

static inline uint64_t virt_to_phys(const void *virt)
{
	uint64_t v = (uint64_t)virt;

	return v >= KERNEL_VMA ? v - KERNEL_VMA : v - DIRECT_MAP_BASE;
}

#endif
