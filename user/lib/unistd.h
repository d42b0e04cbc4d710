/* System calls of the shell and its commands: pipes, descriptors, process groups, the terminal, directories. */
#ifndef USER_UNISTD_H
#define USER_UNISTD_H

#include "linux.h"
#include <asm/unistd_64.h>

#define O_APPEND	02000
#define O_NONBLOCK	04000
#define O_EXCL		0200
#define F_DUPFD		0
#define F_GETFD		1
#define F_SETFD		2
#define F_GETFL		3
#define F_SETFL		4
#define F_DUPFD_CLOEXEC	1030
#define FD_CLOEXEC	1
#define EPIPE		32
#define ENOSPC		28
#define ENOTEMPTY	39
#define EROFS		30

#define POLLIN		0x001
#define POLLOUT		0x004
#define POLLERR		0x008
#define POLLHUP		0x010
#define POLLNVAL	0x020
struct pollfd {
	int fd;
	short events, revents;
};

/* The terminal (asm-generic/ioctls.h, termbits.h): the kernel's struct termios. */
#define TCGETS		0x5401
#define TCSETS		0x5402
#define TIOCGPGRP	0x540f
#define TIOCSPGRP	0x5410
#define TIOCGWINSZ	0x5413
#define TIOCSWINSZ	0x5414
#define ICANON		0000002
#define ECHO		0000010
#define ISIG		0000001
#define VMIN		6
#define VTIME		5
struct termios {
	unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
	unsigned char c_line;
	unsigned char c_cc[19];
};
struct winsize {
	unsigned short ws_row, ws_col, ws_xpixel, ws_ypixel;
};

long pipe(int fds[2]);
long pipe2(int fds[2], int flags);
long dup(int fd);
long dup2(int oldfd, int newfd);
long dup3(int oldfd, int newfd, int flags);
long fcntl(int fd, int cmd, long arg);
long poll(struct pollfd *fds, unsigned long n, int timeout_ms);
long getpgrp(void);
long setsid(void);
long getsid(pid_t pid);
long tcgetpgrp(int fd);
long tcsetpgrp(int fd, pid_t pgrp);
long chdir(const char *path);
long getcwd(char *buf, size_t size);
/* As POSIX names them (ktap.c uses them): wait4 without rusage; exit_group. */
long waitpid(pid_t pid, int *status, int options);
void _exit(int status) __attribute__((noreturn));

#endif
