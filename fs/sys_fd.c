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
	return WITH_FILE(fd, f, dup_from(f, 0, false));
}

static long dup_to(struct file *f, unsigned int oldfd, unsigned int newfd, int flags)
{
	struct process *p = current();
	struct file *old;

	if (newfd >= NOFILE)
		return -EBADF;
	if (oldfd == newfd)
		return -EINVAL;
	/* The new file is in the table before the old one is let go. */
	old = p->files->fd[newfd];
	p->files->fd[newfd] = file_get(f);
	set_cloexec(p, newfd, flags & O_CLOEXEC);
	if (old)
		file_put(old);
	return newfd;
}

long sys_dup3(unsigned int oldfd, unsigned int newfd, int flags)
{
	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	return WITH_FILE(oldfd, f, dup_to(f, oldfd, newfd, flags));
}

long sys_dup2(unsigned int oldfd, unsigned int newfd)
{
	if (oldfd == newfd)
		return WITH_FILE(oldfd, f, newfd);
	return sys_dup3(oldfd, newfd, 0);
}

static long file_fcntl(struct file *f, unsigned int fd, unsigned int cmd, uint64_t arg)
{
	struct process *p = current();

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

long sys_fcntl(unsigned int fd, unsigned int cmd, uint64_t arg)
{
	return WITH_FILE(fd, f, file_fcntl(f, fd, cmd, arg));
}

/* After a successful exec: the descriptors marked close-on-exec go. */
void close_on_exec(struct process *p)
{
	int fd;

	for (fd = 0; fd < NOFILE; fd++) {
		struct file *f = p->files->fd[fd];

		if (f && ((p->files->cloexec >> fd) & 1)) {
			p->files->fd[fd] = NULL;
			file_put(f);
		}
	}
	p->files->cloexec = 0;
}
