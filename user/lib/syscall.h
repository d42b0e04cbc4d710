/* Raw Linux x86-64 system calls: numbers, syscall0..6 and named wrappers. */
#ifndef USER_SYSCALL_H
#define USER_SYSCALL_H

#include "linux.h"
#include <asm/unistd_64.h>	/* the numbers: the kernel's own list, as Linux's uapi */

/*
 * The syscall instruction takes the number in rax and arguments in rdi, rsi,
 * rdx, r10, r8, r9; it returns in rax and clobbers rcx (the return rip) and
 * r11 (the saved rflags).
 */
static inline long syscall0(long n)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "a"(n) : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall1(long n, long a1)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "a"(n), "D"(a1)
		     : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall2(long n, long a1, long a2)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "a"(n), "D"(a1), "S"(a2)
		     : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall3(long n, long a1, long a2, long a3)
{
	long ret;

	asm volatile("syscall" : "=a"(ret) : "a"(n), "D"(a1), "S"(a2), "d"(a3)
		     : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall4(long n, long a1, long a2, long a3, long a4)
{
	register long r10 asm("r10") = a4;
	long ret;

	asm volatile("syscall" : "=a"(ret)
		     : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
		     : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall5(long n, long a1, long a2, long a3, long a4, long a5)
{
	register long r10 asm("r10") = a4;
	register long r8 asm("r8") = a5;
	long ret;

	asm volatile("syscall" : "=a"(ret)
		     : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8)
		     : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall6(long n, long a1, long a2, long a3, long a4, long a5,
			    long a6)
{
	register long r10 asm("r10") = a4;
	register long r8 asm("r8") = a5;
	register long r9 asm("r9") = a6;
	long ret;

	asm volatile("syscall" : "=a"(ret)
		     : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8),
		       "r"(r9)
		     : "rcx", "r11", "memory");
	return ret;
}

/* Each wrapper returns the raw result: a value, or a negative errno. */
long read(int fd, void *buf, size_t count);
long write(int fd, const void *buf, size_t count);
long open(const char *path, int flags, int mode);
long openat(int dirfd, const char *path, int flags, int mode);
long close(int fd);
long fstat(int fd, struct stat *st);
long lseek(int fd, off_t offset, int whence);
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
long munmap(void *addr, size_t len);
long mprotect(void *addr, size_t len, int prot);
long brk(void *addr);
long readv(int fd, const struct iovec *iov, int iovcnt);
long writev(int fd, const struct iovec *iov, int iovcnt);
long ioctl(int fd, unsigned long request, unsigned long arg);
long getpid(void);
long getppid(void);
long gettid(void);
long fork(void);
long vfork(void) __attribute__((returns_twice));
long execve(const char *path, char *const argv[], char *const envp[]);
void exit(int status) __attribute__((noreturn));
void exit_group(int status) __attribute__((noreturn));
long wait4(pid_t pid, int *status, int options, void *rusage);
long kill(pid_t pid, int sig);
long setpgid(pid_t pid, pid_t pgid);
long getpgid(pid_t pid);
long alarm(unsigned int seconds);
long pause(void);
long sched_yield(void);
long sched_getaffinity(pid_t pid, size_t len, void *mask);
long sched_setaffinity(pid_t pid, size_t len, const void *mask);
long process_vm_readv(pid_t pid, const struct iovec *local, unsigned long lcnt,
		      const struct iovec *remote, unsigned long rcnt,
		      unsigned long flags);
long nanosleep(const struct timespec *req, struct timespec *rem);
long clock_nanosleep(int clock, int flags, const struct timespec *req,
		     struct timespec *rem);
long uname(struct utsname *buf);
long arch_prctl(int code, unsigned long addr);
long set_tid_address(int *tidptr);
long getuid(void);
long geteuid(void);
long getgid(void);
long getegid(void);
long reboot(unsigned long magic1, unsigned long magic2, unsigned int cmd,
	    void *arg);
long gettimeofday(struct timeval *tv, struct timezone *tz);
long time(long *t);
long clock_gettime(int clock, struct timespec *ts);
long clock_getres(int clock, struct timespec *ts);
long getcpu(unsigned int *cpu, unsigned int *node, void *cache);
long rt_sigaction(int sig, const struct kernel_sigaction *act,
		  struct kernel_sigaction *old, size_t sigsetsize);
long rt_sigprocmask(int how, const sigset_t *set, sigset_t *old,
		    size_t sigsetsize);
/* rt_sigreturn is the signal restorer: only a handler's ret may enter it */
void rt_sigreturn(void) __attribute__((noreturn));
long sigaltstack(const stack_t *ss, stack_t *old);
long prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4,
	   unsigned long a5);

#endif
