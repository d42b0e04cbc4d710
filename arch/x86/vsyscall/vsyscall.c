/* The vsyscall page in each mode, getcpu's per-CPU number, and vector 0xcc. */
#include <asm/vsyscall.h>
#include <asm/vgetcpu.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/time.h>
#include <asm/trap.h>
#include <asm/x86.h>
#include <ccos/printk.h>
#include <ccos/lab.h>

/*
 * What user space finds at VSYSCALL_ADDR in each mode (design.md). Both
 * contents are pages of the kernel's read-only data (pages.asm); the
 * mapping gives them PTE_U without PTE_W or PTE_NX, so user mode may read
 * and execute them and nobody may write (CR0.WP holds the kernel to W
 * too). In xonly and none nothing is mapped: every user access is a
 * page fault, which emulate.c looks at.
 */
static const struct {
	const uint8_t *page;		/* NULL: not mapped */
	const char *what;
} vsyscall_modes[] = {
	[VSYSCALL_NATIVE] = { vsyscall_native_page,
		"native code (gettimeofday +0x000, time +0x400, getcpu +0x800), 0xcc elsewhere; user r-x" },
	[VSYSCALL_EMULATE] = { vsyscall_emulate_page,
		"int $0xcc (cd cc) at +0x000 +0x400 +0x800, 0xcc elsewhere; user r-x" },
	[VSYSCALL_XONLY] = { NULL,
		"not mapped; a call to an entry is emulated from its instruction-fetch fault" },
	[VSYSCALL_NONE] = { NULL,
		"not mapped; any use is a SIGSEGV" },
};

/* CPUID.80000001H:EDX bit 27 (SDM Vol. 2 CPUID): RDTSCP and IA32_TSC_AUX exist. */
static bool cpu_has_rdtscp(void)
{
	uint32_t a, b, c, d;

	cpuid(0x80000000, 0, &a, &b, &c, &d);
	if (a < 0x80000001)
		return false;
	cpuid(0x80000001, 0, &a, &b, &c, &d);
	return d & (1u << 27);
}

/*
 * getcpu's answer for this CPU, node << 12 | cpu, put where user mode can
 * read it without a system call: IA32_TSC_AUX, which rdtscp returns, and
 * always the limit of this CPU's PERCPU_SEL segment, which lsl returns.
 * Every CPU calls it for itself (vsyscall_init here, ap_main in smp.c).
 */
void vsyscall_set_cpu(unsigned int cpu, unsigned int node)
{
	uint32_t p = node << VGETCPU_CPU_BITS | cpu;

	gdt_set_percpu_limit(p);
	if (cpu_has_rdtscp()) {
		wrmsr(MSR_TSC_AUX, p);
		vvar.vgetcpu_mode = VGETCPU_RDTSCP;
	} else {
		vvar.vgetcpu_mode = VGETCPU_LSL;
	}
}

void vsyscall_init(void)
{
	enum vsyscall_mode mode = boot_options.vsyscall;
	const uint8_t *page = vsyscall_modes[mode].page;

	if (page) {
		if ((uint64_t)page & (PAGE_SIZE - 1))
			panic("vsyscall: the %s page at %p is not page-aligned (pages.asm)",
			      vsyscall_mode_names[mode], page);
		fixmap_set(VSYSCALL_ADDR, virt_to_phys(page), PTE_U);
	}

	vsyscall_set_cpu(0, 0);

	/*
	 * Vector 0xcc in every mode (design.md): emulate's page raises it,
	 * and in the other modes a program's own int $0xcc must meet the same
	 * handler, which refuses it (not from the page) with SIGSEGV.
	 */
	/* LAB gate: BEGIN */
	idt_set_user_gate(VSYSCALL_EMU_VECTOR, emulate_vsyscall);
	/* LAB gate: STUB
	// Open vector VSYSCALL_EMU_VECTOR to ring 3 (idt.c), its handler
	// emulate_vsyscall: in which of the four modes?
	   LAB gate: END */

	printk("vsyscall: %s: page at %lx: %s\n", vsyscall_mode_names[mode], VSYSCALL_ADDR,
	       vsyscall_modes[mode].what);
	printk("vsyscall: getcpu reads node << 12 | cpu = 0x%x with %s; vector 0x%x is a DPL 3 gate\n",
	       vgetcpu_read(vvar.vgetcpu_mode),
	       vvar.vgetcpu_mode == VGETCPU_RDTSCP ? "rdtscp (IA32_TSC_AUX)" : "lsl (GDT limit)",
	       VSYSCALL_EMU_VECTOR);
}
