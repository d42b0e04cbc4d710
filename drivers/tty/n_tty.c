/* The line discipline, after Linux's N_TTY: typed bytes into lines, echo, the signal keys, and read's VMIN and VTIME. */
#include <ccos/tty.h>
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/sched.h>
#include <ccos/abi.h>
#include <ccos/errno.h>
#include <ccos/lib.h>
#include <ccos/printk.h>
#include <ccos/time.h>
#include <ccos/uaccess.h>

#define N_TTY_BUF	4096	/* Linux's N_TTY_BUF_SIZE; a power of two: the indices run free */

/*
 * Typed bytes go into a ring: [head, done) can be read, [done, edit) is
 * the line still being edited in canonical mode (in raw mode done ==
 * edit). A VEOF byte in the ring ends a line without being read; at a
 * line's start it makes read return 0. Readers sleep on the ring.
 */
static struct {
	uint8_t buf[N_TTY_BUF];
	uint32_t head, done, edit;
} ring;

static bool lflag(uint32_t bit)
{
	return tty.termios.c_lflag & bit;
}

/* Whether c is the key of c_cc slot i: an entry of _POSIX_VDISABLE is no key, NUL typed included. */
static bool is_cc(uint8_t c, int i)
{
	return tty.termios.c_cc[i] != _POSIX_VDISABLE && c == tty.termios.c_cc[i];
}

static void echo(const char *s, size_t n)
{
	if (lflag(ECHO))
		console_write(s, n);
}

/* A control character echoes as ^X where ECHOCTL asks for it. */
static void echo_char(uint8_t c)
{
	char ctl[2] = { '^', c ^ 0100 };

	if (lflag(ECHOCTL) && c < 32 && c != '\n' && c != '\t')
		echo(ctl, 2);
	else
		echo((char *)&c, 1);
}

static void erase_one(void)
{
	uint8_t c = ring.buf[--ring.edit % N_TTY_BUF];

	echo("\b \b", 3);
	if (lflag(ECHOCTL) && c < 32 && c != '\t')
		echo("\b \b", 3);
}

static void commit(void)
{
	ring.done = ring.edit;
	wakeup(&ring);
	poll_wake();
}

/*
 * Whether the ring has room for c. It holds N_TTY_BUF bytes, but as in
 * Linux's N_TTY the last place is kept for what ends a canonical line: a
 * line longer than the ring loses its bytes past N_TTY_BUF - 1 and still
 * gets its newline, so it can be read (before, the full ring dropped the
 * newline too, and the reader slept with every later line lost).
 */
static bool room_for(bool ends_line)
{
	return ring.edit - ring.head < N_TTY_BUF - (ends_line ? 0 : 1);
}

/* One received byte, in the interrupt handler: edit, echo, signal or store it. */
void n_tty_receive(uint8_t c)
{
	bool canon = lflag(ICANON), ends_line;

	if (c == '\r' && (tty.termios.c_iflag & IGNCR))
		return;
	if (c == '\r' && (tty.termios.c_iflag & ICRNL))
		c = '\n';
	else if (c == '\n' && (tty.termios.c_iflag & INLCR))
		c = '\r';
	if (lflag(ISIG) && (is_cc(c, VINTR) || is_cc(c, VQUIT))) {
		ring.edit = ring.done = ring.head;	/* Linux flushes the queue (no NOFLSH) */
		echo_char(c);
		echo("\n", 1);
		tty_signal_fg(is_cc(c, VINTR) ? SIGINT : SIGQUIT);
		return;
	}
	if (canon && (is_cc(c, VERASE) || c == '\b')) {
		if (ring.edit != ring.done)
			erase_one();
		return;
	}
	if (canon && is_cc(c, VKILL)) {
		while (ring.edit != ring.done)
			erase_one();
		return;
	}
	ends_line = canon && (c == '\n' || is_cc(c, VEOF) || is_cc(c, VEOL));
	if (!room_for(ends_line))
		return;			/* the byte is dropped, as Linux does */
	ring.buf[ring.edit++ % N_TTY_BUF] = c;
	if (!(canon && is_cc(c, VEOF)))	/* ^D ends a line unechoed */
		echo_char(c);
	if (!canon || ends_line)
		commit();
}

