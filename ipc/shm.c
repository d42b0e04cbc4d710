/* SysV shared memory: shmget, shmat, shmdt and shmctl, segments named by keys and ids, each a shared memory object. */
#include <ccos/syscall.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/mm.h>
#include <ccos/shmem.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/time.h>
#include <ccos/printk.h>
#include <ccos/uaccess.h>
#include <asm/arch.h>

/*
 * A segment is a shared memory object (mm/shmem.c) with a name: a key
 * that shmget finds it by (IPC_PRIVATE makes one nobody can find), and an
 * id that the other calls take. shmat maps the whole object, shared, as
 * mmap's MAP_SHARED does; shmdt unmaps it; fork's child inherits each
 * attachment, and exit and exec detach them. The segment counts its
 * attachments (an area that maps it, counted as Linux's shm_open and
 * shm_close count: each area made or gone, fork's and a split's too).
 * IPC_RMID removes the key at once and the segment with its last
 * attachment, as Linux: until then it can still be attached by its id.
 *
 * Every process of ccos is root (uid and gid 0), so the permission bits
 * are kept and shown but never refuse (Linux's CAP_IPC_OWNER). The table
 * holds SHMMNI segments. Lock rule: the kernel lock, as the areas.
 */
#define IPC_PRIVATE	0
#define IPC_CREAT	01000
#define IPC_EXCL	02000
#define IPC_RMID	0
#define IPC_SET		1
#define IPC_STAT	2
#define IPC_INFO	3
#define SHM_LOCK	11
#define SHM_UNLOCK	12
#define SHM_STAT	13
#define SHM_INFO	14
#define SHM_STAT_ANY	15
#define SHM_RDONLY	010000
#define SHM_RND		020000
#define SHM_REMAP	040000
#define SHM_EXEC	0100000
#define SHM_DEST	01000	/* in the mode: removed, goes with its last attachment */
#define SHM_LOCKED	02000
#define SHMLBA		PAGE_SIZE
#define SHMMIN		1ul
#define SHMMAX		(~0ul - (1ul << 24))	/* Linux's defaults */
#define SHMALL		(~0ul - (1ul << 24))
#define SHMMNI		128
#define SEQ_MULTIPLIER	32768	/* an id is seq * SEQ_MULTIPLIER + index, as Linux's */

/* Linux's x86-64 layouts (asm-generic/ipcbuf.h, shmbuf.h). */
struct ipc64_perm {
	int key;
	uint32_t uid, gid, cuid, cgid, mode;
	uint16_t seq, pad;
	uint64_t unused[2];
};

struct shmid64_ds {
	struct ipc64_perm shm_perm;
	uint64_t shm_segsz;
	int64_t shm_atime, shm_dtime, shm_ctime;
	int shm_cpid, shm_lpid;
	uint64_t shm_nattch, unused[2];
};

struct shminfo64 {
	uint64_t shmmax, shmmin, shmmni, shmseg, shmall, unused[4];
};

struct shm_info {
	int used_ids;
	uint64_t shm_tot, shm_rss, shm_swp, swap_attempts, swap_successes;
};

struct shm_segment {
	int key, id;
	uint32_t uid, gid;	/* the owner's, which IPC_SET may change */
	uint32_t mode;		/* the permission bits, SHM_DEST, SHM_LOCKED */
	uint64_t size;
	int64_t atime, dtime, ctime;
	int cpid, lpid;
	uint64_t nattch;
	struct shmem *obj;
};

static struct shm_segment *segments[SHMMNI];
static uint16_t next_seq;

static struct shm_segment *find_id(int id)
{
	struct shm_segment *seg;

	if (id < 0 || id % SEQ_MULTIPLIER >= SHMMNI || !(seg = segments[id % SEQ_MULTIPLIER]) ||
	    seg->id != id)
		return NULL;
	return seg;
}

static struct shm_segment *find_key(int key)
{
	int i;

	for (i = 0; i < SHMMNI; i++)
		if (segments[i] && segments[i]->key == key)
			return segments[i];
	return NULL;
}

static void shm_destroy(struct shm_segment *seg)
{
	segments[seg->id % SEQ_MULTIPLIER] = NULL;
	seg->obj->attached = NULL;
	shmem_put(seg->obj);
	kfree(seg);
}

/* An area that maps seg was made (delta 1) or is gone (-1): Linux's shm_open and shm_close. */
static void shm_attached(struct shmem *obj, int delta)
{
	struct shm_segment *seg = obj->owner;

	seg->nattch += delta;
	if (current())
		seg->lpid = current()->tgid;
	*(delta > 0 ? &seg->atime : &seg->dtime) = ktime_get_real_seconds();
	if (!seg->nattch && (seg->mode & SHM_DEST))
		shm_destroy(seg);
}

