/* sigaction: install a handler with the restorer the x86-64 ABI requires. */
#include "ulib.h"

/*
 * On x86-64 Linux the kernel returns from a handler through sa_restorer
 * (SA_RESTORER must be set), so every handler gets rt_sigreturn there.
 * handler may also be SIG_DFL or SIG_IGN, cast.
 */
long sigaction(int sig, void (*handler)(int, siginfo_t *, void *),
	       unsigned long flags)
{
	struct kernel_sigaction sa = {
		.sa_handler = handler,
		.sa_flags = flags | SA_SIGINFO | SA_RESTORER,
		.sa_restorer = rt_sigreturn,
	};

	return rt_sigaction(sig, &sa, NULL, sizeof(sigset_t));
}

/*
 * signal, as glibc's and musl's: the handler gets the signal's number
 * only, and a system call it interrupts runs again after it (SA_RESTART,
 * BSD's rule). The handler it replaces, or SIG_ERR.
 */
void (*signal(int sig, void (*handler)(int)))(int)
{
	struct kernel_sigaction sa = {
		.sa_handler = (void *)handler,	/* called with the number only */
		.sa_flags = SA_RESTART | SA_RESTORER,
		.sa_restorer = rt_sigreturn,
	}, old;

	if (rt_sigaction(sig, &sa, &old, sizeof(sigset_t)) < 0)
		return SIG_ERR;
	return (void *)old.sa_handler;
}
