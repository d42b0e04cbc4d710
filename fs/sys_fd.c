/* The descriptor table's system calls: dup, dup2, dup3, fcntl, and close-on-exec at exec. */
#include <ccos/file.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>

#define F_DUPFD		0
#define F_GETFD		1
#define F_SETFD		2
#define F_GETFL		3
#define F_SETFL		4
#define F_DUPFD_CLOEXEC	1030
#define F_SETPIPE_SZ	1031
#define F_GETPIPE_SZ	1032
#define SETFL_FLAGS	(O_APPEND | O_NONBLOCK | O_DIRECT)
#define FD_CLOEXEC	1

/* The lowest free descriptor at or above min. */
static long dup_from(struct file *f, unsigned long min, bool cloexec)
{
	struct process *p = current();
	unsigned int fd, limit = fd_limit(p);

	if (min >= limit)
		return -EINVAL;		/* as Linux for a minimum past RLIMIT_NOFILE */
	for (fd = min; fd < limit; fd++) {
		if (!p->files->fd[fd]) {
			p->files->fd[fd] = file_get(f);
			fd_set_cloexec(p->files, fd, cloexec);
			return fd;
		}
	}
	return -EMFILE;
}

long sys_dup(unsigned int fd)
{
	return WITH_FILE(fd, f, dup_from(f, 0, false));
}

static long dup_to(struct file *f, unsigned int newfd, int flags)
{
	struct process *p = current();
	struct file *old;

	if (newfd >= fd_limit(p))
		return -EBADF;
	/* The new file is in the table before the old one is let go. */
	old = p->files->fd[newfd];
	p->files->fd[newfd] = file_get(f);
	fd_set_cloexec(p->files, newfd, flags & O_CLOEXEC);
	if (old) {
		locks_close(old, p->files);
		file_put(old);
	}
	return newfd;
}

long sys_dup3(unsigned int oldfd, unsigned int newfd, int flags)
{
	if ((flags & ~O_CLOEXEC) || oldfd == newfd)	/* as Linux: before oldfd is looked at */
		return -EINVAL;
	return WITH_FILE(oldfd, f, dup_to(f, newfd, flags));
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
		return fd_cloexec(p->files, fd) ? FD_CLOEXEC : 0;
	case F_SETFD:
		fd_set_cloexec(p->files, fd, arg & FD_CLOEXEC);
		return 0;
	case F_GETFL:
		return f->flags;
	case F_SETFL:		/* as Linux: only these change; the rest is ignored */
		f->flags = (f->flags & ~SETFL_FLAGS) | (arg & SETFL_FLAGS);
		return 0;
	case F_SETPIPE_SZ:
	case F_GETPIPE_SZ:
		return pipe_fcntl_size(f, cmd == F_SETPIPE_SZ, arg);
	}
	return file_lock_fcntl(f, cmd, arg);
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

		if (f && fd_cloexec(p->files, fd)) {
			p->files->fd[fd] = NULL;
			locks_close(f, p->files);
			file_put(f);
		}
	}
	memset(p->files->cloexec, 0, sizeof(p->files->cloexec));
}
