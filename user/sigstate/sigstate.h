/* sigstate's shared parts: the cases of 32-bit compatibility mode (compat.c). */
#ifndef USER_SIGSTATE_H
#define USER_SIGSTATE_H

#include "sigutil.h"

int test_compat_syscall(void);
int test_compat_stack(void);
int test_compat_lret(void);

#endif
