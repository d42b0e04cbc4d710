/* vdsomap: the vDSO as an object: its symbols by name and version, its /proc/self/maps lines, the frames every process shares. */
#include "vdsoutil.h"

/*
 * The same binary runs on ccos and on Linux (./build/user/vdsomap.elf on
 * the host): the cases that depend on ccos's own kernel (its soname, its
 * mprotect answer) say so and adapt; the rest must pass on both.
 */

#define PROT_EXEC		4

/* ---- where it is mapped ---- */

static char maps[16384];

static int test_maps(void)
{
	char line[160];
	unsigned long base = getauxval(AT_SYSINFO_EHDR);

	if (read_maps(maps, sizeof(maps)) <= 0)
		return ktap_fail("cannot read /proc/self/maps");
	if (!maps_line(maps, "[vdso]", line, sizeof(line)))
		return ktap_fail("no [vdso] line in /proc/self/maps");
	ktap_diag("%s", line);
	if (hex(line) != base)
		return ktap_fail("[vdso] starts at %lx, AT_SYSINFO_EHDR is %lx", hex(line), base);
	if (base % 4096)
		return ktap_fail("[vdso] at %lx is not page-aligned", base);
	if (memcmp(strchr(line, ' '), " r-xp ", 6))
		return ktap_fail("[vdso] is not r-xp: %s", line);
	if (!maps_line(maps, "[vvar]", line, sizeof(line)))
		return ktap_fail("no [vvar] line in /proc/self/maps");
	ktap_diag("%s", line);
	if (maps_line(maps, "[vsyscall]", line, sizeof(line)))
		ktap_diag("%s", line);
	return 1;
}

/* ---- fork, and the pages every process shares ---- */

static unsigned long checksum(const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned long sum = 0;

	while (n--)
		sum = sum * 31 + *b++;
	return sum;
}

static int child_uses_vdso(void *arg)
{
	struct timespec ts;
	unsigned long base = (unsigned long)arg;

	if (getauxval(AT_SYSINFO_EHDR) != base || read_maps(maps, sizeof(maps)) <= 0)
		return 1;
	{
		char line[160];

		if (!maps_line(maps, "[vdso]", line, sizeof(line)) || hex(line) != base)
			return 2;
	}
	return v_clock_gettime(CLOCK_MONOTONIC, &ts) ? 3 : 0;
}

/* ccos lets a process unmap its vDSO; a recent Linux may refuse (sealed system mappings). */
static int child_unmaps_vdso(void *arg)
{
	long r = munmap(arg, 4096);

	return r == 0 || !on_ccos() ? 0 : 1;
}

/*
 * Make the vDSO writable and write to it: ccos refuses (-EACCES); Linux
 * copies the page for this process first, or refuses a sealed mapping.
 */
static int child_writes_vdso(void *arg)
{
	long r = mprotect(arg, 4096, PROT_READ | PROT_WRITE | PROT_EXEC);

	if (r == -EACCES || (!on_ccos() && r < 0))
		return 0;
	if (r)
		return 1;
	*(volatile unsigned char *)arg = 0xcc;
	return 0;
}

static int child_stores_to_vdso(void *arg)
{
	*(volatile unsigned char *)arg = 0xcc;
	return 0;
}

/*
 * Children see the vDSO where their parent does, and whatever they do to
 * their own mapping (unmap it, try to write it, exit) leaves the parent's,
 * and so everyone's, intact and working.
 */
static int test_fork(void)
{
	void *base = (void *)getauxval(AT_SYSINFO_EHDR);
	unsigned long before = checksum(base, 4096);
	struct timespec ts;
	int st, i;

	for (i = 0; i < 20; i++)
		if ((st = run_in_child(child_uses_vdso, base)) != 0)
			return ktap_fail("child %d: status %#x", i, st);
	if ((st = run_in_child(child_unmaps_vdso, base)) != 0)
		return ktap_fail("munmap of the vDSO in a child: status %#x", st);
	st = run_in_child(child_stores_to_vdso, base);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV)
		return ktap_fail("a store into the vDSO: status %#x, not SIGSEGV", st);
	if ((st = run_in_child(child_writes_vdso, base)) != 0)
		return ktap_fail("mprotect+write of the vDSO in a child: status %#x", st);
	if (checksum(base, 4096) != before)
		return ktap_fail("the parent's vDSO changed after its children's doings");
	if (v_clock_gettime(CLOCK_MONOTONIC, &ts))
		return ktap_fail("the parent's vDSO no longer works");
	if (on_ccos() && mprotect(base, 4096, PROT_READ | PROT_WRITE) != -EACCES)
		return ktap_fail("ccos let mprotect make the shared vDSO writable");
	return 1;
}

static const struct test tests[] = {
	{ "lookup_by_name_version_and_both_hashes", vdso_lookup_check },
	{ "maps_shows_vdso_and_vvar", test_maps },
	{ "fork_shares_the_pages_children_cannot_harm_them", test_fork },
};

int main(int argc, char **argv, char **envp)
{
	size_t i;

	(void)argc, (void)argv, (void)envp;
	ktap_plan(ARRAY_SIZE(tests));
	if (!find_vdso())
		ktap_diag("no vDSO: vdsotest's vdso_found_through_auxv says why");
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (vdso.base)
			run_case(tests[i].name, tests[i].run, 0);
		else
			ktap_skip("no vDSO to test", tests[i].name);
	}
	return ktap_done();
}
