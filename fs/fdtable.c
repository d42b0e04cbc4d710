/* File descriptor tables: one per process, shared by its threads (CLONE_FILES), copied by fork. */
#include <ccos/proc.h>
#include <ccos/file.h>
#include <ccos/mm.h>
#include <ccos/errno.h>
#include <ccos/lib.h>

/*
 * p->files->fd[fd] is descriptor fd; refs counts the processes and
 * threads sharing the table. The table and its refs are the kernel
 * lock's (docs/smp.md).
 */

/* An empty table, or NULL when out of memory. */
struct fdtable *fdtable_alloc(void)
{
	struct fdtable *t = kzalloc(sizeof(*t));

	if (t)
		t->refs = 1;
	return t;
}

/* fork's copy: each open file gets one more reference; close-on-exec marks too. */
struct fdtable *fdtable_copy(struct fdtable *t)
{
	struct fdtable *copy = fdtable_alloc();
	int fd;

	if (!copy)
		return NULL;
	for (fd = 0; fd < NOFILE; fd++)
		if (t->fd[fd])
			copy->fd[fd] = file_get(t->fd[fd]);
	memcpy(copy->cloexec, t->cloexec, sizeof(copy->cloexec));
	return copy;
}

struct fdtable *fdtable_share(struct fdtable *t)
{
	t->refs++;
	return t;
}

/* The last process to let go of the table closes its files. */
void fdtable_put(struct fdtable *t)
{
	int fd;

	if (--t->refs)
		return;
	for (fd = 0; fd < NOFILE; fd++)
		if (t->fd[fd]) {
			locks_close(t->fd[fd], t);
			file_put(t->fd[fd]);
		}
	kfree(t);
}

/* Make *t the caller's own (a copy if another process shares it): 0 or -ENOMEM. */
int fdtable_unshare(struct fdtable **t)
{
	struct fdtable *copy;

	if ((*t)->refs == 1)
		return 0;
	if (!(copy = fdtable_copy(*t)))
		return -ENOMEM;
	fdtable_put(*t);
	*t = copy;
	return 0;
}
