/* In-kernel tests of frames, page tables, W^X, user access and the heap. */
#include <ccos/ktest.h>
#include <ccos/mm.h>
#include <ccos/boot.h>
#include <ccos/uaccess.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <asm/arch.h>

extern char _text[], _kernel_end[], boot_stack_guard[];

static bool overlaps(uint64_t f, uint64_t start, uint64_t end)
{
	return f + PAGE_SIZE > start && f < end;
}

KTEST(frames_unique_and_never_reserved)
{
	static uint64_t got[512];
	size_t before = frames_free(), i, j;

	for (i = 0; i < ARRAY_SIZE(got); i++) {
		got[i] = frame_alloc();
		KEXPECT(got[i] != 0);
		KEXPECT(overlaps(got[i], 0, 0x100000) == false);
		KEXPECT(!overlaps(got[i], virt_to_phys(_text), virt_to_phys(_kernel_end)));
		KEXPECT(!overlaps(got[i], boot_info.mbi_start, boot_info.mbi_end));
		for (j = 0; j < (size_t)boot_info.n_modules; j++)
			KEXPECT(!overlaps(got[i], boot_info.modules[j].start, boot_info.modules[j].end));
	}
	for (i = 0; i < ARRAY_SIZE(got); i++)
		for (j = i + 1; j < ARRAY_SIZE(got); j++)
			KEXPECT(got[i] != got[j]);
	KEXPECT_EQ(frames_free(), before - ARRAY_SIZE(got));
	for (i = 0; i < ARRAY_SIZE(got); i++)
		frame_free(got[i]);
	KEXPECT_EQ(frames_free(), before);
}

KTEST(frame_runs_are_contiguous_and_zeroed)
{
	uint64_t run = frame_alloc_run(8);
	const uint8_t *p = phys_to_virt(run);
	size_t i;
	bool zero = true;

	KEXPECT(run != 0);
	for (i = 0; i < 8 * PAGE_SIZE; i++)
		zero &= p[i] == 0;
	KEXPECT(zero);
	frame_free_run(run, 8);
	KEXPECT_EQ(frame_alloc_run(1ul << 30), 0);	/* more than exists: 0, no crash */
}

#define TEST_VA	0xffffc80000000000ul

KTEST(map_query_protect_unmap)
{
	uint64_t f = frame_alloc(), *pte;

	KEXPECT_EQ(map_page(kernel_pml4, TEST_VA, f, PTE_W | PTE_NX | PTE_PCD), 0);
	pte = walk_pte(kernel_pml4, TEST_VA);
	KEXPECT(pte != NULL);
	if (pte) {
		KEXPECT_EQ(*pte & PTE_ADDR, f);
		KEXPECT_EQ(*pte & (PTE_W | PTE_NX | PTE_PCD | PTE_U | PTE_PWT), PTE_W | PTE_NX | PTE_PCD);
	}
	*(volatile uint64_t *)TEST_VA = 0x1234;
	KEXPECT_EQ(*(uint64_t *)phys_to_virt(f), 0x1234);
	KEXPECT_EQ(protect_page(kernel_pml4, TEST_VA, PTE_NX), 0);
	pte = walk_pte(kernel_pml4, TEST_VA);
	KEXPECT(pte && !(*pte & PTE_W));
	KEXPECT_EQ(unmap_page(kernel_pml4, TEST_VA), 0);
	KEXPECT(walk_pte(kernel_pml4, TEST_VA) == NULL);
	KEXPECT_EQ(unmap_page(kernel_pml4, TEST_VA), -EFAULT);
	frame_free(f);
}

static void write_byte(void *p)
{
	*(volatile uint8_t *)p = 0x90;
}

static void call_address(void *p)
{
	((void (*)(void))p)();
}

static const uint64_t some_rodata = 42;

KTEST(kernel_text_rodata_and_direct_map_are_protected)
{
	static uint8_t ret_insn[] = { 0xc3 };	/* in .data: writable, so NX */
	void *direct = phys_to_virt(virt_to_phys(ret_insn));

	KEXPECT_EQ(ktest_expect_fault(write_byte, (void *)write_byte), X86_PF);
	KEXPECT_EQ(ktest_fault_error & 0x3, 0x3);	/* present, write */
	KEXPECT_EQ(ktest_expect_fault(write_byte, (void *)&some_rodata), X86_PF);
	KEXPECT_EQ(ktest_fault_cr2, (uint64_t)&some_rodata);
	KEXPECT_EQ(ktest_expect_fault(call_address, direct), X86_PF);
	KEXPECT_EQ(ktest_fault_error & 0x11, 0x11);	/* present, instruction fetch */
	KEXPECT_EQ(ktest_expect_fault(call_address, ret_insn), X86_PF);
	KEXPECT_EQ(ktest_expect_fault(write_byte, boot_stack_guard), X86_PF);
	KEXPECT_EQ(ktest_fault_error & 0x1, 0);		/* the guard page is not present */
}

