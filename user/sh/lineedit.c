/*
 * lineedit: the shell's line editor. While a line is edited the terminal is
 * in raw mode (termios without ICANON and ECHO): the kernel hands over each
 * key as it is typed and shows nothing, and this file echoes, moves the
 * cursor and redraws the line with a few VT100 escape sequences. ISIG
 * stays on, so ^C still sends SIGINT. Before the shell runs the line, the
 * terminal gets its canonical mode back for the program.
 */
#include "lineedit.h"

#define HISTORY_MAX	100	/* lines kept; older ones are forgotten */
#define NUM_MAX		1000	/* an escape's number counts up to this, no key's */

/* Keys: control characters as typed, escape sequences as the codes above 255. */
enum {
	CTRL_A = 1, CTRL_B = 2, CTRL_D = 4, CTRL_E = 5, CTRL_F = 6, CTRL_G = 7, CTRL_H = 8,
	TAB = 9, LF = 10, CTRL_K = 11, CTRL_L = 12, CR = 13, CTRL_N = 14, CTRL_P = 16,
	CTRL_R = 18, CTRL_U = 21, CTRL_W = 23, ESC = 27, DEL = 127,
	KEY_UP = 256, KEY_DOWN, KEY_RIGHT, KEY_LEFT, KEY_HOME, KEY_END, KEY_DELETE,
	KEY_NONE = 0, KEY_INTR = -2, KEY_EOF = -1,
};

/* --- History ---------------------------------------------------------------------- */

static char history[HISTORY_MAX][LINE_MAX];
static long history_count;	/* lines added; line n (from 1) is history[(n - 1) % HISTORY_MAX] */

/* Line n of the session, or NULL if there is none or it was forgotten. */
static const char *history_entry(long n)
{
	if (n < 1 || n > history_count || n <= history_count - HISTORY_MAX)
		return NULL;
	return history[(n - 1) % HISTORY_MAX];
}

/* A line about to run; an empty one, or the same as the last, is not kept. */
void history_add(const char *line)
{
	const char *last = history_entry(history_count);

	if (!*line || (last && !strcmp(last, line)))
		return;
	snprintf(history[history_count % HISTORY_MAX], LINE_MAX, "%s", line);
	history_count++;
}

/* `history`: the lines kept, each with the number that !N recalls. */
void history_print(void)
{
	long n;

	for (n = MAX(1, history_count - HISTORY_MAX + 1); n <= history_count; n++)
		printf("%5ld  %s\n", n, history_entry(n));
}

/* The newest line from `from` back that starts with (or, with anywhere, contains) s; 0 if none. */
static long history_find(long from, const char *s, long len, bool anywhere)
{
	const char *h;
	long i;

	for (; (h = history_entry(from)); from--)
		for (i = 0; h[i] && (i == 0 || anywhere); i++)
			if (!strncmp(h + i, s, len))
				return from;
	return 0;
}

/*
 * The event after a '!' at s (as bash: "!!" the last line, "!N" line N,
 * "!-N" the Nth last, "!WORD" the last line starting with WORD): the
 * line, or NULL; *end is where the designator ends.
 */
static const char *find_event(const char *s, const char **end)
{
	long n = 0, len = 0;
	bool back = *s == '-';

	*end = s + 1;
	if (*s == '!')
		return history_entry(history_count);
	if (back || (*s >= '0' && *s <= '9')) {
		for (s += back; *s >= '0' && *s <= '9'; s++)
			n = MIN(n * 10 + *s - '0', 1000000000L);	/* past any history: no event */
		*end = s;
		return history_entry(back ? history_count + 1 - n : n);
	}
	while (s[len] && !strchr(" \t|;&<>", s[len]))
		len++;
	*end = s + len;
	return history_entry(history_find(history_count, s, len, false));
}

int history_expand(const char *line, char *out, long max)
{
	const char *p = line, *event, *end;
	long n = 0, len;
	bool quoted = false, changed = false;

	while (*p) {
		if (*p == '\'')
			quoted = !quoted;
		if (quoted || p[0] != '!' || !p[1] || strchr(" \t=(", p[1])) {
			if (n < max - 1)
				out[n++] = *p;
			p++;
			continue;
		}
		if (!(event = find_event(p + 1, &end))) {
			dprintf(2, "sh: %.*s: event not found\n", (int)(end - p), p);
			return -1;
		}
		len = MIN((long)strlen(event), max - 1 - n);
		memcpy(out + n, event, len);
		n += len;
		p = end;
		changed = true;
	}
	out[n] = 0;
	return changed;
}

/* --- The screen ------------------------------------------------------------------- */

static void put(const char *s, long n)
{
	write(1, s, n);
}

/*
 * Redraw the prompt and the line and put the cursor at pos. The text runs
 * over rows of cols columns from the prompt's first; crow is the row the
 * cursor is on. At the last column a terminal leaves the cursor there,
 * waiting to wrap, so a line that fills its last row ends with a newline.
 */
