/* Page tables: the kernel's own 4-level tables and one API to change any address space. */
#include <ccos/mm.h>
#include <ccos/boot.h>
#include <ccos/printk.h>
#include <ccos/lib.h>
#include <asm/arch.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>
#include <ccos/proc.h>

uint64_t kernel_pml4;
uint64_t direct_map_end;	/* physical memory below this is at phys_to_virt() */

#define PML4_INDEX(v)	(((v) >> 39) & 511)
#define KERNEL_HALF_FIRST_PML4	256

static uint64_t *table(uint64_t entry)
{
	return phys_to_virt(entry & PTE_ADDR);
}

static void flush_tlb_page(uint64_t virt)
{
	invlpg(virt);
}

/*
 * The entry for virt at `level` (3 = PML4 ... 0 = PT), creating the tables
 * on the way when create is set. Upper levels are present and writable:
 * the leaf decides W and NX. U is different: the CPU lets user mode reach
 * a page only if every level has U (it ANDs U and W and ORs NX over all
 * levels, SDM Vol. 3 §4.6), so upper entries get U only on the way to a
 * user page: every entry of the user half, and in the kernel half only
 * the path to a fixmap page mapped with PTE_U (`user`). A stray U on a
 * kernel leaf then still exposes nothing.
 */
static uint64_t *walk(uint64_t pml4, uint64_t virt, int level, bool create, uint64_t user)
{
	uint64_t *t = phys_to_virt(pml4);
	int l;

	if (virt < USER_TOP)
		user = PTE_U;
	for (l = 3; l > level; l--) {
		uint64_t *e = &t[(virt >> (12 + 9 * l)) & 511];

		if (!(*e & PTE_P)) {
			uint64_t frame;

			if (!create || !(frame = frame_alloc()))
				return NULL;
			*e = frame | PTE_P | PTE_W | user;
			if (l == 3)
				pti_pgd_sync(pml4, e);	/* the user table's copy */
		} else if (*e & PTE_PS) {
			return NULL;	/* inside a large page: not ours to split */
		}
		if (create)
			*e |= user;
		t = table(*e);
	}
	return &t[(virt >> (12 + 9 * level)) & 511];
}

/* The page-table entry for virt, present or not; NULL if no table holds it. */
uint64_t *pte_lookup(uint64_t pml4, uint64_t virt, bool create)
{
	return walk(pml4, virt, 0, create, 0);
}

/*
 * The first entry a page table holds for a page of [*va, end), with *va
 * moved to that page; NULL if there is none. A missing table is stepped
 * over at the level it is missing (512 GiB, 1 GiB or 2 MiB at a time), so
 * a walk costs what is mapped, not the length of the range.
 */
uint64_t *pte_next(uint64_t pml4, uint64_t *va, uint64_t end)
{
	while (*va < end) {
		uint64_t *t = phys_to_virt(pml4), span;
		int l;

		for (l = 3; l > 0; l--) {
			uint64_t e = t[(*va >> (12 + 9 * l)) & 511];

			if (!(e & PTE_P) || (e & PTE_PS))
				break;
			t = table(e);
		}
		if (!l)
			return &t[(*va >> 12) & 511];
		span = 1ul << (12 + 9 * l);
		*va = ALIGN_DOWN(*va, span) + span;
	}
	return NULL;
}

uint64_t *walk_pte(uint64_t pml4, uint64_t virt)
{
	uint64_t *pte = walk(pml4, virt, 0, false, 0);

	return pte && (*pte & PTE_P) ? pte : NULL;
}

int map_page(uint64_t pml4, uint64_t virt, uint64_t phys, uint64_t flags)
{
	uint64_t *pte = walk(pml4, virt, 0, true, flags & PTE_U);

	if (!pte)
		return -ENOMEM;
	*pte = (phys & PTE_ADDR) | flags | PTE_P;
	flush_tlb_page(virt);
	return 0;
}

int unmap_page(uint64_t pml4, uint64_t virt)
{
	uint64_t *pte = walk_pte(pml4, virt);

	if (!pte)
		return -EFAULT;
	*pte = 0;
	flush_tlb_page(virt);
	return 0;
}

int protect_page(uint64_t pml4, uint64_t virt, uint64_t flags)
{
	uint64_t *pte = walk_pte(pml4, virt);

	if (!pte)
		return -EFAULT;
	*pte = (*pte & PTE_ADDR) | flags | PTE_P;
	flush_tlb_page(virt);
	return 0;
}

bool read_cr3_is(uint64_t pml4)
{
	return (read_cr3() & PTE_ADDR) == pml4;
}

