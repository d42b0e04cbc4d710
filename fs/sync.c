/* fsync, fdatasync, sync, syncfs and fallocate: what they mean where every file lives in memory. */
#include <ccos/file.h>
#include <ccos/syscall.h>
#include <ccos/tmpfs.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/mm.h>

#define FALLOC_FL_KEEP_SIZE	1

/*
 * ccos has no disk: /tmp is tmpfs and everything else is read-only
 * memory, so a file's data is where a sync would write it, and the sync
 * calls succeed at once, as they do on Linux's tmpfs. What they check is
 * Linux's: a descriptor that is not open is EBADF; fsync of a pipe or a
 * terminal, which have no file to write back, is EINVAL.
 */
static long file_sync(struct file *f)
{
	return f->ops->stream ? -EINVAL : 0;
}

long sys_fsync(unsigned int fd)
{
	return WITH_FILE(fd, f, file_sync(f));
}

long sys_fdatasync(unsigned int fd)
{
	return WITH_FILE(fd, f, file_sync(f));
}

long sys_sync(void)
{
	return 0;
}

long sys_syncfs(int fd)
{
	return WITH_FILE(fd, f, 0);
}

/*
 * fallocate on a /tmp file: mode 0 makes the file at least offset + len
 * long, FALLOC_FL_KEEP_SIZE leaves its size; either way the pages must
 * fit in /tmp (ENOSPC), as Linux's tmpfs reserves them. tmpfs gives a page
 * at the first write, so nothing is taken now. Other modes (punching
 * holes, collapsing ranges) are EOPNOTSUPP. As Linux: offset < 0 or
 * len <= 0 is EINVAL, a file not open for writing EBADF, a pipe ESPIPE,
 * a directory EISDIR, any other file ENODEV.
 */
static long file_fallocate(struct file *f, int mode, long offset, long len)
{
	struct tnode *n = tmpfs_node(f);
	struct tmpfs_usage u = tmpfs_usage();
	struct stat st = { 0 };
	long end;

	if (offset < 0 || len <= 0)
		return -EINVAL;
	if (mode & ~FALLOC_FL_KEEP_SIZE)
		return -EOPNOTSUPP;
	if (!(f->flags & O_ACCMODE))
		return -EBADF;
	if (f->ops->stream)
		return -ESPIPE;
	file_stat(f, &st);
	if ((st.st_mode & S_IFMT) == S_IFDIR)
		return -EISDIR;
	if (!n || (st.st_mode & S_IFMT) != S_IFREG)
		return -ENODEV;
	if (__builtin_add_overflow(offset, len, &end))
		return -EFBIG;
	if ((uint64_t)(end - 1) / PAGE_SIZE - offset / PAGE_SIZE + 1 > u.max_pages - u.pages)
		return -ENOSPC;
	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > st.st_size)
		return tmpfs_truncate(n, end);
	return 0;
}

long sys_fallocate(int fd, int mode, long offset, long len)
{
	return WITH_FILE(fd, f, file_fallocate(f, mode, offset, len));
}
