/* vsyscalltest: the legacy vsyscall page seen from user space, in whichever mode ccos booted (KTAP). */
#include "vsyscall/vsyscalltest.h"

/*
 * The mode is not told to this program: it reads /proc/self/maps (and,
 * where the page is readable, the page itself) as any program could, and
 * then holds the kernel to design.md's rules for that mode. The host
 * harness (tools/tests/test_vsyscall.py) checks the mode found against the
 * one it booted, and counts the kernel's warnings in the serial log.
 *
 * Calls that are expected to fault go through probe() (vsyscall/probe.c).
 * This file holds the mode-dependent calls: each entry against its system
 * call, the warnings, int $0xcc, seccomp and single-stepping; the cases on
 * the pages themselves (their bytes, every offset, bad pointers and stacks,
 * the vvar and HPET pages) are in vsyscall/pages.c, and the calls whose
 * outputs land on pages fork shares or nobody has touched in
 * vsyscall/cow.c.
 */

const char *const mode_names[] = { "native", "emulate", "xonly", "none" };
enum mode mode;

static long usec(const struct timeval *tv)
{
	return tv->tv_sec * 1000000L + tv->tv_usec;
}

/* ---- the mode, from /proc/self/maps ---- */

static char maps[8192];

const char *find_line(const char *name)
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
 * none, a read of the page; none, a call; xonly, a fetch at an offset
 * that is no entry (the illegal call's warning, ip there).
 */
static int test_warning_formats(void)
{
	struct timeval tv;
	struct probe p[4] = { { 0 } };

	printf("# warnings: begin\n");
	if (emulated()) {
		p[0] = probe(VSYS_GETTIMEOFDAY, (long)unmapped_addr, 0, 0);
		p[1] = probe_bad_stack(VSYS_GETTIMEOFDAY, unmapped_addr + 512, (long)&tv, 0);
	}
	if (mode == XONLY || mode == NONE)
		p[2] = probe((unsigned long)probe_load, VSYS_TIME, 0, 0);
	if (mode == NONE)
		p[0] = probe(VSYS_GETTIMEOFDAY, (long)&tv, 0, 0);
	if (mode == XONLY)
		p[3] = probe(VSYS_NON_ENTRY, (long)&tv, 0, 0);
	printf("# warnings: end\n");
	if (emulated() && (p[0].sig != SIGSEGV || p[1].sig != SIGSEGV))
		return ktap_fail("a bad pointer or stack did not give SIGSEGV");
	if (mode == NONE && (p[0].sig != SIGSEGV || p[2].sig != SIGSEGV))
		return ktap_fail("calling or reading the absent page did not give SIGSEGV");
	if (mode == XONLY && (p[3].sig != SIGSEGV || p[2].sig != SIGSEGV))
		return ktap_fail("a fetch at +0x%x or a read of the page did not give SIGSEGV",
				 (unsigned int)(VSYS_NON_ENTRY - VSYSCALL_ADDR));
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

/* ---- seccomp ---- */

/*
 * Strict seccomp refuses an emulated call before it runs (Linux's
 * emulate_vsyscall asks secure_computing before the call): SIGKILL with
 * nothing written, even into a MAP_SHARED page the parent reads after,
 * and SIGKILL, not the bad pointer's SIGSEGV, for an output on a page
 * nobody mapped (the emulated modes; native code is not the emulation).
 */
#define SECCOMP_FILL	0x5a

static int seccomp_child(void *arg)
{
	(void)arg;
	sigaction(SIGSEGV, NULL, 0);
	prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
	if (arg)
		vgettimeofday(arg, NULL);
	else
		vtime(NULL);
	syscall1(__NR_exit, 0);		/* exit is one of strict mode's four */
	return 1;
}

static int seccomp_case(void *out, int want_sig, const char *what)
{
	int status = run_in_child(seccomp_child, out);

	if (want_sig == 0 && status == 0)
		return 1;
	if (want_sig && WIFSIGNALED(status) && WTERMSIG(status) == want_sig)
		return 1;
	return ktap_fail("%s: wait status %#x, expected %s", what, status,
			 want_sig == 0 ? "exit 0 (native code makes no system call)"
				       : want_sig == SIGKILL ? "killed by SIGKILL" : "killed by SIGSEGV");
}

static int test_seccomp(void)
{
	int want_sig = mode == NATIVE ? 0 : mode == NONE ? SIGSEGV : SIGKILL;
	char *shared = mmap(NULL, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int ok;

	if (IS_ERR_VALUE(shared))
		return ktap_fail("mmap MAP_SHARED failed");
	munmap(shared + PAGE_SIZE, PAGE_SIZE);
	memset(shared, SECCOMP_FILL, PAGE_SIZE);
	/* Native gettimeofday makes the system call when the clock is not published (before lab 5). */
	ok = seccomp_case(NULL, want_sig, "time") &&
	     (!emulated() || (seccomp_case(shared, want_sig, "gettimeofday into a shared page") &&
			      seccomp_case(shared + PAGE_SIZE, want_sig, "gettimeofday into a page nobody mapped")));
	if (ok && emulated() && !all_bytes(shared, PAGE_SIZE, SECCOMP_FILL))
		ok = ktap_fail("strict seccomp: the emulated gettimeofday wrote its outputs before SIGKILL");
	munmap(shared, PAGE_SIZE);
	return ok;
}

/* ---- single-stepping, and none's fetch faults ---- */

/*
 * With TF set, every instruction ends in a #DB (SIGTRAP, TRAP_TRACE). An
 * emulated call is one instruction inside the page (the int $0xcc, or the
 * fetch that faults); the native one runs its code there, step by step.
 * This is how Linux's own selftest tells the two apart.
 */
/* Whether a step in the native page (readable, unlike xonly's) was at its syscall, 0f 05. */
static int native_page_syscall(void)
{
	int i;

	for (i = 0; i < steps_in_page && i < MAX_PAGE_STEPS; i++)
		if (page_steps[i] - VSYSCALL_ADDR < PAGE_SIZE - 1 &&
		    *(const unsigned short *)page_steps[i] == 0x050f)
			return 1;
	return 0;
}

static int test_single_step(void)
{
	struct timeval tv;
	long r;

	if (mode == NONE) {
		return skip("none: the call faults (call_in_none_faults_on_fetch)");
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
	/*
	 * Native code reads the clock in ring 3, five steps at least; or, with
	 * no counter published (or before lab 6 writes the reader), it makes
	 * the page's own system call: still more than the emulation's one.
	 */
	if (mode == NATIVE && steps_in_page < (native_page_syscall() ? 2 : 5))
		return ktap_fail("%d steps inside the page: not native code?", steps_in_page);
	return 1;
}

static int test_none_fetch_fault(void)
{
	unsigned long entries[] = { VSYS_GETTIMEOFDAY, VSYS_TIME, VSYS_GETCPU };
	unsigned int i;

	if (mode != NONE) {
		return skip("the page can be called in this mode");
	}
	for (i = 0; i < ARRAY_SIZE(entries); i++) {
		struct probe p = probe(entries[i], 0, 0, 0);

		if (p.sig != SIGSEGV || p.addr != entries[i] || p.rip != entries[i] ||
		    p.trapno != X86_TRAP_PF || p.err != (PF_INSTR | PF_USER | PF_PROT))
			return probe_fail(&p, "calling an entry", "SIGSEGV, err 0x15 (user, fetch, protection)");
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
	/* Plain calls first: the first call of the page is a gettimeofday that returns (docs/gdb.md). */
	{ "gettimeofday_between_syscalls", test_gettimeofday, 1 },
	{ "time_matches_syscall", test_time, 1 },
	{ "getcpu_matches_syscall", test_getcpu, 1 },
	{ "getcpu_tcache", test_getcpu_tcache, 1 },
	{ "getcpu_pinned_to_every_cpu", test_getcpu_pinned, 1 },
	/* Then the first warnings of the run, in a fresh rate-limit window (a write warns none). */
	{ "page_not_writable", test_page_not_writable, 0 },
	{ "warning_formats", test_warning_formats, 0 },
	{ "illegal_int_0xcc_burst", test_illegal_int_burst, 0 },
	{ "own_int_0xcc_kills_with_sigsegv", test_own_int_kills, 0 },
	{ "page_readable_per_mode", test_page_readable, 0 },
	{ "page_bytes", test_page_bytes, 0 },
	{ "call_every_offset", test_every_offset, 0 },
	{ "bad_pointers_sigsegv_nothing_written", test_bad_pointers, 0 },
	{ "outputs_across_pages_nothing_written", test_outputs_across_pages, 0 },
	{ "outputs_on_pages_fork_shares", test_outputs_on_pages_fork_shares, 0 },
	{ "outputs_on_untouched_pages", test_outputs_on_untouched_pages, 0 },
	{ "bad_pointer_beside_shared_pages_nothing_written", test_bad_pointer_beside_shared_pages, 0 },
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
	ktap_plan(1 + ARRAY_SIZE(tests));
	/* here, not in a child: the mode it finds is what the others test */
	ktap_ok(test_mode_detected(), "mode_detected");
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (tests[i].needs_call && !callable())
			ktap_skip("none: there is no page to call", tests[i].name);
		else
			run_case(tests[i].name, tests[i].fn, 0);
	}
	return ktap_done();
}
