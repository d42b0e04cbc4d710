/* The trap frame: what every interrupt, exception and system call saves. */
#ifndef CCOS_TRAP_H
#define CCOS_TRAP_H

#include <ccos/types.h>

/*
 * Layout on the kernel stack, lowest address first. The CPU pushes ss..rip
 * (and an error code for some exceptions); arch/x86/entry/trap_entry.asm pushes a
 * zero error code where the CPU does not, the vector, then the registers,
 * so that C sees one struct. arch/x86/include/asm/layout.inc repeats the offsets
 * that assembly needs, and arch/x86/idt.c checks them at build time.
 */
struct trap_frame {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rax, rcx, rdx, rsi, rdi;
	uint64_t vector;
	uint64_t error_code;	/* of a system call: its number, as Linux's orig_ax (NO_SYSCALL: none to restart) */
	uint64_t rip, cs, rflags, rsp, ss;	/* the iretq frame */
};

/* trap_frame.vector of a system call (arch/x86/entry/syscall_entry.asm): no IDT vector. */
#define SYSCALL_MARK	0x100
#define NO_SYSCALL	(~0ul)

/* Selectors, in Linux's order so that ucontext and gdb show the same values. */
#define KERNEL_CS	0x10
#define KERNEL_DS	0x18
#define USER32_CS	0x23
#define USER_DS		0x2b
#define USER_CS		0x33
#define TSS_SEL		0x40
#define PERCPU_SEL	0x7b	/* limit = node << 12 | cpu, read with lsl */

/* Exception vectors (Intel SDM Vol. 3 Table 6-1). */
enum {
	X86_DE = 0, X86_DB = 1, X86_NMI = 2, X86_BP = 3, X86_OF = 4,
	X86_BR = 5, X86_UD = 6, X86_NM = 7, X86_DF = 8, X86_TS = 10,
	X86_NP = 11, X86_SS = 12, X86_GP = 13, X86_PF = 14, X86_MF = 16,
	X86_AC = 17, X86_MC = 18, X86_XM = 19, X86_VE = 20, X86_CP = 21,
};

#define IRQ_BASE		0x20	/* legacy PIC lines 0-15 -> vectors 0x20-0x2f */
#define VSYSCALL_EMU_VECTOR	0xcc

/* The saved CS's RPL: 3 in user mode, 0 in the kernel (ccos uses no other ring). */
static inline bool user_mode(const struct trap_frame *tf)
{
	return tf->cs & 3;
}

/* 64-bit user code (Linux's user_64bit_mode); USER32_CS is 32-bit compatibility mode. */
static inline bool user_64bit_mode(const struct trap_frame *tf)
{
	return tf->cs == USER_CS;
}

/* The selectors a return to user mode may carry (arch/x86/user_segments.c). */
void force_valid_ss(struct trap_frame *tf);
bool iret_would_fault(struct trap_frame *tf);

typedef void (*trap_handler_t)(struct trap_frame *tf);

void gdt_init(int cpu);
void idt_load(void);
void idt_init(void);
void idt_set_handler(int vector, trap_handler_t handler);
void idt_set_user_gate(int vector, trap_handler_t handler);
void idt_dump(void);
extern trap_handler_t trap_handlers[256];	/* idt.c; arch/x86/entry/common.c calls them */
void trap_dispatch(struct trap_frame *tf);
void unhandled_trap(struct trap_frame *tf);
void tss_set_rsp0(uint64_t rsp0);
const char *exception_name(uint64_t vector);
void dump_registers(const struct trap_frame *tf);

/* Exception fixups: a fault at `insn` in kernel code resumes at `fixup`. */
struct extable_entry {
	uint64_t insn, fixup;
};
const struct extable_entry *search_exception_table(uint64_t rip);
bool fixup_exception(struct trap_frame *tf);
void kernel_fault(struct trap_frame *tf);

/*
 * The kernel's fixed stacks (arch/x86/stacks.c), each above an unmapped
 * guard page; per CPU, indexed by the IST number that the IDT gives #DF,
 * NMI and #MC (idt.c), index 0 being the stack the CPU starts on (the
 * boot stack on CPU 0).
 */
enum { IST_DF = 1, IST_NMI = 2, IST_MC = 3, NR_FIXED_STACKS };

struct kernel_stack {
	const char *name;
	uint8_t *guard;		/* the unmapped page right below the stack */
	uint8_t *top;		/* the first byte above the stack */
};
extern struct kernel_stack kernel_stacks[][NR_FIXED_STACKS];
void kernel_stacks_set(int cpu);
void kernel_stacks_init(void);

#endif
