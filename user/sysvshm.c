/* sysvshm: SysV shared memory: shmget, shmat, shmdt and shmctl with Linux's answers and errors (KTAP). */
#include "testutil.h"

/*
 * A segment is shared memory with a key and an id (ipc/shm.c): shmat
 * maps it, fork's child inherits the attachment, IPC_RMID takes the key
 * away at once and the segment with its last attachment. Every case
 * removes the segments it made, whatever it finds, so that none is left
 * on the Linux host (tools/tests/test_host.py); keys are made from the
 * pid, so that two runs do not meet. The MemFree case is ccos's own.
 */

#define IPC_PRIVATE	0
#define IPC_CREAT	01000
#define IPC_EXCL	02000
#define IPC_RMID	0
#define IPC_SET		1
#define IPC_STAT	2
#define SHM_RDONLY	010000
#define SHM_RND		020000
#define SHM_REMAP	040000
#define SHM_DEST	01000
#define FUTEX_WAIT	0
#define FUTEX_WAKE	1

/* Linux's x86-64 struct shmid64_ds, which glibc's and musl's struct shmid_ds are. */
struct shmid_ds {
	struct {
		int key;
		unsigned int uid, gid, cuid, cgid, mode;
		unsigned short seq, pad;
		unsigned long unused[2];
	} shm_perm;
	unsigned long shm_segsz;
	long shm_atime, shm_dtime, shm_ctime;
	int shm_cpid, shm_lpid;
	unsigned long shm_nattch, unused[2];
};

static long shmget(int key, unsigned long size, int flags)
{
	return syscall3(__NR_shmget, key, size, flags);
}

static char *shmat(long id, const void *addr, int flags)
{
	return (char *)syscall3(__NR_shmat, id, (long)addr, flags);
}

static long shmdt(const void *addr)
{
	return syscall1(__NR_shmdt, (long)addr);
}

static long shmctl(long id, int cmd, struct shmid_ds *ds)
{
	return syscall3(__NR_shmctl, id, cmd, (long)ds);
}

static int key_for(int n)
{
	return 0x5ccc0000 | (getpid() & 0xfff) << 4 | n;
}

/* A case's result after its segment is removed: removal failing fails it too. */
static int removed(long id, int ok)
{
	return shmctl(id, IPC_RMID, NULL) == 0 && ok;
}

/* A line of /proc/self/maps that starts at addr, or NULL. */
static const char *maps_line_at(const void *addr, char *buf, long size)
{
	char start[24];
	char *l = buf;

	snprintf(start, sizeof(start), "%08lx-", (unsigned long)addr);
	if (slurp("/proc/self/maps", buf, size) <= 0)
		return NULL;
	for (; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, start, strlen(start)))
			return l;
	return NULL;
}

/* shmget's errors in Linux's order: size, key not found, IPC_EXCL, a size larger than the segment's. */
static int test_shmget_errors(void)
{
	int key = key_for(1);
	long id;
	int ok;

	if (!expect(shmget(IPC_PRIVATE, 0, IPC_CREAT | 0600), -EINVAL, "shmget of size 0") ||
	    !expect(shmget(key, PAGE_SIZE, 0600), -ENOENT, "shmget of a key nobody made"))
		return 0;
	if ((id = shmget(key, 2 * PAGE_SIZE, IPC_CREAT | 0600)) < 0)
		return ktap_fail("shmget(IPC_CREAT) returned %ld", id);
	ok = expect(shmget(key, PAGE_SIZE, IPC_CREAT | IPC_EXCL | 0600), -EEXIST, "IPC_EXCL on a key in use") &&
	     expect(shmget(key, 3 * PAGE_SIZE, 0600), -EINVAL, "a size larger than the segment's") &&
	     expect(shmget(key, 100, 0600), id, "a smaller size: the same segment") &&
	     expect(shmget(key, 0, IPC_CREAT | 0600), id, "size 0 of a segment that exists");
	return removed(id, ok);
}

