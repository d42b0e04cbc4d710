/* The system-call table, indexed by Linux's x86-64 numbers, and the dispatcher. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/errno.h>
#include <ccos/printk.h>
#include <ccos/spinlock.h>

/*
 * Each handler is written with its own typed arguments; the table calls
 * them all as six-argument functions, which the x86-64 calling convention
 * makes safe for integer and pointer arguments (rdi rsi rdx rcx r8 r9).
 * A handler's types are Linux's: where Linux's prototype says int, pid_t or
 * unsigned int, so does the handler, and the compiled handler reads only
 * the low 32 bits of the register (for a 32-bit argument the x86-64 psABI
 * leaves the upper half undefined). So glibc's -1 passed as 0xffffffff is
 * -1, and kill(0x100000001, sig) acts on pid 1, as on Linux. clone3 (435)
 * is absent, hence ENOSYS, on which glibc and musl fall back to clone.
 */
typedef long (*syscall_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
#define ENTRY(nr, fn)	[nr] = (syscall_fn)(void (*)(void))fn
#define NR_SYSCALLS	512	/* room for every Linux x86-64 number (the last is under 470) */

static long sys_ni_syscall(void)
{
	return -ENOSYS;
}

/*
 * Every number starts as sys_ni_syscall and the entries below override
 * it (as Linux fills its own table), so the dispatcher needs no NULL test.
 * The override is the point here: GCC's -Woverride-init would warn of it.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static const syscall_fn syscall_table[NR_SYSCALLS] = {
	[0 ... NR_SYSCALLS - 1] = (syscall_fn)(void (*)(void))sys_ni_syscall,
	ENTRY(0, sys_read),
	ENTRY(1, sys_write),
	ENTRY(2, sys_open),
	ENTRY(3, sys_close),
	ENTRY(4, sys_stat),
	ENTRY(5, sys_fstat),
	ENTRY(6, sys_lstat),
	ENTRY(7, sys_poll),
	ENTRY(8, sys_lseek),
	ENTRY(9, sys_mmap),
	ENTRY(10, sys_mprotect),
	ENTRY(11, sys_munmap),
	ENTRY(12, sys_brk),
	ENTRY(13, sys_rt_sigaction),
	ENTRY(14, sys_rt_sigprocmask),
	ENTRY(15, sys_rt_sigreturn),
	ENTRY(16, sys_ioctl),
	ENTRY(17, sys_pread64),
	ENTRY(18, sys_pwrite64),
	ENTRY(19, sys_readv),
	ENTRY(20, sys_writev),
	ENTRY(21, sys_access),
	ENTRY(22, sys_pipe),
	ENTRY(24, sys_sched_yield),
	ENTRY(28, sys_madvise),
	ENTRY(32, sys_dup),
	ENTRY(33, sys_dup2),
	ENTRY(34, sys_pause),
	ENTRY(35, sys_nanosleep),
	ENTRY(37, sys_alarm),
	ENTRY(39, sys_getpid),
	ENTRY(40, sys_sendfile),
	ENTRY(56, sys_clone),
	ENTRY(57, sys_fork),
	ENTRY(58, sys_vfork),
	ENTRY(59, sys_execve),
	ENTRY(60, sys_exit),
	ENTRY(61, sys_wait4),
	ENTRY(62, sys_kill),
	ENTRY(63, sys_uname),
	ENTRY(72, sys_fcntl),
	ENTRY(76, sys_truncate),
	ENTRY(77, sys_ftruncate),
	ENTRY(79, sys_getcwd),
	ENTRY(80, sys_chdir),
	ENTRY(81, sys_fchdir),
	ENTRY(82, sys_rename),
	ENTRY(83, sys_mkdir),
	ENTRY(84, sys_rmdir),
	ENTRY(85, sys_creat),
	ENTRY(87, sys_unlink),
	ENTRY(88, sys_symlink),
	ENTRY(89, sys_readlink),
	ENTRY(90, sys_chmod),
	ENTRY(91, sys_fchmod),
	ENTRY(92, sys_chown),
	ENTRY(93, sys_fchown),
	ENTRY(94, sys_lchown),
	ENTRY(95, sys_umask),
	ENTRY(96, sys_gettimeofday),
	ENTRY(97, sys_getrlimit),
	ENTRY(98, sys_getrusage),
	ENTRY(99, sys_sysinfo),
	ENTRY(100, sys_times),
	ENTRY(102, sys_getuid),
	ENTRY(103, sys_syslog),
	ENTRY(104, sys_getgid),
	ENTRY(107, sys_geteuid),
	ENTRY(108, sys_getegid),
	ENTRY(109, sys_setpgid),
	ENTRY(110, sys_getppid),
	ENTRY(111, sys_getpgrp),
	ENTRY(112, sys_setsid),
	ENTRY(115, sys_getgroups),
	ENTRY(121, sys_getpgid),
	ENTRY(124, sys_getsid),
	ENTRY(127, sys_rt_sigpending),
	ENTRY(128, sys_rt_sigtimedwait),
	ENTRY(130, sys_rt_sigsuspend),
	ENTRY(131, sys_sigaltstack),
	ENTRY(133, sys_mknod),
	ENTRY(135, sys_personality),
	ENTRY(157, sys_prctl),
	ENTRY(158, sys_arch_prctl),
	ENTRY(160, sys_setrlimit),
	ENTRY(169, sys_reboot),
	ENTRY(186, sys_gettid),
	ENTRY(200, sys_tkill),
	ENTRY(201, sys_time),
	ENTRY(202, sys_futex),
	ENTRY(203, sys_sched_setaffinity),
	ENTRY(204, sys_sched_getaffinity),
	ENTRY(217, sys_getdents64),
	ENTRY(218, sys_set_tid_address),
	ENTRY(228, sys_clock_gettime),
	ENTRY(229, sys_clock_getres),
	ENTRY(230, sys_clock_nanosleep),
	ENTRY(231, sys_exit_group),
	ENTRY(234, sys_tgkill),
	ENTRY(247, sys_waitid),
	ENTRY(257, sys_openat),
	ENTRY(258, sys_mkdirat),
	ENTRY(259, sys_mknodat),
	ENTRY(260, sys_fchownat),
	ENTRY(262, sys_newfstatat),
	ENTRY(263, sys_unlinkat),
	ENTRY(264, sys_renameat),
	ENTRY(266, sys_symlinkat),
	ENTRY(267, sys_readlinkat),
	ENTRY(268, sys_fchmodat),
	ENTRY(269, sys_faccessat),
	ENTRY(271, sys_ppoll),
	ENTRY(273, sys_set_robust_list),
	ENTRY(274, sys_get_robust_list),
	ENTRY(280, sys_utimensat),
	ENTRY(292, sys_dup3),
	ENTRY(293, sys_pipe2),
	ENTRY(295, sys_preadv),
	ENTRY(296, sys_pwritev),
	ENTRY(302, sys_prlimit64),
	ENTRY(309, sys_getcpu),
	ENTRY(310, sys_process_vm_readv),
	ENTRY(311, sys_process_vm_writev),
	ENTRY(316, sys_renameat2),
	ENTRY(318, sys_getrandom),
	ENTRY(439, sys_faccessat2),
};
#pragma GCC diagnostic pop

/*
 * The system calls that run without the kernel lock (docs/smp.md): they
 * read only their own process's fixed fields, constants, the time (under
 * its seqcount) or the running CPU, and write only user memory. Every
 * other call, a new one included, runs inside the lock: the safe default.
 * getppid reads the parent pointer once: a parent exiting at that moment
 * makes the answer one that was true an instant before, as on Linux.
 * A process in seccomp mode has none (syscall_lockless_none), so that its
 * every call takes the way where seccomp is checked: one test serves both.
 */
const bool syscall_lockless[NR_SYSCALLS] = {
	[39] = true,	/* getpid */
	[96] = true,	/* gettimeofday */
	[102] = true,	/* getuid */
	[104] = true,	/* getgid */
	[107] = true,	/* geteuid */
	[108] = true,	/* getegid */
	[110] = true,	/* getppid */
	[201] = true,	/* time */
	[228] = true,	/* clock_gettime */
	[229] = true,	/* clock_getres */
	[309] = true,	/* getcpu */
};
const bool syscall_lockless_none[NR_SYSCALLS];

/* Seccomp strict mode (Linux's SECCOMP_MODE_STRICT): these four only. */
static bool seccomp_allows(uint64_t nr)
{
	return nr == 0 || nr == 1 || nr == 60 || nr == 15;
}

void syscall_dispatch(struct trap_frame *tf)
{
	uint64_t nr = tf->rax;
	struct process *p = current();

	if (nr < NR_SYSCALLS && p->lockless_syscalls[nr]) {
		tf->rax = syscall_table[nr](tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9);
	} else {
		if (p->seccomp_mode && !seccomp_allows(nr))
			proc_exit(SIGKILL);
		lock_kernel();
		tf->rax = nr < NR_SYSCALLS ? syscall_table[nr](tf->rdi, tf->rsi, tf->rdx, tf->r10,
							       tf->r8, tf->r9)
					   : -ENOSYS;
		unlock_kernel();
		/*
		 * A call a signal interrupted: deliver_signals restarts it or
		 * makes it -EINTR, even when no signal is left to deliver (another
		 * thread took it). Only here: the lockless calls do not sleep.
		 */
		if (tf->rax == (uint64_t)-ERESTARTSYS) {
			return_to_user_work(tf);
			return;
		}
	}
	return_to_user(tf);
}
