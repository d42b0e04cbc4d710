/* vsyscalltest: the legacy vsyscall page seen from user space, in whichever mode ccos booted (KTAP). */
#include "ulib.h"
#include "gate.h"

/*
 * The mode is not told to this program: it reads /proc/self/maps (and,
 * where the page is readable, the page itself) as any program could, and
 * then holds the kernel to design.md's rules for that mode. The host
 * harness (tools/tests/test_vsyscall.py) checks the mode found against the
 * one it booted, and counts the kernel's warnings in the serial log.
 *
 * Calls that are expected to fault go through probe(): a little assembly
 * trampoline calls the target, and the signal handler, running on an
 * alternate stack, records what the kernel reported (signal, si_code,
 * si_addr, rip, trapno, err, cr2) and resumes the trampoline at its
 * landing label with the stack pointer it saved: a siglongjmp without libc.
 */

#define HPET_ADDR		0xffffffffff5fe000UL	/* main counter at 0xf0 */
#define KERNEL_TEXT		0xffffffff80100000UL

#define VGETCPU_RDTSCP		1
#define PERCPU_SEL		0x7b
#define PR_SET_SECCOMP		22
#define SECCOMP_MODE_STRICT	1
#define SI_KERNEL		0x80
#define TRAP_TRACE		2
#define X86_TRAP_PF		14
#define PF_PROT			0x1
#define PF_WRITE		0x2
#define PF_USER			0x4
#define PF_INSTR		0x10
#define RFLAGS_TF		0x100

enum mode { NATIVE, EMULATE, XONLY, NONE };
static const char *const mode_names[] = { "native", "emulate", "xonly", "none" };
static enum mode mode;

static int emulated(void)
{
	return mode == EMULATE || mode == XONLY;
}

static int callable(void)
{
	return mode != NONE;
}

/* ---- probe: call or touch an address and see what happened ---- */

struct probe {
	int sig;		/* 0: the call returned */
	int code;		/* si_code */
	unsigned long addr;	/* si_addr */
	unsigned long rip, trapno, err, cr2;
	long ret;		/* rax, when it returned */
};

static struct probe last;
static int probe_armed;
unsigned long probe_rsp;	/* saved by probe_call; the handler lands there */

/* Single-stepping (test_single_step): the handler counts instead of landing. */
static int stepping;
static int steps_total, steps_in_page;

long probe_call(unsigned long target, long a1, long a2, long a3);
long probe_jump_with_stack(unsigned long target, unsigned long rsp, long a1, long a2);
long step_call(unsigned long target, long a1, long a2);
void probe_landing(void);
void probe_load(void);
void probe_store(void);
void own_int_0xcc(void);

/*
 * probe_call(target, a1, a2, a3): target(a1, a2, a3) with the callee-saved
 * registers kept on the stack, so that landing after a signal restores
 * them. probe_jump_with_stack jumps to target with rsp set to a value of
 * our choosing (no return address: the kernel must notice). step_call
 * makes one call with the trap flag set (SDM Vol. 3 §17.3.1.4: a #DB
 * after each instruction while RFLAGS.TF is 1).
 */
__asm__(
	"	.text\n"
	"	.globl probe_call, probe_jump_with_stack, probe_landing\n"
	"probe_call:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	sub $8, %rsp\n"			/* rsp % 16 == 0 at the call */
	"	mov %rsp, probe_rsp(%rip)\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	mov %rdx, %rsi\n"
	"	mov %rcx, %rdx\n"
	"	call *%rax\n"
	"probe_landing:\n"
	"	add $8, %rsp\n"
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
	"	ret\n"
	"probe_jump_with_stack:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	sub $8, %rsp\n"
	"	mov %rsp, probe_rsp(%rip)\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rsp\n"
	"	mov %rdx, %rdi\n"
	"	mov %rcx, %rsi\n"
	"	jmp *%rax\n"
	"	.globl step_call\n"
	"step_call:\n"
	"	sub $8, %rsp\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	mov %rdx, %rsi\n"
	"	xor %edx, %edx\n"
	"	pushfq; orq $0x100, (%rsp); popfq\n"
	"	call *%rax\n"
	"	pushfq; andq $~0x100, (%rsp); popfq\n"
	"	add $8, %rsp\n"
	"	ret\n"
	"	.globl probe_load, probe_store, own_int_0xcc\n"
	"probe_load:\n"				/* rax = *(long *)rdi */
	"	mov (%rdi), %rax\n"
	"	ret\n"
	"probe_store:\n"			/* *(long *)rdi = rsi */
	"	mov %rsi, (%rdi)\n"
	"	ret\n"
	"own_int_0xcc:\n"			/* not in the vsyscall page */
	"	int $0xcc\n"
	"	ret\n");

