/* sh: ccos's shell: commands, |, <, >, >>, ;, &, cd, $?, a path search of /bin, job control on the console. */
#include <stdbool.h>
#include "ulib.h"
#include "sh/lineedit.h"

#define MAXARGS	32
#define MAXCMDS	8
#define MAXBG	16

struct cmd {
	char *argv[MAXARGS + 1];
	int argc;
	char *in, *out;		/* < FILE, > FILE or >> FILE */
	bool append;
};

struct job {
	struct cmd cmds[MAXCMDS];
	int n;
	bool background;
};

static int last_status;		/* $? */
static int shell_pgrp;
static bool interactive;	/* standard input is a terminal: job control, history */
static bool editing;		/* and so is standard output: lines are edited (sh/lineedit.c) */
static int bg_pids[MAXBG];

static const char *const signames[] = {
	[1] = "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS",
	"SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
};

static void banner(void)
{
	printf("ccos sh: type a command; `help` shows this again, `poweroff` or ^D ends.\n"
	       "  demos:  vsyscalltest vdsotest vdsomap mapstest sigfault sigframe sigmask sigstate\n"
	       "          sysmisc sysproc sysmem sysfile systime proctest timetest  (KTAP tests)\n"
	       "          catmaps, or cat /proc/self/maps  (the vsyscall page that never moves)\n"
	       "          attack  (an exploit that jumps into that page; docs/attack.md)\n"
	       "          bench  (instructions per time call)\n"
	       "  edit:   <- -> Home End Backspace; Up Down and ^R recall, `history` and !N;\n"
	       "          Tab completes a program or a path\n"
	       "  tools:  echo cat wc kill spin  |  < > >> ; &  cd  $?  ^C\n");
}

/* --- Reading lines ------------------------------------------------------------ */

static char ibuf[1024];
static long ilen, ipos;

/* The next line without its newline: its length, -1 at end of input, -2 when ^C cut it short. */
static long read_line(char *line, long max)
{
	long n = 0;

	for (;;) {
		if (ipos == ilen) {
			ilen = read(0, ibuf, sizeof(ibuf));
			ipos = 0;
			if (ilen == -EINTR) {
				ilen = 0;
				return -2;
			}
			if (ilen <= 0) {
				ilen = 0;
				if (n == 0)
					return -1;
				break;
			}
		}
		if (ibuf[ipos] == '\n') {
			ipos++;
			break;
		}
		if (n < max - 1)
			line[n++] = ibuf[ipos];
		ipos++;
	}
	line[n] = 0;
	return n;
}

/* --- Words and operators --------------------------------------------------------- */

static char wordbuf[4096];
static long wlen;

static bool is_op(char c)
{
	return c == '|' || c == '<' || c == '>' || c == ';' || c == '&';
}

/* Append the decimal value of n to the word being built. */
static void put_number(int n)
{
	wlen += snprintf(wordbuf + wlen, sizeof(wordbuf) - wlen, "%d", n);
}

/*
 * The next token of *s: an operator ("|", "<", ">", ">>", ";", "&") or a
 * word, with '...' and "..." quoting and $? expanded outside single quotes.
 * NULL at the end of the line or at a comment.
 */
static char *next_token(char **s)
{
	char *p = *s, *word;
	char quote = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#' || wlen > (long)sizeof(wordbuf) - 64)
		return *s = p, NULL;
	word = wordbuf + wlen;
	if (is_op(*p)) {
		word[0] = *p++;
		word[1] = word[0] == '>' && *p == '>' ? *p++ : 0;
		word[2] = 0;
		wlen += 3;
		*s = p;
		return word;
	}
	while (*p && (quote || (*p != ' ' && *p != '\t' && !is_op(*p)))) {
		if (wlen > (long)sizeof(wordbuf) - 16)
			break;
		if (!quote && (*p == '\'' || *p == '"')) {
			quote = *p++;
		} else if (quote && *p == quote) {
			quote = 0;
			p++;
		} else if (quote != '\'' && p[0] == '$' && p[1] == '?') {
			put_number(last_status);
			p += 2;
		} else {
			wordbuf[wlen++] = *p++;
		}
	}
	wordbuf[wlen++] = 0;
	*s = p;
	return word;
}

static bool is_word(const char *t)
{
	return t && !(is_op(t[0]) && (t[1] == 0 || !strcmp(t, ">>")));
}

