/* Memory: physical frames, page tables, the fixmap, the kernel heap. */
#ifndef CCOS_MM_H
#define CCOS_MM_H

#include <ccos/types.h>
#include <ccos/layout.h>

/* Page-table entry bits (Intel SDM Vol. 3 §4.5, Table 4-19/20). */
#define PTE_P		(1ul << 0)	/* present */
#define PTE_W		(1ul << 1)	/* writable */
#define PTE_U		(1ul << 2)	/* user-accessible */
#define PTE_PWT		(1ul << 3)	/* write-through */
#define PTE_PCD		(1ul << 4)	/* cache disable */
#define PTE_A		(1ul << 5)
#define PTE_D		(1ul << 6)
#define PTE_PS		(1ul << 7)	/* 2 MiB / 1 GiB page in a PD / PDPT entry */
#define PTE_G		(1ul << 8)	/* global: kept in the TLB across CR3 loads */
/*
 * Bits 9-11 are ignored by the CPU and free for software (SDM Vol. 3
 * §4.5). ccos sets bit 9 on user entries that map a frame shared by every
 * process and owned by the kernel (the vDSO): freeing, unmapping and
 * fork's copy leave such a frame alone, and it never becomes writable.
 */
#define PTE_SHARED	(1ul << 9)
#define PTE_NX		(1ul << 63)	/* no execute; needs EFER.NXE */
#define PTE_ADDR	0x000ffffffffff000ul

/* Page-fault error code bits (SDM Vol. 3 §4.7). */
#define PF_PROT		(1u << 0)	/* 0: page not present, 1: protection violation */
#define PF_WRITE	(1u << 1)
#define PF_USER		(1u << 2)
#define PF_RSVD		(1u << 3)	/* a reserved bit was set in an entry */
#define PF_INSTR	(1u << 4)	/* instruction fetch */

/* Physical frames (mm/frame.c). 0 means "none left": the caller handles it. */
void frame_init(void);
uint64_t frame_alloc(void);			/* one zeroed 4 KiB frame */
uint64_t frame_alloc_uninit(void);		/* one frame, not zeroed: for a copy */
uint64_t frame_alloc_run(size_t n);		/* n contiguous zeroed frames */
void frame_free(uint64_t phys);
void frame_free_run(uint64_t phys, size_t n);
/* Frames of user memory that fork shares: each mapping counts (mm/memory.c). */
void frame_get(uint64_t phys);
void frame_put(uint64_t phys);		/* the last one frees the frame */
unsigned int frame_users(uint64_t phys);
size_t frames_free(void);
size_t frames_used(void);
extern uint64_t trampoline_frame;		/* a reserved page below 1 MiB, or 0 */

/* Page tables (mm/paging.c). pml4 is a physical address. */
extern uint64_t kernel_pml4;
extern uint64_t direct_map_end;	/* RAM and ACPI areas below 4 GiB, 2 MiB-aligned */
void paging_init(void);
void paging_init_ap(void);
void mark_ro_after_init(void);
int map_page(uint64_t pml4, uint64_t virt, uint64_t phys, uint64_t flags);
int unmap_page(uint64_t pml4, uint64_t virt);
int protect_page(uint64_t pml4, uint64_t virt, uint64_t flags);
uint64_t *walk_pte(uint64_t pml4, uint64_t virt);	/* NULL if not mapped */
uint64_t *pte_lookup(uint64_t pml4, uint64_t virt, bool create);
uint64_t *pte_next(uint64_t pml4, uint64_t *va, uint64_t end);
uint64_t new_address_space(void);		/* kernel half shared, user half empty */
void free_address_space(uint64_t pml4);		/* its PML4, once its tables are freed */
void switch_address_space(uint64_t pml4);
bool read_cr3_is(uint64_t pml4);
void *ioremap(uint64_t phys, size_t size);	/* uncached kernel mapping of MMIO */
void ptdump(uint64_t pml4);
void page_fault_init(void);
extern bool cpu_has_smap;

/* Fixmap (mm/fixmap.c): fixed pages at the top of the address space. */
#define VSYSCALL_ADDR	0xffffffffff600000ul
#define VVAR_ADDRESS	0xffffffffff5ff000ul
#define HPET_USER_ADDR	0xffffffffff5fe000ul
void fixmap_set(uint64_t addr, uint64_t phys, uint64_t flags);
void fixmap_init(void);
extern char __vvar_page[];			/* the kernel's view of the vvar page */

/* Kernel heap (mm/kmalloc.c). */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *p);
const char *kmalloc_check(const void *p);
size_t mem_free_bytes(void);		/* free frames, the heap's free blocks, unflushed kernel stacks */

#endif
