/* mapstest: /proc/self/maps against the mappings the program really has. */
#include "ulib.h"

/*
 * Each case changes the address space (mmap, mprotect, brk), reads
 * /proc/self/maps, and checks the lines against what it did and against
 * the memory itself: a line's permissions must be what a read or a write
 * there does. The same binary runs on Linux.
 */

#define VSYSCALL_ADDR	0xffffffffff600000UL
#define MAPS_SIZE	65536
#define MAX_LINES	512

struct line {
	unsigned long start, end, offset;
	char perms[5];
	const char *name;	/* "" for none */
	int name_column;	/* where the name starts, 0 for none */
};

static char maps_text[MAPS_SIZE];
static char names[MAPS_SIZE];
static struct line lines[MAX_LINES];
static int nlines;
static const char *self;	/* argv[0] */

/* ---- reading and parsing ---- */

static long read_maps_in(char *buf, size_t size, size_t piece)
{
	long fd = open("/proc/self/maps", O_RDONLY, 0), n, total = 0;

	if (fd < 0)
		return fd;
	while ((size_t)total < size - 1 &&
	       (n = read(fd, buf + total, piece < size - 1 - total ? piece : size - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parse hex digits at *p up to a non-digit; the count of digits. */
static int parse_hex(const char **p, unsigned long *v)
{
	int n = 0;

	*v = 0;
	while (hexval(**p) >= 0) {
		*v = *v << 4 | hexval(**p);
		(*p)++;
		n++;
	}
	return n;
}

static int expect_char(const char **p, char c)
{
	if (**p != c)
		return 0;
	(*p)++;
	return 1;
}

/*
 * "start-end perms offset major:minor inode [name]": hex start and end
 * (at least 8 digits), perms [r-][w-][x-][ps], hex offset, dev, decimal
 * inode, then spaces and the name, which Linux starts at column 74.
 */
static int parse_line(const char *s, const char *eol, struct line *l, char **name_out)
{
	const char *p = s;
	unsigned long dev;
	int i;

	if (parse_hex(&p, &l->start) < 8 || !expect_char(&p, '-') ||
	    parse_hex(&p, &l->end) < 8 || !expect_char(&p, ' '))
		return 0;
	for (i = 0; i < 4; i++)
		l->perms[i] = *p++;
	l->perms[4] = '\0';
	if ((l->perms[0] != 'r' && l->perms[0] != '-') || (l->perms[1] != 'w' && l->perms[1] != '-') ||
	    (l->perms[2] != 'x' && l->perms[2] != '-') || (l->perms[3] != 'p' && l->perms[3] != 's'))
		return 0;
	if (!expect_char(&p, ' ') || parse_hex(&p, &l->offset) < 8 || !expect_char(&p, ' ') ||
	    parse_hex(&p, &dev) < 2 || !expect_char(&p, ':') || parse_hex(&p, &dev) < 2 ||
	    !expect_char(&p, ' '))
		return 0;
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	while (p < eol && *p == ' ')
		p++;
	l->name_column = p < eol ? p - s : 0;
	memcpy(*name_out, p, eol - p);
	(*name_out)[eol - p] = '\0';
	l->name = *name_out;
	*name_out += eol - p + 1;
	return 1;
}

/* Read and parse /proc/self/maps into lines[]; 0 and a reason on failure. */
static int load_maps(void)
{
	char *s = maps_text, *name = names;
	long n = read_maps_in(maps_text, sizeof(maps_text), sizeof(maps_text));

	nlines = 0;
	if (n <= 0)
		return ktap_fail("reading /proc/self/maps: %ld", n);
	if (maps_text[n - 1] != '\n')
		return ktap_fail("the last line has no newline (%ld bytes: truncated?)", n);
	while (*s) {
		char *eol = strchr(s, '\n');

		if (nlines == MAX_LINES)
			return ktap_fail("more than %d lines", MAX_LINES);
		if (!parse_line(s, eol, &lines[nlines], &name)) {
			*eol = '\0';
			return ktap_fail("line %d is not in Linux's format: \"%s\"", nlines + 1, s);
		}
		nlines++;
		s = eol + 1;
	}
	return 1;
}

static struct line *line_at(unsigned long addr)
{
	int i;

	for (i = 0; i < nlines; i++)
		if (addr >= lines[i].start && addr < lines[i].end)
			return &lines[i];
	return NULL;
}

static struct line *line_named(const char *name)
{
	int i;

	for (i = 0; i < nlines; i++)
		if (!strcmp(lines[i].name, name))
			return &lines[i];
	return NULL;
}

static int count_named(const char *name)
{
	int i, n = 0;

	for (i = 0; i < nlines; i++)
		n += !strcmp(lines[i].name, name);
	return n;
}

/* ---- touching memory ---- */

/*
 * probe_read(addr) reads a byte, probe_write(addr, v) writes one; a fault
 * is caught by on_segv, which notes si_code and resumes after the access.
 */
extern const char probe_read_resume[], probe_write_resume[];
unsigned long probe_read(unsigned long addr);
void probe_write(unsigned long addr, unsigned long v);
__asm__(".text\n"
	"probe_read:\n"
	"	xorl %eax, %eax\n"
	"	movb (%rdi), %al\n"
	"probe_read_resume:\n"
	"	ret\n"
	"probe_write:\n"
	"	movb %sil, (%rdi)\n"
	"probe_write_resume:\n"
	"	ret\n");

static volatile int fault_code;		/* si_code of the last fault, 0: none */

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;

	(void)sig;
	fault_code = si->si_code;
	mc->rip = mc->rip < (unsigned long)probe_write_resume ?
		  (unsigned long)probe_read_resume : (unsigned long)probe_write_resume;
}

/* 0 if addr reads, else the si_code of the fault. */
static int read_faults(unsigned long addr)
{
	fault_code = 0;
	probe_read(addr);
	return fault_code ? fault_code : 0;
}

/* Write back the byte that is there; 0 if it worked, else the si_code. */
static int write_faults(unsigned long addr)
{
	unsigned long v = probe_read(addr);

	fault_code = 0;
	probe_write(addr, v);
	return fault_code;
}

static void *map_at(void *addr, size_t len, int prot, int flags)
{
	return mmap(addr, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
}

static const char *perms_of(int prot)
{
	static const char *const p[] = { "---p", "r--p", "-w-p", "rw-p",
					 "--xp", "r-xp", "-wxp", "rwxp" };

	return p[prot & 7];
}

/* ---- the cases ---- */

/* Every line parses; lines are sorted, page-aligned and do not overlap. */
static int test_format(void)
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
static int test_small_reads(void)
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

static int test_mmap_mprotect_munmap(void)
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
static int test_each_protection(void)
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
static int test_many_areas(void)
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
	const char *base = self, *p;
	size_t nl = strlen(name), bl;

	for (p = self; *p; p++)		/* base: from the last '/' on */
		if (*p == '/')
			base = p;
	bl = strlen(base);
	return !strcmp(name, self) || (nl > bl && !strcmp(name + nl - bl, base));
}

/* Each PT_LOAD segment: its perms, its file offset, the program's path. */
static int test_elf_segments(void)
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
					 ph[i].p_vaddr, l->name, self);
		seen++;
	}
	return seen >= 2 || ktap_fail("%lu PT_LOAD segments", seen);
}