/* Parse one job: up to ";", "&" or the end of the line. false on a syntax error. */
static bool parse_job(char **s, struct job *j, bool *more)
{
	struct cmd *c;
	char *t;

	memset(j, 0, sizeof(*j));
	j->n = 1;
	c = &j->cmds[0];
	*more = false;
	while ((t = next_token(s))) {
		if (is_word(t)) {
			if (c->argc == MAXARGS)
				return dprintf(2, "sh: too many arguments\n"), false;
			c->argv[c->argc++] = t;
		} else if (t[0] == '<' || t[0] == '>') {
			char *file = next_token(s);

			if (!is_word(file))
				return dprintf(2, "sh: %s needs a file name\n", t), false;
			if (t[0] == '<')
				c->in = file;
			else
				c->out = file, c->append = t[1] == '>';
		} else if (t[0] == '|') {
			if (!c->argc || j->n == MAXCMDS)
				return dprintf(2, "sh: a | needs a command on each side\n"), false;
			c = &j->cmds[j->n++];
		} else {
			j->background = t[0] == '&';
			*more = true;
			break;
		}
	}
	if (!c->argc && (j->n > 1 || j->cmds[0].in || j->cmds[0].out))
		return dprintf(2, "sh: a command is missing\n"), false;
	return true;
}

/* --- Running ---------------------------------------------------------------------- */

static void exec_cmd(struct cmd *c)
{
	char path[256];
	const char *name = c->argv[0];
	long r;

	if (!strchr(name, '/')) {
		snprintf(path, sizeof(path), "/bin/%s", name);
		name = path;
	}
	r = execve(name, c->argv, environ);
	dprintf(2, "sh: %s: %s\n", c->argv[0], r == -ENOENT ? "command not found" : "cannot execute");
	exit_group(r == -ENOENT ? 127 : 126);
}

static void redirect(const char *file, int fd, int flags)
{
	long f = open(file, flags, 0666);

	if (f < 0) {
		dprintf(2, "sh: cannot open %s: error %ld\n", file, -f);
		exit_group(1);
	}
	dup2(f, fd);
	close(f);
}

/* In the child: its group, its standard input and output, then the program. */
static void child(struct job *j, int i, int pgid, int in, int pipefd[2])
{
	struct cmd *c = &j->cmds[i];

	setpgid(0, pgid);
	if (interactive && !j->background)
		tcsetpgrp(0, getpgrp());
	sigaction(SIGINT, (void *)SIG_DFL, 0);
	sigaction(SIGQUIT, (void *)SIG_DFL, 0);
	if (in >= 0) {
		dup2(in, 0);
		close(in);
	}
	if (i < j->n - 1) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
	}
	if (c->in)
		redirect(c->in, 0, O_RDONLY);
	if (c->out)
		redirect(c->out, 1, O_WRONLY | O_CREAT | (c->append ? O_APPEND : O_TRUNC));
	exec_cmd(c);
}

