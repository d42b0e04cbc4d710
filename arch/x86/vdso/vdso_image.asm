; The vDSO image (build/vdso/vdso.so), embedded in the kernel's data.
;
; It starts on a page and is padded with zeros to whole pages, because the
; kernel maps exactly these pages into every process (arch/x86/vdso/vdso.c):
; no byte of other kernel data may share a page with it. It is data, not
; rodata, so that vdso.c can fill in its parameters once at boot; the
; kernel maps it writable and no-execute, processes read + execute only.
; The Makefile passes the image's path as VDSO_SO.

section .data.vdso progbits alloc noexec write align=4096

global vdso_image_start, vdso_image_end

vdso_image_start:
	incbin VDSO_SO
vdso_image_end:
	align 4096, db 0
