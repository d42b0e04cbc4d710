/* execve: a new address space from an ELF module, and Linux's initial stack. */
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/sched.h>
#include <ccos/elf.h>
#include <ccos/file.h>
#include <ccos/path.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/random.h>
#include <ccos/uaccess.h>
#include <ccos/printk.h>
#include <asm/arch.h>
#include <ccos/aslr.h>
#include <ccos/time.h>

#define MAX_ARG_BYTES	(64 * 1024ul)
#define MAX_ARGS	256

/*
 * The stack a new program starts with (System V x86-64 psABI §3.4.1), from
 * rsp upwards: argc, argv[0..argc-1], NULL, envp[...], NULL, the auxv
 * pairs ending with AT_NULL, then the strings and AT_RANDOM's 16 bytes
 * near the top. rsp is 16-byte aligned.
 */
static int build_stack(struct mm *mm, uint64_t sp, const struct elf_info *info, const struct cred *c,
		       bool secure, const char *execfn, char *const argv[], int argc, char *const envp[],
		       int envc, uint64_t *rsp)
{
	uint64_t ptrs[MAX_ARGS * 2 + 2], *words, at;
	uint64_t aux[][2] = {
		{ AT_PHDR, info->phdr }, { AT_PHENT, sizeof(Elf64_Phdr) },
		{ AT_PHNUM, info->phnum }, { AT_PAGESZ, PAGE_SIZE },
		{ AT_BASE, 0 }, { AT_ENTRY, info->entry }, { AT_UID, c->uid },
		{ AT_EUID, c->euid }, { AT_GID, c->gid }, { AT_EGID, c->egid }, { AT_CLKTCK, USER_HZ },
		{ AT_SECURE, secure }, { AT_RANDOM, 0 }, { AT_EXECFN, 0 },
		{ AT_HWCAP2, cpu_has_fsgsbase ? HWCAP2_FSGSBASE : 0 },
		{ AT_SYSINFO_EHDR, mm->vdso_base }, { AT_MINSIGSTKSZ, sigframe_size_max() },
		{ AT_NULL, 0 },
	};
	size_t naux = ARRAY_SIZE(aux), nwords, i, n = 0, len;
	uint64_t random[2] = { get_random_u64(), get_random_u64() };
	int err = 0;

	if (!mm->vdso_base) {		/* no vDSO: leave AT_SYSINFO_EHDR out */
		aux[naux - 2][0] = AT_NULL;
		naux--;
	}
#define PUSH_BYTES(src, len) ({ sp -= (len); err |= copy_to_mm(mm, sp, (src), (len)); sp; })
	aux[13][1] = PUSH_BYTES(execfn, strlen(execfn) + 1);
	/* The arguments in order, one after the other, as /proc/PID/cmdline reads them. */
	for (i = 0, len = 0; i < (size_t)argc; i++)
		len += strlen(argv[i]) + 1;
	mm->arg_end = sp;
	mm->arg_start = sp -= len;
	for (i = 0, at = sp; i < (size_t)argc; at += strlen(argv[i++]) + 1) {
		ptrs[n++] = at;
		err |= copy_to_mm(mm, at, argv[i], strlen(argv[i]) + 1);
	}
	ptrs[n++] = 0;
	for (i = 0; i < (size_t)envc; i++)
		ptrs[n++] = PUSH_BYTES(envp[i], strlen(envp[i]) + 1);
	ptrs[n++] = 0;
	sp = ALIGN_DOWN(sp, 16);
	aux[12][1] = PUSH_BYTES(random, sizeof(random));
#undef PUSH_BYTES

	nwords = 1 + n + 2 * naux;
	sp = ALIGN_DOWN(sp - nwords * 8, 16);
	words = kmalloc(nwords * 8);
	if (!words)
		return -ENOMEM;
	words[0] = argc;
	memcpy(words + 1, ptrs, n * 8);
	memcpy(words + 1 + n, aux, naux * 16);
	err |= copy_to_mm(mm, sp, words, nwords * 8);
	kfree(words);
	*rsp = sp;
	return err ? -EFAULT : 0;
}

static void set_comm(struct process *p, const char *path)
{
	const char *slash, *base = path;

	for (slash = path; *slash; slash++)
		if (*slash == '/')
			base = slash + 1;
	memset(p->comm, 0, sizeof(p->comm));	/* as Linux, zeros after the name: PR_GET_NAME copies all 16 bytes */
	strlcpy(p->comm, base, sizeof(p->comm));
}

