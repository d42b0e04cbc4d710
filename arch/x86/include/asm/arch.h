/*
 * What generic code (kernel/, mm/, fs/, drivers/, include/ccos/) may use
 * of the architecture: the one header of arch/x86/include/asm/ it
 * includes (tools/tests/test_docs.py holds it to that). Everything else
 * in asm/ is the architecture's own business.
 */
#ifndef CCOS_ASM_ARCH_H
#define CCOS_ASM_ARCH_H

#include <ccos/types.h>
#include <ccos/time_types.h>

/* The instructions: cli, sti, pause, rdtsc, MSRs, control registers, irq_window. */
#include <asm/x86.h>
/* The trap frame, user_mode, the selectors and vectors; gdt_init, idt_init, tss_set_rsp0. */
#include <asm/trap.h>
/* The vsyscall ABI's pages: their entries and modes, the vvar page, its time data, getcpu. */
#include <asm/vsyscall.h>
#include <asm/vvar.h>
#include <asm/vgetcpu.h>
/* The running CPU's block (GS): this_cpu(), current(). */
#include <asm/percpu.h>

struct mm;
struct process;

/* The CPUs (arch/x86/smp.c, lapic.c). */
extern int nr_cpus;		/* CPUs up, the boot CPU included */
void smp_init(void);
void smp_start_aps(void);	/* after mark_ro_after_init: the APs enter the scheduler */
void smp_send_reschedule(int cpu);

/*
 * TLB shootdown (arch/x86/tlb.c). After changing or removing entries of
 * [start, end) in the page tables at pml4 (kernel_pml4: the kernel's,
 * which every CPU uses), and flushing them on this CPU: every other CPU
 * that may hold them flushes them too, and the call returns only when
 * all have. Call it before the frames or the old permissions are relied
 * on being gone, inside the kernel lock, holding no spinlock.
 */
void tlb_shootdown(uint64_t pml4, uint64_t start, uint64_t end);
void tlb_shootdown_poll(void);	/* answer a request meant for this CPU */

/*
 * Page-table isolation (arch/x86/pti.c, docs/pti.md): pti_init after
 * paging_init, pti_user_tables_init after mark_ro_after_init. With it on,
 * an address space's PML4 is the kernel's of a pair (pti_pgd_alloc), the
 * user table the page after it.
 */
extern bool pti_enabled;
extern uint64_t pti_user_template;	/* the user table's kernel half */
void pti_init(void);
void pti_cpu_init(int cpu);
uint64_t syscall_entry_address(void);	/* for LSTAR: the entry pti= chose */
void pti_user_tables_init(void);
uint64_t pti_pgd_alloc(void);
void pti_pgd_free(uint64_t pml4);
void pti_pgd_sync(uint64_t pml4, uint64_t *e);

/* Device interrupts, ISA IRQ 0-15 at vectors IRQ_BASE..+15 (arch/x86/pic.c). */
#define IRQ_TIMER	0	/* PIT channel 0 */
#define IRQ_CASCADE	2	/* the slave PIC */
#define IRQ_COM1	4
#define IRQ_RTC		8
/* Install handler for irq and unmask it (I/O APIC or 8259); the handler must call irq_eoi. */
void irq_set_handler(int irq, trap_handler_t handler);
void irq_eoi(int irq);		/* the 8259's EOI, or the local APIC's under the I/O APIC */

/* The CMOS real-time clock (arch/x86/rtc.c): a decoded calendar time, UTC. */
struct rtc_time {
	int year, mon, mday, hour, min, sec;	/* mon 1-12, mday 1-31 */
};
bool rtc_read(struct rtc_time *t);	/* false if the RTC never settled */
time64_t rtc_mktime(const struct rtc_time *t);	/* seconds since 1970-01-01 UTC */

/* Time's hardware (arch/x86/timer.c): ACPI, HPET, TSC, RTC, then the tick. */
void time_init(void);

/* arch/x86/switch_to.asm and arch/x86/syscall.c */
void switch_to(uint64_t *save_rsp, uint64_t new_rsp);
void syscall_init(void);

/* A thread's FPU, SSE and AVX registers (arch/x86/fpu.c): an area of fpu_state_size bytes, 64-aligned. */
#define FPU_STATE_MAX	2688	/* XSAVE's standard form up to AVX-512 */
void fpu_init(void);		/* each CPU: CR0, CR4, XCR0 */
void fpu_init_state(void);	/* the boot CPU, after fpu_init: the initial state, the boot line */
void fpu_save(void *area);	/* at a switch, at fork */
void fpu_save_full(void *area);
void fpu_restore(const void *area);
void fpu_reset(void);		/* the initial state, as exec and a signal handler start */
void fpu_reset_area(void *area);	/* the same, and a thread's area */
long fpu_xstate_prctl(int option, uint64_t arg);	/* arch_prctl's XCOMP codes */
extern uint64_t fpu_xfeatures;	/* XCR0, 0 without XSAVE */
extern unsigned int fpu_state_size;
extern uint32_t fpu_mxcsr_mask;
extern uint8_t fpu_initial_state[FPU_STATE_MAX];
/* The signal frame's fpstate (arch/x86/fpu_signal.c); buf is the thread's area. */
unsigned long fpu_sigframe_size(void);
int fpu_to_sigframe(uint8_t *buf, uint64_t fpstate);
int fpu_from_sigframe(uint8_t *buf, uint64_t fpstate);

/* A thread's FS and GS, selectors and bases, at a switch (arch/x86/fsgs.c). */
void fsgs_save(struct process *p);
void fsgs_load(const struct process *p);
void fsgsbase_init(void);		/* each CPU: CR4.FSGSBASE where it has it */
extern bool cpu_has_fsgsbase;

/* arch/x86/vdso: map the vDSO into a new address space (AT_SYSINFO_EHDR) */
void vdso_init(void);
int map_vdso(struct mm *mm, bool randomize);

#endif
