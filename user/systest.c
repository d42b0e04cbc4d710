/* systest: checks from ring 3 that each system call behaves as on Linux. */
#include "ulib.h"

#define KERNEL_ADDR	0xffffffff80000000UL
#define VSYSCALL_ADDR	0xffffffffff600000UL
#define NONCANONICAL	0x0000800000000000UL
#define MSEC		1000000L

extern void _start(void);

static int g_argc;
static char **g_argv;
static char **g_envp;
static const char *self;	/* this program's path, if argv[0] is one */

/* ---- helpers ---- */

static int expect(long got, long want, const char *what)
{
	if (got == want)
		return 1;
	return ktap_fail("%s returned %ld, expected %ld", what, got, want);
}

static int expect_exit(int status, int code, const char *what)
{
	if (status < 0)
		return ktap_fail("%s: fork or wait4 failed: %d", what, status);
	if (WIFSIGNALED(status))
		return ktap_fail("%s: killed by signal %d, expected exit %d",
				 what, WTERMSIG(status), code);
	return expect(WEXITSTATUS(status), code, what);
}

static int expect_signal(int status, int sig, const char *what)
{
	if (status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == sig)
		return 1;
	return ktap_fail("%s: wait status %#x, expected killed by signal %d",
			 what, status, sig);
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static long sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	return nanosleep(&ts, NULL);
}

