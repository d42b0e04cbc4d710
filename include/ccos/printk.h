/* Kernel console output: printk with log levels, panic, and the serial port. */
#ifndef CCOS_PRINTK_H
#define CCOS_PRINTK_H

#include <ccos/types.h>

/* A level is an optional prefix of the format, as in Linux. */
#define KERN_ERR	"\0013"
#define KERN_WARNING	"\0014"
#define KERN_NOTICE	"\0015"
#define KERN_INFO	"\0016"
#define KERN_DEBUG	"\0017"

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);
void console_write(const char *s, size_t len);
void console_lock_break(void);	/* panic: the lock may be held by the CPU that panics */
/* kernel/printk/kmsg.c: keep a copy in the kernel log, for syslog(2) */
void log_store(const char *s, size_t len);
extern int console_loglevel;

struct trap_frame;
__noreturn void panic(const char *fmt, ...) __printf(1, 2);
__noreturn void panic_frame(struct trap_frame *tf, const char *fmt, ...) __printf(2, 3);
void dump_stack_from(uint64_t rbp);
const char *ksym_lookup(uint64_t addr, uint64_t *offset);

void vga_init(void);
void vga_putc(char c);
void serial_init(void);		/* drivers/tty/serial.c */
void serial_putc(char c);

#endif
