/* One run of the service: its stdin and stdout on pipes, its fate from wait4 and the kernel log. */
#include "attack.h"

#define SYSLOG_ACTION_READ_ALL	3

static const char *const signal_names[] = {
	[SIGILL] = "SIGILL", [SIGTRAP] = "SIGTRAP", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE",
	[SIGKILL] = "SIGKILL", [SIGSEGV] = "SIGSEGV",
};

const char *signal_name(int sig)
{
	if (sig > 0 && sig < (int)ARRAY_SIZE(signal_names) && signal_names[sig])
		return signal_names[sig];
	return "a signal";
}

static char *find(char *s, const char *what)
{
	size_t n = strlen(what);

	for (; *s; s++)
		if (!strncmp(s, what, n))
			return s;
	return NULL;
}

/* The kernel's last line about pid ("service[PID] MESSAGE ip:..."): MESSAGE, or "". */
static void kernel_message(long pid, char *msg, size_t size)
{
	static char log[16384];
	char tag[32];
	long n = syscall3(__NR_syslog, SYSLOG_ACTION_READ_ALL, (long)log, sizeof(log) - 1);
	char *line, *hit = NULL, *end;

	msg[0] = '\0';
	if (n <= 0)
		return;
	log[n] = '\0';
	snprintf(tag, sizeof(tag), "[%ld] ", pid);
	for (line = log; (line = find(line, tag)); line++)
		hit = line + strlen(tag);
	if (!hit)
		return;
	end = strchr(hit, '\n');
	n = end ? end - hit : (long)strlen(hit);
	for (line = hit; line + 4 <= hit + n; line++)
		if (!memcmp(line, " ip:", 4))
			n = line - hit;
	if ((size_t)n >= size)
		n = size - 1;
	memcpy(msg, hit, n);
	msg[n] = '\0';
}

static long read_line(int fd, char *buf, size_t size)
{
	size_t got = 0;
	char c;

	while (got + 1 < size && read(fd, &c, 1) == 1) {
		buf[got++] = c;
		if (c == '\n')
			break;
	}
	buf[got] = '\0';
	return got;
}

/*
 * Start the service (argv) with a pipe on its stdin and one on its stdout;
 * read its first line if the request depends on it (the leak), have make
 * write the request, send it, read what else the service prints until it
 * exits, and wait for it.
 */
int run_service(char *const argv[], int first_line, request_fn make, void *arg, struct outcome *o)
{
	static unsigned char req[4096];
	int in[2], out[2];
	long pid, got, n;
	size_t len;

	if (syscall1(__NR_pipe, (long)in) < 0 || syscall1(__NR_pipe, (long)out) < 0)
		return printf("attack: pipe failed\n"), -1;
	pid = fork();
	if (pid == 0) {
		syscall2(__NR_dup2, in[0], 0);
		syscall2(__NR_dup2, out[1], 1);
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
		execve(argv[0], argv, environ);
		exit_group(127);
	}
	close(in[0]);
	close(out[1]);
	o->out[0] = '\0';
	got = pid > 0 && first_line ? read_line(out[0], o->out, sizeof(o->out)) : 0;
	len = pid < 0 ? 0 : make(req, sizeof(req), o->out, arg);
	if (len)
		write(in[1], req, len);
	close(in[1]);
	while (got + 1 < (long)sizeof(o->out) &&
	       (n = read(out[0], o->out + got, sizeof(o->out) - 1 - got)) > 0)
		got += n;
	o->out[got] = '\0';
	close(out[0]);
	if (pid < 0 || wait4(pid, &o->status, 0, NULL) != pid)
		return printf("attack: fork or wait4 failed\n"), -1;
	kernel_message(pid, o->kmsg, sizeof(o->kmsg));
	return 0;
}
