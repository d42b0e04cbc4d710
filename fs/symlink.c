/* Symbolic links: /tmp's, /bin's to busybox's applets, /proc's, /dev/rtc; symlink and readlink. */
#include <ccos/path.h>
#include <ccos/tmpfs.h>
#include <ccos/file.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/uaccess.h>

/* The output of `busybox --list`, one applet a line, which the build puts on the ISO. */
#define BUSYBOX_LINKS	"/etc/busybox.links"

/*
 * Its names that are not modules of /bin: /bin/NAME -> busybox. The
 * names, each ending in a NUL, in bin_links; a pointer to each, in the
 * list's order, in links[] (the i-th for getdents, in one step); and a
 * hash table over them (FNV-1a, open addressing, at most half full) for
 * the lookup every /bin path makes as it follows links, which walked all
 * 270 names where a /bin file was not one of them.
 */
#define MAX_LINKS	512
#define LINK_SLOTS	1024	/* a power of two, twice MAX_LINKS */

static char *bin_links;
static const char *links[MAX_LINKS];
static size_t nr_links;
static uint16_t link_slots[LINK_SLOTS];	/* 1 + the index in links[]; 0: empty */

void bin_links_init(void)
{
	const struct module_file *m = module_lookup(BUSYBOX_LINKS);
	char path[RO_PATH_MAX] = "/bin/", *name;
	size_t i, len;

	if (!m || !(bin_links = kmalloc(m->size + 1)))
		return;
	memcpy(bin_links, m->data, m->size);
	bin_links[m->size] = 0;
	for (i = 0; i < m->size; i++)
		if (bin_links[i] == '\n')
			bin_links[i] = 0;
	/* Keep the names that can be links, and are not ccos's own programs (sh, cat, ...). */
	for (name = bin_links; name < bin_links + m->size + 1 && nr_links < MAX_LINKS; name += len + 1) {
		unsigned int s;

		len = strlen(name);
		if (!len || len > NAME_MAX || strchr(name, '/'))
			continue;
		memcpy(path + 5, name, len + 1);
		if (module_lookup(path))
			continue;
		for (s = path_ino(name) % LINK_SLOTS; link_slots[s]; s = (s + 1) % LINK_SLOTS)
			;
		link_slots[s] = nr_links + 1;
		links[nr_links++] = name;
	}
}

const char *bin_link_at(uint64_t i)
{
	return i < nr_links ? links[i] : NULL;
}

/* Whether /bin/name is a link: every lookup of a /bin path that follows links asks. */
static bool is_bin_link(const char *name)
{
	unsigned int s = path_ino(name) % LINK_SLOTS;

	for (; link_slots[s]; s = (s + 1) % LINK_SLOTS)
		if (!strcmp(links[link_slots[s] - 1], name))
			return true;
	return false;
}

/*
 * The target of the read-only link at path (outside /tmp, whose links
 * are nodes: tmpfs_link) into buf, RO_PATH_MAX bytes: its length. A
 * module's name that a lookup can reach fits.
 */
long link_target(const char *path, char *buf)
{
	struct process *p = current();
	const char *rest;

	if (!strcmp(path, "/proc/self"))
		return p ? snprintf(buf, RO_PATH_MAX, "%d", p->tgid) : -ENOENT;
	if ((p = procfs_process(path, &rest)) && !strcmp(rest, "/exe"))
		return p->exe ? (long)strlcpy(buf, p->exe->name, RO_PATH_MAX) : -ENOENT;
	if (!strncmp(path, "/bin/", 5) && is_bin_link(path + 5))
		return strlcpy(buf, "busybox", RO_PATH_MAX);
	if (!strcmp(path, "/dev/rtc"))		/* as udev links it */
		return strlcpy(buf, "rtc0", RO_PATH_MAX);
	return -EINVAL;
}

/* lstat of /bin's links and of /proc/self/exe: a link, its size the target's length. */
static void link_stat(struct file *f, struct stat *st)
{
	st->st_mode = S_IFLNK | 0777;
	st->st_size = f->size;
	st->st_ino = path_ino(f->path);
}

static const struct file_ops link_ops = { .stat = link_stat };

struct file *link_open(const char *path, long *err)
{
	char target[RO_PATH_MAX];
	long len = link_target(path, target);
	struct file *f = NULL;

	*err = len < 0 ? -ENOENT : (f = file_new(&link_ops, NULL, len)) ? 0 : -ENOMEM;
	return f;
}

/*
 * symlink: only in /tmp; elsewhere EEXIST where the name exists, else
 * EROFS. The target is read after the lookup (Linux reads it first), so
 * that its PATH_MAX bytes and the lookup's are not on the stack at once.
 */
static __noinline long make_link(const struct lookup *nd, const char __user *utarget)
{
	char target[PATH_MAX];
	long len = strncpy_from_user(target, utarget, sizeof(target));
	struct place at;
	struct stat st;

	if (len < 0)
		return len;
	if (!len)
		return -ENOENT;
	if (is_dots(nd->last))
		return -EEXIST;
	if (!nd->dir.node)
		return lookup_last(nd, &at) || place_stat(&at, &st) == -ENOENT ? -EROFS : -EEXIST;
	return tmpfs_symlink(nd->dir.node, nd->last, target);
}

long sys_symlinkat(const char __user *utarget, int dirfd, const char __user *ulink)
{
	struct lookup nd;
	long err = lookup_parent(dirfd, ulink, 0, &nd);

	return err < 0 ? err : make_link(&nd, utarget);
}

long sys_symlink(const char __user *target, const char __user *link)
{
	return sys_symlinkat(target, AT_FDCWD, link);
}

long sys_readlinkat(int dirfd, const char __user *upath, char __user *buf, int size)
{
	char text[RO_PATH_MAX];
	const char *target;
	struct place at;
	struct stat st;
	long len;

	if (size <= 0)
		return -EINVAL;
	if ((len = lookup(dirfd, upath, 0, &at)) < 0)
		return len;
	if (!(target = place_link(&at, text)))
		return (len = place_stat(&at, &st)) < 0 ? len : -EINVAL;
	len = MIN((long)strlen(target), size);		/* no NUL, cut at size: as Linux */
	return copy_to_user(buf, target, len) ? -EFAULT : len;
}

long sys_readlink(const char __user *path, char __user *buf, int size)
{
	return sys_readlinkat(AT_FDCWD, path, buf, size);
}
