/* The fixmap: pages at fixed addresses near the top, the same in every address space. */
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/lab.h>

/*
 * design.md fixes these three addresses (the Linux x86-64 ABI). They sit
 * in the kernel half's last PDPT, which every address space shares, so one
 * mapping serves all processes.
 */
BUILD_BUG_ON(VSYSCALL_ADDR != 0xffffffffff600000ul);
BUILD_BUG_ON(VVAR_ADDRESS != 0xffffffffff5ff000ul);
BUILD_BUG_ON(HPET_USER_ADDR != 0xffffffffff5fe000ul);

void fixmap_set(uint64_t addr, uint64_t phys, uint64_t flags)
{
	if (addr != VSYSCALL_ADDR && addr != VVAR_ADDRESS && addr != HPET_USER_ADDR)
		panic("fixmap_set: %lx is not a fixmap slot", addr);
	if (map_page(kernel_pml4, addr, phys, flags))
		panic("fixmap_set: out of memory for the fixmap's page tables");
}

/* The vvar page: kernel data, seen by user space read-only and never executable. */
void fixmap_init(void)
{
	/* LAB fixmap: BEGIN */
	fixmap_set(VVAR_ADDRESS, virt_to_phys(__vvar_page), PTE_U | PTE_NX);
	/* LAB fixmap: STUB
	lab_todo("01-fixmap");
	   LAB fixmap: END */
}
