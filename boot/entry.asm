; 32-bit entry from GRUB: check the loader and the CPU, build boot page
; tables, enter long mode and jump to the higher half, then call kmain.

%include "asm/layout.inc"

MB2_BOOT_MAGIC	equ 0x36d76289	; in eax when a multiboot2 loader jumps here
COM1		equ 0x3f8

; Intel SDM Vol. 3 §9.8.5: enable PAE, load CR3, set EFER.LME, then
; enable paging; EFER.NXE (bit 11) lets page tables use bit 63. The CPU is
; then in compatibility mode until a far jump loads a 64-bit code segment
; from boot_gdt. The boot CPU (_start) and every other CPU (ap_start32)
; run these same steps.
%macro enter_long_mode 0
	mov eax, cr4
	or eax, 1 << 5			; CR4.PAE
	mov cr4, eax
	mov eax, boot_pml4
	mov cr3, eax
	mov ecx, 0xc0000080		; IA32_EFER
	rdmsr
	or eax, (1 << 8) | (1 << 11)	; LME | NXE
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16) | 1	; PG | WP | PE
	mov cr0, eax
	lgdt [boot_gdt_ptr]
%endmacro

section .boot.text
bits 32
global _start
_start:
	mov edi, eax			; keep magic and info pointer for kmain
	mov esi, ebx
	; The TSC at the kernel's first instructions (boot_tsc, for the boot
	; count of make bench). Stored through its physical address: paging
	; is off, and the kernel's data sits KERNEL_VMA below its link address.
	rdtsc
	mov [boot_tsc - KERNEL_VMA], eax
	mov [boot_tsc - KERNEL_VMA + 4], edx
	cli
	mov esp, boot32_stack_top

	cmp edi, MB2_BOOT_MAGIC
	jne .no_multiboot

	; CPUID leaf 0x80000001 EDX: bit 29 = long mode, bit 20 = NX.
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode
	test edx, 1 << 20
	jz .no_nx

	push edi
	push esi
	call build_boot_page_tables
	pop esi
	pop edi

	enter_long_mode
	jmp 0x08:long_mode_entry

.no_multiboot:
	mov ebx, msg_no_multiboot
	jmp boot_fail
.no_long_mode:
	mov ebx, msg_no_long_mode
	jmp boot_fail
.no_nx:
	mov ebx, msg_no_nx
	jmp boot_fail

; Print the string at ebx on COM1 (polling the line status register's
; "transmit holding register empty" bit 5), then halt forever.
boot_fail:
	mov dx, COM1 + 3
	mov al, 0x03			; 8N1; the firmware's baud rate stays
	out dx, al
.next:
	mov al, [ebx]
	test al, al
	jz .halt
	mov dx, COM1 + 5
.wait:
	in al, dx
	test al, 0x20
	jz .wait
	mov al, [ebx]
	mov dx, COM1
	out dx, al
	inc ebx
	jmp .next
.halt:
	hlt
	jmp .halt

; Boot page tables with 2 MiB pages: the first 4 GiB identity-mapped (for
; this code and the multiboot info), again at the direct map, and the first
; 2 GiB at KERNEL_VMA. mm/ replaces them with the kernel's own tables.
build_boot_page_tables:
	mov edi, boot_pd
	xor ecx, ecx
.pd:
	mov eax, ecx
	shl eax, 21
	or eax, 0x83			; present | write | 2 MiB page (PS)
	mov [edi + ecx * 8], eax
	mov eax, ecx
	shr eax, 11			; high bits of (ecx << 21)
	mov [edi + ecx * 8 + 4], eax
	inc ecx
	cmp ecx, 4 * 512
	jne .pd

	mov ecx, 0
.pdpt:
	mov eax, ecx
	shl eax, 12
	add eax, boot_pd
	or eax, 0x03
	mov [boot_pdpt_low + ecx * 8], eax
	inc ecx
	cmp ecx, 4
	jne .pdpt

	mov eax, boot_pd + 0x03
	mov [boot_pdpt_high + 510 * 8], eax
	add eax, 4096
	mov [boot_pdpt_high + 511 * 8], eax

	mov eax, boot_pdpt_low + 0x03
	mov [boot_pml4], eax
	mov [boot_pml4 + DIRECT_MAP_PML4_INDEX * 8], eax
	mov eax, boot_pdpt_high + 0x03
	mov [boot_pml4 + 511 * 8], eax
	ret

bits 64
long_mode_entry:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov rax, higher_half
	jmp rax

; An application processor, from arch/x86/trampoline.asm: in 32-bit
; protected mode with flat segments, interrupts off, no stack yet.
bits 32
global ap_start32
ap_start32:
	mov ax, 0x10			; the trampoline's flat data segment: DS
	mov ds, ax			; still has its real-mode base
	mov es, ax
	mov ss, ax
	enter_long_mode
	jmp 0x08:ap_long_mode_entry

bits 64
ap_long_mode_entry:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov rax, ap_higher_half
	jmp rax

section .text
; Onto the kernel's page tables at once, as the boot CPU went in
; paging_init (the boot tables map everything writable and executable),
; then onto the stack that arch/x86/smp.c put in ap_boot_rsp before it
; sent the startup IPI.
extern kernel_pml4, ap_boot_rsp, ap_main
ap_higher_half:
	mov rax, [kernel_pml4]
	mov cr3, rax
	mov rsp, [ap_boot_rsp]
	xor ebp, ebp
	call ap_main
	jmp higher_half.hang

higher_half:
	mov rsp, boot_stack_top
	xor ebp, ebp			; ends the stack trace
	mov edi, edi			; the upper halves are undefined after the
	mov esi, esi			; switch from 32-bit mode: zero-extend
	; rdi = multiboot2 magic, rsi = physical address of the boot information
	extern kmain
	call kmain
.hang:
	cli
	hlt
	jmp .hang

section .boot.data
align 4096
global boot_pml4, boot_pdpt_low, boot_pdpt_high, boot_pd, boot_tables_end
boot_pml4:	times 4096 db 0
boot_pdpt_low:	times 4096 db 0
boot_pdpt_high:	times 4096 db 0
boot_pd:	times 4 * 4096 db 0
boot_tables_end:

align 8
boot_gdt:
	dq 0
	dq 0x00209a0000000000		; 64-bit code: P, DPL 0, L
	dq 0x0000920000000000		; data: P, writable
boot_gdt_ptr:
	dw boot_gdt_ptr - boot_gdt - 1
	dq boot_gdt

align 16
	times 1024 db 0
boot32_stack_top:

msg_no_multiboot: db "ccos: not started by a multiboot2 loader (eax != 0x36d76289); boot ccos with GRUB's multiboot2 command", 13, 10, 0
msg_no_long_mode: db "ccos: this CPU has no long mode (CPUID 0x80000001 EDX bit 29); ccos needs an x86-64 CPU", 13, 10, 0
msg_no_nx: db "ccos: this CPU has no NX bit (CPUID 0x80000001 EDX bit 20); ccos needs it for its no-execute pages", 13, 10, 0

section .data
global boot_tsc
boot_tsc:	dq 0

section .bss
align 4096
global boot_stack_guard, boot_stack_top
boot_stack_guard:	resb 4096	; unmapped by kernel_stacks_init (arch/x86/stacks.c)
boot_stack:		resb 16384
boot_stack_top:
