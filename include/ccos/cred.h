/* Credentials: a thread's user and group ids, its supplementary groups, its capabilities (kernel/cred.c, kernel/capability.c). */
#ifndef CCOS_CRED_H
#define CCOS_CRED_H

#include <ccos/types.h>

#define NGROUPS_MAX	65536	/* setgroups' largest list, as Linux */
#define INVALID_ID	0xffffffffu	/* (uid_t)-1: "unchanged" where a call says so, else EINVAL */

/* The capabilities ccos checks, by Linux's numbers (linux/capability.h). */
#define CAP_CHOWN		0
#define CAP_DAC_OVERRIDE	1
#define CAP_DAC_READ_SEARCH	2
#define CAP_FOWNER		3
#define CAP_FSETID		4
#define CAP_KILL		5
#define CAP_SETGID		6
#define CAP_SETUID		7
#define CAP_SETPCAP		8
#define CAP_LINUX_IMMUTABLE	9
#define CAP_SYS_PTRACE		19
#define CAP_SYS_ADMIN		21
#define CAP_SYS_NICE		23
#define CAP_SYS_RESOURCE	24
#define CAP_SYS_TIME		25
#define CAP_MKNOD		27
#define CAP_MAC_OVERRIDE	32
#define CAP_LAST_CAP		40	/* CAP_CHECKPOINT_RESTORE, Linux 5.9's last */
#define CAP_FULL_SET		((1ull << (CAP_LAST_CAP + 1)) - 1)
#define CAP_BIT(c)		(1ull << (c))
/* The capabilities that follow the fs uid: dropped when it leaves 0, back when it returns. */
#define CAP_FS_MASK	(CAP_BIT(CAP_CHOWN) | CAP_BIT(CAP_DAC_OVERRIDE) | CAP_BIT(CAP_DAC_READ_SEARCH) | \
			 CAP_BIT(CAP_FOWNER) | CAP_BIT(CAP_FSETID) | CAP_BIT(CAP_LINUX_IMMUTABLE) | \
			 CAP_BIT(CAP_MKNOD) | CAP_BIT(CAP_MAC_OVERRIDE))

/* Supplementary groups, sorted; shared by the threads and children that did not change them. */
struct group_info {
	int refs;
	uint32_t n;
	uint32_t gid[];
};

/*
 * A thread's credentials, as Linux's struct cred: each thread has its own
 * (the C library's setuid makes every thread call it), fork and clone copy
 * them. The fs ids are the ones file permission checks use.
 */
struct cred {
	uint32_t uid, euid, suid, fsuid;
	uint32_t gid, egid, sgid, fsgid;
	struct group_info *groups;	/* NULL: none */
	uint64_t cap_effective, cap_permitted, cap_inheritable, cap_bset;
	bool keep_caps;			/* PR_SET_KEEPCAPS: permitted survives leaving uid 0 */
	bool no_new_privs;		/* PR_SET_NO_NEW_PRIVS: exec never grants more (kept across fork and exec) */
};

struct process;

/* kernel/cred.c */
void cred_init_root(struct cred *c);		/* init's: root with every capability */
void cred_copy(struct cred *to, const struct cred *from);	/* fork and clone */
void cred_release(struct cred *c);
bool in_group_p(const struct cred *c, uint32_t gid);	/* fsgid or a supplementary group */

/* kernel/capability.c */
bool capable(int cap);			/* the caller's effective set has cap */
bool cred_capable(const struct cred *c, int cap);
void cap_fix_setuid(struct cred *new, const struct cred *old);	/* capabilities(7)'s uid-change rules */
void cap_fix_setfsuid(struct cred *new, uint32_t old_fsuid);
/* exec: the new program's ids and capabilities; true if AT_SECURE. */
bool cred_exec(struct cred *c);
/* kill's rule: the sender's real or effective uid is the target's real or saved one, or CAP_KILL. */
bool may_signal(const struct process *to);
/* ptrace's rule (process_vm_*, /proc/PID/mem): the same user all through, or CAP_SYS_PTRACE. */
bool may_access_process(const struct process *p);

#endif
