/* Kernel stacks: one per process slot, above a guard page, and the lazy TLB flush of freed ones. */
#include <ccos/proc.h>
#include <ccos/mm.h>
#include <ccos/lib.h>
#include <asm/arch.h>

/* Kernel stacks live in their own range, each above an unmapped guard page. */
#define KSTACK_AREA	0xffffc00000000000ul
#define KSTACK_SLOT	(KSTACK_SIZE + PAGE_SIZE)
#define KSTACK_PAGES	(KSTACK_SIZE / PAGE_SIZE)
#define KSTACK_LAZY	16	/* freed stacks that may wait for their flush */

/*
 * Every CPU may keep a stack's translations in its TLB: those that ran
 * its process and, since the SDM lets a CPU cache any translation the
 * paging structures hold, any other. So the frames and the address of a
 * freed stack may serve again only after every CPU has flushed it. A
 * shootdown at each exit cost a wait for every other CPU's answer with
 * the kernel lock held (0.3 ms to 2 ms under TCG, a third of the
 * fuzzer's lock waits); so, as Linux's vmalloc does with freed areas
 * (its lazy purge), a freed stack is unmapped and waits, its slot out of
 * use, until KSTACK_LAZY have gathered or a new process finds no other
 * slot: then one flush of the whole range on every CPU lets them all go.
 * MemFree counts their frames as free (mem_free_bytes).
 *
 * Lock rule: the kernel lock.
 */
static uint64_t stale_slots[NPROC / 64];	/* bit n: slot n's stack is unmapped, not yet flushed */
static uint64_t stale_frames[KSTACK_LAZY * KSTACK_PAGES];
static int nr_stale;

_Static_assert(NPROC % 64 == 0, "stale_slots has a bit per process slot");

static uint64_t slot_base(const struct process *p)
{
	return KSTACK_AREA + (p - proc_table) * KSTACK_SLOT + PAGE_SIZE;
}

size_t kstack_waiting_frames(void)
{
	return nr_stale;
}

bool kstack_ready(const struct process *p)
{
	size_t n = p - proc_table;

	return !(stale_slots[n / 64] & (1ul << (n % 64)));
}

bool kstack_map(struct process *p)
{
	uint64_t base = slot_base(p), off;

	for (off = 0; off < KSTACK_SIZE; off += PAGE_SIZE) {
		uint64_t f = frame_alloc();

		if (!f || map_page(kernel_pml4, base + off, f, PTE_W | PTE_NX)) {
			if (f)
				frame_free(f);
			while (off) {
				off -= PAGE_SIZE;
				frame_free(*walk_pte(kernel_pml4, base + off) & PTE_ADDR);
				unmap_page(kernel_pml4, base + off);
			}
			return false;
		}
	}
	p->kstack = base;
	return true;
}

/* Every waiting stack: flushed here and on every other CPU, then its frames freed. */
void kstack_purge(void)
{
	int i;

	if (!nr_stale)
		return;
	/* A CR3 load drops every translation but global ones (SDM Vol. 3A, 4.10.4.1); ccos maps none. */
	write_cr3(read_cr3());
	tlb_shootdown(kernel_pml4, KSTACK_AREA, KSTACK_AREA + NPROC * KSTACK_SLOT);
	for (i = 0; i < nr_stale; i++)
		frame_free(stale_frames[i]);
	nr_stale = 0;
	memset(stale_slots, 0, sizeof(stale_slots));
}

void kstack_free(struct process *p)
{
	uint64_t off;

	if (nr_stale == KSTACK_LAZY * KSTACK_PAGES)
		kstack_purge();
	for (off = 0; off < KSTACK_SIZE; off += PAGE_SIZE) {
		stale_frames[nr_stale++] = *walk_pte(kernel_pml4, p->kstack + off) & PTE_ADDR;
		unmap_page(kernel_pml4, p->kstack + off);
	}
	stale_slots[(p - proc_table) / 64] |= 1ul << ((p - proc_table) % 64);
}

/* The process whose stack's guard page holds addr (a kernel stack overflow), or NULL. */
struct process *kstack_guard_owner(uint64_t addr)
{
	uint64_t off = addr - KSTACK_AREA;
	struct process *p;

	if (addr < KSTACK_AREA || off / KSTACK_SLOT >= NPROC || off % KSTACK_SLOT >= PAGE_SIZE)
		return NULL;
	p = &proc_table[off / KSTACK_SLOT];
	return p->state != PROC_UNUSED ? p : NULL;
}
