/* Program entry: hand the Linux initial stack to start_main, never return. */

/*
 * The kernel enters here with rsp pointing at argc, then the argv pointers,
 * a NULL, the envp pointers, a NULL and the auxv pairs (see start.c). rsp is
 * 16-byte aligned; the call below keeps the alignment the ABI asks for.
 */
	.text
	.globl	_start
	.type	_start, @function
_start:
	xorl	%ebp, %ebp		/* outermost frame, for debuggers */
	movq	%rsp, %rdi		/* start_main(sp) */
	andq	$-16, %rsp
	call	start_main
	hlt				/* start_main never returns */
	.size	_start, . - _start

	.section .rodata.ident, "a"
	.asciz	"ccos user program"

	.section .note.GNU-stack, "", @progbits
