/* File descriptor tables: one per process, shared by its threads (CLONE_FILES), copied by fork. */
#include <ccos/proc.h>
#include <ccos/file.h>
#include <ccos/mm.h>
#include <ccos/lib.h>

/*
 * A process reaches its table as p->files, the fd[] array below, so that
 * p->files[fd] names descriptor fd; refs counts the processes sharing it.
 * The table and its refs are the kernel lock's (docs/smp.md).
 */
struct fdtable {
	int refs;
	struct file *fd[NOFILE];
};

static struct fdtable *fdtable_of(struct file **files)
{
	return container_of(files, struct fdtable, fd[0]);
}

/* An empty table, or NULL when out of memory. */
struct file **fdtable_alloc(void)
{
	struct fdtable *t = kzalloc(sizeof(*t));

	if (!t)
		return NULL;
	t->refs = 1;
	return t->fd;
}

/* fork's copy: each open file gets one more reference. */
struct file **fdtable_copy(struct file **files)
{
	struct file **copy = fdtable_alloc();
	int fd;

	if (!copy)
		return NULL;
	for (fd = 0; fd < NOFILE; fd++)
		if (files[fd])
			copy[fd] = file_get(files[fd]);
	return copy;
}

struct file **fdtable_share(struct file **files)
{
	fdtable_of(files)->refs++;
	return files;
}

/* The last process to let go of the table closes its files. */
void fdtable_put(struct file **files)
{
	struct fdtable *t = fdtable_of(files);
	int fd;

	if (--t->refs)
		return;
	for (fd = 0; fd < NOFILE; fd++)
		if (t->fd[fd])
			file_put(t->fd[fd]);
	kfree(t);
}
