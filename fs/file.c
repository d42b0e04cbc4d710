/* File objects: GRUB modules as read-only files (fs/modules.c finds them), generated /proc files, the descriptor table. */
#include <ccos/file.h>
#include <ccos/path.h>
#include <ccos/proc.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/uaccess.h>
#include <ccos/time.h>

/* Reading a module or a generated text: bytes from the offset on. */
static ssize_t memory_read(struct file *f, char __user *buf, size_t n)
{
	if (f->offset >= f->size)
		return 0;
	n = MIN(n, f->size - f->offset);
	if (copy_to_user(buf, f->data + f->offset, n))
		return -EFAULT;
	f->offset += n;
	return n;
}

static const struct file_ops module_ops = { .read = memory_read };

static void generated_release(struct file *f)
{
	kfree((void *)f->data);
}

static const struct file_ops generated_ops = { .read = memory_read, .release = generated_release };

struct file *file_new(const struct file_ops *ops, const void *data, size_t size)
{
	struct file *f = kzalloc(sizeof(*f));

	if (f) {
		f->ops = ops;
		f->refs = 1;
		f->data = data;
		f->size = size;
	}
	return f;
}

struct file *file_open_path(const char *path, int flags, long *err)
{
	const struct module_file *m = module_lookup(path);
	struct file *f = NULL;
	size_t len;
	char *text = NULL;

	if (m) {
		*err = (flags & O_ACCMODE) != 0 ? -EROFS : 0;
		if (!*err && !(f = file_new(&module_ops, m->data, m->size)))
			*err = -ENOMEM;
		if (f)
			f->priv = (void *)m;
		return f;
	}
	if ((f = dev_open(path, err)) || *err != -ENOENT)
		return f;
	if ((f = link_open(path, err)) || *err != -ENOENT)
		return f;
	if ((*err = procfs_generate(path, &text, &len)) != -ENOENT) {
		if (!*err && (flags & O_ACCMODE) != 0)
			*err = -EACCES;
		if (!*err && !(f = file_new(&generated_ops, text, len)))
			*err = -ENOMEM;
		if (!f)
			kfree(text);
		return f;
	}
	*err = (flags & O_CREAT) ? -EROFS : -ENOENT;
	return NULL;
}

struct file *file_get(struct file *f)
{
	f->refs++;
	return f;
}

void file_put(struct file *f)
{
	if (--f->refs)
		return;
	locks_release(f);
	if (f->ops->release)
		f->ops->release(f);
	kfree(f->path);
	kfree(f);
}

int fd_install(struct file *f)
{
	struct process *p = current();
	int fd;

	for (fd = 0; fd < (int)fd_limit(p); fd++) {
		if (!p->files->fd[fd]) {
			p->files->fd[fd] = f;
			fd_set_cloexec(p->files, fd, false);
			return fd;
		}
	}
	return -EMFILE;
}

/*
 * What fstat says: the file's own answer, or a read-only regular file's.
 * The inode number of a module is its place among the modules, from 1 (0
 * means none to some programs); of a /proc text, its path's hash cut to
 * 32 bits: stable and small, as Linux's /proc numbers are. Never an
 * address, which would tell user space where the kernel keeps things.
 * A file with no times of its own (a module, a directory of the tree, a
 * device) is dated from the boot, when the modules were loaded; a /proc
 * text from now, when it was made.
 */
void file_stat(struct file *f, struct stat *st)
{
	bool module = f->ops == &module_ops;

	if (f->ops == &generated_ops)
		do_clock_gettime(CLOCK_REALTIME, &st->st_mtim);
	else
		ktime_boot_wall(&st->st_mtim);
	st->st_atim = st->st_ctim = st->st_mtim;
	if (f->ops->stat) {
		f->ops->stat(f, st);
		return;
	}
	st->st_mode = S_IFREG | (module ? 0555 : 0444);
	st->st_size = f->size;
	st->st_blocks = (f->size + 511) / 512;
	st->st_ino = module ? module_ino(f->priv) :
		     (uint32_t)path_ino(f->path);
}

/*
 * Descriptor fd's file, with a reference the caller drops (file_put) when
 * its call ends; NULL if fd is not open. The reference is what keeps the
 * file alive while the call sleeps and another thread closes fd.
 */
struct file *fd_get(unsigned int fd)
{
	struct file *f = fd < NOFILE ? current()->files->fd[fd] : NULL;

	return f ? file_get(f) : NULL;
}