static void *map_pages(int n)
{
	return mmap(NULL, n * PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* A child that sleeps until it is killed. */
static long fork_sleeper(void)
{
	long pid = fork();

	if (pid == 0)
		for (;;)
			sleep_ns(1000 * MSEC);
	return pid;
}

/* ---- the initial stack ---- */

static int test_initial_stack(void)
{
	Elf64_Phdr *ph = (Elf64_Phdr *)getauxval(AT_PHDR);
	unsigned long i, n = getauxval(AT_PHNUM);
	const char *vdso = (const char *)getauxval(AT_SYSINFO_EHDR);

	if (g_argc < 1 || g_argv[g_argc] != NULL || g_envp != environ)
		return ktap_fail("argc %d: argv or envp misplaced", g_argc);
	if (!expect(getauxval(AT_PAGESZ), 4096, "AT_PAGESZ") ||
	    !expect(getauxval(AT_ENTRY), (long)_start, "AT_ENTRY") ||
	    !expect(getauxval(AT_PHENT), sizeof(*ph), "AT_PHENT"))
		return 0;
	if (!getauxval(AT_RANDOM))
		return ktap_fail("no AT_RANDOM");
	if (!vdso || memcmp(vdso, "\177ELF", 4))
		return ktap_fail("AT_SYSINFO_EHDR %p is not an ELF image", vdso);
	for (i = 0; ph && i < n; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr == 0x400000)
			return 1;
	return ktap_fail("AT_PHDR %p has no PT_LOAD at 0x400000", ph);
}

/* ---- errors every kernel must get right ---- */

static int test_bad_fd(void)
{
	char c;

	return expect(write(-1, "x", 1), -EBADF, "write(-1)") &&
	       expect(write(999, "x", 1), -EBADF, "write(999)") &&
	       expect(read(999, &c, 1), -EBADF, "read(999)") &&
	       expect(close(999), -EBADF, "close(999)");
}

/*
 * Pointers the kernel must refuse with -EFAULT, never dereference. (On
 * Linux, a write to /dev/null never reads its buffer: run with standard
 * output on a terminal, pipe or file.)
 */
static const unsigned long bad_pointers[] = {
	0, KERNEL_ADDR, VSYSCALL_ADDR, NONCANONICAL,
};

static int test_efault(void)
{
	char what[48];
	unsigned long i, p;

	for (i = 0; i < ARRAY_SIZE(bad_pointers); i++) {
		p = bad_pointers[i];
		snprintf(what, sizeof(what), "write(1, %#lx, 1)", p);
		if (!expect(write(1, (void *)p, 1), -EFAULT, what))
			return 0;
		snprintf(what, sizeof(what), "clock_gettime(%#lx)", p);
		if (!expect(clock_gettime(CLOCK_MONOTONIC, (void *)p), -EFAULT,
			    what))
			return 0;
		snprintf(what, sizeof(what), "uname(%#lx)", p);
		if (!expect(uname((void *)p), -EFAULT, what))
			return 0;
	}
	return 1;
}

static int test_enosys(void)
{
	return expect(syscall0(1000), -ENOSYS, "syscall 1000") &&
	       expect(syscall0(100000), -ENOSYS, "syscall 100000") &&
	       expect(syscall0(-1), -ENOSYS, "syscall -1");
}

/* ---- processes ---- */

static int test_ids(void)
{
	long pid = getpid(), ppid = getppid();

	if (pid <= 0 || ppid <= 0 || pid == ppid)
		return ktap_fail("getpid %ld, getppid %ld", pid, ppid);
	return expect(gettid(), pid, "gettid");
}

static int test_fork_ids(void)
{
	long parent = getpid(), pid, r;
	int status;

	pid = fork();
	if (pid == 0)
		exit_group(getppid() == parent && getpid() != parent ? 0 : 1);
	if (pid < 0)
		return ktap_fail("fork returned %ld", pid);
	r = wait4(pid, &status, 0, NULL);
	return expect(r, pid, "wait4") &&
	       expect_exit(status, 0, "child sees getppid() == parent");
}

static int exit_with(void *code)
{
	return (long)code;
}

static int thread_exit_with(void *code)
{
	exit((long)code);
}

static int test_wait_exit_codes(void)
{
	static const int codes[] = { 0, 1, 42, 255 };
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(codes); i++)
		if (!expect_exit(run_in_child(exit_with, (void *)(long)codes[i]),
				 codes[i], "exit_group"))
			return 0;
	return expect_exit(run_in_child(thread_exit_with, (void *)7L), 7,
			   "exit");
}

static int test_wait_sigkill(void)
{
	long pid = fork_sleeper();
	int status;

	if (pid < 0)
		return ktap_fail("fork returned %ld", pid);
	if (!expect(kill(pid, SIGKILL), 0, "kill"))
		return 0;
	return expect(wait4(pid, &status, 0, NULL), pid, "wait4") &&
	       expect_signal(status, SIGKILL, "SIGKILL");
}

static int test_wait_wnohang(void)
{
	long pid = fork_sleeper(), r;
	int status;

	if (pid < 0)
		return ktap_fail("fork returned %ld", pid);
	r = wait4(pid, &status, WNOHANG, NULL);
	kill(pid, SIGKILL);
	wait4(pid, &status, 0, NULL);
	return expect(r, 0, "wait4(WNOHANG) on a running child");
}

static int test_wait_echild(void)
{
	int status;

	return expect(wait4(-1, &status, 0, NULL), -ECHILD, "wait4(-1)");
}

static int test_kill_errors(void)
{
	return expect(kill(getpid(), 0), 0, "kill(self, 0)") &&
	       expect(kill(getpid(), 1000), -EINVAL, "kill(self, 1000)") &&
	       expect(kill(0x3ffffff0, SIGKILL), -ESRCH, "kill(no such pid)");
}

static int test_execve_errors(void)
{
	char *argv[] = { "/no/such/program", NULL };

	return expect(execve(argv[0], argv, g_envp), -ENOENT,
		      "execve(missing)") &&
	       expect(execve(NULL, argv, g_envp), -EFAULT, "execve(NULL)");
}

/* The child execs this program as "--exec-probe", which exits 42. */
static int exec_marker;

static int exec_probe(char **envp)
{
	if (exec_marker || !envp[0] || strcmp(envp[0], "CCOS_PROBE=1") ||
	    envp[1] || getauxval(AT_PAGESZ) != 4096)
		return 1;
	return 42;
}

static int exec_self(void *unused)
{
	char *argv[] = { (char *)self, "--exec-probe", NULL };
	char *envp[] = { "CCOS_PROBE=1", NULL };

	(void)unused;
	exec_marker = 1;	/* must not survive into the new image */
	execve(self, argv, envp);
	return 99;
}

static int test_execve_self(void)
{
	return expect_exit(run_in_child(exec_self, NULL), 42,
			   "execve with argv and envp");
}

static volatile int vfork_shared;

static int test_vfork(void)
{
	long pid;
	int status;

	vfork_shared = 0;
	pid = vfork();
	if (pid == 0) {
		vfork_shared = 1;	/* the parent's memory, until exit */
		exit(7);
	}
	if (pid < 0)
		return ktap_fail("vfork returned %ld", pid);
	if (!vfork_shared)
		return ktap_fail("the child's store is not in the parent");
	return expect(wait4(pid, &status, 0, NULL), pid, "wait4") &&
	       expect_exit(status, 7, "vfork child");
}

/* A child in an endless loop must not keep the parent from running. */
static int test_spinner_preempted(void)
{
	long pid, start = now_ns(), r;
	int status;

	pid = fork();
	if (pid == 0)
		for (;;)
			asm volatile("" ::: "memory");
	if (pid < 0)
		return ktap_fail("fork returned %ld", pid);
	sleep_ns(50 * MSEC);
	kill(pid, SIGKILL);
	r = wait4(pid, &status, 0, NULL);
	if (now_ns() - start > 5000 * MSEC)
		return ktap_fail("parent ran only after %ld ms",
				 (now_ns() - start) / MSEC);
	return expect(r, pid, "wait4") &&
	       expect_signal(status, SIGKILL, "spinning child");
}

static int test_fork_many(void)
{
	int i, status;

	for (i = 0; i < 200; i++) {
		status = run_in_child(exit_with, (void *)(long)(i & 0xff));
		if (!expect_exit(status, i & 0xff, "fork+exit+wait4"))
			return ktap_fail("round %d: status %#x", i, status);
	}
	return 1;
}

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

static volatile int usr_count, usr_code, usr_pid;
static void *volatile usr_stack_addr;

static void on_usr(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	usr_count += sig == si->si_signo;
	usr_code = si->si_code;
	usr_pid = si->si_pid;
	usr_stack_addr = __builtin_frame_address(0);
}

static int test_sigaction(void)
{
	struct kernel_sigaction old;

	usr_count = 0;
	if (!expect(sigaction(SIGUSR1, on_usr, 0), 0, "rt_sigaction") ||
	    !expect(rt_sigaction(SIGUSR1, NULL, &old, sizeof(sigset_t)), 0,
		    "rt_sigaction(read back)"))
		return 0;
	if (old.sa_handler != on_usr || !(old.sa_flags & SA_SIGINFO))
		return ktap_fail("read back handler %p flags %#lx",
				 old.sa_handler, old.sa_flags);
	kill(getpid(), SIGUSR1);
	if (usr_count != 1 || usr_code != SI_USER || usr_pid != getpid())
		return ktap_fail("handler ran %d times, si_code %d, si_pid %d",
				 usr_count, usr_code, usr_pid);
	return expect(sigaction(SIGKILL, on_usr, 0), -EINVAL,
		      "rt_sigaction(SIGKILL)") &&
	       expect(rt_sigaction(SIGUSR1, NULL, &old, 4), -EINVAL,
		      "rt_sigaction(sigsetsize 4)") &&
	       expect(sigaction(SIGUSR1, (void *)SIG_DFL, 0), 0,
		      "rt_sigaction(SIG_DFL)");
}

static int test_sigprocmask(void)
{
	sigset_t set = SIGBIT(SIGUSR1), old;

	usr_count = 0;
	sigaction(SIGUSR1, on_usr, 0);
	if (!expect(rt_sigprocmask(SIG_BLOCK, &set, NULL, sizeof(set)), 0,
		    "rt_sigprocmask(SIG_BLOCK)"))
		return 0;
	kill(getpid(), SIGUSR1);
	if (usr_count)
		return ktap_fail("a blocked signal was delivered");
	rt_sigprocmask(SIG_BLOCK, NULL, &old, sizeof(old));
	if (!(old & set))
		return ktap_fail("mask read back as %#lx", old);
	rt_sigprocmask(SIG_UNBLOCK, &set, NULL, sizeof(set));
	sigaction(SIGUSR1, (void *)SIG_DFL, 0);
	return expect(usr_count, 1, "delivery on unblock");
}

static int test_sigaltstack(void)
{
	static char altstack[64 * 1024];
	stack_t ss = { altstack, 0, sizeof(altstack) }, old;
	char *sp;

	if (!expect(sigaltstack(&ss, NULL), 0, "sigaltstack"))
		return 0;
	sigaction(SIGUSR2, on_usr, SA_ONSTACK);
	kill(getpid(), SIGUSR2);
	sigaction(SIGUSR2, (void *)SIG_DFL, 0);
	sp = usr_stack_addr;
	ss.ss_flags = SS_DISABLE;
	if (!expect(sigaltstack(&ss, &old), 0, "sigaltstack(SS_DISABLE)"))
		return 0;
	if (old.ss_sp != altstack || old.ss_size != sizeof(altstack))
		return ktap_fail("old stack %p size %lu", old.ss_sp,
				 old.ss_size);
	if (sp < altstack || sp >= altstack + sizeof(altstack))
		return ktap_fail("handler ran at %p, not on the stack at %p",
				 sp, altstack);
	return 1;
}

/* ---- system information and per-process state ---- */

static int test_uname(void)
{
	struct utsname u;

	if (!expect(uname(&u), 0, "uname"))
		return 0;
	ktap_diag("uname: %s %s %s", u.sysname, u.release, u.machine);
	if (strcmp(u.sysname, "Linux") && strcmp(u.sysname, "ccos"))
		return ktap_fail("sysname \"%s\"", u.sysname);
	return strcmp(u.machine, "x86_64") == 0 ||
	       ktap_fail("machine \"%s\"", u.machine);
}

static struct {
	void *self;
	unsigned long magic;
} tls = { &tls, 0xcc05cc05 };

static int test_arch_prctl(void)
{
	unsigned long old, fs, self_ptr, magic;

	if (!expect(arch_prctl(ARCH_GET_FS, (unsigned long)&old), 0,
		    "ARCH_GET_FS") ||
	    !expect(arch_prctl(ARCH_SET_FS, (unsigned long)&tls), 0,
		    "ARCH_SET_FS"))
		return 0;
	arch_prctl(ARCH_GET_FS, (unsigned long)&fs);
	asm volatile("movq %%fs:0, %0; movq %%fs:8, %1"
		     : "=r"(self_ptr), "=r"(magic));
	arch_prctl(ARCH_SET_FS, old);
	return expect(fs, (long)&tls, "ARCH_GET_FS after set") &&
	       expect(self_ptr, (long)&tls, "%fs:0") &&
	       expect(magic, tls.magic, "%fs:8") &&
	       expect(arch_prctl(ARCH_SET_FS, NONCANONICAL), -EPERM,
		      "ARCH_SET_FS(non-canonical)") &&
	       expect(arch_prctl(ARCH_SET_FS, KERNEL_ADDR), -EPERM,
		      "ARCH_SET_FS(kernel address)") &&
	       expect(arch_prctl(0x9999, 0), -EINVAL, "arch_prctl(0x9999)");
}

static int test_set_tid_address(void)
{
	static int tid_word;

	return expect(set_tid_address(&tid_word), gettid(), "set_tid_address");
}

static int test_ids_uid_gid(void)
{
	long ids[] = { getuid(), geteuid(), getgid(), getegid() };
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(ids); i++)
		if (ids[i] < 0)
			return ktap_fail("id %lu returned %ld", i, ids[i]);
	return 1;
}