/* Linux's newseg: a segment of size bytes, its id, or the error. */
static long newseg(int key, uint64_t size, int flags)
{
	uint64_t npages = ALIGN_UP(size, PAGE_SIZE) / PAGE_SIZE;
	struct shm_segment *seg;
	int i;

	if (size < SHMMIN || size > SHMMAX)
		return -EINVAL;
	if (npages > frames_free())
		return -ENOMEM;		/* more than is free could never be met, as mmap */
	for (i = 0; i < SHMMNI && segments[i]; i++)
		;
	if (i == SHMMNI)
		return -ENOSPC;
	if (!(seg = kzalloc(sizeof(*seg))))
		return -ENOMEM;
	if (!(seg->obj = shmem_create(npages, ""))) {
		kfree(seg);
		return -ENOMEM;
	}
	seg->key = key;
	seg->id = ++next_seq * SEQ_MULTIPLIER + i;
	seg->mode = flags & 0777;
	seg->size = size;
	seg->ctime = ktime_get_real_seconds();
	seg->cpid = current()->tgid;
	seg->obj->ino = seg->id;
	seg->obj->owner = seg;
	seg->obj->attached = shm_attached;
	snprintf(seg->obj->name, sizeof(seg->obj->name), "/SYSV%08x (deleted)", (uint32_t)key);
	segments[i] = seg;
	return seg->id;
}

long sys_shmget(int key, uint64_t size, int flags)
{
	struct shm_segment *seg;

	if (key == IPC_PRIVATE)
		return newseg(key, size, flags);
	if (!(seg = find_key(key)))
		return flags & IPC_CREAT ? newseg(key, size, flags) : -ENOENT;
	if ((flags & IPC_CREAT) && (flags & IPC_EXCL))
		return -EEXIST;
	if (seg->size < size)
		return -EINVAL;
	return seg->id;
}

/*
 * Linux's do_shmat, in its order of checks: the address (a multiple of
 * SHMLBA, or rounded down with SHM_RND; SHM_REMAP needs one), then the id,
 * then, for a given address, that nothing is mapped there unless
 * SHM_REMAP. The whole segment is mapped, read-only with SHM_RDONLY (and
 * mprotect may not make it writable), executable with SHM_EXEC.
 */
long sys_shmat(int id, uint64_t addr, int flags)
{
	struct mm *mm = current()->mm;
	int prot = flags & SHM_RDONLY ? PROT_READ : PROT_READ | PROT_WRITE;
	struct shm_segment *seg;
	struct vma *next;
	uint64_t len;
	int err;

	if (id < 0)
		return -EINVAL;
	if (addr % SHMLBA) {
		if (!(flags & SHM_RND))
			return -EINVAL;
		addr = ALIGN_DOWN(addr, SHMLBA);
		if (!addr && (flags & SHM_REMAP))
			return -EINVAL;
	} else if (!addr && (flags & SHM_REMAP)) {
		return -EINVAL;
	}
	if (flags & SHM_EXEC)
		prot |= PROT_EXEC;
	if (!(seg = find_id(id)))
		return -EINVAL;
	len = seg->obj->npages * PAGE_SIZE;
	if (addr) {
		if (addr + len < addr)
			return -EINVAL;
		if (addr + len > USER_TOP)
			return -ENOMEM;
		next = vma_next(mm, addr);
		if (!(flags & SHM_REMAP) && next && next->start < addr + len)
			return -EINVAL;
	} else if (!(addr = mm_find_gap(mm, len))) {
		return -ENOMEM;
	}
	/*
	 * Counted as attached meanwhile, as Linux's do_shmat: SHM_REMAP over
	 * the last attachment of a removed segment must not destroy it
	 * before the new one is made.
	 */
	seg->nattch++;
	err = mm_map_shmem(mm, addr, len, prot, seg->obj, 0);
	if (!err)
		mm_find_vma(mm, addr)->nowrite = flags & SHM_RDONLY;
	if (!--seg->nattch && (seg->mode & SHM_DEST))
		shm_destroy(seg);
	return err ? err : (long)addr;
}

/*
 * Linux's shmdt: the attachment that starts at addr is the first segment
 * area at or after it whose offset in the segment is its distance from
 * addr; it goes, and so do the pieces of the same segment after it (what
 * mprotect or munmap split it into) as far as the segment's size reaches.
 */
