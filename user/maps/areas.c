/* mapstest's cases on the areas: format, small reads, mmap and mprotect, ELF segments and headers, stack, heap, vdso. */
#include "mapstest.h"

const char *argv0;	/* argv[0] */

/* ---- the cases ---- */

/* Every line parses; lines are sorted, page-aligned and do not overlap. */
int test_format(void)
{
	int i;

	if (!load_maps())
		return 0;
	for (i = 0; i < nlines; i++) {
		struct line *l = &lines[i];

		if (l->start >= l->end || (l->start | l->end) % PAGE_SIZE)
			return ktap_fail("line %d: %lx-%lx is not a page-aligned range", i + 1,
					 l->start, l->end);
		if (i && l->start < lines[i - 1].end)
			return ktap_fail("line %d starts at %lx, inside or before line %d", i + 1,
					 l->start, i);
		if (l->name_column && l->name_column != 73)
			return ktap_fail("line %d: the name starts at column %d, Linux's is 74",
					 i + 1, l->name_column + 1);
	}
	return nlines > 0 || ktap_fail("no lines");
}

/* Reading in 7-byte pieces gives the same text as one read. */
int test_small_reads(void)
{
	static char again[MAPS_SIZE];
	long n1 = read_maps_in(maps_text, sizeof(maps_text), sizeof(maps_text));
	long n2 = read_maps_in(again, sizeof(again), 7);

	if (n1 <= 0 || n1 != n2 || memcmp(maps_text, again, n1))
		return ktap_fail("one read gave %ld bytes, 7-byte reads %ld, or the texts differ",
				 n1, n2);
	return 1;
}

/*
 * Three pages between two PROT_NONE guard pages (so that no neighbour
 * merges with them, on Linux either): one rw-p line; the middle page
 * made read-only splits it in three; made writable again, one line; the
 * middle page unmapped, two lines and a hole.
 */
static int expect_line(unsigned long start, unsigned long end, const char *perms,
		       const char *when)
{
	struct line *l = line_at(start);

	if (!l)
		return ktap_fail("%s: no line for %lx", when, start);
	if (l->start != start || l->end != end || strcmp(l->perms, perms) || l->name[0])
		return ktap_fail("%s: line %lx-%lx %s \"%s\", expected %lx-%lx %s and no name",
				 when, l->start, l->end, l->perms, l->name, start, end, perms);
	return 1;
}

int test_mmap_mprotect_munmap(void)
{
	char *guard = map_at(NULL, 5 * PAGE_SIZE, PROT_NONE, 0);
	unsigned long a = (unsigned long)guard + PAGE_SIZE, p = PAGE_SIZE;
	int ok;

	if (map_at((void *)a, 3 * p, PROT_READ | PROT_WRITE, MAP_FIXED) != (void *)a)
		return ktap_fail("mmap failed");
	((char *)a)[0] = ((char *)a)[p] = ((char *)a)[2 * p] = 1;
	ok = load_maps() && expect_line(a, a + 3 * p, "rw-p", "mmap") &&
	     expect_line(a - p, a, "---p", "the guard page");
	mprotect((void *)(a + p), p, PROT_READ);
	ok = ok && load_maps() && expect_line(a, a + p, "rw-p", "mprotect") &&
	     expect_line(a + p, a + 2 * p, "r--p", "mprotect") &&
	     expect_line(a + 2 * p, a + 3 * p, "rw-p", "mprotect");
	mprotect((void *)(a + p), p, PROT_READ | PROT_WRITE);
	ok = ok && load_maps() && expect_line(a, a + 3 * p, "rw-p", "mprotect undone");
	munmap((void *)(a + p), p);
	ok = ok && load_maps() && expect_line(a, a + p, "rw-p", "munmap") &&
	     expect_line(a + 2 * p, a + 3 * p, "rw-p", "munmap");
	if (ok && line_at(a + p))
		ok = ktap_fail("munmap: a line still covers the hole at %lx", a + p);
	munmap(guard, 5 * p);
	return ok;
}

/* Each protection prints as itself. */
int test_each_protection(void)
{
	int prot;

	for (prot = 0; prot < 8; prot++) {
		char *p;
		struct line *l;

		if (prot == PROT_WRITE || prot == (PROT_WRITE | PROT_EXEC))
			continue;	/* x86 cannot write without reading */
		p = map_at(NULL, PAGE_SIZE, prot, 0);
		if (p == MAP_FAILED)
			return ktap_fail("mmap(prot %d) failed", prot);
		if (!load_maps())
			return 0;
		l = line_at((unsigned long)p);
		if (!l || strcmp(l->perms, perms_of(prot)))
			return ktap_fail("mmap(prot %d): perms %s, expected %s", prot,
					 l ? l->perms : "(no line)", perms_of(prot));
		munmap(p, PAGE_SIZE);
	}
	return 1;
}

/* Many areas: the file holds them all (no fixed-size buffer cuts it). */
int test_many_areas(void)
{
	enum { N = 150 };
	char *base = map_at(NULL, 2 * N * PAGE_SIZE, PROT_READ, 0);
	int i, ok = 1;

	if (base == MAP_FAILED)
		return ktap_fail("mmap failed");
	for (i = 0; i < N; i++)		/* every other page writable: 2N areas */
		mprotect(base + 2 * i * PAGE_SIZE, PAGE_SIZE, PROT_READ | PROT_WRITE);
	if (!load_maps())
		ok = 0;
	for (i = 0; ok && i < 2 * N; i++)
		if (!expect_line((unsigned long)base + i * PAGE_SIZE,
				 (unsigned long)base + (i + 1) * PAGE_SIZE,
				 i % 2 ? "r--p" : "rw-p", "300 areas"))
			ok = 0;
	munmap(base, 2 * N * PAGE_SIZE);
	return ok;
}