static int test_affinity_getcpu(void)
{
	unsigned long mask[16] = { 0 };
	unsigned int cpu = ~0U, node = ~0U;
	long n = sched_getaffinity(0, sizeof(mask), mask);

	if (n <= 0 || n > (long)sizeof(mask))
		return ktap_fail("sched_getaffinity returned %ld", n);
	if (!expect(sched_setaffinity(0, n, mask), 0, "sched_setaffinity") ||
	    !expect(sched_yield(), 0, "sched_yield") ||
	    !expect(getcpu(&cpu, &node, NULL), 0, "getcpu"))
		return 0;
	if (cpu >= 1024 || !(mask[cpu / 64] & (1UL << (cpu % 64))))
		return ktap_fail("getcpu says cpu %u, not in mask %#lx", cpu,
				 mask[0]);
	return 1;
}

static int test_prctl_name(void)
{
	char old[16], name[16];

	if (!expect(prctl(PR_GET_NAME, (unsigned long)old, 0, 0, 0), 0,
		    "PR_GET_NAME") ||
	    !expect(prctl(PR_SET_NAME, (unsigned long)"systest-name", 0, 0, 0),
		    0, "PR_SET_NAME"))
		return 0;
	prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0);
	prctl(PR_SET_NAME, (unsigned long)old, 0, 0, 0);
	if (strcmp(name, "systest-name"))
		return ktap_fail("name read back as \"%s\"", name);
	return expect(prctl(9999, 0, 0, 0, 0), -EINVAL, "prctl(9999)");
}