long sys_shmdt(uint64_t addr)
{
	struct mm *mm = current()->mm;
	struct shmem *obj = NULL;
	struct vma *v, *next;
	uint64_t end = 0;

	if (addr % PAGE_SIZE)
		return -EINVAL;
	for (v = vma_next(mm, addr); v && (!obj || v->end - addr <= end); v = next) {
		next = v->next;
		if (!v->shmem || v->shmem->attached != shm_attached || v->start - addr != v->offset ||
		    (obj && v->shmem != obj))
			continue;
		if (!obj) {
			obj = v->shmem;
			end = obj->npages * PAGE_SIZE;
		}
		mm_unmap(mm, v->start, v->end - v->start);
	}
	return obj ? 0 : -EINVAL;
}

static void shm_stat(const struct shm_segment *seg, struct shmid64_ds *ds)
{
	memset(ds, 0, sizeof(*ds));
	ds->shm_perm.key = seg->key;
	ds->shm_perm.uid = seg->uid;
	ds->shm_perm.gid = seg->gid;
	ds->shm_perm.mode = seg->mode;
	ds->shm_perm.seq = seg->id / SEQ_MULTIPLIER;
	ds->shm_segsz = seg->size;
	ds->shm_atime = seg->atime;
	ds->shm_dtime = seg->dtime;
	ds->shm_ctime = seg->ctime;
	ds->shm_cpid = seg->cpid;
	ds->shm_lpid = seg->lpid;
	ds->shm_nattch = seg->nattch;
}

/* The highest index in use (IPC_INFO's and SHM_INFO's answer), and how many and how large. */
static long shm_usage(struct shm_info *info)
{
	long max = 0;
	int i;

	memset(info, 0, sizeof(*info));
	for (i = 0; i < SHMMNI; i++) {
		if (!segments[i])
			continue;
		max = i;
		info->used_ids++;
		info->shm_tot += segments[i]->obj->npages;
	}
	return max;
}

/* IPC_INFO, SHM_INFO, SHM_STAT and SHM_STAT_ANY: about the table, or a segment by its index. */
static long shmctl_info(int id, int cmd, void __user *buf)
{
	struct shminfo64 limits = { SHMMAX, SHMMIN, SHMMNI, SHMMNI, SHMALL, { 0 } };
	struct shmid64_ds ds;
	struct shm_info info;
	long max = shm_usage(&info);

	if (cmd == IPC_INFO)
		return copy_to_user(buf, &limits, sizeof(limits)) ? -EFAULT : max;
	if (cmd == SHM_INFO)
		return copy_to_user(buf, &info, sizeof(info)) ? -EFAULT : max;
	if (id >= SHMMNI || !segments[id])
		return -EINVAL;
	shm_stat(segments[id], &ds);
	return copy_to_user(buf, &ds, sizeof(ds)) ? -EFAULT : segments[id]->id;
}

long sys_shmctl(int id, int cmd, void __user *buf)
{
	struct shm_segment *seg;
	struct shmid64_ds ds;

	if (cmd < 0 || id < 0)
		return -EINVAL;
	if (cmd == IPC_INFO || cmd == SHM_INFO || cmd == SHM_STAT || cmd == SHM_STAT_ANY)
		return shmctl_info(id, cmd, buf);
	if (cmd == IPC_SET && copy_from_user(&ds, buf, sizeof(ds)))
		return -EFAULT;
	if (cmd != IPC_STAT && cmd != IPC_SET && cmd != IPC_RMID && cmd != SHM_LOCK &&
	    cmd != SHM_UNLOCK)
		return -EINVAL;
	if (!(seg = find_id(id)))
		return -EINVAL;
	switch (cmd) {
	case IPC_STAT:
		shm_stat(seg, &ds);
		return copy_to_user(buf, &ds, sizeof(ds)) ? -EFAULT : 0;
	case IPC_SET:
		if (ds.shm_perm.uid == ~0u || ds.shm_perm.gid == ~0u)
			return -EINVAL;		/* no such owner */
		seg->uid = ds.shm_perm.uid;
		seg->gid = ds.shm_perm.gid;
		seg->mode = (seg->mode & ~0777) | (ds.shm_perm.mode & 0777);
		seg->ctime = ktime_get_real_seconds();
		return 0;
	case IPC_RMID:
		seg->mode |= SHM_DEST;
		seg->key = IPC_PRIVATE;		/* shmget finds it no more */
		if (!seg->nattch)
			shm_destroy(seg);
		return 0;
	case SHM_LOCK:
		seg->mode |= SHM_LOCKED;	/* ccos never pages out: nothing more to do */
		return 0;
	}
	seg->mode &= ~SHM_LOCKED;
	return 0;
}
