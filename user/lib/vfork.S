/* vfork: in assembly, because the child shares and runs on the parent's stack. */

/*
 * The child returns first and reuses the stack below the caller's frame, so
 * this function must keep nothing on the stack across the system call: the
 * return address waits in rdx (a C wrapper's frame would be overwritten by
 * the child before the parent returns through it).
 */
	.text
	.globl	vfork
	.type	vfork, @function
vfork:
	popq	%rdx
	movl	$58, %eax		/* __NR_vfork */
	syscall
	pushq	%rdx
	ret
	.size	vfork, . - vfork

	.section .note.GNU-stack, "", @progbits
