/* ttyread: read the console in the modes the arguments set, and say what each read returned (the shell boot's tests of the line discipline). */
#include "ulib.h"

#define VINTR		0
#define FIONREAD	0x541b

/*
 * ttyread [raw] [min=N] [time=N] [intr=N] [alarm=S] [poll] [reads=N]
 *   raw:    no ICANON, no ECHO;  min, time: VMIN and VTIME;
 *   intr:   VINTR (0: no key, _POSIX_VDISABLE);
 *   alarm:  SIGALRM after S seconds, whose handler ends a waiting read (-EINTR);
 *   poll:   before the first read, wait until a byte is there (poll with
 *           VMIN 1), then say how many and what poll says in the modes
 *           asked for (Linux: POLLIN once VMIN bytes are there if VTIME is 0);
 *   reads:  how many reads (1), each into an 8 KiB buffer.
 * It prints `ttyread: ready` once the modes are set, then for each read
 * `ttyread: read R, first F, last L, switches S`: what read returned, the
 * first and last byte read (-1: none), and the context switches of all
 * CPUs while it waited (/proc/smpstat: a read that sleeps makes a few, one
 * that spins thousands; -1 where there is no such file). The old modes
 * come back at the end.
 */
static char buf[8192];
static struct termios saved;

static long number(const char *s)
{
	long n = 0;

	while (*s >= '0' && *s <= '9')
		n = n * 10 + *s++ - '0';
	return n;
}

/* The sum of the `switches N` of /proc/smpstat's lines, or -1. */
static long switches(void)
{
	static char text[4096];
	long fd = open("/proc/smpstat", O_RDONLY, 0), n, sum = 0;
	char *p = text;

	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	while ((p = strchr(p, 's'))) {
		if (!strncmp(p, "switches ", 9))
			sum += number(p + 9);
		p++;
	}
	return sum;
}

static void on_alarm(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
}

/* ^C (a test's recovery, or a kernel that sends SIGINT for a NUL): the old modes back first, as the shell does not. */
static void on_sigint(int sig, siginfo_t *si, void *uc)
{
	(void)si, (void)uc;
	ioctl(0, TCSETS, (unsigned long)&saved);
	exit_group(128 + sig);
}

int main(int argc, char **argv, char **envp)
{
	struct termios t, one;
	struct pollfd pfd = { 0, POLLIN, 0 };
	long r, before, reads = 1, alarm_s = 0;
	int i, poll_first = 0;

	(void)envp;
	if (ioctl(0, TCGETS, (unsigned long)&saved) < 0) {
		dprintf(2, "ttyread: standard input is not a terminal\n");
		return 1;
	}
	t = saved;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "raw"))
			t.c_lflag &= ~(ICANON | ECHO);
		else if (!strncmp(argv[i], "min=", 4))
			t.c_cc[VMIN] = number(argv[i] + 4);
		else if (!strncmp(argv[i], "time=", 5))
			t.c_cc[VTIME] = number(argv[i] + 5);
		else if (!strncmp(argv[i], "intr=", 5))
			t.c_cc[VINTR] = number(argv[i] + 5);
		else if (!strncmp(argv[i], "alarm=", 6))
			alarm_s = number(argv[i] + 6);
		else if (!strcmp(argv[i], "poll"))
			poll_first = 1;
		else if (!strncmp(argv[i], "reads=", 6))
			reads = number(argv[i] + 6);
		else {
			dprintf(2, "ttyread: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	sigaction(SIGALRM, on_alarm, 0);	/* no SA_RESTART: the read ends with -EINTR */
	sigaction(SIGINT, on_sigint, 0);
	ioctl(0, TCSETS, (unsigned long)&t);
	printf("ttyread: ready\n");
	if (poll_first) {
		one = t;
		one.c_cc[VMIN] = 1;
		one.c_cc[VTIME] = 0;
		ioctl(0, TCSETS, (unsigned long)&one);
		poll(&pfd, 1, -1);
		ioctl(0, TCSETS, (unsigned long)&t);
		ioctl(0, FIONREAD, (unsigned long)&i);
		printf("ttyread: %d typed, poll %ld\n", i, poll(&pfd, 1, 0));
	}
	alarm(alarm_s);
	while (reads-- > 0) {
		before = switches();
		r = read(0, buf, sizeof(buf));
		printf("ttyread: read %ld, first %d, last %d, switches %ld\n", r,
		       r > 0 ? (unsigned char)buf[0] : -1, r > 0 ? (unsigned char)buf[r - 1] : -1,
		       before < 0 ? -1 : switches() - before);
	}
	ioctl(0, TCSETS, (unsigned long)&saved);
	return 0;
}
