/* testutil: expectations, time, small mappings, files and memory for the ulib test programs. */
#include "testutil.h"

int expect(long got, long want, const char *what)
{
	if (got == want)
		return 1;
	return ktap_fail("%s returned %ld, expected %ld", what, got, want);
}

int expect_exit(int status, int code, const char *what)
{
	if (status < 0)
		return ktap_fail("%s: fork or wait4 failed: %d", what, status);
	if (WIFSIGNALED(status))
		return ktap_fail("%s: killed by signal %d, expected exit %d",
				 what, WTERMSIG(status), code);
	return expect(WEXITSTATUS(status), code, what);
}

int expect_signal(int status, int sig, const char *what)
{
	if (status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == sig)
		return 1;
	return ktap_fail("%s: wait status %#x, expected killed by signal %d",
			 what, status, sig);
}

int on_ccos(void)
{
	static int known = -1;
	struct utsname u;

	if (known < 0)
		known = uname(&u) == 0 && strlen(u.release) > 5 &&
			strcmp(u.release + strlen(u.release) - 5, "-ccos") == 0;	/* 6.1.0-ccos */
	return known;
}

long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

long sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	return nanosleep(&ts, NULL);
}

void *map_pages(int n)
{
	return mmap(NULL, n * PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

int all_bytes(const char *p, unsigned long n, int c)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] != (unsigned char)c)
			return 0;
	return 1;
}

unsigned long fill_from_zero(char *p, unsigned long len, long zero)
{
	unsigned long done = 0, chunk;
	long n;

	for (; done < len; done += n) {
		chunk = len - done < (1ul << 20) ? len - done : 1ul << 20;
		if ((n = read(zero, p + done, chunk)) <= 0)
			break;
	}
	return done;
}

char test_dir[64];

const char *in_dir(const char *name)
{
	static char bufs[4][128];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", test_dir, name);
	return b;
}

long slurp(const char *file, char *buf, long size)
{
	long fd = open(file, O_RDONLY, 0), n, got = 0;

	if (fd < 0)
		return fd;
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return got;
}

/* The state letter of /proc/PID/stat, waiting up to 2 s for want; 0 when there is no such file. */
char state_of(long pid, char want)
{
	char file[64], stat[1024];
	int i;

	snprintf(file, sizeof(file), "/proc/%ld/stat", pid);
	for (i = 0; i < 200; i++) {
		if (slurp(file, stat, sizeof(stat)) <= 0 || !strchr(stat, ')'))
			return 0;
		if (strchr(stat, ')')[2] == want)
			break;
		sleep_ns(10 * MSEC);
	}
	return strchr(stat, ')')[2];
}

/*
 * A page takes its frame at its first touch, and a page that fork shares
 * its copy at the first write on either side (docs/memory.md): a case that
 * compares MemFree before and after some work must not count the pages
 * that the work, or the reading of MemFree itself, writes for the first
 * time, nor those its parent writes meanwhile (a case runs in a child,
 * which shares its stack and data with the parent; the runner's watchdog
 * writes its variables after the fork). So this process writes, first,
 * every page of its .data and .bss and of its stack from 32 KiB below this
 * frame up to the initial stack (where environ points): with zeros below
 * the frame, elsewhere with the bytes each holds. From then on every such
 * page is its own, and the parent's writes take its pages back, no copy.
 */
void own_memory(void)
{
	extern char __data_start[], __bss_end[];
	volatile char pad[32 * 1024], *p;
	unsigned long i;

	for (p = __data_start; p < __bss_end; p += PAGE_SIZE)
		*p = *p;
	for (i = 0; i < sizeof(pad); i += PAGE_SIZE)
		pad[i] = 0;
	for (p = __builtin_frame_address(0); p < (volatile char *)environ; p += PAGE_SIZE)
		*p = *p;
}

/* FIELD of /proc/meminfo ("MemFree", "MemTotal", ...), in kB, or -1. */
long meminfo_kb(const char *field)
{
	char buf[512], *p;
	long fd = open("/proc/meminfo", O_RDONLY, 0), n, kb = 0, len = strlen(field);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = buf;
	while (strncmp(p, field, len) || p[len] != ':') {
		p = strchr(p, '\n');
		if (!p)
			return -1;
		p++;
	}
	for (p += len + 1; *p == ' '; p++)
		;
	for (; *p >= '0' && *p <= '9'; p++)
		kb = kb * 10 + (*p - '0');
	return kb;
}
