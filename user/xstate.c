/* xstate: the AVX registers a thread keeps: across switches, fork and exec, and in Linux's XSAVE signal frame. */
#include "xstate/xstate.h"

/*
 * A program may use AVX once the kernel has set CR4.OSXSAVE (CPUID.1:ECX
 * bit 27 tells it) and enabled the AVX state in XCR0 (XGETBV): then the
 * kernel saves the YMM registers' upper halves with the rest of the
 * thread. Each case loads its own pattern into ymm0-15, lets the kernel
 * do something (a switch, a fork, an exec, a signal), and looks. A CPU
 * without AVX skips; a kernel that did not enable it fails. Every case
 * runs in a child (run_case), which it may pin to one CPU.
 */
static int pin_to_cpu0(void)
{
	unsigned long one = 1;

	return sched_setaffinity(0, sizeof(one), &one) == 0 ||
	       ktap_fail("sched_setaffinity to CPU 0 failed");
}

#define CHECK_AVX()	do { int u_ = avx_usable(); if (u_ != 1) return u_; } while (0)

/* ---- switches, fork, exec ---- */

/* Yield 200 times with these YMM values; 0 if they stayed. */
static int hammer(uint64_t seed)
{
	struct ymm_regs in, out;
	int i;

	fill(&in, seed);
	for (i = 0; i < 200; i++) {
		ymm_across(&in, 24 /* sched_yield */, 0, 0, 0, &out);
		if (same_ymm(&out, &in, "after sched_yield"))
			return FAIL("(round %d of 200, seed %#lx)", i + 1, seed);
	}
	return 0;
}

static int thread_done = 1, thread_bad;
static char thread_stack[65536] __attribute__((aligned(16)));

static void hammer_thread(long seed)
{
	thread_bad = hammer(seed);
}

/* Two threads pinned to one CPU, so each yield switches between them. */
static int test_ymm_across_switches(void)
{
	long tid;
	int v, mine;

	CHECK_AVX();
	if (!pin_to_cpu0())
		return 0;
	tid = thread_clone(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			   CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID,
			   thread_stack + sizeof(thread_stack), &thread_done, &thread_done, 0,
			   hammer_thread, 0x0badc0ffee0ddf00dL);
	if (tid < 0)
		return ktap_fail("clone of a thread: %ld", tid);
	mine = hammer(0x1234567812345678UL);
	while ((v = __atomic_load_n(&thread_done, __ATOMIC_ACQUIRE)))
		syscall4(__NR_futex, (long)&thread_done, 0 /* FUTEX_WAIT */, v, 0);
	if (mine || thread_bad)
		return ktap_fail("the %s's YMM registers changed across switches",
				 mine ? "first thread" : "second thread");
	return 1;
}

/* fork's child starts with the parent's registers, YMM included (Linux's fpu_clone). */
static int test_ymm_inherited_by_fork(void)
{
	static struct ymm_regs in, out;
	long pid;
	int status;

	CHECK_AVX();
	fill(&in, 0xf0f0f0f0deadbeefUL);
	pid = ymm_across(&in, 57 /* fork */, 0, 0, 0, &out);
	if (pid == 0)
		exit_group(same_ymm(&out, &in, "in the child of fork"));
	if (pid < 0)
		return ktap_fail("fork: error %ld", -pid);
	if (wait4(pid, &status, 0, NULL) != pid)
		return ktap_fail("wait4 failed");
	if (same_ymm(&out, &in, "in the parent after fork"))
		return ktap_fail("the parent's YMM registers changed");
	return expect_exit(status, 0, "the child, comparing its YMM registers with the parent's");
}

/* Run as `xstate exec-check` by the next case: the state a new program starts with. */
static int exec_check(void)
{
	static const uint8_t zero[16][16];
	uint8_t up[16][16];
	uint32_t mxcsr;
	uint16_t fcw;

	ymm_uppers(up);
	asm volatile("stmxcsr %0; fnstcw %1" : "=m"(mxcsr), "=m"(fcw));
	if (memcmp(up, zero, sizeof(up)))
		return FAIL("after execve a YMM register's upper half is not zero");
	if (mxcsr != 0x1f80 || fcw != 0x37f)
		return FAIL("after execve MXCSR %#x FCW %#x, expected 0x1f80 0x37f", mxcsr, fcw);
	return 0;
}

