/* Address spaces of processes: their areas (mm/vma.c) and the calls that change them (mm/vm.c). */
#ifndef CCOS_VM_H
#define CCOS_VM_H

#include <ccos/types.h>

/* A user memory area, as /proc/self/maps shows it. */
struct vma {
	uint64_t start, end;
	int prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	bool shared;		/* kernel-owned frames (the vDSO): never written */
	const char *name;	/* a path, "[heap]", "[stack]", or NULL */
	uint64_t offset;	/* in the file, for ELF segments; in the object, for shared memory */
	struct shmem *shmem;	/* MAP_SHARED anonymous memory, a SysV segment or a tmpfs file (mm/shmem.c), or NULL */
	bool cow;		/* MAP_PRIVATE of a file: the object's pages, copied at the first write */
	struct vma *shm_next;	/* the object's next area (its list, mm/shmem.c) */
	struct mm *mm;		/* the address space it is in (vma_insert) */
	bool nowrite;		/* shmat's SHM_RDONLY: mprotect may not add PROT_WRITE (EACCES) */
	bool wipe_on_fork;	/* MADV_WIPEONFORK: a fork's child finds it zeroed */
	/* An ELF segment's bytes, which a page's first touch maps or copies (mm/memory.c): */
	const uint8_t *file;	/* the byte that lies at file_start */
	uint64_t file_start, file_end;	/* where the file's bytes lie; 0, 0 if anonymous */
	/* The list of areas in address order, and the tree (mm/vma.c): children, and of the subtree: */
	struct vma *prev, *next;
	struct vma *left, *right;
	uint64_t lo, hi;	/* the lowest start and the highest end */
	uint64_t gap;		/* the largest hole between two of its areas */
	int height;
};

/* An address space: page tables and the areas in them. */
struct mm {
	uint64_t pml4;
	struct vma *vmas;	/* the root of the tree of areas */
	struct vma *hint;	/* the area the last lookup found: the next one likely wants it too */
	size_t nr_vmas;
	uint64_t brk_start, brk;
	uint64_t vdso_base;
	uint64_t mmap_base;		/* mmap areas grow down from here */
	uint64_t arg_start, arg_end;	/* exec's argument strings, which /proc/PID/cmdline reads */
	int refs;
};

/* The area's pages are its object's in every mapping: MAP_SHARED (not a private file's copies). */
static inline bool vma_shares_object(const struct vma *v)
{
	return v->shmem && !v->cow;
}

/* mm/vm.c: address spaces */
struct mm *mm_create(void);
struct mm *mm_copy(struct mm *old);
void mm_release(struct mm *mm);
int mm_map(struct mm *mm, uint64_t start, uint64_t len, int prot, const char *name);
int mm_map_shared(struct mm *mm, uint64_t start, uint64_t phys, size_t npages, int prot,
		  const char *name);
struct shmem;
int mm_map_shmem(struct mm *mm, uint64_t start, uint64_t len, int prot, struct shmem *s,
		 uint64_t offset);
int mm_unmap(struct mm *mm, uint64_t start, uint64_t len);
int mm_protect(struct mm *mm, uint64_t start, uint64_t len, int prot);
uint64_t mm_find_gap(struct mm *mm, uint64_t len);
uint64_t mmap_place(struct mm *mm, uint64_t hint, uint64_t len, long flags);	/* mm/sys_mm.c: mmap's */
int copy_to_mm(struct mm *mm, uint64_t va, const void *src, size_t n);
int copy_from_mm(struct mm *mm, void *dst, uint64_t va, size_t n);
int copy_mm_as_user(struct mm *mm, uint64_t va, void *buf, size_t n, bool to_mm);
int copy_from_mm_or_gate(struct mm *mm, void *dst, uint64_t va, size_t n);
uint64_t prot_to_pte(int prot);

/* mm/memory.c: the pages of areas, filled at their first touch and shared by fork until written */
int mm_wipe_on_fork(struct mm *mm, uint64_t start, uint64_t end, bool on);	/* MADV_WIPEONFORK */
int handle_mm_fault(struct mm *mm, uint64_t addr, unsigned int access);	/* PF_WRITE, PF_INSTR */
/* The same for a user access of the kernel's, locked or lockless (arch/x86/entry/common.c). */
int uaccess_handle_mm_fault(struct mm *mm, uint64_t addr, unsigned int access);
struct trap_frame;
long lockless_with_areas(long (*fn)(const struct trap_frame *tf), const struct trap_frame *tf);
int copy_pages(struct mm *mm, struct mm *old, const struct vma *v);
void unmap_pages(struct mm *mm, uint64_t s, uint64_t e);
void zap_pages(struct mm *mm, uint64_t s, uint64_t e);
void free_pgtables(struct mm *mm, uint64_t s, uint64_t e, uint64_t floor, uint64_t ceiling,
		   bool flush);
void protect_pages(struct mm *mm, uint64_t s, uint64_t e, int prot, bool cow);

/* mm/vma.c: the areas, by address */
void vma_insert(struct mm *mm, struct vma *v);
void vma_remove(struct mm *mm, struct vma *v);
struct vma *vma_next(struct mm *mm, uint64_t addr);	/* the first area ending above addr */
struct vma *mm_find_vma(struct mm *mm, uint64_t addr);	/* the area holding addr, or NULL */
struct vma *vma_prev(struct mm *mm, uint64_t addr);	/* the last area ending at or below addr */
uint64_t vma_find_gap(struct mm *mm, uint64_t lo, uint64_t hi, uint64_t len);
void vma_free_all(struct mm *mm);
/* Each area that meets [from, to), in order; the body may split v, not free it. */
#define for_each_vma_in(v, mm, from, to) \
	for ((v) = vma_next((mm), (from)); (v) && (v)->start < (to); (v) = (v)->next)

#endif
