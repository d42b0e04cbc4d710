/* Small process system calls: exit, uname, prctl, reboot, getcpu (arch_prctl: arch/x86/fsgs.c). */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/power.h>
#include <ccos/uaccess.h>
#include <asm/arch.h>
#include <ccos/printk.h>
#include <ccos/time.h>

/* exit ends the calling thread, exit_group every thread of its process (kernel/thread.c). */
long sys_exit(int code)
{
	proc_exit((code & 0xff) << 8);
}

long sys_exit_group(int code)
{
	do_group_exit((code & 0xff) << 8);
}

long sys_getppid(void)
{
	struct process *parent = current()->parent;

	return parent ? parent->tgid : 0;
}

long sys_uname(struct utsname __user *u)
{
	struct utsname k = { 0 };

	strlcpy(k.sysname, "ccos", sizeof(k.sysname));
	strlcpy(k.nodename, "ccos", sizeof(k.nodename));
	strlcpy(k.release, "3.1.0-ccos", sizeof(k.release));
	strlcpy(k.version, "ccos teaching kernel", sizeof(k.version));
	strlcpy(k.machine, "x86_64", sizeof(k.machine));
	strlcpy(k.domainname, "(none)", sizeof(k.domainname));
	return copy_to_user(u, &k, sizeof(k)) ? -EFAULT : 0;
}

long sys_set_tid_address(int __user *tidptr)
{
	current()->clear_child_tid = (uint64_t)tidptr;
	return current()->pid;
}

/* Linux's magic numbers and the power-off command. */
#define REBOOT_MAGIC1		0xfee1dead
#define REBOOT_MAGIC2		672274793
#define REBOOT_CMD_POWER_OFF	0x4321fedc

long sys_reboot(int magic1, int magic2, unsigned int cmd, void __user *arg)
{
	(void)arg;
	if ((uint32_t)magic1 != REBOOT_MAGIC1 || magic2 != REBOOT_MAGIC2)
		return -EINVAL;
	if ((uint32_t)cmd != REBOOT_CMD_POWER_OFF)
		return -EINVAL;
	printk("ccos: reboot(POWER_OFF) from %s[%d]\n", current()->comm, current()->pid);
	power_off(0);
}

#define PR_SET_NAME		15
#define PR_GET_NAME		16
#define PR_GET_SECCOMP		21
#define PR_SET_SECCOMP		22
#define SECCOMP_MODE_STRICT	1
#define PR_GET_KEEPCAPS		7
#define PR_SET_KEEPCAPS		8
#define PR_CAPBSET_READ		23
#define PR_SET_NO_NEW_PRIVS	38
#define PR_GET_NO_NEW_PRIVS	39

long sys_prctl(int option, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	struct process *p = current();
	char name[16] = { 0 };	/* comm is zero-padded, as Linux's: PR_GET_NAME copies all 16 bytes */
	long len;

	switch (option) {
	case PR_GET_KEEPCAPS:
		return p->cred.keep_caps;
	case PR_SET_KEEPCAPS:
		if (a2 > 1)
			return -EINVAL;
		p->cred.keep_caps = a2;
		return 0;
	case PR_CAPBSET_READ:
		return a2 > CAP_LAST_CAP ? -EINVAL : !!(p->cred.cap_bset & CAP_BIT(a2));
	case PR_SET_NO_NEW_PRIVS:	/* once set, for good: exec never grants privileges again */
		if (a2 != 1 || a3 || a4 || a5)
			return -EINVAL;
		p->cred.no_new_privs = true;
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		return a2 || a3 || a4 || a5 ? -EINVAL : p->cred.no_new_privs;
	case PR_SET_NAME:
		len = strncpy_from_user(name, (const char __user *)a2, sizeof(name));
		if (len == -EFAULT)
			return -EFAULT;
		name[sizeof(name) - 1] = '\0';
		memcpy(p->comm, name, sizeof(name));
		return 0;
	case PR_GET_NAME:
		return copy_to_user((void __user *)a2, p->comm, sizeof(p->comm)) ? -EFAULT : 0;
	case PR_GET_SECCOMP:
		return p->seccomp_mode;
	case PR_SET_SECCOMP:
		if (a2 != SECCOMP_MODE_STRICT)
			return -EINVAL;
		p->seccomp_mode = SECCOMP_MODE_STRICT;
		p->lockless_syscalls = syscall_lockless_none;
		return 0;
	}
	return -EINVAL;
}

/*
 * The CPU and node, read as the vsyscall page's getcpu reads them (rdtscp
 * or lsl, vgetcpu.h), so that the two always agree. tcache is ignored, as
 * Linux has ignored it since 2.6.24: the kernel needs no cache.
 */
long sys_getcpu(unsigned __user *cpu, unsigned __user *node, void __user *tcache)
{
	unsigned int p = vgetcpu_read(vvar.vgetcpu_mode);

	(void)tcache;
	if (cpu && put_user(p & VGETCPU_CPU_MASK, cpu))
		return -EFAULT;
	if (node && put_user(p >> VGETCPU_CPU_BITS, node))
		return -EFAULT;
	return 0;
}
