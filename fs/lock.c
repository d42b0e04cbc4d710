/* File locks: POSIX record locks (F_GETLK, F_SETLK, F_SETLKW), open file description locks (F_OFD_*) and flock(2). */
#include <ccos/file.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/uaccess.h>

#define F_GETLK		5
#define F_SETLK		6
#define F_SETLKW	7
#define F_OFD_GETLK	36
#define F_OFD_SETLK	37
#define F_OFD_SETLKW	38
#define F_RDLCK		0
#define F_WRLCK		1
#define F_UNLCK		2
#define LOCK_SH		1
#define LOCK_EX		2
#define LOCK_NB		4
#define LOCK_UN		8
#define OFFSET_MAX	0x7fffffffffffffffl
#define DEADLOCK_DEPTH	10	/* Linux's MAX_DEADLK_ITERATIONS */

/* struct flock on x86-64 */
struct flock {
	short l_type, l_whence;
	long l_start, l_len;
	int l_pid;
};

/*
 * A lock is on a file (its node: what two opens of one name share) and
 * belongs to an owner: for a POSIX record lock the descriptor table of
 * the process that took it (Linux's fl_owner, so a fork's child owns
 * none of its parent's, and any close of the file by the owner drops
 * them all); for an OFD lock and a flock the open file description,
 * which drops them when its last descriptor closes. Two locks conflict
 * when their owners differ, their ranges (first..last byte) overlap and
 * one is a write lock; POSIX and OFD locks see each other, flock locks
 * only flock locks. An owner's locks of one kind never overlap: a new
 * one replaces what it covers and joins its neighbours of the same type.
 *
 * A waiter in F_SETLKW is on the list of waiters with the owner it waits
 * for, so that a wait that would close a circle of POSIX owners is
 * EDEADLK instead. Lock rule: the kernel lock.
 */
enum lock_kind { POSIX, OFD, FLOCK };

struct file_lock {
	struct file_lock *next;
	const void *node, *owner;
	enum lock_kind kind;
	int type, pid;
	long first, last;
};

struct lock_waiter {
	struct lock_waiter *next;
	const void *owner, *blocker;
};

static struct file_lock *locks;
static struct lock_waiter *waiters;
static const int lock_chan;	/* where blocked lockers sleep */

static const void *lock_node(struct file *f)
{
	return f->priv ? f->priv : (const void *)f;
}

static bool same_kind(enum lock_kind a, enum lock_kind b)
{
	return (a == FLOCK) == (b == FLOCK);
}

/* The first lock that stops want, or NULL. */
static struct file_lock *conflict(const struct file_lock *want)
{
	struct file_lock *l;

	for (l = locks; l; l = l->next)
		if (l->node == want->node && l->owner != want->owner && same_kind(l->kind, want->kind) &&
		    l->first <= want->last && want->first <= l->last &&
		    (l->type == F_WRLCK || want->type == F_WRLCK))
			return l;
	return NULL;
}

/* Whether owner waiting for blocker closes a circle of waits between POSIX owners. */
static bool would_deadlock(const void *owner, const void *blocker)
{
	struct lock_waiter *w;
	int depth = 0;

	while (depth++ < DEADLOCK_DEPTH) {
		if (blocker == owner)
			return true;
		for (w = waiters; w && w->owner != blocker; w = w->next)
			;
		if (!w)
			return false;
		blocker = w->blocker;
	}
	return false;
}

/* A new lock, in the list by its first byte: F_GETLK finds the lowest conflict first, as on Linux. */
static struct file_lock *lock_new(const struct file_lock *from, long first, long last)
{
	struct file_lock *l = kmalloc(sizeof(*l)), **pp;

	if (l) {
		*l = *from;
		l->first = first;
		l->last = last;
		for (pp = &locks; *pp && (*pp)->first < first; pp = &(*pp)->next)
			;
		l->next = *pp;
		*pp = l;
	}
	return l;
}