/* shmat's, shmdt's and shmctl's errors. */
static int test_shmat_shmdt_shmctl_errors(void)
{
	long id = shmget(IPC_PRIVATE, PAGE_SIZE, IPC_CREAT | 0600), gone;
	char *private = map_pages(1);
	struct shmid_ds ds;
	int ok;

	gone = shmget(IPC_PRIVATE, PAGE_SIZE, IPC_CREAT | 0600);
	if (id < 0 || gone < 0 || shmctl(gone, IPC_RMID, NULL))
		return ktap_fail("shmget returned %ld and %ld", id, gone);
	ok = expect((long)shmat(-1, NULL, 0), -EINVAL, "shmat of id -1") &&
	     expect((long)shmat(gone, NULL, 0), -EINVAL, "shmat of a removed segment's id") &&
	     expect((long)shmat(32767, NULL, 0), -EINVAL, "shmat of an id past ccos's table") &&
	     expect(shmctl(32767, IPC_STAT, &ds), -EINVAL, "IPC_STAT of an id past ccos's table") &&
	     expect((long)shmat(id, private + 8, 0), -EINVAL, "shmat at an unaligned address") &&
	     expect((long)shmat(id, NULL, SHM_REMAP), -EINVAL, "SHM_REMAP without an address") &&
	     expect((long)shmat(id, private, 0), -EINVAL, "shmat over a mapping without SHM_REMAP") &&
	     expect(shmdt(private + 8), -EINVAL, "shmdt of an unaligned address") &&
	     expect(shmdt(private), -EINVAL, "shmdt of a private mapping") &&
	     expect(shmctl(id, 999, &ds), -EINVAL, "shmctl's unknown command") &&
	     expect(shmctl(-1, IPC_STAT, &ds), -EINVAL, "IPC_STAT of id -1") &&
	     expect(shmctl(gone, IPC_STAT, &ds), -EINVAL, "IPC_STAT of a removed segment") &&
	     expect(shmctl(id, IPC_STAT, (struct shmid_ds *)8), -EFAULT, "IPC_STAT into a bad pointer") &&
	     expect(shmctl(id, IPC_SET, (struct shmid_ds *)8), -EFAULT, "IPC_SET from a bad pointer");
	munmap(private, PAGE_SIZE);
	return removed(id, ok);
}

static int stat_is(long id, unsigned long nattch, int cpid, int lpid, const char *when)
{
	struct shmid_ds ds;

	memset(&ds, 0x5a, sizeof(ds));
	if (shmctl(id, IPC_STAT, &ds))
		return ktap_fail("IPC_STAT %s failed", when);
	if (ds.shm_segsz != 5000 || ds.shm_perm.key != IPC_PRIVATE || (ds.shm_perm.mode & 0777) != 0640 ||
	    ds.shm_cpid != cpid || !ds.shm_ctime || !ds.shm_atime)
		return ktap_fail("IPC_STAT %s: size %lu, key %d, mode %o, cpid %d, ctime %ld, atime %ld", when,
				 ds.shm_segsz, ds.shm_perm.key, ds.shm_perm.mode, ds.shm_cpid,
				 ds.shm_ctime, ds.shm_atime);
	if (ds.shm_nattch != nattch || ds.shm_lpid != lpid)
		return ktap_fail("IPC_STAT %s: %lu attachments, last pid %d; expected %lu, %d", when,
				 ds.shm_nattch, ds.shm_lpid, nattch, lpid);
	return 1;
}

/*
 * A segment of 5000 bytes attached where the kernel chooses: 2 pages, the
 * child's by fork (2 attachments, the last pid the parent's, which forked),
 * whose write the parent sees, and whose exit detaches it (the last pid is
 * then the child's); shmdt the parent's.
 */
static int test_attach_fork_detach(void)
{
	long id = shmget(IPC_PRIVATE, 5000, IPC_CREAT | 0640), pid;
	char *m, buf[4096];
	int ok, status;

	if (id < 0 || IS_ERR_VALUE(m = shmat(id, NULL, 0)))
		return ktap_fail("shmget or shmat failed");
	memset(m, 0x21, 2 * PAGE_SIZE);
	ok = expect((unsigned long)m % PAGE_SIZE, 0, "the address's offset in its page") &&
	     stat_is(id, 1, getpid(), getpid(), "after shmat");
	if (ok && (pid = fork()) == 0) {
		if (!all_bytes(m, 2 * PAGE_SIZE, 0x21) || !stat_is(id, 2, getppid(), getppid(), "in the child"))
			exit(1);
		m[PAGE_SIZE + 5] = 0x43;
		exit(0);
	}
	ok = ok && wait4(pid, &status, 0, NULL) == pid && expect_exit(status, 0, "the child") &&
	     expect(m[PAGE_SIZE + 5], 0x43, "the child's write") && stat_is(id, 1, getpid(), pid, "after the child's exit");
	ok = ok && expect(shmdt(m), 0, "shmdt") && stat_is(id, 0, getpid(), getpid(), "after shmdt") &&
	     expect(maps_line_at(m, buf, sizeof(buf)) == NULL, 1, "no maps line after shmdt");
	return removed(id, ok);
}

/*
 * At a given address (SHM_RND rounds it down; a second attach there
 * needs SHM_REMAP), and read-only: the same page, whose write is SIGSEGV
 * and which mprotect may not make writable (EACCES).
 */
