/* The fixmap: pages at fixed addresses near the top, the same in every address space. */
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/lab.h>

/* LAB fixmap: BEGIN */
/*
 * design.md fixes these three addresses (the Linux x86-64 ABI): a
 * program compiled in 2008 calls 0xffffffffff600000, so a build that
 * moved them must not compile. All three sit in the last 1 GiB, under
 * the kernel half's last PML4 entry, which every address space copies
 * (mm/vm.c): one mapping serves all processes.
 */
BUILD_BUG_ON(VSYSCALL_ADDR != 0xffffffffff600000ul);
BUILD_BUG_ON(VVAR_ADDRESS != 0xffffffffff5ff000ul);
BUILD_BUG_ON(HPET_USER_ADDR != 0xffffffffff5fe000ul);
BUILD_BUG_ON((HPET_USER_ADDR >> 39 & 511) != 511 || (VSYSCALL_ADDR >> 39 & 511) != 511);

/*
 * The table an upper-level entry points to, made when it is missing (a
 * zeroed frame: no entry present). The CPU ANDs U and W over the four
 * levels and ORs NX (SDM Vol. 3 §4.6), so an upper entry is present and
 * writable without NX, and the leaf decides W and NX; U is different:
 * an upper entry gets U only on the way to a user page, so that no other
 * kernel page below it becomes reachable by a stray U on its leaf.
 */
static uint64_t *fixmap_table(uint64_t *entry, uint64_t user)
{
	if (!(*entry & PTE_P)) {
		uint64_t frame = frame_alloc();

		if (!frame)
			panic("fixmap: out of memory for the fixmap's page tables");
		*entry = frame | PTE_P | PTE_W;
	} else if (*entry & PTE_PS) {
		panic("fixmap: %lx lies in a large page", (uint64_t)entry);
	}
	*entry |= user;
	return phys_to_virt(*entry & PTE_ADDR);
}

/* Map one fixmap page in the kernel's tables, for every address space at once. */
void fixmap_set(uint64_t addr, uint64_t phys, uint64_t flags)
{
	uint64_t *t = phys_to_virt(kernel_pml4);
	int level;

	if (addr != VSYSCALL_ADDR && addr != VVAR_ADDRESS && addr != HPET_USER_ADDR)
		panic("fixmap_set: %lx is not a fixmap slot", addr);
	for (level = 3; level > 0; level--)
		t = fixmap_table(&t[addr >> (12 + 9 * level) & 511], flags & PTE_U);
	t[addr >> 12 & 511] = (phys & PTE_ADDR) | flags | PTE_P;
	__asm__ volatile("invlpg (%0)" : : "r"(addr) : "memory");
}

/* The vvar page: kernel data, seen by user space read-only and never executable. */
void fixmap_init(void)
{
	fixmap_set(VVAR_ADDRESS, virt_to_phys(__vvar_page), PTE_U | PTE_NX);
}
/* LAB fixmap: STUB
// The ABI's three addresses (VSYSCALL_ADDR, VVAR_ADDRESS, HPET_USER_ADDR):
// check at build time (BUILD_BUG_ON) that they are the Linux ones and that
// they share the PML4 entry every address space copies.

// Map phys at addr (one of the three slots, else panic) with the leaf
// flags `flags` (include/ccos/mm.h), in kernel_pml4, for every process:
// 1. Walk from the PML4 down to the page table (levels 3, 2, 1), making
//    each missing table from frame_alloc() (a zeroed frame).
// 2. Which flags does an upper-level entry need, given that the CPU ANDs U
//    and W over the levels and ORs NX? U only on the way to a user page.
// 3. Write the leaf, then drop the stale TLB entry (invlpg).
void fixmap_set(uint64_t addr, uint64_t phys, uint64_t flags)
{
	lab_todo("01-fixmap");
	(void)addr, (void)phys, (void)flags;	// until then nothing is mapped
}

// The vvar page, __vvar_page, at VVAR_ADDRESS: user mode reads it, may
// neither write nor execute it.
void fixmap_init(void)
{
	lab_todo("01-fixmap");
}
   LAB fixmap: END */
