/* The console terminal over COM1 (serial.c): termios and the other ioctls, the controlling terminal and job control. */
#include <ccos/tty.h>
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/uaccess.h>
#include <asm/arch.h>

/* ioctl requests (asm-generic/ioctls.h). */
#define TCGETS		0x5401
#define TCSETS		0x5402
#define TCSETSW		0x5403
#define TCSETSF		0x5404
#define TCFLSH		0x540b
#define TIOCSCTTY	0x540e
#define TIOCGPGRP	0x540f
#define TIOCSPGRP	0x5410
#define TIOCGWINSZ	0x5413
#define TIOCSWINSZ	0x5414
#define FIONREAD	0x541b
#define TIOCNOTTY	0x5422
#define TIOCGSID	0x5429

struct tty tty = {
	.termios = {
		.c_iflag = ICRNL | IXON,
		.c_oflag = OPOST | ONLCR,
		.c_cflag = B38400 | CS8 | CREAD | HUPCL,
		.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
		/* ^C ^\ DEL ^U ^D, VTIME 0, VMIN 1 */
		.c_cc = { 3, 034, 0177, 025, 4, 0, 1, 0, 021, 023, 032 },
	},
	.winsize = { 24, 80, 0, 0 },
	.pgrp = 1,		/* init's session has the console from the start */
	.sid = 1,
};

/* The terminal's start: the UART's receive interrupt (drivers/tty/serial.c). */
void tty_init(void)
{
	serial_start_input();
}

/* A read from a process group other than the foreground one of the terminal's session. */
static bool background(struct process *p)
{
	return p->sid == tty.sid && p->pgid != tty.pgrp;
}

static ssize_t tty_read(struct file *f, char __user *buf, size_t n)
{
	if (background(current()))
		return -EIO;	/* Linux would stop it with SIGTTIN; ccos has no stopped state */
	if (!n)
		return 0;
	return n_tty_read(f, buf, n);
}

static ssize_t tty_write(struct file *f, const char __user *buf, size_t n)
{
	char chunk[256];
	size_t done = 0;

	(void)f;
	while (done < n) {
		size_t len = MIN(n - done, sizeof(chunk));

		if (copy_from_user(chunk, buf + done, len))
			return done ? (ssize_t)done : -EFAULT;
		console_write(chunk, len);
		done += len;
	}
	return done;
}

static unsigned int tty_poll(struct file *f)
{
	(void)f;
	return POLLOUT | (n_tty_poll_in() ? POLLIN : 0);
}

/* ^C and ^\ (drivers/tty/n_tty.c), a new window size, a hangup: to the foreground group. */
void tty_signal_fg(int sig)
{
	if (tty.pgrp)
		kill_pgrp(tty.pgrp, sig);
}

/*
 * The terminal's session loses it, as Linux's disassociate_ctty: when the
 * session leader exits (proc_exit), its foreground group gets SIGHUP; when
 * the leader gives the terminal up (TIOCNOTTY), SIGHUP and then SIGCONT.
 * The terminal then has no session and no foreground group until a
 * session leader takes it (TIOCSCTTY). Before, a session kept it after its
 * leader was gone.
 */
void tty_disassociate(int sid, bool on_exit)
{
	if (sid != tty.sid)
		return;
	tty_signal_fg(SIGHUP);
	if (!on_exit)
		tty_signal_fg(SIGCONT);
	tty.sid = tty.pgrp = 0;
}

/*
 * TIOCSCTTY: a session leader without a controlling terminal takes this
 * one, as Linux's tiocsctty: 0 if its session has it already; EPERM for
 * anyone else in a session, for a terminal another session has, and for
 * a descriptor not open for reading. Linux lets a process with
 * CAP_SYS_ADMIN take a terminal from another session with arg 1; every
 * ccos process is root for files' owners, but none has that right, or
 * any program could take the console from the shell's session for good:
 * arg 1 is EPERM too.
 */
