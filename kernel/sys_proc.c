/* Small process system calls: exit, uname, reboot, getcpu (ids: kernel/cred.c; prctl: kernel/prctl.c; arch_prctl: arch/x86/fsgs.c). */
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

	strlcpy(k.sysname, UTS_SYSNAME, sizeof(k.sysname));
	strlcpy(k.nodename, "ccos", sizeof(k.nodename));
	strlcpy(k.release, UTS_RELEASE, sizeof(k.release));
	strlcpy(k.version, UTS_VERSION, sizeof(k.version));
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
