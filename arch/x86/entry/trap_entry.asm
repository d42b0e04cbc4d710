; Interrupt and exception entry: 256 small stubs that push a uniform trap
; frame (arch/x86/include/asm/trap.h), one common path into C, and the way back out.

%include "asm/layout.inc"
%include "asm/pti.inc"

; All of it in .entry.text, which the user page table maps (pti.c).
section .entry.text progbits alloc exec nowrite align=16
bits 64

MSR_GS_BASE	equ 0xc0000101
PERCPU_SEL	equ 0x7b		; arch/x86/include/asm/trap.h

; Intel SDM Vol. 3 §6.13: the CPU pushes an error code for these vectors
; only (#DF, #TS, #NP, #SS, #GP, #PF, #AC, #CP, #VC, #SX); the others get a
; zero so that every frame has the same shape. NMI, #DF and #MC go to
; paranoid_entry (below).
%macro trap_stub 1
align 16
trap_stub_%1:
%if !(%1 == 8 || (%1 >= 10 && %1 <= 14) || %1 == 17 || %1 == 21 || %1 == 29 || %1 == 30)
	push 0
%endif
	push %1
%if %1 == 2 || %1 == 8 || %1 == 18
	jmp paranoid_entry
%else
	jmp trap_common
%endif
%endmacro

%assign i 0
%rep 256
	trap_stub i
%assign i i + 1
%endrep

; GS and swapgs. In the kernel, GS.base is the running CPU's struct percpu
; (arch/x86/include/asm/percpu.h): this_cpu(), current() and the SYSCALL entry's
; stack all come from GS:0, GS:8, ... In user mode GS.base is the
; program's own (arch_prctl ARCH_SET_GS), any value it likes. swapgs
; exchanges GS.base with IA32_KERNEL_GS_BASE (SDM Vol. 2B, SWAPGS), so the
; two live side by side: one in use, the other parked in the MSR.
;
; So every entry from user mode must execute swapgs exactly once before it
; touches GS, and every return to user mode exactly once after its last
; use of GS: here (trap_common, trap_return), and syscall_entry and its
; sysret path (syscall_entry.asm); the 0xcc vector and every other DPL 3
; gate come through trap_common. An entry from user mode that missed it
; would run the kernel on a GS base the program chose: current() and the
; SYSCALL stack pointer read from, and written to, memory the user
; controls, and a kernel address chosen by the user at that. An extra
; swapgs on an entry from the kernel does the same the other way round.
; The saved CS (its RPL, bits 0-1) says where the CPU came from.
;
; That test is wrong for the three vectors that can strike anywhere, even
; in the few instructions of the kernel that run between SYSCALL and
; swapgs, or between swapgs and SYSRET/IRETQ, where the saved CS is the
; kernel's but GS is still (or already) the user's: NMI, #MC, and #DF
; (which can follow a fault there). Nor can GS.base itself say whose it
; is: with CR4.FSGSBASE a program writes any base it likes with wrgsbase,
; a kernel address too (arch/x86/fsgs.c). So paranoid_entry does not
; swap: it saves GS.base as it finds it, loads this CPU's own, found from
; the CPU's number in the limit of its per-CPU segment (lsl, as getcpu
; reads it; Linux's paranoid entry does the same with FSGSBASE), and
; writes the saved base back on the way out.
; With pti=on an entry from user mode comes in on the user page table, on
; this CPU's entry stack (TSS.rsp0, pti.c) or an IST stack: it switches to
; the kernel's table, then moves the frame (vector, error code and the
; CPU's five words) to the process's kernel stack.
trap_common:
	test qword [rsp + TF_CS - TF_VECTOR], 3
	jz .from_kernel
	swapgs
	pti_begin
; LAB pti: BEGIN
	push rdi
	switch_to_kernel_cr3 rdi
	mov rdi, rsp
	mov rsp, [gs:PERCPU_KERNEL_RSP]
	push qword [rdi + 7 * 8]	; ss
	push qword [rdi + 6 * 8]	; rsp
	push qword [rdi + 5 * 8]	; rflags
	push qword [rdi + 4 * 8]	; cs
	push qword [rdi + 3 * 8]	; rip
	push qword [rdi + 2 * 8]	; error code
	push qword [rdi + 1 * 8]	; vector
	mov rdi, [rdi]
%if 0 ; LAB pti: STUB
	; On the entry stack (TSS.RSP0) or an IST stack: the vector, the
	; error code and the CPU's five words. To the kernel's table, then
	; the same seven words onto the process's kernel stack
	; ([gs:PERCPU_KERNEL_RSP]), every register as it came.
%endif ; LAB pti: END
	pti_end
.from_kernel:
	push_registers
	cld				; the C ABI wants DF clear
	mov rdi, rsp
	extern trap_dispatch
	call trap_dispatch
	; and on into trap_return

; Also the first return of a new process: its kernel stack holds a frame.
; A return to user mode whose rip is above the user half (the vsyscall
; page, or 0x800000000000 after a syscall or int3 at the very end of user
; space) first goes through return_to_user_work: iretq to a non-canonical
; rip raises #GP in ring 0, before it reaches user mode (SDM Vol. 2A
; IRET), so deliver_signals makes it the SIGSEGV it would be in user mode.
; (Bad selectors, the other cause, come only from rt_sigreturn, a system
; call: its way out sees to them, syscall_entry.asm.)
global trap_return
trap_return:
	test qword [rsp + TF_CS], 3
	jz .to_kernel
	mov rax, [rsp + TF_RIP]
	shr rax, 47
	jz .to_user
	mov rdi, rsp
	extern return_to_user_work
	call return_to_user_work
