/* xstate: the YMM helpers its cases share (user/xstate/ymm.c). */
#ifndef USER_XSTATE_H
#define USER_XSTATE_H

#include "sigutil.h"

#define AT_MINSIGSTKSZ		51
#define UC_FP_XSTATE		0x1
#define FP_XSTATE_MAGIC1	0x46505853u
#define FP_XSTATE_MAGIC2	0x46505845u
#define XFEATURE_AVX		(1ul << 2)
#define XSTATE_BV		512	/* the XSAVE header's first quadword, in the image */
#define SW_BYTES		464	/* struct _fpx_sw_bytes, in the legacy area */

struct fpx_sw_bytes {
	uint32_t magic1, extended_size;
	uint64_t xfeatures;
	uint32_t xstate_size, padding[7];
};

struct ymm_regs {
	uint8_t y[16][32];
} __attribute__((aligned(32)));

void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]);
uint64_t xgetbv0(void);
/*
 * ymm_across(in, nr, a1, a2, a3, out): ymm0-15 from in, system call nr
 * with a1-a3, ymm0-15 to out; returns rax. ymm_uppers(out) stores each
 * register's upper 128 bits, 16 bytes apiece.
 */
long ymm_across(const struct ymm_regs *in, long nr, long a1, long a2, long a3,
		struct ymm_regs *out);
void ymm_uppers(uint8_t out[16][16]);
/* 1: AVX may be used; SKIPPED: the CPU has none; 0: the kernel did not enable it. */
int avx_usable(void);
void fill(struct ymm_regs *r, uint64_t seed);
/* 0 if got is want; else 1, with a "# " line saying which register differs. */
int same_ymm(const struct ymm_regs *got, const struct ymm_regs *want, const char *when);

#endif
