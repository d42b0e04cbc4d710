/* The console terminal (kernel/tty.c), process groups and sessions, poll's wait channel. */
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

/* poll's events (asm-generic/poll.h). */
#define POLLIN		0x001
#define POLLPRI		0x002
#define POLLOUT		0x004
#define POLLERR		0x008
#define POLLHUP		0x010
#define POLLNVAL	0x020

struct file;
struct process;

void tty_init(void);
struct file *console_file(void);
bool tty_is_console(struct file *f);

/* kernel/pgrp.c: a signal to every member of a group (^C, ^\); is a group in a session. */
int kill_pgrp(int pgid, int sig);
bool pgrp_in_session(int pgid, int sid);

/* kernel/poll.c: everything a poll may wait for wakes this channel. */
void poll_wake(void);

#endif
