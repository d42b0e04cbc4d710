/*
 * The legacy vsyscall page at VSYSCALL_ADDR (design.md, "vsyscall modes"):
 * its entries, its setup, and the emulation of calls into it.
 */
#ifndef CCOS_VSYSCALL_H
#define CCOS_VSYSCALL_H

#include <ccos/types.h>
#include <ccos/mm.h>
#include <ccos/boot.h>
#include <asm/trap.h>

/* The three entries, 1 KiB apart; +0xc00 (the old venosys) is not one. */
enum {
	VSYSCALL_GETTIMEOFDAY = 0,	/* +0x000 */
	VSYSCALL_TIME = 1,		/* +0x400 */
	VSYSCALL_GETCPU = 2,		/* +0x800 */
	VSYSCALL_NR_ENTRIES = 3,
};

#define VSYSCALL_ENTRY_SIZE	0x400ul

/* (An address below the page wraps to a large offset.) */
static inline bool in_vsyscall_page(uint64_t addr)
{
	return addr - VSYSCALL_ADDR < PAGE_SIZE;
}

/* Exactly one of the three entry addresses. */
static inline bool is_vsyscall_entry(uint64_t addr)
{
	/* LAB emulate: BEGIN */
	uint64_t off = addr - VSYSCALL_ADDR;

	return off < VSYSCALL_NR_ENTRIES * VSYSCALL_ENTRY_SIZE && off % VSYSCALL_ENTRY_SIZE == 0;
	/* LAB emulate: STUB
	// +0x000, +0x400 or +0x800 from VSYSCALL_ADDR, and no other address.
	(void)addr;
	return false;
	   LAB emulate: END */
}

/* The entry's index in the table: VSYSCALL_GETTIMEOFDAY, _TIME or _GETCPU. */
static inline unsigned long vsyscall_entry_nr(uint64_t addr)
{
	/* LAB emulate: BEGIN */
	return (addr - VSYSCALL_ADDR) / VSYSCALL_ENTRY_SIZE;
	/* LAB emulate: STUB
	(void)addr;
	return 0;
	   LAB emulate: END */
}

/* arch/x86/vsyscall/pages.asm: the page's two possible contents. */
extern const uint8_t vsyscall_emulate_page[PAGE_SIZE];
extern const uint8_t vsyscall_native_page[PAGE_SIZE];

/* arch/x86/vsyscall/vsyscall.c: map the page for the boot's mode, getcpu, vector 0xcc. */
void vsyscall_init(void);
void vsyscall_set_cpu(unsigned int cpu, unsigned int node);	/* on the CPU itself, at boot */

/* arch/x86/gdt.c: the PERCPU_SEL segment's limit, which lsl reads (20 bits). */
void gdt_set_percpu_limit(uint32_t limit);		/* at boot: the GDT is read-only after */
void percpu_limit_set(uint64_t *table, uint32_t limit);

/* arch/x86/vsyscall/emulate.c: lockless calls (arch/x86/entry/common.c) */
void emulate_vsyscall(struct trap_frame *tf);	/* vector 0xcc, and xonly's fetch faults */
bool vsyscall_fault(struct trap_frame *tf, uint64_t addr);	/* a user #PF in the page */

/*
 * A call in xonly mode, the page-fault entry's first test: a user-mode
 * instruction fetch (error code U and I/D, not P: SDM Vol. 3 §4.7) from
 * the absent page, at the very address the instruction began.
 */
static inline bool is_xonly_call(const struct trap_frame *tf, uint64_t addr)
{
	/* LAB xonly: BEGIN */
	return in_vsyscall_page(addr) && tf->error_code == (PF_USER | PF_INSTR) &&
	       addr == tf->rip && boot_options.vsyscall == VSYSCALL_XONLY;
	/* LAB xonly: STUB
	// Four tests, the cheapest first (every page fault of every mode
	// asks): the page, the error code (user, fetch, not present), the
	// instruction began at addr, the mode.
	(void)tf, (void)addr;
	return false;
	   LAB xonly: END */
}

#endif
