/* Tests of the vsyscall page from inside: its entries, its two contents, its mapping, getcpu's number. */
#include <ccos/ktest.h>
#include <asm/vsyscall.h>
#include <asm/vgetcpu.h>
#include <ccos/boot.h>
#include <ccos/time.h>
#include <ccos/mm.h>
#include <ccos/lib.h>

KTEST(vsyscall_entries_are_exactly_three)
{
	uint64_t a;
	int n = 0;

	for (a = VSYSCALL_ADDR - 0x400; a <= VSYSCALL_ADDR + PAGE_SIZE; a++)
		n += is_vsyscall_entry(a);
	KEXPECT_EQ(n, 3);
	KEXPECT(is_vsyscall_entry(VSYSCALL_ADDR));
	KEXPECT(is_vsyscall_entry(VSYSCALL_ADDR + 0x400));
	KEXPECT(is_vsyscall_entry(VSYSCALL_ADDR + 0x800));
	KEXPECT(!is_vsyscall_entry(VSYSCALL_ADDR + 0xc00));	/* the old venosys */
	KEXPECT(!is_vsyscall_entry(VSYSCALL_ADDR + 2));
	KEXPECT_EQ(vsyscall_entry_nr(VSYSCALL_ADDR + 0x400), VSYSCALL_TIME);
	KEXPECT_EQ(vsyscall_entry_nr(VSYSCALL_ADDR + 0x800), VSYSCALL_GETCPU);
}

KTEST(vsyscall_emulate_page_bytes)
{
	int i;

	for (i = 0; i < (int)PAGE_SIZE; i++) {
		int want = i == 0 || i == 0x400 || i == 0x800 ? 0xcd : 0xcc;

		if (vsyscall_emulate_page[i] != want) {
			KEXPECT_EQ(vsyscall_emulate_page[i], want);
			return;
		}
	}
}

/* Native: code at each entry (never the 0xcc fill), 0xcc from +0xc00 to the end. */
KTEST(vsyscall_native_page_layout)
{
	int i;

	KEXPECT(vsyscall_native_page[0x000] != 0xcc);
	KEXPECT(vsyscall_native_page[0x400] != 0xcc);
	KEXPECT(vsyscall_native_page[0x800] != 0xcc);
	for (i = 0xc00; i < (int)PAGE_SIZE; i++) {
		if (vsyscall_native_page[i] != 0xcc) {
			KEXPECT_EQ(vsyscall_native_page[i], 0xcc);
			return;
		}
	}
}

/* The mode's page at VSYSCALL_ADDR: user, read + execute, never writable; or nothing. */
KTEST(vsyscall_mapping_per_mode)
{
	uint64_t *pte = walk_pte(kernel_pml4, VSYSCALL_ADDR);
	const uint8_t *page = boot_options.vsyscall == VSYSCALL_NATIVE ? vsyscall_native_page
			      : boot_options.vsyscall == VSYSCALL_EMULATE ? vsyscall_emulate_page
			      : NULL;

	if (!page) {
		KEXPECT(pte == NULL);
		return;
	}
	KEXPECT(pte != NULL);
	if (!pte)
		return;
	KEXPECT_EQ(*pte & PTE_ADDR, virt_to_phys(page));
	KEXPECT(*pte & PTE_U);
	KEXPECT(!(*pte & PTE_W));
	KEXPECT(!(*pte & PTE_NX));
}

struct descriptor_table_register {
	uint16_t limit;
	uint64_t base;
} __packed;

/*
 * lsl reads back what percpu_limit_set wrote, all 20 bits of it. The GDT
 * is read-only after boot, so the test writes a copy and loads that with
 * lgdt for one lsl (no segment register is reloaded meanwhile), then the
 * real one again.
 */
KTEST(vsyscall_percpu_limit_roundtrip)
{
	static uint64_t copy[16] __aligned(16);
	struct descriptor_table_register real, test;
	unsigned int saved = vgetcpu_read(VGETCPU_LSL), got;

	KEXPECT_EQ(saved, 0);		/* CPU 0, node 0 */
	__asm__ volatile("sgdt %0" : "=m"(real));
	KEXPECT(real.limit < sizeof(copy));
	memcpy(copy, (void *)real.base, MIN(real.limit + 1u, sizeof(copy)));
	percpu_limit_set(copy, 0x5a << VGETCPU_CPU_BITS | 0xbcd);
	test = (struct descriptor_table_register){ real.limit, (uint64_t)copy };
	__asm__ volatile("lgdt %0" : : "m"(test) : "memory");
	got = vgetcpu_read(VGETCPU_LSL);
	__asm__ volatile("lgdt %0" : : "m"(real) : "memory");
	KEXPECT_EQ(got, 0x5abcd);
	KEXPECT_EQ(vgetcpu_read(VGETCPU_LSL), saved);
	if (vvar.vgetcpu_mode == VGETCPU_RDTSCP)
		KEXPECT_EQ(vgetcpu_read(VGETCPU_RDTSCP), saved);
}
