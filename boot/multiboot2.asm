; The multiboot2 header: tells GRUB how to load ccos and what to hand over.
; Multiboot2 spec §3.1: magic, architecture 0 (i386 protected mode), header
; length and a checksum making the four fields sum to 0 mod 2^32; then
; 8-byte aligned tags ending with a type-0 tag.

MB2_MAGIC	equ 0xe85250d6
MB2_ARCH_I386	equ 0

section .multiboot
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

	; Information request (type 1), optional (flags 1): command line (1),
	; modules (3), memory map (6), framebuffer (8: where a text screen is),
	; ACPI old (14) and new (15) RSDP copies.
align 8
.info_req:
	dw 1, 1
	dd .info_req_end - .info_req
	dd 1, 3, 6, 8, 14, 15
.info_req_end:

	; Module alignment (type 6): modules start on page boundaries, so each
	; file can be mapped into user space page by page.
align 8
	dw 6, 0
	dd 8

align 8
	dw 0, 0		; end tag
	dd 8
mb2_header_end:
