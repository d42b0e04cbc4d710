/* sysabi: 32-bit arguments and call numbers, ioctl sizes, stat and inode numbers, comm's padding, sysinfo, limits, /proc out of memory, int3 at the top. */
#include "testutil.h"

#define S_IFIFO			0010000
#define TCGETS			0x5401
#define TCSETS			0x5402
#define TIOCGWINSZ		0x5413
#define AT_EMPTY_PATH		0x1000
#define RLIMIT_STACK		3
#define RLIMIT_NOFILE		7
#define HIGH			0x100000000L	/* a bit a 32-bit argument drops */

static char relpath[256];	/* this program's file, relative to the working directory */

/* Values with junk above bit 31, as a register may hold them: Linux reads only the int. */
static long child_sleeps(void)
{
	long pid = fork();

	if (pid == 0) {
		sleep_ns(10000 * MSEC);
		exit_group(0);
	}
	return pid;
}

static int test_int_arguments(void)
{
	long pid = child_sleeps(), fd, r;
	int status = 0;
	char c;

	if (pid < 0)
		return ktap_fail("fork returned %ld", pid);
	if (!expect(syscall2(__NR_kill, HIGH | pid, SIGKILL), 0, "kill(1 << 32 | pid, SIGKILL)"))
		return 0;
	/* glibc's waitpid(-1) passes -1 as the int it is: 0x00000000ffffffff */
	r = syscall4(__NR_wait4, 0xffffffffL, (long)&status, 0, 0);
	if (!expect(r, pid, "wait4(0xffffffff)") || !expect_signal(status, SIGKILL, "child"))
		return 0;
	fd = syscall4(__NR_openat, 0xffffff9cL, (long)relpath, HIGH | O_RDONLY, 0);
	if (fd < 0)
		return ktap_fail("openat(0xffffff9c, \"%s\") returned %ld", relpath, fd);
	r = syscall3(__NR_read, HIGH | fd, (long)&c, 1);
	if (!expect(r, 1, "read(1 << 32 | fd)") ||
	    !expect(syscall3(__NR_lseek, HIGH | fd, 0, HIGH | SEEK_SET), 0, "lseek(whence 1 << 32)") ||
	    !expect(syscall1(__NR_close, HIGH | fd), 0, "close(1 << 32 | fd)"))
		return 0;
	return expect(syscall4(__NR_rt_sigaction, HIGH | SIGUSR1, 0, 0, 8), 0,
		      "rt_sigaction(1 << 32 | SIGUSR1)") &&
	       expect(syscall2(__NR_kill, HIGH | getpid(), HIGH), 0, "kill(self, sig 1 << 32)") &&
	       expect(syscall3(__NR_write, HIGH | 1, (long)"", 0), 0, "write(1 << 32 | 1, 0 bytes)");
}

/*
 * The call's number is rax's low half, as Linux's do_syscall_64 takes
 * it (an int): junk above bit 31 is ignored, and the low half alone says
 * whether the number is past the table (-1, or 512 with bit 63 set). The
 * x32 bit (0x40000000) names the x32 ABI's calls, which ccos does not
 * have (-ENOSYS); a Linux host may (x32 getpid is then the pid).
 */
static int test_syscall_number(void)
{
	long me = getpid(), x32 = syscall0(0x40000000L | __NR_getpid);

	ktap_diag("x32 getpid (0x40000027) returned %ld", x32);
	return expect(syscall0(HIGH | __NR_getpid), me, "getpid with bit 32 of rax set") &&
	       expect(syscall0((long)0xdeadbeef00000000ul | __NR_getpid), me,
		      "getpid with 0xdeadbeef in rax's upper half") &&
	       expect(syscall3((long)0x8000000000000000ul | __NR_write, 1, (long)"", 0), 0,
		      "write(1, \"\", 0) with bit 63 of rax set") &&
	       expect(syscall0(HIGH | 0xffffffffL), -ENOSYS, "0x1ffffffff (-1 in the low half)") &&
	       expect(syscall0((long)0x8000000000000200ul), -ENOSYS, "0x8000000000000200 (512)") &&
	       (x32 == -ENOSYS || (!on_ccos() && x32 == me) ||
		ktap_fail("x32 getpid returned %ld, expected -ENOSYS", x32));
}

/* The kernel's struct termios is 36 bytes and struct winsize 8: not a byte more may be written. */
static int untouched(const unsigned char *buf, int from, int to)
{
	int i;

	for (i = from; i < to; i++)
		if (buf[i] != 0x5a)
			return ktap_fail("byte %d of the buffer was written", i);
	return 1;
}

