/* fuzz's descriptor races: in a thread round, threads close, dup2 and reopen descriptors others sleep on. */
#include "fuzz.h"

#define SIGPIPE		13
#define FD_LO		3
#define FD_N		8		/* the round's descriptors: 3 to 10 */
#define SCRATCH		(12 * 1024)	/* three pipes' worth: a write of it sleeps */
#define L(x)		((long)(x))

static char scratch[SCRATCH];
static volatile int sleeping_on[4];	/* per thread: the descriptor its call may sleep on, or 0 */

static int slot(unsigned long r)
{
	return FD_LO + r % FD_N;
}

/* fd, opened anywhere, becomes descriptor to (closing what was there). */
static void move(long fd, int to)
{
	if (fd >= 0 && fd != to) {
		dup2(fd, to);
		close(fd);
	}
}

void fuzz_file_name(char *name, int len, unsigned long i)
{
	snprintf(name, len, "/tmp/fuzz-fd%lu", i % FUZZ_FILES);
}

/*
 * The round starts with a pipe that is empty (3 and 4: a read of 3
 * sleeps) and one that is full (5 and 6: a write or a sendfile into 6
 * sleeps), files of /tmp holding 32 KiB (7 and 10: sendfile's input),
 * /proc/meminfo (8) and /dev/null (9), each file named by one descriptor
 * only, so that a close frees it. The round's files start anew, so that
 * none grows from round to round. SIGPIPE is ignored: a write to a pipe
 * that lost its readers says EPIPE and the round goes on.
 */
void fds_setup(void)
{
	char name[32];
	int p[2], i;
	long fd;

	sigaction(SIGPIPE, (void *)SIG_IGN, 0);
	for (i = 0; i < FUZZ_FILES; i++) {
		fuzz_file_name(name, sizeof(name), i);
		fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (i >= 2) {
			close(fd);
			continue;
		}
		write(fd, scratch, 32768);
		lseek(fd, 0, SEEK_SET);
		move(fd, i ? 10 : 7);
	}
	if (!pipe(p)) {
		move(p[0], 3);
		move(p[1], 4);
	}
	if (!pipe2(p, O_NONBLOCK)) {
		while (write(p[1], scratch, SCRATCH) > 0)
			;
		fcntl(p[1], F_SETFL, 0);
		move(p[0], 5);
		move(p[1], 6);
	}
	move(open("/proc/meminfo", O_RDONLY, 0), 8);
	move(open("/dev/null", O_RDWR, 0), 9);
}

/*
 * Small allocations of chosen bytes, in the kernel heap's class where a
 * struct file is: the names of directories made and removed at once
 * (what issue 28's exploit did). A call that went on with a file freed
 * under it would find 'AAAA...' where its ops and data were, a
 * non-canonical address, and fault.
 */
void fuzz_spray_name(char *name, int len, int i)
{
	snprintf(name, len, "/tmp/fuzz-%02d-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", i);
}

static void take_freed_memory(void)
{
	char name[64];
	int i;

	for (i = 0; i < FUZZ_SPRAY; i++) {
		fuzz_spray_name(name, sizeof(name), i);
		syscall2(__NR_mkdir, L(name), 0700);
		syscall1(__NR_rmdir, L(name));
	}
}

/* A descriptor another thread's call sleeps on (or may), or 0. */
static int slept_on(unsigned long r)
{
	int i, fd;

	for (i = 0; i < 4; i++)
		if ((fd = sleeping_on[(r + i) % 4]))
			return fd;
	return 0;
}

/*
 * Change what a descriptor names, under the threads that may be using it;
 * one time in two, close one that a call sleeps on and allocate over it.
 */
void fd_op(const unsigned long *r)
{
	static const char *const devices[] = { "/dev/null", "/dev/zero", "/proc/meminfo", "/proc/self/stat" };
	int a = slot(r[0]), b = slot(r[0] >> 8), p[2], victim = slept_on(r[3]);
	char name[32];

	if (victim && r[3] >> 8 & 1) {
		close(victim);
		take_freed_memory();
		return;
	}
	switch (r[1] % 9) {
	case 0: close(a); break;
	case 1: dup2(a, b); break;
	case 2: dup3(a, b, O_CLOEXEC); break;
	case 3:
		if (!pipe2(p, r[2] & 1 ? O_NONBLOCK : 0)) {
			move(p[0], a);
			move(p[1], b);
		}
		break;
	case 4:
		fuzz_file_name(name, sizeof(name), r[2]);
		move(open(name, O_RDWR | O_CREAT | (r[2] >> 4 & 1 ? O_TRUNC : 0) |
			  (r[2] >> 5 & 1 ? O_APPEND : 0), 0600), a);
		break;
	case 5:
		move(open(devices[r[2] % 4], r[2] % 4 < 2 ? O_RDWR : O_RDONLY, 0), a);
		break;
	case 6: fcntl(a, F_SETFL, r[2] & 1 ? O_NONBLOCK : 0); break;
	case 7: close(a); take_freed_memory(); break;
	default: close(a); close(b); break;
	}
}

/*
 * A call that may sleep on a descriptor: a read of an empty pipe, a write
 * or sendfile into a full one, a poll; the positioned calls; and a write
 * and a read of the two pipes, which wake their sleepers. While it runs,
 * the thread's sleeping_on names the descriptor whose file the call uses
 * after it wakes, for another thread's fd_op to close.
 */
void block_op(const unsigned long *r, int thread)
{
	int a = slot(r[0]), b = slot(r[0] >> 8);
	long n = r[2] % SCRATCH + 1, off = r[3] % (4 * PAGE_SIZE);
	struct iovec iov[2] = { { scratch, n / 2 }, { scratch + n / 2, n - n / 2 } };
	struct pollfd fds[3] = { { a, POLLIN, 0 }, { b, POLLOUT, 0 }, { slot(r[3]), POLLIN | POLLOUT, 0 } };

	sleeping_on[thread % 4] = a;
	switch (r[1] % 9) {
	case 0: read(a, scratch, n); break;
	case 1: write(a, scratch, n); break;
	case 2:	/* into the full pipe, half the time */
		syscall4(__NR_sendfile, r[3] >> 24 & 1 ? 6 : b, a, r[2] >> 20 & 1 ? L(&off) : 0, n);
		break;
	case 3: poll(fds, 3, r[3] % 9); break;
	case 4: syscall4(__NR_pread64, a, L(scratch), n, off); break;
	case 5: syscall4(__NR_pwrite64, a, L(scratch), n, off); break;
	case 6: syscall4(r[3] >> 16 & 1 ? __NR_preadv : __NR_pwritev, a, L(iov), 2, off); break;
	case 7:
		write(4, scratch, 1);
		read(5, scratch, SCRATCH);
		break;
	default: readv(a, iov, 2); break;
	}
	sleeping_on[thread % 4] = 0;
}

/*
 * The leader's last act: wake whoever still sleeps on a descriptor of the
 * round, so the round ends without the watchdog. Every descriptor becomes
 * non-blocking (for the leader's calls; a sleeper sleeps on), then is
 * written a byte (a reader wakes) and read (a writer wakes), a few times
 * over for writers of more than a pipe holds.
 */
void fds_drain(void)
{
	int i, fd;

	for (fd = FD_LO; fd < FD_LO + FD_N; fd++)
		fcntl(fd, F_SETFL, O_NONBLOCK);
	for (i = 0; i < 4; i++) {
		for (fd = FD_LO; fd < FD_LO + FD_N; fd++) {
			write(fd, scratch, 1);
			read(fd, scratch, SCRATCH);
		}
		sched_yield();
	}
}