static int test_given_address_rnd_rdonly(void)
{
	long id = shmget(IPC_PRIVATE, PAGE_SIZE, IPC_CREAT | 0600), pid;
	char *free = map_pages(4), *m, *r;
	int ok, status;

	if (id < 0 || IS_ERR_VALUE(free) || munmap(free, 4 * PAGE_SIZE))
		return ktap_fail("shmget or mmap failed");
	ok = expect((long)(m = shmat(id, free, 0)), (long)free, "shmat at a free address") &&
	     expect((long)shmat(id, free + 123, SHM_RND | SHM_REMAP), (long)free, "SHM_RND | SHM_REMAP over it") &&
	     expect((long)shmat(id, free + 2 * PAGE_SIZE + 5, SHM_RND), (long)free + 2 * PAGE_SIZE, "SHM_RND");
	ok = ok && !IS_ERR_VALUE(r = shmat(id, NULL, SHM_RDONLY));
	if (ok) {
		m[7] = 9;
		ok = expect(r[7] + free[2 * PAGE_SIZE + 7], 18, "the read-only and second attachments' byte") &&
		     expect(mprotect(r, PAGE_SIZE, PROT_READ | PROT_WRITE), -EACCES, "mprotect(PROT_WRITE) of SHM_RDONLY");
		if ((pid = fork()) == 0) {
			r[0] = 1;
			exit(0);
		}
		ok = ok && wait4(pid, &status, 0, NULL) == pid &&
		     expect_signal(status, SIGSEGV, "a write to the SHM_RDONLY attachment");
		ok = expect(shmdt(r), 0, "shmdt of the read-only one") && ok;
	}
	shmdt(free);
	shmdt(free + 2 * PAGE_SIZE);
	return removed(id, ok);
}

/*
 * IPC_SET changes the mode; IPC_RMID takes the key away at once (shmget
 * ENOENT, IPC_STAT key 0 and SHM_DEST), the id still attaches (as Linux
 * allows, over its last attachment too, with SHM_REMAP), and the segment
 * goes with its last attachment (IPC_STAT EINVAL).
 */
static int test_rmid_waits_for_last_detach(void)
{
	int key = key_for(2);
	long id = shmget(key, PAGE_SIZE, IPC_CREAT | IPC_EXCL | 0600), id2;
	char *a = shmat(id, NULL, 0), *b;
	struct shmid_ds ds;
	int ok;

	if (id < 0 || IS_ERR_VALUE(a))
		return ktap_fail("shmget or shmat failed: %ld", id);
	a[0] = 5;
	ok = expect(shmctl(id, IPC_STAT, &ds), 0, "IPC_STAT");
	ds.shm_perm.mode = 0604;
	ok = ok && expect(shmctl(id, IPC_SET, &ds), 0, "IPC_SET") &&
	     expect(shmctl(id, IPC_STAT, &ds), 0, "IPC_STAT") &&
	     expect(ds.shm_perm.mode, 0604, "the mode after IPC_SET") &&
	     expect(shmctl(id, IPC_RMID, NULL), 0, "IPC_RMID") &&
	     expect(shmget(key, PAGE_SIZE, 0600), -ENOENT, "shmget of the removed key") &&
	     expect(shmctl(id, IPC_STAT, &ds), 0, "IPC_STAT after IPC_RMID") &&
	     expect(ds.shm_perm.key, IPC_PRIVATE, "the key after IPC_RMID") &&
	     expect(ds.shm_perm.mode, 0604 | SHM_DEST, "the mode after IPC_RMID");
	b = shmat(id, NULL, 0);
	ok = ok && expect(IS_ERR_VALUE(b) ? (long)b : b[0], 5, "shmat after IPC_RMID, its byte");
	id2 = shmget(key, PAGE_SIZE, IPC_CREAT | IPC_EXCL | 0600);
	ok = ok && expect(id2 >= 0 && id2 != id, 1, "a new segment with the removed key");
	if (id2 >= 0)
		shmctl(id2, IPC_RMID, NULL);
	shmdt(a);
	ok = ok && expect(shmctl(id, IPC_STAT, &ds), 0, "IPC_STAT with one attachment left");
	/* Attached again over its last attachment: the segment lives through the remap. */
	ok = ok && !IS_ERR_VALUE(b) && expect((long)shmat(id, b, SHM_REMAP), (long)b, "SHM_REMAP over the last attachment") &&
	     expect(b[0], 5, "its byte after the remap") && expect(shmctl(id, IPC_STAT, &ds), 0, "IPC_STAT after it");
	if (!IS_ERR_VALUE(b))
		shmdt(b);
	return ok && expect(shmctl(id, IPC_STAT, &ds), -EINVAL, "IPC_STAT after the last shmdt");
}