static void handler(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *sc = &((ucontext_t *)ctx)->uc_mcontext;

	if (stepping && sig == SIGTRAP && si->si_code == TRAP_TRACE) {
		steps_total++;
		if (sc->rip - VSYSCALL_ADDR < PAGE_SIZE)
			steps_in_page++;
		return;
	}
	if (!probe_armed) {
		printf("# unexpected signal %d (si_code %d, si_addr %p) at rip %lx\n",
		       sig, si->si_code, si->si_addr, sc->rip);
		exit_group(2);
	}
	last.sig = sig;
	last.code = si->si_code;
	last.addr = (unsigned long)si->si_addr;
	last.rip = sc->rip;
	last.trapno = sc->trapno;
	last.err = sc->err;
	last.cr2 = sc->cr2;
	sc->rip = (unsigned long)probe_landing;
	sc->rsp = probe_rsp;
	sc->eflags &= ~RFLAGS_TF;
}

static char altstack[16384] __attribute__((aligned(16)));

static void install_handlers(void)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };

	sigaltstack(&ss, NULL);
	sigaction(SIGSEGV, handler, SA_ONSTACK);
	sigaction(SIGTRAP, handler, SA_ONSTACK);
	sigaction(SIGBUS, handler, SA_ONSTACK);
	sigaction(SIGILL, handler, SA_ONSTACK);
}

static struct probe probe(unsigned long target, long a1, long a2, long a3)
{
	memset(&last, 0, sizeof(last));
	probe_armed = 1;
	last.ret = probe_call(target, a1, a2, a3);
	probe_armed = 0;
	return last;
}

static struct probe probe_bad_stack(unsigned long target, unsigned long rsp, long a1, long a2)
{
	memset(&last, 0, sizeof(last));
	probe_armed = 1;
	last.ret = probe_jump_with_stack(target, rsp, a1, a2);
	probe_armed = 0;
	return last;
}

static const char *signame(int sig)
{
	switch (sig) {
	case 0: return "no signal";
	case SIGSEGV: return "SIGSEGV";
	case SIGTRAP: return "SIGTRAP";
	case SIGKILL: return "SIGKILL";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	}
	return "another signal";
}

/* What a probe saw, for failure messages. */
static int probe_fail(const struct probe *p, const char *what, const char *expected)
{
	return ktap_fail("%s: %s (si_code %d, si_addr %lx, rip %lx, trapno %lu, err %lx), expected %s",
			 what, signame(p->sig), p->code, p->addr, p->rip, p->trapno, p->err, expected);
}

/* A SIGSEGV with si_addr = addr (a page fault at addr). */
static int expect_segv_at(const struct probe *p, unsigned long addr, const char *what)
{
	if (p->sig == SIGSEGV && p->addr == addr)
		return 1;
	return probe_fail(p, what, "SIGSEGV at that address");
}

static unsigned long vvar_jiffies(void)
{
	return *(volatile unsigned long *)VVAR_ADDR;
}

static int vvar_vgetcpu_mode(void)
{
	return *(volatile int *)(VVAR_ADDR + 16);
}

static long usec(const struct timeval *tv)
{
	return tv->tv_sec * 1000000L + tv->tv_usec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- the mode, from /proc/self/maps ---- */

static unsigned long unmapped_page, readonly_page;

static char maps[8192];

static const char *find_line(const char *name)
{
	const char *line = maps;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t n = strlen(name), len = end ? (size_t)(end - line) : strlen(line);

		if (len >= n && !strncmp(line + len - n, name, n))
			return line;
		if (!end)
			break;
		line = end + 1;
	}
	return NULL;
}

/* The four permission characters of a maps line: after "start-end ". */
static const char *perms(const char *line)
{
	return strchr(line, ' ') + 1;
}

static int test_mode_detected(void)
{
	const char *line;
	long fd = open("/proc/self/maps", O_RDONLY, 0), n = 0, r;

	if (fd < 0)
		return ktap_fail("open /proc/self/maps: error %ld", -fd);
	while (n < (long)sizeof(maps) - 1 && (r = read(fd, maps + n, sizeof(maps) - 1 - n)) > 0)
		n += r;
	close(fd);
	maps[n] = '\0';

	line = find_line("[vsyscall]");
	if (!line) {
		mode = NONE;
		ktap_diag("vsyscall mode: none (no [vsyscall] line in /proc/self/maps)");
		return 1;
	}
	if (strncmp(line, "ffffffffff600000-ffffffffff601000 ", 34))
		return ktap_fail("the [vsyscall] line is not at ffffffffff600000-ffffffffff601000");
	if (!strncmp(perms(line), "--xp", 4)) {
		mode = XONLY;
		ktap_diag("vsyscall mode: xonly ([vsyscall] --xp)");
		return 1;
	}
	if (strncmp(perms(line), "r-xp", 4))
		return ktap_fail("[vsyscall] has permissions %.4s; expected r-xp, --xp or no line",
				 perms(line));
	if (!memcmp((const void *)VSYSCALL_ADDR, "\xcd\xcc", 2)) {
		mode = EMULATE;
		ktap_diag("vsyscall mode: emulate ([vsyscall] r-xp, int $0xcc at +0x000)");
	} else {
		mode = NATIVE;
		ktap_diag("vsyscall mode: native ([vsyscall] r-xp, code at +0x000)");
	}
	return 1;
}

/* ---- int $0xcc outside the page ---- */

/*
 * One of each warning this mode can give for a call into the page, between
 * markers, so that the host harness can check their format (COMM[PID]
 * MESSAGE ip:.. sp:.. ax:.. si:.. di:..) before the burst below fills the
 * rate limit: emulated modes, a bad pointer and a bad stack; xonly and
 * none, a read of the page; none, a call.
 */
static int test_warning_formats(void)
{
	struct timeval tv;
	struct probe p[3] = { { 0 } };

	printf("# warnings: begin\n");
	if (emulated()) {
		p[0] = probe(VSYS_GETTIMEOFDAY, (long)unmapped_page, 0, 0);
		p[1] = probe_bad_stack(VSYS_GETTIMEOFDAY, unmapped_page + 512, (long)&tv, 0);
	}
	if (mode == XONLY || mode == NONE)
		p[2] = probe((unsigned long)probe_load, VSYS_TIME, 0, 0);
	if (mode == NONE)
		p[0] = probe(VSYS_GETTIMEOFDAY, (long)&tv, 0, 0);
	printf("# warnings: end\n");
	if (emulated() && (p[0].sig != SIGSEGV || p[1].sig != SIGSEGV))
		return ktap_fail("a bad pointer or stack did not give SIGSEGV");
	if (mode == NONE && (p[0].sig != SIGSEGV || p[2].sig != SIGSEGV))
		return ktap_fail("calling or reading the absent page did not give SIGSEGV");
	return 1;
}

/*
 * 100 illegal int $0xcc in a row: each one a SIGSEGV with rip on the int,
 * and the kernel warns about at most 10 of them (a burst of 10 per 5 s).
 * The markers around the burst let the host harness count the warnings in
 * the serial log. Only test_warning_formats warned before, at most 2 times,
 * so some of the burst's own warnings are printed.
 */
#define ILLEGAL_INTS	100

static int test_illegal_int_burst(void)
{
	struct probe p;
	int i;

	printf("# illegal int 0xcc burst: begin\n");
	for (i = 0; i < ILLEGAL_INTS; i++) {
		p = probe((unsigned long)own_int_0xcc, 0, 0, 0);
		if (p.sig != SIGSEGV || p.rip != (unsigned long)own_int_0xcc)
			break;
	}
	printf("# illegal int 0xcc burst: end\n");
	if (i < ILLEGAL_INTS)
		return probe_fail(&p, "int $0xcc in this program",
				  "SIGSEGV with rip at the int");
	if (p.code != SI_KERNEL || p.trapno != 0xcc)
		return probe_fail(&p, "int $0xcc in this program", "si_code SI_KERNEL, trapno 0xcc");
	return 1;
}

static int call_own_int(void *arg)
{
	(void)arg;
	sigaction(SIGSEGV, NULL, 0);	/* the default action: death */
	own_int_0xcc();
	return 0;
}

/* Without a handler, the same int kills the process with SIGSEGV. */
static int test_own_int_kills(void)
{
	int status = run_in_child(call_own_int, NULL);

	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
		return 1;
	return ktap_fail("wait status %#x, expected killed by SIGSEGV", status);
}

/* ---- the page's bytes ---- */

static int test_page_readable(void)
{
	static const unsigned long where[] = { 0, 0x400, 0x800, 0xc00, 0xfff };
	unsigned int i;
	struct probe p;

	for (i = 0; i < ARRAY_SIZE(where); i++) {
		unsigned long a = VSYSCALL_ADDR + where[i];

		p = probe((unsigned long)probe_load, a & ~7UL, 0, 0);
		if (mode == EMULATE || mode == NATIVE) {
			if (p.sig)
				return probe_fail(&p, "reading the page", "a readable page");
		} else if (!expect_segv_at(&p, a & ~7UL, "reading the page") ||
			   p.code != SEGV_MAPERR || (p.err & (PF_WRITE | PF_INSTR))) {
			return probe_fail(&p, "reading the page", "SEGV_MAPERR, a read fault");
		}
	}
	return 1;
}