/* Replace p's program; argv and envp are in kernel memory. */
int exec_image(struct process *p, const char *path, char *const argv[], int argc,
	       char *const envp[], int envc)
{
	const struct module_file *m;
	struct place file;
	struct elf_info info;
	struct stat st;
	struct mm *mm, *old;
	struct cred cred = p->cred;	/* the same groups: only ids and capabilities change */
	bool secure = cred_exec(&cred);
	uint64_t rsp, stack_top = STACK_TOP - aslr_offset(p, ASLR_STACK_BITS);
	int err, sig;

	/* The program is a module; a link leads to one (/bin/ls -> busybox), anything else is not one. */
	if ((err = kernel_lookup(&p->fs->cwd, path, LOOKUP_FOLLOW, &file)) < 0)
		return err;
	if (file.node || !(m = module_lookup(file.path)))
		return (err = place_stat(&file, &st)) < 0 ? err : -EACCES;
	mm = mm_create();
	if (!mm)
		return -ENOMEM;
	mm->mmap_base = MMAP_TOP - aslr_offset(p, ASLR_MMAP_BITS);
	err = elf_load(mm, m->name, m->data, m->size, aslr_offset(p, ASLR_LOAD_BITS), &info);
	if (!err)
		err = mm_map(mm, stack_top - STACK_SIZE, STACK_SIZE, PROT_READ | PROT_WRITE, "[stack]");
	if (!err)
		err = map_vdso(mm, aslr_enabled(p));
	if (!err)
		err = build_stack(mm, stack_top, &info, &cred, secure, m->name, argv, argc, envp, envc, &rsp);
	if (err) {
		mm_release(mm);
		return err;
	}
	mm->brk_start = mm->brk = info.brk + aslr_offset(p, ASLR_BRK_BITS);

	/* The point of no return: the old program's other threads go first. */
	err = de_thread(p);
	if (!err)
		err = sighand_unshare(&p->sig.action);	/* exec resets them: its own now */
	if (!err)
		err = fdtable_unshare(&p->files);	/* and closes some, as Linux's unshare_files */
	if (err) {
		mm_release(mm);
		return err;
	}
	p->cred = cred;
	exit_robust_list(p);		/* as Linux: the list was the old program's */
	exit_pi_locks(p);		/* and so were its PI locks */
	exit_posix_timers(p->tgid);	/* the interval timers stay */
	clear_child_tid(p);
	old = p->mm;
	p->mm = mm;
	if (p == current())
		switch_address_space(mm->pml4);
	if (old)
		mm_release(old);
	set_comm(p, path);		/* as Linux: the name it was run by, not the link's target */
	p->exe = m;
	close_on_exec(p);
	memset(p->tf, 0, sizeof(*p->tf));
	p->tf->rip = info.entry;
	p->tf->rsp = rsp;
	p->tf->cs = USER_CS;
	p->tf->ss = USER_DS;
	p->tf->rflags = RFLAGS_IF | 0x2;	/* bit 1 is always set */
	p->fs_base = p->gs_base = 0;
	p->fsindex = p->gsindex = 0;
	memcpy(p->fpu, fpu_initial_state, fpu_state_size);
	if (p == current()) {
		fsgs_load(p);
		fpu_restore(p->fpu);
	}
	/* Handlers do not survive exec; ignored signals stay ignored. */
	for (sig = 1; sig <= NSIG; sig++)
		if (p->sig.action[sig - 1].handler != SIG_IGN)
			p->sig.action[sig - 1] = (struct k_sigaction){ 0 };
	p->sig.altstack = (stack_t){ .ss_flags = SS_DISABLE };
	if (p->vfork_parent) {
		wakeup(p->vfork_parent);
		p->vfork_parent = NULL;
	}
	return 0;
}

/* Copy a NULL-terminated array of user strings into arena; the count or an error. */
static int copy_strings(const char *const __user *uarr, char **out, int max,
			char **arena, size_t *left)
{
	int n;

	for (n = 0; uarr; n++) {
		const char __user *s;
		long len;

		if (get_user(s, &uarr[n]))
			return -EFAULT;
		if (!s)
			return n;
		if (n == max)
			return -E2BIG;
		len = strncpy_from_user(*arena, s, *left);
		if (len < 0)
			return len == -ENAMETOOLONG ? -E2BIG : len;
		out[n] = *arena;
		*arena += len + 1;
		*left -= len + 1;
	}
	return 0;
}

long sys_execve(const char __user *upath, const char *const __user *uargv,
		const char *const __user *uenvp)
{
	char *buf = kmalloc(MAX_ARG_BYTES), *arena, *path;
	char **argv = kmalloc(MAX_ARGS * sizeof(char *));
	char **envp = kmalloc(MAX_ARGS * sizeof(char *));
	size_t left = MAX_ARG_BYTES - PATH_MAX;
	long len, argc = 0, envc = 0, err = -ENOMEM;

	if (!buf || !argv || !envp)
		goto out;
	path = buf;
	arena = buf + PATH_MAX;
	len = strncpy_from_user(path, upath, PATH_MAX);
	err = len;
	if (len < 0)
		goto out;
	argc = copy_strings(uargv, argv, MAX_ARGS, &arena, &left);
	envc = copy_strings(uenvp, envp, MAX_ARGS, &arena, &left);
	err = argc < 0 ? argc : envc < 0 ? envc : 0;
	if (!err)
		err = exec_image(current(), path, argv, argc, envp, envc);
out:
	kfree(buf);
	kfree(argv);
	kfree(envp);
	return err;
}
