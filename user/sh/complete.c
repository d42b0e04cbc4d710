/*
 * complete: Tab in the shell's editor. The word before the cursor is
 * completed as far as every choice agrees: in a command's place a program
 * of /bin or a built-in, elsewhere a path (a directory gets its '/', the
 * last word of a file name a space). When nothing more is certain a second
 * Tab lists the choices, as bash does.
 */
#include "lineedit.h"

#define MAX_CHOICES	512
#define NAMES_ROOM	8192

static const char *const builtins[] = { "cd", "exit", "help", "history", "poweroff", "pwd" };

static struct {
	char names[NAMES_ROOM];
	long used, n;
	const char *name[MAX_CHOICES];
	bool dir[MAX_CHOICES];
} found;

static void add(const char *name, bool dir)
{
	long len = strlen(name) + 1, i;

	for (i = 0; i < found.n; i++)
		if (!strcmp(found.name[i], name))
			return;		/* /bin's program and a busybox link of the same name */
	if (found.n == MAX_CHOICES || found.used + len > NAMES_ROOM)
		return;
	found.name[found.n] = memcpy(found.names + found.used, name, len);
	found.dir[found.n++] = dir;
	found.used += len;
}

/* A directory entry of type type (d_type): a directory, or a link to one. */
static bool is_dir(const char *dir, const char *name, int type)
{
	char path[LINE_MAX + 256];
	long fd;

	if (type != DT_LNK)
		return type == DT_DIR;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY, 0)) < 0)
		return false;
	close(fd);
	return true;
}

/* The entries of dir that start with prefix; dot files only if it starts with a dot. */
static void scan(const char *dir, const char *prefix, bool programs)
{
	char buf[4096];
	long fd = open(dir, O_RDONLY | O_DIRECTORY, 0), n, at;
	size_t len = strlen(prefix);

	if (fd < 0)
		return;
	/* struct linux_dirent64: d_ino, d_off, d_reclen (at 16), d_type (18), d_name (19) */
	while ((n = syscall3(__NR_getdents64, fd, (long)buf, sizeof(buf))) > 0) {
		for (at = 0; at < n; at += *(uint16_t *)(buf + at + 16)) {
			const char *name = buf + at + 19;

			if (strncmp(name, prefix, len) || (name[0] == '.' && prefix[0] != '.') ||
			    !strcmp(name, ".") || !strcmp(name, ".."))
				continue;
			add(name, !programs && is_dir(dir, name, buf[at + 18]));
		}
	}
	close(fd);
}

/* The choices by name, for the list. */
static void sort_choices(void)
{
	long i, j;

	for (i = 1; i < found.n; i++)
		for (j = i; j > 0 && strcmp(found.name[j - 1], found.name[j]) > 0; j--) {
			const char *name = found.name[j];
			bool dir = found.dir[j];

			found.name[j] = found.name[j - 1];
			found.dir[j] = found.dir[j - 1];
			found.name[j - 1] = name;
			found.dir[j - 1] = dir;
		}
}

/* The choices in columns below the line, then the prompt and the line again. */
static void list(struct edit *e)
{
	long width = 0, per_row, rows, r, c, i, pos = e->pos;

	sort_choices();
	for (i = 0; i < found.n; i++)
		width = MAX(width, (long)strlen(found.name[i]) + 2);
	per_row = e->cols / width ? e->cols / width : 1;
	rows = (found.n + per_row - 1) / per_row;
	e->pos = e->len;
	edit_refresh(e);		/* the cursor after the line's end */
	printf("\n");
	for (r = 0; r < rows; r++) {
		for (c = 0; c < per_row && (i = c * rows + r) < found.n; c++)
			printf("%-*s", (int)(c == per_row - 1 || i + rows >= found.n ? 0 : width),
			       found.name[i]);
		printf("\n");
	}
	e->pos = pos;
	e->crow = 0;
	edit_refresh(e);
}

void complete(struct edit *e, bool show)
{
	char word[LINE_MAX], dir[LINE_MAX], add_on[LINE_MAX];
	const char *base, *slash;
	long start = e->pos, before, common, i, blen;
	bool command;

	while (start > 0 && !strchr(" \t|;&<>", e->buf[start - 1]))
		start--;
	for (before = start; before > 0 && strchr(" \t", e->buf[before - 1]); before--)
		;
	command = before == 0 || strchr("|;&", e->buf[before - 1]);
	memcpy(word, e->buf + start, e->pos - start);
	word[e->pos - start] = 0;
	slash = strrchr(word, '/');
	found.n = found.used = 0;
	if (command && !slash) {
		base = word;
		scan("/bin", base, true);
		for (i = 0; i < (long)ARRAY_SIZE(builtins); i++)
			if (!strncmp(builtins[i], base, strlen(base)))
				add(builtins[i], false);
	} else {
		base = slash ? slash + 1 : word;
		snprintf(dir, sizeof(dir), "%.*s", slash == word ? 1 : slash ? (int)(slash - word) : 1,
			 slash ? word : ".");
		scan(dir, base, false);
	}
	if (!found.n) {
		printf("\a");
		return;
	}
	blen = strlen(base);
	for (common = strlen(found.name[0]); common > blen; common--) {
		for (i = 1; i < found.n && !strncmp(found.name[i], found.name[0], common); i++)
			;
		if (i == found.n)
			break;
	}
	i = snprintf(add_on, sizeof(add_on), "%.*s", (int)(common - blen), found.name[0] + blen);
	if (found.n == 1)
		i += snprintf(add_on + i, sizeof(add_on) - i, "%s", found.dir[0] ? "/" : " ");
	if (i)
		edit_insert(e, add_on, i);
	else if (show)
		list(e);
	else
		printf("\a");
}
