/* The heatmap: a child jumps to each of the 4096 offsets of the vsyscall page; what became of it, one letter each. */
#include "attack.h"

void probe_jump(unsigned long target, void *sled, void *scratch) __attribute__((noreturn));
void probe_landed(void);

#define SLED_WORDS	1024
#define TIMEOUT_NS	(2 * 1000000000l)

static unsigned long sled[SLED_WORDS];
static unsigned char scratch[2 * PAGE];
static int timeouts;

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000l + ts.tv_nsec;
}

/*
 * One letter for one offset: R the page's code returned (to probe_landed),
 * Y it returned after running a syscall instruction of the page, T SIGTRAP,
 * S SIGSEGV, O anything else (another signal, another exit, or still
 * running after TIMEOUT_NS, then killed).
 */
static char probe(unsigned long offset)
{
	long pid = fork(), start = now_ns(), r;
	int status;

	if (pid == 0)
		probe_jump(VSYSCALL_PAGE + offset, sled + SLED_WORDS / 2, scratch + PAGE);
	if (pid < 0)
		return 'O';
	while ((r = wait4(pid, &status, WNOHANG, NULL)) == 0) {
		if (now_ns() - start > TIMEOUT_NS) {
			kill(pid, SIGKILL);
			wait4(pid, &status, 0, NULL);
			timeouts++;
			return 'O';
		}
		sched_yield();
	}
	if (r != pid)
		return 'O';
	if (WIFEXITED(status))
		return WEXITSTATUS(status) == 0 ? 'R' : WEXITSTATUS(status) == 1 ? 'Y' : 'O';
	return WTERMSIG(status) == SIGTRAP ? 'T' : WTERMSIG(status) == SIGSEGV ? 'S' : 'O';
}

/*
 * `heatmap: OFF LETTERS`: 64 lines of 64 letters, offset OFF (hex) first,
 * then `heatmap: counts R=.. Y=.. T=.. S=.. O=..`. tools/heatmap draws them.
 */
void heatmap(void)
{
	char line[65];
	int counts[5] = { 0 }, i, j;
	const char *kinds = "RYTSO";

	for (i = 0; i < SLED_WORDS; i++)
		sled[i] = (unsigned long)probe_landed;
	for (i = 0; i < 64; i++) {
		for (j = 0; j < 64; j++) {
			line[j] = probe(i * 64 + j);
			counts[strchr(kinds, line[j]) - kinds]++;
		}
		line[64] = '\0';
		printf("heatmap: %03x %s\n", i * 64, line);
	}
	printf("heatmap: counts R=%d Y=%d T=%d S=%d O=%d (%d of them still running after %ld ms)\n",
	       counts[0], counts[1], counts[2], counts[3], counts[4], timeouts, TIMEOUT_NS / 1000000);
}