static int test_ioctl_sizes(void)
{
	unsigned char buf[64];
	long r;

	memset(buf, 0x5a, sizeof(buf));
	r = ioctl(1, TCGETS, (unsigned long)buf);
	ktap_diag("ioctl(1, TCGETS) = %ld", r);
	if (r == -ENOTTY && !on_ccos())
		return skip("standard output is not a terminal here");
	if (!expect(r, 0, "ioctl(TCGETS) on the console") || !untouched(buf, 36, 64) ||
	    !expect(ioctl(1, TCSETS, (unsigned long)buf), 0, "ioctl(TCSETS)"))
		return 0;
	memset(buf, 0x5a, sizeof(buf));
	if (!expect(ioctl(1, TIOCGWINSZ, (unsigned long)buf), 0, "ioctl(TIOCGWINSZ)"))
		return 0;
	return untouched(buf, 8, 64) &&
	       expect(ioctl(1, TCGETS, KERNEL_ADDR), -EFAULT, "ioctl(TCGETS, kernel address)");
}

static int test_stat_family(void)
{
	struct stat a, b, c;
	long fd = open(relpath, O_RDONLY, 0);

	if (fd < 0)
		return ktap_fail("open(\"%s\") returned %ld", relpath, fd);
	if (!expect(fstat(fd, &a), 0, "fstat") ||
	    !expect(syscall4(__NR_newfstatat, fd, (long)"", (long)&b, AT_EMPTY_PATH), 0,
		    "newfstatat(fd, \"\", AT_EMPTY_PATH)") ||
	    !expect(syscall4(__NR_newfstatat, 0xffffff9cL, (long)relpath, (long)&c, 0), 0,
		    "newfstatat(AT_FDCWD, relative path)"))
		return 0;
	close(fd);
	if (a.st_size < 4096 || b.st_size != a.st_size || c.st_size != a.st_size)
		return ktap_fail("sizes %ld %ld %ld", (long)a.st_size, (long)b.st_size,
				 (long)c.st_size);
	return expect(syscall2(__NR_stat, (long)"/no/such/file", (long)&c), -ENOENT, "stat(no file)") &&
	       expect(syscall4(__NR_newfstatat, 1, (long)"x", (long)&c, 0), -ENOTDIR,
		      "newfstatat(a file as dirfd)") &&
	       expect(syscall4(__NR_newfstatat, fd, (long)"", (long)&c, 0x80000), -EINVAL,
		      "newfstatat(unknown flag)");
}

/* An inode number that is a kernel address shifted right, as ccos numbered pipes (>> 4) and modules and /proc texts (>> 12). */
static int looks_like_kernel_address(unsigned long ino)
{
	static const int shifts[] = { 0, 4, 12 };
	unsigned long i;

	for (i = 0; i < ARRAY_SIZE(shifts); i++)
		if ((ino << shifts[i]) >> shifts[i] == ino && ino << shifts[i] >= 0xffff800000000000UL)
			return 1;
	return 0;
}

static int small_ino(const char *what, unsigned long ino)
{
	if (looks_like_kernel_address(ino))
		return ktap_fail("%s: inode number %#lx is a kernel address, shifted", what, ino);
	return 1;
}

/*
 * Inode numbers tell nothing of the kernel's memory: a pipe's (both ends
 * the same, two pipes different), a FIFO's (fstat says the node's, as
 * stat does), this program's file (a module on ccos), /proc texts.
 */
static int test_inode_numbers(void)
{
	char fifo[64];
	struct stat r, w, other, a, b;
	int p[2], q[2];
	long fd;

	if (!expect(pipe(p), 0, "pipe") || !expect(pipe(q), 0, "a second pipe") ||
	    !expect(fstat(p[0], &r), 0, "fstat(read end)") || !expect(fstat(p[1], &w), 0, "fstat(write end)") ||
	    !expect(fstat(q[0], &other), 0, "fstat(the other pipe)"))
		return 0;
	if (r.st_ino != w.st_ino || r.st_ino == other.st_ino)
		return ktap_fail("pipe ends %#lx and %#lx, another pipe %#lx: want the ends equal, the pipes not",
				 r.st_ino, w.st_ino, other.st_ino);
	if (!small_ino("a pipe", r.st_ino) || !small_ino("another pipe", other.st_ino))
		return 0;
	snprintf(fifo, sizeof(fifo), "/tmp/sysabi-fifo-%ld", getpid());
	if (!expect(syscall3(__NR_mknod, (long)fifo, S_IFIFO | 0600, 0), 0, "mknod(FIFO)"))
		return 0;
	syscall2(__NR_stat, (long)fifo, (long)&a);
	fd = open(fifo, O_RDWR, 0);		/* both ends: no wait */
	syscall1(__NR_unlink, (long)fifo);
	if (fd < 0)
		return ktap_fail("open(FIFO, O_RDWR) returned %ld", fd);
	if (!expect(fstat(fd, &b), 0, "fstat(FIFO)"))
		return 0;
	if (a.st_ino != b.st_ino)
		return ktap_fail("a FIFO: stat says inode %#lx, fstat %#lx", a.st_ino, b.st_ino);
	if (!expect(syscall2(__NR_stat, (long)"/proc/self/status", (long)&a), 0, "stat(/proc/self/status)") ||
	    !expect(syscall2(__NR_stat, (long)"/proc/meminfo", (long)&b), 0, "stat(/proc/meminfo)") ||
	    !small_ino("/proc/self/status", a.st_ino) || !small_ino("/proc/meminfo", b.st_ino))
		return 0;
	if (a.st_ino == b.st_ino)
		return ktap_fail("/proc/self/status and /proc/meminfo share inode number %#lx", a.st_ino);
	return expect(syscall2(__NR_stat, (long)relpath, (long)&a), 0, "stat(this program)") &&
	       small_ino(relpath, a.st_ino);
}