/* $? from a wait status: the exit code, or 128 + the signal, said aloud but for ^C. */
static int report(int pid, int status, bool bg)
{
	int sig = WTERMSIG(status);

	if (!WIFSIGNALED(status)) {
		if (bg)
			printf("[%d] done, status %d\n", pid, WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	if (bg || sig != SIGINT)
		printf("%s%d%s killed by signal %d (%s)%s\n", bg ? "[" : "pid ", pid, bg ? "]" : "",
		       sig, sig < (int)ARRAY_SIZE(signames) && signames[sig] ? signames[sig] : "?",
		       WCOREDUMP(status) ? " (core dumped)" : "");
	return 128 + sig;
}

static void remember_bg(int pid)
{
	int i;

	for (i = 0; i < MAXBG; i++)
		if (!bg_pids[i]) {
			bg_pids[i] = pid;
			return;
		}
}

/* Background jobs that have finished since the last prompt. */
static void reap_background(void)
{
	int i, status;

	for (i = 0; i < MAXBG; i++)
		if (bg_pids[i] && wait4(bg_pids[i], &status, WNOHANG, NULL) == bg_pids[i]) {
			report(bg_pids[i], status, true);
			bg_pids[i] = 0;
		}
}

static int run_pipeline(struct job *j)
{
	int pids[MAXCMDS], pipefd[2] = { -1, -1 }, in = -1, pgid = 0, status = 0, i;

	for (i = 0; i < j->n; i++) {
		if (i < j->n - 1 && pipe(pipefd) < 0) {
			dprintf(2, "sh: pipe failed\n");
			break;
		}
		pids[i] = fork();
		if (pids[i] == 0)
			child(j, i, pgid, in, pipefd);
		if (pids[i] < 0) {
			dprintf(2, "sh: fork failed: error %d\n", -pids[i]);
			break;
		}
		if (!pgid)
			pgid = pids[i];
		setpgid(pids[i], pgid);		/* also here: whichever runs first */
		if (in >= 0)
			close(in);
		if (i < j->n - 1) {
			close(pipefd[1]);
			in = pipefd[0];
		}
	}
	if (j->background) {
		printf("[%d]\n", pids[i - 1]);
		for (i = 0; i < j->n; i++)
			remember_bg(pids[i]);
		return 0;
	}
	if (interactive && pgid)
		tcsetpgrp(0, pgid);
	while (i-- > 0)
		if (wait4(pids[i], &status, 0, NULL) == pids[i] && i == j->n - 1)
			status = report(pids[i], status, false);
	if (interactive)
		tcsetpgrp(0, shell_pgrp);
	return status;
}

/* cd, pwd, exit, poweroff, help, history: run in the shell itself. -1: not a built-in. */
static int builtin(struct cmd *c)
{
	char buf[256];
	long r;

	if (!strcmp(c->argv[0], "cd")) {
		r = chdir(c->argc > 1 ? c->argv[1] : "/");
		if (r < 0)
			dprintf(2, "sh: cd: %s: error %ld\n", c->argc > 1 ? c->argv[1] : "/", -r);
		return r < 0;
	}
	if (!strcmp(c->argv[0], "pwd")) {
		r = getcwd(buf, sizeof(buf));
		if (r > 0)
			printf("%s\n", buf);
		return r <= 0;
	}
	if (!strcmp(c->argv[0], "exit"))
		exit_group(c->argc > 1 ? c->argv[1][0] - '0' : last_status);
	if (!strcmp(c->argv[0], "poweroff"))
		return reboot(LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_POWER_OFF, NULL);
	if (!strcmp(c->argv[0], "help")) {
		banner();
		return 0;
	}
	if (!strcmp(c->argv[0], "history")) {
		history_print();
		return 0;
	}
	return -1;
}

static void run_line(char *line)
{
	struct job j;
	bool more = true;
	int r;

	while (more) {
		wlen = 0;
		if (!parse_job(&line, &j, &more)) {
			last_status = 2;
			return;
		}
		if (!j.cmds[0].argc)
			continue;
		j.cmds[j.n - 1].argv[j.cmds[j.n - 1].argc] = NULL;
		if (j.n == 1 && !j.background && !j.cmds[0].in && !j.cmds[0].out &&
		    (r = builtin(&j.cmds[0])) >= 0)
			last_status = r;
		else
			last_status = run_pipeline(&j);
	}
}

/* A line typed at the prompt: its !-events replaced (and shown, as bash does), kept, run. */
static void run_typed(char *line)
{
	char expanded[LINE_MAX];
	int r = history_expand(line, expanded, sizeof(expanded));

	if (r < 0)
		return;
	if (r > 0) {
		printf("%s\n", expanded);
		line = expanded;
	}
	history_add(line);
	run_line(line);
}

static void on_sigint(int sig, siginfo_t *info, void *ctx)
{
	(void)sig, (void)info, (void)ctx;
}

int main(int argc, char **argv, char **envp)
{
	struct termios t;
	char line[LINE_MAX];
	long n;

	(void)envp;
	/* sh -c LINE (su's way to run a command as a user): that line, and its status. */
	if (argc == 3 && !strcmp(argv[1], "-c")) {
		snprintf(line, sizeof(line), "%s", argv[2]);
		run_line(line);
		return last_status;
	}
	interactive = ioctl(0, TCGETS, (unsigned long)&t) == 0;
	editing = interactive && ioctl(1, TCGETS, (unsigned long)&t) == 0;
	if (interactive) {
		setpgid(0, 0);
		tcsetpgrp(0, getpgrp());
		/* ^C at the prompt interrupts the read (no SA_RESTART): a new prompt. */
		sigaction(SIGINT, on_sigint, 0);
		sigaction(SIGQUIT, (void *)SIG_IGN, 0);
		banner();
	}
	shell_pgrp = getpgrp();
	for (;;) {
		reap_background();
		if (editing) {
			n = lineedit_read("$ ", line, sizeof(line));
		} else {
			if (interactive)
				printf("$ ");
			n = read_line(line, sizeof(line));
		}
		if (n == -1)
			break;
		if (n >= 0 && interactive)
			run_typed(line);
		else if (n >= 0)
			run_line(line);
	}
	if (interactive)
		printf("\n");
	return last_status;
}
