/* sysbusy: what Debian's busybox asks beyond the shell's: sendfile, readlink, robust lists, /dev, times, modes, owners, /proc/PID. */
#include "testutil.h"

#define UTIME_NOW		((1l << 30) - 1)
#define UTIME_OMIT		((1l << 30) - 2)
#define BAD_POINTER		8l	/* the unmapped first page */
#define S_IFIFO			0010000
#define ENXIO			6

static char path[64], copy[64];	/* this run's files in /tmp */
static int nargs;		/* main's argc and argv, for /proc/PID/cmdline */
static char **args;
static char data[3000];

static long L(const void *p)
{
	return (long)p;
}

static long sendfile(int out, int in, long *off, size_t n)
{
	return syscall4(__NR_sendfile, out, in, L(off), n);
}

/* path holds data; the descriptor, opened read-only. */
static long make_file(void)
{
	long fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), i;

	for (i = 0; i < (long)sizeof(data); i++)
		data[i] = 'a' + i % 23;
	if (fd < 0 || write(fd, data, sizeof(data)) != sizeof(data))
		return -1;
	close(fd);
	return open(path, O_RDONLY, 0);
}

static int same_bytes(int fd, long off, long n, const char *what)
{
	char buf[sizeof(data)];

	if (!expect(read(fd, buf, n), n, what))
		return 0;
	return memcmp(buf, data + off, n) ? ktap_fail("%s: other bytes than the file's", what) : 1;
}

static int test_sendfile_to_pipe(void)
{
	long in = make_file(), off = 100;
	int p[2];

	if (in < 0 || pipe(p) < 0)
		return ktap_fail("no file or pipe");
	return expect(sendfile(p[1], in, NULL, 2000), 2000, "sendfile(pipe, file, NULL, 2000)") &&
	       same_bytes(p[0], 0, 2000, "the pipe") &&
	       expect(lseek(in, 0, SEEK_CUR), 2000, "the file's offset moved") &&
	       expect(sendfile(p[1], in, &off, 50), 50, "sendfile with an offset") &&
	       expect(off, 150, "*offset moved") && same_bytes(p[0], 100, 50, "the pipe") &&
	       expect(lseek(in, 0, SEEK_CUR), 2000, "the file's offset stayed") &&
	       expect(sendfile(p[1], in, NULL, 4000), 1000, "sendfile up to end of file") &&
	       same_bytes(p[0], 2000, 1000, "the pipe") &&
	       expect(sendfile(p[1], in, NULL, 10), 0, "sendfile at end of file") &&
	       expect(sendfile(p[1], in, NULL, 0), 0, "sendfile of 0 bytes");
}

static int test_sendfile_file_to_file(void)
{
	long in = make_file(), out = open(copy, O_RDWR | O_CREAT | O_TRUNC, 0644), off = 0;

	if (in < 0 || out < 0)
		return ktap_fail("no files");
	return expect(sendfile(out, in, &off, sizeof(data)), sizeof(data), "sendfile(file, file)") &&
	       expect(lseek(out, 0, SEEK_SET), 0, "lseek") &&
	       same_bytes(out, 0, sizeof(data), "the copy");
}

static int test_sendfile_errors(void)
{
	long in = make_file(), wr = open(copy, O_WRONLY | O_CREAT, 0644), off = -1;
	long app = open(copy, O_WRONLY | O_APPEND, 0);
	int p[2];

	if (in < 0 || wr < 0 || app < 0 || pipe(p) < 0)
		return ktap_fail("no files or pipe");
	write(p[1], "x", 1);
	sigaction(SIGPIPE, (void *)SIG_IGN, 0);
	return expect(sendfile(p[1], 99, NULL, 1), -EBADF, "a closed in_fd") &&
	       expect(sendfile(p[1], wr, NULL, 1), -EBADF, "in_fd open for writing only") &&
	       expect(sendfile(in, in, NULL, 1), -EBADF, "out_fd open for reading only") &&
	       expect(sendfile(wr, p[0], NULL, 1), -EINVAL, "in_fd a pipe, out_fd a file") &&
	       expect(sendfile(p[1], p[0], &off, 1), -ESPIPE, "in_fd a pipe, with an offset") &&
	       expect(sendfile(p[1], in, &off, 1), -EINVAL, "a negative offset") &&
	       expect(sendfile(p[1], in, (long *)BAD_POINTER, 1), -EFAULT, "a bad offset pointer") &&
	       expect(sendfile(app, in, NULL, 1), -EINVAL, "out_fd in O_APPEND mode") &&
	       expect(close(p[0]), 0, "close the read end") &&
	       expect(sendfile(p[1], in, NULL, 1), -EPIPE, "to a pipe without a reader");
}

