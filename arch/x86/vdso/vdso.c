/* The vDSO, kernel side: its image, its parameters, and mapping it into every new process. */
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/elf.h>
#include <ccos/time.h>
#include <ccos/random.h>
#include <asm/vdso.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/aslr.h>
#include <asm/vvar.h>
#include <asm/vgetcpu.h>
#include "vdso-offsets.h"	/* generated from the image's symbols by the build */

/*
 * The image: build/vdso/vdso.so, a shared object checked at build time by
 * tools/vdsocheck (no relocations, no imports, nothing writable), embedded
 * page-aligned and zero-padded to whole pages by vdso_image.asm. Its pages
 * are the kernel's own: every process maps these same frames, read +
 * execute, and no process can free, copy or write them (PTE_SHARED).
 */
extern char vdso_image_start[], vdso_image_end[];

/*
 * Where the vDSO may go: a random page in the terabyte between the mmap
 * area (which grows down from MMAP_TOP, include/ccos/aslr.h) and the
 * lowest place of the randomized stack (16 GiB below STACK_TOP). That is
 * about 2^28 places, 28 bits of entropy: an exploit cannot guess where the
 * vDSO's code is, as it could the fixed vsyscall page's (docs/vdso.md).
 */
#define VDSO_AREA_START	MMAP_TOP
#define VDSO_AREA_END	0x00007ffb00000000ul
BUILD_BUG_ON(VDSO_AREA_END > STACK_TOP - (PAGE_SIZE << ASLR_STACK_BITS) - (1ul << 30));
#define VDSO_PLACE_TRIES 8

static size_t vdso_pages;

static size_t image_size(void)
{
	return vdso_image_end - vdso_image_start;
}

/*
 * getcpu's instruction, chosen once (arch/x86/vdso/vgetcpu.c): the image's
 * __vdso_getcpu uses LSL; where the CPU has RDTSCP (vsyscall_init chose,
 * vvar's vgetcpu_mode), the RDTSCP variant is copied over it, before any
 * process maps the image and before it turns read-only. The variant is
 * no longer (checked here at build time) and runs anywhere (checked by
 * tools/vdsocheck --movable when vdso-offsets.h is made).
 */
BUILD_BUG_ON(VDSO_SIZE_vdso_getcpu_rdtscp > VDSO_SIZE___vdso_getcpu);

static void choose_getcpu(void)
{
	if (vvar.vgetcpu_mode == VGETCPU_RDTSCP)
		memcpy(vdso_image_start + VDSO_SYM___vdso_getcpu,
		       vdso_image_start + VDSO_SYM_vdso_getcpu_rdtscp, VDSO_SIZE_vdso_getcpu_rdtscp);
}

/*
 * Check the image, choose getcpu's instruction, and write what
 * clock_getres answers into it, at boot
 * after time_init and before mark_ro_after_init. The values come from
 * do_clock_getres, so the vDSO and the system call agree by construction;
 * the clocksource does not change after boot.
 */
void vdso_init(void)
{
	struct vdso_params *params = (void *)(vdso_image_start + VDSO_SYM_vdso_params);
	struct timespec fine, coarse;

	if ((uint64_t)vdso_image_start % PAGE_SIZE)	/* processes would see its neighbours */
		panic("vdso: the image at %p is not page-aligned (vdso_image.asm)", vdso_image_start);
	if (image_size() < sizeof(Elf64_Ehdr) || memcmp(vdso_image_start, "\177ELF", 4))
		panic("vdso: the embedded image is not an ELF file (build/vdso/vdso.so)");
	if (VDSO_SYM_vdso_params + sizeof(*params) > image_size() ||
	    params->magic != VDSO_PARAMS_MAGIC)
		panic("vdso: no vdso_params at offset 0x%lx of the image; vdso-offsets.h is stale: make clean",
		      (uint64_t)VDSO_SYM_vdso_params);
	choose_getcpu();
	do_clock_getres(CLOCK_MONOTONIC, &fine);
	do_clock_getres(CLOCK_MONOTONIC_COARSE, &coarse);
	params->hres_ns = fine.tv_sec * NSEC_PER_SEC + fine.tv_nsec;
	params->coarse_ns = coarse.tv_sec * NSEC_PER_SEC + coarse.tv_nsec;
	vdso_pages = ALIGN_UP(image_size(), PAGE_SIZE) / PAGE_SIZE;
	printk("vdso: %lu bytes in %lu page%s at %lx, shared read-only by every process; "
	       "clock_getres %lu ns, coarse %lu ns\n", image_size(), vdso_pages,
	       vdso_pages == 1 ? "" : "s", virt_to_phys(vdso_image_start), params->hres_ns,
	       params->coarse_ns);
}

static bool range_free(struct mm *mm, uint64_t start, uint64_t len)
{
	uint64_t va;

	for (va = start; va < start + len; va += PAGE_SIZE)
		if (mm_find_vma(mm, va))
			return false;
	return true;
}

/* A random page-aligned place for len bytes that no area of mm overlaps, or 0. */
static uint64_t vdso_pick_address(struct mm *mm, uint64_t len)
{
	uint64_t places = (VDSO_AREA_END - VDSO_AREA_START - len) / PAGE_SIZE + 1, addr;
	int i;

	for (i = 0; i < VDSO_PLACE_TRIES; i++) {
		addr = VDSO_AREA_START + get_random_u64() % places * PAGE_SIZE;
		if (range_free(mm, addr, len))
			return addr;
	}
	return mm_find_gap(mm, len);	/* a crowded area: anywhere free, not random */
}

/*
 * Called by exec for each new address space: map the vDSO read + execute
 * at a random address (without randomization, as Linux, just below the
 * mmap base), and remember it for AT_SYSINFO_EHDR. fork copies vdso_base
 * and shares the pages (mm/vm.c mm_copy).
 */
int map_vdso(struct mm *mm, bool randomize)
{
	uint64_t len, addr;
	int err;

	len = vdso_pages * PAGE_SIZE;
	addr = randomize ? vdso_pick_address(mm, len) : mm_find_gap(mm, len);
	if (!addr)
		return -ENOMEM;
	err = mm_map_shared(mm, addr, virt_to_phys(vdso_image_start), vdso_pages,
			    PROT_READ | PROT_EXEC, "[vdso]");
	if (err)
		return err;
	mm->vdso_base = addr;
	return 0;
}
