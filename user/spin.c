/* spin: loop forever in user mode, for scheduler and preemption tests. */
#include "ulib.h"

/*
 * In the foreground it says so first, so that a test can wait for that
 * line, not for a fixed time, before it types ^C: from then on the
 * terminal's signals are the program's (the shell's child made its group
 * the foreground one before exec). In the background it stays quiet.
 */
int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	if (tcgetpgrp(0) == getpgrp())
		printf("spinning\n");
	for (;;)
		asm volatile("" ::: "memory");
}