static int test_reboot_bad_magic(void)
{
	long r = reboot(0, 0, LINUX_REBOOT_CMD_POWER_OFF, NULL);

	return r == -EINVAL || r == -EPERM ||
	       ktap_fail("reboot(bad magic) returned %ld", r);
}

/* ---- time ---- */

static int test_nanosleep(void)
{
	struct timespec bad = { 0, 1000000000L };
	long start = now_ns(), slept;

	if (!expect(sleep_ns(10 * MSEC), 0, "nanosleep"))
		return 0;
	slept = now_ns() - start;
	if (slept < 10 * MSEC)
		return ktap_fail("slept %ld ns, wanted 10 ms", slept);
	return expect(nanosleep(&bad, NULL), -EINVAL, "nanosleep(1e9 ns)");
}

static int test_clock_nanosleep(void)
{
	struct timespec rel = { 0, 10 * MSEC }, abs;
	long start = now_ns(), target;

	if (!expect(clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL), 0,
		    "clock_nanosleep(relative)"))
		return 0;
	if (now_ns() - start < 10 * MSEC)
		return ktap_fail("relative sleep was %ld ns", now_ns() - start);
	target = now_ns() + 10 * MSEC;
	abs.tv_sec = target / 1000000000L;
	abs.tv_nsec = target % 1000000000L;
	if (!expect(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs,
				    NULL), 0, "clock_nanosleep(TIMER_ABSTIME)"))
		return 0;
	return now_ns() >= target || ktap_fail("woke before the deadline");
}

