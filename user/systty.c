/* systty: the controlling terminal: TIOCSCTTY of a free and of a taken terminal, TIOCNOTTY, the hangup at a session leader's exit. */
#include "testutil.h"

#define TIOCSCTTY	0x540e
#define TIOCNOTTY	0x5422
#define TIOCGSID	0x5429
#define TIOCSPTLCK	0x40045431	/* _IOW('T', 0x31, int): unlockpt */
#define TIOCGPTPEER	0x5441		/* _IO('T', 0x41): open the pty's other end */
#define O_NOCTTY	0400
#define EPERM		1

/*
 * The terminal the cases share, which no session has when they start: on
 * ccos the console, given up by this program as init (TIOCNOTTY); on
 * Linux the slave end of a new pty. -1, and no_term says why, where there
 * is none.
 */
static int term = -1;
static const char *no_term;
static int report[2], ready[2];	/* the foreground process's signals; its start */

/* In the cases' other processes, which have no KTAP line of their own: a # line when got is not want. */
static int ok(long got, long want, const char *what)
{
	if (got == want)
		return 1;
	printf("# %s: %ld, expected %ld\n", what, got, want);
	return 0;
}

/* Neither a process of the terminal's session that does not lead it nor another session's leader may take it. */
static int not_its_leader(void *arg)
{
	(void)arg;
	return !ok(ioctl(term, TIOCSCTTY, 0), -EPERM,
		   "TIOCSCTTY by a process of the terminal's session that does not lead it");
}

static int another_session(void *arg)
{
	(void)arg;
	if (!ok(setsid(), getpid(), "setsid") ||
	    !ok(ioctl(term, TIOCSCTTY, 0), -EPERM, "TIOCSCTTY(0) of the terminal another session has"))
		return 1;
	if (!on_ccos() && geteuid() == 0) {
		printf("# TIOCSCTTY(1) not tried: as root (CAP_SYS_ADMIN) Linux would steal the terminal\n");
		return 0;
	}
	return !ok(ioctl(term, TIOCSCTTY, 1), -EPERM,
		   "TIOCSCTTY(1), the steal: EPERM without CAP_SYS_ADMIN, which no ccos process has");
}

static int takes_the_free_terminal(void *arg)
{
	(void)arg;
	return !ok(setsid(), getpid(), "setsid") ||
	       !ok(ioctl(term, TIOCSCTTY, 0), 0, "TIOCSCTTY(0) of a terminal no session has");
}

/* A new session takes the terminal; nobody else can; it keeps it. */
static int owner(void *arg)
{
	long me = getpid();
	int sid = 0;

	(void)arg;
	return !(ok(takes_the_free_terminal(NULL), 0, "the session leader, taking it") &&
		 ok(ioctl(term, TIOCSCTTY, 0), 0, "TIOCSCTTY(0) again by the session that has it") &&
		 ok(run_in_child(another_session, NULL), 0, "another session's leader: wait status") &&
		 ok(run_in_child(not_its_leader, NULL), 0, "a process of the session: wait status") &&
		 ok(ioctl(term, TIOCGSID, (unsigned long)&sid), 0, "TIOCGSID") &&
		 ok(sid, me, "the terminal's session after the others tried") &&
		 ok(tcsetpgrp(term, me), 0, "tcsetpgrp by the session that has it") &&
		 ok(tcgetpgrp(term), me, "tcgetpgrp"));
}

/*
 * The hole: any process could setsid() and TIOCSCTTY the console that the
 * shell's session has, and keep it after it exits (the shell's tcsetpgrp
 * then ENOTTY, ^C to nobody). Linux: EPERM.
 */
static int test_taken_terminal(void)
{
	if (term < 0)
		return skip(no_term);
	return expect(ioctl(term, TIOCSCTTY, 0), -EPERM, "TIOCSCTTY by a process that leads no session") &&
	       expect(tcgetpgrp(term), -ENOTTY, "tcgetpgrp of a terminal that is not the caller's") &&
	       expect_exit(run_in_child(owner, NULL), 0, "the session that took it (see the # lines)") &&
	       expect_exit(run_in_child(takes_the_free_terminal, NULL), 0,
			   "a new session, once the owner has exited");
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	char c = sig == SIGHUP ? 'H' : sig == SIGCONT ? 'C' : '?';

	(void)si, (void)uc;
	write(report[1], &c, 1);
}

/* The foreground group of the owner's session: says which signals it gets, until killed. */
static void foreground(void)
{
	setpgid(0, 0);
	sigaction(SIGHUP, on_signal, 0);
	sigaction(SIGCONT, on_signal, 0);
	alarm(10);		/* if no hangup comes, and nobody kills it */
	write(ready[1], "R", 1);
	for (;;)
		pause();
}

