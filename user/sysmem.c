/* sysmem: brk, mmap, munmap and mprotect, their cost on huge ranges and many areas, and a SIGSEGV handler that makes a page writable. */
#include "testutil.h"

/* ---- memory ---- */

static int test_brk(void)
{
	long cur = brk(NULL), grown;
	char *p = (char *)cur;
	int i;

	grown = brk(p + 64 * 1024);
	if (!expect(grown, cur + 64 * 1024, "brk(+64 KiB)"))
		return 0;
	memset(p, 0x5a, 64 * 1024);
	for (i = 0; i < 64 * 1024; i += 4096)
		if (p[i] != 0x5a)
			return ktap_fail("brk memory at %p did not keep a store",
					 p + i);
	return expect(brk(p), cur, "brk(shrink)");
}

static int test_mmap_anon(void)
{
	char *p = map_pages(3);
	unsigned long i;

	if (IS_ERR_VALUE(p))
		return ktap_fail("mmap returned %ld", (long)p);
	for (i = 0; i < 3 * PAGE_SIZE; i++)
		if (p[i])
			return ktap_fail("byte %lu of a new mapping is %d", i,
					 p[i]);
	memset(p, 1, 3 * PAGE_SIZE);
	return expect(munmap(p, 3 * PAGE_SIZE), 0, "munmap");
}

