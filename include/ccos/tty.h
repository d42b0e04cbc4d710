/* The console terminal (drivers/tty/tty.c) and its line discipline (drivers/tty/n_tty.c), process groups and sessions, poll's wait channel. */
#ifndef CCOS_TTY_H
#define CCOS_TTY_H

#include <ccos/types.h>

/* Linux's kernel struct termios (asm-generic/termbits.h): what TCGETS copies, 36 bytes. */
#define NCCS	19
struct ktermios {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[NCCS];
};
BUILD_BUG_ON(sizeof(struct ktermios) != 36);

struct winsize {
	uint16_t ws_row, ws_col, ws_xpixel, ws_ypixel;
};

/* termios bits and c_cc slots, Linux's values (asm-generic/termbits.h). */
#define ICRNL	0000400
#define IGNCR	0000200
#define INLCR	0000100
#define IXON	0002000
#define OPOST	0000001
#define ONLCR	0000004
#define B38400	0000017
#define CS8	0000060
#define CREAD	0000200
#define HUPCL	0002000
#define ISIG	0000001
#define ICANON	0000002
#define ECHO	0000010
#define ECHOE	0000020
#define ECHOK	0000040
#define ECHOCTL	0001000
#define ECHOKE	0004000
#define IEXTEN	0100000
enum { VINTR, VQUIT, VERASE, VKILL, VEOF, VTIME, VMIN, VSWTC, VSTART, VSTOP, VSUSP, VEOL };
#define _POSIX_VDISABLE	0	/* a c_cc entry of 0 is no key: Linux's value */

/*
 * The one terminal, the device's side (drivers/tty/tty.c): its modes, its size,
 * and the session that has it as its controlling terminal with that
 * session's foreground group (0 and 0: no session has it). The line
 * discipline reads the modes.
 */
struct tty {
	struct ktermios termios;
	struct winsize winsize;
	int pgrp, sid;
};
extern struct tty tty;

/* poll's events (asm-generic/poll.h). */
#define POLLIN		0x001
#define POLLPRI		0x002
#define POLLOUT		0x004
#define POLLERR		0x008
#define POLLHUP		0x010
#define POLLNVAL	0x020

struct pollfd {
	int fd;
	short events, revents;
};
long poll_wait(struct pollfd *fds, unsigned long n, uint64_t deadline_ns);	/* fs/poll.c */

struct file;
struct process;

void tty_init(void);
void serial_start_input(void);	/* drivers/tty/serial.c: COM1's receive interrupt */
struct file *console_file(void);
bool tty_is_console(struct file *f);
void tty_signal_fg(int sig);		/* to the foreground group, if there is one */
void tty_disassociate(int sid, bool on_exit);	/* session sid loses the terminal, if it has it */

/*
 * The line discipline (drivers/tty/n_tty.c, after Linux's N_TTY): a typed byte
 * in, read, how much there is to read and whether poll says so, dropping
 * the input, new modes (flush: drop the input first).
 */
void n_tty_receive(uint8_t c);
ssize_t n_tty_read(struct file *f, char __user *buf, size_t n);
uint32_t n_tty_readable(void);
bool n_tty_poll_in(void);
void n_tty_flush(void);
void n_tty_set_termios(const struct ktermios *t, bool flush);

/* kernel/pgrp.c: a signal to every member of a group (^C, ^\); is a group in a session. */
int kill_pgrp(int pgid, int sig);
bool pgrp_in_session(int pgid, int sid);

/* fs/poll.c: everything a poll may wait for wakes this channel. */
void poll_wake(void);

#endif
