/* echo: print the arguments, separated by spaces, and a newline (-n: no newline). */
#include "ulib.h"

int main(int argc, char **argv, char **envp)
{
	char buf[1024];
	int i = 1, n = 0, newline = 1;

	(void)envp;

	if (argc > 1 && !strcmp(argv[1], "-n")) {
		newline = 0;
		i++;
	}
	for (; i < argc && n < (int)sizeof(buf) - 1; i++)
		n += snprintf(buf + n, sizeof(buf) - 1 - n, "%s%s", argv[i], i + 1 < argc ? " " : "");
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	if (newline)
		buf[n++] = '\n';
	return write(1, buf, n) == n ? 0 : 1;
}
