/* labcheck: the course labs' ring-3 checks (docs/labs/), then the programs named on its command line. */
#include "labcheck/labcheck.h"
#include "sigmask/sigmask.h"
#include "sigstate/sigstate.h"
#include "vdsoutil.h"

#define GP_VECTOR	13

/*
 * Each check looks from outside at what a lab builds: a system call from
 * ring 3 and back (labcheck/syscall.c), the fixmap's pages
 * and the gate of vector 0xcc as ring 3 meets them, the clock the kernel
 * publishes in the vvar page, the vDSO's answers (labcheck/clock.c). The graders (tools/labs) read the KTAP lines
 * by name, each lab its own; the others may fail in a lab's student tree,
 * where the later labs are still stubs.
 */

/* ---- lab 2: the gate of vector 0xcc ---- */

/*
 * A child raises the vector with `int` and reports, in its exit status,
 * what its SIGSEGV frame says arrived (uc_mcontext.trapno and err, as
 * the kernel saw them): 1 the vector itself, error code 0; 2 a #GP whose
 * error code names the vector's IDT entry, what a gate of DPL 0 gives
 * ring 3 (SDM Vol. 3 §6.13: index << 3 | 2, the IDT bit; QEMU's TCG
 * reports index << 4 | 2 in long mode, so both count); 3 anything else.
 */
static long raised_vector;

static void on_sigsegv(int sig, siginfo_t *si, void *ctx)
{
	const struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;

	(void)sig, (void)si;
	if (mc->trapno == (unsigned long)raised_vector && mc->err == 0)
		exit_group(1);
	if (mc->trapno == GP_VECTOR && (mc->err == ((unsigned long)raised_vector << 3 | 2) ||
					mc->err == ((unsigned long)raised_vector << 4 | 2)))
		exit_group(2);
	printf("# labcheck: int $%#lx gave trapno %lu err %#lx\n", raised_vector, mc->trapno, mc->err);
	exit_group(3);
}

static int raise_vector(void *arg)
{
	raised_vector = (long)arg;
	sigaction(SIGSEGV, on_sigsegv, SA_SIGINFO);
	if (raised_vector == 0xcc)
		__asm__ volatile("int $0xcc");
	else
		__asm__ volatile("int $0xcd");
	return 4;	/* the int came back without a signal */
}

