/* mapstest's /proc/PID/smaps cases: Linux's format, area by area as maps lists them, the pages really there, and smaps_rollup. */
#include "mapstest.h"

#define SMAPS_SIZE	(512 * 1024)
#define NFIELDS		22
#define MAX_AREAS	512
#define KB(pages)	((pages) * PAGE_SIZE / 1024)

/* Linux 6.x's lines of sizes, in its order; then THPeligible, maybe ProtectionKey, VmFlags. */
static const char *const field_names[NFIELDS] = {
	"Size:", "KernelPageSize:", "MMUPageSize:", "Rss:", "Pss:", "Pss_Dirty:",
	"Shared_Clean:", "Shared_Dirty:", "Private_Clean:", "Private_Dirty:", "Referenced:",
	"Anonymous:", "KSM:", "LazyFree:", "AnonHugePages:", "ShmemPmdMapped:",
	"FilePmdMapped:", "Shared_Hugetlb:", "Private_Hugetlb:", "Swap:", "SwapPss:", "Locked:",
};
enum { SIZE, KPS, MMUPS, RSS, PSS, PSS_DIRTY, SHARED_CLEAN, SHARED_DIRTY, PRIVATE_CLEAN,
       PRIVATE_DIRTY, REFERENCED, ANONYMOUS };

struct area {
	char head[200];		/* its maps line */
	long kb[NFIELDS];
	char flags[100];	/* after "VmFlags:" */
};

static char smaps_text[SMAPS_SIZE];
static struct area areas[MAX_AREAS];
static int nareas;

