/* The system calls: one prototype each, with Linux's arguments. */
#ifndef CCOS_SYSCALL_H
#define CCOS_SYSCALL_H

#include <ccos/types.h>
#include <ccos/abi.h>
#include <ccos/signal.h>

struct trap_frame;
void syscall_dispatch(struct trap_frame *tf);

/* kernel/sys_file.c */
long sys_read(long fd, char __user *buf, size_t n);
long sys_write(long fd, const char __user *buf, size_t n);
long sys_open(const char __user *path, long flags, long mode);
long sys_openat(long dirfd, const char __user *path, long flags, long mode);
long sys_close(long fd);
long sys_fstat(long fd, struct stat __user *st);
long sys_lseek(long fd, long off, long whence);
long sys_ioctl(long fd, unsigned long req, uint64_t arg);
long sys_readv(long fd, const struct iovec __user *iov, long cnt);
long sys_writev(long fd, const struct iovec __user *iov, long cnt);

/* kernel/sys_mm.c */
long sys_mmap(uint64_t addr, uint64_t len, long prot, long flags, long fd, long off);
long sys_munmap(uint64_t addr, uint64_t len);
long sys_mprotect(uint64_t addr, uint64_t len, long prot);
long sys_brk(uint64_t brk);
long sys_process_vm_readv(long pid, const struct iovec __user *local, unsigned long nlocal,
			  const struct iovec __user *remote, unsigned long nremote,
			  unsigned long flags);

/* kernel/proc.c, kernel/exec.c, kernel/sys_proc.c */
long sys_fork(void);
long sys_vfork(void);
long sys_execve(const char __user *path, const char *const __user *argv,
		const char *const __user *envp);
long sys_exit(long code);
long sys_exit_group(long code);
long sys_wait4(long pid, int __user *status, long options, void __user *rusage);
long sys_kill(long pid, long sig);
long sys_getpid(void);
long sys_getppid(void);
long sys_gettid(void);
long sys_getuid(void);
long sys_geteuid(void);
long sys_getgid(void);
long sys_getegid(void);
long sys_sched_yield(void);
long sys_sched_getaffinity(long pid, unsigned long len, void __user *mask);
long sys_sched_setaffinity(long pid, unsigned long len, const void __user *mask);
long sys_uname(struct utsname __user *u);
long sys_arch_prctl(long code, uint64_t addr);
long sys_set_tid_address(int __user *tidptr);
long sys_reboot(long magic1, long magic2, long cmd, void __user *arg);
long sys_prctl(long option, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);
long sys_personality(unsigned long persona);
long sys_syslog(long type, char __user *buf, long len);
long sys_pipe(int __user *fds);
long sys_dup2(long oldfd, long newfd);
long sys_getcpu(unsigned __user *cpu, unsigned __user *node, void __user *tcache);

/* kernel/sys_libc.c */
long sys_getcwd(char __user *buf, unsigned long size);
long sys_getrandom(void __user *buf, size_t len, unsigned long flags);
long sys_madvise(uint64_t addr, size_t len, long advice);

/* kernel/sys_time.c */
long sys_gettimeofday(struct timeval __user *tv, struct timezone __user *tz);
long sys_time(int64_t __user *t);
long sys_clock_gettime(long clock, struct timespec __user *ts);
long sys_clock_getres(long clock, struct timespec __user *ts);
long sys_nanosleep(const struct timespec __user *req, struct timespec __user *rem);
long sys_clock_nanosleep(long clock, long flags, const struct timespec __user *req,
			 struct timespec __user *rem);
long sys_alarm(unsigned long seconds);

/* kernel/signal.c */
long sys_rt_sigaction(long sig, const struct k_sigaction __user *act,
		      struct k_sigaction __user *old, size_t setsize);
long sys_rt_sigprocmask(long how, const uint64_t __user *set, uint64_t __user *old,
			size_t setsize);
long sys_rt_sigreturn(void);
long sys_sigaltstack(const stack_t __user *ss, stack_t __user *old);
long sys_rt_sigpending(uint64_t __user *set, size_t setsize);
long sys_rt_sigsuspend(const uint64_t __user *mask, size_t setsize);
long sys_pause(void);
long sys_tkill(long tid, long sig);
long sys_tgkill(long tgid, long tid, long sig);

#endif
