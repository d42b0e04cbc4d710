/* Page-table isolation (pti=on|off|auto): each address space's second, user page table, and the entry that switches CR3 between the two. */
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/lib.h>
#include <ccos/lab.h>
#include <asm/arch.h>
#include <asm/entry_area.h>
#include <ccos/time.h>

/*
 * Meltdown (CVE-2017-5754) lets ring 3 read, through speculative
 * execution, any kernel memory its page table maps (docs/pti.md). With
 * PTI the page table that CR3 holds while user code runs maps the user
 * half and only what the CPU and the entry need before the entry has
 * switched CR3: the entry text, the GDTs and the IDT, each CPU's entry
 * area (TSS, entry stack) and IST stacks, and the user-visible fixmap
 * pages: the vvar page, the vsyscall page where the mode maps it, the
 * HPET where the vDSO reads it. As Linux's, an address space's two PML4s
 * are an 8 KiB-aligned pair, the user one the odd page: the entry turns
 * one CR3 into the other by bit 12 alone, with no memory to read.
 */
bool pti_enabled __ro_after_init;
bool pti_pcid __ro_after_init;		/* read by the entry (asm/pti.inc) */
struct entry_area cpu_entry_areas[MAX_CPUS] __section(".entry.data");

/* The user page table's kernel half: a PML4 that every user PML4 copies it from. */
uint64_t pti_user_template;

extern char __entry_text_start[], __entry_text_end[];
extern char __entry_ro_start[], __entry_ro_end[];
extern char __entry_data_start[], __entry_data_end[];
extern const uint64_t __pti_sites_start[], __pti_sites_end[];
extern char syscall_entry[], syscall_entry_pti[];

#define KERNEL_HALF	256	/* the first PML4 entry of the kernel half */
#define USER_PGD(pml4)	((pml4) + PAGE_SIZE)

static void kernel_pml4_even(void);

/*
 * Every pti_begin site (asm/pti.inc) starts with a 2-byte `jmp short`
 * over its block; with pti=on it becomes the 2-byte nop 66 90 (SDM Vol.
 * 2B, NOP). Written through the direct map, as smap_patch_init does,
 * before any other CPU runs and before mark_ro_after_init.
 */
static void patch_sites(void)
{
	static const uint8_t nop2[2] = { 0x66, 0x90 };
	const uint64_t *site;

	for (site = __pti_sites_start; site < __pti_sites_end; site++) {
		uint8_t *p = phys_to_virt(virt_to_phys((void *)*site));

		if (p[0] != 0xeb)
			panic("pti: the site at %lx is not a jmp short", *site);
		memcpy(p, nop2, sizeof(nop2));
	}
}

/*
 * Each CPU, from gdt_init: the CPU pushes a frame from ring 3 on the entry
 * stack, and the entry moves it to the process's stack (percpu.kernel_rsp).
 * PCIDs (CPUID.01H:ECX bit 17; CR4.PCIDE, which may be set only while
 * CR3[11:0] is 0: SDM Vol. 3 §4.10.1) let the TLB keep the two tables'
 * translations apart: the kernel's PCID 0, the user's 0x800.
 */
void pti_cpu_init(int cpu)
{
	struct entry_area *ea = &cpu_entry_areas[cpu];

	if (!pti_enabled)
		return;
	ea->tss.rsp[0] = (uint64_t)ea->stack + sizeof(ea->stack);
	if (pti_pcid)
		write_cr4(read_cr4() | CR4_PCIDE);
}

/*
 * After the command line and paging_init, before the other CPUs start.
 * auto: on where Meltdown may apply, as Linux decides by the CPU's
 * vulnerability: AMD's CPUs check permissions before they forward a
 * load's data (Linux's X86_BUG_CPU_MELTDOWN is never set for them).
 */