/* execve starts the new program with Linux's initial state: the old one's YMM values gone. */
static int test_exec_starts_clean(void)
{
	static struct ymm_regs in, out;
	static char arg[] = "exec-check";
	char *argv[] = { (char *)self, arg, NULL }, *envp[] = { NULL };
	long pid, r;
	int status;

	CHECK_AVX();
	pid = fork();
	if (pid == 0) {
		fill(&in, 0x5555aaaa5555aaaaUL);
		asm volatile("ldmxcsr %0" : : "m"((uint32_t){ 0x3f80 }));
		r = ymm_across(&in, 59 /* execve */, (long)self, (long)argv, (long)envp, &out);
		exit_group(FAIL("execve: error %ld", -r));
	}
	if (pid < 0 || wait4(pid, &status, 0, NULL) != pid)
		return ktap_fail("fork or wait4 failed");
	return expect_exit(status, 0, "the new program, checking its registers");
}

/* ---- the signal frame ---- */

/* The AVX state's offset in the standard XSAVE image: CPUID.(EAX=0DH,ECX=2):EBX. */
static unsigned avx_offset(void)
{
	uint32_t r[4];

	cpuid(0xd, 2, r);
	return r[1];
}

/* What the handler does to the frame before it returns, and what it saw. */
enum edit { EDIT_NONE, EDIT_YMM, EDIT_NO_MAGIC2, EDIT_HEADER_RESERVED, EDIT_XSTATE_BV,
	    /* these need no AVX */
	    EDIT_RECORD_ONLY, EDIT_FPSTATE_UNMAPPED, EDIT_FPSTATE_MISALIGNED };
static enum edit edit;
static struct ymm_regs frame_ymm, edited;
static uint8_t frame_image[4096] __attribute__((aligned(64)));
static unsigned long frame_flags, frame_fpstate, frame_bottom, frame_uppers_dirty;
static volatile int segv_count, segv_code;

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	static const uint8_t zero[16][16];
	ucontext_t *uc = ctx;
	uint8_t *fp = (uint8_t *)uc->uc_mcontext.fpstate, up[16][16];
	struct fpx_sw_bytes sw;
	unsigned avx = avx_offset(), i;

	(void)sig, (void)si;
	frame_flags = uc->uc_flags;
	frame_fpstate = (unsigned long)fp;
	frame_bottom = (unsigned long)uc - 8;	/* the return address below the ucontext */
	memcpy(&sw, fp + SW_BYTES, sizeof(sw));
	if (sw.magic1 == FP_XSTATE_MAGIC1 && sw.xstate_size <= sizeof(frame_image) - 4)
		memcpy(frame_image, fp, sw.xstate_size + 4);
	if (edit == EDIT_FPSTATE_UNMAPPED)
		uc->uc_mcontext.fpstate = (struct fpstate *)unmapped_page();
	if (edit == EDIT_FPSTATE_MISALIGNED)
		uc->uc_mcontext.fpstate = (struct fpstate *)(fp + 8);
	if (edit >= EDIT_RECORD_ONLY)
		return;
	ymm_uppers(up);
	frame_uppers_dirty = memcmp(up, zero, sizeof(up)) != 0;
	for (i = 0; i < 16; i++) {		/* low halves in the legacy area, upper at avx */
		memcpy(frame_ymm.y[i], fp + 160 + 16 * i, 16);
		memcpy(frame_ymm.y[i] + 16, fp + avx + 16 * i, 16);
	}
	switch (edit) {
	case EDIT_NONE:
		break;
	case EDIT_YMM:
	case EDIT_NO_MAGIC2:
		for (i = 0; i < 16; i++) {
			memcpy(fp + 160 + 16 * i, edited.y[i], 16);
			memcpy(fp + avx + 16 * i, edited.y[i] + 16, 16);
		}
		*(uint64_t *)(fp + XSTATE_BV) |= XFEATURE_AVX;
		if (edit == EDIT_NO_MAGIC2)
			*(uint32_t *)(fp + sw.xstate_size) = 0;
		break;
	case EDIT_HEADER_RESERVED:	/* bytes 16-23: must be zero (SDM Vol. 1 13.8.1) */
		*(uint64_t *)(fp + XSTATE_BV + 16) = 0xfffffff;
		break;
	case EDIT_XSTATE_BV:		/* a component XCR0 does not enable */
		*(uint64_t *)(fp + XSTATE_BV) |= 1ul << 62;
		break;
	default:
		break;
	}
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)ctx;
	segv_count++;
	segv_code = si->si_code;
}

