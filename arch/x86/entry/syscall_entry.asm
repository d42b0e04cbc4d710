; The SYSCALL entry and exit.

%include "asm/layout.inc"
%include "asm/pti.inc"

SYSCALL_MARK	equ 0x100	; trap_frame.vector of a system call (no IDT vector)

section .entry.text progbits alloc exec nowrite align=16
bits 64

; SYSCALL (SDM Vol. 2B): rcx = user rip, r11 = user rflags, CS/SS from
; STAR, RFLAGS &= ~FMASK (so IF is clear here), and rsp is still the
; user's. swapgs gives us the per-CPU block, which holds the kernel stack.
;
; Two entries, as Linux 4.15's entry trampoline: syscall_entry, and
; syscall_entry_pti with the CR3 switches (%1 = 1). Boot writes LSTAR
; with the one pti= chose (syscall_entry_address, pti.c), so pti=off runs
; not one instruction more than before PTI, and each entry leaves by its
; own SYSRET exit. With pti=on, CR3 holds the user table, which maps the
; per-CPU block only through the entry area: rsp waits there while it is
; the scratch register of the switch to the kernel's table.
%macro syscall_64 1
	swapgs
%if %1
; LAB pti: BEGIN
	mov [gs:pti_entry_offset + EA_SCRATCH], rsp
	switch_to_kernel_cr3 rsp
	mov rsp, [gs:pti_entry_offset + EA_SCRATCH]
%if 0 ; LAB pti: STUB
	; The kernel's table, and rsp still the user's when you are done:
	; which register may you use, and where may you keep rsp meanwhile?
%endif ; LAB pti: END
%endif
	mov [gs:PERCPU_USER_RSP], rsp
	mov rsp, [gs:PERCPU_KERNEL_RSP]
	; The same frame an interrupt from ring 3 would leave.
	push USER_DS			; ss
	push qword [gs:PERCPU_USER_RSP]	; rsp
	push r11			; rflags
	push USER_CS			; cs
	push rcx			; rip
	push rax			; error code: the call's number (Linux's orig_ax, for a restart)
	push SYSCALL_MARK		; vector
	push_registers
	mov rdi, rsp			; DF is clear: FMASK cleared it (syscall_init)
	call syscall_dispatch

	; SYSRET is the fast way back, but it takes rip from rcx and rflags
	; from r11, and on Intel CPUs it faults in ring 0 on a non-canonical
	; rip. Use it only for a frame that a plain system call left: rcx ==
	; rip, r11 == rflags, user CS and SS, canonical rip. Anything else
	; (execve, signal delivery, rt_sigreturn) goes out through iretq.
	mov rcx, [rsp + TF_RIP]
	cmp rcx, [rsp + TF_RCX]
	jne %%iret
	mov r11, [rsp + TF_RFLAGS]
	cmp r11, [rsp + TF_R11]
	jne %%iret
	; Nor with TF or RF set. SYSRET loads RFLAGS from r11 masked with
	; 3C7FD7H (SDM Vol. 2B SYSRET), which drops RF; and a TF it sets
	; traps at once, before the first user instruction, where IRETQ
	; traps after it. A single-stepped program whose registers look
	; like a plain system call's (rcx = rip, r11 = rflags: just after a
	; syscall, say) would get a #DB at the same rip forever.
	test r11, 0x10100		; RF | TF
	jnz %%iret
	; SYSRET loads CS and SS from STAR, whatever the frame says: a cs or
	; ss that rt_sigreturn took from a frame must fault as iretq faults.
	cmp qword [rsp + TF_CS], USER_CS
	jne %%iret
	cmp qword [rsp + TF_SS], USER_DS
	jne %%iret
	; Only a rip in the user half (below 2^47) is certainly canonical;
	; trap_return sees to the others. (rcx is popped from the frame
	; again below, so the test may shift it away.)
	shr rcx, 47
	jnz %%iret

	pop_registers_but_rdi
%if %1
; LAB pti: BEGIN
	; Onto the entry stack with the user's rsp and rdi, which
	; switch_to_user_cr3 needs as its scratch register.
	mov rdi, rsp
	mov rsp, [gs:pti_entry_offset + EA_RSP0]
	push qword [rdi + 8 + TF_RSP - TF_VECTOR]
	push qword [rdi]
	switch_to_user_cr3 rdi
	pop rdi
	pop rsp
%if 0 ; LAB pti: STUB
	; rsp points at the saved rdi, then the vector, ..., the user's rsp
	; (the %else below does the same without PTI). Leave with the user
	; table in CR3, rdi and rsp the user's: after the switch the kernel
	; stack is gone, but the entry stack ([gs:pti_entry_offset + EA_RSP0])
	; is still mapped.
	pop rdi
	mov rsp, [rsp + TF_RSP - TF_VECTOR]
%endif ; LAB pti: END
%else
	pop rdi
	mov rsp, [rsp + TF_RSP - TF_VECTOR]
%endif
	swapgs
	o64 sysret

	; The way out through iretq. A cs or ss other than the 64-bit pair
	; comes only from rt_sigreturn (a trap's frame holds what the CPU
	; loaded, and delivery puts the pair back), and iretq raises #GP in
	; ring 0 on one that names no ring-3 segment (SDM Vol. 2A IRET), so
	; deliver_signals first makes that the SIGSEGV user mode would get
	; (arch/x86/user_segments.c). Here, not in trap_return: every
	; interrupt's return would pay for the test.
%%iret:
	cmp qword [rsp + TF_CS], USER_CS
	jne %%check_segments
	cmp qword [rsp + TF_SS], USER_DS
	je %%out
%%check_segments:
	mov rdi, rsp
	call return_to_user_work
%%out:
	jmp trap_return
%endmacro

extern syscall_dispatch, trap_return, return_to_user_work

global syscall_entry
syscall_entry:
	syscall_64 0

global syscall_entry_pti
syscall_entry_pti:
	syscall_64 1

; SYSCALL from 32-bit compatibility mode lands here (MSR_CSTAR; AMD CPUs
; and QEMU, where Intel CPUs raise #UD). ccos runs no 32-bit programs, so
; as Linux without IA32 emulation it answers -ENOSYS at once. Nothing here
; may touch memory: rsp and GS are still the user's. SYSRET with a 32-bit
; operand returns to compatibility mode: CS = STAR[63:48] (USER32_CS),
; EIP = ECX, RFLAGS = R11 (so IF is back on).
global syscall32_entry
syscall32_entry:
	mov eax, -38			; -ENOSYS
	sysret				; 0f 07: SYSRET to 32-bit mode
