/* Named wrappers for the system calls ccos user programs use. */
#include "syscall.h"

#define L(x)	((long)(x))

long read(int fd, void *buf, size_t count)
{
	return syscall3(__NR_read, fd, L(buf), count);
}

long write(int fd, const void *buf, size_t count)
{
	return syscall3(__NR_write, fd, L(buf), count);
}

long open(const char *path, int flags, int mode)
{
	return syscall3(__NR_open, L(path), flags, mode);
}

long openat(int dirfd, const char *path, int flags, int mode)
{
	return syscall4(__NR_openat, dirfd, L(path), flags, mode);
}

long close(int fd)
{
	return syscall1(__NR_close, fd);
}

long fstat(int fd, struct stat *st)
{
	return syscall2(__NR_fstat, fd, L(st));
}

long lseek(int fd, off_t offset, int whence)
{
	return syscall3(__NR_lseek, fd, offset, whence);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall6(__NR_mmap, L(addr), len, prot, flags, fd, off);
}

long munmap(void *addr, size_t len)
{
	return syscall2(__NR_munmap, L(addr), len);
}

long mprotect(void *addr, size_t len, int prot)
{
	return syscall3(__NR_mprotect, L(addr), len, prot);
}

long brk(void *addr)
{
	return syscall1(__NR_brk, L(addr));
}

long readv(int fd, const struct iovec *iov, int iovcnt)
{
	return syscall3(__NR_readv, fd, L(iov), iovcnt);
}

long writev(int fd, const struct iovec *iov, int iovcnt)
{
	return syscall3(__NR_writev, fd, L(iov), iovcnt);
}

long ioctl(int fd, unsigned long request, unsigned long arg)
{
	return syscall3(__NR_ioctl, fd, request, arg);
}

long getpid(void)
{
	return syscall0(__NR_getpid);
}

long getppid(void)
{
	return syscall0(__NR_getppid);
}

long gettid(void)
{
	return syscall0(__NR_gettid);
}

long fork(void)
{
	return syscall0(__NR_fork);
}

long execve(const char *path, char *const argv[], char *const envp[])
{
	return syscall3(__NR_execve, L(path), L(argv), L(envp));
}

void exit(int status)
{
	syscall1(__NR_exit, status);
	__builtin_unreachable();
}

void exit_group(int status)
{
	syscall1(__NR_exit_group, status);
	__builtin_unreachable();
}

long wait4(pid_t pid, int *status, int options, void *rusage)
{
	return syscall4(__NR_wait4, pid, L(status), options, L(rusage));
}

long kill(pid_t pid, int sig)
{
	return syscall2(__NR_kill, pid, sig);
}

long setpgid(pid_t pid, pid_t pgid)
{
	return syscall2(__NR_setpgid, pid, pgid);
}

long getpgid(pid_t pid)
{
	return syscall1(__NR_getpgid, pid);
}

long alarm(unsigned int seconds)
{
	return syscall1(__NR_alarm, seconds);
}

long pause(void)
{
	return syscall0(__NR_pause);
}

long sched_yield(void)
{
	return syscall0(__NR_sched_yield);
}

long sched_getaffinity(pid_t pid, size_t len, void *mask)
{
	return syscall3(__NR_sched_getaffinity, pid, len, L(mask));
}

long sched_setaffinity(pid_t pid, size_t len, const void *mask)
{
	return syscall3(__NR_sched_setaffinity, pid, len, L(mask));
}

long process_vm_readv(pid_t pid, const struct iovec *local, unsigned long lcnt,
		      const struct iovec *remote, unsigned long rcnt,
		      unsigned long flags)
{
	return syscall6(__NR_process_vm_readv, pid, L(local), lcnt, L(remote),
			rcnt, flags);
}

long nanosleep(const struct timespec *req, struct timespec *rem)
{
	return syscall2(__NR_nanosleep, L(req), L(rem));
}

long clock_nanosleep(int clock, int flags, const struct timespec *req,
		     struct timespec *rem)
{
	return syscall4(__NR_clock_nanosleep, clock, flags, L(req), L(rem));
}

long uname(struct utsname *buf)
{
	return syscall1(__NR_uname, L(buf));
}

long arch_prctl(int code, unsigned long addr)
{
	return syscall2(__NR_arch_prctl, code, addr);
}

long set_tid_address(int *tidptr)
{
	return syscall1(__NR_set_tid_address, L(tidptr));
}

long getuid(void)
{
	return syscall0(__NR_getuid);
}

long geteuid(void)
{
	return syscall0(__NR_geteuid);
}

long getgid(void)
{
	return syscall0(__NR_getgid);
}

long getegid(void)
{
	return syscall0(__NR_getegid);
}

long reboot(unsigned long magic1, unsigned long magic2, unsigned int cmd,
	    void *arg)
{
	return syscall4(__NR_reboot, magic1, magic2, cmd, L(arg));
}

long gettimeofday(struct timeval *tv, struct timezone *tz)
{
	return syscall2(__NR_gettimeofday, L(tv), L(tz));
}

long time(long *t)
{
	return syscall1(__NR_time, L(t));
}

long clock_gettime(int clock, struct timespec *ts)
{
	return syscall2(__NR_clock_gettime, clock, L(ts));
}

long clock_getres(int clock, struct timespec *ts)
{
	return syscall2(__NR_clock_getres, clock, L(ts));
}

long getcpu(unsigned int *cpu, unsigned int *node, void *cache)
{
	return syscall3(__NR_getcpu, L(cpu), L(node), L(cache));
}

long rt_sigaction(int sig, const struct kernel_sigaction *act,
		  struct kernel_sigaction *old, size_t sigsetsize)
{
	return syscall4(__NR_rt_sigaction, sig, L(act), L(old), sigsetsize);
}

long rt_sigprocmask(int how, const sigset_t *set, sigset_t *old,
		    size_t sigsetsize)
{
	return syscall4(__NR_rt_sigprocmask, how, L(set), L(old), sigsetsize);
}

long sigaltstack(const stack_t *ss, stack_t *old)
{
	return syscall2(__NR_sigaltstack, L(ss), L(old));
}

long prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4,
	   unsigned long a5)
{
	return syscall5(__NR_prctl, option, a2, a3, a4, a5);
}