.to_user:
	pop_registers_but_rdi
	pti_begin
; LAB pti: BEGIN
	; The CPU's five words and rdi onto the entry stack, then the user table.
	mov rdi, rsp
	mov rsp, [gs:pti_entry_offset + EA_RSP0]
	push qword [rdi + 7 * 8]	; ss
	push qword [rdi + 6 * 8]	; rsp
	push qword [rdi + 5 * 8]	; rflags
	push qword [rdi + 4 * 8]	; cs
	push qword [rdi + 3 * 8]	; rip
	push qword [rdi]
	switch_to_user_cr3 rdi
	pop rdi
	swapgs
	iretq
%if 0 ; LAB pti: STUB
	; rsp points at the saved rdi, the vector, the error code, then the
	; CPU's five words. After the switch to the user table the kernel
	; stack is gone: leave from the entry stack
	; ([gs:pti_entry_offset + EA_RSP0]), as the lines after pti_end do
	; from the kernel stack without PTI.
%endif ; LAB pti: END
	pti_end
	pop rdi
	swapgs
	add rsp, 16			; vector and error code
	iretq
.to_kernel:
	pop_registers
	add rsp, 16
	iretq

; NMI, #DF, #MC. From user mode they take the ordinary path. From the
; kernel: ebx:r12d = GS.base at entry (rbx and r12 are callee-saved
; across the handler), then GS.base = &cpus[n], n the low 12 bits of
; PERCPU_SEL's limit, each struct percpu_stride bytes (smp.c). The
; handler runs from the kernel, so it returns here, never into
; return_to_user.
;
; With pti=on it may also come in on the user table (between the entry's
; first instruction and its switch, or the exit's switch and iretq): r13
; keeps the CR3 it found, and the way out loads it again.
paranoid_entry:
	test qword [rsp + TF_CS - TF_VECTOR], 3
	jnz trap_common
	push_registers
	cld
	mov r13, cr3
	pti_begin
	switch_to_kernel_cr3 rax
	pti_end
	mov ecx, MSR_GS_BASE
	rdmsr
	mov ebx, eax
	mov r12d, edx
	mov eax, PERCPU_SEL
	lsl eax, eax
	and eax, 0xfff
	extern cpus, percpu_stride
	imul rax, [rel percpu_stride]
	lea rax, [rax + cpus]
	mov rdx, rax
	shr rdx, 32
	wrmsr
	mov rdi, rsp
	call trap_dispatch
	mov ecx, MSR_GS_BASE
	mov eax, ebx
	mov edx, r12d
	wrmsr
	pti_begin
	mov rax, cr3
	cmp rax, r13
	je .same_cr3
	bt r13, PTI_USER_PCID_BIT	; the user PCID: keep its entries
	jnc .load_cr3
	bts r13, CR3_NOFLUSH_BIT
.load_cr3:
	mov cr3, r13
.same_cr3:
	pti_end
	pop_registers
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
