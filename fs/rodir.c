/* The read-only directories /, /bin, /etc, /dev, /proc, /proc/sys and each /proc/PID: which they are, their entries. */
#include <ccos/path.h>
#include <ccos/tmpfs.h>
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/printk.h>

/*
 * Outside /tmp nothing changes, and a place is its path (fs/path.c).
 * These are the directories there: their fixed names, then those of
 * more_names (the modules, /bin's links, /proc's processes).
 */
static const struct rodir {
	const char *path;
	const char *const *names;
} rodirs[] = {
	{ "/", (const char *const[]){ "bin", "dev", "etc", "proc", "tmp", NULL } },
	{ "/bin", (const char *const[]){ NULL } },
	{ "/etc", (const char *const[]){ NULL } },
	{ "/dev", (const char *const[]){ "null", "rtc", "rtc0", "tty", "zero", NULL } },
	{ "/proc", (const char *const[]){ "cpuinfo", "loadavg", "meminfo", "mounts", "self", "smpstat",
					  "stat", "sys", "uptime", NULL } },
	{ "/proc/sys", (const char *const[]){ "fs", "kernel", NULL } },
	{ "/proc/sys/fs", proc_sys_fs_names },
	{ "/proc/sys/kernel", proc_sys_kernel_names },
}, pid_rodir = { "/proc/PID", (const char *const[]){ NULL } };	/* any process's */

static const struct rodir *find_rodir(const char *path)
{
	const char *rest;
	unsigned long i;

	/* Their second characters differ but for /proc's: most paths need one strcmp. */
	if (path[0] != '/')
		return NULL;
	for (i = 0; i < ARRAY_SIZE(rodirs); i++)
		if (rodirs[i].path[1] == path[1] && !strcmp(rodirs[i].path, path))
			return &rodirs[i];
	return procfs_process(path, &rest) && !*rest ? &pid_rodir : NULL;
}

bool rodir_is(const char *path)
{
	return find_rodir(path);
}

/* After the fixed names: /proc/PID's files, /proc's processes, modules, /bin's links. */
static int more_names(const char *path, const struct rodir *v, uint64_t index,
		      struct dirent_out *d)
{
	const struct module_file *m;
	int pid;

	if (v == &pid_rodir) {
		d->name = procfs_pid_file_at(index);
		d->type = d->name && !strcmp(d->name, "exe") ? DT_LNK : DT_REG;
	} else if (!strcmp(path, "/proc")) {
		if ((pid = procfs_pid_at(index)))
			snprintf(d->buf, sizeof(d->buf), "%d", pid);
		d->name = pid ? d->buf : NULL;
	} else if ((m = module_at(path, index))) {
		d->name = m->name + strlen(path) + 1;
		d->type = DT_REG;
	} else if (!strcmp(path, "/bin")) {
		d->name = bin_link_at(index - modules_in(path));
		d->type = DT_LNK;
	}
	return d->name ? 0 : DIRENT_END;
}

static int rodir_dirent(struct file *f, uint64_t index, struct dirent_out *d)
{
	const struct rodir *v = find_rodir(f->path);
	const char *const *name;
	char child[RO_PATH_MAX], target[RO_PATH_MAX];

	if (!v)
		return -ENOENT;		/* /proc/PID of a process that has gone since, as Linux */
	name = v->names;
	*d = (struct dirent_out){ .ino = index + 2, .type = DT_DIR };
	if (index < 2) {
		d->name = index ? ".." : ".";
		return 0;
	}
	for (index -= 2; *name && index; index--)
		name++;
	if (!(d->name = *name))
		return more_names(f->path, v, index, d);
	snprintf(child, sizeof(child), "%s/%s", strcmp(f->path, "/") ? f->path : "", d->name);
	d->type = find_rodir(child) || !strcmp(child, "/tmp") ? DT_DIR :
		  link_target(child, target) > 0 ? DT_LNK : !strcmp(f->path, "/dev") ? DT_CHR : DT_REG;
	return 0;
}

static void rodir_stat(struct file *f, struct stat *st)
{
	st->st_mode = S_IFDIR | 0555;
	st->st_nlink = 2;
	st->st_ino = path_ino(f->path);
}

static const struct file_ops rodir_ops = { .dirent = rodir_dirent, .stat = rodir_stat };

/* An open file of a read-only directory, for reading it only; the caller sets f->path. */
struct file *rodir_open(int flags, long *err)
{
	struct file *f;

	*err = (flags & O_ACCMODE) || (flags & O_CREAT) ? -EISDIR : 0;
	if (*err)
		return NULL;
	if (!(f = file_new(&rodir_ops, NULL, 0)))
		*err = -ENOMEM;
	return f;
}

bool rodir_file(struct file *f)
{
	return f->ops == &rodir_ops;
}