/*
 * comm is 16 bytes, zeros after the name: PR_GET_NAME copies all 16, so
 * what follows the NUL must not be what a longer name (or the kernel
 * stack) left there. The place of the first byte that is not zero after
 * the NUL; 0 if none; 16 if PR_GET_NAME failed.
 */
static int comm_not_padded_at(void)
{
	char name[16];
	int i;

	memset(name, 0x5a, sizeof(name));
	if (prctl(PR_GET_NAME, (unsigned long)name, 0, 0, 0))
		return 16;
	for (i = strlen(name) + 1; i < 16; i++)
		if (name[i])
			return i;
	return 0;
}

static int test_comm_zero_padded(void)
{
	int at;

	if (!expect(prctl(PR_SET_NAME, (unsigned long)"0123456789abcde", 0, 0, 0), 0, "PR_SET_NAME(15 bytes)") ||
	    !expect(prctl(PR_SET_NAME, (unsigned long)"ab", 0, 0, 0), 0, "PR_SET_NAME(\"ab\")"))
		return 0;
	if ((at = comm_not_padded_at()))
		return ktap_fail("after PR_SET_NAME(\"ab\"), comm's byte %d is not 0 (16: PR_GET_NAME failed)", at);
	return 1;
}

/* After an exec the program's name, zero-padded too: the child runs this program with `comm`. */
static int exec_with_a_long_name(void *arg)
{
	char *argv[] = { (char *)self, "comm", NULL }, *envp[] = { NULL };

	(void)arg;
	prctl(PR_SET_NAME, (unsigned long)"0123456789abcde", 0, 0, 0);
	execve(self, argv, envp);
	return 99;
}

static int test_comm_after_exec(void)
{
	return expect_exit(run_in_child(exec_with_a_long_name, NULL), 0,
			   "exit status: the byte of comm after exec that is not 0 (99: execve failed)");
}

/* Linux's struct sysinfo is 112 bytes; MemTotal of /proc/meminfo is its totalram in kB. */
struct sysinfo {
	long uptime;
	unsigned long loads[3], totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	unsigned short procs, pad;
	unsigned long totalhigh, freehigh;
	unsigned int mem_unit;
};


static int test_sysinfo(void)
{
	unsigned char buf[128];
	struct sysinfo *si = (struct sysinfo *)buf;
	unsigned long total_kb;

	memset(buf, 0x5a, sizeof(buf));
	if (!expect(syscall1(__NR_sysinfo, (long)buf), 0, "sysinfo") || !untouched(buf, 112, 128))
		return 0;
	total_kb = si->totalram * si->mem_unit / 1024;
	ktap_diag("sysinfo: uptime %ld s, %lu kB, %lu kB free, %u processes", si->uptime,
		  total_kb, si->freeram * si->mem_unit / 1024, si->procs);
	if (si->uptime < 1 || !si->freeram || si->freeram > si->totalram || si->procs < 2)
		return ktap_fail("implausible values");
	return expect(total_kb, meminfo_kb("MemTotal"), "totalram against MemTotal") &&
	       expect(syscall1(__NR_sysinfo, KERNEL_ADDR), -EFAULT, "sysinfo(kernel address)");
}

static int test_rlimits(void)
{
	unsigned long lim[2], old[2];

	if (!expect(syscall2(__NR_getrlimit, RLIMIT_STACK, (long)lim), 0, "getrlimit(STACK)") ||
	    !expect(syscall4(__NR_prlimit64, 0, RLIMIT_STACK, 0, (long)old), 0, "prlimit64(STACK)"))
		return 0;
	if (!lim[0] || lim[0] > lim[1] || old[0] != lim[0])
		return ktap_fail("stack limit %#lx/%#lx, prlimit64 says %#lx", lim[0], lim[1], old[0]);
	if (!expect(syscall4(__NR_prlimit64, 0, RLIMIT_STACK, (long)lim, 0), 0, "prlimit64(same)") ||
	    !expect(syscall2(__NR_getrlimit, RLIMIT_NOFILE, (long)lim), 0, "getrlimit(NOFILE)"))
		return 0;
	if (lim[0] < 3)
		return ktap_fail("NOFILE %lu", lim[0]);
	return expect(syscall2(__NR_getrlimit, 16, (long)lim), -EINVAL, "getrlimit(16)");
}

