/* The system calls: one prototype each, with Linux's arguments. */
#ifndef CCOS_SYSCALL_H
#define CCOS_SYSCALL_H

#include <ccos/types.h>
#include <ccos/abi.h>
#include <ccos/signal.h>

/*
 * arch/x86/entry/syscall_64.c: the table, each handler called as a
 * six-argument function; which calls run without the kernel lock
 * (struct process's lockless_syscalls).
 */
typedef long (*syscall_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
#define NR_SYSCALLS	512	/* room for every Linux x86-64 number (the last is under 470) */
extern const syscall_fn syscall_table[NR_SYSCALLS];
extern const bool syscall_lockless[NR_SYSCALLS], syscall_lockless_none[NR_SYSCALLS];
long sys_ni_syscall(void);	/* every number with no call: -ENOSYS */
#define SYS_NI	((syscall_fn)(void (*)(void))sys_ni_syscall)

/* arch/x86/entry/common.c: the entry layer */
struct trap_frame;
void syscall_dispatch(struct trap_frame *tf);
void return_to_user_work(struct trap_frame *tf);
void ret_from_fork(void);

/* fs/sys_file.c */
long sys_read(unsigned int fd, char __user *buf, size_t n);
long sys_write(unsigned int fd, const char __user *buf, size_t n);
long sys_close(unsigned int fd);
long sys_fstat(unsigned int fd, struct stat __user *st);
long sys_lseek(unsigned int fd, long off, unsigned int whence);
long sys_ioctl(unsigned int fd, unsigned int req, uint64_t arg);
long sys_readv(unsigned long fd, const struct iovec __user *iov, unsigned long cnt);
long sys_writev(unsigned long fd, const struct iovec __user *iov, unsigned long cnt);
long sys_pread64(unsigned int fd, char __user *buf, size_t n, long pos);
long sys_pwrite64(unsigned int fd, const char __user *buf, size_t n, long pos);
long sys_preadv(unsigned long fd, const struct iovec __user *iov, unsigned long cnt, long pos_l);
long sys_pwritev(unsigned long fd, const struct iovec __user *iov, unsigned long cnt, long pos_l);

/* fs/sys_fd.c, fs/pipe.c, fs/poll.c, fs/select.c */
struct pollfd;
long sys_dup(unsigned int fd);
long sys_dup2(unsigned int oldfd, unsigned int newfd);
long sys_dup3(unsigned int oldfd, unsigned int newfd, int flags);
long sys_fcntl(unsigned int fd, unsigned int cmd, uint64_t arg);
long sys_flock(unsigned int fd, unsigned int op);
long sys_fsync(unsigned int fd);
long sys_fdatasync(unsigned int fd);
long sys_sync(void);
long sys_syncfs(int fd);
long sys_fallocate(int fd, int mode, long offset, long len);
long sys_mlock(uint64_t addr, size_t len);
long sys_mlock2(uint64_t addr, size_t len, int flags);
long sys_munlock(uint64_t addr, size_t len);
long sys_mlockall(int flags);
long sys_munlockall(void);
long sys_pipe(int __user *fds);
long sys_pipe2(int __user *fds, int flags);
long sys_poll(struct pollfd __user *fds, unsigned int n, int timeout_ms);
long sys_select(int nfds, uint64_t __user *in, uint64_t __user *out, uint64_t __user *ex,
		struct timeval __user *tv);
struct sigset_arg;
long sys_pselect6(int nfds, uint64_t __user *in, uint64_t __user *out, uint64_t __user *ex,
		  struct timespec __user *ts, const struct sigset_arg __user *sig);
long sys_ppoll(struct pollfd __user *fds, unsigned int n, const struct timespec __user *ts,
	       const uint64_t __user *sigmask, size_t setsize);

/* fs/sys_fs.c */
long sys_open(const char __user *path, int flags, unsigned int mode);
long sys_openat(int dirfd, const char __user *path, int flags, unsigned int mode);
long sys_creat(const char __user *path, unsigned int mode);
long sys_stat(const char __user *path, struct stat __user *st);
long sys_lstat(const char __user *path, struct stat __user *st);
long sys_newfstatat(int dirfd, const char __user *path, struct stat __user *st, int flags);
long sys_access(const char __user *path, int mode);
long sys_faccessat(int dirfd, const char __user *path, int mode);
long sys_faccessat2(int dirfd, const char __user *path, int mode, int flags);
long sys_mknod(const char __user *path, unsigned int mode, unsigned int dev);
long sys_mknodat(int dirfd, const char __user *path, unsigned int mode, unsigned int dev);
long sys_mkdir(const char __user *path, unsigned int mode);
long sys_mkdirat(int dirfd, const char __user *path, unsigned int mode);
long sys_unlink(const char __user *path);
long sys_unlinkat(int dirfd, const char __user *path, int flags);
long sys_rmdir(const char __user *path);
long sys_rename(const char __user *from, const char __user *to);
long sys_renameat(int olddfd, const char __user *from, int newdfd, const char __user *to);
long sys_renameat2(int olddfd, const char __user *from, int newdfd, const char __user *to,
		   unsigned int flags);
long sys_truncate(const char __user *path, long len);
long sys_ftruncate(unsigned int fd, long len);
long sys_umask(int mask);
long sys_chdir(const char __user *path);
long sys_fchdir(unsigned int fd);
long sys_getcwd(char __user *buf, unsigned long size);
long sys_getdents64(unsigned int fd, void __user *buf, unsigned int size);

/* fs/link.c */
long sys_link(const char __user *old, const char __user *new);
long sys_linkat(int olddfd, const char __user *old, int newdfd, const char __user *new, int flags);

/* fs/statfs.c */
struct statfs;
long sys_statfs(const char __user *path, struct statfs __user *buf);
long sys_fstatfs(unsigned int fd, struct statfs __user *buf);

/* fs/symlink.c */
long sys_symlink(const char __user *target, const char __user *link);
long sys_symlinkat(const char __user *target, int dirfd, const char __user *link);
long sys_readlink(const char __user *path, char __user *buf, int size);
long sys_readlinkat(int dirfd, const char __user *path, char __user *buf, int size);

/* fs/sys_attr.c */
long sys_utimensat(int dirfd, const char __user *path, const struct timespec __user *times,
		   int flags);
long sys_chmod(const char __user *path, unsigned int mode);
long sys_fchmod(unsigned int fd, unsigned int mode);
long sys_fchmodat(int dirfd, const char __user *path, unsigned int mode);
long sys_chown(const char __user *path, unsigned int uid, unsigned int gid);
long sys_lchown(const char __user *path, unsigned int uid, unsigned int gid);
long sys_fchown(unsigned int fd, unsigned int uid, unsigned int gid);
long sys_fchownat(int dirfd, const char __user *path, unsigned int uid, unsigned int gid,
		  int flags);

/* fs/sendfile.c */
long sys_sendfile(int out_fd, int in_fd, long __user *offset, size_t count);

/* mm/sys_mm.c */
long sys_mmap(uint64_t addr, uint64_t len, long prot, long flags, long fd, long off);
long sys_munmap(uint64_t addr, uint64_t len);
long sys_mprotect(uint64_t addr, uint64_t len, long prot);
/* mm/pkeys.c */
long sys_pkey_mprotect(uint64_t addr, uint64_t len, long prot, int pkey);
long sys_pkey_alloc(unsigned long flags, unsigned long init_val);
long sys_pkey_free(int pkey);
long sys_mremap(uint64_t old, uint64_t old_len, uint64_t new_len, long flags, uint64_t new_addr);
long sys_brk(uint64_t brk);
long sys_process_vm_readv(int pid, const struct iovec __user *local, unsigned long nlocal,
			  const struct iovec __user *remote, unsigned long nremote,
			  unsigned long flags);
long sys_process_vm_writev(int pid, const struct iovec __user *local, unsigned long nlocal,
			   const struct iovec __user *remote, unsigned long nremote,
			   unsigned long flags);

/* kernel/fork.c */
long sys_fork(void);
long sys_vfork(void);
long sys_clone(unsigned long flags, uint64_t newsp, int __user *ptid, int __user *ctid,
	       unsigned long tls);

/* kernel/proc.c, kernel/wait.c, kernel/exec.c, kernel/sys_proc.c, kernel/pgrp.c */
long sys_execve(const char __user *path, const char *const __user *argv,
		const char *const __user *envp);
long sys_exit(int code);
long sys_exit_group(int code);
long sys_wait4(int pid, int __user *status, int options, struct rusage __user *ru);
long sys_waitid(int idtype, int id, siginfo_t __user *info, int options, struct rusage __user *ru);
long sys_kill(int pid, int sig);
long sys_setpgid(int pid, int pgid);
long sys_getpgid(int pid);
long sys_getpgrp(void);
long sys_setsid(void);
long sys_getsid(int pid);
long sys_getpid(void);
long sys_getppid(void);
long sys_gettid(void);
long sys_getuid(void);
long sys_geteuid(void);
long sys_getgid(void);
long sys_getegid(void);
long sys_getgroups(int size, unsigned int __user *list);
long sys_setgroups(int size, const unsigned int __user *list);
long sys_setuid(unsigned int uid);
long sys_setgid(unsigned int gid);
long sys_setreuid(unsigned int r, unsigned int e);
long sys_setregid(unsigned int r, unsigned int e);
long sys_setresuid(unsigned int r, unsigned int e, unsigned int s);
long sys_setresgid(unsigned int r, unsigned int e, unsigned int s);
long sys_getresuid(unsigned int __user *r, unsigned int __user *e, unsigned int __user *s);
long sys_getresgid(unsigned int __user *r, unsigned int __user *e, unsigned int __user *s);
long sys_setfsuid(unsigned int uid);
long sys_setfsgid(unsigned int gid);
long sys_getpriority(int which, int who);
long sys_setpriority(int which, int who, int nice);
struct cap_header;
struct cap_data;
long sys_capget(struct cap_header __user *h, struct cap_data __user *data);
long sys_capset(struct cap_header __user *h, const struct cap_data __user *data);
long sys_uname(struct utsname __user *u);
long sys_arch_prctl(int code, uint64_t addr);
long sys_set_tid_address(int __user *tidptr);
long sys_reboot(int magic1, int magic2, unsigned int cmd, void __user *arg);
long sys_prctl(int option, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);
long sys_personality(unsigned int persona);
long sys_syslog(int type, char __user *buf, int len);
long sys_getcpu(unsigned __user *cpu, unsigned __user *node, void __user *tcache);

/* kernel/sched/sched.c */
long sys_sched_yield(void);
long sys_sched_getaffinity(int pid, unsigned int len, void __user *mask);
long sys_sched_setaffinity(int pid, unsigned int len, const void __user *mask);

/* drivers/char/random.c; mm/sys_mm.c */
long sys_getrandom(void __user *buf, size_t len, unsigned int flags);
long sys_madvise(uint64_t addr, size_t len, int advice);
long sys_msync(uint64_t addr, size_t len, int flags);
long sys_sched_setparam(int pid, const int __user *param);
long sys_sched_getparam(int pid, int __user *param);
long sys_sched_setscheduler(int pid, int policy, const int __user *param);
long sys_sched_getscheduler(int pid);
long sys_sched_get_priority_max(int policy);
long sys_sched_get_priority_min(int policy);
long sys_shmget(int key, uint64_t size, int flags);
long sys_shmat(int id, uint64_t addr, int flags);
long sys_shmdt(uint64_t addr);
long sys_shmctl(int id, int cmd, void __user *buf);

/* kernel/sys_info.c */
struct sysinfo;
struct rlimit64;
long sys_sysinfo(struct sysinfo __user *info);
long sys_prlimit64(int pid, unsigned int resource, const struct rlimit64 __user *new,
		   struct rlimit64 __user *old);
long sys_getrlimit(unsigned int resource, struct rlimit64 __user *old);
long sys_setrlimit(unsigned int resource, const struct rlimit64 __user *new);

/* kernel/sched/cputime.c */
long sys_getrusage(int who, struct rusage __user *ru);
long sys_times(struct tms __user *buf);

/* kernel/time/sys_time.c */
long sys_gettimeofday(struct timeval __user *tv, struct timezone __user *tz);
long sys_settimeofday(const struct timeval __user *tv, const struct timezone __user *tz);
long sys_clock_settime(int clock, const struct timespec __user *ts);
long sys_time(int64_t __user *t);
/* kernel/time/ntp.c */
struct timex;
long sys_adjtimex(struct timex __user *tx);
long sys_clock_adjtime(clockid_t clock, struct timex __user *tx);
long sys_clock_gettime(int clock, struct timespec __user *ts);
long sys_clock_getres(int clock, struct timespec __user *ts);
long sys_nanosleep(const struct timespec __user *req, struct timespec __user *rem);
long sys_clock_nanosleep(int clock, int flags, const struct timespec __user *req,
			 struct timespec __user *rem);
long sys_alarm(unsigned int seconds);
long sys_getitimer(int which, struct itimerval __user *v);
long sys_setitimer(int which, const struct itimerval __user *v, struct itimerval __user *old);
struct sigevent;
long sys_timer_create(clockid_t clock, struct sigevent __user *ev, int __user *id);
long sys_timer_settime(int id, int flags, const struct itimerspec __user *v,
		       struct itimerspec __user *old);
long sys_timer_gettime(int id, struct itimerspec __user *v);
long sys_timer_getoverrun(int id);
long sys_timer_delete(int id);

/* kernel/signal/signal.c */
long sys_rt_sigaction(int sig, const struct k_sigaction __user *act,
		      struct k_sigaction __user *old, size_t setsize);
long sys_rt_sigprocmask(int how, const uint64_t __user *set, uint64_t __user *old,
			size_t setsize);
long sys_rt_sigreturn(void);
long sys_sigaltstack(const stack_t __user *ss, stack_t __user *old);
long sys_rt_sigpending(uint64_t __user *set, size_t setsize);
long sys_rt_sigtimedwait(const uint64_t __user *set, siginfo_t __user *info,
			 const struct timespec __user *timeout, size_t setsize);
long sys_rt_sigsuspend(const uint64_t __user *mask, size_t setsize);
long sys_pause(void);

/* kernel/thread.c */
long sys_tkill(int tid, int sig);
long sys_tgkill(int tgid, int tid, int sig);
long sys_rt_sigqueueinfo(int pid, int sig, const siginfo_t __user *info);
long sys_rt_tgsigqueueinfo(int tgid, int tid, int sig, const siginfo_t __user *info);

/* kernel/futex/futex.c */
long sys_futex(uint32_t __user *uaddr, int op, uint32_t val, const struct timespec __user *utime,
	       uint32_t __user *uaddr2, uint32_t val3);
long sys_set_robust_list(uint64_t head, size_t len);
long sys_get_robust_list(int tid, uint64_t __user *head, size_t __user *len);
struct futex_waitv;
long sys_futex_waitv(const struct futex_waitv __user *waiters, unsigned int n, unsigned int flags,
		     const struct timespec __user *timeout, int clock);

#endif
