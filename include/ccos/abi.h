/* The Linux x86-64 user ABI as the kernel sees it: flags, numbers and struct layouts. */
#ifndef CCOS_ABI_H
#define CCOS_ABI_H

#include <ccos/types.h>
#include <ccos/time_types.h>

struct iovec {
	void __user *iov_base;
	size_t iov_len;
};

struct stat {
	uint64_t st_dev, st_ino, st_nlink;
	uint32_t st_mode, st_uid, st_gid, pad0;
	uint64_t st_rdev;
	int64_t st_size, st_blksize, st_blocks;
	struct timespec st_atim, st_mtim, st_ctim;
	int64_t unused[3];
};
BUILD_BUG_ON(sizeof(struct stat) != 144);

/* getrusage's and wait4's: the CPU times, then counts ccos keeps none of (0). */
struct rusage {
	struct timeval ru_utime, ru_stime;
	long ru_maxrss, ru_ixrss, ru_idrss, ru_isrss, ru_minflt, ru_majflt, ru_nswap;
	long ru_inblock, ru_oublock, ru_msgsnd, ru_msgrcv, ru_nsignals, ru_nvcsw, ru_nivcsw;
};
BUILD_BUG_ON(sizeof(struct rusage) != 144);

/* times(): in clock ticks of USER_HZ (AT_CLKTCK). */
struct tms {
	long tms_utime, tms_stime, tms_cutime, tms_cstime;
};
#define USER_HZ		100

/*
 * What uname says (docs/conformance.md): Linux, whose ABI ccos speaks,
 * and a release that is the Linux whose system calls ccos implements, so
 * that a program that asks for a version before it uses a call finds it;
 * "-ccos" at its end tells the two kernels apart.
 */
#define UTS_SYSNAME	"Linux"
#define UTS_RELEASE	"6.1.0-ccos"
#define UTS_VERSION	"ccos teaching kernel"

struct utsname {
	char sysname[65], nodename[65], release[65], version[65], machine[65], domainname[65];
};

#define S_IFMT		0170000
#define S_IFLNK		0120000
#define S_IFREG		0100000
#define S_IFDIR		0040000
#define S_IFCHR		0020000
#define S_IFIFO		0010000
#define S_ISUID		0004000
#define S_ISGID		0002000
#define S_ISVTX		0001000

#define O_ACCMODE	03
#define O_RDONLY	00
#define O_WRONLY	01
#define O_RDWR		02
#define O_CREAT		0100
#define O_EXCL		0200
#define O_TRUNC		01000
#define O_APPEND	02000
#define O_NONBLOCK	04000
#define O_DIRECT	040000
#define O_DIRECTORY	0200000
#define O_NOFOLLOW	0400000
#define O_CLOEXEC	02000000
#define O_PATH		010000000
#define AT_FDCWD	(-100)
#define SEEK_SET	0
#define SEEK_CUR	1
#define SEEK_END	2

#define PROT_READ	1
#define PROT_WRITE	2
#define PROT_EXEC	4
#define MAP_PRIVATE	0x02
#define MAP_SHARED	0x01
#define MAP_SHARED_VALIDATE 0x03
#define MAP_TYPE	0x0f
#define MAP_FIXED	0x10
#define MAP_ANONYMOUS	0x20
#define MAP_32BIT	0x40
#define MAP_FIXED_NOREPLACE 0x100000

#define WNOHANG		1
#define WUNTRACED	2
#define WCONTINUED	8

#define ARCH_SET_GS	0x1001
#define ARCH_SET_FS	0x1002
#define ARCH_GET_FS	0x1003
#define ARCH_GET_GS	0x1004

/* auxv types (elf.h) */
#define AT_NULL		0
#define AT_PHDR		3
#define AT_PHENT	4
#define AT_PHNUM	5
#define AT_PAGESZ	6
#define AT_BASE		7
#define AT_ENTRY	9
#define AT_UID		11
#define AT_EUID		12
#define AT_GID		13
#define AT_EGID		14
#define AT_PLATFORM	15
#define AT_HWCAP	16
#define AT_CLKTCK	17
#define AT_SECURE	23
#define AT_RANDOM	25
#define AT_HWCAP2	26
#define HWCAP2_FSGSBASE	(1 << 1)	/* ring 3 may use rdfsbase and its kin */
#define AT_EXECFN	31
#define AT_SYSINFO_EHDR	33
#define AT_MINSIGSTKSZ	51	/* the largest signal frame (Linux 5.14) */

#endif