/*
 * Out of memory, /proc/self/maps cannot be made: ENOMEM, not "no such file".
 * Memory is taken at a page's first touch, so mapping it is not enough:
 * each mapping is filled until no frame is left.
 */
static int exhaust_then_open(void *unused)
{
	unsigned long len = 1ul << 40;
	long fd, zero = open("/dev/zero", O_RDONLY, 0);
	char *p;
	int i;

	(void)unused;
	for (i = 0; i < 64; i++)	/* areas enough that the text needs a run of frames */
		if (mmap(NULL, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			return 2;
	for (; len >= PAGE_SIZE; len /= 2)
		while (!IS_ERR_VALUE(p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)))
			if (fill_from_zero(p, len, zero) != len)
				goto full;
full:
	fd = open("/proc/self/maps", O_RDONLY, 0);
	ktap_diag("open(/proc/self/maps) with no memory left: %ld", fd);
	return fd == -ENOMEM ? 0 : fd == -ENOENT ? 1 : 3;
}

static int test_proc_out_of_memory(void)
{
	if (!on_ccos())
		return skip("on the host it would exhaust the host's memory");
	return expect_exit(run_in_child(exhaust_then_open, NULL), 0, "open under exhaustion");
}

/*
 * An int3 in the last byte of user space traps with rip at the
 * non-canonical 0x800000000000; its SIGTRAP handler must run, with no
 * SIGSEGV for that rip queued behind it (Linux keeps the page unmappable).
 */
static void on_trap(int sig, siginfo_t *si, void *uc)
{
	sigset_t pending = 0;

	(void)sig, (void)si, (void)uc;
	syscall2(__NR_rt_sigpending, (long)&pending, 8);
	exit_group(pending & (1ul << (SIGSEGV - 1)) ? 3 : 42);
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	exit_group(4);
}

static int int3_child(void *unused)
{
	unsigned long top = NONCANONICAL - PAGE_SIZE;
	unsigned char *p;

	(void)unused;
	sigaction(SIGTRAP, on_trap, 0);
	sigaction(SIGSEGV, on_segv, 0);
	p = mmap((void *)top, PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p != (void *)top)
		return 43;		/* refused, as on Linux */
	p[PAGE_SIZE - 1] = 0xcc;
	asm volatile("jmp *%0" : : "r"(p + PAGE_SIZE - 1));
	return 5;
}

static int test_int3_last_byte(void)
{
	int status = run_in_child(int3_child, NULL);

	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == (on_ccos() ? 42 : 43))
		return 1;
	return ktap_fail("wait status %#x: 3 = SIGSEGV pending in the handler, 4 = SIGSEGV handler ran",
			 status);
}

static const struct test tests[] = {
	{ "int_arguments_cut_to_32_bits", test_int_arguments, 1 },
	{ "syscall_number_is_rax_low_half", test_syscall_number },
	{ "ioctl_termios_winsize_sizes", test_ioctl_sizes },
	{ "stat_fstat_newfstatat", test_stat_family, 1 },
	{ "inode_numbers_are_no_addresses", test_inode_numbers, 1 },
	{ "comm_zero_padded_after_prctl", test_comm_zero_padded },
	{ "comm_zero_padded_after_exec", test_comm_after_exec, 1 },
	{ "sysinfo", test_sysinfo },
	{ "getrlimit_prlimit64", test_rlimits },
	{ "proc_open_out_of_memory_enomem", test_proc_out_of_memory },
	{ "int3_last_byte_sigtrap_only", test_int3_last_byte },
};

int main(int argc, char **argv, char **envp)
{
	char cwd[256];
	size_t n;

	(void)envp;
	if (argc == 2 && !strcmp(argv[1], "comm"))
		return comm_not_padded_at();	/* test_comm_after_exec's child */
	find_self(argv[0]);
	if (self && self[0] != '/' && strlen(self) < sizeof(relpath)) {
		strcpy(relpath, self);
	} else if (self && syscall2(__NR_getcwd, (long)cwd, sizeof(cwd)) > 0) {
		n = strlen(cwd);
		if (!strcmp(cwd, "/"))
			n = 0;
		if (!strncmp(self, cwd, n) && self[n] == '/' && strlen(self + n + 1) < sizeof(relpath))
			strcpy(relpath, self + n + 1);
	}
	if (!relpath[0])
		self = NULL;		/* the tests that need a relative path skip */
	return run_tests(tests, ARRAY_SIZE(tests));
}
