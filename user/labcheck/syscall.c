/* Lab 0's checks: a system call from ring 3 to the kernel's table and back, seen from ring 3. */
#include "labcheck.h"

#define __NR_pwrite64	18
#define __NR_unlink	87
#define NR_TABLE	512	/* ccos's table (include/ccos/syscall.h); Linux's ends below it too */

/*
 * Registers across one SYSCALL of getpid, in raw assembly, so that no
 * compiler choice hides a clobber. Before the call every register but
 * rax, rcx, r11 and rsp holds a pattern of its own; after it, syscall_regs
 * stores them all. The x86-64 ABI (Linux's entry_64.S): the result in
 * rax, rcx the address after `syscall` and r11 the RFLAGS it had (SDM
 * Vol. 2B SYSCALL, which the kernel's SYSRET or IRETQ gives back); every
 * other register as it was.
 */
struct syscall_regs {
	uint64_t rbx, rdx, rsi, rdi, rbp, r8, r9, r10, r12, r13, r14, r15;
	uint64_t rax, rcx, r11, rsp;
	uint64_t want_rcx, want_r11, want_rsp;
	uint64_t cs, ss;
};

#define PATTERN(i)	(0x5ca1ab1e00000000ul | (i) << 8 | (i))

void syscall_regs(struct syscall_regs *out);
__asm__(".text\n"
	".globl syscall_regs\n"
	"syscall_regs:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	push %rdi\n"			/* out, at 0(%rsp) */
	"	pushfq\n"
	"	pop %rax\n"
	"	mov %rax, 17*8(%rdi)\n"		/* want_r11: RFLAGS now */
	"	lea 1f(%rip), %rax\n"
	"	mov %rax, 16*8(%rdi)\n"		/* want_rcx: the address after syscall */
	"	mov %rsp, 18*8(%rdi)\n"		/* want_rsp */
	"	movabs $0x5ca1ab1e00000101, %rbx\n"
	"	movabs $0x5ca1ab1e00000202, %rdx\n"
	"	movabs $0x5ca1ab1e00000303, %rsi\n"
	"	movabs $0x5ca1ab1e00000404, %rdi\n"
	"	movabs $0x5ca1ab1e00000505, %rbp\n"
	"	movabs $0x5ca1ab1e00000606, %r8\n"
	"	movabs $0x5ca1ab1e00000707, %r9\n"
	"	movabs $0x5ca1ab1e00000808, %r10\n"
	"	movabs $0x5ca1ab1e00000909, %r12\n"
	"	movabs $0x5ca1ab1e00000a0a, %r13\n"
	"	movabs $0x5ca1ab1e00000b0b, %r14\n"
	"	movabs $0x5ca1ab1e00000c0c, %r15\n"
	"	mov $39, %eax\n"		/* getpid */
	"	syscall\n"
	"1:	xchg %rdi, (%rsp)\n"		/* out back, the call's rdi on the stack */
	"	mov %rbx, 0*8(%rdi); mov %rdx, 1*8(%rdi); mov %rsi, 2*8(%rdi)\n"
	"	mov %rbp, 4*8(%rdi); mov %r8, 5*8(%rdi); mov %r9, 6*8(%rdi)\n"
	"	mov %r10, 7*8(%rdi); mov %r12, 8*8(%rdi); mov %r13, 9*8(%rdi)\n"
	"	mov %r14, 10*8(%rdi); mov %r15, 11*8(%rdi); mov %rax, 12*8(%rdi)\n"
	"	mov %rcx, 13*8(%rdi); mov %r11, 14*8(%rdi); mov %rsp, 15*8(%rdi)\n"
	"	mov %cs, %eax; mov %rax, 19*8(%rdi); mov %ss, %eax; mov %rax, 20*8(%rdi)\n"
	"	pop %rax\n"
	"	mov %rax, 3*8(%rdi)\n"
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
	"	ret\n");

/* The call each number names is the one that runs, and its result comes back in rax. */
static int child_ids(void *arg)
{
	long parent = (long)arg;

	if (syscall0(__NR_getppid) != parent)
		return 2;
	return syscall0(__NR_getpid) == syscall0(__NR_gettid) ? 0 : 3;
}

