/* The user address space's top areas and their randomization (mm/aslr.c). */
#ifndef CCOS_ASLR_H
#define CCOS_ASLR_H

#include <ccos/types.h>

/*
 * Unrandomized, the stack ends at STACK_TOP and mmap areas grow down from
 * MMAP_TOP; exec lowers each by its random offset. The vDSO's random range
 * lies between the two (arch/x86/vdso/vdso.c), above the lowest mmap base
 * and below the lowest stack.
 */
#define STACK_TOP		0x00007ffffffff000ul
#define MMAP_TOP		0x00007f0000000000ul

#define ADDR_NO_RANDOMIZE	0x0040000	/* Linux's personality flag (setarch -R) */

/* Random bits of each area's place, in pages (mm/aslr.c says why these). */
#define ASLR_LOAD_BITS		28
#define ASLR_MMAP_BITS		28
#define ASLR_STACK_BITS		22
#define ASLR_BRK_BITS		13

struct process;

bool aslr_enabled(const struct process *p);
/* A random page-aligned offset below 2^bits pages, or 0 when p runs unrandomized. */
uint64_t aslr_offset(const struct process *p, unsigned int bits);

#endif