/* maps names a segment "/SYSV<key> (deleted)", shared, on 00:01 with its id as inode; SHM_RDONLY is r--s. */
static int test_maps_names_sysv(void)
{
	int key = key_for(3);
	long id = shmget(key, PAGE_SIZE, IPC_CREAT | IPC_EXCL | 0600);
	char *m = shmat(id, NULL, 0), *r = shmat(id, NULL, SHM_RDONLY), buf[8192], want[64];
	const char *l;
	int ok = 1;

	if (id < 0 || IS_ERR_VALUE(m) || IS_ERR_VALUE(r))
		return removed(id, ktap_fail("shmget or shmat failed: %ld", id));
	snprintf(want, sizeof(want), "rw-s 00000000 00:01 %ld ", id);
	if (!(l = maps_line_at(m, buf, sizeof(buf))) || strncmp(strchr(l, ' ') + 1, want, strlen(want)))
		ok = ktap_fail("the line at %p: \"%.80s\", expected \"%s\"", m, l ? l : "", want);
	snprintf(want, sizeof(want), "/SYSV%08x (deleted)\n", key);
	if (ok && strncmp(l + 73, want, strlen(want)))
		ok = ktap_fail("the name \"%.30s\", expected \"%s\"", l + 73, want);
	if (ok && (!(l = maps_line_at(r, buf, sizeof(buf))) || strncmp(strchr(l, ' ') + 1, "r--s ", 5)))
		ok = ktap_fail("the SHM_RDONLY line \"%.80s\"", l ? l : "");
	shmdt(m);
	shmdt(r);
	return removed(id, ok);
}

/* A futex in a segment that each process attached on its own, at its own address: one futex. */
static int test_futex_across_attachments(void)
{
	long id = shmget(IPC_PRIVATE, PAGE_SIZE, IPC_CREAT | 0600), pid, woken = 0;
	volatile int *m;
	int i, ok;

	if (id < 0)
		return ktap_fail("shmget failed");
	if ((pid = fork()) == 0) {
		m = (volatile int *)shmat(id, NULL, 0);
		if (IS_ERR_VALUE(m))
			exit(2);
		m[0] = 1;
		exit(syscall4(__NR_futex, (long)(m + 1), FUTEX_WAIT, 0, 0) != 0);
	}
	m = (volatile int *)shmat(id, NULL, 0);
	if (IS_ERR_VALUE(m)) {
		kill(pid, SIGKILL);
		return removed(id, ktap_fail("shmat failed"));
	}
	while (!m[0])
		sched_yield();
	state_of(pid, 'S');
	for (i = 0; i < 1000 && !woken; i++)
		woken = syscall3(__NR_futex, (long)(m + 1), FUTEX_WAKE, 1);
	ok = expect(woken, 1, "the wake of the child's wait") && wait4(pid, &i, 0, NULL) == pid &&
	     expect_exit(i, 0, "the child's FUTEX_WAIT");
	shmdt((void *)m);
	return removed(id, ok);
}

/* ccos's own: a removed segment's pages go with its last attachment. */
static int test_memory_freed_with_the_segment(void)
{
	long id, before, attached, after;
	char *m;

	if (!on_ccos())
		return skip("MemFree on Linux moves with everything else the host does");
	own_memory();
	before = meminfo_kb("MemFree");
	id = shmget(IPC_PRIVATE, 256 * PAGE_SIZE, IPC_CREAT | 0600);
	if (id < 0 || IS_ERR_VALUE(m = shmat(id, NULL, 0)))
		return ktap_fail("shmget or shmat failed");
	memset(m, 1, 256 * PAGE_SIZE);
	shmctl(id, IPC_RMID, NULL);
	attached = meminfo_kb("MemFree");
	shmdt(m);
	after = meminfo_kb("MemFree");
	ktap_diag("MemFree %ld kB; 1 MiB attached, touched, removed: %ld kB; detached: %ld kB",
		  before, attached, after);
	if (before - attached < 1024)
		return ktap_fail("1 MiB of a segment took only %ld kB", before - attached);
	if (before - after > 3 * 4)
		return ktap_fail("the last shmdt gave back all but %ld kB", before - after);
	return 1;
}

static const struct test tests[] = {
	{ "shmget_errors", test_shmget_errors },
	{ "shmat_shmdt_shmctl_errors", test_shmat_shmdt_shmctl_errors },
	{ "attach_fork_detach", test_attach_fork_detach },
	{ "given_address_rnd_rdonly", test_given_address_rnd_rdonly },
	{ "rmid_waits_for_last_detach", test_rmid_waits_for_last_detach },
	{ "maps_names_sysv", test_maps_names_sysv },
	{ "futex_across_attachments", test_futex_across_attachments },
	{ "memory_freed_with_the_segment", test_memory_freed_with_the_segment },
};

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	return run_tests(tests, ARRAY_SIZE(tests));
}