int test_syscall_reaches_its_call(void)
{
	long me = syscall0(__NR_getpid), pid, st;
	struct utsname u = { 0 };
	char buf[8];

	if (me <= 0)
		return ktap_fail("getpid (39) returned %ld", me);
	if (!expect(syscall0(1L << 32 | __NR_getpid), me, "getpid (39) with 1 in rax's upper half, which Linux ignores") ||
	    !expect(syscall3(__NR_write, -1, (long)buf, 1), -EBADF, "write (1) to fd -1") ||
	    !expect(syscall3(__NR_read, -1, (long)buf, 1), -EBADF, "read (0) from fd -1"))
		return 0;
	if (syscall1(__NR_uname, (long)&u) != 0 || !u.sysname[0] || !u.machine[0])
		return ktap_fail("uname (63) did not fill in its struct utsname");
	pid = syscall0(__NR_fork);
	if (pid == 0)
		exit_group(child_ids((void *)me));
	if (pid < 0 || syscall4(__NR_wait4, pid, (long)&st, 0, 0) != pid)
		return ktap_fail("fork (57) or wait4 (61) failed: %ld", pid);
	return expect_exit(st, 0, "getppid (110) in a child is the parent's getpid, getpid its gettid (186)");
}

/*
 * -ENOSYS for every number with no call: past the table, the table's
 * holes, negative. The number is rax's low half (Linux's int nr), so a
 * huge rax is past the table only when its low half is.
 */
int test_syscall_enosys(void)
{
	static const long none[] = {
		NR_TABLE, NR_TABLE + 1, 1000, 0x7fffffff, 0x80000000L, -1, -2, -39,
		(long)0x8000000000000200ul, 181, 183, 184,	/* getpmsg, afs_syscall, tuxcall */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(none); i++) {
		long r = syscall6(none[i], 1, 2, 3, 4, 5, 6);

		if (r != -ENOSYS)
			return ktap_fail("system call %ld (%#lx) returned %ld, not -ENOSYS (%d)",
					 none[i], none[i], r, -ENOSYS);
	}
	return 1;
}

/*
 * Six arguments, each one checked: mmap's (addr, len, prot, flags in r10,
 * fd in r8, offset in r9) map a page where nothing is, at the address it
 * names, and refuse an offset that is not page-aligned; process_vm_readv's
 * (pid, local, its count, remote in r10, its count in r8, flags in r9,
 * which must be 0) copy from this very process.
 */
int test_syscall_six_args(void)
{
	static char src[64] = "six arguments, each in its register";
	char dst[64] = "";
	struct iovec l = { dst, sizeof(dst) }, r[2] = { { src, 32 }, { src + 32, 32 } };
	long flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, me = syscall0(__NR_getpid), n;
	char *at = map_pages(2), *got;

	if (!at)
		return ktap_fail("no memory for the test");
	syscall2(__NR_munmap, (long)at + 4096, 4096);
	got = (char *)syscall6(__NR_mmap, (long)at + 4096, 4096, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (got != at + 4096)
		return ktap_fail("mmap (9) MAP_FIXED at %p returned %p", at + 4096, got);
	got[4095] = 1;
	if (!expect(syscall6(__NR_mmap, (long)at, 4096, PROT_READ, flags, -1, 4097), -EINVAL,
		    "mmap (9) at an offset (its sixth argument) of 4097"))
		return 0;
	n = syscall6(__NR_process_vm_readv, me, (long)&l, 1, (long)r, 2, 0);
	if (n != sizeof(src) || memcmp(dst, src, sizeof(src)))
		return ktap_fail("process_vm_readv (310) of two pieces of this process returned %ld", n);
	return expect(syscall6(__NR_process_vm_readv, me, (long)&l, 1, (long)r, 2, 1),
		      -EINVAL, "process_vm_readv with flags 1 (its sixth argument)");
}

int test_syscall_registers(void)
{
	struct syscall_regs g;
	const uint64_t *kept = &g.rbx;
	static const char *const names[] = {
		"rbx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r12", "r13", "r14", "r15",
	};
	unsigned int i;

	syscall_regs(&g);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (kept[i] != PATTERN(i + 1ul))
			return ktap_fail("%s was %#lx before the call and %#lx after it",
					 names[i], PATTERN(i + 1ul), kept[i]);
	}
	/* SYSRET takes both selectors from STAR (SDM Vol. 2B SYSRET): USER_CS 0x33, USER_DS 0x2b. */
	if (g.cs != 0x33 || g.ss != 0x2b)
		return ktap_fail("after the call cs is %#lx and ss %#lx, not 0x33 and 0x2b", g.cs, g.ss);
	if (g.rsp != g.want_rsp)
		return ktap_fail("rsp was %#lx before the call and %#lx after it", g.want_rsp, g.rsp);
	if ((long)g.rax != syscall0(__NR_getpid))
		return ktap_fail("getpid's result in rax is %ld", (long)g.rax);
	if (g.rcx != g.want_rcx)
		return ktap_fail("rcx is %#lx after the call, not the address after it, %#lx", g.rcx, g.want_rcx);
	/* RF (bit 16) is never set in a flags image pushfq makes; SYSRET clears it. */
	if ((g.r11 & ~0x10000ul) != g.want_r11)
		return ktap_fail("r11 is %#lx after the call, not the RFLAGS of the caller, %#lx",
				 g.r11, g.want_r11);
	return 1;
}