static int test_mmap_fixed(void)
{
	char *p = map_pages(2), *q;

	if (IS_ERR_VALUE(p))
		return ktap_fail("mmap returned %ld", (long)p);
	memset(p, 0xaa, 2 * PAGE_SIZE);
	q = mmap(p + PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (!expect((long)q, (long)(p + PAGE_SIZE), "mmap(MAP_FIXED)"))
		return 0;
	if ((unsigned char)p[0] != 0xaa || q[0] != 0)
		return ktap_fail("after MAP_FIXED: old page %#x, new page %#x",
				 (unsigned char)p[0], q[0]);
	return expect(munmap(p, 2 * PAGE_SIZE), 0, "munmap");
}

/*
 * A hint is where the mapping goes when the range is free (Linux's
 * placement; before issue 27 ccos never looked at it), far from where
 * mmap would put it otherwise, and only then: a hint on a mapping leaves
 * that mapping alone.
 */
#define FREE_HINT	((char *)0x200000000000ul)	/* 32 TiB: nothing is mapped there */

static int test_mmap_hint(void)
{
	char *p = map_pages(1), *q;

	if (IS_ERR_VALUE(p))
		return ktap_fail("mmap returned %ld", (long)p);
	memset(p, 0xaa, PAGE_SIZE);
	q = mmap(FREE_HINT, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!expect((long)q, (long)FREE_HINT, "mmap at a free hint"))
		return 0;
	munmap(q, PAGE_SIZE);
	q = mmap(p, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (IS_ERR_VALUE(q) || q == p || (unsigned char)p[0] != 0xaa)
		return ktap_fail("mmap at a hint in use: %p (the hint %p), the old page %#x", q, p,
				 (unsigned char)p[0]);
	munmap(q, PAGE_SIZE);
	return expect(munmap(p, PAGE_SIZE), 0, "munmap");
}

/* MAP_32BIT: within 1 to 2 GiB, as Linux places it, for code that needs 32-bit addresses. */
#define MAP_32BIT	0x40

static int test_mmap_32bit(void)
{
	char *p = mmap(NULL, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);

	if (IS_ERR_VALUE(p))
		return ktap_fail("mmap(MAP_32BIT) returned %ld", (long)p);
	p[0] = 1;
	munmap(p, 3 * PAGE_SIZE);
	if ((unsigned long)p < 0x40000000ul || (unsigned long)p + 3 * PAGE_SIZE > 0x80000000ul)
		return ktap_fail("mmap(MAP_32BIT) at %p, not within 1 to 2 GiB", p);
	return 1;
}

/* ---- mremap (25; ENOSYS before issue 27) ---- */

#define MREMAP_MAYMOVE		1
#define MREMAP_FIXED		2
#define MREMAP_DONTUNMAP	4
#define MAP_FIXED_NOREPLACE	0x100000

static long mremap(void *old, unsigned long old_len, unsigned long new_len, long flags, void *to)
{
	return syscall5(__NR_mremap, (long)old, old_len, new_len, flags, (long)to);
}

/* Whether [p, p + len) is free: a MAP_FIXED_NOREPLACE mapping there succeeds (and goes again). */
static int is_free(char *p, unsigned long len)
{
	char *q = mmap(p, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (q != p)
		return 0;
	munmap(q, len);
	return 1;
}

static int pattern_ok(const char *p, unsigned long len, unsigned long zero_from)
{
	unsigned long i;

	for (i = 0; i < len; i++)
		if ((unsigned char)p[i] != (i < zero_from ? (unsigned char)(i * 7 + 1) : 0))
			return 0;
	return 1;
}

static void fill(char *p, unsigned long len)
{
	unsigned long i;

	for (i = 0; i < len; i++)
		p[i] = (char)(i * 7 + 1);
}

/* Grown (in place or moved), the old contents come along and the rest is zero; shrunk, the tail goes. */
static int test_mremap_grow_shrink(void)
{
	char *p = map_pages(2), *q;

	if (IS_ERR_VALUE(p))
		return ktap_fail("mmap returned %ld", (long)p);
	fill(p, 2 * PAGE_SIZE);
	q = (char *)mremap(p, 2 * PAGE_SIZE, 5 * PAGE_SIZE, MREMAP_MAYMOVE, NULL);
	if (IS_ERR_VALUE(q))
		return ktap_fail("mremap(grow, MREMAP_MAYMOVE) returned %ld", (long)q);
	if (!pattern_ok(q, 5 * PAGE_SIZE, 2 * PAGE_SIZE))
		return ktap_fail("after growing: the old bytes are not there, or the new not zero");
	if (!expect(mremap(q, 5 * PAGE_SIZE, PAGE_SIZE, 0, NULL), (long)q, "mremap(shrink)"))
		return 0;
	if (!pattern_ok(q, PAGE_SIZE, PAGE_SIZE) || !is_free(q + PAGE_SIZE, 4 * PAGE_SIZE))
		return ktap_fail("after shrinking: the first page changed, or the tail is still mapped");
	return expect(munmap(q, PAGE_SIZE), 0, "munmap");
}

/* Without MREMAP_MAYMOVE a mapping that cannot grow where it is stays (ENOMEM); FIXED moves it there. */
static int test_mremap_move(void)
{
	char *p = map_pages(3), *q;

	if (IS_ERR_VALUE(p))
		return ktap_fail("mmap returned %ld", (long)p);
	munmap(p + 2 * PAGE_SIZE, PAGE_SIZE);	/* the middle page stays: p cannot grow in place */
	fill(p, PAGE_SIZE);
	if (!expect(mremap(p, PAGE_SIZE, 2 * PAGE_SIZE, 0, NULL), -ENOMEM,
		    "mremap(grow into a mapping, no MREMAP_MAYMOVE)"))
		return 0;
	q = (char *)mremap(p, PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, FREE_HINT);
	if (!expect((long)q, (long)FREE_HINT, "mremap(MREMAP_FIXED)"))
		return 0;
	if (!pattern_ok(q, 2 * PAGE_SIZE, PAGE_SIZE) || !is_free(p, PAGE_SIZE))
		return ktap_fail("after the move: the bytes did not come along, or the old page stayed");
	munmap(q, 2 * PAGE_SIZE);
	return expect(munmap(p + PAGE_SIZE, PAGE_SIZE), 0, "munmap");
}

/*
 * MREMAP_DONTUNMAP moves the pages and leaves the old range mapped and
 * empty: a touch there reads zero, a private anonymous page's first. It
 * needs MREMAP_MAYMOVE and the same size (EINVAL); with MREMAP_FIXED it
 * goes where it is told.
 */
static int test_mremap_dontunmap(void)
{
	char *p = map_pages(2), *q, *r;

	if (IS_ERR_VALUE(p))
		return ktap_fail("mmap returned %ld", (long)p);
	fill(p, 2 * PAGE_SIZE);
	if (!expect(mremap(p, 2 * PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_DONTUNMAP, NULL), -EINVAL,
		    "MREMAP_DONTUNMAP without MREMAP_MAYMOVE") ||
	    !expect(mremap(p, 2 * PAGE_SIZE, 3 * PAGE_SIZE, MREMAP_DONTUNMAP | MREMAP_MAYMOVE, NULL), -EINVAL,
		    "MREMAP_DONTUNMAP to another size"))
		return 0;
	q = (char *)mremap(p, 2 * PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_DONTUNMAP | MREMAP_MAYMOVE, NULL);
	if (IS_ERR_VALUE(q) || q == p)
		return ktap_fail("mremap(MREMAP_DONTUNMAP) returned %ld", (long)q);
	if (!pattern_ok(q, 2 * PAGE_SIZE, 2 * PAGE_SIZE) || !all_bytes(p, 2 * PAGE_SIZE, 0))
		return ktap_fail("the bytes did not move, or the old range is not empty");
	r = (char *)mremap(q, 2 * PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_DONTUNMAP | MREMAP_MAYMOVE | MREMAP_FIXED,
			   FREE_HINT);
	if (!expect((long)r, (long)FREE_HINT, "mremap(MREMAP_DONTUNMAP | MREMAP_FIXED)"))
		return 0;
	p[0] = 1;	/* the old ranges are still writable memory */
	if (!pattern_ok(r, 2 * PAGE_SIZE, 2 * PAGE_SIZE) || !all_bytes(q, 2 * PAGE_SIZE, 0) || p[0] != 1)
		return ktap_fail("after the second move: the bytes, or the old range");
	return expect(munmap(p, 2 * PAGE_SIZE) | munmap(q, 2 * PAGE_SIZE) | munmap(r, 2 * PAGE_SIZE), 0,
		      "munmap");
}

static int test_mremap_errors(void)
{
	char *p = map_pages(1);

	if (IS_ERR_VALUE(p))
		return ktap_fail("mmap returned %ld", (long)p);
	munmap(p, PAGE_SIZE);
	return expect(mremap(p, PAGE_SIZE, PAGE_SIZE, MREMAP_FIXED, FREE_HINT), -EINVAL,
		      "MREMAP_FIXED without MREMAP_MAYMOVE") &&
	       expect(mremap(p + 1, PAGE_SIZE, PAGE_SIZE, 0, NULL), -EINVAL, "unaligned") &&
	       expect(mremap(p, PAGE_SIZE, 0, 0, NULL), -EINVAL, "new size 0") &&
	       expect(mremap(p, PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_MAYMOVE, NULL), -EFAULT,
		      "a range nothing maps");
}

static int test_mmap_errors(void)
{
	char *p = map_pages(1);

	return expect((long)mmap(NULL, 0, PROT_READ,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		      -EINVAL, "mmap(len 0)") &&
	       expect(munmap(p + 1, PAGE_SIZE), -EINVAL, "munmap(unaligned)") &&
	       expect(mprotect(p + 1, PAGE_SIZE, PROT_READ), -EINVAL,
		      "mprotect(unaligned)") &&
	       expect(munmap(p, PAGE_SIZE), 0, "munmap");
}

static int touch_unmapped(void *unused)
{
	volatile char *p = map_pages(1);

	(void)unused;
	p[0] = 1;
	munmap((void *)p, PAGE_SIZE);
	p[0] = 2;
	return 0;
}

static int write_readonly(void *unused)
{
	volatile char *p = map_pages(1);

	(void)unused;
	p[0] = 1;
	if (mprotect((void *)p, PAGE_SIZE, PROT_READ) || p[0] != 1)
		return 1;
	p[0] = 2;
	return 0;
}

static int test_munmap_segv(void)
{
	return expect_signal(run_in_child(touch_unmapped, NULL), SIGSEGV,
			     "touch after munmap");
}

static int test_mprotect_segv(void)
{
	return expect_signal(run_in_child(write_readonly, NULL), SIGSEGV,
			     "write after mprotect(PROT_READ)");
}

/* ---- cost: what is mapped, not the length asked for ---- */

#define HUGE_LEN	0x7fff00000000UL	/* 0x10000 up to near the stack */
#define MMAP_BOTTOM	0x10000000UL		/* above the program and its heap */
/*
 * Milliseconds at rest, minutes to hours when a walk visits the whole
 * range: 2 s tells the two apart on a machine loaded to five times its
 * cores too (a boot's clock is the host's, and a busy host slows it).
 */
#define PROMPT_NS	(2000 * MSEC)
#define NR_madvise	28
#define MADV_DONTNEED	4
#define NAREAS		16384

/* 1 if t0 was less than PROMPT_NS ago; else 0, with the reason. */
static int prompt(long t0, const char *what)
{
	long us = (now_ns() - t0) / 1000;

	ktap_diag("%s: %ld us", what, us);
	if (us * 1000 > PROMPT_NS)
		return ktap_fail("%s took %ld ms, more than %ld ms", what, us / 1000,
				 PROMPT_NS / MSEC);
	return 1;
}

/* It takes the program's own pages too: the return to user mode faults. */
static int unmap_everything(void *unused)
{
	(void)unused;
	munmap((void *)0x10000, HUGE_LEN);
	return 0;
}

static int test_munmap_all_prompt(void)
{
	long t0 = now_ns();

	return expect_signal(run_in_child(unmap_everything, NULL), SIGSEGV,
			     "munmap(0x10000, 0x7fff00000000)") &&
	       prompt(t0, "fork, munmap of all user space, SIGSEGV, wait");
}

/* mprotect and madvise stop at the first hole, munmap skips what is absent. */
static int test_huge_ranges_prompt(void)
{
	char *p = map_pages(2);
	long t0 = now_ns();

	return expect(mprotect((void *)0x10000, HUGE_LEN, PROT_READ), -ENOMEM,
		      "mprotect(0x10000, 0x7fff00000000)") &&
	       expect(mprotect(p, HUGE_LEN - (unsigned long)p, PROT_READ), -ENOMEM,
		      "mprotect from a mapping to the top") &&
	       expect(syscall3(NR_madvise, 0x10000, HUGE_LEN, MADV_DONTNEED), -ENOMEM,
		      "madvise(0x10000, 0x7fff00000000, MADV_DONTNEED)") &&
	       expect(munmap((void *)MMAP_BOTTOM, (unsigned long)p + 2 * PAGE_SIZE - MMAP_BOTTOM), 0,
		      "munmap from 0x10000000 to the end of the newest mapping") &&
	       prompt(t0, "two mprotects, a madvise and a munmap of 128 TiB");
}

/*
 * 16,384 areas, alternately writable and read-only so that none could be
 * merged, then one more mmap (a search for a hole) and one mprotect (a
 * lookup and a split): each visits a few dozen areas, not all. The child
 * exits with the number of the step that failed.
 */
static int many_areas(void *unused)
{
	char *p = mmap(NULL, NAREAS * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *q;
	long t0, i;

	(void)unused;
	if (IS_ERR_VALUE(p))
		return 1;
	for (i = 1; i < NAREAS; i += 2)
		if (mprotect(p + i * PAGE_SIZE, PAGE_SIZE, PROT_READ))
			return 2;
	t0 = now_ns();
	q = map_pages(1);
	if (IS_ERR_VALUE(q) || !prompt(t0, "mmap among 16384 areas"))
		return 3;
	t0 = now_ns();
	if (mprotect(p + NAREAS / 2 * PAGE_SIZE, PAGE_SIZE, PROT_NONE) ||
	    !prompt(t0, "mprotect among 16384 areas"))
		return 4;
	return p[NAREAS / 2 * PAGE_SIZE - 1] != 0 ? 5 : 0;
}

static int test_many_areas_prompt(void)
{
	static const char *const steps[] = {
		"", "mmap of 16384 pages failed", "mprotect of one page failed",
		"mmap among 16384 areas failed or was slow (see above)",
		"mprotect among 16384 areas failed or was slow (see above)",
		"a page beside the PROT_NONE one is not zero",
	};
	int status = run_in_child(many_areas, NULL);

	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) &&
	    WEXITSTATUS(status) < (int)ARRAY_SIZE(steps))
		return ktap_fail("%s", steps[WEXITSTATUS(status)]);
	return expect_exit(status, 0, "16384 areas");
}

/* ---- signals ---- */

/*
 * A write to a read-only page: the handler checks what the kernel reports
 * in siginfo and ucontext, makes the page writable and returns, and
 * rt_sigreturn retries the write. The child exits with 1 + the index of
 * the first check that failed.
 */
static const char *const fault_checks[] = {
	"si_signo is SIGSEGV",
	"si_code is SEGV_ACCERR",
	"si_addr is the written address",
	"uc_mcontext.cr2 is the written address",
	"uc_mcontext.trapno is 14 (page fault)",
	"uc_mcontext.err has the write bit",
	"uc_mcontext.rip is the faulting instruction",
	"the handler ran once",
	"the write was retried after sigreturn",
};

static char *volatile fault_page;
static volatile int fault_failed, fault_count;
extern const char poke_insn[];

static __attribute__((noinline)) void poke(char *p)
{
	asm volatile(".globl poke_insn\npoke_insn: movb $1, (%0)"
		     : : "r"(p) : "memory");
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;
	const int ok[] = {
		sig == SIGSEGV && si->si_signo == SIGSEGV,
		si->si_code == SEGV_ACCERR,
		si->si_addr == fault_page,
		mc->cr2 == (unsigned long)fault_page,
		mc->trapno == 14,
		(mc->err & 2) != 0,
		mc->rip == (unsigned long)poke_insn,
	};
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(ok) && !fault_failed; i++)
		if (!ok[i])
			fault_failed = i + 1;
	fault_count++;
	mprotect(fault_page, PAGE_SIZE, PROT_READ | PROT_WRITE);
}

static int segv_handled(void *unused)
{
	(void)unused;
	fault_page = map_pages(1);
	mprotect(fault_page, PAGE_SIZE, PROT_READ);
	sigaction(SIGSEGV, on_segv, 0);
	poke(fault_page);
	if (!fault_failed && fault_count != 1)
		fault_failed = 8;
	if (!fault_failed && fault_page[0] != 1)
		fault_failed = 9;
	return fault_failed;
}

static int test_sigsegv_handler(void)
{
	int status = run_in_child(segv_handled, NULL);

	if (status < 0 || WIFSIGNALED(status))
		return ktap_fail("child wait status %#x: handler not run, "
				 "or sigreturn failed", status);
	if (WEXITSTATUS(status) > ARRAY_SIZE(fault_checks))
		return ktap_fail("child exit %d", WEXITSTATUS(status));
	if (WEXITSTATUS(status))
		return ktap_fail("check failed: %s",
				 fault_checks[WEXITSTATUS(status) - 1]);
	return 1;
}

/* ---- the table ---- */

static const struct test tests[] = {
	{ "brk_grow_shrink", test_brk },
	{ "mmap_anonymous", test_mmap_anon },
	{ "mmap_fixed", test_mmap_fixed },
	{ "mmap_hint_taken_where_free", test_mmap_hint },
	{ "mmap_32bit_within_1_to_2_gib", test_mmap_32bit },
	{ "mremap_grow_shrink_keep_contents", test_mremap_grow_shrink },
	{ "mremap_enomem_in_place_fixed_moves", test_mremap_move },
	{ "mremap_errors", test_mremap_errors },
	{ "mremap_dontunmap_leaves_the_old_range_empty", test_mremap_dontunmap },
	{ "mmap_errors", test_mmap_errors },
	{ "munmap_then_touch_sigsegv", test_munmap_segv },
	{ "mprotect_then_write_sigsegv", test_mprotect_segv },
	{ "munmap_all_user_space_is_prompt", test_munmap_all_prompt },
	{ "huge_ranges_are_prompt", test_huge_ranges_prompt },
	{ "mmap_mprotect_among_16384_areas_are_prompt", test_many_areas_prompt },
	{ "sigsegv_handler_and_sigreturn", test_sigsegv_handler },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
