/* What the kernel learns at boot: the multiboot2 information and the command line. */
#ifndef CCOS_BOOT_H
#define CCOS_BOOT_H

#include <ccos/types.h>

#define MAX_MMAP	64
#define MAX_MODULES	128

struct mmap_region {
	uint64_t base, len;
	uint32_t type;		/* multiboot2 §3.6.8: 1 = available RAM */
};

struct boot_module {
	uint64_t start, end;	/* physical, end exclusive */
	const char *name;	/* the module string: /bin/init */
};

struct boot_info {
	bool uefi;
	const char *cmdline;
	const char *loader;
	struct mmap_region mmap[MAX_MMAP];
	int n_mmap;
	struct boot_module modules[MAX_MODULES];
	int n_modules;
	uint64_t rsdp;		/* physical address of the RSDP copy, or 0 */
	int rsdp_revision;	/* 0 = ACPI 1.0 (RSDT), 2+ = XSDT */
	uint64_t mbi_start, mbi_end;
	uint64_t text_screen;		/* physical address of an EGA text screen, or 0 */
	uint32_t text_cols, text_rows, text_pitch;
};

extern struct boot_info boot_info;
extern uint64_t boot_tsc;		/* the TSC at the kernel's entry (boot/entry.asm) */

/* Parse a multiboot2 information block; false, with a message, if malformed. */
bool multiboot2_parse(const void *mbi, struct boot_info *bi);

enum vsyscall_mode { VSYSCALL_NATIVE, VSYSCALL_EMULATE, VSYSCALL_XONLY, VSYSCALL_NONE };
enum pti_mode { PTI_AUTO, PTI_ON, PTI_OFF };
enum clocksource_id { CLOCK_DEFAULT, CLOCK_TSC, CLOCK_HPET, CLOCK_JIFFIES };

#define MAX_INIT_ARGS	16

struct boot_options {
	enum vsyscall_mode vsyscall;
	enum clocksource_id clocksource;
	enum pti_mode pti;
	bool ktest, ptdump, idtdump, quiet, norandmaps, lockdebug;
	char init[64];
	int init_argc;			/* the words after `--` */
	char *init_argv[MAX_INIT_ARGS];
	char buf[512];			/* the command line, cut into words */
};

extern struct boot_options boot_options;

/* Fill opts from a command line; every problem is reported and defaulted. */
void cmdline_parse(const char *cmdline, struct boot_options *opts);
extern const char *const vsyscall_mode_names[];
extern const char *const clocksource_names[];
extern const char *const pti_mode_names[];

#endif
