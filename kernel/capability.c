/* Capabilities: capget and capset, the checks, and capabilities(7)'s rules for uid changes and exec. */
#include <ccos/cred.h>
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/uaccess.h>

/*
 * Root holds every capability and other users none, as on Linux without
 * file capabilities: a check asks the effective set of the caller's own
 * credentials. The sets move with the uids as capabilities(7) says
 * ("Effect of user ID changes on capabilities").
 */
bool cred_capable(const struct cred *c, int cap)
{
	return c->cap_effective & CAP_BIT(cap);
}

bool capable(int cap)
{
	return cred_capable(&current()->cred, cap);
}

static bool any_root(uint32_t r, uint32_t e, uint32_t s)
{
	return !r || !e || !s;
}

void cap_fix_setuid(struct cred *new, const struct cred *old)
{
	if (any_root(old->uid, old->euid, old->suid) && !any_root(new->uid, new->euid, new->suid) &&
	    !new->keep_caps)
		new->cap_permitted = new->cap_effective = 0;
	if (!old->euid && new->euid)
		new->cap_effective = 0;
	if (old->euid && !new->euid)
		new->cap_effective = new->cap_permitted;
}

void cap_fix_setfsuid(struct cred *new, uint32_t old_fsuid)
{
	if (!old_fsuid && new->fsuid)
		new->cap_effective &= ~CAP_FS_MASK;
	if (old_fsuid && !new->fsuid)
		new->cap_effective |= new->cap_permitted & CAP_FS_MASK;
}

/*
 * exec, as Linux's cap_bprm_creds_from_file without file capabilities
 * (and no setuid files: ccos runs only modules, none of them setuid):
 * root, real or effective, gets the bounding set as permitted (effective
 * only if its effective uid is 0); anyone else none. The saved and fs ids
 * become the effective ones, and PR_SET_KEEPCAPS ends. Effective ids other
 * than the real ones, or capabilities gained by one who is not really
 * root, make a secure exec: AT_SECURE, so that the C library distrusts
 * the environment.
 */
bool cred_exec(struct cred *c)
{
	uint64_t old_permitted = c->cap_permitted;

	c->keep_caps = false;
	c->cap_permitted = !c->uid || !c->euid ? c->cap_bset | c->cap_inheritable : 0;
	c->cap_effective = !c->euid ? c->cap_permitted : 0;
	c->suid = c->fsuid = c->euid;
	c->sgid = c->fsgid = c->egid;
	return c->euid != c->uid || c->egid != c->gid ||
	       (c->uid && (c->cap_effective || (c->cap_permitted & ~old_permitted)));
}

bool may_signal(const struct process *to)
{
	const struct cred *c = &current()->cred, *t = &to->cred;

	return c->euid == t->suid || c->euid == t->uid || c->uid == t->suid || c->uid == t->uid ||
	       capable(CAP_KILL);
}

bool may_access_process(const struct process *p)
{
	const struct cred *c = &current()->cred, *t = &p->cred;

	if (p->tgid == current()->tgid)
		return true;
	if (c->uid == t->euid && c->uid == t->suid && c->uid == t->uid &&
	    c->gid == t->egid && c->gid == t->sgid && c->gid == t->gid)
		return true;
	return capable(CAP_SYS_PTRACE);
}

/* capget and capset's header and data (linux/capability.h); v1 has one 32-bit data block, v2 and v3 two. */
#define CAP_VERSION_1	0x19980330
#define CAP_VERSION_2	0x20071026
#define CAP_VERSION_3	0x20080522

struct cap_header {
	uint32_t version;
	int pid;
};

struct cap_data {
	uint32_t effective, permitted, inheritable;
};

/* The blocks a version copies; else EINVAL, with v3 written back as the one to use. */
static long cap_blocks(struct cap_header __user *h)
{
	uint32_t v;

	if (get_user(v, &h->version))
		return -EFAULT;
	if (v == CAP_VERSION_1)
		return 1;
	if (v == CAP_VERSION_2 || v == CAP_VERSION_3)
		return 2;
	return put_user(CAP_VERSION_3, &h->version) ? -EFAULT : -EINVAL;
}

long sys_capget(struct cap_header __user *h, struct cap_data __user *data)
{
	struct cap_data d[2];
	struct process *p;
	long n = cap_blocks(h);
	int pid, i;

	if (!data || n < 0)
		return !data && n == -EINVAL ? 0 : n < 0 ? n : 0;
	if (get_user(pid, &h->pid))
		return -EFAULT;
	if (pid < 0)
		return -EINVAL;
	if (!(p = pid ? proc_find(pid) : current()) || p->state == PROC_ZOMBIE || p->state == PROC_DEAD)
		return -ESRCH;
	for (i = 0; i < 2; i++)
		d[i] = (struct cap_data){ p->cred.cap_effective >> (32 * i), p->cred.cap_permitted >> (32 * i),
					  p->cred.cap_inheritable >> (32 * i) };
	return copy_to_user(data, d, n * sizeof(d[0])) ? -EFAULT : 0;
}

static uint64_t join(uint32_t lo, uint32_t hi)
{
	return (lo | (uint64_t)hi << 32) & CAP_FULL_SET;
}

/* Only the caller's own sets; never more than it holds (inheritable: than it holds or may pass on). */
long sys_capset(struct cap_header __user *h, const struct cap_data __user *data)
{
	struct cred *c = &current()->cred;
	struct cap_data d[2] = { 0 };
	uint64_t e, p, inh;
	long n = cap_blocks(h);
	int pid;

	if (n < 0)
		return n;
	if (get_user(pid, &h->pid))
		return -EFAULT;
	if (pid && pid != current()->pid)
		return -EPERM;
	if (copy_from_user(d, data, n * sizeof(d[0])))
		return -EFAULT;
	e = join(d[0].effective, d[1].effective);
	p = join(d[0].permitted, d[1].permitted);
	inh = join(d[0].inheritable, d[1].inheritable);
	if (!capable(CAP_SETPCAP) && (inh & ~(c->cap_inheritable | c->cap_permitted)))
		return -EPERM;
	if ((inh & ~(c->cap_inheritable | c->cap_bset)) || (p & ~c->cap_permitted) || (e & ~p))
		return -EPERM;
	c->cap_effective = e;
	c->cap_permitted = p;
	c->cap_inheritable = inh;
	return 0;
}
