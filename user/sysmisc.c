/* sysmisc: the initial stack, -EFAULT and -ENOSYS, uname, arch_prctl, ids, affinity, prctl, reboot, as on Linux; UMIP. */
#include "testutil.h"

extern void _start(void);

static int g_argc;
static char **g_argv;
static char **g_envp;

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
	       expect(syscall0(-1), -ENOSYS, "syscall -1") &&
	       expect(syscall0(511), -ENOSYS, "syscall 511");
}

/* How often CPU cpu took the kernel lock, from /proc/smpstat (ccos's own), or -1. */
static long kernel_lock_taken(unsigned int cpu)
{
	char buf[2048], line[32], *p;
	long n = 0;

	if (slurp("/proc/smpstat", buf, sizeof(buf)) <= 0)
		return -1;
	snprintf(line, sizeof(line), "cpu%u kernel_lock ", cpu);
	for (p = buf; strncmp(p, line, strlen(line)); p++)
		if (!(p = strchr(p, '\n')))
			return -1;
	for (p += strlen(line); *p >= '0' && *p <= '9'; p++)
		n = n * 10 + *p - '0';
	return n;
}

/*
 * An unknown number is answered before the kernel lock, as the calls
 * that need none (docs/smp.md): 2,000 of them, pinned to one CPU, take
 * it a few times at most (the reads of /proc/smpstat, a tick's
 * reschedule), not 2,000.
 */
static int test_enosys_without_lock(void)
{
	unsigned int cpu = 0;
	unsigned long mask;
	long before, after, i;

	if (!on_ccos())
		return skip("/proc/smpstat is ccos's own");
	getcpu(&cpu, NULL, NULL);
	mask = 1ul << cpu;
	if (sched_setaffinity(0, sizeof(mask), &mask))
		return ktap_fail("sched_setaffinity failed");
	before = kernel_lock_taken(cpu);
	for (i = 0; i < 1000; i++) {
		syscall0(511);
		syscall0(1000);
	}
	after = kernel_lock_taken(cpu);
	ktap_diag("the kernel lock taken %ld times during 2,000 unknown calls", after - before);
	if (before < 0 || after < 0)
		return ktap_fail("no cpu%u line in /proc/smpstat", cpu);
	return after - before < 200 ? 1 : ktap_fail("the kernel lock was taken %ld times", after - before);
}

/*
 * What ccos leaves out answers as a Linux kernel built without it
 * (docs/processes.md's table); ccos's contract alone: the host has them.
 */
#define EOPNOTSUPP		95
#define ARCH_GET_CPUID		0x1011
#define ARCH_GET_UNTAG_MASK	0x4001
#define ARCH_SHSTK_STATUS	0x5005
#define CLOCK_REALTIME_ALARM	8
#define CLOCK_BOOTTIME_ALARM	9

