/* vsyscalltest's cases on pages that fork shares and pages nobody has touched: each call writes them as its system call does. */
#include "vsyscalltest.h"
#include "vdso.h"

/*
 * fork copies no page and fresh memory has no frame until its first
 * touch (docs/memory.md), so the page tables no longer say what user mode
 * may write: a writable page of the child's stack is read-only until the
 * first write copies it, and a page of a fresh mapping is absent. An
 * emulated call (int $0xcc, or xonly's fetch fault) writes its outputs
 * with the kernel's put_user and copy_to_user; their fault must be
 * answered (the copy made, the page given its frame) exactly as the
 * system call's and the vDSO's. And a call with one bad pointer must
 * still write nothing, even where its good pointer's page is one of
 * these (docs/vsyscall.md, "All or nothing").
 *
 * The case's process fills a stack array, page by page, and forks; the
 * child makes its calls on those pages, which it shares with its parent
 * until it writes, each call on a page of its own, and exits with a mask
 * of what went wrong; the parent then checks that its own pages kept the
 * fill: the child wrote into copies.
 */

#define FILL		0x5a
#define NR_ENTRIES	3
#define NR_WAYS		3	/* the vsyscall page, the vDSO, the system call */
#define PAGES		(NR_WAYS * NR_ENTRIES + 4)

static const unsigned long entries[NR_ENTRIES] = { VSYS_GETTIMEOFDAY, VSYS_TIME, VSYS_GETCPU };
static const char *const entry_names[NR_ENTRIES] = { "gettimeofday", "time", "getcpu" };
static const char *const way_names[NR_WAYS] = { "the vsyscall page", "the vDSO", "the system call" };

/* Entry e called one way, with outputs a1 and a2 (the probe: a fault is recorded, not fatal). */
static struct probe call(int way, int e, long a1, long a2)
{
	static gettimeofday_fn d_gettimeofday;
	static time_fn d_time;
	static getcpu_fn d_getcpu;
	struct probe p = { 0 };

	if (way == 0)
		return probe(entries[e], a1, a2, 0);
	if (way == 1 && !d_gettimeofday) {
		d_gettimeofday = vdso_sym("LINUX_2.6", "__vdso_gettimeofday");
		d_time = vdso_sym("LINUX_2.6", "__vdso_time");
		d_getcpu = vdso_sym("LINUX_2.6", "__vdso_getcpu");
	}
	if (e == 0)
		p.ret = way == 1 ? d_gettimeofday((void *)a1, (void *)a2)
				 : gettimeofday((void *)a1, (void *)a2);
	else if (e == 1)
		p.ret = way == 1 ? d_time((void *)a1) : time((void *)a1);
	else
		p.ret = way == 1 ? d_getcpu((void *)a1, (void *)a2, NULL)
				 : getcpu((void *)a1, (void *)a2, NULL);
	return p;
}

/*
 * Entry e's outputs at out (rdi) and out + 64 (rsi) of a page of the
 * child: the call returns, and they hold what the system call gives: a
 * time between two readings, the CPU this process is pinned to.
 */
static int writes_as_syscall(int way, int e, char *out, unsigned int pinned)
{
	struct timeval lo, hi, *tv = (void *)out;
	struct timezone *tz = (void *)(out + 64);
	unsigned int *cpu = (void *)out, *node = (void *)(out + 64);
	long t0 = time(NULL), *t = (void *)out;
	struct probe p;

	gettimeofday(&lo, NULL);
	p = call(way, e, (long)out, e == 1 ? 0 : (long)(out + 64));
	gettimeofday(&hi, NULL);
	if (p.sig)
		return 0;
	if (e == 0)
		return p.ret == 0 && tv->tv_sec * 1000000L + tv->tv_usec >= lo.tv_sec * 1000000L + lo.tv_usec &&
		       tv->tv_sec * 1000000L + tv->tv_usec <= hi.tv_sec * 1000000L + hi.tv_usec &&
		       tz->tz_minuteswest == 0 && tz->tz_dsttime == 0;
	if (e == 1)
		return p.ret >= t0 && *t == p.ret && p.ret <= time(NULL);
	return p.ret == 0 && *cpu == pinned && *node == 0;
}

