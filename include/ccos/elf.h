/* ELF64 headers (the System V gABI and the x86-64 psABI) and the loader. */
#ifndef CCOS_ELF_H
#define CCOS_ELF_H

#include <ccos/types.h>

typedef struct {
	unsigned char e_ident[16];
	uint16_t e_type, e_machine;
	uint32_t e_version;
	uint64_t e_entry, e_phoff, e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
} Elf64_Ehdr;

typedef struct {
	uint32_t p_type, p_flags;
	uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
} Elf64_Phdr;

#define ET_EXEC		2
#define ET_DYN		3
#define EM_X86_64	62
#define PT_LOAD		1
#define PT_INTERP	3
#define PT_PHDR		6
#define PF_X		1
#define PF_W		2
#define PF_R		4

struct mm;

/* What the loader tells exec for the initial stack's auxv. */
struct elf_info {
	uint64_t entry, phdr, phnum, base, brk;
};

/*
 * Check the image and map its segments into mm (a static-pie at its base
 * plus dyn_offset); -ENOEXEC with a message if malformed.
 */
int elf_load(struct mm *mm, const char *path, const uint8_t *image, size_t size,
	     uint64_t dyn_offset, struct elf_info *info);

#endif
