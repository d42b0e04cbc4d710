/*
 * The vDSO's contract with the kernel: the parameters the kernel writes
 * into the vDSO image once at boot. Shared by the kernel
 * (arch/x86/vdso/vdso.c) and the vDSO's own sources, which run in user
 * mode: types and constants only.
 */
#ifndef CCOS_VDSO_H
#define CCOS_VDSO_H

#include <ccos/types.h>

/*
 * Values that do not change after boot and that the vvar page does not
 * carry: what clock_getres answers. The vDSO holds one of these in its
 * read-only data, at the offset the build finds with nm (vdso-offsets.h);
 * the kernel fills it in before the first process maps the vDSO. The magic
 * lets the kernel check that it found the right bytes.
 */
#define VDSO_PARAMS_MAGIC	0x736d617261706476ul	/* "vdparams", little-endian */

struct vdso_params {
	uint64_t magic;
	uint64_t hres_ns;	/* resolution of REALTIME and MONOTONIC: their timers' */
	uint64_t coarse_ns;	/* resolution of the COARSE clocks: one tick */
};

#endif
