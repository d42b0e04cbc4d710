/* ptdump: the page tables as ranges of equal permissions, as Linux's does, with their frames. */
#include <ccos/mm.h>
#include <ccos/printk.h>

/*
 * The effective permissions of a page: user and write only when every
 * level allows them, no-execute when any level sets NX (SDM Vol. 3 §4.6).
 */
struct range {
	uint64_t start, end, flags;
	uint64_t phys;			/* the frame of start: a range is contiguous in both */
	int level;			/* 0 = 4K page, 1 = 2M page */
};

#define SHOWN	(PTE_U | PTE_W | PTE_NX | PTE_PCD | PTE_PWT)

static void print_range(const struct range *r)
{
	uint64_t size = r->end - r->start;
	char unit = 'K';

	size >>= 10;
	if (size >= 1024 && !(size % 1024)) {
		size >>= 10;
		unit = 'M';
	}
	printk("ptdump: %016lx-%016lx %6lu%c %s %s %s %s %s %s phys %lx\n",
	       r->start, r->end, size, unit,
	       r->flags & PTE_U ? "USR" : "   ",
	       r->flags & PTE_W ? "RW" : "ro",
	       r->flags & PTE_NX ? "NX" : "x ",
	       r->flags & PTE_PCD ? "PCD" : "   ",
	       r->flags & PTE_PWT ? "PWT" : "   ",
	       r->level ? "pmd" : "pte", r->phys);
}

static void add_page(struct range *r, uint64_t va, uint64_t size, uint64_t flags,
		     uint64_t phys, int level)
{
	if (r->end == va && r->flags == flags && r->level == level &&
	    r->phys + (r->end - r->start) == phys) {
		r->end += size;
		return;
	}
	if (r->end != r->start)
		print_range(r);
	*r = (struct range){ va, va + size, flags, phys, level };
}

static uint64_t canonical(uint64_t va)
{
	return va & (1ul << 47) ? va | 0xffff000000000000ul : va;
}

static void walk_level(struct range *r, uint64_t table, int level, uint64_t base,
		       uint64_t inherited)
{
	const uint64_t *e = phys_to_virt(table);
	uint64_t span = 1ul << (12 + 9 * level);
	int i;

	for (i = 0; i < 512; i++) {
		uint64_t va = canonical(base + i * span), flags;

		if (!(e[i] & PTE_P))
			continue;
		/* AND the U and W bits down the walk, OR the NX bit. */
		flags = (inherited & e[i] & (PTE_U | PTE_W)) | ((inherited | e[i]) & PTE_NX) |
			(e[i] & (PTE_PCD | PTE_PWT));
		if (level == 0 || (e[i] & PTE_PS)) {
			add_page(r, va, span, flags & SHOWN, e[i] & PTE_ADDR, level);
			continue;
		}
		/* An upper entry of the kernel half with U: only the fixmap's path should have one. */
		if ((e[i] & PTE_U) && (va >> 63))
			printk("ptdump: user table entry: level %d covers %016lx-%016lx\n", level, va,
			       va + span - 1);
		walk_level(r, e[i] & PTE_ADDR, level - 1, base + i * span, flags);
	}
}

void ptdump(uint64_t pml4)
{
	struct range r = { 0 };

	printk("ptdump: page tables at %lx (effective flags)\n", pml4);
	walk_level(&r, pml4, 3, 0, PTE_U | PTE_W);
	if (r.end != r.start)
		print_range(&r);
	printk("ptdump: end\n");
}