/* Load a pattern, send SIGUSR1 to ourselves (the handler runs on the way out), return what came back. */
static void signal_across(enum edit e, struct ymm_regs *in, struct ymm_regs *out)
{
	edit = e;
	fill(in, 0x0123456789abcdefUL);
	fill(&edited, 0xfedcba9876543210UL);
	set_handler(SIGUSR1, on_usr1, 0, 0);
	set_handler(SIGSEGV, on_segv, 0, 0);
	ymm_across(in, 62 /* kill */, getpid(), SIGUSR1, 0, out);
}

/*
 * Linux's frame: uc_flags has UC_FP_XSTATE; fpstate is a 64-aligned XSAVE
 * image whose software bytes hold FP_XSTATE_MAGIC1, its size (at most
 * CPUID.(EAX=0DH,ECX=0):EBX, the size for XCR0; exactly that on ccos),
 * the image and MAGIC2 as extended_size, and XCR0's x87, SSE and AVX;
 * MAGIC2 right after the image; XSTATE_BV with x87, SSE and the AVX
 * state the program had, which is in the image. The handler starts with
 * clean YMM registers, and the interrupted code gets its own back.
 */
static int test_sigframe_xsave_layout(void)
{
	static struct ymm_regs in, out;
	struct fpx_sw_bytes sw;
	uint32_t r[4], magic2;
	uint64_t bv;

	CHECK_AVX();
	signal_across(EDIT_NONE, &in, &out);
	memcpy(&sw, frame_image + SW_BYTES, sizeof(sw));
	memcpy(&magic2, frame_image + sw.xstate_size, 4);
	memcpy(&bv, frame_image + XSTATE_BV, 8);
	cpuid(0xd, 0, r);
	if (!(frame_flags & UC_FP_XSTATE))
		return ktap_fail("uc_flags %#lx: no UC_FP_XSTATE", frame_flags);
	if (frame_fpstate % 64)
		return ktap_fail("fpstate %#lx is not 64-aligned", frame_fpstate);
	if (sw.magic1 != FP_XSTATE_MAGIC1)
		return ktap_fail("fx_sw_bytes.magic1 %#x, expected FP_XSTATE_MAGIC1", sw.magic1);
	if (sw.xstate_size < avx_offset() + 256 || sw.xstate_size > r[1] ||
	    (on_ccos() && sw.xstate_size != r[1]) || sw.extended_size != sw.xstate_size + 4)
		return ktap_fail("xstate_size %u extended_size %u; CPUID says %u for XCR0", sw.xstate_size,
				 sw.extended_size, r[1]);
	if ((sw.xfeatures & 7) != 7 || (sw.xfeatures & ~xgetbv0()))
		return ktap_fail("fx_sw_bytes.xfeatures %#lx, XCR0 %#lx", sw.xfeatures, xgetbv0());
	if (magic2 != FP_XSTATE_MAGIC2)
		return ktap_fail("%#x after the image, expected FP_XSTATE_MAGIC2", magic2);
	if ((bv & 7) != 7)
		return ktap_fail("XSTATE_BV %#lx: x87, SSE or AVX missing", bv);
	if (same_ymm(&frame_ymm, &in, "in the frame"))
		return ktap_fail("the frame's YMM registers are not the interrupted code's");
	if (frame_uppers_dirty)
		return ktap_fail("the handler started with YMM upper halves not zero");
	return !same_ymm(&out, &in, "after rt_sigreturn") ||
	       ktap_fail("the interrupted code's YMM registers did not come back");
}

/* A handler's edits to the frame's YMM registers are what rt_sigreturn loads. */
static int test_handler_edits_ymm(void)
{
	static struct ymm_regs in, out;

	CHECK_AVX();
	signal_across(EDIT_YMM, &in, &out);
	return !same_ymm(&out, &edited, "after rt_sigreturn of an edited frame") ||
	       ktap_fail("the handler's edits did not come back");
}

/*
 * Without MAGIC2 after the image the frame is a legacy one (Linux's
 * check_xstate_in_sigframe): x87 and SSE come from it, the YMM upper
 * halves start afresh (zero).
 */
static int test_frame_without_magic2(void)
{
	static struct ymm_regs in, out, want;
	int i;

	CHECK_AVX();
	signal_across(EDIT_NO_MAGIC2, &in, &out);
	for (i = 0; i < 16; i++) {
		memcpy(want.y[i], edited.y[i], 16);
		memset(want.y[i] + 16, 0, 16);
	}
	return !same_ymm(&out, &want, "after rt_sigreturn without MAGIC2") ||
	       ktap_fail("expected the legacy area's XMM values and zero upper halves");
}

