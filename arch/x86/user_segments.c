/* The code and stack segments a return to user mode may carry: rt_sigreturn's rule for SS, and the #GP iretq would raise. */
#include <asm/trap.h>

/*
 * rt_sigreturn takes cs and ss from the frame, as Linux does (with RPL 3
 * forced), so that a handler may send a program to 32-bit code (USER32_CS)
 * or back. Nothing the frame says can hurt the kernel: the CPU itself
 * checks the selectors when iretq loads them, and refuses any that is not
 * a ring-3 code or writable data segment. But it refuses them with a
 * fault in ring 0, at the iretq, which Linux turns into the fault user
 * mode would have had (fixup_bad_iret). ccos asks before going out
 * instead (the system call's way out, syscall_entry.asm, sends every
 * return whose cs or ss is unusual through deliver_signals): the checks of SDM Vol. 2A IRET, "return to
 * outer privilege level", made with lar on this CPU's own tables, and the
 * #GP they give made a SIGSEGV as the fault would have been.
 *
 * ccos has no LDT and no descriptor that is not present, so a bad
 * selector is always a #GP (never #NP or #SS): #GP(0) for a null one,
 * #GP(selector) for another, with its TI bit and without its RPL.
 */

/* lar's access rights (SDM Vol. 2A LAR): bits 8-15 descriptor byte 5, 20-23 its flags. */
#define AR_WRITABLE	(1u << 9)	/* data: writable */
#define AR_CODE		(1u << 11)
#define AR_S		(1u << 12)	/* code or data, not a system descriptor */
#define AR_DPL3		(3u << 13)
#define AR_P		(1u << 15)
#define AR_L		(1u << 21)	/* 64-bit code */
#define AR_DB		(1u << 22)

/*
 * The access rights of sel, or 0 where lar finds none that ring 3 may
 * use: a null selector, one past the table's limit, an LDT selector (ccos
 * has no LDT), a system descriptor, or a DPL below the RPL of 3.
 */
static uint32_t segment_rights(uint16_t sel)
{
	uint32_t ar;
	bool valid;

	__asm__("lar %2, %0" : "=r"(ar), "=@ccz"(valid) : "r"((uint32_t)sel));
	return valid ? ar : 0;
}

static bool user_code_segment(uint32_t ar)
{
	uint32_t need = AR_S | AR_CODE | AR_DPL3 | AR_P;

	return (ar & need) == need && (ar & (AR_L | AR_DB)) != (AR_L | AR_DB);
}

static bool user_stack_segment(uint32_t ar)
{
	return (ar & (AR_S | AR_CODE | AR_WRITABLE | AR_DPL3 | AR_P)) ==
	       (AR_S | AR_WRITABLE | AR_DPL3 | AR_P);
}

static bool canonical(uint64_t a)
{
	return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

/*
 * rt_sigreturn without UC_STRICT_RESTORE_SS, back to 64-bit code, and
 * signal delivery: an SS that is no usable stack segment becomes USER_DS
 * (Linux's force_valid_ss). 64-bit code never uses SS's base or limit,
 * but iretq refuses a bad one all the same; programs that build frames
 * for 32-bit code (DOSEMU) may leave any value there.
 */
void force_valid_ss(struct trap_frame *tf)
{
	if (!user_stack_segment(segment_rights(tf->ss)))
		tf->ss = USER_DS;
}

/*
 * Would iretq to tf fault? Then tf says so as a #GP from user mode would
 * (vector and error code), and the caller sends the SIGSEGV. In the SDM's
 * order: CS, then SS (a null one is refused on the way to ring 3, 64-bit
 * code included), then rip: non-canonical for 64-bit code, past the
 * 4 GiB limit of USER32_CS for 32-bit code.
 */
bool iret_would_fault(struct trap_frame *tf)
{
	uint32_t cs = segment_rights(tf->cs);
	uint64_t err;

	if (!(tf->cs & ~3ul))
		err = 0;
	else if (!user_code_segment(cs))
		err = tf->cs & ~3ul;
	else if (!(tf->ss & ~3ul))
		err = 0;
	else if (!user_stack_segment(segment_rights(tf->ss)))
		err = tf->ss & ~3ul;
	else if ((cs & AR_L) ? !canonical(tf->rip) : tf->rip > 0xffffffff)
		err = 0;
	else
		return false;
	tf->vector = X86_GP;
	tf->error_code = err;
	return true;
}
