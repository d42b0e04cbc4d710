/* /proc/sys/kernel: what sysctl reads, one value a file, as Linux's sysctl files give them. */
#include <ccos/file.h>
#include <ccos/boot.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/printk.h>

#define SYS_KERNEL	"/proc/sys/kernel/"

/* The names uname gives (kernel/sys_proc.c), and whether a program's areas are placed at random. */
static void value_of(const char *name, char *buf, size_t size)
{
	if (!strcmp(name, "hostname") || !strcmp(name, "ostype"))
		strlcpy(buf, "ccos", size);
	else if (!strcmp(name, "domainname"))
		strlcpy(buf, "(none)", size);
	else if (!strcmp(name, "osrelease"))
		strlcpy(buf, "3.1.0-ccos", size);
	else if (!strcmp(name, "version"))
		strlcpy(buf, "ccos teaching kernel", size);
	else			/* randomize_va_space: 2, stack, mmap, brk and the program; 0, none */
		snprintf(buf, size, "%d", boot_options.norandmaps ? 0 : 2);
}

/* In the order Linux lists them (by name), which is what ls and sysctl -a show. */
const char *const proc_sys_kernel_names[] = {
	"domainname", "hostname", "osrelease", "ostype", "randomize_va_space", "version", NULL,
};

/* A /proc/sys/kernel file's text, a line; -ENOENT for another path. */
long proc_sys_generate(const char *path, char **text, size_t *len)
{
	const char *name = path + strlen(SYS_KERNEL);
	int i;

	if (strncmp(path, SYS_KERNEL, strlen(SYS_KERNEL)))
		return -ENOENT;
	for (i = 0; proc_sys_kernel_names[i]; i++)
		if (!strcmp(name, proc_sys_kernel_names[i]))
			break;
	if (!proc_sys_kernel_names[i])
		return -ENOENT;
	if (!(*text = kmalloc(80)))
		return -ENOMEM;
	value_of(name, *text, 78);
	*len = strlen(*text);
	(*text)[(*len)++] = '\n';
	return 0;
}
