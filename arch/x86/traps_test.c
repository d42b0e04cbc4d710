/* In-kernel tests of exception entry: faults raised on purpose are caught with the right vector. */
#include <ccos/ktest.h>
#include <asm/trap.h>
#include <asm/x86.h>

static void raise_ud(void *arg)
{
	(void)arg;
	__asm__ volatile("ud2");
}

static void raise_bp(void *arg)
{
	(void)arg;
	__asm__ volatile("int3");
}

/* divq by a zero that the compiler cannot see: #DE. */
static void raise_de(void *arg)
{
	uint64_t lo = 1, hi = 0, divisor = (uint64_t)arg;

	__asm__ volatile("divq %2" : "+a"(lo), "+d"(hi) : "r"(divisor));
}

/* A load from a non-canonical address: #GP with error code 0 (not #PF). */
static void raise_gp(void *arg)
{
	(void)*(volatile uint64_t *)arg;
}

static void no_fault(void *arg)
{
	*(int *)arg = 1;
}

KTEST(traps_invalid_opcode)
{
	KEXPECT_EQ(ktest_expect_fault(raise_ud, NULL), X86_UD);
	KEXPECT_EQ(ktest_fault_error, 0);
}

KTEST(traps_breakpoint)
{
	KEXPECT_EQ(ktest_expect_fault(raise_bp, NULL), X86_BP);
}

KTEST(traps_divide_error)
{
	KEXPECT_EQ(ktest_expect_fault(raise_de, (void *)0), X86_DE);
}

KTEST(traps_general_protection)
{
	KEXPECT_EQ(ktest_expect_fault(raise_gp, (void *)0x8000000000000000ul), X86_GP);
	KEXPECT_EQ(ktest_fault_error, 0);
}

KTEST(traps_no_fault)
{
	int ran = 0;

	KEXPECT_EQ(ktest_expect_fault(no_fault, &ran), -1);
	KEXPECT_EQ(ran, 1);
}

KTEST(traps_interrupt_flag_kept)
{
	/* The interrupt gate clears IF; ktest_expect_fault puts it back as it was. */
	uint64_t before = read_rflags() & RFLAGS_IF;

	ktest_expect_fault(raise_ud, NULL);
	KEXPECT_EQ(read_rflags() & RFLAGS_IF, before);
}

KTEST(traps_fault_after_fault)
{
	/* A second expected fault right after a first: nothing stays armed or nested. */
	KEXPECT_EQ(ktest_expect_fault(raise_bp, NULL), X86_BP);
	KEXPECT_EQ(ktest_expect_fault(raise_de, (void *)0), X86_DE);
	KEXPECT_EQ(ktest_expect_fault(no_fault, &(int){ 0 }), -1);
}
