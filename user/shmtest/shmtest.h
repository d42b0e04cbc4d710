/* shmtest's shared parts: its helpers (shmtest.c) and the cases of mapped /tmp files (file.c). */
#ifndef USER_SHMTEST_H
#define USER_SHMTEST_H

#include "testutil.h"

#define FUTEX_WAIT	0
#define FUTEX_WAKE	1
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_PRIVATE	128
#define FUTEX2_SIZE_U32	2

long futex(volatile int *word, int op, int val, long val2, volatile int *word2, int val3);
int child_result(long pid);
int write_first_byte(void *m);

int test_file_mapping_shares_read_and_write(void);
int test_file_futex_keys_on_the_file(void);
int test_file_truncate_under_a_mapping(void);
int test_file_unlinked_while_mapped(void);
int test_file_private_mapping_copies(void);
int test_file_mapping_checks_the_open_mode(void);

#endif
