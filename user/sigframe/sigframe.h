/* sigframe's shared parts: the forged frames passed to rt_sigreturn (forged.c), the segments it restores (segments.c). */
#ifndef USER_SIGFRAME_H
#define USER_SIGFRAME_H

#include "sigutil.h"

int test_forged_ring0(void);
int test_forged_iopl(void);
int test_forged_iopl_sysret(void);
int test_forged_mxcsr(void);
int test_forged_kernel_rip(void);
int test_forged_noncanonical_rip(void);
int test_forged_noncanonical_rip_caught(void);
int test_forged_noncanonical_rsp(void);
int test_forged_noncanonical_rsp_caught(void);
int test_forged_kernel_fpstate(void);
int test_forged_kernel_fpstate_caught(void);
int test_sigreturn_unmapped_frame(void);
int test_sigreturn_unmapped_frame_blocked(void);
int test_sigreturn_unmapped_frame_caught(void);
int test_sigreturn_to_32bit_code(void);
int test_sigreturn_bad_selectors_caught(void);
int test_sigreturn_nonstrict_ss_fixed(void);

#endif