/* The name of the program's file: argv[0] on ccos, its full path on Linux. */
static int is_self(const char *name)
{
	const char *base = argv0, *p;
	size_t nl = strlen(name), bl;

	for (p = argv0; *p; p++)		/* base: from the last '/' on */
		if (*p == '/')
			base = p;
	bl = strlen(base);
	return !strcmp(name, argv0) || (nl > bl && !strcmp(name + nl - bl, base));
}

/* Each PT_LOAD segment: its perms, its file offset, the program's path. */
int test_elf_segments(void)
{
	Elf64_Phdr *ph = (Elf64_Phdr *)getauxval(AT_PHDR);
	unsigned long i, n = getauxval(AT_PHNUM), seen = 0;

	if (!load_maps())
		return 0;
	for (i = 0; i < n; i++) {
		struct line *l;
		int prot;

		if (ph[i].p_type != PT_LOAD)
			continue;
		l = line_at(ph[i].p_vaddr);
		prot = (ph[i].p_flags & PF_R ? PROT_READ : 0) |
		       (ph[i].p_flags & PF_W ? PROT_WRITE : 0) |
		       (ph[i].p_flags & PF_X ? PROT_EXEC : 0);
		if (!l)
			return ktap_fail("no line for the segment at %lx", ph[i].p_vaddr);
		if (strcmp(l->perms, perms_of(prot)))
			return ktap_fail("segment at %lx: perms %s, expected %s", ph[i].p_vaddr,
					 l->perms, perms_of(prot));
		if (l->offset + (ph[i].p_vaddr & ~(PAGE_SIZE - 1)) - l->start !=
		    (ph[i].p_offset & ~(PAGE_SIZE - 1)))
			return ktap_fail("segment at %lx: line offset %lx from %lx, p_offset %lx",
					 ph[i].p_vaddr, l->offset, l->start, ph[i].p_offset);
		if (!is_self(l->name))
			return ktap_fail("segment at %lx: name \"%s\", expected this program (%s)",
					 ph[i].p_vaddr, l->name, argv0);
		seen++;
	}
	return seen >= 2 || ktap_fail("%lu PT_LOAD segments", seen);
}

/*
 * The ELF header and the program headers (AT_PHDR) lie in a read-only,
 * non-executable segment of the program: r--p (linker/user.ld).
 */
int test_elf_headers(void)
{
	Elf64_Phdr *ph = (Elf64_Phdr *)getauxval(AT_PHDR);
	unsigned long i, n = getauxval(AT_PHNUM), ehdr = 0;
	struct line *l;

	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
			ehdr = ph[i].p_vaddr;
	if (!ehdr || memcmp((void *)ehdr, "\177ELF", 4))
		return ktap_fail("no ELF header in memory (no PT_LOAD at file offset 0)");
	if (!load_maps())
		return 0;
	l = line_at(ehdr);
	if (!l || strcmp(l->perms, "r--p"))
		return ktap_fail("the ELF header at %lx: %s, expected r--p", ehdr,
				 l ? l->perms : "no line");
	l = line_at((unsigned long)ph);
	if (!l || strcmp(l->perms, "r--p"))
		return ktap_fail("the program headers at %p: %s, expected r--p", (void *)ph,
				 l ? l->perms : "no line");
	return 1;
}

/* The stack: a local variable lies in [stack], rw-p. */
int test_stack(void)
{
	char local = 0;
	struct line *l;

	if (!load_maps())
		return 0;
	l = line_at((unsigned long)&local);
	if (!l || strcmp(l->name, "[stack]") || strcmp(l->perms, "rw-p"))
		return ktap_fail("the stack at %p: line \"%s\" %s, expected [stack] rw-p",
				 &local, l ? l->name : "(none)", l ? l->perms : "");
	return count_named("[stack]") == 1 || ktap_fail("%d [stack] lines",
							 count_named("[stack]"));
}

/* brk twice: one [heap] line, rw-p, up to the new break. */
int test_heap(void)
{
	unsigned long cur = brk(0), want = cur + 6 * PAGE_SIZE, top;
	struct line *l;

	if (brk((void *)(cur + 3 * PAGE_SIZE)) != (long)(cur + 3 * PAGE_SIZE) ||
	    brk((void *)want) != (long)want)
		return ktap_fail("brk failed");
	((char *)want)[-1] = 1;
	if (!load_maps())
		return 0;
	top = (want + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	l = line_at(want - 1);
	if (!l || strcmp(l->name, "[heap]") || strcmp(l->perms, "rw-p"))
		return ktap_fail("the heap at %lx: line \"%s\" %s, expected [heap] rw-p",
				 want - 1, l ? l->name : "(none)", l ? l->perms : "");
	if (l->end != top || l->start > ((cur + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1)))
		return ktap_fail("[heap] %lx-%lx, expected it to cover %lx-%lx", l->start,
				 l->end, cur, top);
	if (count_named("[heap]") != 1)
		return ktap_fail("%d [heap] lines after two brk calls, expected one (merged)",
				 count_named("[heap]"));
	brk((void *)cur);
	return 1;
}

/* [vdso] where AT_SYSINFO_EHDR says, r-xp. */
int test_vdso(void)
{
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR);
	struct line *l;

	if (!load_maps())
		return 0;
	l = line_named("[vdso]");
	if (!vdso)
		return !l || ktap_fail("a [vdso] line but no AT_SYSINFO_EHDR");
	if (!l || l->start != vdso || strcmp(l->perms, "r-xp"))
		return ktap_fail("[vdso] line %lx %s, expected at %lx r-xp",
				 l ? l->start : 0, l ? l->perms : "(none)", vdso);
	return 1;
}
