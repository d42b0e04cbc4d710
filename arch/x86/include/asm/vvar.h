/*
 * The vvar page: kernel data that user mode may read (design.md, "vvar
 * page"). The kernel writes it through `vvar` in its .data; mm maps the
 * same physical page at VVAR_ADDRESS, user-readable, read-only, no-execute.
 * The offsets are ABI (Linux's, since 9fd67b4ed071 "x86-64: Give vvars their own page") and checked
 * at build time. Shared with user-mode code: no kernel calls here.
 */
#ifndef CCOS_VVAR_H
#define CCOS_VVAR_H

#include <ccos/types.h>
#include <asm/vgtod.h>

#define VVAR_JIFFIES_OFFSET		0
#define VVAR_VGETCPU_MODE_OFFSET	16
#define VVAR_GTOD_OFFSET		128

struct vvar_page {
	volatile unsigned long jiffies;		/* ticks since boot */
	char pad0[VVAR_VGETCPU_MODE_OFFSET - sizeof(unsigned long)];
	int vgetcpu_mode;			/* how getcpu learns the CPU */
	char pad1[VVAR_GTOD_OFFSET - VVAR_VGETCPU_MODE_OFFSET - sizeof(int)];
	struct vsyscall_gtod_data vsyscall_gtod_data;
} __aligned(4096);

BUILD_BUG_ON(offsetof(struct vvar_page, jiffies) != VVAR_JIFFIES_OFFSET);
BUILD_BUG_ON(offsetof(struct vvar_page, vgetcpu_mode) != VVAR_VGETCPU_MODE_OFFSET);
BUILD_BUG_ON(offsetof(struct vvar_page, vsyscall_gtod_data) != VVAR_GTOD_OFFSET);
BUILD_BUG_ON(sizeof(struct vvar_page) != 4096);

#endif
