/* The kernel's fixed stacks (boot, #DF, NMI, #MC) above unmapped guard pages, and the double fault an overflow becomes. */
#include <asm/trap.h>
#include <ccos/mm.h>
#include <ccos/proc.h>
#include <ccos/printk.h>
#include <asm/x86.h>

/*
 * A stack that overflows must not run silently into the memory below it.
 * So every kernel stack lies above a guard page that stays unmapped: the
 * first push below the stack is a page fault. The CPU cannot push the #PF
 * frame either (same stack: #PF has no IST), and a fault while delivering
 * a page fault is a double fault (SDM Vol. 3 §6.15, interrupt 8). #DF has
 * a stack of its own (IST 1), so its handler runs, and CR2, which the
 * undeliverable page fault set, says which guard page was hit. The three
 * IST stacks have guard pages too: each is below the next one's guard,
 * not below another stack or the TSS.
 */
#define IST_STACK_SIZE	(2 * PAGE_SIZE)

static struct {
	uint8_t guard[PAGE_SIZE];
	uint8_t stack[IST_STACK_SIZE];
} ist_stacks[MAX_CPUS][3] __aligned(PAGE_SIZE);

/* The kernel stack each other CPU starts on (the boot CPU's is boot_stack). */
static struct {
	uint8_t guard[PAGE_SIZE];
	uint8_t stack[KSTACK_SIZE];
} ap_stacks[MAX_CPUS - 1] __aligned(PAGE_SIZE);

extern uint8_t boot_stack_guard[], boot_stack_top[];	/* boot/entry.asm */

static const char *const stack_names[NR_FIXED_STACKS] = {
	"kernel", [IST_DF] = "#DF", [IST_NMI] = "NMI", [IST_MC] = "#MC",
};

/* Per CPU, indexed by IST number; 0 is the stack the CPU starts on. */
struct kernel_stack kernel_stacks[MAX_CPUS][NR_FIXED_STACKS] __ro_after_init;

/* Fill in CPU cpu's table (gdt_init needs it for the TSS before paging_init). */
void kernel_stacks_set(int cpu)
{
	struct kernel_stack *s = kernel_stacks[cpu];
	int i;

	for (i = 0; i < NR_FIXED_STACKS; i++)
		s[i].name = stack_names[i];
	if (cpu == 0) {
		s[0].name = "boot";
		s[0].guard = boot_stack_guard;
		s[0].top = boot_stack_top;
	} else {
		s[0].guard = ap_stacks[cpu - 1].guard;
		s[0].top = ap_stacks[cpu - 1].stack + KSTACK_SIZE;
	}
	for (i = IST_DF; i < NR_FIXED_STACKS; i++) {
		s[i].guard = ist_stacks[cpu][i - 1].guard;
		s[i].top = ist_stacks[cpu][i - 1].stack + IST_STACK_SIZE;
	}
}

static const struct kernel_stack *fixed_stack_of_guard(uint64_t addr, int *cpu)
{
	int i;

	for (*cpu = 0; *cpu < MAX_CPUS; (*cpu)++)
		for (i = 0; i < NR_FIXED_STACKS; i++)
			if (addr - (uint64_t)kernel_stacks[*cpu][i].guard < PAGE_SIZE)
				return &kernel_stacks[*cpu][i];
	return NULL;
}

/*
 * Say which stack overflowed, if CR2 lies in a guard page; then the fault
 * goes where every kernel fault goes (a ktest that expects it, or panic).
 */
static void double_fault(struct trap_frame *tf)
{
	uint64_t cr2 = read_cr2();
	int cpu;
	const struct kernel_stack *s = fixed_stack_of_guard(cr2, &cpu);
	struct process *p = kstack_guard_owner(cr2);

	if (s)
		printk(KERN_ERR "double fault: kernel stack overflow: the %s stack of CPU %d ran into its guard page at %lx (CR2 %lx)\n",
		       s->name, cpu, (uint64_t)s->guard, cr2);
	else if (p)
		printk(KERN_ERR "double fault: kernel stack overflow: the kernel stack of pid %d ran into its guard page at %lx (CR2 %lx)\n",
		       p->pid, p->kstack - PAGE_SIZE, cr2);
	kernel_fault(tf);
}

/* After paging_init: every CPU's stacks; unmap every guard page, and report double faults. */
void kernel_stacks_init(void)
{
	int cpu, i;

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		kernel_stacks_set(cpu);
		for (i = 0; i < NR_FIXED_STACKS; i++)
			if (unmap_page(kernel_pml4, (uint64_t)kernel_stacks[cpu][i].guard))
				panic("stacks: the guard page of the %s stack of CPU %d at %p is not mapped",
				      kernel_stacks[cpu][i].name, cpu, kernel_stacks[cpu][i].guard);
	}
	idt_set_handler(X86_DF, double_fault);
}