/* Pin this process to the CPU it is on: getcpu's answer cannot move under a case. */
static unsigned int pin_here(void)
{
	unsigned int cpu = 0;
	unsigned long mask;

	getcpu(&cpu, NULL, NULL);
	mask = 1ul << cpu;
	sched_setaffinity(0, sizeof(mask), &mask);
	return cpu;
}

/* The first page boundary inside a stack array. */
static char *page_in(char *area)
{
	return (char *)(((unsigned long)area + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1));
}

/* Each way, each entry, on page way * 3 + entry of pages: a mask of the calls that failed. */
static long every_call(char *pages, int ways)
{
	unsigned int cpu = pin_here();
	long bad = 0;
	int w, e;

	for (w = 0; w < NR_WAYS; w++)
		for (e = 0; e < NR_ENTRIES; e++)
			if ((ways & (1 << w)) &&
			    !writes_as_syscall(w, e, pages + (w * NR_ENTRIES + e) * PAGE_SIZE + 256, cpu))
				bad |= 1l << (w * NR_ENTRIES + e);
	return bad;
}

/*
 * The mask the child pid writes to the pipe p, and its wait status; non-zero
 * when it died first. The parent closes its write end before it reads, so a
 * child that dies (a stubbed vDSO, say) ends the read at once.
 */
static int child_answer(long pid, int p[2], long *bad, int *status)
{
	long n;

	close(p[1]);
	n = read(p[0], bad, sizeof(*bad));
	close(p[0]);
	wait4(pid, status, 0, NULL);
	return n != sizeof(*bad);
}

/*
 * The ways this mode can call: the page only where it is callable, the
 * vDSO only where its functions are found by name (in the student trees
 * of labs 0 to 5 the lookup, user/lib/vdso.c, is still lab 6's stub).
 */
static int have_vdso(void)
{
	return vdso_sym("LINUX_2.6", "__vdso_gettimeofday") && vdso_sym("LINUX_2.6", "__vdso_time") &&
	       vdso_sym("LINUX_2.6", "__vdso_getcpu");
}

static int ways(void)
{
	return (callable() ? 1 : 0) | (have_vdso() ? 2 : 0) | 4;
}

#define NO_VDSO_WAY	"the other ways passed; the vDSO's needs its functions found by name, " \
			"and vdso_sym found none (user/lib/vdso.c, lab 6)"

/* A pass, or a skip that says which way was left out. */
static int passed(void)
{
	return have_vdso() ? 1 : skip(NO_VDSO_WAY);
}

static int report(long bad, const char *where)
{
	int w, e;

	for (w = 0; w < NR_WAYS; w++)
		for (e = 0; e < NR_ENTRIES; e++)
			if (bad & (1l << (w * NR_ENTRIES + e)))
				return ktap_fail("%s through %s, outputs on %s: wrong or no outputs (mask %#lx)",
						 entry_names[e], way_names[w], where, bad);
	return 1;
}

int test_outputs_on_pages_fork_shares(void)
{
	char area[(PAGES + 1) * PAGE_SIZE], *pages = page_in(area);
	int p[2], status;
	long pid, bad = -1;

	memset(pages, FILL, PAGES * PAGE_SIZE);
	if (pipe(p))
		return ktap_fail("pipe failed");
	pid = fork();
	if (pid == 0) {
		bad = every_call(pages, ways());
		write(p[1], &bad, sizeof(bad));
		exit(0);
	}
	if (child_answer(pid, p, &bad, &status))
		return ktap_fail("the child ended before its answer: wait status %#x", status);
	if (!all_bytes(pages, PAGES * PAGE_SIZE, FILL))
		return ktap_fail("the parent's stack changed: a call wrote into the frame it shares");
	return report(bad, "the child's stack, shared with its parent") ? passed() : 0;
}