/*
 * Copy what can be read: in canonical mode up to the end of one line (a
 * VEOF byte ends it unread), else all there is. The bytes copied, or
 * -EFAULT if none could be.
 */
static ssize_t copy_out(char __user *buf, size_t n)
{
	bool canon = lflag(ICANON);
	size_t got = 0;

	while (got < n && ring.head != ring.done) {
		uint8_t c = ring.buf[ring.head % N_TTY_BUF];

		if (canon && is_cc(c, VEOF)) {
			ring.head++;
			break;
		}
		if (put_user((char)c, buf + got))
			return got ? (ssize_t)got : -EFAULT;
		ring.head++;
		got++;
		if (canon && (c == '\n' || is_cc(c, VEOL)))
			break;
	}
	return got;
}

/*
 * read. In canonical mode: one line, once a whole one is there. In raw
 * mode VMIN and VTIME decide, as POSIX and Linux read them:
 *   VMIN 0, VTIME 0: what is there, maybe nothing, at once;
 *   VMIN 0, VTIME t: the first byte, or nothing once t tenths of a second
 *                    pass from the call;
 *   VMIN m, VTIME 0: m bytes (fewer if fewer are asked for), however long;
 *   VMIN m, VTIME t: m bytes, or fewer once t tenths pass without a byte:
 *                    that timer starts at the first byte and restarts at
 *                    each; until the first there is none.
 * The wait sleeps until a byte comes or the timer ends, never spins (a
 * VMIN 1, VTIME 1 read did: its timer ran from the call, and once it had
 * run out every sleep returned at once). A signal ends the wait, with the
 * bytes read so far or -ERESTARTSYS; O_NONBLOCK makes it -EAGAIN.
 */
ssize_t n_tty_read(struct file *f, char __user *buf, size_t n)
{
	const uint8_t *cc = tty.termios.c_cc;
	bool canon = lflag(ICANON), timed = false;
	uint64_t gap = 0, deadline = 0;
	size_t min = 1, got = 0;
	ssize_t err = 0, r;

	if (!canon && cc[VMIN]) {
		min = cc[VMIN];
		gap = cc[VTIME] * 100 * NSEC_PER_MSEC;
	} else if (!canon) {
		timed = true;
		deadline = ktime_get_ns() + cc[VTIME] * 100 * NSEC_PER_MSEC;
	}
	while (got < n) {
		if (ring.head == ring.done) {
			if (timed && ktime_get_ns() >= deadline)
				break;
			if (f->flags & O_NONBLOCK) {
				err = -EAGAIN;
				break;
			}
			if (signal_pending(current())) {
				err = -ERESTARTSYS;
				break;
			}
			sleep_until(&ring, timed ? deadline : 0);
			continue;
		}
		if ((r = copy_out(buf + got, n - got)) < 0) {
			err = r;
			break;
		}
		got += r;
		if (canon || got >= min)
			break;
		if (gap) {
			timed = true;
			deadline = ktime_get_ns() + gap;
		}
	}
	return got ? (ssize_t)got : err;
}

/* The bytes read may take now (FIONREAD). */
uint32_t n_tty_readable(void)
{
	return ring.done - ring.head;
}

/*
 * poll's POLLIN, as Linux's input_available_p: a line in canonical mode;
 * in raw mode VMIN bytes when VTIME is 0 (a read waits for them), else one.
 */
bool n_tty_poll_in(void)
{
	const uint8_t *cc = tty.termios.c_cc;

	if (lflag(ICANON) || cc[VTIME] || !cc[VMIN])
		return n_tty_readable() > 0;
	return n_tty_readable() >= cc[VMIN];
}

void n_tty_flush(void)
{
	ring.head = ring.done = ring.edit;
}

/* Leaving canonical mode makes the line being edited readable. */
void n_tty_set_termios(const struct ktermios *t, bool flush)
{
	if (flush)
		n_tty_flush();
	if (!(t->c_lflag & ICANON))
		ring.done = ring.edit;
	tty.termios = *t;
	wakeup(&ring);
	poll_wake();
}