/* The stack: a local variable lies in [stack], rw-p. */
static int test_stack(void)
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
static int test_heap(void)
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
static int test_vdso(void)
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

/*
 * [vvar]: read-only. [vsyscall]: at its fixed address, with the
 * permissions of the vsyscall mode (design.md): r-xp in native and
 * emulate, --xp in xonly, no line in none; its readability must agree.
 */
static int test_gate_pages(void)
{
	struct line *vvar, *vsys;
	int faults;

	if (!load_maps())
		return 0;
	vvar = line_named("[vvar]");
	if (!vvar || strcmp(vvar->perms, "r--p"))
		return ktap_fail("[vvar] line %s, expected r--p", vvar ? vvar->perms : "missing");
	if (read_faults(vvar->start))
		return ktap_fail("[vvar] at %lx does not read", vvar->start);
	if (!write_faults(vvar->start))
		return ktap_fail("[vvar] at %lx is writable", vvar->start);
	vsys = line_named("[vsyscall]");
	faults = read_faults(VSYSCALL_ADDR);
	if (!vsys) {
		ktap_diag("no [vsyscall] line (vsyscall=none)");
		return faults || ktap_fail("no [vsyscall] line, but the page reads");
	}
	ktap_diag("[vsyscall] %s", vsys->perms);
	if (vsys->start != VSYSCALL_ADDR || vsys->end != VSYSCALL_ADDR + PAGE_SIZE)
		return ktap_fail("[vsyscall] at %lx-%lx", vsys->start, vsys->end);
	if (strcmp(vsys->perms, "r-xp") && strcmp(vsys->perms, "--xp"))
		return ktap_fail("[vsyscall] %s, expected r-xp or --xp", vsys->perms);
	if ((vsys->perms[0] == 'r') != !faults)
		return ktap_fail("[vsyscall] says %s, but reading it %s", vsys->perms,
				 faults ? "faults" : "works");
	return 1;
}

