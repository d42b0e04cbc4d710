/* The descriptor table's system calls: dup, dup2, dup3, fcntl, and close-on-exec at exec. */
#include <ccos/file.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>

#define F_DUPFD		0
#define F_GETFD		1
#define F_SETFD		2
#define F_GETFL		3
#define F_SETFL		4
#define F_DUPFD_CLOEXEC	1030
#define FD_CLOEXEC	1

static void set_cloexec(struct process *p, int fd, bool on)
{
	if (on)
		p->files->cloexec |= 1ull << fd;
	else
		p->files->cloexec &= ~(1ull << fd);
}

/* The lowest free descriptor at or above min. */
static long dup_from(struct file *f, unsigned long min, bool cloexec)
{
	struct process *p = current();
	unsigned int fd;

	if (min >= NOFILE)
		return -EINVAL;		/* as Linux for a minimum past RLIMIT_NOFILE */
	for (fd = min; fd < NOFILE; fd++) {
		if (!p->files->fd[fd]) {
			p->files->fd[fd] = file_get(f);
			set_cloexec(p, fd, cloexec);
			return fd;
		}
	}
	return -EMFILE;
}

long sys_dup(unsigned int fd)
{
	struct file *f = fd_file(fd);

	return f ? dup_from(f, 0, false) : -EBADF;
}

long sys_dup3(unsigned int oldfd, unsigned int newfd, int flags)
{
	struct process *p = current();
	struct file *f = fd_file(oldfd);

	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	if (!f)
		return -EBADF;
	if (newfd >= NOFILE)
		return -EBADF;
	if (oldfd == newfd)
		return -EINVAL;
	if (p->files->fd[newfd])
		file_put(p->files->fd[newfd]);
	p->files->fd[newfd] = file_get(f);
	set_cloexec(p, newfd, flags & O_CLOEXEC);
	return newfd;
}

long sys_dup2(unsigned int oldfd, unsigned int newfd)
{
	if (oldfd == newfd)
		return fd_file(oldfd) ? (long)newfd : -EBADF;
	return sys_dup3(oldfd, newfd, 0);
}

long sys_fcntl(unsigned int fd, unsigned int cmd, uint64_t arg)
{
	struct process *p = current();
	struct file *f = fd_file(fd);

	if (!f)
		return -EBADF;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		return dup_from(f, arg, cmd == F_DUPFD_CLOEXEC);
	case F_GETFD:
		return (p->files->cloexec >> fd) & 1 ? FD_CLOEXEC : 0;
	case F_SETFD:
		set_cloexec(p, fd, arg & FD_CLOEXEC);
		return 0;
	case F_GETFL:
		return f->flags;
	case F_SETFL:		/* as Linux: only these two change; the rest is ignored */
		f->flags = (f->flags & ~(O_APPEND | O_NONBLOCK)) | (arg & (O_APPEND | O_NONBLOCK));
		return 0;
	}
	return -EINVAL;
}

/* After a successful exec: the descriptors marked close-on-exec go. */
void close_on_exec(struct process *p)
{
	int fd;

	for (fd = 0; fd < NOFILE; fd++) {
		if (p->files->fd[fd] && ((p->files->cloexec >> fd) & 1)) {
			file_put(p->files->fd[fd]);
			p->files->fd[fd] = NULL;
		}
	}
	p->files->cloexec = 0;
}
