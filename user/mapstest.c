/* mapstest: /proc/self/maps and smaps against the mappings the program really has. */
#include "maps/mapstest.h"

/*
 * Each case changes the address space (mmap, mprotect, brk), reads
 * /proc/self/maps, and checks the lines against what it did and against
 * the memory itself: a line's permissions must be what a read or a write
 * there does. The same binary runs on Linux.
 *
 * This file holds the cases whose answer depends on the vsyscall mode
 * (the [vvar] and [vsyscall] lines, every line against the memory), the
 * table and main; maps/read.c reads and parses the lines and touches
 * memory, maps/areas.c holds the cases on the program's own areas.
 */

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

static const struct test tests[] = {
	{ "format_sorted_aligned", test_format },
	{ "small_reads_same_text", test_small_reads },
	{ "mmap_mprotect_munmap_lines", test_mmap_mprotect_munmap },
	{ "each_protection", test_each_protection },
	{ "many_areas_all_listed", test_many_areas },
	{ "elf_segments_path_perms_offset", test_elf_segments },
	{ "elf_headers_read_only_no_exec", test_elf_headers },
	{ "stack_line", test_stack },
	{ "heap_line_after_brk", test_heap },
	{ "vdso_line", test_vdso },
	{ "vvar_and_vsyscall_lines", test_gate_pages },
	{ "lines_match_memory", test_lines_match_memory },
	{ "smaps_format", test_smaps_format },
	{ "smaps_counts_written_pages", test_smaps_counts_written_pages },
	{ "smaps_of_another_process", test_smaps_of_another_process },
	{ "smaps_shared_memory", test_smaps_shared_memory },
	{ "smaps_rollup", test_smaps_rollup },
};

int main(int argc, char **argv, char **envp)
{
	struct kernel_sigaction sa = {
		.sa_handler = on_segv,
		.sa_flags = SA_SIGINFO | SA_RESTORER | SA_NODEFER,
		.sa_restorer = rt_sigreturn,
	};

	(void)argc, (void)envp;
	argv0 = argv[0];
	rt_sigaction(SIGSEGV, &sa, NULL, sizeof(sigset_t));
	return run_tests(tests, ARRAY_SIZE(tests));
}