/*
 * Every line against the memory: 'r' reads and '-' faults (SEGV_ACCERR
 * in the process's own areas), 'w' takes a write and '-' refuses it; the
 * first page of each gap between lines is not mapped (SEGV_MAPERR).
 * Not below [stack], which Linux grows into on a touch.
 */
static int test_lines_match_memory(void)
{
	int i;

	if (!load_maps())
		return 0;
	for (i = 0; i < nlines; i++) {
		struct line *l = &lines[i];
		int r = read_faults(l->start);

		if ((l->perms[0] == 'r') != !r)
			return ktap_fail("%lx-%lx %s %s: a read %s", l->start, l->end, l->perms,
					 l->name, r ? "faults" : "works");
		if (!r && (l->perms[1] == 'w') != !write_faults(l->start))
			return ktap_fail("%lx-%lx %s %s: a write %s", l->start, l->end, l->perms,
					 l->name, l->perms[1] == 'w' ? "faults" : "works");
		if (r && (long)l->start > 0 && r != SEGV_ACCERR)
			return ktap_fail("%lx-%lx %s %s: si_code %d, expected SEGV_ACCERR",
					 l->start, l->end, l->perms, l->name, r);
		if (i + 1 < nlines && lines[i + 1].start > l->end &&
		    strcmp(lines[i + 1].name, "[stack]") && (long)l->end > 0 &&
		    (r = read_faults(l->end)) != SEGV_MAPERR)
			return ktap_fail("the gap at %lx after %s: %s", l->end, l->name,
					 r ? "not SEGV_MAPERR" : "it reads");
	}
	return 1;
}

static const struct {
	const char *name;
	int (*run)(void);
} tests[] = {
	{ "format_sorted_aligned", test_format },
	{ "small_reads_same_text", test_small_reads },
	{ "mmap_mprotect_munmap_lines", test_mmap_mprotect_munmap },
	{ "each_protection", test_each_protection },
	{ "many_areas_all_listed", test_many_areas },
	{ "elf_segments_path_perms_offset", test_elf_segments },
	{ "stack_line", test_stack },
	{ "heap_line_after_brk", test_heap },
	{ "vdso_line", test_vdso },
	{ "vvar_and_vsyscall_lines", test_gate_pages },
	{ "lines_match_memory", test_lines_match_memory },
};

int main(int argc, char **argv, char **envp)
{
	struct kernel_sigaction sa = {
		.sa_handler = on_segv,
		.sa_flags = SA_SIGINFO | SA_RESTORER | SA_NODEFER,
		.sa_restorer = rt_sigreturn,
	};
	unsigned long i;

	(void)argc, (void)envp;
	self = argv[0];
	rt_sigaction(SIGSEGV, &sa, NULL, sizeof(sigset_t));
	ktap_plan(ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		ktap_ok(tests[i].run(), "%s", tests[i].name);
	return ktap_done();
}
