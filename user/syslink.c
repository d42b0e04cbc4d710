/* syslink: symbolic links: symlink, readlink, lstat, following them, ELOOP, O_NOFOLLOW, exec. */
#include "testutil.h"

#define S_IFLNK			0120000
#define S_IFDIR			0040000
#define O_EXCL			0200
#define O_NOFOLLOW		0400000
#define AT_SYMLINK_NOFOLLOW	0x100
#define ELOOP			40
#define ENAMETOOLONG		36
#define EROFS			30
#define DT_LNK			10
#define BAD_POINTER		8l	/* the unmapped first page */

static char longname[5000];

static long L(const void *p)
{
	return (long)p;
}

static long symlink(const char *target, const char *name)
{
	return syscall2(__NR_symlink, L(target), L(in_dir(name)));
}

static long lstat(const char *name, struct stat *st)
{
	return syscall2(__NR_lstat, L(in_dir(name)), L(st));
}

static long stat(const char *name, struct stat *st)
{
	return syscall2(__NR_stat, L(in_dir(name)), L(st));
}

static long unlink(const char *name)
{
	return syscall1(__NR_unlink, L(in_dir(name)));
}

/* name holds text; 0 or the error. */
static long create(const char *name, const char *text)
{
	long fd = open(in_dir(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return fd;
	write(fd, text, strlen(text));
	close(fd);
	return 0;
}

/* 1 if name reads as text. */
static int reads(const char *name, const char *text, const char *what)
{
	char buf[64] = { 0 };
	long fd = open(in_dir(name), O_RDONLY, 0);

	if (fd < 0)
		return ktap_fail("%s: open(%s) = %ld", what, in_dir(name), fd);
	read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return strcmp(buf, text) ? ktap_fail("%s: read \"%s\", not \"%s\"", what, buf, text) : 1;
}

static int test_symlink_readlink_lstat(void)
{
	char buf[64] = { 0 };
	struct stat st;

	return expect(symlink("no/such/target", "dangling"), 0, "symlink") &&
	       expect(syscall3(__NR_readlink, L(in_dir("dangling")), L(buf), sizeof(buf)), 14,
		      "readlink") &&
	       expect(strcmp(buf, "no/such/target"), 0, "the target") &&
	       expect(syscall4(__NR_readlinkat, AT_FDCWD, L(in_dir("dangling")), L(buf), 3), 3,
		      "readlinkat into 3 bytes (cut, no NUL)") &&
	       expect(lstat("dangling", &st), 0, "lstat") &&
	       expect(st.st_mode & S_IFMT, S_IFLNK, "lstat: a link") &&
	       expect(st.st_size, 14, "lstat: st_size is the target's length") &&
	       expect(syscall4(__NR_newfstatat, AT_FDCWD, L(in_dir("dangling")), L(&st),
			       AT_SYMLINK_NOFOLLOW), 0, "newfstatat(AT_SYMLINK_NOFOLLOW)") &&
	       expect(st.st_mode & S_IFMT, S_IFLNK, "newfstatat: a link") &&
	       expect(stat("dangling", &st), -ENOENT, "stat follows it to nothing") &&
	       expect(syscall2(__NR_lstat, L("/proc/self/exe"), L(&st)), 0, "lstat /proc/self/exe") &&
	       expect(st.st_mode & S_IFMT, S_IFLNK, "/proc/self/exe is a link");
}

/* Relative targets from the link's folder, absolute ones from /, and ".." after a link. */
static int test_lookup_follows_links(void)
{
	struct stat a, b;
	long fd;

	if (!expect(syscall2(__NR_mkdir, L(in_dir("sub")), 0755), 0, "mkdir sub") ||
	    !expect(syscall2(__NR_mkdir, L(in_dir("sub/deep")), 0755), 0, "mkdir sub/deep") ||
	    !expect(create("file", "top"), 0, "create file") ||
	    !expect(create("sub/inner", "inner"), 0, "create sub/inner"))
		return 0;
	return expect(symlink("../file", "sub/up"), 0, "sub/up -> ../file") &&
	       reads("sub/up", "top", "a relative target, from the link's folder") &&
	       expect(symlink(in_dir("sub"), "abs"), 0, "abs -> DIR/sub") &&
	       reads("abs/inner", "inner", "an absolute target, a folder on the way") &&
	       expect(symlink("sub/deep", "deeplink"), 0, "deeplink -> sub/deep") &&
	       reads("deeplink/../inner", "inner", "\"..\" after a link climbs from its target") &&
	       expect(stat("sub/up", &a), 0, "stat of the link") &&
	       expect(stat("file", &b), 0, "stat of the file") &&
	       expect(a.st_ino == b.st_ino && (a.st_mode & S_IFMT) == S_IFREG, 1, "the file's own") &&
	       expect(lstat("abs/", &a), 0, "lstat with a trailing slash") &&
	       expect(a.st_mode & S_IFMT, S_IFDIR, "a trailing slash follows the link") &&
	       expect((fd = open(in_dir("abs"), O_RDONLY | O_DIRECTORY, 0)) >= 0, 1,
		      "open a folder's link") &&
	       expect(close(fd), 0, "close");
}

/* chdir through a link: getcwd names where it led. */
static int test_chdir_through_a_link(void)
{
	char cwd[128], want[128];

	if (!expect(syscall2(__NR_mkdir, L(in_dir("real")), 0755), 0, "mkdir real") ||
	    !expect(symlink("real", "alias"), 0, "alias -> real") ||
	    !expect(chdir(in_dir("alias")), 0, "chdir alias"))
		return 0;
	snprintf(want, sizeof(want), "%s/real", test_dir);
	return expect(getcwd(cwd, sizeof(cwd)) > 0, 1, "getcwd") &&
	       expect(strcmp(cwd, want), 0, "getcwd names the folder, not the link");
}

/* A chain of 40 links is followed, 41 are ELOOP; so is a loop. */
static int test_eloop(void)
{
	char name[16], next[16];
	int i;

	if (!expect(create("end", "end"), 0, "create end"))
		return 0;
	for (i = 0; i <= 40; i++) {
		snprintf(name, sizeof(name), "l%d", i);
		snprintf(next, sizeof(next), i == 40 ? "end" : "l%d", i + 1);
		if (!expect(symlink(next, name), 0, "symlink"))
			return 0;
	}
	return reads("l1", "end", "40 links") &&
	       expect(open(in_dir("l0"), O_RDONLY, 0), -ELOOP, "41 links") &&
	       expect(symlink("loop-b", "loop-a"), 0, "loop-a -> loop-b") &&
	       expect(symlink("loop-a", "loop-b"), 0, "loop-b -> loop-a") &&
	       expect(open(in_dir("loop-a"), O_RDONLY, 0), -ELOOP, "open of a loop") &&
	       expect(stat("loop-a/x", &(struct stat){ 0 }), -ELOOP, "stat through a loop");
}

static int test_o_nofollow_and_o_creat(void)
{
	return expect(create("target", "t"), 0, "create target") &&
	       expect(symlink("target", "link"), 0, "link -> target") &&
	       expect(open(in_dir("link"), O_RDONLY | O_NOFOLLOW, 0), -ELOOP,
		      "O_NOFOLLOW on a link") &&
	       expect(close(open(in_dir("target"), O_RDONLY | O_NOFOLLOW, 0)), 0,
		      "O_NOFOLLOW on a file") &&
	       expect(symlink("made", "maker"), 0, "maker -> made (dangling)") &&
	       expect(open(in_dir("maker"), O_WRONLY | O_CREAT | O_EXCL, 0644), -EEXIST,
		      "O_CREAT | O_EXCL on a dangling link") &&
	       expect(close(open(in_dir("maker"), O_WRONLY | O_CREAT, 0644)), 0,
		      "O_CREAT through a dangling link") &&
	       reads("made", "", "O_CREAT made the target");
}

/* unlink and rename act on the link; the target stays. */
static int test_unlink_rename_the_link(void)
{
	char buf[16] = { 0 };

	return expect(create("kept", "kept"), 0, "create kept") &&
	       expect(symlink("kept", "l"), 0, "l -> kept") &&
	       expect(syscall2(82 /* rename */, L(in_dir("l")), L(in_dir("l2"))), 0, "rename the link") &&
	       expect(syscall3(__NR_readlink, L(in_dir("l2")), L(buf), sizeof(buf)), 4, "readlink") &&
	       expect(unlink("l2"), 0, "unlink the link") &&
	       expect(lstat("l2", &(struct stat){ 0 }), -ENOENT, "the link is gone") &&
	       reads("kept", "kept", "the target stays") &&
	       expect(symlink("kept", "k3"), 0, "k3 -> kept") &&
	       expect(syscall2(__NR_mkdir, L(in_dir("k3")), 0755), -EEXIST, "mkdir over a link") &&
	       expect(syscall1(__NR_rmdir, L(in_dir("k3"))), -ENOTDIR, "rmdir of a link");
}

/* getdents64 says DT_LNK for a link. */
static int test_getdents_dt_lnk(void)
{
	char buf[1024];
	long fd, n, off;

	if (!expect(syscall2(__NR_mkdir, L(in_dir("d")), 0755), 0, "mkdir d") ||
	    !expect(symlink("x", "d/the-link"), 0, "d/the-link -> x") ||
	    (fd = open(in_dir("d"), O_RDONLY | O_DIRECTORY, 0)) < 0)
		return ktap_fail("no folder d");
	n = syscall3(__NR_getdents64, fd, L(buf), sizeof(buf));
	close(fd);
	for (off = 0; off < n; off += *(unsigned short *)(buf + off + 16))
		if (!strcmp(buf + off + 19, "the-link"))
			return expect(buf[off + 18], DT_LNK, "d_type of the link");
	return ktap_fail("getdents64 (%ld) does not list the-link", n);
}

static int test_errors(void)
{
	char buf[8];

	memset(longname, 'a', sizeof(longname) - 1);
	if (!expect(create("file2", "x"), 0, "create file2"))
		return 0;
	return expect(symlink("x", "file2"), -EEXIST, "onto a file") &&
	       expect(symlink("y", "file2"), -EEXIST, "onto it again") &&
	       expect(symlink("", "empty"), -ENOENT, "an empty target") &&
	       expect(symlink("x", "no/such/folder/l"), -ENOENT, "in no folder") &&
	       expect(symlink(longname, "long"), -ENAMETOOLONG, "a target of 4999 bytes") &&
	       expect(syscall2(__NR_symlink, L("x"), L("")), -ENOENT, "an empty name") &&
	       expect(syscall2(__NR_symlink, BAD_POINTER, L(in_dir("bad"))), -EFAULT, "a bad target") &&
	       expect(syscall2(__NR_symlink, L("x"), BAD_POINTER), -EFAULT, "a bad name") &&
	       expect(syscall3(__NR_symlinkat, L("x"), 999, L("rel")), -EBADF, "a bad dirfd") &&
	       expect(syscall3(__NR_readlink, L(in_dir("file2")), L(buf), 8), -EINVAL,
		      "readlink of a file") &&
	       expect(syscall3(__NR_readlink, L(in_dir("none")), L(buf), 8), -ENOENT,
		      "readlink of nothing") &&
	       expect(symlink("x", "bl"), 0, "bl -> x") &&
	       expect(syscall3(__NR_readlink, L(in_dir("bl")), BAD_POINTER, 8), -EFAULT, "a bad buffer") &&
	       expect(syscall3(__NR_readlink, L(in_dir("bl")), L(buf), 0), -EINVAL, "size 0");
}

/* exec of a link runs its target, with argv[0] as given. */
static int test_exec_through_a_link(void)
{
	long pid;
	int status;

	if (!expect(symlink(self, "prog"), 0, "prog -> this program"))
		return 0;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "prog", "exit-42", NULL };

		execve(in_dir("prog"), argv, NULL);
		exit_group(1);
	}
	if (pid < 0 || wait4(pid, &status, 0, NULL) != pid)
		return ktap_fail("fork or wait4 failed");
	return expect_exit(status, 42, "the program run through the link");
}

