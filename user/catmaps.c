/* catmaps: the article's experiment: `cat /proc/self/maps`, twice. */
#include "ulib.h"

/*
 * The LWN article "On vsyscalls and the vDSO" runs `cat /proc/self/maps`
 * twice and compares:
 * the [vdso] line moves (each exec maps it at a new random address), the
 * [vsyscall] line stays at ffffffffff600000, an address fixed by the ABI.
 * Each cat here is a new process from a fresh execve, as from a shell.
 * tools/tests/test_maps.py reads the two listings back from the log.
 */
int main(int argc, char **argv, char **envp)
{
	char *cat[] = { "/bin/cat", "/proc/self/maps", NULL };
	int round, status = 0;

	(void)argc, (void)argv;
	for (round = 0; round < 2; round++) {
		long pid;

		printf("$ cat /proc/self/maps\n");
		pid = fork();
		if (pid == 0) {
			execve(cat[0], cat, envp);
			exit_group(127);
		}
		if (pid < 0 || wait4(pid, &status, 0, NULL) != pid || status)
			return printf("catmaps: cat failed (wait status %#x)\n", status), 1;
	}
	return 0;
}
