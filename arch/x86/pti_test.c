/* Tests of page-table isolation: the patched entry sites, the user table's kernel half, the PML4 pair. */
#include <ccos/ktest.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <asm/arch.h>

extern char __entry_text_start[];
extern const uint64_t __pti_sites_start[], __pti_sites_end[];

/* A jmp short (eb) with pti=off, the 2-byte nop 66 90 with pti=on: every site. */
KTEST(pti_sites_match_the_mode)
{
	const uint64_t *site;

	KEXPECT(__pti_sites_end - __pti_sites_start >= 4);	/* trap_entry.asm's */
	for (site = __pti_sites_start; site < __pti_sites_end; site++)
		KEXPECT_EQ(*(const uint8_t *)*site, pti_enabled ? 0x66 : 0xeb);
}

/* The kernel half of the user table: the entry, the vvar page, the mode's vsyscall page, no more. */
KTEST(pti_user_table_maps_the_entry_only)
{
	bool vsyscall = boot_options.vsyscall == VSYSCALL_NATIVE ||
			boot_options.vsyscall == VSYSCALL_EMULATE;

	if (!pti_enabled) {
		ktest_skip("pti is off: there is no user table");
		return;
	}
	KEXPECT(walk_pte(pti_user_template, (uint64_t)__entry_text_start) != NULL);
	KEXPECT(walk_pte(pti_user_template, VVAR_ADDRESS) != NULL);
	KEXPECT((walk_pte(pti_user_template, VSYSCALL_ADDR) != NULL) == vsyscall);
	/* Kernel text outside the entry, kernel data, the direct map, the heap: absent. */
	KEXPECT(walk_pte(pti_user_template, (uint64_t)pti_init) == NULL);
	KEXPECT(walk_pte(pti_user_template, (uint64_t)&kernel_pml4) == NULL);
	KEXPECT(walk_pte(pti_user_template, (uint64_t)&cpus[0]) == NULL);
	KEXPECT(walk_pte(pti_user_template, (uint64_t)phys_to_virt(kernel_pml4)) == NULL);
}

/*
 * A new address space is an 8 KiB-aligned pair; a page mapped in the user
 * half shows in both PML4s, executable in the user one only.
 */
KTEST(pti_address_space_is_a_pair)
{
	uint64_t pml4, frame, *k, *u;

	if (!pti_enabled) {
		ktest_skip("pti is off: one PML4 per address space");
		return;
	}
	pml4 = new_address_space();
	frame = frame_alloc();
	KEXPECT(pml4 && frame);
	if (!pml4 || !frame)
		return;
	KEXPECT(!(pml4 & PAGE_SIZE));
	KEXPECT_EQ(map_page(pml4, 0x400000, frame, PTE_U), 0);
	k = phys_to_virt(pml4);
	u = phys_to_virt(pml4 + PAGE_SIZE);
	KEXPECT(k[0] & PTE_P);
	KEXPECT_EQ(k[0] & PTE_ADDR, u[0] & PTE_ADDR);
	KEXPECT(k[0] & PTE_NX);
	KEXPECT(!(u[0] & PTE_NX));
	KEXPECT_EQ(u[511], ((uint64_t *)phys_to_virt(pti_user_template))[511]);
	KEXPECT(walk_pte(pml4 + PAGE_SIZE, 0x400000) != NULL);
	free_address_space(pml4);	/* the frame too */
}