/* Load pml4 into CR3, and say so in the per-CPU block, which TLB shootdowns read (tlb.h). */
void switch_address_space(uint64_t pml4)
{
	this_cpu()->pml4 = pml4;
	if (read_cr3() != pml4)
		write_cr3(pml4);
}

/* A new PML4 sharing the kernel half: its PDPTs exist from paging_init on (and a user one, pti.c). */
uint64_t new_address_space(void)
{
	uint64_t pml4 = pti_enabled ? pti_pgd_alloc() : frame_alloc();

	if (pml4)
		memcpy((uint64_t *)phys_to_virt(pml4) + KERNEL_HALF_FIRST_PML4,
		       (uint64_t *)phys_to_virt(kernel_pml4) + KERNEL_HALF_FIRST_PML4,
		       KERNEL_HALF_FIRST_PML4 * sizeof(uint64_t));
	return pml4;
}

/* The PML4 of an address space whose tables are gone (mm_release), with pti=on the pair. */
void free_address_space(uint64_t pml4)
{
	if (pti_enabled)
		pti_pgd_free(pml4);
	else
		frame_free(pml4);
}

/* MMIO gets its own uncached range: PCD|PWT make every access reach the device. */
#define IOREMAP_BASE	0xffffc90000000000ul
static uint64_t ioremap_next = IOREMAP_BASE;

void *ioremap(uint64_t phys, size_t size)
{
	uint64_t start = ALIGN_DOWN(phys, PAGE_SIZE), virt = ioremap_next, off;

	size = ALIGN_UP(phys + size, PAGE_SIZE) - start;
	for (off = 0; off < size; off += PAGE_SIZE)
		if (map_page(kernel_pml4, virt + off, start + off, PTE_W | PTE_NX | PTE_PCD | PTE_PWT))
			return NULL;
	ioremap_next += size + PAGE_SIZE;	/* an unmapped page between mappings */
	return (void *)(virt + phys - start);
}

extern char _text[], _etext[], _rodata[], _erodata[], _data[], _edata[], _kernel_end[];
extern char __ro_after_init_start[], __ro_after_init_end[];

static void map_kernel_range(const char *start, const char *end, uint64_t flags)
{
	uint64_t v;

	for (v = (uint64_t)start; v < (uint64_t)end; v += PAGE_SIZE)
		if (map_page(kernel_pml4, v, v - KERNEL_VMA, flags))
			panic("paging: out of memory mapping the kernel image");
}

/* The direct map uses 2 MiB pages (PS in the PD entry), read-write and NX. */
static void map_direct(uint64_t end)
{
	uint64_t phys;

	for (phys = 0; phys < end; phys += 2ul << 20) {
		uint64_t *pde = walk(kernel_pml4, DIRECT_MAP_BASE + phys, 1, true, 0);

		if (!pde)
			panic("paging: out of memory building the direct map");
		*pde = phys | PTE_P | PTE_W | PTE_PS | PTE_NX;
	}
}

/*
 * The direct map's 4 KiB entry for phys. Its 2 MiB page is split first
 * into a page table of 512 entries with the same flags (P, W, NX; the
 * direct map uses no PAT, PCD or PWT, whose bits sit elsewhere in a 4 KiB
 * entry than in a 2 MiB one), and invlpg drops the old 2 MiB translation.
 */
static uint64_t *direct_map_pte(uint64_t phys, int *split)
{
	uint64_t virt = (uint64_t)phys_to_virt(phys);
	uint64_t *pde = walk(kernel_pml4, virt, 1, false, 0);

	if (!pde || !(*pde & PTE_P))
		return NULL;
	if (*pde & PTE_PS) {
		uint64_t pt = frame_alloc(), *e = phys_to_virt(pt), flags = *pde & (PTE_W | PTE_NX);
		int i;

		if (!pt)
			panic("paging: no frame to split the direct map at %lx", phys);
		for (i = 0; i < 512; i++)
			e[i] = ((*pde & PTE_ADDR) + i * PAGE_SIZE) | flags | PTE_P;
		*pde = pt | PTE_P | PTE_W | PTE_NX;
		flush_tlb_page(virt);
		(*split)++;
	}
	return walk(kernel_pml4, virt, 0, false, 0);
}

/*
 * A kernel image page at `virt` becomes read-only in the image and in the
 * direct map, which aliases every frame of RAM: a writable alias of a
 * page of code would undo W^X.
 */
static void make_read_only(uint64_t virt, int *split)
{
	uint64_t *pte = walk_pte(kernel_pml4, virt), *alias;

	if (!pte)
		panic("paging: the kernel page %lx is not mapped", virt);
	*pte &= ~PTE_W;
	flush_tlb_page(virt);
	alias = direct_map_pte(virt - KERNEL_VMA, split);
	if (alias) {
		*alias &= ~PTE_W;
		flush_tlb_page((uint64_t)phys_to_virt(virt - KERNEL_VMA));
	}
}

