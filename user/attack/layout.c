/* layout: where this static-pie's areas are, from /proc/self/maps, on one line (docs/attack.md). */
#include "ulib.h"

#define ADDR_NO_RANDOMIZE	0x0040000

/*
 * Prints `layout: load=.. stack=.. mmap=.. brk=.. vdso=..`: the start of
 * the program's first segment, the top of [stack], where a new anonymous
 * mmap lands, the start of the [heap] after a brk that grows it, and the
 * start of [vdso], all read back from /proc/self/maps. `-R` first turns
 * randomization off with personality(ADDR_NO_RANDOMIZE) and execs itself
 * again, as `setarch -R` does; the line then says norandom=1.
 */
static char maps[8192];

static unsigned long hex(const char *s)
{
	unsigned long v = 0;

	for (; (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f'); s++)
		v = v * 16 + (*s <= '9' ? *s - '0' : *s - 'a' + 10);
	return v;
}

/* The start (or end) of the first maps line that ends with name. */
static unsigned long area(const char *name, int end)
{
	const char *line = maps, *nl;
	size_t n = strlen(name);

	for (; *line; line = nl + 1) {
		if (!(nl = strchr(line, '\n')))
			break;
		if ((size_t)(nl - line) > n && !memcmp(nl - n, name, n))
			return hex(end ? strchr(line, '-') + 1 : line);
	}
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	char *self[] = { argv[0], NULL };
	unsigned long base;
	long fd, n, got = 0;
	void *m;

	if (argc > 1 && !strcmp(argv[1], "-R")) {
		syscall1(__NR_personality, ADDR_NO_RANDOMIZE);
		execve(argv[0], self, envp);
		return 127;
	}
	base = (unsigned long)brk(0);
	brk((void *)(base + 4096));
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((fd = open("/proc/self/maps", O_RDONLY, 0)) < 0)
		return printf("layout: cannot open /proc/self/maps\n"), 1;
	while ((n = read(fd, maps + got, sizeof(maps) - 1 - got)) > 0)
		got += n;
	close(fd);
	printf("layout: load=%lx stack=%lx mmap=%lx brk=%lx vdso=%lx norandom=%d\n",
	       area(argv[0], 0), area("[stack]", 1), (unsigned long)m, area("[heap]", 0),
	       area("[vdso]", 0), (syscall1(__NR_personality, 0xffffffff) & ADDR_NO_RANDOMIZE) != 0);
	return 0;
}
