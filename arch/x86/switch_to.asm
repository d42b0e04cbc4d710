; The kernel context switch: from one kernel stack to another.

section .text
bits 64

; switch_to(uint64_t *save_rsp, uint64_t new_rsp): save the callee-saved
; registers on this stack, park its rsp in *save_rsp, and resume the
; context whose stack is new_rsp. The other side returns from its own
; switch_to call (or, for a new process, into trap_return).
global switch_to
switch_to:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret
