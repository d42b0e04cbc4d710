/* probe_jump: the heatmap's jump into the vsyscall page, and the landing pad its code returns to. */

/*
 * probe_jump(target, sled, scratch) never returns. rsp moves to sled, the
 * middle of an array whose every word is probe_landed, so that however
 * many words the page's code pops before its ret, it returns to
 * probe_landed. Every other register points into scratch, so that stray
 * stores land there; rax holds no system call number (0x3ff: -ENOSYS), and
 * rcx is 0: the syscall instruction puts the address after itself in rcx
 * (SDM Vol. 2, SYSCALL), so rcx inside the page on landing means a real
 * syscall instruction of the page ran.
 */
	.text
	.globl	probe_jump
	.type	probe_jump, @function
probe_jump:
	movq	%rsi, %rsp
	pushq	%rdi			/* the ret below jumps to target */
	movq	%rdx, %rdi
	movq	%rdx, %rsi
	movq	%rdx, %rbx
	movq	%rdx, %rbp
	movq	%rdx, %r8
	movq	%rdx, %r9
	movq	%rdx, %r10
	movq	%rdx, %r11
	movq	%rdx, %r12
	movq	%rdx, %r13
	movq	%rdx, %r14
	movq	%rdx, %r15
	movl	$0x3ff, %eax
	xorl	%ecx, %ecx
	ret
	.size	probe_jump, . - probe_jump

/* exit_group(1) if rcx is in the page (a syscall there ran), else exit_group(0). */
	.globl	probe_landed
	.type	probe_landed, @function
probe_landed:
	movq	$0xffffffffff600000, %rax	/* sign-extended from 32 bits */
	subq	%rax, %rcx
	xorl	%edi, %edi
	cmpq	$4096, %rcx
	setb	%dil
	movl	$231, %eax			/* exit_group */
	syscall
	hlt
	.size	probe_landed, . - probe_landed

	.section .note.GNU-stack, "", @progbits
