/* rt_sigreturn: the signal restorer a handler's ret lands in. */

/*
 * The kernel pushed this address (sa_restorer) as the handler's return
 * address, right above the signal frame. When the handler returns, rsp
 * points at the saved ucontext, which rt_sigreturn restores.
 */
	.text
	.globl	rt_sigreturn
	.type	rt_sigreturn, @function
rt_sigreturn:
	movl	$15, %eax		/* __NR_rt_sigreturn */
	syscall
	hlt				/* not reached */
	.size	rt_sigreturn, . - rt_sigreturn

	.section .note.GNU-stack, "", @progbits
