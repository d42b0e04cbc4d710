/* Tests of the HPET's user mapping: read-only, no-execute (Linux d319bb79afa4), uncached. */
#include <ccos/ktest.h>
#include <ccos/clock.h>
#include <asm/acpi.h>
#include <asm/vgtod.h>
#include <ccos/mm.h>

KTEST(hpet_user_page_is_ro_nx_uncached)
{
	uint64_t *pte;

	if (hpet_clocksource.vclock_mode != VCLOCK_HPET) {
		ktest_skip("no HPET, or not page-aligned: nothing is mapped");
		return;
	}
	pte = walk_pte(kernel_pml4, HPET_USER_ADDR);
	KEXPECT(pte != NULL);
	if (!pte)
		return;
	KEXPECT_EQ(*pte & PTE_ADDR, acpi_info.hpet_address);
	KEXPECT(*pte & PTE_U);
	KEXPECT(!(*pte & PTE_W));
	KEXPECT(*pte & PTE_NX);
	KEXPECT((*pte & (PTE_PCD | PTE_PWT)) == (PTE_PCD | PTE_PWT));
}
