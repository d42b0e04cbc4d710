/* Wrappers for the system calls in unistd.h. */
#include "syscall.h"
#include "unistd.h"

#define L(x)	((long)(x))

long pipe(int fds[2])
{
	return syscall1(__NR_pipe, L(fds));
}

long pipe2(int fds[2], int flags)
{
	return syscall2(__NR_pipe2, L(fds), flags);
}

long dup(int fd)
{
	return syscall1(__NR_dup, fd);
}

long dup2(int oldfd, int newfd)
{
	return syscall2(__NR_dup2, oldfd, newfd);
}

long dup3(int oldfd, int newfd, int flags)
{
	return syscall3(__NR_dup3, oldfd, newfd, flags);
}

long fcntl(int fd, int cmd, long arg)
{
	return syscall3(__NR_fcntl, fd, cmd, arg);
}

long poll(struct pollfd *fds, unsigned long n, int timeout_ms)
{
	return syscall3(__NR_poll, L(fds), n, timeout_ms);
}

long getpgrp(void)
{
	return syscall0(__NR_getpgrp);
}

long setsid(void)
{
	return syscall0(__NR_setsid);
}

long getsid(pid_t pid)
{
	return syscall1(__NR_getsid, pid);
}

long tcgetpgrp(int fd)
{
	int pgrp;
	long r = syscall3(__NR_ioctl, fd, TIOCGPGRP, L(&pgrp));

	return r < 0 ? r : pgrp;
}

long tcsetpgrp(int fd, pid_t pgrp)
{
	int v = pgrp;

	return syscall3(__NR_ioctl, fd, TIOCSPGRP, L(&v));
}

long chdir(const char *path)
{
	return syscall1(__NR_chdir, L(path));
}

long getcwd(char *buf, size_t size)
{
	return syscall2(__NR_getcwd, L(buf), size);
}

long waitpid(pid_t pid, int *status, int options)
{
	return wait4(pid, status, options, NULL);
}

void _exit(int status)
{
	exit_group(status);
}
