/* Device files in /dev: null, zero, tty (the console, the only terminal) and rtc0 (drivers/char/rtc.c). */
#include <ccos/file.h>
#include <ccos/tty.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>

/* /dev/null: reads end at once, writes vanish. */
static ssize_t null_read(struct file *f, char __user *buf, size_t n)
{
	(void)f, (void)buf, (void)n;
	return 0;
}

static ssize_t null_write(struct file *f, const char __user *buf, size_t n)
{
	(void)f, (void)buf;
	return n;
}

/* /dev/zero: as many zero bytes as asked for. */
static ssize_t zero_read(struct file *f, char __user *buf, size_t n)
{
	static const char zeros[256];
	size_t done = 0, len;

	(void)f;
	for (; done < n; done += len) {
		len = MIN(n - done, sizeof(zeros));
		if (copy_to_user(buf + done, zeros, len))
			return done ? (ssize_t)done : -EFAULT;
	}
	return done;
}

/* Character devices 1:3 and 1:5, as Linux numbers them. */
static void null_stat(struct file *f, struct stat *st)
{
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = (1 << 8) | 3;
	(void)f;
}

static void zero_stat(struct file *f, struct stat *st)
{
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = (1 << 8) | 5;
	(void)f;
}

static const struct file_ops null_ops = {
	.read = null_read, .write = null_write, .stat = null_stat, .stream = true,
};
static const struct file_ops zero_ops = {
	.read = zero_read, .write = null_write, .stat = zero_stat, .stream = true,
};

/* The device file at path, or NULL with *err (-ENOENT: no such device). */
struct file *dev_open(const char *path, long *err)
{
	struct file *f;

	if (!strcmp(path, "/dev/tty"))
		f = console_file();
	else if (!strcmp(path, "/dev/null"))
		f = file_new(&null_ops, NULL, 0);
	else if (!strcmp(path, "/dev/zero"))
		f = file_new(&zero_ops, NULL, 0);
	else if (!strcmp(path, "/dev/rtc0"))
		f = rtc_open();
	else {
		*err = -ENOENT;
		return NULL;
	}
	*err = f ? 0 : -ENOMEM;
	return f;
}