static int test_clock_gettime(void)
{
	struct timespec res;
	long prev = now_ns(), t;
	int i;

	for (i = 0; i < 1000; i++, prev = t)
		if ((t = now_ns()) < prev)
			return ktap_fail("CLOCK_MONOTONIC went back %ld ns",
					 prev - t);
	if (!expect(clock_getres(CLOCK_MONOTONIC, &res), 0, "clock_getres"))
		return 0;
	if (res.tv_sec || res.tv_nsec <= 0 || res.tv_nsec > 10 * MSEC)
		return ktap_fail("resolution %ld.%09ld s", res.tv_sec,
				 res.tv_nsec);
	return expect(clock_gettime(1000, &res), -EINVAL, "clock_gettime(1000)");
}

static int test_wall_clocks(void)
{
	struct timeval tv;
	struct timezone tz;
	struct timespec ts;
	long t, t2;

	if (!expect(gettimeofday(&tv, &tz), 0, "gettimeofday") ||
	    !expect(clock_gettime(CLOCK_REALTIME, &ts), 0, "CLOCK_REALTIME"))
		return 0;
	t = time(&t2);
	if (t != t2 || tv.tv_usec < 0 || tv.tv_usec >= 1000000)
		return ktap_fail("time %ld/%ld, tv_usec %ld", t, t2, tv.tv_usec);
	if (t < 1577836800L)	/* 2020-01-01 */
		return ktap_fail("time() is %ld, before 2020", t);
	/*
	 * time() is the coarse clock, as on Linux: it may lag the fine
	 * clocks read just before it by a tick, so by one second at most.
	 */
	if (t - tv.tv_sec > 2 || t - ts.tv_sec > 2 || tv.tv_sec > t + 1 ||
	    ts.tv_sec > t + 1)
		return ktap_fail("time %ld, gettimeofday %ld, realtime %ld",
				 t, tv.tv_sec, ts.tv_sec);
	return 1;
}