static int test_page_bytes(void)
{
	const unsigned char *page = (const unsigned char *)VSYSCALL_ADDR;
	int i, syscalls = 0;

	if (mode == XONLY || mode == NONE) {
		ktap_skip("the page is not readable in this mode", "page_bytes");
		return -1;
	}
	if (mode == NATIVE) {
		for (i = 0; i < 3; i++)
			if (page[i * 0x400] == 0xcc)
				return ktap_fail("no code at entry +0x%x", i * 0x400);
		for (i = 0xc00; i < 0x1000; i++)
			if (page[i] != 0xcc)
				return ktap_fail("byte +0x%x is %#x, expected 0xcc", i, page[i]);
		for (i = 0; i < 0xfff; i++)
			syscalls += page[i] == 0x0f && page[i + 1] == 0x05;
		ktap_diag("native page: code at the three entries, 0xcc from +0xc00; "
			  "%d byte pair(s) 0f 05 (syscall): the fallback", syscalls);
		return 1;
	}
	for (i = 0; i < 0x1000; i++) {
		int want = (i == 0 || i == 0x400 || i == 0x800) ? 0xcd : 0xcc;

		if (page[i] != want)
			return ktap_fail("byte +0x%x is %#x, expected %#x", i, page[i], want);
	}
	return 1;
}

/* ---- each entry against its system call ---- */

static int test_gettimeofday(void)
{
	struct timeval t0, tv, t1;
	struct timezone tz = { -1, -1 }, stz = { -2, -2 };
	long r;

	gettimeofday(&t0, &stz);
	r = vgettimeofday(&tv, &tz);
	gettimeofday(&t1, NULL);
	if (r != 0)
		return ktap_fail("returned %ld, expected 0", r);
	if (usec(&tv) < usec(&t0) || usec(&tv) > usec(&t1))
		return ktap_fail("%ld.%06ld is not between the system calls' %ld.%06ld and %ld.%06ld",
				 tv.tv_sec, tv.tv_usec, t0.tv_sec, t0.tv_usec, t1.tv_sec, t1.tv_usec);
	if (tv.tv_usec < 0 || tv.tv_usec >= 1000000)
		return ktap_fail("tv_usec %ld out of range", tv.tv_usec);
	if (tz.tz_minuteswest != stz.tz_minuteswest || tz.tz_dsttime != stz.tz_dsttime)
		return ktap_fail("time zone %d/%d, the system call's %d/%d", tz.tz_minuteswest,
				 tz.tz_dsttime, stz.tz_minuteswest, stz.tz_dsttime);
	r = vgettimeofday(NULL, NULL);
	if (r != 0)
		return ktap_fail("gettimeofday(NULL, NULL) returned %ld", r);
	return 1;
}

static int test_time(void)
{
	struct timeval tv;
	long t = -1, r, s;

	s = time(NULL);
	r = vtime(&t);
	gettimeofday(&tv, NULL);
	if (r != t)
		return ktap_fail("returned %ld but stored %ld", r, t);
	if (r < s || r > tv.tv_sec || tv.tv_sec - r > 1)
		return ktap_fail("%ld, but time() said %ld and gettimeofday %ld", r, s, tv.tv_sec);
	r = vtime(NULL);
	if (r < s || r > tv.tv_sec + 1)
		return ktap_fail("time(NULL) returned %ld, expected about %ld", r, tv.tv_sec);
	return 1;
}

/* What the two instructions getcpu may use say, run right here. */
static unsigned int lsl_percpu(void)
{
	unsigned int p;

	__asm__ volatile("lsl %1, %0" : "=r"(p) : "r"(PERCPU_SEL));
	return p;
}

static unsigned int rdtscp_aux(void)
{
	unsigned int p;

	__asm__ volatile("rdtscp" : "=c"(p) : : "eax", "edx");
	return p;
}

static int test_getcpu(void)
{
	unsigned int cpu = ~0u, node = ~0u, scpu = ~1u, snode = ~1u, want;
	long r;

	if (getcpu(&scpu, &snode, NULL))
		return ktap_fail("the getcpu system call failed");
	r = vgetcpu(&cpu, &node, NULL);
	if (r != 0)
		return ktap_fail("returned %ld, expected 0", r);
	if (cpu != scpu || node != snode)
		return ktap_fail("cpu %u node %u, the system call's cpu %u node %u", cpu, node, scpu, snode);
	want = snode << 12 | scpu;
	if (lsl_percpu() != want)
		return ktap_fail("lsl of the per-CPU segment gives %#x, expected %#x", lsl_percpu(), want);
	if (vvar_vgetcpu_mode() == VGETCPU_RDTSCP && rdtscp_aux() != want)
		return ktap_fail("rdtscp gives TSC_AUX %#x, expected %#x", rdtscp_aux(), want);
	ktap_diag("getcpu: cpu %u node %u; vgetcpu_mode %d (%s)", cpu, node, vvar_vgetcpu_mode(),
		  vvar_vgetcpu_mode() == VGETCPU_RDTSCP ? "rdtscp" : "lsl");
	if (vgetcpu(NULL, NULL, NULL) != 0)
		return ktap_fail("getcpu(NULL, NULL, NULL) failed");
	return 1;
}

/*
 * tcache: the native page reuses a cached answer while jiffies has not
 * moved (Linux 3.0); the kernel keeps no cache, so the emulated call and
 * the system call ignore it. A cache that claims "this jiffy, CPU 5 of
 * node 3" tells the two apart.
 */
static int test_getcpu_tcache(void)
{
	unsigned long cache[16] = { 0 };
	unsigned int cpu, node;
	int tries;

	for (tries = 0; tries < 10; tries++) {
		unsigned long j = vvar_jiffies();

		cache[0] = j;
		cache[1] = 3 << 12 | 5;
		cpu = node = ~0u;
		if (vgetcpu(&cpu, &node, cache))
			return ktap_fail("getcpu with a tcache failed");
		if (vvar_jiffies() != j)
			continue;		/* a tick in between: try again */
		if (mode == NATIVE && (cpu != 5 || node != 3))
			return ktap_fail("cpu %u node %u: the cached answer (5, 3) was not used", cpu, node);
		if (mode != NATIVE && (cpu == 5 || node == 3))
			return ktap_fail("cpu %u node %u: the kernel used the cache", cpu, node);
		return 1;
	}
	return ktap_fail("jiffies moved during every one of 10 tries");
}

/* ---- every offset of the page ---- */

/*
 * In emulate mode the three entries return, and any other offset is an
 * int3 (SIGTRAP, rip one past it), even +0x001, the second byte of an
 * entry's cd cc. In xonly the entries return too, and any other fetch is
 * a SIGSEGV at that address; in none every offset is. Run in a child, so
 * that whatever happens there cannot disturb the rest of the suite.
 */
static int sweep(void *arg)
{
	static long scratch[4];
	int off, bad = 0;

	(void)arg;
	for (off = 0; off < 0x1000; off++) {
		unsigned long a = VSYSCALL_ADDR + off;
		int entry = off == 0 || off == 0x400 || off == 0x800;
		struct probe p = probe(a, (long)&scratch[0], (long)&scratch[2], 0);
		int ok;

		if (entry && mode != NONE)
			ok = p.sig == 0 && (off == 0x400 || p.ret == 0);
		else if (mode == EMULATE)
			ok = p.sig == SIGTRAP && p.rip == a + 1;
		else
			ok = p.sig == SIGSEGV && p.addr == a && (p.err & PF_INSTR);
		if (!ok && bad++ < 5)
			printf("# offset +0x%03x: %s (si_addr %lx, rip %lx, err %lx)\n",
			       off, signame(p.sig), p.addr, p.rip, p.err);
	}
	return bad ? 1 : 0;
}

static int test_every_offset(void)
{
	unsigned long t0 = rdtsc();
	int status;

	if (mode == NATIVE) {
		ktap_skip("native: the page holds real code, and most offsets start in the "
			  "middle of an instruction, doing whatever those bytes happen to say",
			  "call_every_offset");
		return -1;
	}
	status = run_in_child(sweep, NULL);
	ktap_diag("4096 calls in %lu million cycles", (rdtsc() - t0) / 1000000);
	if (status != 0)
		return ktap_fail("wait status %#x: some offsets misbehaved (above)", status);
	return 1;
}

/* ---- bad pointers and a bad stack ---- */


static void make_bad_pages(void)
{
	char *a = mmap(NULL, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	memset(a + PAGE_SIZE, 0x5a, PAGE_SIZE);
	mprotect(a + PAGE_SIZE, PAGE_SIZE, PROT_READ);
	munmap(a, PAGE_SIZE);
	unmapped_page = (unsigned long)a;
	readonly_page = (unsigned long)a + PAGE_SIZE;
}

/*
 * One call with one bad output pointer (slot 0: rdi, slot 1: rsi), the
 * other pointer good. Every mode: SIGSEGV at the bad pointer, and, where
 * the target can be read, nothing written there. Emulated: also rip still
 * at the entry, the frame describing a user write fault at the pointer
 * (trapno 14, err user|write, cr2), and the good pointer untouched too.
 */
static int bad_pointer_case(unsigned long entry, int slot, unsigned long bad, const char *kind)
{
	long good[4] = { 0x1111, 0x2222, 0x3333, 0x4444 }, before[4];
	unsigned char target_before[32];
	int readable = bad == readonly_page || bad == VVAR_ADDR + 8;
	long a1 = slot == 0 ? (long)bad : (long)good, a2 = slot == 1 ? (long)bad : (long)&good[2];
	struct probe p;
	char what[96];

	snprintf(what, sizeof(what), "%s entry +0x%lx, %s pointer in %s", mode_names[mode],
		 entry - VSYSCALL_ADDR, slot ? "second" : "first", kind);
	if (readable)
		memcpy(target_before, (void *)bad, sizeof(target_before));
	memcpy(before, good, sizeof(good));

	p = probe(entry, a1, a2, 0);
	if (mode == NONE) {
		if (p.sig == SIGSEGV && p.addr == entry && p.rip == entry)
			return 1;
		return probe_fail(&p, what, "SIGSEGV at the entry (no page)");
	}
	if (mode == NATIVE && entry == VSYS_GETTIMEOFDAY && p.sig == 0 && p.ret == -EFAULT)
		return 1;	/* no usable clock: the native code made the system call */
	if (!expect_segv_at(&p, bad, what))
		return 0;
	if (readable && memcmp(target_before, (void *)bad, sizeof(target_before)))
		return ktap_fail("%s: the bad pointer's memory was written", what);
	if (!emulated())
		return 1;
	if (p.rip != entry || p.trapno != X86_TRAP_PF || p.err != (PF_USER | PF_WRITE) ||
	    p.cr2 != bad || p.code != SEGV_MAPERR)
		return probe_fail(&p, what, "rip at the entry, trapno 14, err 6, cr2 = the pointer, SEGV_MAPERR");
	if (memcmp(before, good, sizeof(good)))
		return ktap_fail("%s: the good pointer was written: the call half happened", what);
	return 1;
}

static int test_bad_pointers(void)
{
	const struct { unsigned long addr; const char *kind; } bad[] = {
		{ unmapped_page, "an unmapped page" },
		{ readonly_page, "a read-only page" },
		{ VVAR_ADDR + 8, "the vvar page (kernel half)" },
		{ KERNEL_TEXT, "the kernel image" },
	};
	const struct { unsigned long entry; int slots; } calls[] = {
		{ VSYS_GETTIMEOFDAY, 2 }, { VSYS_TIME, 1 }, { VSYS_GETCPU, 2 },
	};
	unsigned int i, c;
	int slot;

	for (c = 0; c < ARRAY_SIZE(calls); c++)
		for (slot = 0; slot < calls[c].slots; slot++)
			for (i = 0; i < ARRAY_SIZE(bad); i++)
				if (!bad_pointer_case(calls[c].entry, slot, bad[i].addr, bad[i].kind))
					return 0;
	return 1;
}

/* Entered by a jump with rsp on no usable stack: the kernel cannot read a return address. */
static int test_bad_stack(void)
{
	const unsigned long stacks[] = { unmapped_page + 512, KERNEL_TEXT };
	struct timeval tv;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stacks); i++) {
		struct probe p = probe_bad_stack(VSYS_GETTIMEOFDAY, stacks[i], (long)&tv, 0);

		if (p.sig != SIGSEGV)
			return probe_fail(&p, "a bad stack", "SIGSEGV");
		if (mode != NATIVE && p.rip != VSYS_GETTIMEOFDAY)
			return probe_fail(&p, "a bad stack", "rip at the entry");
	}
	return 1;
}

/* ---- seccomp ---- */

static int seccomp_child(void *arg)
{
	(void)arg;
	sigaction(SIGSEGV, NULL, 0);
	prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
	vtime(NULL);
	syscall1(__NR_exit, 0);		/* exit is one of strict mode's four */
	return 1;
}

static int test_seccomp(void)
{
	int status = run_in_child(seccomp_child, NULL);
	int want_sig = mode == NATIVE ? 0 : mode == NONE ? SIGSEGV : SIGKILL;

	if (want_sig == 0 && status == 0)
		return 1;
	if (want_sig && WIFSIGNALED(status) && WTERMSIG(status) == want_sig)
		return 1;
	return ktap_fail("wait status %#x, expected %s", status,
			 want_sig == 0 ? "exit 0 (native time() makes no system call)"
				       : want_sig == SIGKILL ? "killed by SIGKILL" : "killed by SIGSEGV");
}

