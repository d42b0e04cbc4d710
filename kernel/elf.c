/* The ELF loader: checks a static x86-64 executable and maps its segments. */
#include <ccos/elf.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/mm.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/printk.h>
#include <ccos/lib.h>

#define ET_DYN_BASE	0x0000555555554000ul	/* where a static-pie is loaded */
#define MIN_ADDR	0x10000ul		/* as Linux's mmap_min_addr */

static int refuse(const char *path, const char *why)
{
	printk(KERN_WARNING "exec %s: %s; not an executable ccos can run\n", path, why);
	return -ENOEXEC;
}

static bool add_overflows(uint64_t a, uint64_t b, uint64_t *sum)
{
	return __builtin_add_overflow(a, b, sum);
}

static const char *check_header(const Elf64_Ehdr *eh, size_t size)
{
	uint64_t end;

	if (size < 4 || memcmp(eh->e_ident, "\177ELF", 4))
		return "no ELF magic";
	if (size < sizeof(*eh))
		return "truncated header (shorter than the 64 bytes of an ELF header)";
	if (eh->e_ident[4] != 2)
		return "not a 64-bit ELF (EI_CLASS)";
	if (eh->e_ident[5] != 1)
		return "not little-endian (EI_DATA)";
	if (eh->e_machine != EM_X86_64)
		return "not an x86-64 program (e_machine)";
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return "neither ET_EXEC nor ET_DYN";
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return "program header entries are not 56 bytes (e_phentsize)";
	if (eh->e_phnum == 0 || eh->e_phnum > 64)
		return "no program headers, or more than 64 (e_phnum)";
	if (add_overflows(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), &end) ||
	    end > size)
		return "program headers past the end of the file";
	return NULL;
}

static const char *check_segment(const Elf64_Phdr *ph, uint64_t base, size_t size)
{
	uint64_t start, end;

	if (ph->p_filesz > ph->p_memsz)
		return "a segment's file size exceeds its memory size";
	if (add_overflows(ph->p_offset, ph->p_filesz, &end) || end > size)
		return "a segment reaches past the end of the file (truncated?)";
	if (add_overflows(base, ph->p_vaddr, &start) || add_overflows(start, ph->p_memsz, &end) ||
	    end > USER_TOP)
		return "a segment lies outside user space";
	if (start < MIN_ADDR)
		return "a segment lies below 0x10000, where nothing may be mapped";
	/* As for mmap, the file's bytes must sit at the same place in their page. */
	if (ph->p_filesz && (ph->p_offset - ph->p_vaddr) % PAGE_SIZE)
		return "a segment's file offset and address differ within a page (p_offset vs p_vaddr)";
	if ((ph->p_flags & PF_W) && (ph->p_flags & PF_X))
		return "a segment is both writable and executable";
	if (ph->p_memsz > (256ul << 20))
		return "a segment is absurdly large";
	return NULL;
}

static int seg_prot(uint32_t flags)
{
	return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	       (flags & PF_X ? PROT_EXEC : 0);
}

/*
 * Where area v (segment ph) shows the file's bytes, which each page's
 * first touch maps or copies (mm/memory.c); elsewhere it is zeros (bss).
 * Nothing is copied now: an exec pays for the pages its program touches.
 * As Linux maps a file's pages whole, the first page shows the file's
 * bytes before p_vaddr too, and a segment without bss its last page's
 * bytes after its end, up to the end of the file: such pages can then be
 * the module's own frames, shared by every process that runs the program.
 * A segment with bss has zeros from p_filesz on, as Linux's padzero makes
 * them.
 */
static void file_bytes(struct vma *v, const Elf64_Phdr *ph, uint64_t base, const uint8_t *image,
		       size_t size)
{
	uint64_t lead = 0, left;

	v->file_start = base + ph->p_vaddr;
	v->file_end = v->file_start + ph->p_filesz;
	if (ph->p_filesz)	/* p_offset and p_vaddr then agree within a page (check_segment) */
		lead = v->file_start - v->start;
	v->file = image + ph->p_offset - lead;
	v->file_start -= lead;
	left = size - (ph->p_offset - lead);	/* the file's bytes from v->file on */
	if (ph->p_filesz && ph->p_memsz == ph->p_filesz)
		v->file_end = MIN(v->end, v->file_start + left);
}

int elf_load(struct mm *mm, const char *path, const uint8_t *image, size_t size,
	     uint64_t dyn_offset, struct elf_info *info)
{
	const Elf64_Ehdr *eh = (const void *)image;
	const Elf64_Phdr *ph;
	const char *why = check_header(eh, size);
	uint64_t base = 0, prev_end = 0, start, end, pages = 0;
	struct vma *v;
	int i, err;

	if (why)
		return refuse(path, why);
	if (eh->e_type == ET_DYN)
		base = ET_DYN_BASE + dyn_offset;
	ph = (const void *)(image + eh->e_phoff);

	/*
	 * Check everything before mapping anything. Each segment maps the
	 * pages from the one holding p_vaddr to the one holding its last byte.
	 * A segment with p_memsz 0 is legal: at a page-aligned p_vaddr it
	 * maps nothing (at another, the page it starts in), as on Linux; it
	 * still moves the start of the heap (brk) past its address.
	 */
	memset(info, 0, sizeof(*info));
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_INTERP)
			return refuse(path, "it asks for a dynamic linker (PT_INTERP); ccos runs static programs");
		if (ph[i].p_type != PT_LOAD)
			continue;
		if ((why = check_segment(&ph[i], base, size)))
			return refuse(path, why);
		start = ALIGN_DOWN(base + ph[i].p_vaddr, PAGE_SIZE);
		end = ALIGN_UP(base + ph[i].p_vaddr + ph[i].p_memsz, PAGE_SIZE);
		info->brk = MAX(info->brk, end);
		if (start == end)
			continue;
		if (start < prev_end)
			return refuse(path, "segments overlap or are out of order");
		prev_end = end;
		pages += (end - start) / PAGE_SIZE;
	}
	if (!info->brk)
		return refuse(path, "no loadable segment");
	if (pages > frames_free())
		return -ENOMEM;

	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		start = ALIGN_DOWN(base + ph[i].p_vaddr, PAGE_SIZE);
		end = ALIGN_UP(base + ph[i].p_vaddr + ph[i].p_memsz, PAGE_SIZE);
		if (start == end)
			continue;
		err = mm_map(mm, start, end - start, seg_prot(ph[i].p_flags), path);
		if (err)
			return err;
		v = mm_find_vma(mm, start);
		v->offset = ALIGN_DOWN(ph[i].p_offset, PAGE_SIZE);
		file_bytes(v, &ph[i], base, image, size);
		/* AT_PHDR: where the program headers are in memory. */
		if (eh->e_phoff >= ph[i].p_offset && eh->e_phoff < ph[i].p_offset + ph[i].p_filesz)
			info->phdr = base + ph[i].p_vaddr + eh->e_phoff - ph[i].p_offset;
	}
	info->entry = base + eh->e_entry;
	info->phnum = eh->e_phnum;
	info->base = base;
	return 0;
}
