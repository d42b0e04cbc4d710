/* The id system calls: real, effective, saved and fs uid and gid, supplementary groups, with Linux's rules. */
#include <ccos/cred.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/uaccess.h>

/*
 * As in Linux's kernel/sys.c: an unprivileged thread may only move each of
 * its ids among the values it already holds (real, effective, saved);
 * CAP_SETUID (CAP_SETGID for groups) may set any. -1 means "leave it" in
 * the setre and setres calls, and is no id at all (EINVAL) for setuid.
 * Each call changes only the calling thread: the C library makes every
 * thread of a process call it. A uid change then adjusts the capability
 * sets (kernel/capability.c).
 */

void cred_init_root(struct cred *c)
{
	*c = (struct cred){ .cap_effective = CAP_FULL_SET, .cap_permitted = CAP_FULL_SET,
			    .cap_bset = CAP_FULL_SET };
}

void cred_copy(struct cred *to, const struct cred *from)
{
	*to = *from;
	if (to->groups)
		to->groups->refs++;
}

void cred_release(struct cred *c)
{
	if (c->groups && !--c->groups->refs)
		kfree(c->groups);
	c->groups = NULL;
}

bool in_group_p(const struct cred *c, uint32_t gid)
{
	uint32_t lo = 0, hi = c->groups ? c->groups->n : 0;

	if (gid == c->fsgid)
		return true;
	while (lo < hi) {		/* the list is sorted (setgroups) */
		uint32_t mid = (lo + hi) / 2;

		if (c->groups->gid[mid] == gid)
			return true;
		if (c->groups->gid[mid] < gid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static struct cred *cred(void)
{
	return &current()->cred;
}

/* An id the thread holds already as real, effective or saved. */
static bool held(uint32_t id, uint32_t r, uint32_t e, uint32_t s)
{
	return id == r || id == e || id == s;
}

long sys_getuid(void) { return cred()->uid; }
long sys_geteuid(void) { return cred()->euid; }
long sys_getgid(void) { return cred()->gid; }
long sys_getegid(void) { return cred()->egid; }

/* The uid side and the gid side of one rule: ids[0..3] are real, effective, saved, fs. */
static long set_id(uint32_t *ids, uint32_t id, int cap)
{
	if (id == INVALID_ID)
		return -EINVAL;
	if (capable(cap))
		ids[0] = ids[2] = id;
	else if (id != ids[0] && id != ids[2])
		return -EPERM;
	ids[1] = ids[3] = id;
	return 0;
}

static long set_re(uint32_t *ids, uint32_t r, uint32_t e, int cap)
{
	uint32_t old[4];

	memcpy(old, ids, sizeof(old));
	if (r != INVALID_ID && r != old[0] && r != old[1] && !capable(cap))
		return -EPERM;
	if (e != INVALID_ID && !held(e, old[0], old[1], old[2]) && !capable(cap))
		return -EPERM;
	if (r != INVALID_ID)
		ids[0] = r;
	if (e != INVALID_ID)
		ids[1] = e;
	if (r != INVALID_ID || (e != INVALID_ID && e != old[0]))
		ids[2] = ids[1];
	ids[3] = ids[1];
	return 0;
}

static long set_res(uint32_t *ids, uint32_t r, uint32_t e, uint32_t s, int cap)
{
	uint32_t want[3] = { r, e, s };
	int i;

	if (!capable(cap))
		for (i = 0; i < 3; i++)
			if (want[i] != INVALID_ID && !held(want[i], ids[0], ids[1], ids[2]))
				return -EPERM;
	for (i = 0; i < 3; i++)
		if (want[i] != INVALID_ID)
			ids[i] = want[i];
	ids[3] = ids[1];
	return 0;
}

/* setfsuid and setfsgid answer the old fs id, changed or not; no error is ever returned. */
static long set_fs(uint32_t *ids, uint32_t id, int cap)
{
	uint32_t old = ids[3];

	if (id != INVALID_ID && (held(id, ids[0], ids[1], ids[2]) || id == old || capable(cap)))
		ids[3] = id;
	return old;
}

/* A uid call: on a copy of the ids, then the capability rules on what changed. */
#define UID_CALL(expr) ({						\
	struct cred *c_ = cred(), old_ = *c_;				\
	uint32_t *ids = &c_->uid;					\
	long r_ = (expr);						\
	if (r_ >= 0)							\
		cap_fix_setuid(c_, &old_);				\
	r_;								\
})

long sys_setuid(unsigned int uid) { return UID_CALL(set_id(ids, uid, CAP_SETUID)); }
long sys_setreuid(unsigned int r, unsigned int e) { return UID_CALL(set_re(ids, r, e, CAP_SETUID)); }
long sys_setresuid(unsigned int r, unsigned int e, unsigned int s)
{
	return UID_CALL(set_res(ids, r, e, s, CAP_SETUID));
}

long sys_setfsuid(unsigned int uid)
{
	struct cred *c = cred();
	long old = set_fs(&c->uid, uid, CAP_SETUID);

	cap_fix_setfsuid(c, old);
	return old;
}

long sys_setgid(unsigned int gid) { return set_id(&cred()->gid, gid, CAP_SETGID); }
long sys_setregid(unsigned int r, unsigned int e) { return set_re(&cred()->gid, r, e, CAP_SETGID); }
long sys_setresgid(unsigned int r, unsigned int e, unsigned int s)
{
	return set_res(&cred()->gid, r, e, s, CAP_SETGID);
}

long sys_setfsgid(unsigned int gid) { return set_fs(&cred()->gid, gid, CAP_SETGID); }

static long put_res(uint32_t r, uint32_t e, uint32_t s, unsigned int __user *ur,
		    unsigned int __user *ue, unsigned int __user *us)
{
	return put_user(r, ur) || put_user(e, ue) || put_user(s, us) ? -EFAULT : 0;
}

long sys_getresuid(unsigned int __user *r, unsigned int __user *e, unsigned int __user *s)
{
	return put_res(cred()->uid, cred()->euid, cred()->suid, r, e, s);
}

long sys_getresgid(unsigned int __user *r, unsigned int __user *e, unsigned int __user *s)
{
	return put_res(cred()->gid, cred()->egid, cred()->sgid, r, e, s);
}

/* As Linux: the count alone for size 0, EINVAL for a list too small. */
long sys_getgroups(int size, unsigned int __user *list)
{
	struct group_info *g = cred()->groups;
	uint32_t n = g ? g->n : 0;

	if (size < 0)
		return -EINVAL;
	if (!size || !n)
		return n;
	if ((uint32_t)size < n)
		return -EINVAL;
	return copy_to_user(list, g->gid, n * sizeof(uint32_t)) ? -EFAULT : (long)n;
}

static void sort_ids(uint32_t *a, uint32_t n)
{
	uint32_t i, j, gap, v;

	for (gap = n / 2; gap; gap /= 2)	/* Shell's sort: up to 65,536 ids, no recursion */
		for (i = gap; i < n; i++) {
			v = a[i];
			for (j = i; j >= gap && a[j - gap] > v; j -= gap)
				a[j] = a[j - gap];
			a[j] = v;
		}
}

/* CAP_SETGID, then the size (EINVAL past NGROUPS_MAX), then the ids (-1 is EINVAL). */
long sys_setgroups(int size, const unsigned int __user *list)
{
	struct group_info *g = NULL;
	uint32_t i;

	if (!capable(CAP_SETGID))
		return -EPERM;
	if ((unsigned int)size > NGROUPS_MAX)
		return -EINVAL;
	if (size) {
		if (!(g = kmalloc(sizeof(*g) + size * sizeof(uint32_t))))
			return -ENOMEM;
		*g = (struct group_info){ .refs = 1, .n = size };
		if (copy_from_user(g->gid, list, size * sizeof(uint32_t))) {
			kfree(g);
			return -EFAULT;
		}
		for (i = 0; i < g->n; i++)
			if (g->gid[i] == INVALID_ID) {
				kfree(g);
				return -EINVAL;
			}
		sort_ids(g->gid, g->n);
	}
	cred_release(cred());
	cred()->groups = g;
	return 0;
}
