/* start_main: read argc, argv, envp and auxv off the initial stack; getauxval. */
#include "ulib.h"

char **environ;
static unsigned long *auxv;

/*
 * The stack the kernel built, from sp upwards:
 *
 *	argc
 *	argv[0] ... argv[argc - 1], NULL
 *	envp[0] ... NULL
 *	auxv: (type, value) pairs ending with AT_NULL
 */
void start_main(long *sp) __attribute__((noreturn, used));
void start_main(long *sp)
{
	int argc = sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	char **p = envp;

	while (*p)
		p++;
	environ = envp;
	auxv = (unsigned long *)(p + 1);
	exit_group(main(argc, argv, envp));
}

unsigned long getauxval(unsigned long type)
{
	unsigned long *a;

	for (a = auxv; a[0] != AT_NULL; a += 2)
		if (a[0] == type)
			return a[1];
	return 0;
}
