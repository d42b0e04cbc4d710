/* thread_clone: a new thread (or process) that runs a function on a stack of its own. */
#include "ulib.h"

/*
 * clone(flags, stack, ptid, ctid, tls); the new thread calls fn(arg) on
 * its stack, then exit(0), which ends that thread only. The parent gets
 * clone's result. In assembly: the child has no C frame to return into.
 */
__asm__(".text\n"
	".globl thread_clone\n"
	"thread_clone:\n"
	"	movq 8(%rsp), %rax\n"		/* arg */
	"	subq $16, %rsi\n"
	"	movq %r9, (%rsi)\n"		/* fn and arg on the new stack */
	"	movq %rax, 8(%rsi)\n"
	"	movq %rcx, %r10\n"		/* ctid: the fourth argument is r10 */
	"	movl $56, %eax\n"		/* __NR_clone */
	"	syscall\n"
	"	testq %rax, %rax\n"
	"	jnz 1f\n"
	"	popq %rax\n"
	"	popq %rdi\n"
	"	call *%rax\n"			/* rsp is 16-byte aligned before the call */
	"	xorl %edi, %edi\n"
	"	movl $60, %eax\n"		/* __NR_exit: this thread only */
	"	syscall\n"
	"	ud2\n"
	"1:	ret\n");
