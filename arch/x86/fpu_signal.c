/* The FPU state in a signal frame, as Linux lays it out: the XSAVE image, its fx_sw_bytes and FP_XSTATE_MAGIC2. */
#include <asm/arch.h>
#include <ccos/types.h>
#include <ccos/lib.h>
#include <ccos/errno.h>
#include <ccos/uaccess.h>

/*
 * uc_mcontext.fpstate points at a 64-aligned XSAVE image of the
 * interrupted code's registers, FP_XSTATE_MAGIC2 right after it. Its
 * legacy area's bytes 464-511 are the software's (SDM Vol. 1 Table 10-2:
 * FXSAVE and XSAVE leave them alone, FXRSTOR and XRSTOR ignore them);
 * Linux puts there struct _fpx_sw_bytes, which says that XSAVE state
 * follows and how much. A program, or a library's context switch, reads
 * the layout from them, and rt_sigreturn trusts the image only where
 * both magic numbers are in place: otherwise it is a legacy frame, and
 * only x87 and SSE come back (Linux's check_xstate_in_sigframe).
 */
#define FP_XSTATE_MAGIC1	0x46505853u	/* "SXPF" */
#define FP_XSTATE_MAGIC2	0x46505845u	/* "EXPF" */
#define FP_XSTATE_MAGIC2_SIZE	4

struct fpx_sw_bytes {
	uint32_t magic1;		/* FP_XSTATE_MAGIC1 */
	uint32_t extended_size;		/* the image and MAGIC2 */
	uint64_t xfeatures;		/* the components the image may hold: XCR0 */
	uint32_t xstate_size;		/* the image: MAGIC2 lies right after it */
	uint32_t padding[7];
};

BUILD_BUG_ON(sizeof(struct fpx_sw_bytes) != 48);

/* Offsets in the image (SDM Vol. 1 Tables 10-2 and 13-1). */
#define FX_MXCSR	24
#define FX_SW_BYTES	464
#define FX_SIZE		512
#define XSTATE_BV	512		/* the header's first quadword */
#define XCOMP_BV	520
#define XSAVE_HDR_END	576		/* the smallest image: legacy area and header */
#define XFEATURE_FPSSE	3ull		/* x87 and SSE */
#define XFEATURE_SSE_AVX 6ull		/* the two MXCSR belongs to */

/* What the frame's fpstate takes: the image, and MAGIC2 where it is an XSAVE one. */
unsigned long fpu_sigframe_size(void)
{
	return fpu_state_size + (fpu_xfeatures ? FP_XSTATE_MAGIC2_SIZE : 0);
}

/*
 * Save the registers to the frame at fpstate (64-aligned), through buf,
 * the thread's own area, which is scratch while it runs. As Linux:
 * XSTATE_BV always claims x87 and SSE, so that a handler that edits
 * only the legacy area (knowing nothing of XSAVE) has its edits
 * restored. Without XSAVE, FXSAVE: bytes 416-511 stay zero.
 */
int fpu_to_sigframe(uint8_t *buf, uint64_t fpstate)
{
	struct fpx_sw_bytes sw = {
		.magic1 = FP_XSTATE_MAGIC1,
		.extended_size = fpu_sigframe_size(),
		.xfeatures = fpu_xfeatures,
		.xstate_size = fpu_state_size,
	};
	uint64_t bv;

	/*
	 * FXSAVE and XSAVE leave bytes 416-511 alone, and XSAVE the header
	 * but XSTATE_BV's bits for the components XCR0 enables; every
	 * component it writes whole (SDM Vol. 1 §13.7). The user gets zero
	 * there, not what the area held before.
	 */
	memset(buf + 416, 0, FX_SIZE - 416);
	if (fpu_xfeatures)
		memset(buf + XSTATE_BV, 0, XSAVE_HDR_END - XSTATE_BV);
	fpu_save_full(buf);
	if (fpu_xfeatures) {
		memcpy(buf + FX_SW_BYTES, &sw, sizeof(sw));
		memcpy(&bv, buf + XSTATE_BV, 8);
		bv |= XFEATURE_FPSSE;
		memcpy(buf + XSTATE_BV, &bv, 8);
		if (put_user(FP_XSTATE_MAGIC2, (uint32_t __user *)(fpstate + fpu_state_size)))
			return -EFAULT;
	}
	/* A multiple of 8 bytes: copy_to_user's fast case, the image without MAGIC2. */
	return copy_to_user((void __user *)fpstate, buf, fpu_state_size) ? -EFAULT : 0;
}

