/* The shell's line editor (user/sh/lineedit.c), its history and its completion (user/sh/complete.c). */
#ifndef USER_SH_LINEEDIT_H
#define USER_SH_LINEEDIT_H

#include <stdbool.h>
#include "ulib.h"

#define LINE_MAX	512	/* a line's bytes with its NUL, as the shell reads it */
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))
#define DT_DIR		4	/* getdents64's d_type */
#define DT_LNK		10

/* The line being edited, as the screen shows it: the prompt, then buf from column 0 of a row. */
struct edit {
	char *buf;		/* the line, NUL-terminated */
	long len, pos, max;	/* its length, the cursor's place in it, its room with the NUL */
	const char *prompt;
	long cols;		/* the terminal's width, from TIOCGWINSZ */
	long crow;		/* the row the terminal's cursor is on, counted from the prompt's */
};

/*
 * Read a line on the terminal, editing it: its length, -1 at the end of
 * input (^D on an empty line), -2 when ^C abandoned it. The terminal is
 * in raw mode while the line is edited and as it was when this returns.
 */
long lineedit_read(const char *prompt, char *line, long max);

/* For completion: insert n bytes at the cursor; redraw the prompt and the line. */
void edit_insert(struct edit *e, const char *s, long n);
void edit_refresh(struct edit *e);

/* History: a line run is added; `history` lists; !!, !N, !-N and !PREFIX recall. */
void history_add(const char *line);
void history_print(void);
/* 0: line had no event (out untouched), 1: out is line with events replaced, -1: no such event. */
int history_expand(const char *line, char *out, long max);

/* Tab: complete the word before the cursor; with list (a second Tab), show the choices. */
void complete(struct edit *e, bool list);

#endif
