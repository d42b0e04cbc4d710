/* Linux x86-64 user ABI: errno values, flags and struct layouts ccos shares. */
#ifndef USER_LINUX_H
#define USER_LINUX_H

typedef unsigned long size_t;
typedef long ssize_t;
typedef long off_t;
typedef int pid_t;
typedef unsigned int uid_t;
typedef unsigned int gid_t;
typedef unsigned long uintptr_t;
typedef unsigned long uint64_t;
typedef unsigned int uint32_t;
typedef unsigned short uint16_t;
typedef unsigned char uint8_t;

#define NULL ((void *)0)

/* errno values; system calls return them negated */
#define EPERM		1
#define ENOENT		2
#define ESRCH		3
#define EINTR		4
#define EIO		5
#define ENOEXEC		8
#define EBADF		9
#define ECHILD		10
#define EAGAIN		11
#define ENOMEM		12
#define EACCES		13
#define EFAULT		14
#define EEXIST		17
#define ENOTDIR		20
#define EISDIR		21
#define EINVAL		22
#define EMFILE		24
#define ENOTTY		25
#define ESPIPE		29
#define ERANGE		34
#define ENOSYS		38

/* a raw result in [-4095, -1] is an error */
#define IS_ERR_VALUE(x)	((unsigned long)(x) >= (unsigned long)-4095)

/* open, openat, lseek */
#define O_RDONLY	00
#define O_WRONLY	01
#define O_RDWR		02
#define O_CREAT		0100
#define O_TRUNC		01000
#define O_DIRECTORY	0200000
#define O_CLOEXEC	02000000
#define AT_FDCWD	(-100)
#define SEEK_SET	0
#define SEEK_CUR	1
#define SEEK_END	2

/* mmap, mprotect */
#define PROT_NONE	0
#define PROT_READ	1
#define PROT_WRITE	2
#define PROT_EXEC	4
#define MAP_SHARED	0x01
#define MAP_PRIVATE	0x02
#define MAP_FIXED	0x10
#define MAP_ANONYMOUS	0x20
#define MAP_FAILED	((void *)-1)
#define PAGE_SIZE	4096UL

/* wait4 options and status encoding */
#define WNOHANG		1
#define WEXITSTATUS(s)	(((s) >> 8) & 0xff)
#define WTERMSIG(s)	((s) & 0x7f)
#define WIFEXITED(s)	(WTERMSIG(s) == 0)
#define WIFSIGNALED(s)	(WTERMSIG(s) != 0 && WTERMSIG(s) != 0x7f)
#define WCOREDUMP(s)	((s) & 0x80)

/* signals */
#define SIGHUP		1
#define SIGINT		2
#define SIGQUIT		3
#define SIGILL		4
#define SIGTRAP		5
#define SIGABRT		6
#define SIGBUS		7
#define SIGFPE		8
#define SIGKILL		9
#define SIGUSR1		10
#define SIGSEGV		11
#define SIGUSR2		12
#define SIGPIPE		13
#define SIGALRM		14
#define SIGTERM		15
#define SIGCHLD		17
#define SIGCONT		18
#define SIGSTOP		19
#define SIGURG		23
#define SIGWINCH	28
#define SIGSYS		31
#define NSIG		64

#define SA_SIGINFO	0x00000004
#define SA_RESTORER	0x04000000
#define SA_ONSTACK	0x08000000
#define SA_RESTART	0x10000000
#define SA_NODEFER	0x40000000
#define SA_RESETHAND	0x80000000
#define SIG_DFL		((void (*)(int))0)
#define SIG_IGN		((void (*)(int))1)
#define SIG_ERR		((void (*)(int))-1)
#define SIG_BLOCK	0
#define SIG_UNBLOCK	1
#define SIG_SETMASK	2
#define SS_ONSTACK	1
#define SS_DISABLE	2
#define SI_USER		0
#define SI_KERNEL	0x80
#define SEGV_MAPERR	1
#define SEGV_ACCERR	2
#define ILL_ILLOPN	2
#define FPE_INTDIV	1
#define FPE_FLTDIV	3
#define FPE_FLTOVF	4
#define FPE_FLTUND	5
#define FPE_FLTRES	6
#define FPE_FLTINV	7
#define BUS_ADRALN	1
#define TRAP_BRKPT	1
#define TRAP_TRACE	2
#define MINSIGSTKSZ	2048

/* clocks */
#define CLOCK_REALTIME	0
#define CLOCK_MONOTONIC	1
#define TIMER_ABSTIME	1

/* arch_prctl, prctl, reboot */
#define ARCH_SET_GS	0x1001
#define ARCH_SET_FS	0x1002
#define ARCH_GET_FS	0x1003
#define ARCH_GET_GS	0x1004
#define PR_SET_NAME	15
#define PR_GET_NAME	16
#define PR_GET_SECCOMP	21
#define PR_SET_SECCOMP	22
#define SECCOMP_MODE_STRICT 1
#define LINUX_REBOOT_MAGIC1	0xfee1dead
#define LINUX_REBOOT_MAGIC2	672274793
#define LINUX_REBOOT_CMD_POWER_OFF 0x4321fedc

