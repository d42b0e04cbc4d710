/* File objects: GRUB modules as read-only files, the serial console, generated /proc files. */
#include <ccos/file.h>
#include <ccos/boot.h>
#include <ccos/proc.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/uaccess.h>
#include <ccos/time.h>

static struct module_file modules[MAX_MODULES];
static int n_modules;

void files_init(void)
{
	int i;

	for (i = 0; i < boot_info.n_modules; i++) {
		const struct boot_module *m = &boot_info.modules[i];

		if (m->name[0] != '/') {
			printk(KERN_WARNING "warning: module \"%s\" is not an absolute path such as /bin/init; ignored\n",
			       m->name);
			continue;
		}
		modules[n_modules++] = (struct module_file){
			m->name, phys_to_virt(m->start), m->end - m->start,
		};
	}
}

const struct module_file *module_lookup(const char *path)
{
	int i;

	for (i = 0; i < n_modules; i++)
		if (!strcmp(modules[i].name, path))
			return &modules[i];
	return NULL;
}

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

/* The console: fd 0 reads COM1, fds 1 and 2 write to it. */
static ssize_t console_read(struct file *f, char __user *buf, size_t n)
{
	char c;
	int ch;

	(void)f;
	if (!n)
		return 0;
	while ((ch = serial_getc()) < 0) {
		sleep_until(NULL, ktime_get_ns() + 10 * NSEC_PER_MSEC);
		if (signal_pending(current()))
			return -EINTR;
	}
	c = ch == '\r' ? '\n' : ch;
	return copy_to_user(buf, &c, 1) ? -EFAULT : 1;
}

static ssize_t console_file_write(struct file *f, const char __user *buf, size_t n)
{
	char chunk[256];
	size_t done = 0;

	(void)f;
	while (done < n) {
		size_t len = MIN(n - done, sizeof(chunk));

		if (copy_from_user(chunk, buf + done, len))
			return done ? (ssize_t)done : -EFAULT;
		console_write(chunk, len);
		done += len;
	}
	return done;
}

#define TCGETS		0x5401
#define TIOCGWINSZ	0x5413

/* A libc asks a console for its window size (isatty) and terminal modes. */
static long console_ioctl(struct file *f, unsigned long req, uint64_t arg)
{
	static const uint16_t winsize[4] = { 24, 80, 0, 0 };	/* rows, columns */
	uint8_t termios[60] = { 0 };

	(void)f;
	if (req == TIOCGWINSZ)
		return copy_to_user((void __user *)arg, winsize, sizeof(winsize)) ? -EFAULT : 0;
	if (req == TCGETS)
		return copy_to_user((void __user *)arg, termios, sizeof(termios)) ? -EFAULT : 0;
	return -ENOTTY;
}

static const struct file_ops console_ops = {
	.read = console_read, .write = console_file_write, .ioctl = console_ioctl,
};

static struct file *file_new(const struct file_ops *ops, const void *data, size_t size)
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

struct file *console_file(void)
{
	struct file *f = file_new(&console_ops, NULL, 0);

	if (f)
		f->is_console = true;
	return f;
}

struct file *file_open_path(const char *path, int flags, long *err)
{
	const struct module_file *m = module_lookup(path);
	struct file *f = NULL;
	size_t len;
	char *text;

	if (m) {
		*err = (flags & O_ACCMODE) != 0 ? -EROFS : 0;
		if (!*err && !(f = file_new(&module_ops, m->data, m->size)))
			*err = -ENOMEM;
		return f;
	}
	if ((text = procfs_generate(path, &len))) {
		*err = (flags & O_ACCMODE) != 0 ? -EACCES : 0;
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
	if (f->ops->release)
		f->ops->release(f);
	kfree(f);
}

int fd_install(struct file *f)
{
	struct process *p = current();
	int fd;

	for (fd = 0; fd < NOFILE; fd++) {
		if (!p->files[fd]) {
			p->files[fd] = f;
			return fd;
		}
	}
	return -EMFILE;
}
