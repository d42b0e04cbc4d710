/* The system-call table, indexed by Linux's x86-64 numbers (asm/unistd_64.h), and the lockless calls. */
#include <ccos/syscall.h>
#include <asm/unistd_64.h>
#include <ccos/errno.h>

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
#define ENTRY(nr, fn)	[nr] = (syscall_fn)(void (*)(void))fn

long sys_ni_syscall(void)
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
const syscall_fn syscall_table[NR_SYSCALLS] = {
	[0 ... NR_SYSCALLS - 1] = (syscall_fn)(void (*)(void))sys_ni_syscall,
	ENTRY(__NR_read, sys_read),
	ENTRY(__NR_write, sys_write),
	ENTRY(__NR_open, sys_open),
	ENTRY(__NR_close, sys_close),
	ENTRY(__NR_stat, sys_stat),
	ENTRY(__NR_fstat, sys_fstat),
	ENTRY(__NR_lstat, sys_lstat),
	ENTRY(__NR_poll, sys_poll),
	ENTRY(__NR_lseek, sys_lseek),
	ENTRY(__NR_mmap, sys_mmap),
	ENTRY(__NR_mprotect, sys_mprotect),
	ENTRY(__NR_munmap, sys_munmap),
	ENTRY(__NR_brk, sys_brk),
	ENTRY(__NR_rt_sigaction, sys_rt_sigaction),
	ENTRY(__NR_rt_sigprocmask, sys_rt_sigprocmask),
	ENTRY(__NR_rt_sigreturn, sys_rt_sigreturn),
	ENTRY(__NR_ioctl, sys_ioctl),
	ENTRY(__NR_pread64, sys_pread64),
	ENTRY(__NR_pwrite64, sys_pwrite64),
	ENTRY(__NR_readv, sys_readv),
	ENTRY(__NR_writev, sys_writev),
	ENTRY(__NR_access, sys_access),
	ENTRY(__NR_pipe, sys_pipe),
	ENTRY(__NR_select, sys_select),
	ENTRY(__NR_sched_yield, sys_sched_yield),
	ENTRY(__NR_mremap, sys_mremap),
	ENTRY(__NR_msync, sys_msync),
	ENTRY(__NR_madvise, sys_madvise),
	ENTRY(__NR_shmget, sys_shmget),
	ENTRY(__NR_shmat, sys_shmat),
	ENTRY(__NR_shmctl, sys_shmctl),
	ENTRY(__NR_dup, sys_dup),
	ENTRY(__NR_dup2, sys_dup2),
	ENTRY(__NR_pause, sys_pause),
	ENTRY(__NR_nanosleep, sys_nanosleep),
	ENTRY(__NR_getitimer, sys_getitimer),
	ENTRY(__NR_alarm, sys_alarm),
	ENTRY(__NR_setitimer, sys_setitimer),
	ENTRY(__NR_getpid, sys_getpid),
	ENTRY(__NR_sendfile, sys_sendfile),
	ENTRY(__NR_clone, sys_clone),
	ENTRY(__NR_fork, sys_fork),
	ENTRY(__NR_vfork, sys_vfork),
	ENTRY(__NR_execve, sys_execve),
	ENTRY(__NR_exit, sys_exit),
	ENTRY(__NR_wait4, sys_wait4),
	ENTRY(__NR_kill, sys_kill),
	ENTRY(__NR_uname, sys_uname),
	ENTRY(__NR_shmdt, sys_shmdt),
	ENTRY(__NR_fcntl, sys_fcntl),
	ENTRY(__NR_flock, sys_flock),
	ENTRY(__NR_fsync, sys_fsync),
	ENTRY(__NR_fdatasync, sys_fdatasync),
	ENTRY(__NR_truncate, sys_truncate),
	ENTRY(__NR_ftruncate, sys_ftruncate),
	ENTRY(__NR_getcwd, sys_getcwd),
	ENTRY(__NR_chdir, sys_chdir),
	ENTRY(__NR_fchdir, sys_fchdir),
	ENTRY(__NR_rename, sys_rename),
	ENTRY(__NR_mkdir, sys_mkdir),
	ENTRY(__NR_rmdir, sys_rmdir),
	ENTRY(__NR_creat, sys_creat),
	ENTRY(__NR_unlink, sys_unlink),
	ENTRY(__NR_link, sys_link),
	ENTRY(__NR_symlink, sys_symlink),
	ENTRY(__NR_readlink, sys_readlink),
	ENTRY(__NR_chmod, sys_chmod),
	ENTRY(__NR_fchmod, sys_fchmod),
	ENTRY(__NR_chown, sys_chown),
	ENTRY(__NR_fchown, sys_fchown),
	ENTRY(__NR_lchown, sys_lchown),
	ENTRY(__NR_umask, sys_umask),
	ENTRY(__NR_gettimeofday, sys_gettimeofday),
	ENTRY(__NR_adjtimex, sys_adjtimex),
	ENTRY(__NR_settimeofday, sys_settimeofday),
	ENTRY(__NR_statfs, sys_statfs),
	ENTRY(__NR_fstatfs, sys_fstatfs),
	ENTRY(__NR_getrlimit, sys_getrlimit),
	ENTRY(__NR_getrusage, sys_getrusage),
	ENTRY(__NR_sysinfo, sys_sysinfo),
	ENTRY(__NR_times, sys_times),
	ENTRY(__NR_getuid, sys_getuid),
	ENTRY(__NR_syslog, sys_syslog),
	ENTRY(__NR_getgid, sys_getgid),
	ENTRY(__NR_setuid, sys_setuid),
	ENTRY(__NR_setgid, sys_setgid),
	ENTRY(__NR_geteuid, sys_geteuid),
	ENTRY(__NR_getegid, sys_getegid),
	ENTRY(__NR_setpgid, sys_setpgid),
	ENTRY(__NR_getppid, sys_getppid),
	ENTRY(__NR_getpgrp, sys_getpgrp),
	ENTRY(__NR_setsid, sys_setsid),
	ENTRY(__NR_setreuid, sys_setreuid),
	ENTRY(__NR_setregid, sys_setregid),
	ENTRY(__NR_getgroups, sys_getgroups),
	ENTRY(__NR_setgroups, sys_setgroups),
	ENTRY(__NR_setresuid, sys_setresuid),
	ENTRY(__NR_getresuid, sys_getresuid),
	ENTRY(__NR_setresgid, sys_setresgid),
	ENTRY(__NR_getresgid, sys_getresgid),
	ENTRY(__NR_getpgid, sys_getpgid),
	ENTRY(__NR_setfsuid, sys_setfsuid),
	ENTRY(__NR_setfsgid, sys_setfsgid),
	ENTRY(__NR_getsid, sys_getsid),
	ENTRY(__NR_capget, sys_capget),
	ENTRY(__NR_capset, sys_capset),
	ENTRY(__NR_rt_sigpending, sys_rt_sigpending),
	ENTRY(__NR_rt_sigtimedwait, sys_rt_sigtimedwait),
	ENTRY(__NR_rt_sigqueueinfo, sys_rt_sigqueueinfo),
	ENTRY(__NR_rt_sigsuspend, sys_rt_sigsuspend),
	ENTRY(__NR_sigaltstack, sys_sigaltstack),
	ENTRY(__NR_mknod, sys_mknod),
	ENTRY(__NR_personality, sys_personality),
	ENTRY(__NR_mlock, sys_mlock),
	ENTRY(__NR_munlock, sys_munlock),
	ENTRY(__NR_mlockall, sys_mlockall),
	ENTRY(__NR_munlockall, sys_munlockall),
	ENTRY(__NR_prctl, sys_prctl),
	ENTRY(__NR_arch_prctl, sys_arch_prctl),
	ENTRY(__NR_setrlimit, sys_setrlimit),
	ENTRY(__NR_sync, sys_sync),
	ENTRY(__NR_reboot, sys_reboot),
	ENTRY(__NR_gettid, sys_gettid),
	ENTRY(__NR_tkill, sys_tkill),
	ENTRY(__NR_time, sys_time),
	ENTRY(__NR_futex, sys_futex),
	ENTRY(__NR_futex_waitv, sys_futex_waitv),
	ENTRY(__NR_sched_setparam, sys_sched_setparam),
	ENTRY(__NR_sched_getparam, sys_sched_getparam),
	ENTRY(__NR_sched_setscheduler, sys_sched_setscheduler),
	ENTRY(__NR_sched_getscheduler, sys_sched_getscheduler),
	ENTRY(__NR_getpriority, sys_getpriority),
	ENTRY(__NR_setpriority, sys_setpriority),
	ENTRY(__NR_sched_get_priority_max, sys_sched_get_priority_max),
	ENTRY(__NR_sched_get_priority_min, sys_sched_get_priority_min),
	ENTRY(__NR_sched_setaffinity, sys_sched_setaffinity),
	ENTRY(__NR_sched_getaffinity, sys_sched_getaffinity),
	ENTRY(__NR_getdents64, sys_getdents64),
	ENTRY(__NR_set_tid_address, sys_set_tid_address),
	ENTRY(__NR_timer_create, sys_timer_create),
	ENTRY(__NR_timer_settime, sys_timer_settime),
	ENTRY(__NR_timer_gettime, sys_timer_gettime),
	ENTRY(__NR_timer_getoverrun, sys_timer_getoverrun),
	ENTRY(__NR_timer_delete, sys_timer_delete),
	ENTRY(__NR_clock_settime, sys_clock_settime),
	ENTRY(__NR_clock_gettime, sys_clock_gettime),
	ENTRY(__NR_clock_getres, sys_clock_getres),
	ENTRY(__NR_clock_nanosleep, sys_clock_nanosleep),
	ENTRY(__NR_exit_group, sys_exit_group),
	ENTRY(__NR_tgkill, sys_tgkill),
	ENTRY(__NR_waitid, sys_waitid),
	ENTRY(__NR_openat, sys_openat),
	ENTRY(__NR_mkdirat, sys_mkdirat),
	ENTRY(__NR_mknodat, sys_mknodat),
	ENTRY(__NR_fchownat, sys_fchownat),
	ENTRY(__NR_newfstatat, sys_newfstatat),
	ENTRY(__NR_unlinkat, sys_unlinkat),
	ENTRY(__NR_renameat, sys_renameat),
	ENTRY(__NR_linkat, sys_linkat),
	ENTRY(__NR_symlinkat, sys_symlinkat),
	ENTRY(__NR_readlinkat, sys_readlinkat),
	ENTRY(__NR_fchmodat, sys_fchmodat),
	ENTRY(__NR_faccessat, sys_faccessat),
	ENTRY(__NR_pselect6, sys_pselect6),
	ENTRY(__NR_ppoll, sys_ppoll),
	ENTRY(__NR_set_robust_list, sys_set_robust_list),
	ENTRY(__NR_get_robust_list, sys_get_robust_list),
	ENTRY(__NR_utimensat, sys_utimensat),
	ENTRY(__NR_fallocate, sys_fallocate),
	ENTRY(__NR_dup3, sys_dup3),
	ENTRY(__NR_pipe2, sys_pipe2),
	ENTRY(__NR_preadv, sys_preadv),
	ENTRY(__NR_pwritev, sys_pwritev),
	ENTRY(__NR_rt_tgsigqueueinfo, sys_rt_tgsigqueueinfo),
	ENTRY(__NR_prlimit64, sys_prlimit64),
	ENTRY(__NR_clock_adjtime, sys_clock_adjtime),
	ENTRY(__NR_syncfs, sys_syncfs),
	ENTRY(__NR_getcpu, sys_getcpu),
	ENTRY(__NR_process_vm_readv, sys_process_vm_readv),
	ENTRY(__NR_process_vm_writev, sys_process_vm_writev),
	ENTRY(__NR_renameat2, sys_renameat2),
	ENTRY(__NR_getrandom, sys_getrandom),
	ENTRY(__NR_mlock2, sys_mlock2),
	ENTRY(__NR_pkey_mprotect, sys_pkey_mprotect),
	ENTRY(__NR_pkey_alloc, sys_pkey_alloc),
	ENTRY(__NR_pkey_free, sys_pkey_free),
	ENTRY(__NR_faccessat2, sys_faccessat2),
};
#pragma GCC diagnostic pop

/*
 * The system calls that run without the kernel lock (arch/x86/entry/common.c): they
 * read only their own process's fixed fields, constants, the time (under
 * its seqcount) or the running CPU, and write only user memory; a CPU-time
 * clock, which reads other threads, takes the lock for that
 * (lockless_cpu_clock). Every other call, a new one included, runs inside
 * the lock: the safe default.
 * getppid reads the parent pointer once: a parent exiting at that moment
 * makes the answer one that was true an instant before, as on Linux.
 * A process in seccomp mode has none (syscall_lockless_none), so that its
 * every call takes the way where seccomp is checked: one test serves both.
 */
const bool syscall_lockless[NR_SYSCALLS] = {
	[__NR_getpid] = true,
	[__NR_gettimeofday] = true,
	[__NR_getuid] = true,
	[__NR_getgid] = true,
	[__NR_geteuid] = true,
	[__NR_getegid] = true,
	[__NR_getppid] = true,
	[__NR_time] = true,
	[__NR_clock_gettime] = true,
	[__NR_clock_getres] = true,
	[__NR_getcpu] = true,
};
const bool syscall_lockless_none[NR_SYSCALLS];
