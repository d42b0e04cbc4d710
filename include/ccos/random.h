/* Random numbers for AT_RANDOM and address randomization. */
#ifndef CCOS_RANDOM_H
#define CCOS_RANDOM_H

#include <ccos/types.h>

void random_init(void);
uint64_t get_random_u64(void);

#endif