/* auxiliary vector types */
#define AT_NULL		0
#define AT_PHDR		3
#define AT_PHENT	4
#define AT_PHNUM	5
#define AT_PAGESZ	6
#define AT_ENTRY	9
#define AT_RANDOM	25
#define AT_SYSINFO_EHDR	33

#define S_IFMT		0170000
#define S_IFREG		0100000
#define S_IFCHR		0020000
#define S_ISREG(m)	(((m) & S_IFMT) == S_IFREG)

struct timespec {
	long tv_sec;
	long tv_nsec;
};

struct timeval {
	long tv_sec;
	long tv_usec;
};

struct timezone {
	int tz_minuteswest;
	int tz_dsttime;
};

struct iovec {
	void *iov_base;
	size_t iov_len;
};

/* struct stat as x86-64 Linux's fstat fills it (144 bytes) */
struct stat {
	unsigned long st_dev;
	unsigned long st_ino;
	unsigned long st_nlink;
	unsigned int st_mode;
	unsigned int st_uid;
	unsigned int st_gid;
	unsigned int __pad0;
	unsigned long st_rdev;
	long st_size;
	long st_blksize;
	long st_blocks;
	struct timespec st_atim;
	struct timespec st_mtim;
	struct timespec st_ctim;
	long __unused[3];
};

struct utsname {
	char sysname[65];
	char nodename[65];
	char release[65];
	char version[65];
	char machine[65];
	char domainname[65];
};

/* the kernel's sigaction: handler, flags, restorer, then a 64-bit mask */
typedef unsigned long sigset_t;
#define SIGBIT(sig)	(1UL << ((sig) - 1))

typedef struct siginfo {
	int si_signo;
	int si_errno;
	int si_code;
	int __pad;
	union {
		struct {		/* kill, SI_USER; SIGCHLD and waitid with the rest */
			pid_t si_pid;
			uid_t si_uid;
			int si_status;
			long si_utime, si_stime;
		};
		void *si_addr;		/* SIGSEGV, SIGBUS, SIGILL, SIGFPE */
		char __size[112];
	};
} siginfo_t;

struct kernel_sigaction {
	void (*sa_handler)(int, siginfo_t *, void *);
	unsigned long sa_flags;
	void (*sa_restorer)(void);
	sigset_t sa_mask;
};

typedef struct {
	void *ss_sp;
	int ss_flags;
	size_t ss_size;
} stack_t;

/* the fxsave area uc_mcontext.fpstate points to (Linux's struct _fpstate) */
struct fpstate {
	uint16_t cwd, swd, ftw, fop;	/* x87 control, status, tag; opcode */
	uint64_t rip, rdp;		/* last x87 instruction and operand */
	uint32_t mxcsr, mxcsr_mask;
	uint32_t st_space[32];		/* st0-st7, 16 bytes each */
	uint32_t xmm_space[64];		/* xmm0-xmm15, 16 bytes each */
	uint32_t reserved[24];
};

/* struct sigcontext (x86-64), the registers at the moment of the signal */
struct sigcontext {
	unsigned long r8, r9, r10, r11, r12, r13, r14, r15;
	unsigned long rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp;
	unsigned long rip;
	unsigned long eflags;
	unsigned short cs, gs, fs, ss;
	unsigned long err;
	unsigned long trapno;
	unsigned long oldmask;
	unsigned long cr2;
	struct fpstate *fpstate;
	unsigned long __reserved1[8];
};

typedef struct ucontext {
	unsigned long uc_flags;
	struct ucontext *uc_link;
	stack_t uc_stack;
	struct sigcontext uc_mcontext;
	sigset_t uc_sigmask;
} ucontext_t;

/* ELF program header, to walk AT_PHDR */
typedef struct {
	uint32_t p_type;
	uint32_t p_flags;
	uint64_t p_offset;
	uint64_t p_vaddr;
	uint64_t p_paddr;
	uint64_t p_filesz;
	uint64_t p_memsz;
	uint64_t p_align;
} Elf64_Phdr;
#define PT_LOAD		1
#define PF_X		1
#define PF_W		2
#define PF_R		4

/* the layouts are ABI: a wrong size or offset must not build */
_Static_assert(sizeof(struct stat) == 144, "struct stat");
_Static_assert(sizeof(siginfo_t) == 128, "siginfo_t");
_Static_assert(sizeof(struct kernel_sigaction) == 32, "sigaction");
_Static_assert(sizeof(struct sigcontext) == 256, "sigcontext");
_Static_assert(__builtin_offsetof(ucontext_t, uc_mcontext) == 40, "ucontext");
_Static_assert(__builtin_offsetof(struct sigcontext, cr2) == 22 * 8, "cr2");
_Static_assert(sizeof(struct utsname) == 390, "utsname");
_Static_assert(sizeof(struct fpstate) == 512, "fpstate");
_Static_assert(__builtin_offsetof(struct fpstate, xmm_space) == 160, "xmm");

#endif