struct descriptor_table_register {
	uint16_t limit;
	uint64_t base;
} __packed;

extern char vdso_image_start[];

/*
 * After boot: the GDT and IDT (where SGDT and SIDT say), the vDSO and the
 * kernel text are read-only through the image and through the direct map.
 */
KTEST(code_and_descriptor_tables_read_only_everywhere)
{
	struct descriptor_table_register gdtr, idtr;
	uint64_t pages[4];
	size_t i;

	__asm__ volatile("sgdt %0" : "=m"(gdtr));
	__asm__ volatile("sidt %0" : "=m"(idtr));
	pages[0] = gdtr.base;
	pages[1] = idtr.base;
	pages[2] = (uint64_t)vdso_image_start;
	pages[3] = (uint64_t)write_byte;
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		void *alias = phys_to_virt(virt_to_phys((void *)pages[i]));

		KEXPECT_EQ(ktest_expect_fault(write_byte, (void *)pages[i]), X86_PF);
		KEXPECT_EQ(ktest_fault_cr2, pages[i]);
		KEXPECT_EQ(ktest_expect_fault(write_byte, alias), X86_PF);
		KEXPECT_EQ(ktest_fault_cr2, (uint64_t)alias);
		KEXPECT_EQ(ktest_fault_error & 0x3, 0x3);	/* present, write */
	}
}

static bool is_fixmap_user_page(uint64_t va)
{
	return va == VVAR_ADDRESS || va == VSYSCALL_ADDR || va == HPET_USER_ADDR;
}

/*
 * Every kernel-half page: never writable and executable; user only in the
 * fixmap, and reachable from user mode there (U on every level). An upper
 * entry has U exactly when a user page lies below it.
 */
static int count_bad(uint64_t table, int level, uint64_t base, uint64_t inherited,
		     int *user_pages)
{
	const uint64_t *e = phys_to_virt(table);
	int i, bad = 0;

	for (i = level == 3 ? 256 : 0; i < 512; i++) {
		uint64_t va = base + ((uint64_t)i << (12 + 9 * level)), flags;

		if (!(e[i] & PTE_P))
			continue;
		flags = (inherited & e[i] & (PTE_U | PTE_W)) | ((inherited | e[i]) & PTE_NX);
		if (level && !(e[i] & PTE_PS)) {
			int before = *user_pages;

			bad += count_bad(e[i] & PTE_ADDR, level - 1, va, flags, user_pages);
			if (!!(e[i] & PTE_U) != (*user_pages > before)) {
				ktest_fail(__FILE__, __LINE__, "level %d entry for %lx: U %s, %d user pages below",
					   level, va | 0xffff000000000000ul, e[i] & PTE_U ? "set" : "clear",
					   *user_pages - before);
				bad++;
			}
			continue;
		}
		if ((flags & PTE_W) && !(flags & PTE_NX))
			bad++;
		if (e[i] & PTE_U) {
			va |= 0xffff000000000000ul;
			if (!is_fixmap_user_page(va) || !(flags & PTE_U))
				bad++;
			(*user_pages)++;
		}
	}
	return bad;
}

KTEST(kernel_half_is_w_xor_x_and_not_user)
{
	int user_pages = 0;

	KEXPECT_EQ(count_bad(kernel_pml4, 3, 0, PTE_U | PTE_W, &user_pages), 0);
	KEXPECT(user_pages >= 1);	/* at least the vvar page */
}

#define USER_VA	0x7000000ul

