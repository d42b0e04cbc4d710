/* kmain: the first C code; brings the machine up in order and starts init. */
#include <ccos/boot.h>
#include <ccos/printk.h>
#include <asm/arch.h>
#include <ccos/ktest.h>
#include <ccos/power.h>
#include <ccos/layout.h>
#include <ccos/mm.h>
#include <ccos/time.h>
#include <ccos/proc.h>
#include <ccos/file.h>
#include <ccos/tty.h>
#include <ccos/random.h>
#include <ccos/spinlock.h>

#define MB2_BOOT_MAGIC	0x36d76289

static void print_boot_summary(const struct boot_info *bi)
{
	uint64_t usable = 0;
	int i;

	for (i = 0; i < bi->n_mmap; i++)
		if (bi->mmap[i].type == 1)
			usable += bi->mmap[i].len;
	printk("ccos: firmware %s, loader %s\n", bi->uefi ? "UEFI" : "BIOS",
	       bi->loader ? bi->loader : "unknown");
	printk("ccos: memory %lu MiB usable in %d regions\n", usable >> 20, bi->n_mmap);
	for (i = 0; i < bi->n_mmap; i++)
		printk(KERN_DEBUG "  %016lx-%016lx type %u\n", bi->mmap[i].base,
		       bi->mmap[i].base + bi->mmap[i].len, bi->mmap[i].type);
	printk("ccos: %d module%s\n", bi->n_modules, bi->n_modules == 1 ? "" : "s");
	for (i = 0; i < bi->n_modules; i++)
		printk("  %-16s %lu bytes at %lx\n", bi->modules[i].name,
		       bi->modules[i].end - bi->modules[i].start, bi->modules[i].start);
	printk("ccos: ACPI RSDP %s (revision %d)\n", bi->rsdp ? "found" : "not found",
	       bi->rsdp_revision);
	printk("ccos: frames: %lu free, %lu used\n", frames_free(), frames_used());
	printk("ccos: command line \"%s\"\n", bi->cmdline ? bi->cmdline : "");
	printk(KERN_DEBUG "ccos: kernel entered at TSC %lu\n", boot_tsc);
}

void kmain(uint32_t magic, uint64_t mbi_phys)
{
	percpu_init(0);
	/*
	 * The boot holds the kernel lock, as all kernel code does, until its
	 * scheduler lets it go: from time_init on, interrupts are on, and a
	 * device's then finds the lock held (docs/smp.md).
	 */
	lock_kernel();
	serial_init();
	printk("\nccos: booting\n");
	if (magic != MB2_BOOT_MAGIC)
		panic("entered with magic %x, not multiboot2's %x", magic, MB2_BOOT_MAGIC);
	gdt_init(0);
	idt_init();

	if (!multiboot2_parse(phys_to_virt(mbi_phys), &boot_info))
		panic("the multiboot2 information is malformed (see above)");
	cmdline_parse(boot_info.cmdline, &boot_options);
	if (boot_options.quiet)
		console_loglevel = 4;
	page_fault_init();
	frame_init();
	paging_init();
	pti_init();
	kernel_stacks_init();
	vga_init();
	fixmap_init();
	print_boot_summary(&boot_info);
	printk("ccos: vsyscall=%s clocksource=%s init=%s\n",
	       vsyscall_mode_names[boot_options.vsyscall],
	       clocksource_names[boot_options.clocksource], boot_options.init);
	time_init();
	vsyscall_init();
	vdso_init();
	syscall_init();
	fsgsbase_init();
	fpu_init();
	fpu_init_state();
	random_init();
	files_init();
	smp_init();
	tty_init();
	mark_ro_after_init();
	pti_user_tables_init();

	if (boot_options.ptdump) {
		ptdump(kernel_pml4);
		if (pti_enabled)
			ptdump(pti_user_template);	/* the user table's kernel half */
	}
	if (boot_options.idtdump)
		idt_dump();
	if (boot_options.ktest)
		ktest_run_all();

	smp_start_aps();	/* into their schedulers, once this one lets the lock go */
	start_init();
}