/* ---- files ---- */

static int test_open_missing(void)
{
	return expect(open("/no/such/file", O_RDONLY, 0), -ENOENT,
		      "open(missing)") &&
	       expect(openat(AT_FDCWD, "/no/such/file", O_RDONLY, 0), -ENOENT,
		      "openat(missing)") &&
	       expect(open(NULL, O_RDONLY, 0), -EFAULT, "open(NULL)");
}

/* Reads this program's own ELF file. */
static int test_file_io(void)
{
	char magic[4], a[2], b[2];
	struct iovec iov[] = { { a, 2 }, { b, 2 } };
	struct stat st;
	long fd, size;

	fd = openat(AT_FDCWD, self, O_RDONLY, 0);
	if (fd < 0)
		return ktap_fail("openat(%s) returned %ld", self, fd);
	if (!expect(read(fd, magic, 4), 4, "read") ||
	    memcmp(magic, "\177ELF", 4))
		return ktap_fail("%s does not start with \\177ELF", self);
	if (!expect(fstat(fd, &st), 0, "fstat"))
		return 0;
	if (!S_ISREG(st.st_mode) || st.st_size < 4096)
		return ktap_fail("fstat: mode %#x size %ld", st.st_mode,
				 st.st_size);
	size = lseek(fd, 0, SEEK_END);
	if (!expect(size, st.st_size, "lseek(SEEK_END)") ||
	    !expect(lseek(fd, 0, SEEK_SET), 0, "lseek(SEEK_SET)") ||
	    !expect(readv(fd, iov, 2), 4, "readv") ||
	    !expect(lseek(fd, 0, SEEK_CUR), 4, "lseek(SEEK_CUR)") ||
	    !expect(lseek(fd, 0, 99), -EINVAL, "lseek(whence 99)") ||
	    !expect(read(fd, magic, 4) >= 0, 1, "read at 4"))
		return 0;
	if (memcmp(a, "\177E", 2) || memcmp(b, "LF", 2))
		return ktap_fail("readv read the wrong bytes");
	if (!expect(lseek(fd, size, SEEK_SET), size, "lseek(end)") ||
	    !expect(read(fd, magic, 4), 0, "read at end of file"))
		return 0;
	return expect(close(fd), 0, "close") &&
	       expect(close(fd), -EBADF, "close again");
}

static int test_writev_stdout(void)
{
	static const char p1[] = "# writev: ", p2[] = "three ",
			  p3[] = "pieces\n";
	struct iovec iov[] = {
		{ (void *)p1, sizeof(p1) - 1 },
		{ (void *)p2, sizeof(p2) - 1 },
		{ (void *)p3, sizeof(p3) - 1 },
	};

	return expect(writev(1, iov, 3), sizeof(p1) + sizeof(p2) +
		      sizeof(p3) - 3, "writev(1)");
}

static int test_ioctl(void)
{
	long r = ioctl(1, 0x12345678, 0);

	if (r != -ENOTTY && r != -EINVAL)
		return ktap_fail("ioctl(1, unknown) returned %ld", r);
	return expect(ioctl(999, 0x5401, 0), -EBADF, "ioctl(999)");
}

