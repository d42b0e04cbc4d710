/* In-kernel tests of user pages: the first touch, fork's sharing and its copies, and teardown. */
#include <ccos/ktest.h>
#include <ccos/vm.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/lib.h>

#define VA	0x10000000ul

static uint64_t frame_at(struct mm *mm, uint64_t va)
{
	uint64_t *pte = walk_pte(mm->pml4, va);

	return pte ? *pte & PTE_ADDR : 0;
}

static bool writable_at(struct mm *mm, uint64_t va)
{
	uint64_t *pte = walk_pte(mm->pml4, va);

	return pte && (*pte & PTE_W);
}

static uint64_t read_at(struct mm *mm, uint64_t va)
{
	uint64_t x = ~0ul;

	copy_from_mm(mm, &x, va, sizeof(x));
	return x;
}

/*
 * A page has no frame until its first touch; fork maps the same frame,
 * read-only, in both and counts it twice; the first write on one side
 * copies it (the other keeps it, now alone), the next write on the other
 * side takes it back writable without a copy. Everything taken comes back.
 */
KTEST(fork_shares_a_frame_until_each_side_writes)
{
	size_t before = mem_free_bytes();
	struct mm *a = mm_create(), *b;
	uint64_t x = 42, y = 7, f;

	KEXPECT(a != NULL);
	if (!a)
		return;
	KEXPECT_EQ(mm_map(a, VA, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE, NULL), 0);
	KEXPECT(pte_lookup(a->pml4, VA, false) == NULL);	/* no table, no frame */
	KEXPECT_EQ(copy_to_mm(a, VA, &x, sizeof(x)), 0);
	f = frame_at(a, VA);
	KEXPECT(f != 0 && writable_at(a, VA) && frame_users(f) == 1);
	KEXPECT(walk_pte(a->pml4, VA + PAGE_SIZE) == NULL);	/* its neighbour: still untouched */

	b = mm_copy(a);
	KEXPECT(b != NULL);
	if (!b) {
		mm_release(a);
		return;
	}
	KEXPECT_EQ(frame_at(b, VA), f);
	KEXPECT(!writable_at(a, VA) && !writable_at(b, VA) && frame_users(f) == 2);
	KEXPECT(walk_pte(b->pml4, VA + PAGE_SIZE) == NULL);

	KEXPECT_EQ(copy_to_mm(b, VA, &y, sizeof(y)), 0);	/* b copies */
	KEXPECT(frame_at(b, VA) != f && writable_at(b, VA) && frame_users(f) == 1);
	KEXPECT_EQ(read_at(a, VA), 42);
	KEXPECT_EQ(read_at(b, VA), 7);
	KEXPECT_EQ(copy_to_mm(a, VA, &y, sizeof(y)), 0);	/* a takes its frame back */
	KEXPECT(frame_at(a, VA) == f && writable_at(a, VA));

	mm_release(a);
	mm_release(b);
	KEXPECT_EQ(mem_free_bytes(), before);
}

/*
 * Page tables exist only where an area is: a munmap that leaves a table
 * serving nothing frees it, and the teardown finds every table from the
 * areas. Areas far apart (three PML4 slots, two in one PD), pages touched
 * in each, one unmapped early, then all released: every frame comes back.
 */
KTEST(tables_go_with_their_areas)
{
	static const uint64_t at[] = { VA, VA + (1ul << 21), 0x7f0000000000ul, 0x400000000000ul };
	size_t before = mem_free_bytes(), mapped, touched;
	struct mm *mm = mm_create();
	uint64_t x = 1;
	unsigned int i;

	KEXPECT(mm != NULL);
	if (!mm)
		return;
	for (i = 0; i < ARRAY_SIZE(at); i++)
		KEXPECT_EQ(mm_map(mm, at[i], 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, "[test]"), 0);
	mapped = mem_free_bytes();
	for (i = 0; i < ARRAY_SIZE(at); i++)
		KEXPECT_EQ(copy_to_mm(mm, at[i] + PAGE_SIZE, &x, sizeof(x)), 0);
	touched = mem_free_bytes();
	KEXPECT(touched < mapped);
	/* The last area alone in its PML4 slot: its page, PT, PD and PDPT go (and the area's block). */
	KEXPECT_EQ(mm_unmap(mm, at[3], 2 * PAGE_SIZE), 0);
	KEXPECT_EQ((mem_free_bytes() - touched) / PAGE_SIZE, 4);
	/* The first shares its PD with the second: its page and PT go, not the PD. */
	KEXPECT_EQ(mm_unmap(mm, at[0], 2 * PAGE_SIZE), 0);
	KEXPECT_EQ((mem_free_bytes() - touched) / PAGE_SIZE, 6);
	mm_release(mm);
	KEXPECT_EQ(mem_free_bytes(), before);
}