/* A session leader that takes the terminal, makes a child's group the foreground, then exits or gives the terminal up. */
static int leader(void *notty)
{
	long child;
	char r;

	if (takes_the_free_terminal(NULL))
		return 1;
	child = fork();
	if (child == 0)
		foreground();
	setpgid(child, child);
	if (!ok(write(report[1], &child, sizeof(child)), sizeof(child), "write the child's pid") ||
	    !ok(read(ready[0], &r, 1), 1, "the foreground child's start") ||
	    !ok(tcsetpgrp(term, child), 0, "tcsetpgrp(the child's group)"))
		return 1;
	if (!notty)
		return 0;
	return !(ok(ioctl(term, TIOCNOTTY, 0), 0, "TIOCNOTTY by the session leader") &&
		 ok(tcgetpgrp(term), -ENOTTY, "tcgetpgrp once it gave the terminal up"));
}

/* The same signals in any order: Linux runs the later one's handler first (its frame is made last). */
static int same_letters(const char *got, const char *want)
{
	if (strlen(got) != strlen(want))
		return 0;
	for (; *want; want++)
		if (!strchr(got, *want))
			return 0;
	return 1;
}

/* The leader's end (or TIOCNOTTY): the foreground group gets want's signals, and the terminal is free again. */
static int hangup(int notty, const char *want)
{
	char got[4] = { 0 };
	long child = 0, n = 0;
	int status, forked;

	if (term < 0)
		return skip(no_term);
	if (pipe(report) || pipe(ready))
		return ktap_fail("pipe failed");
	status = run_in_child(leader, notty ? (void *)1 : NULL);
	close(report[1]);
	forked = read(report[0], &child, sizeof(child)) == sizeof(child);
	if (!expect_exit(status, 0, "the leader (see the # lines)") ||
	    !expect(forked, 1, "the leader's child, forked")) {
		if (forked)
			kill(child, SIGKILL);
		return 0;
	}
	while (n < (long)strlen(want) && read(report[0], got + n, 1) == 1)
		n++;
	kill(child, SIGKILL);
	if (!same_letters(got, want))
		return ktap_fail("the foreground group got \"%s\" (H: SIGHUP, C: SIGCONT), expected \"%s\" in any order",
				 got, want);
	return expect_exit(run_in_child(takes_the_free_terminal, NULL), 0,
			   "a new session, once the leader is gone");
}

/* Linux's disassociate_ctty at a session leader's exit: SIGHUP to the foreground group (to the console's and a pty's alike). */
static int test_leader_exit(void)
{
	return hangup(0, "H");
}

/* TIOCNOTTY by the session leader: SIGHUP, then SIGCONT, to the foreground group. */
static int test_leader_notty(void)
{
	return hangup(1, "HC");
}

static const struct test tests[] = {
	{ "sctty_of_a_taken_terminal_eperm", test_taken_terminal },
	{ "leader_exit_hangs_up_and_frees_the_terminal", test_leader_exit },
	{ "leader_notty_hangs_up_and_frees_the_terminal", test_leader_notty },
};

/* On Linux: a new pty, whose slave end no session has. */
static void open_pty(void)
{
	int unlock = 0;
	long master = open("/dev/ptmx", O_RDWR | O_NOCTTY, 0);

	if (master < 0) {
		no_term = "no /dev/ptmx to open a pty with";
		return;
	}
	if (ioctl(master, TIOCSPTLCK, (unsigned long)&unlock) ||
	    (term = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY)) < 0)
		no_term = "the pty's slave end cannot be opened (TIOCGPTPEER: Linux 4.13)";
}

int main(int argc, char **argv, char **envp)
{
	long r;
	int failed;

	(void)argc, (void)argv, (void)envp;
	if (!on_ccos()) {
		open_pty();
	} else if (getpid() != 1) {
		no_term = "needs to be init: only init can free the console its session has (tty-bios boots it)";
	} else {
		if ((r = ioctl(0, TIOCNOTTY, 0)))
			printf("# init giving the console up: TIOCNOTTY returned %ld, expected 0\n", r);
		term = 0;
	}
	failed = run_tests(tests, ARRAY_SIZE(tests));
	if (term == 0 && (r = ioctl(0, TIOCSCTTY, 0))) {
		printf("# init taking the console back: TIOCSCTTY returned %ld\n", r);
		failed = 1;
	}
	return failed;
}
