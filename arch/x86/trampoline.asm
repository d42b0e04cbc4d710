; The real-mode trampoline: an application processor's first instructions,
; copied by arch/x86/smp.c to a page below 1 MiB (mm/frame.c).
;
; A startup IPI with vector VV starts the CPU in real mode at CS:IP =
; VV00:0000 (Intel SDM Vol. 3, "MP Initialization"): so the code runs
; at offset 0 of whatever page it was copied to, and every address it
; uses in real mode is relative to CS. It loads a flat GDT, turns on
; protected mode (SDM Vol. 3, "Switching to Protected Mode": CR0.PE, then
; a far jump to reload CS)
; and jumps to ap_start32 in boot/entry.asm, which enters long mode the
; way the boot CPU did. This file is only data to the kernel: it never
; runs where it is linked.

section .rodata
bits 16
align 16
global trampoline_start, trampoline_gdt, trampoline_gdtr_base, trampoline_end
trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	lgdt [tramp_gdtr - trampoline_start]
	mov eax, cr0
	or eax, 1			; CR0.PE
	mov cr0, eax
	; A far jump with a 32-bit offset (operand-size prefix): ap_start32
	; is linked at its physical address, and the new CS is flat.
	extern ap_start32
	jmp dword 0x08:ap_start32

align 8
trampoline_gdt:
	dq 0
	dq 0x00cf9a000000ffff		; 0x08: 32-bit code, base 0, limit 4 GiB
	dq 0x00cf92000000ffff		; 0x10: 32-bit data, base 0, limit 4 GiB
tramp_gdtr:
	dw tramp_gdtr - trampoline_gdt - 1
trampoline_gdtr_base:
	dd 0				; smp.c: the copy's address of trampoline_gdt
trampoline_end:
