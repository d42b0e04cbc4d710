/* /proc/sys/kernel and /proc/sys/fs: what sysctl reads, one value a file, as Linux's sysctl files give them. */
#include <ccos/file.h>
#include <ccos/boot.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/printk.h>

#define SYS_KERNEL	"/proc/sys/kernel/"
#define SYS_FS		"/proc/sys/fs/"

/*
 * The values, by file. The names are uname's (kernel/sys_proc.c); pid_max
 * is the highest process id plus one (kernel/proc.c); tainted is 0, no
 * flag (ccos loads no modules and survives no oops); core_pattern is
 * Linux's default, though ccos writes no core (RLIMIT_CORE is 0); the
 * pipe's largest size is F_SETPIPE_SZ's bound (fs/pipe_size.c).
 */
static void value_of(const char *name, char *buf, size_t size)
{
	if (!strcmp(name, "hostname"))
		strlcpy(buf, "ccos", size);
	else if (!strcmp(name, "ostype"))
		strlcpy(buf, UTS_SYSNAME, size);
	else if (!strcmp(name, "domainname"))
		strlcpy(buf, "(none)", size);
	else if (!strcmp(name, "osrelease"))
		strlcpy(buf, UTS_RELEASE, size);
	else if (!strcmp(name, "version"))
		strlcpy(buf, UTS_VERSION, size);
	else if (!strcmp(name, "pid_max"))
		snprintf(buf, size, "%d", PID_MAX);
	else if (!strcmp(name, "tainted"))
		strlcpy(buf, "0", size);
	else if (!strcmp(name, "core_pattern"))
		strlcpy(buf, "core", size);
	else if (!strcmp(name, "pipe-max-size"))
		snprintf(buf, size, "%lu", PIPE_MAX_SIZE);
	else			/* randomize_va_space: 2, stack, mmap, brk and the program; 0, none */
		snprintf(buf, size, "%d", boot_options.norandmaps ? 0 : 2);
}

/* In the order Linux lists them (by name), which is what ls and sysctl -a show. */
const char *const proc_sys_kernel_names[] = {
	"core_pattern", "domainname", "hostname", "osrelease", "ostype", "pid_max",
	"randomize_va_space", "tainted", "version", NULL,
};
const char *const proc_sys_fs_names[] = { "pipe-max-size", NULL };

static const char *name_in(const char *path, const char *dir, const char *const *names)
{
	int i;

	if (strncmp(path, dir, strlen(dir)))
		return NULL;
	for (i = 0; names[i]; i++)
		if (!strcmp(path + strlen(dir), names[i]))
			return names[i];
	return NULL;
}

/* A /proc/sys file's text, a line; -ENOENT for another path. */
long proc_sys_generate(const char *path, char **text, size_t *len)
{
	const char *name = name_in(path, SYS_KERNEL, proc_sys_kernel_names);

	if (!name && !(name = name_in(path, SYS_FS, proc_sys_fs_names)))
		return -ENOENT;
	if (!(*text = kmalloc(80)))
		return -ENOMEM;
	value_of(name, *text, 78);
	*len = strlen(*text);
	(*text)[(*len)++] = '\n';
	return 0;
}