void edit_refresh(struct edit *e)
{
	char s[2 * LINE_MAX];
	long plen = strlen(e->prompt), end = plen + e->len, at = plen + e->pos, n;

	n = snprintf(s, sizeof(s), "\r");
	if (e->crow)
		n += snprintf(s + n, sizeof(s) - n, "\x1b[%ldA", e->crow);	/* up */
	n += snprintf(s + n, sizeof(s) - n, "\x1b[J%s%s%s", e->prompt, e->buf,	/* clear down */
		      end % e->cols ? "" : "\n");
	if (end / e->cols > at / e->cols)
		n += snprintf(s + n, sizeof(s) - n, "\x1b[%ldA", end / e->cols - at / e->cols);
	n += snprintf(s + n, sizeof(s) - n, "\r");
	if (at % e->cols)
		n += snprintf(s + n, sizeof(s) - n, "\x1b[%ldC", at % e->cols);	/* right */
	put(s, MIN(n, (long)sizeof(s) - 1));
	e->crow = at / e->cols;
}

/* Typed at the end, bytes echo as the terminal's own echo would: nothing but them. */
void edit_insert(struct edit *e, const char *s, long n)
{
	n = MIN(n, e->max - 1 - e->len);
	if (n <= 0) {
		put("\a", 1);		/* full */
		return;
	}
	memmove(e->buf + e->pos + n, e->buf + e->pos, e->len - e->pos + 1);
	memcpy(e->buf + e->pos, s, n);
	e->len += n;
	e->pos += n;
	if (e->pos < e->len) {
		edit_refresh(e);
		return;
	}
	put(s, n);
	e->crow = ((long)strlen(e->prompt) + e->len - 1) / e->cols;	/* the last byte's row */
}

/* Remove n bytes from at (fewer at the end of the line; none past it). */
static void edit_delete(struct edit *e, long at, long n)
{
	long end = strlen(e->prompt) + e->len;
	bool at_end;

	n = MIN(n, e->len - at);
	if (n <= 0)
		return;
	at_end = e->pos == e->len && at + n == e->len;
	memmove(e->buf + at, e->buf + at + n, e->len - at - n + 1);
	e->len -= n;
	if (e->pos > at)
		e->pos = MAX(at, e->pos - n);
	/* One byte off the end of a row that goes on: back, blank, back. */
	if (at_end && n == 1 && end % e->cols)
		put("\b \b", 3);
	else
		edit_refresh(e);
}

static void edit_move(struct edit *e, long pos)
{
	if (pos >= 0 && pos <= e->len && pos != e->pos) {
		e->pos = pos;
		edit_refresh(e);
	}
}

/* The line becomes line, the cursor at its end; shown at the next refresh. */
static void set_line(struct edit *e, const char *line)
{
	snprintf(e->buf, e->max, "%s", line);
	e->len = e->pos = strlen(e->buf);
}

/* --- Keys ------------------------------------------------------------------------- */

static int read_byte(void)
{
	unsigned char c;
	long r = read(0, &c, 1);

	return r == 1 ? c : r == -EINTR ? KEY_INTR : KEY_EOF;
}

/*
 * One key. The arrows and the others send ESC [ or ESC O, maybe a number,
 * then a letter or '~' (xterm, the Linux console, tmux): ESC [ A is up,
 * ESC [ 3 ~ delete. An escape this does not know is no key; a number of
 * any length is read to its end, but counted only up to NUM_MAX (it
 * overflowed, and a negative n indexed tilde[]: ESC [ 3000000000 ~
 * killed the shell).
 */
static int read_key(void)
{
	static const char letters[] = "ABCDHF";
	static const int arrows[] = { KEY_UP, KEY_DOWN, KEY_RIGHT, KEY_LEFT, KEY_HOME, KEY_END };
	static const int tilde[] = { [1] = KEY_HOME, [3] = KEY_DELETE, [4] = KEY_END,
				     [7] = KEY_HOME, [8] = KEY_END };
	int c = read_byte(), n = 0;

	if (c != ESC)
		return c;
	if ((c = read_byte()) != '[' && c != 'O')
		return c < 0 ? c : KEY_NONE;
	while ((c = read_byte()) == ';' || (c >= '0' && c <= '9'))
		n = c == ';' ? 0 : MIN(n * 10 + c - '0', NUM_MAX);	/* ESC [ 1 ; 5 C: ^right, taken as right */
	if (c < 0)
		return c;
	if (c == '~')
		return n < (int)ARRAY_SIZE(tilde) && tilde[n] ? tilde[n] : KEY_NONE;
	return c && strchr(letters, c) ? arrows[strchr(letters, c) - letters] : KEY_NONE;
}

/* Up (step 1) or down (-1) through the history; *back 0 is the line being typed, kept in typed. */
static void browse(struct edit *e, long *back, long step, char *typed)
{
	const char *line = history_entry(history_count + 1 - (*back + step));

	if (*back + step < 0 || (*back + step > 0 && !line)) {
		put("\a", 1);		/* no older line, or back at the one being typed */
		return;
	}
	if (!*back)
		snprintf(typed, LINE_MAX, "%s", e->buf);
	*back += step;
	set_line(e, *back ? line : typed);
	edit_refresh(e);
}