/* Outside /tmp there is no room for links on ccos (a Linux host's / is writable by root). */
static int test_read_only_elsewhere(void)
{
	if (!on_ccos())
		return skip("a Linux host's folders may be writable");
	return expect(syscall2(__NR_symlink, L("x"), L("/bin/newlink")), -EROFS, "symlink in /bin") &&
	       expect(syscall2(__NR_symlink, L("x"), L("/bin")), -EEXIST, "symlink onto /bin");
}

static const struct test tests[] = {
	{ "symlink_readlink_lstat", test_symlink_readlink_lstat },
	{ "lookup_follows_links", test_lookup_follows_links },
	{ "chdir_through_a_link", test_chdir_through_a_link },
	{ "forty_links_and_eloop", test_eloop },
	{ "o_nofollow_and_o_creat", test_o_nofollow_and_o_creat },
	{ "unlink_and_rename_the_link", test_unlink_rename_the_link },
	{ "getdents_dt_lnk", test_getdents_dt_lnk },
	{ "errors", test_errors },
	{ "exec_through_a_link", test_exec_through_a_link, 1 },
	{ "read_only_outside_tmp", test_read_only_elsewhere },
};

/* rm -r of this run's folder (no deeper than the cases make it). */
static void remove_tree(const char *path, int depth)
{
	char buf[2048], child[256];
	long fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0), n, off;

	if (fd >= 0 && depth < 3) {
		while ((n = syscall3(__NR_getdents64, fd, L(buf), sizeof(buf))) > 0)
			for (off = 0; off < n; off += *(unsigned short *)(buf + off + 16)) {
				const char *name = buf + off + 19;

				if (strcmp(name, ".") && strcmp(name, "..")) {
					snprintf(child, sizeof(child), "%s/%s", path, name);
					if (buf[off + 18] == 4)
						remove_tree(child, depth + 1);
					else
						syscall1(__NR_unlink, L(child));
				}
			}
		close(fd);
	}
	syscall1(__NR_rmdir, L(path));
}

int main(int argc, char **argv, char **envp)
{
	long r;

	(void)envp;
	if (argc == 2 && !strcmp(argv[1], "exit-42"))
		return 42;
	find_self(argv[0]);
	snprintf(test_dir, sizeof(test_dir), "/tmp/syslink.%ld", getpid());
	if (syscall2(__NR_mkdir, L(test_dir), 0755) < 0) {
		printf("syslink: cannot make %s\n", test_dir);
		return 1;
	}
	r = run_tests(tests, ARRAY_SIZE(tests));
	remove_tree(test_dir, 0);
	return r;
}
