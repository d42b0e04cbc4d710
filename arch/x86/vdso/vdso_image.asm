; The vDSO image (build/vdso/vdso.so), embedded in the kernel's data.
;
; It starts on a page and is padded with zeros to whole pages, because the
; kernel maps exactly these pages into every process (arch/x86/vdso/vdso.c):
; no byte of other kernel data may share a page with it. It is written
; once at boot, when vdso.c fills in its parameters, and read-only after
; that in every mapping (the kernel's section of __ro_after_init data,
; mm/paging.c); processes map it read + execute. The Makefile passes the
; image's path as VDSO_SO.

section .data..ro_after_init.vdso progbits alloc noexec write align=4096

global vdso_image_start, vdso_image_end

vdso_image_start:
	incbin VDSO_SO
vdso_image_end:
	align 4096, db 0