/* ---- the vvar and HPET pages ---- */

static int expect_accerr(unsigned long target, int execute, int write, const char *what)
{
	struct probe p = execute ? probe(target, 0, 0, 0)
				 : probe((unsigned long)probe_store, target, *(long *)target, 0);
	unsigned long want_err = PF_PROT | PF_USER | (execute ? PF_INSTR : 0) | (write ? PF_WRITE : 0);

	if (p.sig == SIGSEGV && p.addr == target && p.code == SEGV_ACCERR &&
	    (p.err & want_err) == want_err)
		return 1;
	return probe_fail(&p, what, execute ? "SIGSEGV SEGV_ACCERR, an instruction fetch"
					    : "SIGSEGV SEGV_ACCERR, a write");
}

static int test_vvar_readable(void)
{
	const char *line = find_line("[vvar]");
	unsigned long j0 = vvar_jiffies(), j1;

	if (!line || strncmp(line, "ffffffffff5ff000-ffffffffff600000 r--p", 38))
		return ktap_fail("no [vvar] line ffffffffff5ff000-ffffffffff600000 r--p in /proc/self/maps");
	sleep_ms(30);
	j1 = vvar_jiffies();
	if (j1 <= j0)
		return ktap_fail("jiffies went from %lu to %lu in 30 ms", j0, j1);
	ktap_diag("vvar: jiffies %lu -> %lu in 30 ms", j0, j1);
	return 1;
}

static int test_vvar_not_writable(void)
{
	return expect_accerr(VVAR_ADDR + 8, 0, 1, "writing the vvar page");
}

static int test_vvar_not_executable(void)
{
	return expect_accerr(VVAR_ADDR, 1, 0, "calling the vvar page");
}

static int hpet_mapped(const char *name)
{
	struct probe p = probe((unsigned long)probe_load, HPET_ADDR + 0xf0, 0, 0);

	if (p.sig == 0)
		return 1;
	if (p.sig == SIGSEGV && p.code == SEGV_MAPERR) {
		ktap_skip("no HPET page: the machine has no HPET, or ccos could not map it", name);
		return -1;
	}
	return probe_fail(&p, "reading the HPET page", "a read, or SEGV_MAPERR when there is no HPET");
}

static int test_hpet_readable(void)
{
	volatile unsigned int *counter = (volatile unsigned int *)(HPET_ADDR + 0xf0);
	unsigned int c0, c1;
	int r = hpet_mapped("hpet_readable_counter_advances");

	if (r != 1)
		return r;
	c0 = *counter;
	sleep_ms(1);
	c1 = *counter;
	if (c1 == c0)
		return ktap_fail("the main counter stayed at %#x for 1 ms", c0);
	ktap_diag("hpet: main counter %#x -> %#x in 1 ms", c0, c1);
	return 1;
}

/* Offset 0 is the read-only capabilities register: a write could do nothing there anyway. */
static int test_hpet_not_writable(void)
{
	int r = hpet_mapped("hpet_not_writable");

	return r != 1 ? r : expect_accerr(HPET_ADDR, 0, 1, "writing the HPET page");
}

static int test_hpet_not_executable(void)
{
	int r = hpet_mapped("hpet_not_executable");

	return r != 1 ? r : expect_accerr(HPET_ADDR, 1, 0, "calling the HPET page");
}

/* ---- single-stepping, and none's fetch faults ---- */

/*
 * With TF set, every instruction ends in a #DB (SIGTRAP, TRAP_TRACE). An
 * emulated call is one instruction inside the page (the int $0xcc, or the
 * fetch that faults); the native one runs its code there, step by step.
 * This is how Linux's own selftest tells the two apart.
 */
static int test_single_step(void)
{
	struct timeval tv;
	long r;

	if (mode == NONE) {
		ktap_skip("none: the call faults (call_in_none_faults_on_fetch)", "single_step");
		return -1;
	}
	steps_total = steps_in_page = 0;
	stepping = 1;
	r = step_call(VSYS_GETTIMEOFDAY, (long)&tv, 0);
	stepping = 0;
	ktap_diag("single-step: %d steps, %d inside the page", steps_total, steps_in_page);
	if (r != 0)
		return ktap_fail("gettimeofday returned %ld while stepping", r);
	if (steps_total < 2)
		return ktap_fail("only %d single-step traps: the trap flag did nothing", steps_total);
	if (emulated() && steps_in_page > 1)
		return ktap_fail("%d steps inside the page: not emulated?", steps_in_page);
	if (mode == NATIVE && steps_in_page < 5)
		return ktap_fail("%d steps inside the page: not native code?", steps_in_page);
	return 1;
}