/*
 * The end of boot: the __ro_after_init pages (GDT, IDT, trap handlers,
 * the vDSO) turn read-only, and the direct map's aliases of the kernel's
 * text, rodata (which holds the vsyscall pages) and those pages lose W.
 * From here on no frame of code that anything executes is writable
 * through any mapping.
 */
void mark_ro_after_init(void)
{
	const char *v;
	int split = 0;

	for (v = _text; v < _erodata; v += PAGE_SIZE)
		make_read_only((uint64_t)v, &split);
	for (v = __ro_after_init_start; v < __ro_after_init_end; v += PAGE_SIZE)
		make_read_only((uint64_t)v, &split);
	printk("paging: read-only in the image and the direct map: text, rodata and %lu KiB "
	       "written at boot only (GDT, IDT, vDSO); %d 2 MiB page%s split\n",
	       (uint64_t)(__ro_after_init_end - __ro_after_init_start) >> 10, split,
	       split == 1 ? "" : "s");
}

/*
 * SDM Vol. 3 §4.6: CPUID.(EAX=7,ECX=0):EBX bit 7 = SMEP, bit 20 = SMAP.
 * SDM Vol. 3 §2.5: ECX bit 2 = UMIP; with CR4.UMIP set, SGDT, SIDT, SLDT,
 * SMSW and STR raise #GP outside ring 0, so user mode cannot learn where
 * the GDT, IDT and TSS are.
 */
bool cpu_has_smap;

static void enable_protections(void)
{
	uint32_t a, b, c, d, max;

	cpuid(0, 0, &max, &b, &c, &d);
	b = c = 0;
	if (max >= 7)
		cpuid(7, 0, &a, &b, &c, &d);
	/* CR0.WP: the kernel too faults on writes to read-only pages. */
	write_cr0(read_cr0() | CR0_WP);
	if (b & (1u << 7))
		write_cr4(read_cr4() | CR4_SMEP);
	if (b & (1u << 20)) {
		write_cr4(read_cr4() | CR4_SMAP);
		cpu_has_smap = true;
	}
	if (c & (1u << 2))
		write_cr4(read_cr4() | CR4_UMIP);
}

/* Another CPU, already on the kernel's tables (boot/entry.asm): the same CR0 and CR4 bits. */
void paging_init_ap(void)
{
	enable_protections();
}

void paging_init(void)
{
	uint64_t *pml4, direct_end = 0;
	int i;

	kernel_pml4 = frame_alloc();
	if (!kernel_pml4)
		panic("paging: no frame for the kernel PML4");
	/* Every kernel-half PDPT exists from now on, so that address spaces
	 * created later share all kernel mappings through their PML4 copy. */
	pml4 = phys_to_virt(kernel_pml4);
	for (i = KERNEL_HALF_FIRST_PML4; i < 512; i++) {
		uint64_t pdpt = frame_alloc();

		if (!pdpt)
			panic("paging: no frames for the kernel-half PDPTs");
		pml4[i] = pdpt | PTE_P | PTE_W;
	}

	/* RAM and the ACPI areas (types 1, 3, 4), up to 4 GiB. */
	for (i = 0; i < boot_info.n_mmap; i++) {
		const struct mmap_region *r = &boot_info.mmap[i];

		if (r->type == 1 || r->type == 3 || r->type == 4)
			direct_end = MAX(direct_end, r->base + r->len);
	}
	direct_map_end = MIN(ALIGN_UP(direct_end, 2ul << 20), 4ul << 30);
	map_direct(direct_map_end);

	/* W^X: text read+execute, rodata read-only, data read-write; never both. */
	map_kernel_range(_text, _etext, 0);
	map_kernel_range(_rodata, _erodata, PTE_NX);
	map_kernel_range(_data, _edata, PTE_W | PTE_NX);	/* kernel_stacks_init unmaps the guards */
	map_kernel_range(_edata, _kernel_end, PTE_NX);

	write_cr3(kernel_pml4);
	enable_protections();
	smap_patch_init();
	printk("paging: NX on, WP on, SMEP %s, SMAP %s, UMIP %s\n",
	       read_cr4() & CR4_SMEP ? "on" : "not supported",
	       read_cr4() & CR4_SMAP ? "on" : "not supported",
	       read_cr4() & CR4_UMIP ? "on" : "not supported");
	printk("paging: kernel tables at %lx, direct map of %lu MiB\n",
	       kernel_pml4, direct_map_end >> 20);
}