/* readlink("/proc/self/exe") names this program's file: the same inode as argv[0]. */
static int test_readlink_proc_self_exe(void)
{
	char buf[256] = { 0 };
	struct stat a, b;
	long n = syscall3(__NR_readlink, L("/proc/self/exe"), L(buf), sizeof(buf) - 1);

	if (n <= 0)
		return ktap_fail("readlink(/proc/self/exe) returned %ld", n);
	if (!expect(syscall2(__NR_stat, L(buf), L(&a)), 0, "stat of the link's target") ||
	    !expect(syscall2(__NR_stat, L(self), L(&b)), 0, "stat of argv[0]"))
		return 0;
	if (a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		return ktap_fail("/proc/self/exe is %s, not %s", buf, self);
	return expect(syscall4(__NR_readlinkat, AT_FDCWD, L("/proc/self/exe"), L(buf), 3), 3,
		      "readlinkat into 3 bytes (cut, no NUL)") &&
	       expect(syscall3(__NR_readlink, L(self), L(buf), 10), -EINVAL, "readlink of no link") &&
	       expect(syscall3(__NR_readlink, L("/no/such"), L(buf), 10), -ENOENT, "readlink of nothing") &&
	       expect(syscall3(__NR_readlink, L("/proc/self/exe"), L(buf), 0), -EINVAL, "size 0") &&
	       expect(syscall3(__NR_readlink, L("/proc/self/exe"), BAD_POINTER, 10), -EFAULT,
		      "a bad buffer");
}

/* exec of /proc/self/exe runs this program again, as busybox runs its applets. */
static int test_exec_proc_self_exe(void)
{
	long pid = fork();
	int status;

	if (pid == 0) {
		char *argv[] = { "again", "exit-42", NULL };

		execve("/proc/self/exe", argv, NULL);
		exit_group(1);
	}
	if (pid < 0 || wait4(pid, &status, 0, NULL) != pid)
		return ktap_fail("fork or wait4 failed");
	return expect_exit(status, 42, "the program execed as /proc/self/exe");
}

static int test_robust_list(void)
{
	long head[3] = { L(head), 0, 0 }, *got = NULL, len = 0, pid;
	int status;

	if (!expect(syscall2(__NR_set_robust_list, L(head), 23), -EINVAL, "len 23") ||
	    !expect(syscall2(__NR_set_robust_list, L(head), 24), 0, "set_robust_list") ||
	    !expect(syscall3(__NR_get_robust_list, 0, L(&got), L(&len)), 0, "get_robust_list") ||
	    !expect(L(got), L(head), "the head") || !expect(len, 24, "its length"))
		return 0;
	pid = fork();
	if (pid == 0) {
		syscall3(__NR_get_robust_list, 0, L(&got), L(&len));
		exit_group(got ? 1 : 0);
	}
	if (pid < 0 || wait4(pid, &status, 0, NULL) != pid)
		return ktap_fail("fork or wait4 failed");
	return expect_exit(status, 0, "a forked child starts without a list") &&
	       expect(syscall3(__NR_get_robust_list, 0, BAD_POINTER, L(&len)), -EFAULT, "bad pointer");
}

static int test_dev_null_zero(void)
{
	char buf[8] = "xxxxxxx";
	long null = open("/dev/null", O_RDWR, 0), zero = open("/dev/zero", O_RDONLY, 0);
	struct stat st;

	return expect(write(null, "abc", 3), 3, "write /dev/null") &&
	       expect(read(null, buf, 8), 0, "read /dev/null") &&
	       expect(read(zero, buf, 8), 8, "read /dev/zero") && expect(buf[0] | buf[7], 0, "zeros") &&
	       expect(fstat(null, &st), 0, "fstat /dev/null") &&
	       expect(st.st_mode & S_IFMT, S_IFCHR, "a character device") &&
	       expect(st.st_rdev, (1 << 8) | 3, "1:3");
}

static int test_access_mode(void)
{
	long in = make_file(), wr = open(copy, O_WRONLY | O_CREAT, 0644);
	char c;

	return expect(write(in, "x", 1), -EBADF, "write to a read-only descriptor") &&
	       expect(read(wr, &c, 1), -EBADF, "read of a write-only descriptor");
}

static int test_utimensat_chmod(void)
{
	struct timespec ts[2] = { { 5, 0 }, { 1000, 7 } }, omit[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
	struct stat st;
	long fd = make_file(), before = now_ns() / 1000000000 - 1;

	if (!expect(syscall4(__NR_utimensat, AT_FDCWD, L(path), L(ts), 0), 0, "utimensat") ||
	    !expect(syscall2(__NR_stat, L(path), L(&st)), 0, "stat") ||
	    !expect(st.st_mtim.tv_sec, 1000, "mtime seconds") || !expect(st.st_mtim.tv_nsec, 7, "ns") ||
	    !expect(syscall4(__NR_utimensat, fd, 0, 0, 0), 0, "utimensat(fd, NULL, now)") ||
	    !expect(fstat(fd, &st), 0, "fstat") || !expect(st.st_mtim.tv_sec >= before, 1, "mtime now"))
		return 0;
	ts[1].tv_nsec = 1000000000;
	return expect(syscall4(__NR_utimensat, AT_FDCWD, L(path), L(ts), 0), -EINVAL, "bad ns") &&
	       expect(syscall4(__NR_utimensat, AT_FDCWD, L("/tmp/none"), L(omit), 0), 0, "both OMIT") &&
	       expect(syscall4(__NR_utimensat, AT_FDCWD, L("/tmp/none"), 0, 0), -ENOENT, "no file") &&
	       expect(syscall2(__NR_chmod, L(path), 0600), 0, "chmod") &&
	       expect(syscall2(__NR_stat, L(path), L(&st)), 0, "stat") &&
	       expect(st.st_mode, S_IFREG | 0600, "mode after chmod") &&
	       expect(syscall2(__NR_fchmod, fd, 04751), 0, "fchmod") && expect(fstat(fd, &st), 0, "fstat") &&
	       expect(st.st_mode, S_IFREG | 04751, "mode after fchmod");
}

static int test_chown_fchown(void)
{
	struct stat st;
	long fd = make_file();

	if (getuid() != 0)
		return skip("not root: chown to another owner is EPERM");
	return expect(syscall3(__NR_chown, L(path), 1000, 2000), 0, "chown 1000:2000") &&
	       expect(syscall2(__NR_stat, L(path), L(&st)), 0, "stat") &&
	       expect(st.st_uid, 1000, "st_uid") && expect(st.st_gid, 2000, "st_gid") &&
	       expect(syscall3(__NR_fchown, fd, -1, 0), 0, "fchown -1:0") &&
	       expect(fstat(fd, &st), 0, "fstat") &&
	       expect(st.st_uid, 1000, "st_uid kept") && expect(st.st_gid, 0, "st_gid") &&
	       expect(syscall3(__NR_chown, L("/tmp/none"), 0, 0), -ENOENT, "chown of nothing");
}

/* Outside /tmp nothing changes: ccos's other files are read-only (a Linux host's are not). */
static int test_read_only_elsewhere(void)
{
	if (!on_ccos())
		return skip("a Linux host's /bin is writable by root");
	return expect(syscall2(__NR_chmod, L(self), 0700), -EROFS, "chmod of a module") &&
	       expect(syscall4(__NR_utimensat, AT_FDCWD, L(self), 0, 0), -EROFS, "utimensat of a module") &&
	       expect(syscall3(__NR_chown, L(self), 0, 0), -EROFS, "chown of a module");
}

/* Field n (1 = pid) of a /proc/PID/stat line, as a number; after the ")" that ends the name. */
static long stat_field(const char *line, int n)
{
	const char *p = line;
	long v = 0, sign = 1;
	int i;

	for (const char *q = line; *q; q++)
		if (*q == ')')
			p = q + 2;		/* field 3, the state */
	for (i = 3; i < n && *p; p++)
		i += *p == ' ';
	if (*p == '-')
		sign = -1, p++;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + *p++ - '0';
	return sign * v;
}

/* /proc/PID of this process, and its stat, status, comm, cmdline in Linux's formats. */
static int test_proc_pid_files(void)
{
	char file[64], stat[1024], comm[32], status[1024], line[64], cmdline[512], want[512];
	long pid = getpid(), n, i, spaces = 0, len = 0;

	snprintf(file, sizeof(file), "/proc/%ld/stat", pid);
	if (!expect(slurp(file, stat, sizeof(stat)) > 0, 1, "read /proc/PID/stat") ||
	    !expect(slurp("/proc/self/comm", comm, sizeof(comm)) > 1, 1, "read /proc/self/comm"))
		return 0;
	comm[strlen(comm) - 1] = 0;	/* the newline */
	snprintf(line, sizeof(line), "%ld (%s) R ", pid, comm);
	for (i = 0; stat[i]; i++)
		spaces += stat[i] == ' ';
	if (strncmp(stat, line, strlen(line)))
		return ktap_fail("/proc/%ld/stat begins \"%.40s\", not \"%s\"", pid, stat, line);
	snprintf(line, sizeof(line), "Name:\t%s\n", comm);
	for (i = 0; i < nargs; i++)
		len += snprintf(want + len, sizeof(want) - len, "%s", args[i]) + 1;
	n = slurp("/proc/self/cmdline", cmdline, sizeof(cmdline));
	return expect(spaces, 51, "52 fields") &&
	       expect(stat_field(stat, 4), getppid(), "ppid") &&
	       expect(stat_field(stat, 5), getpgrp(), "pgrp") &&
	       expect(stat_field(stat, 6), getsid(0), "session") &&
	       expect(stat_field(stat, 20), 1, "num_threads") &&
	       expect(slurp("/proc/self/status", status, sizeof(status)) > 0, 1, "read status") &&
	       expect(strncmp(status, line, strlen(line)), 0, "status begins Name:\tCOMM") &&
	       expect(n, len, "cmdline: the arguments' length") &&
	       expect(memcmp(cmdline, want, len), 0, "cmdline: the arguments, each ending in a NUL");
}

/* A child's /proc/PID: asleep (S), a zombie (Z) until waited for, then gone; /proc lists it. */
static int test_proc_pid_of_a_child(void)
{
	char buf[2048], name[16];
	long pid, fd, n, off;
	int p[2], status, listed = 0, ok;

	if (pipe(p) < 0)
		return ktap_fail("pipe failed");
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		read(p[0], buf, 1);
		exit_group(0);
	}
	ok = expect(state_of(pid, 'S'), 'S', "the child waits on the pipe: S");
	snprintf(name, sizeof(name), "%ld", pid);
	fd = open("/proc", O_RDONLY | O_DIRECTORY, 0);
	while ((n = syscall3(__NR_getdents64, fd, L(buf), sizeof(buf))) > 0)
		for (off = 0; off < n; off += *(unsigned short *)(buf + off + 16))
			listed |= !strcmp(buf + off + 19, name) && buf[off + 18] == 4;	/* DT_DIR */
	close(fd);
	close(p[1]);
	return ok && expect(listed, 1, "/proc lists the child as a folder") &&
	       expect(state_of(pid, 'Z'), 'Z', "exited, not waited for: Z") &&
	       expect(wait4(pid, &status, 0, NULL), pid, "wait4") &&
	       expect(state_of(pid, 0), 0, "waited for: no /proc/PID");
}

/* /proc/self is a link to this process's folder. */
static int test_proc_self_link(void)
{
	char buf[32] = { 0 }, want[32];
	long n = snprintf(want, sizeof(want), "%ld", getpid());

	return expect(syscall3(__NR_readlink, L("/proc/self"), L(buf), sizeof(buf)), n,
		      "readlink /proc/self") &&
	       expect(strcmp(buf, want), 0, "/proc/self names this process");
}

/* mkfifo: mknod(S_IFIFO) in /tmp; its opens wait for each other; bytes pass as in a pipe. */
static int test_mkfifo(void)
{
	char fifo[80], buf[8] = { 0 };
	struct stat st;
	long pid, fd;
	int status, ok;

	snprintf(fifo, sizeof(fifo), "%s.fifo", path);
	if (!expect(syscall3(__NR_mknod, L(fifo), S_IFIFO | 0644, 0), 0, "mknod(S_IFIFO)") ||
	    !expect(syscall2(__NR_stat, L(fifo), L(&st)), 0, "stat") ||
	    !expect(st.st_mode & S_IFMT, S_IFIFO, "a FIFO") ||
	    !expect(syscall3(__NR_mknod, L(fifo), S_IFIFO | 0644, 0), -EEXIST, "mknod again") ||
	    !expect(open(fifo, O_WRONLY | O_NONBLOCK, 0), -ENXIO, "O_NONBLOCK writer, no reader") ||
	    !expect(close(open(fifo, O_RDONLY | O_NONBLOCK, 0)), 0, "O_NONBLOCK reader, no writer"))
		return 0;
	pid = fork();
	if (pid == 0) {
		long w = open(fifo, O_WRONLY, 0);	/* waits for the reader */

		exit_group(w < 0 || write(w, "hello", 5) != 5);
	}
	fd = open(fifo, O_RDONLY, 0);			/* waits for the writer */
	ok = expect(fd >= 0, 1, "open for reading, once a writer came") &&
	     expect(read(fd, buf, 5), 5, "read the writer's bytes") &&
	     expect(memcmp(buf, "hello", 5), 0, "hello") &&
	     expect(wait4(pid, &status, 0, NULL), pid, "wait4") &&
	     expect_exit(status, 0, "the writer") &&
	     expect(read(fd, buf, 5), 0, "end of file once the writer closed");
	close(fd);
	syscall1(__NR_unlink, L(fifo));
	return ok;
}

static const struct test tests[] = {
	{ "sendfile_file_to_pipe", test_sendfile_to_pipe },
	{ "sendfile_file_to_file", test_sendfile_file_to_file },
	{ "sendfile_errors", test_sendfile_errors },
	{ "readlink_proc_self_exe", test_readlink_proc_self_exe, 1 },
	{ "exec_proc_self_exe", test_exec_proc_self_exe, 1 },
	{ "set_get_robust_list", test_robust_list },
	{ "dev_null_and_zero", test_dev_null_zero },
	{ "read_write_need_the_access_mode", test_access_mode },
	{ "utimensat_chmod_fchmod", test_utimensat_chmod },
	{ "chown_fchown", test_chown_fchown },
	{ "read_only_outside_tmp", test_read_only_elsewhere, 1 },
	{ "proc_pid_files", test_proc_pid_files },
	{ "proc_pid_of_a_child", test_proc_pid_of_a_child },
	{ "proc_self_link", test_proc_self_link },
	{ "mkfifo", test_mkfifo },
};

int main(int argc, char **argv, char **envp)
{
	long pid = getpid(), r;

	(void)envp;
	if (argc == 2 && !strcmp(argv[1], "exit-42"))
		return 42;
	find_self(argv[0]);
	nargs = argc;
	args = argv;
	snprintf(path, sizeof(path), "/tmp/sysbusy.%ld", pid);
	snprintf(copy, sizeof(copy), "/tmp/sysbusy.%ld.copy", pid);
	r = run_tests(tests, ARRAY_SIZE(tests));
	syscall1(__NR_unlink, L(path));
	syscall1(__NR_unlink, L(copy));
	return r;
}