KTEST(copy_to_user_refuses_bad_ranges)
{
	uint64_t f = frame_alloc(), v = 7;
	char buf[8] = "abcdefg";

	KEXPECT_EQ(copy_to_user((void *)KERNEL_VMA, buf, 8), -EFAULT);
	KEXPECT_EQ(copy_to_user((void *)(USER_TOP - 4), buf, 8), -EFAULT);
	KEXPECT_EQ(copy_to_user((void *)-4ul, buf, 8), -EFAULT);	/* wraps */
	KEXPECT_EQ(copy_to_user((void *)USER_VA, buf, 8), -EFAULT);	/* unmapped */
	KEXPECT_EQ(copy_from_user(buf, (void *)USER_VA, 8), -EFAULT);
	KEXPECT_EQ(get_user(v, (uint64_t *)USER_VA), -EFAULT);
	KEXPECT_EQ(v, 7);

	map_page(kernel_pml4, USER_VA, f, PTE_U | PTE_NX);	/* read-only user page */
	KEXPECT_EQ(copy_to_user((void *)USER_VA, buf, 8), -EFAULT);
	KEXPECT_EQ(*(uint64_t *)phys_to_virt(f), 0);		/* nothing written */
	protect_page(kernel_pml4, USER_VA, PTE_U | PTE_W | PTE_NX);
	KEXPECT_EQ(copy_to_user((void *)USER_VA, buf, 8), 0);
	KEXPECT(!memcmp(phys_to_virt(f), "abcdefg", 8));
	KEXPECT_EQ(put_user(99ul, (uint64_t *)USER_VA), 0);
	KEXPECT_EQ(get_user(v, (uint64_t *)USER_VA), 0);
	KEXPECT_EQ(v, 99);
	memcpy(phys_to_virt(f), "hello", 6);
	KEXPECT_EQ(strncpy_from_user(buf, (char *)USER_VA, sizeof(buf)), 5);
	KEXPECT_STREQ(buf, "hello");
	KEXPECT_EQ(strncpy_from_user(buf, (char *)USER_VA, 3), -ENAMETOOLONG);
	/* With SMAP, a plain kernel read of a user page faults. */
	if (cpu_has_smap)
		KEXPECT_EQ(ktest_expect_fault(write_byte, (void *)USER_VA), X86_PF);
	unmap_page(kernel_pml4, USER_VA);
	frame_free(f);
}

KTEST(smep_smap_and_umip_follow_cpuid)
{
	uint32_t a, b = 0, c, d, max;

	cpuid(0, 0, &max, &b, &c, &d);
	b = c = 0;
	if (max >= 7)
		cpuid(7, 0, &a, &b, &c, &d);
	KEXPECT_EQ(!!(read_cr4() & CR4_SMEP), !!(b & (1u << 7)));
	KEXPECT_EQ(!!(read_cr4() & CR4_SMAP), !!(b & (1u << 20)));
	KEXPECT_EQ(!!(read_cr4() & CR4_UMIP), !!(c & (1u << 2)));
	KEXPECT(read_cr0() & CR0_WP);
	KEXPECT(rdmsr(MSR_EFER) & EFER_NXE);
}

KTEST(kmalloc_reuses_and_catches_misuse)
{
	char *a = kmalloc(100), *b = kmalloc(100), *big = kzalloc(3 * PAGE_SIZE);

	KEXPECT(a && b && big && a != b);
	KEXPECT(kmalloc_check(a) == NULL);
	KEXPECT_EQ(((uint64_t)a) % 16, 0);
	KEXPECT_EQ(big[3 * PAGE_SIZE - 1], 0);
	a[100] = 'x';				/* one byte past the end */
	KEXPECT_STREQ(kmalloc_check(a), "overrun past its end");
	a[100] = 0x5a;				/* restore the canary byte */
	kfree(a);
	KEXPECT_STREQ(kmalloc_check(a), "double free");
	KEXPECT(kmalloc(100) == a);		/* the freed block comes back */
	kfree(a);
	kfree(b);
	kfree(big);
}

/*
 * A page whose blocks are all free goes back to the frame allocator: of
 * 2,000 blocks' 134 pages at most one stays (a class keeps one page with
 * free blocks), and MemFree is what it was, to the byte.
 */
KTEST(kmalloc_gives_back_pages_whose_blocks_are_all_free)
{
	static void *p[2000];
	size_t frames = frames_free(), mem = mem_free_bytes(), i;

	for (i = 0; i < ARRAY_SIZE(p); i++)
		KEXPECT((p[i] = kmalloc(200)) != NULL);
	KEXPECT(frames_free() <= frames - ARRAY_SIZE(p) / 32);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		kfree(p[i]);
	KEXPECT(frames_free() >= frames - 1);
	KEXPECT_EQ(mem_free_bytes(), mem);
}
