/* A process's working directory and umask: shared by its threads (CLONE_FS), copied by fork. */
#include <ccos/proc.h>
#include <ccos/path.h>
#include <ccos/mm.h>
#include <ccos/lib.h>

/*
 * p->fs->cwd is where relative paths start, a directory (a /tmp node it
 * holds a reference to, or a read-only one: fs/path.c), and
 * p->fs->umask what open and mkdir clear from a mode (fs/sys_fs.c);
 * refs counts the processes and threads sharing them. exec keeps them.
 * All are the kernel lock's (docs/smp.md).
 */

/* The root, umask 022: init's. NULL when out of memory. */
struct fs_struct *fs_alloc(void)
{
	struct fs_struct *fs = kzalloc(sizeof(*fs));

	if (!fs)
		return NULL;
	fs->refs = 1;
	fs->umask = 022;
	fs->cwd = root_place;
	return fs;
}

struct fs_struct *fs_copy(struct fs_struct *fs)
{
	struct fs_struct *copy = kmalloc(sizeof(*copy));

	if (!copy)
		return NULL;
	*copy = *fs;
	copy->refs = 1;
	place_hold(&copy->cwd);
	return copy;
}

struct fs_struct *fs_share(struct fs_struct *fs)
{
	fs->refs++;
	return fs;
}

void fs_put(struct fs_struct *fs)
{
	if (--fs->refs)
		return;
	place_drop(&fs->cwd);
	kfree(fs);
}

/* chdir and fchdir: to, a directory, held; the old one let go. */
void fs_chdir(struct fs_struct *fs, const struct place *to)
{
	place_hold(to);
	place_drop(&fs->cwd);
	fs->cwd = *to;
}