static long set_ctty(struct file *f, struct process *p)
{
	bool leader = p->sid == p->tgid;

	if (leader && p->sid == tty.sid)
		return 0;
	if (!leader || tty.sid || !file_readable(f))
		return -EPERM;
	tty.sid = p->sid;
	tty.pgrp = p->pgid;
	return 0;
}

/*
 * TIOCNOTTY: the caller gives up its controlling terminal. The session
 * leader's session loses it (above). ccos keeps the terminal per session,
 * not per process: from another process of the session it changes nothing
 * (Linux forgets the terminal for that process alone).
 */
static long give_up_ctty(struct process *p)
{
	if (p->sid != tty.sid)
		return -ENOTTY;
	if (p->sid == p->tgid)
		tty_disassociate(p->sid, false);
	return 0;
}

/* TIOCSPGRP: only a process of the terminal's session, and a group in it. */
static long set_pgrp(int __user *arg)
{
	struct process *p = current();
	int pgrp;

	if (get_user(pgrp, arg))
		return -EFAULT;
	if (p->sid != tty.sid)
		return -ENOTTY;
	if (pgrp < 0)
		return -EINVAL;
	if (!pgrp_in_session(pgrp, p->sid))
		return -EPERM;
	tty.pgrp = pgrp;
	return 0;
}

static long set_termios(const void __user *arg, unsigned int req)
{
	struct ktermios t;

	if (copy_from_user(&t, arg, sizeof(t)))
		return -EFAULT;
	n_tty_set_termios(&t, req == TCSETSF);
	return 0;
}

static long tty_ioctl(struct file *f, unsigned int req, uint64_t arg)
{
	void __user *uarg = (void __user *)arg;
	struct process *p = current();

	switch (req) {
	case TCGETS:
		return copy_to_user(uarg, &tty.termios, sizeof(tty.termios)) ? -EFAULT : 0;
	case TCSETS:
	case TCSETSW:		/* output is written synchronously: nothing to drain */
	case TCSETSF:
		return set_termios(uarg, req);
	case TCFLSH:
		if (arg == 0 || arg == 2)	/* TCIFLUSH, TCIOFLUSH */
			n_tty_flush();
		return arg <= 2 ? 0 : -EINVAL;
	case TIOCGWINSZ:
		return copy_to_user(uarg, &tty.winsize, sizeof(tty.winsize)) ? -EFAULT : 0;
	case TIOCSWINSZ:
		if (copy_from_user(&tty.winsize, uarg, sizeof(tty.winsize)))
			return -EFAULT;
		tty_signal_fg(28);	/* SIGWINCH */
		return 0;
	case TIOCGPGRP:
		if (p->sid != tty.sid)
			return -ENOTTY;
		return put_user(tty.pgrp, (int __user *)uarg) ? -EFAULT : 0;
	case TIOCSPGRP:
		return set_pgrp(uarg);
	case TIOCGSID:
		if (p->sid != tty.sid)
			return -ENOTTY;
		return put_user(tty.sid, (int __user *)uarg) ? -EFAULT : 0;
	case TIOCSCTTY:
		return set_ctty(f, p);
	case TIOCNOTTY:
		return give_up_ctty(p);
	case FIONREAD:
		return put_user((int)n_tty_readable(), (int __user *)uarg) ? -EFAULT : 0;
	}
	return -ENOTTY;
}

static void tty_stat(struct file *f, struct stat *st)
{
	(void)f;
	st->st_mode = S_IFCHR | 0620;
	st->st_rdev = (4 << 8) | 64;	/* ttyS0: major 4, minor 64 */
}

static const struct file_ops tty_ops = {
	.read = tty_read, .write = tty_write, .ioctl = tty_ioctl, .poll = tty_poll,
	.stat = tty_stat, .stream = true,
};

struct file *console_file(void)
{
	struct file *f = kzalloc(sizeof(*f));

	if (f) {
		f->ops = &tty_ops;
		f->refs = 1;
		f->flags = O_RDWR;
	}
	return f;
}

bool tty_is_console(struct file *f)
{
	return f->ops == &tty_ops;
}
