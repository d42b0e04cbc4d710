/* User address-space randomization: the per-exec offsets of the load base, stack, mmap base and brk; personality. */
#include <ccos/aslr.h>
#include <ccos/boot.h>
#include <ccos/proc.h>
#include <ccos/mm.h>
#include <ccos/random.h>

/*
 * Each offset is a random whole number of pages below 2^bits, drawn from
 * get_random_u64 (the vDSO's source) at every exec. The number of bits is
 * Linux's where the address space allows it (docs/attack.md compares):
 * 28 for the load base and the mmap base (mmap_rnd_bits), 22 for the
 * stack (STACK_RND_MASK), 13 for the brk (its 32 MiB range). Linux adds
 * a sub-page offset to the stack; ccos does not.
 */
bool aslr_enabled(const struct process *p)
{
	return !boot_options.norandmaps && !(p->personality & ADDR_NO_RANDOMIZE);
}

uint64_t aslr_offset(const struct process *p, unsigned int bits)
{
	if (!aslr_enabled(p))
		return 0;
	return (get_random_u64() & ((1ul << bits) - 1)) * PAGE_SIZE;
}

#define PERSONALITY_QUERY	0xffffffffu

/* Linux's personality(2): the old value; 0xffffffff only asks. Exec keeps it, fork copies it. */
long sys_personality(unsigned int persona)
{
	struct process *p = current();
	unsigned int old = p->personality;

	if (persona != PERSONALITY_QUERY)
		p->personality = persona;
	return old;
}
