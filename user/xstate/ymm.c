/* xstate: loading, storing and comparing the YMM registers, and whether AVX may be used. */
#include "xstate.h"

void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	asm volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

#define YMM_LOAD(n)	"vmovdqu " #n "*32(%rdi), %ymm" #n "\n"
#define YMM_STORE(n)	"vmovdqu %ymm" #n ", " #n "*32(%r9)\n"
#define YMM_UPPER(n)	"vextractf128 $1, %ymm" #n ", " #n "*16(%rdi)\n"
__asm__(".text\n"
	".globl ymm_across, ymm_uppers\n"
	"ymm_across:\n"
	YMM_LOAD(0) YMM_LOAD(1) YMM_LOAD(2) YMM_LOAD(3) YMM_LOAD(4) YMM_LOAD(5)
	YMM_LOAD(6) YMM_LOAD(7) YMM_LOAD(8) YMM_LOAD(9) YMM_LOAD(10) YMM_LOAD(11)
	YMM_LOAD(12) YMM_LOAD(13) YMM_LOAD(14) YMM_LOAD(15)
	"	movq %rsi, %rax\n"
	"	movq %rdx, %rdi\n"
	"	movq %rcx, %rsi\n"
	"	movq %r8, %rdx\n"
	"	syscall\n"
	YMM_STORE(0) YMM_STORE(1) YMM_STORE(2) YMM_STORE(3) YMM_STORE(4) YMM_STORE(5)
	YMM_STORE(6) YMM_STORE(7) YMM_STORE(8) YMM_STORE(9) YMM_STORE(10) YMM_STORE(11)
	YMM_STORE(12) YMM_STORE(13) YMM_STORE(14) YMM_STORE(15)
	"	vzeroupper\n"
	"	ret\n"
	"ymm_uppers:\n"
	YMM_UPPER(0) YMM_UPPER(1) YMM_UPPER(2) YMM_UPPER(3) YMM_UPPER(4) YMM_UPPER(5)
	YMM_UPPER(6) YMM_UPPER(7) YMM_UPPER(8) YMM_UPPER(9) YMM_UPPER(10) YMM_UPPER(11)
	YMM_UPPER(12) YMM_UPPER(13) YMM_UPPER(14) YMM_UPPER(15)
	"	ret\n");

uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

int avx_usable(void)
{
	uint32_t r[4];

	cpuid(1, 0, r);
	if (!(r[2] & (1u << 28)))
		return skip("the CPU has no AVX (CPUID.1:ECX bit 28)");
	if (!(r[2] & (1u << 27)))
		return ktap_fail("CPUID.1:ECX.OSXSAVE is clear: the kernel did not set CR4.OSXSAVE");
	if ((xgetbv0() & 7) != 7)
		return ktap_fail("XCR0 %#lx: x87, SSE and AVX (7) are not all enabled", xgetbv0());
	return 1;
}

void fill(struct ymm_regs *r, uint64_t seed)
{
	unsigned i;

	for (i = 0; i < sizeof(r->y); i += 8) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		memcpy(&r->y[0][0] + i, &seed, 8);
	}
}

int same_ymm(const struct ymm_regs *got, const struct ymm_regs *want, const char *when)
{
	int i;

	for (i = 0; i < 16; i++)
		if (memcmp(got->y[i], want->y[i], 32))
			return FAIL("%s: ymm%d is not what was loaded (upper half %s)", when, i,
				    memcmp(got->y[i] + 16, want->y[i] + 16, 16) ? "differs" : "same");
	return 0;
}