static int gate_status(long vector)
{
	int st = run_in_child(raise_vector, (void *)vector);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

static const char *gate_outcome(int code)
{
	switch (code) {
	case 1: return "the vector itself";
	case 2: return "a #GP (the gate's DPL is 0, or it is not present)";
	case 4: return "no signal: int returned to its caller";
	}
	return "something else (see the # line above)";
}

static int test_gate_open(void)
{
	int code = gate_status(0xcc);

	if (code == 2)
		return ktap_fail("int $0xcc from ring 3 is a #GP: the gate's DPL is not 3");
	return 1;
}

static int test_gate_handler(void)
{
	int code = gate_status(0xcc);

	if (code != 1)
		return ktap_fail("int $0xcc from ring 3 gave %s; wanted SIGSEGV from the handler of vector 0xcc",
				 gate_outcome(code));
	return 1;
}

static int test_gate_0xcd(void)
{
	int code = gate_status(0xcd);

	if (code != 2)
		return ktap_fail("int $0xcd from ring 3 gave %s; wanted a #GP: open only 0xcc", gate_outcome(code));
	return 1;
}

static int do_int3(void *arg)
{
	(void)arg;
	__asm__ volatile("int3");
	return 4;
}

static int test_int3(void)
{
	return expect_signal(run_in_child(do_int3, NULL), SIGTRAP, "int3 from ring 3");
}

/* ---- lab 1: the fixmap's pages as ring 3 sees them ---- */

static int touch(void *addr)
{
	(void)*(volatile char *)addr;
	return 0;
}

/* Can ring 3 read the page at addr? Tried in a child, so that a fault kills only it. */
int readable(unsigned long addr)
{
	return run_in_child(touch, (void *)addr) == 0;
}

/* The vvar page must be readable before a check reads it in this process. */
int vvar_missing(void)
{
	if (readable(VVAR_ADDRESS))
		return 0;
	return !ktap_fail("ring 3 cannot read the vvar page at %#lx (lab 1)", VVAR_ADDRESS);
}

/* A value read twice, 30 ms apart, in a child: 0 if it moved on, else why not. */
/*
 * The value at arg changes within 5 s. A tick comes every 10 ms, but on a
 * busy host the CPU that ticks may not run for a while: poll, don't assume.
 */
static int advances(void *arg)
{
	volatile const uint64_t *p = arg;
	uint64_t first = *p;
	int i;

	for (i = 0; i < 500; i++) {
		sleep_ns(10 * MSEC);
		if (*p != first)
			return 0;
	}
	return 1;
}

static int expect_advances(unsigned long addr, const char *what)
{
	int st = run_in_child(advances, (void *)addr);

	if (WIFSIGNALED(st))
		return ktap_fail("reading %s at %#lx from ring 3: signal %d", what, addr, WTERMSIG(st));
	return expect_exit(st, 0, what);
}

static int test_vvar_readable(void)
{
	return expect_advances(VVAR_ADDRESS, "jiffies (the vvar page's first word) advancing");
}

static int test_hpet_readable(void)
{
	return expect_advances(HPET_ADDRESS + HPET_COUNTER, "the HPET's main counter advancing");
}

static int do_write(void *addr)
{
	*(volatile char *)addr = *(volatile char *)addr;
	return 0;
}

/* A page ring 3 may read must not take a write: SIGSEGV, the page untouched. */
static int expect_no_write(unsigned long addr, const char *what)
{
	return expect_signal(run_in_child(do_write, (void *)addr), SIGSEGV, what);
}

static int test_vvar_not_writable(void)
{
	return expect_no_write(VVAR_ADDRESS, "a write to the vvar page");
}

static int test_hpet_not_writable(void)
{
	return expect_no_write(HPET_ADDRESS + HPET_COUNTER, "a write to the HPET page");
}

/*
 * A jump to the page must fault on the fetch itself: SIGSEGV at that
 * address with the page fault's I/D bit (4) set in the error code. Any
 * other end (bytes of data run as code) means the page is executable.
 */
static unsigned long jump_target;

static void on_fetch_fault(int sig, siginfo_t *si, void *ctx)
{
	const struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;

	(void)sig;
	exit_group((unsigned long)si->si_addr == jump_target && mc->rip == jump_target &&
		   (mc->err & 0x10) ? 0 : 2);
}

static int do_jump(void *arg)
{
	jump_target = (unsigned long)arg;
	sigaction(SIGSEGV, on_fetch_fault, SA_SIGINFO);
	((void (*)(void))arg)();
	return 3;
}

static int expect_no_exec(unsigned long addr, const char *what)
{
	int st = run_in_child(do_jump, (void *)addr);

	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 1;
	return ktap_fail("%s: status %#x, not a fetch fault at %#lx: is the page executable?", what, st, addr);
}

static int test_vvar_not_executable(void)
{
	return expect_no_exec(VVAR_ADDRESS, "a jump to the vvar page");
}

static int test_hpet_not_executable(void)
{
	return expect_no_exec(HPET_ADDRESS, "a jump to the HPET page");
}

/* ---- the list, then the programs to run after it ---- */

static const struct test checks[] = {
	{ "syscall_reaches_its_call", test_syscall_reaches_its_call },
	{ "syscall_enosys_without_a_call", test_syscall_enosys },
	{ "syscall_six_arguments", test_syscall_six_args },
	{ "syscall_registers_as_the_abi_says", test_syscall_registers },
	{ "syscall_direction_flag_masked_and_kept", test_syscall_flags },
	/* lab 0's code as the project's own tests exercise it (sigstate, sigmask) */
	{ "syscall_with_tf_set_traps_after_it", test_syscall_with_tf },
	{ "syscall_from_32bit_mode", test_compat_syscall },
	{ "seccomp_strict_allows_four", test_seccomp_allows },
	{ "seccomp_strict_kills_others", test_seccomp_kills },
	{ "fixmap_vvar_readable_jiffies_advance", test_vvar_readable },
	{ "fixmap_vvar_not_writable", test_vvar_not_writable },
	{ "fixmap_vvar_not_executable", test_vvar_not_executable },
	{ "fixmap_hpet_readable_counter_advances", test_hpet_readable },
	{ "fixmap_hpet_not_writable", test_hpet_not_writable },
	{ "fixmap_hpet_not_executable", test_hpet_not_executable },
	{ "gate_0xcc_open_to_ring3", test_gate_open },
	{ "gate_0xcc_reaches_its_handler", test_gate_handler },
	{ "gate_0xcd_still_closed", test_gate_0xcd },
	{ "gate_int3_still_sigtrap", test_int3 },
	{ "vvar_clock_is_tsc", test_clock_is_tsc },
	{ "tsc_rate_matches_hpet", test_tsc_rate },
	{ "vvar_seq_even_and_advancing", test_vvar_seq },
	{ "vvar_never_torn_across_cpus", test_vvar_never_torn },
	{ "vdso_lookup_by_name_version_and_hashes", vdso_lookup_check },
	{ "vdso_served_in_user_mode", test_vdso_user_mode },
	{ "vdso_clock_gettime_matches_syscall", test_vdso_clocks },
	{ "vdso_other_clocks_ask_the_kernel", test_vdso_other_clocks },
	{ "vdso_realtime_matches_vvar", test_vdso_matches_vvar },
	{ "vdso_gettimeofday_matches_syscall", test_vdso_gettimeofday },
	{ "vdso_monotonic_never_steps_back", test_vdso_monotonic },
	{ "vdso_never_torn_across_cpus", test_vdso_never_torn },
	{ "vdso_unknown_clock_einval", test_vdso_einval },
	{ "vdso_falls_back_without_counter", test_vdso_fallback },
};

/* Run one program, as init would, and say whether it failed. */
static int run(char *path, char **envp)
{
	char *argv[] = { path, NULL };
	long pid = fork();
	int status;

	if (pid == 0) {
		execve(path, argv, envp);
		exit_group(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, NULL) < 0)
		return 1;
	return status != 0;
}

int main(int argc, char **argv, char **envp)
{
	unsigned int i;
	int failed, r, have_vdso = -1;

	ktap_plan(ARRAY_SIZE(checks));
	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		/* The vDSO reads the vvar page: without it, it would kill this program. */
		if (!strncmp(checks[i].name, "vdso_", 5)) {
			if (have_vdso < 0)
				have_vdso = find_vdso();
			else if (!have_vdso)
				ktap_fail("no usable vDSO: see the first vdso_ result");
			if (!have_vdso || vvar_missing()) {
				ktap_ok(0, "%s", checks[i].name);
				continue;
			}
		}
		r = checks[i].run();
		if (r >= 0)
			ktap_ok(r, "%s", checks[i].name);
	}
	failed = ktap_done();
	for (i = 1; i < (unsigned int)argc; i++)
		failed |= run(argv[i], envp) << 1;
	return failed;
}
