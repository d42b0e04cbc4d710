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
#define TCSETS		0x5402
#define TCSETSW		0x5403
#define TCSETSF		0x5404
#define TIOCGPGRP	0x540f
#define TIOCSPGRP	0x5410
#define TIOCGWINSZ	0x5413

/*
 * Linux's kernel struct termios (asm-generic/termbits.h), which TCGETS
 * copies: 36 bytes. glibc's and musl's struct termios are larger (speeds,
 * a longer c_cc), and glibc passes the kernel's size: a larger copy would
 * write past its buffer.
 */
struct ktermios {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[19];
};
BUILD_BUG_ON(sizeof(struct ktermios) != 36);

struct winsize {
	uint16_t ws_row, ws_col, ws_xpixel, ws_ypixel;
};
BUILD_BUG_ON(sizeof(struct winsize) != 8);

/*
 * A serial console's modes as Linux starts them (tty_std_termios): ICRNL
 * IXON; OPOST ONLCR; B38400 CS8 CREAD HUPCL; ISIG ICANON ECHO ECHOE ECHOK
 * ECHOCTL ECHOKE IEXTEN; ^C ^\ DEL ^U ^D, VMIN 1, ^Q ^S ^Z, ^R ^O ^W ^V.
 */
static struct ktermios console_termios = {
	02400, 05, 02277, 0105073, 0,
	{ 3, 034, 0177, 025, 4, 0, 1, 0, 021, 023, 032, 0, 022, 017, 027, 026 },
};

/* A libc asks a console for its window size (isatty), its modes and its foreground group. */
static long console_ioctl(struct file *f, unsigned int req, uint64_t arg)
{
	static const struct winsize winsize = { 24, 80, 0, 0 };
	void __user *uarg = (void __user *)arg;
	struct ktermios t;
	int pgrp;

	(void)f;
	switch (req) {
	case TIOCGWINSZ:
		return copy_to_user(uarg, &winsize, sizeof(winsize)) ? -EFAULT : 0;
	case TCGETS:
		return copy_to_user(uarg, &console_termios, sizeof(t)) ? -EFAULT : 0;
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
		if (copy_from_user(&t, uarg, sizeof(t)))
			return -EFAULT;
		console_termios = t;	/* kept for TCGETS; the console itself stays raw */
		return 0;
	case TIOCGPGRP:
		pgrp = current()->pgid;		/* no job control: the caller's group is in front */
		return copy_to_user(uarg, &pgrp, sizeof(pgrp)) ? -EFAULT : 0;
	case TIOCSPGRP:
		return copy_from_user(&pgrp, uarg, sizeof(pgrp)) ? -EFAULT : 0;
	}
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
	char *text = NULL;

	if (m) {
		*err = (flags & O_ACCMODE) != 0 ? -EROFS : 0;
		if (!*err && !(f = file_new(&module_ops, m->data, m->size)))
			*err = -ENOMEM;
		return f;
	}
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
