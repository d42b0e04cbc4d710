; Interrupt and exception entry: 256 small stubs that push a uniform trap
; frame (include/ccos/trap.h), one common path into C, and the way back out.

%include "ccos/layout.inc"

section .text
bits 64

; Intel SDM Vol. 3 §6.13: the CPU pushes an error code for these vectors
; only (#DF, #TS, #NP, #SS, #GP, #PF, #AC, #CP, #VC, #SX); the others get a
; zero so that every frame has the same shape.
%macro trap_stub 1
align 16
trap_stub_%1:
%if !(%1 == 8 || (%1 >= 10 && %1 <= 14) || %1 == 17 || %1 == 21 || %1 == 29 || %1 == 30)
	push 0
%endif
	push %1
	jmp trap_common
%endmacro

%assign i 0
%rep 256
	trap_stub i
%assign i i + 1
%endrep

trap_common:
	; Coming from ring 3, GS still holds the user's base: swap in the
	; kernel's per-CPU base (SDM: swapgs exchanges GS.base with
	; IA32_KERNEL_GS_BASE). The saved CS tells where we came from.
	test qword [rsp + TF_CS - TF_VECTOR], 3
	jz .from_kernel
	swapgs
.from_kernel:
	push_registers
	cld				; the C ABI wants DF clear
	mov rdi, rsp
	extern trap_dispatch
	call trap_dispatch

; Also the first return of a new process: its kernel stack holds a frame.
global trap_return
trap_return:
	pop_registers
	test qword [rsp + TF_CS - TF_VECTOR], 3
	jz .to_kernel
	swapgs
.to_kernel:
	add rsp, 16			; vector and error code
	iretq

section .rodata
align 8
global trap_stubs
trap_stubs:
%assign i 0
%rep 256
	dq trap_stub_%+i
%assign i i + 1
%endrep