/*
 * A header XRSTOR would refuse (SDM Vol. 1 13.8.1: XSTATE_BV beyond XCR0,
 * bytes 8-23 not zero), or an fpstate that cannot be read or is not
 * 64-aligned: a SIGSEGV the program catches (SI_KERNEL, as Linux's
 * force_sig), with its registers restored and a fresh FPU, never a kernel
 * fault and never a kill.
 */
static int bad_frame_sigsegv(enum edit e)
{
	static const struct ymm_regs zero;
	static struct ymm_regs in, out;
	int avx = e < EDIT_RECORD_ONLY;

	if (avx)
		CHECK_AVX();
	segv_count = 0;
	if (avx) {
		signal_across(e, &in, &out);
	} else {			/* a bad pointer needs no AVX to show */
		edit = e;
		set_handler(SIGUSR1, on_usr1, 0, 0);
		set_handler(SIGSEGV, on_segv, 0, 0);
		kill(getpid(), SIGUSR1);
	}
	if (segv_count != 1 || segv_code != SI_KERNEL)
		return ktap_fail("%d SIGSEGVs (code %#x), expected one with SI_KERNEL", segv_count,
				 segv_code);
	return !avx || !same_ymm(&out, &zero, "after the SIGSEGV") ||
	       ktap_fail("expected a fresh FPU after the bad frame");
}

#define BAD_FRAME(name, e)	static int name(void) { return bad_frame_sigsegv(e); }
BAD_FRAME(test_header_reserved_bytes, EDIT_HEADER_RESERVED)
BAD_FRAME(test_xstate_bv_beyond_xcr0, EDIT_XSTATE_BV)
BAD_FRAME(test_fpstate_unmapped, EDIT_FPSTATE_UNMAPPED)
BAD_FRAME(test_fpstate_misaligned, EDIT_FPSTATE_MISALIGNED)	/* a legacy image, FXRSTOR's 16 */

/* ---- the frame's size ---- */

/*
 * AT_MINSIGSTKSZ (Linux 5.14) is at least the frame this kernel builds,
 * from its return address to the end of MAGIC2; and a handler runs on an
 * alternate stack of that size (or of MINSIGSTKSZ, 2048, what
 * sigaltstack accepts at least).
 */
static char alt[65536] __attribute__((aligned(64)));

static int test_at_minsigstksz(void)
{
	unsigned long min = getauxval(AT_MINSIGSTKSZ), size, used;
	struct fpx_sw_bytes sw;
	stack_t ss;

	if (!min)
		return ktap_fail("no AT_MINSIGSTKSZ in the auxiliary vector");
	size = min < 2048 ? 2048 : min;
	ss = (stack_t){ .ss_sp = alt + sizeof(alt) - size, .ss_size = size };
	if (sigaltstack(&ss, NULL))
		return ktap_fail("sigaltstack of %lu bytes failed", size);
	edit = EDIT_RECORD_ONLY;
	set_handler(SIGUSR1, on_usr1, SA_ONSTACK, 0);
	frame_fpstate = 0;
	memset(frame_image, 0, sizeof(frame_image));
	kill(getpid(), SIGUSR1);
	if (!frame_fpstate)
		return ktap_fail("the handler did not run");
	memcpy(&sw, frame_image + SW_BYTES, sizeof(sw));
	used = frame_fpstate + (sw.magic1 == FP_XSTATE_MAGIC1 ? sw.extended_size : 512) -
	       frame_bottom;
	if (frame_bottom < (unsigned long)ss.ss_sp || used > min)
		return ktap_fail("the frame takes %lu bytes from %#lx, AT_MINSIGSTKSZ is %lu",
				 used, frame_bottom, min);
	return 1;
}

/*
 * An alternate stack too small for the frame: SIGSEGV instead of a frame
 * written below it (Linux 5.14), which a handler on the normal stack may
 * catch. Only where the frame needs more than MINSIGSTKSZ: sigaltstack
 * refuses anything smaller.
 */
static int test_altstack_too_small(void)
{
	unsigned long min = getauxval(AT_MINSIGSTKSZ);
	stack_t ss = { .ss_sp = alt, .ss_size = 2048 };

	if (min <= 2048)
		return skip("the frame fits in MINSIGSTKSZ (2048 bytes) here");
	if (sigaltstack(&ss, NULL))
		return ktap_fail("sigaltstack of 2048 bytes failed");
	edit = EDIT_RECORD_ONLY;
	segv_count = 0;
	frame_fpstate = 0;
	set_handler(SIGUSR1, on_usr1, SA_ONSTACK, 0);
	set_handler(SIGSEGV, on_segv, 0, 0);
	kill(getpid(), SIGUSR1);
	if (frame_fpstate)
		return ktap_fail("the handler ran, its frame at %#lx", frame_fpstate);
	return segv_count == 1 || ktap_fail("%d SIGSEGVs, expected 1", segv_count);
}

/*
 * arch_prctl's XCOMP codes (Linux 5.16): SUPP is the components the kernel
 * enabled, XCR0 (x87 and SSE where CPUID.1:ECX.OSXSAVE, bit 27, is clear:
 * no XGETBV); PERM the same but AMX's tile data (18), which a process
 * must ask for. Asking for a component is -EOPNOTSUPP but for 18 where
 * the CPU has AMX, -EINVAL past the last component.
 */
#define ARCH_GET_XCOMP_SUPP	0x1021
#define ARCH_GET_XCOMP_PERM	0x1022
#define ARCH_REQ_XCOMP_PERM	0x1023
#define XFEATURE_XTILEDATA	18
#define EOPNOTSUPP		95

static int test_xcomp_prctl(void)
{
	uint64_t supp = 0, perm = 0, xcr0 = 3, tile = 1ul << XFEATURE_XTILEDATA;
	uint32_t r[4];

	cpuid(1, 0, r);
	if (r[2] & (1u << 27))
		xcr0 = xgetbv0();
	if (!expect(arch_prctl(ARCH_GET_XCOMP_SUPP, (unsigned long)&supp), 0, "ARCH_GET_XCOMP_SUPP") ||
	    !expect(arch_prctl(ARCH_GET_XCOMP_PERM, (unsigned long)&perm), 0, "ARCH_GET_XCOMP_PERM"))
		return 0;
	ktap_diag("XCR0 %#lx, SUPP %#lx, PERM %#lx", xcr0, supp, perm);
	if (supp != xcr0)
		return ktap_fail("ARCH_GET_XCOMP_SUPP %#lx, XCR0 %#lx", supp, xcr0);
	if (perm != (supp & ~tile))
		return ktap_fail("ARCH_GET_XCOMP_PERM %#lx, expected SUPP without tile data", perm);
	if (!expect(arch_prctl(ARCH_GET_XCOMP_SUPP, KERNEL_ADDR), -EFAULT, "SUPP to a kernel address") ||
	    !expect(arch_prctl(ARCH_REQ_XCOMP_PERM, 2), -EOPNOTSUPP, "ARCH_REQ_XCOMP_PERM(AVX)") ||
	    !expect(arch_prctl(ARCH_REQ_XCOMP_PERM, 64), -EINVAL, "ARCH_REQ_XCOMP_PERM(64)"))
		return 0;
	if (supp & tile)
		return skip("the CPU has AMX: its tile data may be asked for");
	return expect(arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA), -EOPNOTSUPP,
		      "ARCH_REQ_XCOMP_PERM(XTILEDATA) without AMX");
}

static const struct test tests[] = {
	{ "ymm_across_switches_on_one_cpu", test_ymm_across_switches },
	{ "ymm_inherited_by_fork", test_ymm_inherited_by_fork },
	{ "exec_starts_with_clean_ymm", test_exec_starts_clean, 1 },
	{ "sigframe_xsave_layout", test_sigframe_xsave_layout },
	{ "handler_edits_ymm_in_frame", test_handler_edits_ymm },
	{ "frame_without_magic2_is_legacy", test_frame_without_magic2 },
	{ "xsave_header_reserved_bytes_sigsegv", test_header_reserved_bytes },
	{ "xstate_bv_beyond_xcr0_sigsegv", test_xstate_bv_beyond_xcr0 },
	{ "fpstate_unmapped_sigsegv", test_fpstate_unmapped },
	{ "fpstate_misaligned_sigsegv", test_fpstate_misaligned },
	{ "at_minsigstksz_covers_the_frame", test_at_minsigstksz },
	{ "altstack_too_small_sigsegv", test_altstack_too_small },
	{ "arch_prctl_xcomp_supp_perm", test_xcomp_prctl },
};

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc > 1 && !strcmp(argv[1], "exec-check"))
		return exec_check();
	find_self(argv[0]);
	return run_tests(tests, ARRAY_SIZE(tests));
}
