/* In-kernel tests of the selectors a return to user mode may carry: the #GP iretq would raise, and force_valid_ss. */
#include <ccos/ktest.h>
#include <asm/trap.h>

/* The error code of the #GP iretq to (cs, ss, rip) would raise, or -1 for none. */
static long gp_of(uint64_t cs, uint64_t ss, uint64_t rip)
{
	struct trap_frame tf = { .cs = cs, .ss = ss, .rip = rip, .vector = SYSCALL_MARK };

	if (!iret_would_fault(&tf))
		return -1;
	return tf.vector == X86_GP ? (long)tf.error_code : -2;
}

KTEST(user_segments_good_returns)
{
	KEXPECT_EQ(gp_of(USER_CS, USER_DS, 0x400000), -1);
	KEXPECT_EQ(gp_of(USER32_CS, USER_DS, 0x400000), -1);
	KEXPECT_EQ(gp_of(USER_CS, PERCPU_SEL, 0x400000), -1);	/* a ring-3 data segment too */
	KEXPECT_EQ(gp_of(USER_CS, USER_DS, 0xffffffffff600000), -1);	/* the vsyscall page */
}

KTEST(user_segments_bad_cs)
{
	KEXPECT_EQ(gp_of(3, USER_DS, 0x400000), 0);			/* null */
	KEXPECT_EQ(gp_of(KERNEL_CS | 3, USER_DS, 0x400000), KERNEL_CS);	/* DPL 0 */
	KEXPECT_EQ(gp_of(USER_DS, USER_DS, 0x400000), USER_DS & ~3);	/* data, not code */
	KEXPECT_EQ(gp_of(TSS_SEL | 3, USER_DS, 0x400000), TSS_SEL);	/* a system descriptor */
	KEXPECT_EQ(gp_of(0x47, USER_DS, 0x400000), 0x44);		/* the LDT, which ccos has not */
	KEXPECT_EQ(gp_of(0xfffb, USER_DS, 0x400000), 0xfff8);		/* past the GDT's limit */
}

KTEST(user_segments_bad_ss)
{
	KEXPECT_EQ(gp_of(USER_CS, 3, 0x400000), 0);			/* null, to 64-bit ring 3 too */
	KEXPECT_EQ(gp_of(USER32_CS, 3, 0x400000), 0);
	KEXPECT_EQ(gp_of(USER_CS, USER_CS, 0x400000), USER_CS & ~3);	/* code, not data */
	KEXPECT_EQ(gp_of(USER_CS, KERNEL_DS | 3, 0x400000), KERNEL_DS);	/* DPL 0 */
	/* CS is checked first */
	KEXPECT_EQ(gp_of(KERNEL_CS | 3, USER_CS, 0x400000), KERNEL_CS);
}

KTEST(user_segments_bad_rip)
{
	KEXPECT_EQ(gp_of(USER_CS, USER_DS, 0x800000000000), 0);	/* not canonical */
	KEXPECT_EQ(gp_of(USER32_CS, USER_DS, 0x100000000), 0);		/* past 4 GiB */
	KEXPECT_EQ(gp_of(USER32_CS, USER_DS, 0xffffffff), -1);
}

KTEST(user_segments_force_valid_ss)
{
	struct trap_frame tf = { .cs = USER_CS };
	static const uint16_t bad[] = { 0, 3, USER_CS, KERNEL_DS | 3, 0x47, TSS_SEL | 3 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		tf.ss = bad[i];
		force_valid_ss(&tf);
		KEXPECT_EQ(tf.ss, USER_DS);
	}
	tf.ss = PERCPU_SEL;
	force_valid_ss(&tf);
	KEXPECT_EQ(tf.ss, PERCPU_SEL);
}
