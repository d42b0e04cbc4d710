/* Tests of the kernel's stacks: each above an unmapped guard page, and an overflow is a double fault. */
#include <ccos/ktest.h>
#include <asm/trap.h>
#include <ccos/mm.h>
#include <ccos/proc.h>
#include <ccos/lib.h>
#include <asm/x86.h>

/* call_on_stack(fn, arg, top): run fn(arg) with rsp = top, then come back. */
void call_on_stack(void (*fn)(void *), void *arg, void *top);
__asm__(".text\n"
	".type call_on_stack, @function\n"
	"call_on_stack:\n\t"
	"push %rbp\n\t"
	"mov %rsp, %rbp\n\t"
	"mov %rdx, %rsp\n\t"
	"mov %rdi, %rax\n\t"
	"mov %rsi, %rdi\n\t"
	"call *%rax\n\t"
	"mov %rbp, %rsp\n\t"
	"pop %rbp\n\t"
	"ret\n"
	".size call_on_stack, . - call_on_stack\n");

/* 512 bytes a call, until the stack runs out: the array escapes and is used after the call. */
static void __attribute__((noinline)) recurse(uint64_t depth)
{
	uint8_t pad[512];

	__asm__ volatile("" : : "r"(pad) : "memory");
	if (depth)
		recurse(depth - 1);
	__asm__ volatile("" : : "r"(pad) : "memory");
}

static void run_forever(void *arg)
{
	(void)arg;
	recurse(~0ul);
}

static uint8_t *overflow_top;

/* On the stack whose top is overflow_top, or right here if that is the current one. */
static void overflow(void *arg)
{
	uint8_t here;

	(void)arg;
	if (&here < overflow_top && &here >= overflow_top - 64 * 1024)
		run_forever(NULL);
	else
		call_on_stack(run_forever, NULL, overflow_top);
}

static uint64_t sum_page(const uint8_t *page)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < PAGE_SIZE; i++)
		sum = sum * 31 + page[i];
	return sum;
}

/* Is page the top page of a fixed stack that nothing runs on meanwhile (not #DF's, where the report runs)? */
static bool idle_stack_top(const uint8_t *page)
{
	int i;

	for (i = 0; i < NR_FIXED_STACKS; i++)
		if (i != IST_DF && page == kernel_stacks[0][i].top - PAGE_SIZE)
			return true;
	return false;
}

/*
 * The guard at `guard` is unmapped, the stack above it mapped; running the
 * stack dry is a #DF whose CR2 lies in the guard page. Where the page below
 * the guard is another, idle stack's top (the NMI stack's, below the #MC
 * stack's guard), it is unchanged. Other data below a guard may change by
 * itself: the timer's interrupt updates the timekeeper, the report's
 * printk the log; so interrupts stay off, and only a stack is compared.
 */
static void check_overflow(const char *name, uint8_t *guard, uint8_t *top)
{
	uint8_t *below = guard - PAGE_SIZE;
	bool check_below = idle_stack_top(below);
	bool irqs_on = read_rflags() & RFLAGS_IF;
	uint64_t before;

	cli();
	before = check_below ? sum_page(below) : 0;

	if (walk_pte(kernel_pml4, (uint64_t)guard))
		ktest_fail(__FILE__, __LINE__, "%s stack: its guard page %p is mapped", name,
			   guard);
	KEXPECT(walk_pte(kernel_pml4, (uint64_t)guard + PAGE_SIZE) != NULL);
	KEXPECT(walk_pte(kernel_pml4, (uint64_t)top - PAGE_SIZE) != NULL);
	overflow_top = top;
	KEXPECT_EQ(ktest_expect_fault(overflow, NULL), X86_DF);
	if (ktest_fault_cr2 - (uint64_t)guard >= PAGE_SIZE)
		ktest_fail(__FILE__, __LINE__, "%s stack: CR2 %lx, expected in the guard page %p",
			   name, ktest_fault_cr2, guard);
	if (check_below && sum_page(below) != before)
		ktest_fail(__FILE__, __LINE__, "%s stack: the page below its guard changed", name);
	if (irqs_on)
		sti();
}

KTEST(every_kernel_stack_overflows_into_a_double_fault)
{
	struct process *p = proc_alloc();
	int i;

	/* The IST stacks follow one another: #MC's guard lies right on the NMI stack's top. */
	KEXPECT(idle_stack_top(kernel_stacks[0][IST_MC].guard - PAGE_SIZE));
	for (i = 0; i < NR_FIXED_STACKS; i++)
		check_overflow(kernel_stacks[0][i].name, kernel_stacks[0][i].guard, kernel_stacks[0][i].top);
	KEXPECT(p != NULL);
	if (!p)
		return;
	KEXPECT(kstack_guard_owner(p->kstack - PAGE_SIZE) == p);
	KEXPECT(kstack_guard_owner(p->kstack) == NULL);
	/* Below its (unused) trap frame and first switch frame. */
	check_overflow("process", (uint8_t *)p->kstack - PAGE_SIZE, (uint8_t *)p->context);
	proc_free(p);
}

/* A freed process's stack is unmapped at once, its frames and slot wait for one flush (kernel/kstack.c). */
KTEST(a_freed_kernel_stack_waits_for_one_flush)
{
	struct process *p, *q;
	uint64_t stack, *pte;
	size_t before;

	kstack_purge();
	before = frames_free();
	p = proc_alloc();
	KEXPECT(p != NULL);
	if (!p)
		return;
	stack = p->kstack;
	proc_free(p);
	pte = walk_pte(kernel_pml4, stack);
	KEXPECT(!pte || !(*pte & PTE_P));
	KEXPECT(!kstack_ready(p));
	KEXPECT_EQ(frames_free(), before - KSTACK_SIZE / PAGE_SIZE);
	q = proc_alloc();		/* a new process takes another slot meanwhile */
	KEXPECT(q != NULL && q != p);
	if (q)
		proc_free(q);
	kstack_purge();
	KEXPECT(kstack_ready(p) && (!q || kstack_ready(q)));
	KEXPECT_EQ(frames_free(), before);
}
