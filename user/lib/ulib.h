/* The ccos user runtime: what programs get besides the raw system calls. */
#ifndef USER_ULIB_H
#define USER_ULIB_H

#include "linux.h"
#include "syscall.h"
#include "unistd.h"

typedef __builtin_va_list va_list;
#define va_start(ap, last)	__builtin_va_start(ap, last)
#define va_arg(ap, type)	__builtin_va_arg(ap, type)
#define va_end(ap)		__builtin_va_end(ap)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* start.c: the program's environment, as crt0 found it */
extern char **environ;
int main(int argc, char **argv, char **envp);
unsigned long getauxval(unsigned long type);

/* string.c */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strcpy(char *dst, const char *src);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);

/* printf.c: unbuffered, so nothing is printed twice after a fork, and fflush has nothing to write */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int dprintf(int fd, const char *fmt, ...) __printf(2, 3);
int printf(const char *fmt, ...) __printf(1, 2);
typedef struct ulib_file FILE;
#define stdout	((FILE *)0)
static inline int fflush(FILE *f)
{
	(void)f;
	return 0;
}

/* signal.c */
long sigaction(int sig, void (*handler)(int, siginfo_t *, void *),
	       unsigned long flags);
void (*signal(int sig, void (*handler)(int)))(int);

/* child.c */
int run_in_child(int (*fn)(void *), void *arg);

/* thread.c: clone(flags, stack, ptid, ctid, tls); the new thread runs fn(arg), then exit(0) */
long thread_clone(unsigned long flags, void *stack, int *ptid, int *ctid, unsigned long tls,
		  void (*fn)(long), long arg);
#define CLONE_VM		0x00000100
#define CLONE_FS		0x00000200
#define CLONE_FILES		0x00000400
#define CLONE_SIGHAND		0x00000800
#define CLONE_THREAD		0x00010000
#define CLONE_SYSVSEM		0x00040000
#define CLONE_SETTLS		0x00080000
#define CLONE_PARENT_SETTID	0x00100000
#define CLONE_CHILD_CLEARTID	0x00200000
#define CLONE_CHILD_SETTID	0x01000000

#endif