/*
 * The owner's locks of want's kind on want's node lose the range
 * first..last (a lock that sticks out on both sides is split); with a new
 * lock of want's type, those it touches of that type join it. -ENOMEM
 * when a split finds no memory, before anything changed.
 */
static long replace_range(struct file_lock *want, bool add)
{
	struct file_lock **pp, *l, *spare = NULL;

	for (l = locks; l; l = l->next)
		if (l->node == want->node && l->owner == want->owner && l->kind == want->kind &&
		    l->first < want->first && l->last > want->last && !(add && l->type == want->type))
			if (!(spare = kmalloc(sizeof(*spare))))
				return -ENOMEM;
	for (pp = &locks; (l = *pp);) {
		bool mine = l->node == want->node && l->owner == want->owner && l->kind == want->kind;
		bool joins = add && l->type == want->type && l->first <= want->last + (want->last < OFFSET_MAX) &&
			     want->first <= l->last + (l->last < OFFSET_MAX);

		if (!mine || (!joins && (l->last < want->first || l->first > want->last))) {
			pp = &l->next;
			continue;
		}
		if (joins) {
			want->first = MIN(want->first, l->first);
			want->last = MAX(want->last, l->last);
		} else if (l->first < want->first && l->last > want->last) {
			*spare = *l;	/* the part after the range */
			spare->first = want->last + 1;
			spare->next = l->next;
			l->next = spare;
			spare = NULL;
			l->last = want->first - 1;
			pp = &l->next->next;
			continue;
		} else if (l->first < want->first) {
			l->last = want->first - 1;
			pp = &l->next;
			continue;
		} else if (l->last > want->last) {
			l->first = want->last + 1;
			pp = &l->next;
			continue;
		}
		*pp = l->next;
		kfree(l);
	}
	kfree(spare);
	if (add && !lock_new(want, want->first, want->last))
		return -ENOMEM;
	wakeup(&lock_chan);
	return 0;
}

/* Take want (or, for F_UNLCK, give its range back), waiting if asked: 0 or an error. */
static long set_lock(struct file_lock *want, bool wait)
{
	struct lock_waiter me = { .owner = want->owner }, **w;
	struct file_lock *l;

	if (want->type == F_UNLCK)
		return replace_range(want, false);
	while ((l = conflict(want))) {
		if (!wait)
			return -EAGAIN;
		if (want->kind == POSIX && l->kind == POSIX && would_deadlock(want->owner, l->owner))
			return -EDEADLK;
		if (signal_pending(current()))
			return -ERESTARTSYS;
		me.blocker = l->owner;
		me.next = waiters;
		waiters = &me;
		sleep_on(&lock_chan);
		for (w = &waiters; *w != &me; w = &(*w)->next)
			;
		*w = me.next;
	}
	return replace_range(want, true);
}

/* A struct flock's range in bytes (l_whence, l_start, l_len, as fcntl(2) says), or -EINVAL. */
static long flock_range(struct file *f, const struct flock *fl, struct file_lock *want)
{
	struct stat st = { 0 };
	long base;

	switch (fl->l_whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = f->offset; break;
	case SEEK_END: file_stat(f, &st); base = st.st_size; break;
	default: return -EINVAL;
	}
	if (__builtin_add_overflow(base, fl->l_start, &want->first))
		return -EOVERFLOW;
	want->last = OFFSET_MAX;
	if (fl->l_len > 0 && __builtin_add_overflow(want->first, fl->l_len - 1, &want->last))
		return -EOVERFLOW;
	if (fl->l_len < 0) {
		want->last = want->first - 1;
		if (__builtin_add_overflow(want->first, fl->l_len, &want->first))
			return -EINVAL;
	}
	return want->first < 0 ? -EINVAL : 0;
}