void pti_init(void)
{
	uint32_t a, b, c, d;
	char vendor[13];
	const char *why;

	cpuid(0, 0, &a, &b, &c, &d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (boot_options.pti == PTI_ON) {
		pti_enabled = true;
		why = "pti=on";
	} else if (boot_options.pti == PTI_OFF) {
		why = "pti=off";
	} else {
		pti_enabled = strcmp(vendor, "AuthenticAMD") != 0;
		why = pti_enabled ? "pti=auto: the CPU is not AMD's, Meltdown may read the kernel"
				  : "pti=auto: an AMD CPU, which Meltdown does not affect";
	}
	/* LAB pti: BEGIN */
	/* LAB pti: STUB
	// Until the user page table and the CR3 switch are written (this
	// file's functions below and asm/pti.inc), PTI stays off whatever
	// pti= says: the entry would switch to a table that maps nothing.
	if (pti_enabled) {
		lab_todo_report("08-pti", __FILE__, "pti_user_tables_init");
		pti_enabled = false;
		why = "lab 8 is not written yet";
	}
	   LAB pti: END */
	cpuid(1, 0, &a, &b, &c, &d);
	pti_pcid = pti_enabled && (c & (1u << 17));
	printk("pti: %s (%s; CPU %s), PCID %s\n", pti_enabled ? "on" : "off", why, vendor,
	       !pti_enabled ? "not used" : pti_pcid ? "on: no TLB flush on a CR3 switch"
						 : "not supported: every CR3 switch flushes the TLB");
	if (!pti_enabled)
		return;
	kernel_pml4_even();
	patch_sites();
	pti_cpu_init(0);
}

/*
 * Where a 64-bit SYSCALL lands (syscall_init writes it to LSTAR): the entry
 * with the CR3 switches only with pti=on, so pti=off runs not one
 * instruction of PTI's (arch/x86/entry/syscall_entry.asm).
 */
uint64_t syscall_entry_address(void)
{
	return pti_enabled ? (uint64_t)syscall_entry_pti : (uint64_t)syscall_entry;
}

/* LAB pti: BEGIN */
/* The entry of the user template for an entry of the kernel's: its own table, the kernel's flags. */
static uint64_t *user_table(uint64_t *e, uint64_t kernel_entry)
{
	if (!(*e & PTE_P)) {
		uint64_t frame = frame_alloc();

		if (!frame)
			panic("pti: out of memory for the user page table");
		*e = frame | (kernel_entry & ~PTE_ADDR);
	}
	return phys_to_virt(*e & PTE_ADDR);
}

/* The kernel's 4 KiB page at va, if mapped, the same in the user table: 1 if it was. */
static int clone_page(uint64_t va)
{
	const uint64_t *k = phys_to_virt(kernel_pml4);
	uint64_t *u = phys_to_virt(pti_user_template);
	int l, i;

	for (l = 3; l > 0; l--) {
		i = (va >> (12 + 9 * l)) & 511;
		if (!(k[i] & PTE_P))
			return 0;
		if (k[i] & PTE_PS)
			panic("pti: %lx lies in a large page", va);
		u = user_table(&u[i], k[i]);
		k = phys_to_virt(k[i] & PTE_ADDR);
	}
	i = (va >> 12) & 511;
	if (!(k[i] & PTE_P))
		return 0;
	u[i] = k[i];
	return 1;
}

static int clone_range(const void *start, const void *end)
{
	uint64_t va;
	int n = 0;

	for (va = ALIGN_DOWN((uint64_t)start, PAGE_SIZE); va < (uint64_t)end; va += PAGE_SIZE)
		n += clone_page(va);
	return n;
}

/*
 * The vsyscall page, as Linux's pti_setup_vsyscall: ring 3 runs its code
 * in native mode and its int $0xcc in emulate mode, reading it in both,
 * so the user table needs the kernel's mapping (user, read, execute).
 * xonly and none leave it absent: a call traps from its fetch, on the
 * user table, and the kernel emulates it (or refuses it).
 */
static bool pti_setup_vsyscall(void)
{
	switch (boot_options.vsyscall) {
	case VSYSCALL_NATIVE:
	case VSYSCALL_EMULATE:
		if (!clone_page(VSYSCALL_ADDR))
			panic("pti: the vsyscall page is not mapped in vsyscall=native or emulate");
		return true;
	default:
		return false;
	}
}

/*
 * After mark_ro_after_init (the clones copy the final permissions: the
 * GDTs and the IDT read-only) and before the first process.
 */
void pti_user_tables_init(void)
{
	int text, ro, data, ist = 0, cpu, i;
	bool vsyscall, hpet = false;

	if (!pti_enabled)
		return;
	pti_user_template = frame_alloc();
	if (!pti_user_template)
		panic("pti: no frame for the user page table");
	text = clone_range(__entry_text_start, __entry_text_end);
	ro = clone_range(__entry_ro_start, __entry_ro_end);
	data = clone_range(__entry_data_start, __entry_data_end);
	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		for (i = IST_DF; i < NR_FIXED_STACKS; i++)
			ist += clone_range(kernel_stacks[cpu][i].guard + PAGE_SIZE,
					   kernel_stacks[cpu][i].top);
	clone_page(VVAR_ADDRESS);
	vsyscall = pti_setup_vsyscall();
	/* The vDSO reads the HPET's counter from ring 3 only when it is the clock. */
	if (vvar.vsyscall_gtod_data.vclock_mode == VCLOCK_HPET)
		hpet = clone_page(HPET_USER_ADDR);
	printk("pti: the user page table maps %d pages of entry text, %d of GDT and IDT, "
	       "%d of entry areas, %d of IST stacks, the vvar page%s%s\n",
	       text, ro, data, ist, vsyscall ? ", the vsyscall page" : "",
	       hpet ? ", the HPET" : "");
}

/* LAB pti: STUB
// The user table's kernel half: the PML4 pti_user_template, which every
// address space's user PML4 copies (pti_pgd_alloc). After
// mark_ro_after_init, before the first process. It maps, each page with
// the kernel's own entry (flags included), and nothing else:
// 1. the entry text, the GDTs and IDT, the entry areas (the sections
//    __entry_text_*, __entry_ro_*, __entry_data_*: asm/sections.h);
// 2. every CPU's IST stacks (kernel_stacks[cpu][IST_DF..NR_FIXED_STACKS-1],
//    from the page after the guard to the top);
// 3. the vvar page; the vsyscall page only where ring 3 reads or runs it
//    (native and emulate; not xonly and none); the HPET page only when the
//    vDSO reads it (vvar.vsyscall_gtod_data.vclock_mode == VCLOCK_HPET).
// Walk the kernel's tables (kernel_pml4) and the template's side by side,
// making each missing table of the template from frame_alloc(). Print what
// you mapped: docs/labs/08-pti.md shows the line.
void pti_user_tables_init(void)
{
	if (!pti_enabled)
		return;
	lab_todo("08-pti");
}
   LAB pti: END */

/* Two frames on an 8 KiB boundary, or 0: of three in a row, the one before or after goes back. */
static uint64_t frame_pair_alloc(void)
{
	uint64_t run = frame_alloc_run(3);

	if (!run)
		return 0;
	if (run & PAGE_SIZE) {
		frame_free(run);
		return run + PAGE_SIZE;
	}
	frame_free(run + 2 * PAGE_SIZE);
	return run;
}

/*
 * The kernel's own PML4 (in CR3 where no process runs, as the entry of an
 * NMI may find it) must have bit 12 clear as well, or the entry would take
 * it for a user table: moved to an even frame if it is not on one.
 */
static void kernel_pml4_even(void)
{
	uint64_t pair, old = kernel_pml4;

	if (!(old & PAGE_SIZE))
		return;
	pair = frame_pair_alloc();
	if (!pair)
		panic("pti: no frames for the kernel's PML4");
	frame_free(pair + PAGE_SIZE);
	memcpy(phys_to_virt(pair), phys_to_virt(old), PAGE_SIZE);
	kernel_pml4 = pair;
	switch_address_space(pair);
	frame_free(old);
}

void pti_pgd_free(uint64_t pml4)
{
	frame_free_run(pml4, 2);
}

/* LAB pti: BEGIN */
/* A new address space's PML4 pair: the kernel's on an 8 KiB boundary, the user's after it. */
uint64_t pti_pgd_alloc(void)
{
	uint64_t pgd = frame_pair_alloc();

	if (!pgd)
		return 0;
	if (!pti_user_template)
		panic("pti: an address space before the user page table");
	memcpy((uint64_t *)phys_to_virt(USER_PGD(pgd)) + KERNEL_HALF,
	       (uint64_t *)phys_to_virt(pti_user_template) + KERNEL_HALF,
	       KERNEL_HALF * sizeof(uint64_t));
	return pgd;
}

/*
 * A PML4 entry *e of the user half in the kernel's PML4, just made or just
 * cleared, goes into the user PML4 too, and the kernel's copy becomes
 * no-execute, as Linux's pti_set_user_pgtbl does: the kernel never runs
 * user code, even where SMEP is missing.
 */
void pti_pgd_sync(uint64_t pml4, uint64_t *e)
{
	if (!pti_enabled || pml4 == kernel_pml4 ||
	    e - (uint64_t *)phys_to_virt(pml4) >= KERNEL_HALF)
		return;
	e[512] = *e & ~PTE_NX;
	if (*e)
		*e |= PTE_NX;
}
/* LAB pti: STUB
// A new address space's PML4 pair (frame_pair_alloc): the kernel's at the
// even page, the user one after it, whose kernel half is the template's.
// 0 when there is no memory.
uint64_t pti_pgd_alloc(void)
{
	lab_todo("08-pti");
	return 0;
}

// A PML4 entry *e of the kernel's PML4 pml4, just made or just cleared.
// With PTI, one of the user half goes into the user PML4 too, as it is;
// the kernel's own copy is no-execute.
void pti_pgd_sync(uint64_t pml4, uint64_t *e)
{
	(void)pml4, (void)e;
}
   LAB pti: END */