static int test_none_fetch_fault(void)
{
	unsigned long entries[] = { VSYS_GETTIMEOFDAY, VSYS_TIME, VSYS_GETCPU };
	unsigned int i;

	if (mode != NONE) {
		ktap_skip("the page can be called in this mode", "call_in_none_faults_on_fetch");
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(entries); i++) {
		struct probe p = probe(entries[i], 0, 0, 0);

		if (p.sig != SIGSEGV || p.addr != entries[i] || p.rip != entries[i] ||
		    p.trapno != X86_TRAP_PF || (p.err & (PF_INSTR | PF_USER)) != (PF_INSTR | PF_USER))
			return probe_fail(&p, "calling an entry", "SIGSEGV, err with the fetch bit (0x10)");
	}
	return 1;
}

/* ---- cycles per call (informational) ---- */

/* Under TCG these are QEMU's TSC cycles: `make bench` measures with -icount. */
static int test_cycles(void)
{
	struct timeval tv;
	unsigned int cpu, node;
	const char *m = mode_names[mode];

	ktap_diag("cycles per call: gettimeofday system call %lu", CYCLES_PER_CALL(gettimeofday(&tv, NULL)));
	ktap_diag("cycles per call: time system call %lu", CYCLES_PER_CALL(time(NULL)));
	ktap_diag("cycles per call: getcpu system call %lu", CYCLES_PER_CALL(getcpu(&cpu, &node, NULL)));
	if (!callable())
		return 1;
	ktap_diag("cycles per call: gettimeofday vsyscall (%s) %lu", m, CYCLES_PER_CALL(vgettimeofday(&tv, NULL)));
	ktap_diag("cycles per call: time vsyscall (%s) %lu", m, CYCLES_PER_CALL(vtime(NULL)));
	ktap_diag("cycles per call: getcpu vsyscall (%s) %lu", m, CYCLES_PER_CALL(vgetcpu(&cpu, &node, NULL)));
	return 1;
}

/* ---- the list ---- */

static const struct {
	const char *name;
	int (*fn)(void);
	int needs_call;		/* skipped in none: the page cannot be called */
} tests[] = {
	{ "mode_detected", test_mode_detected, 0 },
	/* Plain calls first: the first call of the page is a gettimeofday that returns (docs/gdb.md). */
	{ "gettimeofday_between_syscalls", test_gettimeofday, 1 },
	{ "time_matches_syscall", test_time, 1 },
	{ "getcpu_matches_syscall", test_getcpu, 1 },
	{ "getcpu_tcache", test_getcpu_tcache, 1 },
	/* Then the first warnings of the run, in a fresh rate-limit window. */
	{ "warning_formats", test_warning_formats, 0 },
	{ "illegal_int_0xcc_burst", test_illegal_int_burst, 0 },
	{ "own_int_0xcc_kills_with_sigsegv", test_own_int_kills, 0 },
	{ "page_readable_per_mode", test_page_readable, 0 },
	{ "page_bytes", test_page_bytes, 0 },
	{ "call_every_offset", test_every_offset, 0 },
	{ "bad_pointers_sigsegv_nothing_written", test_bad_pointers, 0 },
	{ "bad_stack_sigsegv", test_bad_stack, 0 },
	{ "seccomp_strict", test_seccomp, 0 },
	{ "vvar_readable_jiffies_advance", test_vvar_readable, 0 },
	{ "vvar_not_writable", test_vvar_not_writable, 0 },
	{ "vvar_not_executable", test_vvar_not_executable, 0 },
	{ "hpet_readable_counter_advances", test_hpet_readable, 0 },
	{ "hpet_not_writable", test_hpet_not_writable, 0 },
	{ "hpet_not_executable", test_hpet_not_executable, 0 },
	{ "single_step", test_single_step, 0 },
	{ "call_in_none_faults_on_fetch", test_none_fetch_fault, 0 },
	{ "cycles_per_call", test_cycles, 0 },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	unsigned int i;

	install_handlers();
	make_bad_pages();
	ktap_plan(ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		int r;

		if (tests[i].needs_call && !callable()) {
			ktap_skip("none: there is no page to call", tests[i].name);
			continue;
		}
		r = tests[i].fn();
		if (r >= 0)
			ktap_ok(r, "%s", tests[i].name);
	}
	return ktap_done();
}