/*
 * ^R: what is typed next is looked for in the history, newest first; ^R
 * again finds an older line. Any other key ends the search with the line
 * found, and is then taken as usual (Enter runs it); ^G puts back the line
 * as it was. The key that ended the search.
 */
static int search(struct edit *e)
{
	char query[64] = "", prompt[96], before[LINE_MAX];
	const char *shell_prompt = e->prompt;
	long qlen = 0, at = 0, from, found;	/* at: the line found, 0 before one is */
	int k;

	snprintf(before, sizeof(before), "%s", e->buf);
	for (;;) {
		snprintf(prompt, sizeof(prompt), "(reverse-i-search)`%s': ", query);
		e->prompt = prompt;
		edit_refresh(e);
		k = read_key();
		if ((k == DEL || k == CTRL_H) && qlen) {
			query[--qlen] = 0;
			from = history_count;
		} else if (k >= ' ' && k < DEL && qlen < (long)sizeof(query) - 1) {
			query[qlen++] = k;
			from = at ? at : history_count;	/* the line found may still match */
		} else if (k == CTRL_R) {
			from = at ? at - 1 : history_count;
		} else {
			break;
		}
		if (qlen && (found = history_find(from, query, qlen, true)))
			set_line(e, history_entry(at = found));
	}
	e->prompt = shell_prompt;
	if (k == CTRL_G)
		set_line(e, before);
	edit_refresh(e);
	return k == CTRL_G ? KEY_NONE : k;
}

/* The word before the cursor, and the blanks before it: what ^W removes. */
static long word_start(const struct edit *e)
{
	long at = e->pos;

	while (at > 0 && e->buf[at - 1] == ' ')
		at--;
	while (at > 0 && e->buf[at - 1] != ' ')
		at--;
	return at;
}

/* Keys until Enter: the line's length; -1 at the end of input, -2 on ^C. */
static long edit_line(struct edit *e)
{
	char typed[LINE_MAX], c;
	long back = 0;
	bool tabbed = false, was_tab;
	int k;

	for (;;) {
		k = read_key();
		if (k == CTRL_R)
			k = search(e);
		was_tab = tabbed;
		tabbed = k == TAB;
		switch (k) {
		case KEY_INTR:
			put("^C\n", 3);
			return -2;
		case KEY_EOF:		/* the terminal is gone: what was typed still runs */
		case CR:
		case LF:
			if (k == KEY_EOF && !e->len)
				return -1;
			edit_move(e, e->len);
			put("\n", 1);
			return e->len;
		case CTRL_D:		/* as on Linux's shells: the end on an empty line */
			if (!e->len)
				return -1;
			edit_delete(e, e->pos, 1);
			break;
		case KEY_DELETE:
			edit_delete(e, e->pos, 1);
			break;
		case DEL:
		case CTRL_H:
			if (e->pos)
				edit_delete(e, e->pos - 1, 1);
			break;
		case KEY_LEFT:
		case CTRL_B:
			edit_move(e, e->pos - 1);
			break;
		case KEY_RIGHT:
		case CTRL_F:
			edit_move(e, e->pos + 1);
			break;
		case KEY_HOME:
		case CTRL_A:
			edit_move(e, 0);
			break;
		case KEY_END:
		case CTRL_E:
			edit_move(e, e->len);
			break;
		case CTRL_K:
			edit_delete(e, e->pos, e->len - e->pos);
			break;
		case CTRL_U:
			edit_delete(e, 0, e->pos);
			break;
		case CTRL_W:
			edit_delete(e, word_start(e), e->pos - word_start(e));
			break;
		case CTRL_L:
			put("\x1b[H\x1b[2J", 7);	/* home, clear the screen */
			e->crow = 0;
			edit_refresh(e);
			break;
		case KEY_UP:
		case CTRL_P:
			browse(e, &back, 1, typed);
			break;
		case KEY_DOWN:
		case CTRL_N:
			browse(e, &back, -1, typed);
			break;
		case TAB:
			complete(e, was_tab);
			break;
		default:
			c = k;
			if (k >= ' ' && k < 256 && k != DEL)
				edit_insert(e, &c, 1);
		}
	}
}

long lineedit_read(const char *prompt, char *line, long max)
{
	struct termios saved, raw;
	struct winsize ws;
	struct edit e = { .buf = line, .max = max, .prompt = prompt, .cols = 80 };
	long r;

	if (ioctl(0, TCGETS, (unsigned long)&saved) < 0)
		return -1;
	raw = saved;
	raw.c_lflag &= ~(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;		/* a read returns each key as it comes */
	raw.c_cc[VTIME] = 0;
	ioctl(0, TCSETS, (unsigned long)&raw);
	if (ioctl(1, TIOCGWINSZ, (unsigned long)&ws) == 0 && ws.ws_col)
		e.cols = ws.ws_col;
	line[0] = 0;
	put(prompt, strlen(prompt));
	e.crow = ((long)strlen(prompt) - 1) / e.cols;
	r = edit_line(&e);
	ioctl(0, TCSETS, (unsigned long)&saved);
	return r;
}