static int test_left_out_calls(void)
{
	static const struct {
		long nr;
		const char *name;
	} enosys[] = {
		{ 101, "ptrace" }, { 154, "modify_ldt" }, { 172, "iopl" }, { 173, "ioperm" },
		{ 205, "set_thread_area" }, { 211, "get_thread_area" }, { 240, "mq_open" },
		{ 298, "perf_event_open" }, { 321, "bpf" }, { 323, "userfaultfd" },
		{ 425, "io_uring_setup" },
	};
	static const int arch_codes[] = { ARCH_GET_CPUID, ARCH_GET_UNTAG_MASK, ARCH_SHSTK_STATUS };
	struct timespec ts = { 0, 1 };
	unsigned long word, i;
	char *page = map_pages(1);
	int id;

	if (!on_ccos())
		return skip("ccos's answers: Linux has these calls");
	for (i = 0; i < ARRAY_SIZE(enosys); i++)
		if (!expect(syscall0(enosys[i].nr), -ENOSYS, enosys[i].name))
			return 0;
	for (i = 0; i < ARRAY_SIZE(arch_codes); i++)
		if (!expect(syscall2(__NR_arch_prctl, arch_codes[i], (long)&word), -EINVAL,
			    "arch_prctl's CPUID, LAM and shadow-stack codes"))
			return 0;
	return expect(syscall2(330, 0, 0), -ENOSPC, "pkey_alloc") &&
	       expect(syscall2(330, 1, 0), -EINVAL, "pkey_alloc(flags 1)") &&
	       expect(syscall1(331, 0), -EINVAL, "pkey_free(0)") &&
	       expect(syscall4(329, (long)page, PAGE_SIZE, PROT_READ, 0), 0, "pkey_mprotect(key 0)") &&
	       expect(syscall4(329, (long)page, PAGE_SIZE, PROT_READ, 1), -EINVAL, "pkey_mprotect(key 1)") &&
	       expect(clock_gettime(CLOCK_REALTIME_ALARM, &ts), -EINVAL, "CLOCK_REALTIME_ALARM") &&
	       expect(syscall3(222 /* timer_create */, CLOCK_BOOTTIME_ALARM, 0, (long)&id), -EOPNOTSUPP,
		      "timer_create(CLOCK_BOOTTIME_ALARM)") &&
	       expect(clock_nanosleep(CLOCK_REALTIME_ALARM, 0, &ts, NULL), -EOPNOTSUPP,
		      "clock_nanosleep(CLOCK_REALTIME_ALARM)");
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

/* ---- UMIP ---- */

/*
 * With CR4.UMIP set, SGDT, SIDT, SLDT, SMSW and STR raise #GP in ring 3
 * (SDM Vol. 3 §2.5), so user mode cannot read where the GDT, IDT, LDT and
 * TSS are. ccos sets it wherever CPUID.(EAX=7,ECX=0):ECX bit 2 says the
 * CPU has it; each instruction then kills a child with SIGSEGV. (Linux
 * instead emulates them with dummy answers, for old programs under Wine.)
 */
struct descriptor_table {
	unsigned short limit;
	unsigned long base;
} __attribute__((packed));

static int do_sgdt(void *arg)
{
	struct descriptor_table t;

	(void)arg;
	__asm__ volatile("sgdt %0" : "=m"(t));
	return 0;
}

static int do_sidt(void *arg)
{
	struct descriptor_table t;

	(void)arg;
	__asm__ volatile("sidt %0" : "=m"(t));
	return 0;
}

static int do_sldt(void *arg)
{
	unsigned long r;

	(void)arg;
	__asm__ volatile("sldt %0" : "=r"(r));
	return 0;
}

static int do_smsw(void *arg)
{
	unsigned long r;

	(void)arg;
	__asm__ volatile("smsw %0" : "=r"(r));
	return 0;
}

static int do_str(void *arg)
{
	unsigned long r;

	(void)arg;
	__asm__ volatile("str %0" : "=r"(r));
	return 0;
}

static int test_umip(void)
{
	static const struct {
		const char *name;
		int (*fn)(void *);
	} insns[] = {
		{ "sgdt", do_sgdt }, { "sidt", do_sidt }, { "sldt", do_sldt },
		{ "smsw", do_smsw }, { "str", do_str },
	};
	unsigned int a, b, c = 0, d, max, i;

	__asm__ volatile("cpuid" : "=a"(max), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
	c = 0;
	if (max >= 7)
		__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
	if (!(c & (1u << 2)))
		return skip("this CPU has no UMIP (CPUID.(EAX=7,ECX=0):ECX bit 2)");
	for (i = 0; i < ARRAY_SIZE(insns); i++)
		if (!expect_signal(run_in_child(insns[i].fn, NULL), SIGSEGV, insns[i].name))
			return 0;
	return 1;
}


/* ---- the table ---- */

static const struct test tests[] = {
	{ "initial_stack_and_auxv", test_initial_stack },
	{ "bad_pointer_efault", test_efault },
	{ "unknown_syscall_enosys", test_enosys },
	{ "unknown_syscall_takes_no_lock", test_enosys_without_lock },
	{ "left_out_calls_as_linux_without_them", test_left_out_calls },
	{ "uname", test_uname },
	{ "arch_prctl_fs", test_arch_prctl },
	{ "set_tid_address", test_set_tid_address },
	{ "uid_gid", test_ids_uid_gid },
	{ "sched_affinity_getcpu", test_affinity_getcpu },
	{ "prctl_name", test_prctl_name },
	{ "reboot_bad_magic", test_reboot_bad_magic },
	{ "umip_sgdt_sidt_sldt_smsw_str_sigsegv", test_umip },
};

int main(int argc, char **argv, char **envp)
{
	g_argc = argc;
	g_argv = argv;
	g_envp = envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
