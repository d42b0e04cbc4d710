/* sigmask's shared parts: the cases of seccomp strict mode (seccomp.c), which labcheck runs too. */
#ifndef USER_SIGMASK_H
#define USER_SIGMASK_H

#include "sigutil.h"

int test_seccomp_allows(void);
int test_seccomp_kills(void);
int test_seccomp_bad_mode(void);

#endif