/*
 * The direction flag set by the caller: the kernel must run with it clear
 * (FMASK; its rep movs would copy backwards), and the caller gets its own
 * RFLAGS back, DF set. uname's answer, made that way, matches one made
 * with DF clear.
 */
int test_syscall_flags(void)
{
	struct utsname a = { 0 }, b = { 0 };
	unsigned long flags;
	long r;

	__asm__ volatile("std\n\tsyscall\n\tpushfq\n\tpop %%rdx\n\tcld"
			 : "=a"(r), "=d"(flags) : "a"((long)__NR_uname), "D"(&a) : "rcx", "r11", "memory", "cc");
	if (r != 0)
		return ktap_fail("uname with DF set returned %ld", r);
	if (!(flags & 0x400))
		return ktap_fail("DF set before the call is clear after it: RFLAGS %#lx", flags);
	syscall1(__NR_uname, (long)&b);
	if (memcmp(&a, &b, sizeof(a)))
		return ktap_fail("uname with DF set filled its buffer otherwise than with DF clear");
	return 1;
}

/*
 * A SYSCALL made with TF set (single-stepping a program that calls the
 * kernel, as a debugger does). FMASK must clear TF on entry: with TF kept
 * the CPU raises #DB after the first instruction of the kernel's entry,
 * on the user's stack, before the kernel has one of its own. On the way
 * out the caller's RFLAGS (r11) bring TF back, so the trap comes after
 * the first instruction past the call (tf_step), where it would have
 * come without the call: SIGTRAP, TRAP_TRACE, rip at tf_after, and the
 * call's result in rax.
 */
extern const char tf_step[], tf_after[];
long syscall_with_tf(long nr);
__asm__(".text\n"
	"syscall_with_tf:\n"
	"	mov %rdi, %rax\n"
	"	pushfq\n"
	"	orq $0x100, (%rsp)\n"
	"	popfq\n"
	"	syscall\n"
	"tf_step:	nop\n"
	"tf_after:	nop\n"
	"	ret\n");

static volatile int tf_traps, tf_code;
static volatile unsigned long tf_rip;

static void on_tf_trap(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;

	(void)sig;
	if (tf_traps++ == 0) {
		tf_rip = mc->rip;
		tf_code = si->si_code;
	}
	mc->eflags &= ~EFLAGS_TF;
}

static int tf_child(void *unused)
{
	long me = syscall0(__NR_getpid), r;

	(void)unused;
	set_handler(SIGTRAP, on_tf_trap, 0, 0);
	r = syscall_with_tf(__NR_getpid);
	if (r != me)
		return FAIL("getpid with TF set returned %ld, not %ld", r, me);
	if (tf_traps != 1 || tf_code != TRAP_TRACE || tf_rip != (unsigned long)tf_after)
		return FAIL("%d SIGTRAP(s), the first with si_code %d at %#lx; expected one, "
			    "TRAP_TRACE (2), at %p (after the instruction past the call)",
			    tf_traps, tf_code, tf_rip, tf_after);
	return 0;
}

int test_syscall_with_tf(void)
{
	return child_passes(tf_child, NULL);
}
