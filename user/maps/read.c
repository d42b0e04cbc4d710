/* mapstest's reading of /proc/self/maps into lines, and its reads and writes that may fault. */
#include "mapstest.h"

char maps_text[MAPS_SIZE];
static char names[MAPS_SIZE];
struct line lines[MAX_LINES];
int nlines;

/* ---- reading and parsing ---- */

long read_maps_in(char *buf, size_t size, size_t piece)
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
int load_maps(void)
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

struct line *line_at(unsigned long addr)
{
	int i;

	for (i = 0; i < nlines; i++)
		if (addr >= lines[i].start && addr < lines[i].end)
			return &lines[i];
	return NULL;
}

struct line *line_named(const char *name)
{
	int i;

	for (i = 0; i < nlines; i++)
		if (!strcmp(lines[i].name, name))
			return &lines[i];
	return NULL;
}

int count_named(const char *name)
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

void on_segv(int sig, siginfo_t *si, void *ctx)
{
	struct sigcontext *mc = &((ucontext_t *)ctx)->uc_mcontext;

	(void)sig;
	fault_code = si->si_code;
	mc->rip = mc->rip < (unsigned long)probe_write_resume ?
		  (unsigned long)probe_read_resume : (unsigned long)probe_write_resume;
}

/* 0 if addr reads, else the si_code of the fault. */
int read_faults(unsigned long addr)
{
	fault_code = 0;
	probe_read(addr);
	return fault_code ? fault_code : 0;
}

/* Write back the byte that is there; 0 if it worked, else the si_code. */
int write_faults(unsigned long addr)
{
	unsigned long v = probe_read(addr);

	fault_code = 0;
	probe_write(addr, v);
	return fault_code;
}

void *map_at(void *addr, size_t len, int prot, int flags)
{
	return mmap(addr, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
}

const char *perms_of(int prot)
{
	static const char *const p[] = { "---p", "r--p", "-w-p", "rw-p",
					 "--xp", "r-xp", "-wxp", "rwxp" };

	return p[prot & 7];
}
