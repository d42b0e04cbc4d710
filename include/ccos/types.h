/* Fixed-width types and small helpers used all over the kernel. */
#ifndef CCOS_TYPES_H
#define CCOS_TYPES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdarg.h>

typedef int64_t ssize_t;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((uint64_t)(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((uint64_t)(a) - 1))
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))
#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)
#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

#define __noreturn	__attribute__((noreturn))
#define __noinline	__attribute__((noinline))
#define __packed	__attribute__((packed))
#define __aligned(n)	__attribute__((aligned(n)))
#define __section(s)	__attribute__((section(s)))
/* Written during boot only: read-only in every mapping after mark_ro_after_init(). */
#define __ro_after_init	__section(".data..ro_after_init")
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __user

#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define barrier()	__asm__ volatile("" ::: "memory")

#endif