static int test_process_vm_readv(void)
{
	static const char src[] = "process_vm_readv";
	char dst[sizeof(src)] = { 0 };
	struct iovec local = { dst, sizeof(dst) };
	struct iovec remote = { (void *)src, sizeof(src) };
	struct iovec bad = { (void *)KERNEL_ADDR, 8 };

	if (!expect(process_vm_readv(getpid(), &local, 1, &remote, 1, 0),
		    sizeof(src), "process_vm_readv"))
		return 0;
	if (memcmp(dst, src, sizeof(src)))
		return ktap_fail("read \"%s\"", dst);
	return expect(process_vm_readv(getpid(), &local, 1, &bad, 1, 0),
		      -EFAULT, "process_vm_readv(kernel address)");
}

/* ---- the table ---- */

static const struct systest {
	const char *name;
	int (*run)(void);
	int needs_self;		/* reads or execs this program's file */
} tests[] = {
	{ "initial_stack_and_auxv", test_initial_stack },
	{ "bad_fd_ebadf", test_bad_fd },
	{ "bad_pointer_efault", test_efault },
	{ "unknown_syscall_enosys", test_enosys },
	{ "getpid_getppid_gettid", test_ids },
	{ "fork_child_ids", test_fork_ids },
	{ "wait4_exit_codes", test_wait_exit_codes },
	{ "wait4_sigkill", test_wait_sigkill },
	{ "wait4_wnohang", test_wait_wnohang },
	{ "wait4_echild", test_wait_echild },
	{ "kill_errors", test_kill_errors },
	{ "execve_errors", test_execve_errors },
	{ "execve_self", test_execve_self, 1 },
	{ "vfork_shares_memory", test_vfork },
	{ "spinning_child_preempted", test_spinner_preempted },
	{ "fork_exit_wait_200", test_fork_many },
	{ "brk_grow_shrink", test_brk },
	{ "mmap_anonymous", test_mmap_anon },
	{ "mmap_fixed", test_mmap_fixed },
	{ "mmap_errors", test_mmap_errors },
	{ "munmap_then_touch_sigsegv", test_munmap_segv },
	{ "mprotect_then_write_sigsegv", test_mprotect_segv },
	{ "sigsegv_handler_and_sigreturn", test_sigsegv_handler },
	{ "rt_sigaction_kill_self", test_sigaction },
	{ "rt_sigprocmask_block", test_sigprocmask },
	{ "sigaltstack", test_sigaltstack },
	{ "uname", test_uname },
	{ "arch_prctl_fs", test_arch_prctl },
	{ "set_tid_address", test_set_tid_address },
	{ "uid_gid", test_ids_uid_gid },
	{ "sched_affinity_getcpu", test_affinity_getcpu },
	{ "prctl_name", test_prctl_name },
	{ "reboot_bad_magic", test_reboot_bad_magic },
	{ "nanosleep_10ms", test_nanosleep },
	{ "clock_nanosleep", test_clock_nanosleep },
	{ "clock_gettime_getres", test_clock_gettime },
	{ "wall_clocks_agree", test_wall_clocks },
	{ "open_missing_enoent", test_open_missing },
	{ "file_read_lseek_fstat", test_file_io, 1 },
	{ "writev_stdout", test_writev_stdout },
	{ "ioctl_unknown", test_ioctl },
	{ "process_vm_readv_self", test_process_vm_readv },
};

int main(int argc, char **argv, char **envp)
{
	unsigned long i;
	long fd;

	g_argc = argc;
	g_argv = argv;
	g_envp = envp;
	if (strchr(argv[0], '/') && (fd = open(argv[0], O_RDONLY, 0)) >= 0) {
		self = argv[0];
		close(fd);
	}
	if (argc == 2 && self && !strcmp(argv[1], "--exec-probe"))
		return exec_probe(envp);

	ktap_plan(ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (tests[i].needs_self && !self)
			ktap_skip("argv[0] is not a path to this program's file",
				  tests[i].name);
		else
			ktap_ok(tests[i].run(), "%s", tests[i].name);
	}
	return ktap_done();
}
