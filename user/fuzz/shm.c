/* fuzz's SysV shared memory: calls aimed at segments that exist, and every segment removed before memory is counted. */
#include "fuzz.h"

#define IPC_PRIVATE	0
#define IPC_CREAT	01000
#define IPC_RMID	0
#define SHM_STAT	13
#define SHMMNI		128	/* ccos's table (ipc/shm.c) */

/*
 * A random id is almost never a segment's (an id is seq * 32768 + index),
 * and a segment outlives the child that made it. So half the shmget calls
 * make a segment (IPC_PRIVATE or one of four keys, a small size), half the
 * shmat and shmctl calls take the id of one that exists (SHM_STAT by
 * index, asked by the parent as it draws the call), and half those shmat
 * calls let the kernel choose the address: the child attaches it, and its
 * exit detaches it. Only bits of r the call already drew decide, so a
 * seed still makes the same calls.
 */
static long segment_id(unsigned long r)
{
	unsigned long ds[14];
	long id;
	int i;

	for (i = 0; i < SHMMNI; i++)
		if ((id = syscall3(__NR_shmctl, (r + i) % SHMMNI, SHM_STAT, (long)ds)) >= 0)
			return id;
	return -1;
}

void aim_shm_call(struct call *c, unsigned long r)
{
	long id;

	if (!(r >> 40 & 1))
		return;
	if (c->nr == __NR_shmget) {
		c->a[0] = r >> 41 & 1 ? IPC_PRIVATE : 0xf022000 + (r >> 42 & 3);
		c->a[1] = (r >> 44 & 7) * 3000 + 1;
		c->a[2] = (c->a[2] & 0177777) | IPC_CREAT;
	} else if ((c->nr == __NR_shmat || c->nr == __NR_shmctl) && (id = segment_id(r >> 48)) >= 0) {
		c->a[0] = id;
		if (c->nr == __NR_shmat && (r >> 47 & 1))
			c->a[1] = 0;
		if (c->nr == __NR_shmctl)
			c->a[1] = (r >> 56) % 16;
	}
}

/* Every segment goes (their pages with them): none may count as memory leaked. */
void remove_segments(void)
{
	unsigned long ds[14];
	long id;
	int i;

	for (i = 0; i < SHMMNI; i++)
		if ((id = syscall3(__NR_shmctl, i, SHM_STAT, (long)ds)) >= 0)
			syscall3(__NR_shmctl, id, IPC_RMID, 0);
}