int test_outputs_on_untouched_pages(void)
{
	char *pages = mmap(NULL, PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long bad;

	if (IS_ERR_VALUE(pages))
		return ktap_fail("mmap failed");
	bad = every_call(pages, ways());
	munmap(pages, PAGES * PAGE_SIZE);
	return report(bad, "pages nobody had touched") ? passed() : 0;
}

/*
 * One good pointer on a page the child shares (or on an untouched page)
 * and one bad: the call faults at the bad one and writes nothing: the
 * good page still holds the parent's fill (or zeros). And outputs that
 * run from a shared page into an untouched one (the way that makes every
 * page ready before the call) are written, into a copy and a new page;
 * from a shared page into a read-only one, not at all. Emulated modes:
 * native code stores as it goes, as Linux's did.
 *
 * fresh: page 0 untouched, page 1 filled by the parent, page 2 untouched,
 * page 3 unmapped.
 */
static long bad_pointer_cases(char *shared, char *fresh)
{
	unsigned long unmapped = (unsigned long)fresh + 3 * PAGE_SIZE;
	const struct { unsigned long entry; long slot; } calls[] = {
		{ VSYS_GETTIMEOFDAY, 0 }, { VSYS_GETTIMEOFDAY, 1 }, { VSYS_GETCPU, 0 }, { VSYS_GETCPU, 1 },
	};
	unsigned long i, bad = 0, cross = (unsigned long)fresh + 2 * PAGE_SIZE - 8;
	struct timeval *tv = (void *)cross;
	struct probe p;

	for (i = 0; i < ARRAY_SIZE(calls); i++) {
		long good = (long)shared + 512, fresh_good = (long)fresh + 512;

		p = probe(calls[i].entry, calls[i].slot ? good : (long)unmapped,
			  calls[i].slot ? (long)unmapped : good, 0);
		if (p.sig != SIGSEGV || p.addr != unmapped || !all_bytes(shared, PAGE_SIZE, FILL))
			bad |= 1ul << i;
		p = probe(calls[i].entry, calls[i].slot ? fresh_good : (long)unmapped,
			  calls[i].slot ? (long)unmapped : fresh_good, 0);
		if (p.sig != SIGSEGV || p.addr != unmapped || !all_bytes(fresh, PAGE_SIZE, 0))
			bad |= 1ul << (4 + i);
	}
	p = probe(VSYS_GETTIMEOFDAY, (long)cross, 0, 0);
	if (p.sig || p.ret || tv->tv_sec < 1000000000L || !all_bytes(fresh + PAGE_SIZE, PAGE_SIZE - 8, FILL))
		bad |= 1ul << 8;
	p = probe(VSYS_GETTIMEOFDAY, (long)readonly_addr - 8, 0, 0);
	if (p.sig != SIGSEGV || p.addr != readonly_addr - 8 ||
	    !all_bytes((char *)readonly_addr - PAGE_SIZE, PAGE_SIZE, FILL))
		bad |= 1ul << 9;
	return bad;
}

int test_bad_pointer_beside_shared_pages(void)
{
	char area[2 * PAGE_SIZE], *shared = page_in(area), *fresh;
	int p[2], status;
	long pid, bad = -1;

	if (!emulated())
		return skip("native code stores as it goes, and none cannot call");
	fresh = mmap(NULL, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (IS_ERR_VALUE(fresh) || munmap(fresh + 3 * PAGE_SIZE, PAGE_SIZE) || pipe(p))
		return ktap_fail("mmap, munmap or pipe failed");
	memset(shared, FILL, PAGE_SIZE);
	memset(fresh + PAGE_SIZE, FILL, PAGE_SIZE);
	memset((char *)readonly_addr - PAGE_SIZE, FILL, PAGE_SIZE);
	pid = fork();
	if (pid == 0) {
		bad = bad_pointer_cases(shared, fresh);
		write(p[1], &bad, sizeof(bad));
		exit(0);
	}
	if (child_answer(pid, p, &bad, &status))
		return ktap_fail("the child ended before its answer: wait status %#x", status);
	if (bad)
		return ktap_fail("mask %#lx: bits 0-3 a bad pointer beside a shared page (gettimeofday "
				 "tz, tv; getcpu node, cpu), 4-7 beside an untouched page, 8 across a shared "
				 "and an untouched page, 9 across a shared and a read-only page", bad);
	if (!all_bytes(shared, PAGE_SIZE, FILL) || !all_bytes(fresh + PAGE_SIZE, PAGE_SIZE, FILL))
		return ktap_fail("the parent's pages changed: a call wrote into a frame they share");
	munmap(fresh, 3 * PAGE_SIZE);
	return 1;
}
