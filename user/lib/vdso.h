/* vdso.h: find the vDSO's functions by name and version, as a C library on Linux does. */
#ifndef USER_VDSO_H
#define USER_VDSO_H

#include "linux.h"

/* The ELF structures the lookup reads (System V gABI; GNU symbol versioning). */
typedef struct {
	unsigned char e_ident[16];
	uint16_t e_type, e_machine;
	uint32_t e_version;
	uint64_t e_entry, e_phoff, e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
} Elf64_Ehdr;

typedef struct {
	long d_tag;
	unsigned long d_val;	/* d_ptr: an address in the object, before load_offset */
} Elf64_Dyn;

typedef struct {
	uint32_t st_name;	/* offset in the string table */
	unsigned char st_info;	/* binding << 4 | type */
	unsigned char st_other;
	uint16_t st_shndx;	/* 0 (SHN_UNDEF): not defined here */
	uint64_t st_value, st_size;
} Elf64_Sym;

typedef struct {
	uint16_t vd_version, vd_flags, vd_ndx, vd_cnt;
	uint32_t vd_hash;	/* ELF hash of the version's name */
	uint32_t vd_aux;	/* offset of the first Elf64_Verdaux: the name */
	uint32_t vd_next;	/* offset of the next Elf64_Verdef, 0 at the end */
} Elf64_Verdef;

typedef struct {
	uint32_t vda_name, vda_next;
} Elf64_Verdaux;

/* What vdso_parse found in one loaded image. */
struct vdso {
	uintptr_t base;			/* where it is mapped: AT_SYSINFO_EHDR */
	uintptr_t load_offset;		/* memory address = object address + load_offset */
	const Elf64_Sym *symtab;	/* DT_SYMTAB */
	const char *strtab;		/* DT_STRTAB */
	const uint32_t *hash;		/* DT_HASH (System V), or NULL */
	const uint32_t *gnu_hash;	/* DT_GNU_HASH, or NULL */
	const uint16_t *versym;		/* DT_VERSYM: each symbol's version index, or NULL */
	const Elf64_Verdef *verdef;	/* DT_VERDEF: the versions defined, or NULL */
	const char *soname;		/* DT_SONAME, or NULL */
};

/*
 * Read the image at base (AT_SYSINFO_EHDR): its program headers, then its
 * dynamic section. 0, or -1 with v->base = 0 if it is not a usable image.
 */
int vdso_parse(struct vdso *v, uintptr_t base);

/*
 * The address of the function `name` defined in `version` (e.g.
 * "LINUX_2.6"), or NULL. Uses DT_GNU_HASH when the image has it, else
 * DT_HASH; clear v->gnu_hash to force the System V table.
 */
void *vdso_lookup(const struct vdso *v, const char *version, const char *name);

/* vdso_lookup in this process's own vDSO, parsed on first use; NULL without one. */
void *vdso_sym(const char *version, const char *name);

#endif