/*
 * Linux's frame check (check_xstate_in_sigframe), on the legacy area
 * already in buf: an image is an XSAVE one if MAGIC1 is in the software
 * bytes, its size is at least the legacy area and header and at most this
 * kernel's, and MAGIC2 follows it. The rest of the image is copied in
 * with it. 1, with
 * *xfeatures the components to take from it; 0: a legacy frame, x87 and
 * SSE only; -EFAULT: the frame is not readable.
 */
static int sigframe_xstate(uint8_t *buf, uint64_t fpstate, uint64_t *xfeatures)
{
	struct fpx_sw_bytes sw;
	uint32_t magic2;

	*xfeatures = XFEATURE_FPSSE;
	if (!fpu_xfeatures)
		return 0;
	memcpy(&sw, buf + FX_SW_BYTES, sizeof(sw));
	if (sw.magic1 != FP_XSTATE_MAGIC1 || sw.xstate_size < XSAVE_HDR_END ||
	    sw.xstate_size > fpu_state_size || sw.xstate_size > sw.extended_size)
		return 0;
	if (get_user(magic2, (const uint32_t __user *)(fpstate + sw.xstate_size)) ||
	    copy_from_user(buf + FX_SIZE, (const void __user *)(fpstate + FX_SIZE),
			   fpu_state_size - FX_SIZE))
		return -EFAULT;
	if (magic2 != FP_XSTATE_MAGIC2)
		return 0;
	*xfeatures = sw.xfeatures & fpu_xfeatures;
	return 1;
}

/*
 * Load the registers from the frame at fpstate: 0, or an error after
 * which the caller resets them and sends SIGSEGV, as Linux does when its
 * XRSTOR from the frame faults. The image is copied to buf (the thread's
 * area) and checked there against every rule for which the SDM says
 * FXRSTOR or XRSTOR raises #GP, so the instruction that loads it cannot
 * fault in the kernel:
 *  - the image 16-aligned for FXRSTOR, 64-aligned for XRSTOR (§10.5, §13.4);
 *  - XSTATE_BV no bit that XCR0 lacks; bytes 8-23 of the header (XCOMP_BV
 *    and the next quadword) zero, the standard form (§13.8.1);
 *  - MXCSR no bit outside MXCSR_MASK (§11.6.6).
 * Components the frame does not offer are put in their initial state,
 * as Linux does: XSTATE_BV's bit for each is cleared, and MXCSR, which
 * XRSTOR loads with SSE or AVX, is the initial one when neither comes.
 */
int fpu_from_sigframe(uint8_t *buf, uint64_t fpstate)
{
	uint64_t xfeatures, bv, hdr[2];
	uint32_t mxcsr;
	int xstate;

	if (copy_from_user(buf, (const void __user *)fpstate, FX_SIZE))
		return -EFAULT;
	xstate = sigframe_xstate(buf, fpstate, &xfeatures);
	if (xstate < 0)
		return xstate;
	if (fpstate % (xstate ? 64 : 16))
		return -EINVAL;
	if (!xstate && fpu_xfeatures)
		memset(buf + FX_SIZE, 0, XSAVE_HDR_END - FX_SIZE);	/* a header of its own */
	if (xstate) {
		memcpy(&bv, buf + XSTATE_BV, 8);
		memcpy(hdr, buf + XCOMP_BV, 16);
		if ((bv & ~fpu_xfeatures) || hdr[0] || hdr[1])
			return -EINVAL;
		bv &= xfeatures;
	} else {
		bv = XFEATURE_FPSSE;	/* a legacy image: the header was not copied */
	}
	if (fpu_xfeatures)
		memcpy(buf + XSTATE_BV, &bv, 8);
	if (!(xfeatures & XFEATURE_SSE_AVX))
		memcpy(buf + FX_MXCSR, fpu_initial_state + FX_MXCSR, 4);
	memcpy(&mxcsr, buf + FX_MXCSR, 4);
	if (mxcsr & ~fpu_mxcsr_mask)
		return -EINVAL;
	fpu_restore(buf);
	return 0;
}
