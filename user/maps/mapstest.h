/* mapstest's shared parts: /proc/self/maps read into lines (read.c), touching memory, the area cases (areas.c), smaps (smaps.c). */
#ifndef USER_MAPSTEST_H
#define USER_MAPSTEST_H

#include "testutil.h"

#define VSYSCALL_ADDR	0xffffffffff600000UL
#define MAPS_SIZE	65536
#define MAX_LINES	512

struct line {
	unsigned long start, end, offset;
	char perms[5];
	const char *name;	/* "" for none */
	int name_column;	/* where the name starts, 0 for none */
};

extern char maps_text[MAPS_SIZE];
extern struct line lines[MAX_LINES];
extern int nlines;
extern const char *argv0;

/* ---- read.c: reading and parsing, touching memory ---- */

long read_maps_in(char *buf, size_t size, size_t piece);
int load_maps(void);
struct line *line_at(unsigned long addr);
struct line *line_named(const char *name);
int count_named(const char *name);
void on_segv(int sig, siginfo_t *si, void *ctx);
int read_faults(unsigned long addr);
int write_faults(unsigned long addr);
void *map_at(void *addr, size_t len, int prot, int flags);
const char *perms_of(int prot);

/* ---- areas.c: the cases on the program's own areas ---- */

int test_format(void);
int test_small_reads(void);
int test_mmap_mprotect_munmap(void);
int test_each_protection(void);
int test_many_areas(void);
int test_elf_segments(void);
int test_elf_headers(void);
int test_stack(void);
int test_heap(void);
int test_vdso(void);

/* ---- smaps.c: /proc/PID/smaps ---- */

int test_smaps_format(void);
int test_smaps_counts_written_pages(void);
int test_smaps_of_another_process(void);
int test_smaps_shared_memory(void);
int test_smaps_rollup(void);

#endif