/* The commands of fcntl on locks (fs/sys_fd.c gives the others): -EINVAL for an unknown one. */
long file_lock_fcntl(struct file *f, unsigned int cmd, uint64_t arg)
{
	struct flock __user *ufl = (struct flock __user *)arg;
	bool ofd = cmd >= F_OFD_GETLK && cmd <= F_OFD_SETLKW;
	struct file_lock want = { .node = lock_node(f), .kind = ofd ? OFD : POSIX,
				  .owner = ofd ? (const void *)f : current()->files,
				  .pid = ofd ? -1 : current()->tgid };
	struct file_lock *l;
	struct flock fl;
	long err;

	if (!ofd && (cmd < F_GETLK || cmd > F_SETLKW))
		return -EINVAL;
	if (copy_from_user(&fl, ufl, sizeof(fl)))
		return -EFAULT;
	if ((fl.l_type != F_RDLCK && fl.l_type != F_WRLCK && fl.l_type != F_UNLCK) ||
	    (ofd && fl.l_pid != 0))
		return -EINVAL;
	if ((err = flock_range(f, &fl, &want)))
		return err;
	want.type = fl.l_type;
	if (cmd == F_GETLK || cmd == F_OFD_GETLK) {
		if (!(l = want.type == F_UNLCK ? NULL : conflict(&want))) {
			fl.l_type = F_UNLCK;
		} else {
			fl = (struct flock){ .l_type = l->type, .l_whence = SEEK_SET, .l_start = l->first,
					     .l_len = l->last == OFFSET_MAX ? 0 : l->last - l->first + 1,
					     .l_pid = l->pid };
		}
		return copy_to_user(ufl, &fl, sizeof(fl)) ? -EFAULT : 0;
	}
	/* A read lock needs a file open for reading, a write lock one open for writing. */
	if ((want.type == F_RDLCK && (f->flags & O_ACCMODE) == O_WRONLY) ||
	    (want.type == F_WRLCK && (f->flags & O_ACCMODE) == O_RDONLY))
		return -EBADF;
	return set_lock(&want, cmd == F_SETLKW || cmd == F_OFD_SETLKW);
}

/* flock(2): a shared or exclusive lock on the whole file, of the open file description. */
static long file_flock(struct file *f, unsigned int op)
{
	struct file_lock want = { .node = lock_node(f), .owner = f, .kind = FLOCK, .pid = -1,
				  .first = 0, .last = OFFSET_MAX };
	unsigned int how = op & ~LOCK_NB;

	if (how != LOCK_SH && how != LOCK_EX && how != LOCK_UN)
		return -EINVAL;
	want.type = how == LOCK_SH ? F_RDLCK : how == LOCK_EX ? F_WRLCK : F_UNLCK;
	if (how != LOCK_UN && conflict(&want))
		replace_range(&(struct file_lock){ .node = want.node, .owner = f, .kind = FLOCK,
						   .type = F_UNLCK, .last = OFFSET_MAX }, false);
	return set_lock(&want, !(op & LOCK_NB));
}

long sys_flock(unsigned int fd, unsigned int op)
{
	return WITH_FILE(fd, f, file_flock(f, op));
}

/* Drop the locks that owner holds on f's file, of the kinds that go with it. */
static void drop_locks(const void *node, const void *owner, bool posix)
{
	struct file_lock **pp, *l;
	bool any = false;

	for (pp = &locks; (l = *pp);) {
		if (l->owner == owner && (!node || l->node == node) && (l->kind == POSIX) == posix) {
			*pp = l->next;
			kfree(l);
			any = true;
		} else {
			pp = &l->next;
		}
	}
	if (any)
		wakeup(&lock_chan);
}

/* A descriptor of f closes in table t: t's POSIX locks on the file go, as on Linux. */
void locks_close(struct file *f, const struct fdtable *t)
{
	if (locks)
		drop_locks(lock_node(f), t, true);
}

/* f's last reference goes: its OFD and flock locks go. */
void locks_release(struct file *f)
{
	if (locks)
		drop_locks(NULL, f, false);
}