static long read_file(const char *path, char *buf, size_t size)
{
	long fd = open(path, O_RDONLY, 0), n, total = 0;

	if (fd < 0)
		return fd;
	while ((size_t)total < size - 1 && (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

/* The next line of *s, NUL-terminated in place (s moves past it); NULL at the end. */
static char *next_line(char **s)
{
	char *l = *s, *nl;

	if (!*l)
		return NULL;
	nl = strchr(l, '\n');
	if (nl) {
		*nl = '\0';
		*s = nl + 1;
	} else {
		*s = l + strlen(l);
	}
	return l;
}

/* "Name:" padded to 16 columns, the kB in 8, " kB": exactly, as Linux's SEQ_PUT_DEC prints it. */
static int parse_field(const char *l, int i, long *kb)
{
	char want[64];
	const char *p = l + 16;

	*kb = 0;
	while (*p == ' ')
		p++;
	while (*p >= '0' && *p <= '9')
		*kb = *kb * 10 + *p++ - '0';
	snprintf(want, sizeof(want), "%-16s%8ld kB", field_names[i], *kb);
	return strcmp(l, want) ? ktap_fail("line \"%s\", expected \"%s\"", l, want) : 1;
}

/* smaps of path into areas: each a maps line, the 22 sizes, THPeligible, VmFlags. */
static int load_smaps(const char *path)
{
	char *s = smaps_text, *l;
	int i;

	if (read_file(path, smaps_text, sizeof(smaps_text)) <= 0)
		return ktap_fail("cannot read %s", path);
	for (nareas = 0; (l = next_line(&s)); nareas++) {
		struct area *a = &areas[nareas];

		if (nareas == MAX_AREAS)
			return ktap_fail("more than %d areas", MAX_AREAS);
		snprintf(a->head, sizeof(a->head), "%s", l);
		for (i = 0; i < NFIELDS; i++)
			if (!(l = next_line(&s)) || !parse_field(l, i, &a->kb[i]))
				return l ? 0 : ktap_fail("%s ends in the area %s", path, a->head);
		l = next_line(&s);
		if (!l || (strcmp(l, "THPeligible:           0") && strcmp(l, "THPeligible:           1")))
			return ktap_fail("\"%s\" after Locked, expected THPeligible", l ? l : "");
		if ((l = next_line(&s)) && !strncmp(l, "ProtectionKey:", 14))
			l = next_line(&s);	/* where the CPU has protection keys */
		if (!l || strncmp(l, "VmFlags:", 8) || l[strlen(l) - 1] != ' ')
			return ktap_fail("\"%s\" ends the area %s, expected \"VmFlags: ... \"",
					 l ? l : "", a->head);
		snprintf(a->flags, sizeof(a->flags), "%s", l + 8);
	}
	return 1;
}

/* flags reads " rd wr ... ": each name two letters, a space before and after. */
static int has_flag(const struct area *a, const char *flag)
{
	const char *f;

	for (f = a->flags; f[0] == ' ' && f[1] && f[2]; f += 3)
		if (f[1] == flag[0] && f[2] == flag[1])
			return 1;
	return 0;
}

static struct area *area_at(unsigned long start)
{
	char head[24];
	int i;

	snprintf(head, sizeof(head), "%08lx-", start);
	for (i = 0; i < nareas; i++)
		if (!strncmp(areas[i].head, head, strlen(head)))
			return &areas[i];
	return NULL;
}

/* The sums hold in every area: the four kinds make Rss, none is more than the area. */
static int sums_hold(const struct area *a, const struct line *l)
{
	const long *k = a->kb;

	if (k[SIZE] != (long)(l->end - l->start) / 1024 || k[KPS] != 4 || k[MMUPS] != 4)
		return ktap_fail("%s: Size %ld kB, page sizes %ld and %ld kB", a->head, k[SIZE],
				 k[KPS], k[MMUPS]);
	if (k[RSS] > k[SIZE] || k[PSS] > k[RSS] || k[PSS_DIRTY] > k[PSS] || k[ANONYMOUS] > k[RSS] ||
	    k[REFERENCED] > k[RSS] ||
	    k[SHARED_CLEAN] + k[SHARED_DIRTY] + k[PRIVATE_CLEAN] + k[PRIVATE_DIRTY] != k[RSS])
		return ktap_fail("%s: sizes that do not add up (Rss %ld, Pss %ld, Anonymous %ld)",
				 a->head, k[RSS], k[PSS], k[ANONYMOUS]);
	if (has_flag(a, "rd") != (l->perms[0] == 'r') || has_flag(a, "wr") != (l->perms[1] == 'w') ||
	    has_flag(a, "ex") != (l->perms[2] == 'x'))
		return ktap_fail("%s: VmFlags%s", a->head, a->flags);
	return 1;
}

/*
 * Every area of maps, in its order, with the same line, the sizes in
 * Linux's format and order, their sums, and VmFlags with the rights of the
 * line; the stack grows down (gd), the vDSO and vvar cannot be expanded
 * (de) and vvar is no memory of pages (pf).
 */
int test_smaps_format(void)
{
	const char *text, *eol;
	struct area *a;
	int i;

	if (!load_maps() || !load_smaps("/proc/self/smaps"))
		return 0;
	if (nareas != nlines)
		return ktap_fail("smaps has %d areas, maps %d lines", nareas, nlines);
	for (i = 0, text = maps_text; i < nlines; i++, text = eol + 1) {
		eol = strchr(text, '\n');
		if (strncmp(areas[i].head, text, eol - text) || areas[i].head[eol - text])
			return ktap_fail("area %d is \"%s\", maps says \"%.*s\"", i, areas[i].head,
					 (int)(eol - text), text);
		if (!sums_hold(&areas[i], &lines[i]))
			return 0;
	}
	if (!(a = area_at(line_named("[stack]")->start)) || !has_flag(a, "gd") || !has_flag(a, "mr"))
		return ktap_fail("[stack]'s VmFlags%s: no gd or mr", a ? a->flags : " missing");
	if (line_named("[vdso]") &&
	    (!(a = area_at(line_named("[vdso]")->start)) || !has_flag(a, "de")))
		return ktap_fail("[vdso]'s VmFlags%s: no de", a ? a->flags : " missing");
	if (line_named("[vvar]") &&
	    (!(a = area_at(line_named("[vvar]")->start)) || !has_flag(a, "pf")))
		return ktap_fail("[vvar]'s VmFlags%s: no pf", a ? a->flags : " missing");
	return 1;
}

/* An area of 16 pages between two PROT_NONE pages, so that no neighbour merges with it. */
static char *fenced_area(void)
{
	char *fence = map_at(NULL, 18 * PAGE_SIZE, PROT_NONE, 0);

	if ((long)fence < 0 && (long)fence > -4096)
		return NULL;
	return map_at(fence + PAGE_SIZE, 16 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_FIXED);
}

static int expect_kb(const struct area *a, int field, long want)
{
	if (a->kb[field] == want)
		return 1;
	return ktap_fail("%s: %s %ld kB, expected %ld", a->head, field_names[field], a->kb[field],
			 want);
}

/* The pages written, and only those, are there (a page comes at its first touch): private, dirty, anonymous. */
static int written_pages(const struct area *a, long written)
{
	long kb = KB(written);

	return expect_kb(a, RSS, kb) && expect_kb(a, PSS, kb) && expect_kb(a, ANONYMOUS, kb) &&
	       expect_kb(a, PRIVATE_DIRTY, kb) && expect_kb(a, PSS_DIRTY, kb) &&
	       expect_kb(a, PRIVATE_CLEAN, 0) && expect_kb(a, SHARED_CLEAN, 0) &&
	       expect_kb(a, SHARED_DIRTY, 0);
}

/* 5 of 16 new pages written: Rss 20 kB; mprotect splits the area, and each piece counts its own. */
int test_smaps_counts_written_pages(void)
{
	static const int written[] = { 0, 3, 7, 8, 15 };
	char *p = fenced_area();
	struct area *a;
	unsigned long i;

	if (!p || (long)p < 0)
		return ktap_fail("mmap");
	for (i = 0; i < ARRAY_SIZE(written); i++)
		p[written[i] * PAGE_SIZE] = 1;
	if (!load_smaps("/proc/self/smaps"))
		return 0;
	if (!(a = area_at((unsigned long)p)) || !written_pages(a, 5) ||
	    !expect_kb(a, REFERENCED, KB(5)))
		return a ? 0 : ktap_fail("no area at %p", p);
	if (!has_flag(a, "ac") || !has_flag(a, "mw"))
		return ktap_fail("%s: VmFlags%s, expected ac and mw", a->head, a->flags);
	if (!(a = area_at((unsigned long)p - PAGE_SIZE)) || !expect_kb(a, RSS, 0))
		return a ? 0 : ktap_fail("no PROT_NONE area before %p", p);
	if (mprotect(p, 8 * PAGE_SIZE, PROT_READ) || !load_smaps("/proc/self/smaps"))
		return ktap_fail("mprotect or smaps");
	if (!(a = area_at((unsigned long)p)) || !written_pages(a, 3) ||
	    !(a = area_at((unsigned long)p + 8 * PAGE_SIZE)) || !written_pages(a, 2))
		return a ? 0 : ktap_fail("the pieces of the area at %p are missing", p);
	munmap(p - PAGE_SIZE, 18 * PAGE_SIZE);
	return 1;
}

/* Besides `own` pages of its own, `shared` written before a fork that both sides still map: Pss halves them. */
static int own_and_shared(const struct area *a, long own, long shared)
{
	return expect_kb(a, RSS, KB(own + shared)) && expect_kb(a, PSS, KB(own) + KB(shared) / 2) &&
	       expect_kb(a, PRIVATE_DIRTY, KB(own)) && expect_kb(a, SHARED_DIRTY, KB(shared)) &&
	       expect_kb(a, ANONYMOUS, KB(own + shared)) && expect_kb(a, PRIVATE_CLEAN, 0) &&
	       expect_kb(a, SHARED_CLEAN, 0);
}

/*
 * /proc/PID/smaps of a child: the 8 pages it wrote, and 2 its parent
 * wrote before the fork, which both map until one side writes.
 */
int test_smaps_of_another_process(void)
{
	char *p = fenced_area(), path[32], c;
	struct area *a = NULL;
	int to_child[2], from_child[2], i, ok, status;
	long pid;

	if (!p || (long)p < 0 || pipe(to_child) || pipe(from_child))
		return ktap_fail("mmap or pipe");
	p[1 * PAGE_SIZE] = p[3 * PAGE_SIZE] = 1;
	if ((pid = fork()) == 0) {
		for (i = 0; i < 8; i++)
			p[i * 2 * PAGE_SIZE] = 1;
		write(from_child[1], "w", 1);
		read(to_child[0], &c, 1);
		exit(0);
	}
	read(from_child[0], &c, 1);
	snprintf(path, sizeof(path), "/proc/%ld/smaps", pid);
	ok = load_smaps(path);
	if (ok && !(a = area_at((unsigned long)p)))
		ok = ktap_fail("no area at %p in %s", p, path);
	ok = ok && own_and_shared(a, 8, 2) && load_smaps("/proc/self/smaps");
	if (ok && !(a = area_at((unsigned long)p)))
		ok = ktap_fail("no area at %p in /proc/self/smaps", p);
	ok = ok && own_and_shared(a, 0, 2);
	write(to_child[1], "x", 1);
	wait4(pid, &status, 0, NULL);
	return ok;
}

/*
 * Shared anonymous memory as Linux shows it: "rw-s" on device 00:01 (its
 * shmem file), named "/dev/zero (deleted)", a split piece with its offset
 * in the object; no page of it Anonymous, sh and ms among its VmFlags and
 * no ac. A page written is Private_Dirty, one only read Private_Clean,
 * until a child maps them too: then Shared, and Pss halves them.
 */
int test_smaps_shared_memory(void)
{
	char *p = mmap(NULL, 3 * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char c, head[64];
	int to_child[2], from_child[2], ok, status;
	struct area *a;
	long pid;

	if ((long)p < 0 && (long)p > -4096)
		return ktap_fail("mmap(MAP_SHARED | MAP_ANONYMOUS) returned %ld", (long)p);
	if (pipe(to_child) || pipe(from_child))
		return ktap_fail("pipe");
	p[0] = 1;
	c = p[PAGE_SIZE];
	if (!load_smaps("/proc/self/smaps") || !(a = area_at((unsigned long)p)))
		return ktap_fail("no area at %p", p);
	snprintf(head, sizeof(head), "%08lx-%08lx rw-s 00000000 00:01 ", (unsigned long)p,
		 (unsigned long)p + 3 * PAGE_SIZE);
	if (strncmp(a->head, head, strlen(head)) || strcmp(a->head + 73, "/dev/zero (deleted)"))
		return ktap_fail("\"%s\", expected \"%s<inode> ... /dev/zero (deleted)\"", a->head, head);
	if (!expect_kb(a, RSS, 8) || !expect_kb(a, PSS, 8) || !expect_kb(a, PRIVATE_DIRTY, 4) ||
	    !expect_kb(a, PRIVATE_CLEAN, 4) || !expect_kb(a, ANONYMOUS, 0))
		return 0;
	if (!has_flag(a, "sh") || !has_flag(a, "ms") || !has_flag(a, "mw") || has_flag(a, "ac"))
		return ktap_fail("%s: VmFlags%s, expected sh, ms and mw, no ac", a->head, a->flags);
	if ((pid = fork()) == 0) {
		c = p[0] + p[PAGE_SIZE];
		write(from_child[1], &c, 1);
		read(to_child[0], &c, 1);
		exit(0);
	}
	read(from_child[0], &c, 1);
	ok = load_smaps("/proc/self/smaps") && (a = area_at((unsigned long)p)) &&
	     expect_kb(a, RSS, 8) && expect_kb(a, PSS, 4) && expect_kb(a, SHARED_DIRTY, 4) &&
	     expect_kb(a, SHARED_CLEAN, 4) && expect_kb(a, PRIVATE_DIRTY, 0);
	write(to_child[1], "x", 1);
	wait4(pid, &status, 0, NULL);
	if (!ok)
		return 0;
	if (mprotect(p + PAGE_SIZE, PAGE_SIZE, PROT_READ) || !load_smaps("/proc/self/smaps") ||
	    !(a = area_at((unsigned long)p + PAGE_SIZE)))
		return ktap_fail("mprotect, or no area after it");
	if (strncmp(strchr(a->head, ' ') + 1, "r--s 00001000 00:01 ", 20) || !expect_kb(a, RSS, 4))
		return ktap_fail("the piece mprotect made is \"%s\", expected r--s at offset 00001000", a->head);
	return munmap(p, 3 * PAGE_SIZE) == 0;
}

/* The number at s, in hex or decimal. */
static unsigned long strtoul_hex(const char *s)
{
	unsigned long v = 0;

	for (; (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'); s++)
		v = v * 16 + (*s <= '9' ? *s - '0' : *s - 'a' + 10);
	return v;
}

static long strtoul_dec(const char *s)
{
	long v = 0;

	while (*s == ' ')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + *s - '0';
	return v;
}

static const char *const rollup_names[] = {
	"Rss:", "Pss:", "Pss_Dirty:", "Pss_Anon:", "Pss_File:", "Pss_Shmem:", "Shared_Clean:",
	"Shared_Dirty:", "Private_Clean:", "Private_Dirty:", "Referenced:", "Anonymous:", "KSM:",
	"LazyFree:", "AnonHugePages:", "ShmemPmdMapped:", "FilePmdMapped:", "Shared_Hugetlb:",
	"Private_Hugetlb:", "Swap:", "SwapPss:", "Locked:",
};

/* smaps' Rss summed over its areas. */
static long smaps_rss(void)
{
	long kb = 0;
	int i;

	if (!load_smaps("/proc/self/smaps"))
		return -1;
	for (i = 0; i < nareas; i++)
		kb += areas[i].kb[RSS];
	return kb;
}

/*
 * smaps_rollup: one line "[rollup]" from the first area's start to the
 * end of an area, then Linux's sizes in its order (Pss split into anon,
 * file and shmem), Rss the sum of smaps' (read just before and after:
 * every buffer is written first, so nothing comes in between).
 */
int test_smaps_rollup(void)
{
	static char rollup[4096];
	char *p = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *s = rollup, *l, head[80];
	long kb[ARRAY_SIZE(rollup_names)], before, after;
	unsigned long i, end;
	int n;

	if ((long)p < 0 && (long)p > -4096)
		return ktap_fail("mmap");
	p[0] = 1;
	memset(smaps_text, 1, sizeof(smaps_text));
	memset(rollup, 1, sizeof(rollup));
	before = smaps_rss();
	if (read_file("/proc/self/smaps_rollup", rollup, sizeof(rollup)) <= 0)
		return ktap_fail("cannot read /proc/self/smaps_rollup");
	after = smaps_rss();
	if (!load_maps() || !(l = next_line(&s)))
		return ktap_fail("maps, or an empty smaps_rollup");
	n = snprintf(head, sizeof(head), "%08lx-", lines[0].start);
	end = strtoul_hex(l + n);
	snprintf(head + n, sizeof(head) - n, "%08lx ---p 00000000 00:00 0", end);
	if (strncmp(l, head, strlen(head)) || strlen(l) != 73 + 8 || strcmp(l + 73, "[rollup]"))
		return ktap_fail("\"%s\", expected \"%s\", \"[rollup]\" at column 74", l, head);
	for (n = 0; n < nlines && lines[n].end != end; n++)
		;
	if (n == nlines)
		return ktap_fail("no area ends at %lx", end);
	for (i = 0; i < ARRAY_SIZE(rollup_names); i++) {
		char want[64];

		if (!(l = next_line(&s)))
			return ktap_fail("smaps_rollup ends before %s", rollup_names[i]);
		kb[i] = strtoul_dec(l + 16);
		snprintf(want, sizeof(want), "%-16s%8ld kB", rollup_names[i], kb[i]);
		if (strcmp(l, want))
			return ktap_fail("line \"%s\", expected \"%s\"", l, want);
	}
	if ((l = next_line(&s)))
		return ktap_fail("\"%s\" after Locked", l);
	ktap_diag("Rss %ld kB (smaps: %ld and %ld), Pss %ld = %ld anon + %ld file + %ld shmem",
		  kb[0], before, after, kb[1], kb[3], kb[4], kb[5]);
	if ((kb[0] < before && kb[0] < after) || (kb[0] > before && kb[0] > after))
		return ktap_fail("Rss %ld kB is not smaps' sum", kb[0]);
	if (kb[5] < 4 || kb[1] < kb[3] + kb[4] + kb[5] || kb[1] > kb[3] + kb[4] + kb[5] + 2)
		return ktap_fail("Pss_Anon, Pss_File and Pss_Shmem do not make Pss (a shared page written)");
	return munmap(p, PAGE_SIZE) == 0;
}
