/* run_in_child: run a function in a forked child and return its wait status. */
#include "ulib.h"

/*
 * A test that must fault (or may crash) runs here, so only the child dies:
 * the caller checks WIFSIGNALED/WTERMSIG or WEXITSTATUS of the result. A
 * negative result is the errno of a failed fork or wait4.
 */
int run_in_child(int (*fn)(void *), void *arg)
{
	long pid, r;
	int status;

	pid = fork();
	if (pid < 0)
		return pid;
	if (pid == 0)
		exit_group(fn(arg));
	r = wait4(pid, &status, 0, NULL);
	if (r < 0)
		return r;
	return status;
}
