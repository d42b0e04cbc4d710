; The two contents of the vsyscall page that user space can see, each a
; page-aligned page of the kernel's read-only data; vsyscall.c maps one of
; them at 0xffffffffff600000 (design.md, "vsyscall modes").

VSYSCALL_EMU_VECTOR	equ 0xcc	; arch/x86/include/asm/trap.h

section .rodata.vsyscall progbits alloc noexec nowrite align=4096

; emulate: `int $0xcc` (bytes cd cc) at each entry and 0xcc (int3)
; everywhere else. Entering an entry traps to emulate_vsyscall; entering
; anywhere else, even the cc of an entry, is an int3: SIGTRAP. No offset
; of this page starts a syscall, sysenter or int $0x80.
align 4096
global vsyscall_emulate_page
vsyscall_emulate_page:
	int VSYSCALL_EMU_VECTOR			; +0x000 gettimeofday
	times 0x400 - ($ - vsyscall_emulate_page) db 0xcc
	int VSYSCALL_EMU_VECTOR			; +0x400 time
	times 0x800 - ($ - vsyscall_emulate_page) db 0xcc
	int VSYSCALL_EMU_VECTOR			; +0x800 getcpu
	times 0x1000 - ($ - vsyscall_emulate_page) db 0xcc	; +0xc00 is no entry

; native: real code, linked at the page's address by linker/vsyscall.ld
; from native_page.c (see build/vsyscall_native.asm for its disassembly).
align 4096
global vsyscall_native_page
vsyscall_native_page:
	incbin VSYSCALL_NATIVE_BIN		; build/vsyscall_native.bin (Makefile)
	times 0x1000 - ($ - vsyscall_native_page) db 0xcc	; an error if the image is over a page
