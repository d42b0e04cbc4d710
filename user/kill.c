/* kill: send a signal (default SIGTERM, or -N) to each process id, or to group -PGID. */
#include "ulib.h"

static long number(const char *s, int *ok)
{
	long v = 0, sign = 1;

	if (*s == '-')
		sign = -1, s++;
	*ok = *s != 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			*ok = 0;
		v = v * 10 + (*s - '0');
	}
	return sign * v;
}

int main(int argc, char **argv, char **envp)
{
	int i = 1, sig = SIGTERM, status = 0, ok;
	long r;

	(void)envp;

	if (argc > 1 && argv[1][0] == '-' && argc > 2) {
		sig = -number(argv[1], &ok);
		if (!ok || sig <= 0 || sig >= NSIG) {
			dprintf(2, "kill: %s is not a signal number\n", argv[1]);
			return 1;
		}
		i++;
	}
	if (i == argc) {
		dprintf(2, "usage: kill [-SIGNUMBER] PID...\n");
		return 1;
	}
	for (; i < argc; i++) {
		long pid = number(argv[i], &ok);

		if (!ok || (r = kill(pid, sig)) < 0) {
			dprintf(2, "kill: %s: %s\n", argv[i], ok ? "no such process" : "not a process id");
			status = 1;
		}
	}
	return status;
}
