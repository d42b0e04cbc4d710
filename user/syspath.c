/* syspath: the working directory and directory descriptors are directories, not names; "." last, name and path limits. */
#include "testutil.h"

#define AT_REMOVEDIR		0x200
#define AT_EMPTY_PATH		0x1000
#define EBUSY			16
#define ENAMETOOLONG		36
#define NAME_MAX		255
#define PATH_MAX		4096	/* with its NUL */
#define LONG_NAME		200	/* the folders of the deep trees */


static long L(const void *p)
{
	return (long)p;
}

static long mkdir(const char *path)
{
	return syscall2(__NR_mkdir, L(path), 0755);
}

static long rmdir(const char *path)
{
	return syscall1(__NR_rmdir, L(path));
}

static long unlink(const char *path)
{
	return syscall1(__NR_unlink, L(path));
}

static long rename(const char *from, const char *to)
{
	return syscall2(__NR_rename, L(from), L(to));
}

static long stat(const char *path)
{
	struct stat st;

	return syscall2(__NR_stat, L(path), L(&st));
}

/* An empty file at path (relative to dirfd): 0 or the error. */
static long create_at(int dirfd, const char *path)
{
	long fd = openat(dirfd, path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	return fd < 0 ? fd : close(fd);
}

static long create(const char *path)
{
	return create_at(AT_FDCWD, path);
}

/* 1 if the working directory is dir/name (dir for ""). */
static int cwd_is(const char *name, const char *what)
{
	char buf[128];
	long n = getcwd(buf, sizeof(buf));

	if (n < 0)
		return ktap_fail("%s: getcwd returned %ld", what, n);
	if (strcmp(buf, *name ? in_dir(name) : test_dir))
		return ktap_fail("%s: getcwd %s", what, buf);
	return 1;
}

/* After its directory is renamed, a working directory and a descriptor are that directory still. */
static int test_rename_keeps_cwd(void)
{
	struct stat here, there;
	long fd;

	if (!expect(mkdir("ra"), 0, "mkdir ra") || !expect(mkdir("ra/sub"), 0, "mkdir ra/sub") ||
	    !expect((fd = open("ra", O_RDONLY | O_DIRECTORY, 0)) >= 0, 1, "open ra") ||
	    !expect(chdir("ra/sub"), 0, "chdir ra/sub") || !expect(create("f"), 0, "create f"))
		return 0;
	return expect(rename(in_dir("ra"), in_dir("rb")), 0, "rename ra rb (the cwd's parent)") &&
	       expect(create("g"), 0, "a relative create after the rename") &&
	       expect(stat(in_dir("rb/sub/g")), 0, "it is in rb/sub") &&
	       expect(stat("f"), 0, "a relative stat") &&
	       cwd_is("rb/sub", "getcwd names the new path") &&
	       expect(rename(in_dir("rb/sub"), in_dir("rb/moved")), 0, "rename the cwd itself") &&
	       expect(create("h"), 0, "a relative create after that") &&
	       expect(stat(in_dir("rb/moved/h")), 0, "it is in rb/moved") &&
	       expect(create_at(fd, "moved/i"), 0, "openat(ra's old descriptor, O_CREAT)") &&
	       expect(stat(in_dir("rb/moved/i")), 0, "it is in rb/moved") &&
	       expect(syscall4(__NR_newfstatat, AT_FDCWD, L(""), L(&here), AT_EMPTY_PATH), 0,
		      "newfstatat(AT_FDCWD, \"\", AT_EMPTY_PATH): the cwd") &&
	       expect(syscall2(__NR_stat, L(in_dir("rb/moved")), L(&there)), 0, "stat rb/moved") &&
	       expect(here.st_ino == there.st_ino, 1, "the same directory") &&
	       expect(chdir(".."), 0, "chdir ..") && cwd_is("rb", "getcwd after chdir ..");
}

/*
 * A removed directory stays removed for those who hold it: a new folder
 * at its path is another one. Linux: ENOENT for lookups and creates in
 * it, for getcwd and for getdents64; its link count is 0; ".." still
 * leads where it was.
 */
static int test_removed_cwd(void)
{
	char buf[256];
	struct stat st;
	long fd;

	if (!expect(mkdir("x"), 0, "mkdir x") ||
	    !expect((fd = open("x", O_RDONLY | O_DIRECTORY, 0)) >= 0, 1, "open x") ||
	    !expect(chdir("x"), 0, "chdir x") || !expect(rmdir(in_dir("x")), 0, "rmdir the cwd") ||
	    !expect(mkdir(in_dir("x")), 0, "mkdir x again"))
		return 0;
	return expect(create("f"), -ENOENT, "a relative create in the removed cwd") &&
	       expect(mkdir("d"), -ENOENT, "a relative mkdir") &&
	       expect(create_at(fd, "f"), -ENOENT, "openat(the removed one's descriptor, O_CREAT)") &&
	       expect(openat(fd, "f", O_RDONLY, 0), -ENOENT, "openat(it, O_RDONLY)") &&
	       expect(stat(in_dir("x/f")) == -ENOENT && stat(in_dir("x/d")) == -ENOENT, 1,
		      "nothing landed in the new x") &&
	       expect(getcwd(buf, sizeof(buf)), -ENOENT, "getcwd of a removed cwd") &&
	       expect(syscall3(__NR_getdents64, fd, L(buf), sizeof(buf)), -ENOENT, "getdents64 of it") &&
	       expect(fstat(fd, &st), 0, "fstat of it") && expect(st.st_nlink, 0, "st_nlink") &&
	       expect(close(fd), 0, "close") &&
	       expect(chdir(".."), 0, "chdir .. from the removed cwd") && cwd_is("", "it led back") &&
	       expect(chdir(in_dir("x")), 0, "chdir to the new x") &&
	       expect(create("f"), 0, "a relative create there") &&
	       expect(stat(in_dir("x/f")), 0, "it is in the new x");
}

/* "." or ".." as the last component: rename EBUSY, rmdir EINVAL/ENOTEMPTY, unlink EISDIR, mkdir EEXIST. */
static int test_dot_last(void)
{
	if (!expect(mkdir("ra"), 0, "mkdir ra") || !expect(mkdir("ra/sub"), 0, "mkdir ra/sub") ||
	    !expect(mkdir("rc"), 0, "mkdir rc"))
		return 0;
	return expect(rename("ra/.", "rb"), -EBUSY, "rename(ra/., rb)") &&
	       expect(rename("ra/sub/..", "rb"), -EBUSY, "rename(ra/sub/.., rb)") &&
	       expect(rename("ra/sub", "rc/."), -EBUSY, "rename(ra/sub, rc/.)") &&
	       expect(rename("ra/sub", "rc/.."), -EBUSY, "rename(ra/sub, rc/..)") &&
	       expect(syscall4(__NR_renameat, AT_FDCWD, L("."), AT_FDCWD, L("rb")), -EBUSY,
		      "renameat(.)") &&
	       expect(stat("ra/sub") == 0 && stat("rb") == -ENOENT, 1, "ra is where it was") &&
	       expect(rmdir("ra/sub/."), -EINVAL, "rmdir(ra/sub/.)") &&
	       expect(rmdir("ra/sub/.."), -ENOTEMPTY, "rmdir(ra/sub/..)") &&
	       expect(unlink("ra/."), -EISDIR, "unlink(ra/.)") &&
	       expect(mkdir("ra/."), -EEXIST, "mkdir(ra/.)") &&
	       expect(mkdir("rc/.."), -EEXIST, "mkdir(rc/..)") &&
	       expect(rmdir("ra/sub/"), 0, "rmdir(ra/sub/)");
}

/* A name of 255 bytes is a name; 256 are ENAMETOOLONG, wherever they come. */
static int test_name_max(void)
{
	static char name[NAME_MAX + 2], name2[NAME_MAX + 1], under[NAME_MAX + 8];

	memset(name, 'n', NAME_MAX);
	memset(name2, 'm', NAME_MAX);
	snprintf(under, sizeof(under), "%s/x", name2);
	if (!expect(create(name), 0, "create a 255-byte name") || !expect(stat(name), 0, "stat it") ||
	    !expect(mkdir(name2), 0, "mkdir a 255-byte name") || !expect(create(under), 0, "a file in it") ||
	    !expect(chdir(name2), 0, "chdir into it") || !expect(chdir(".."), 0, "and out"))
		return 0;
	name[NAME_MAX] = 'n';
	return expect(create(name), -ENAMETOOLONG, "create a 256-byte name") &&
	       expect(stat(name), -ENAMETOOLONG, "stat of one") &&
	       expect(mkdir(name), -ENAMETOOLONG, "mkdir of one") &&
	       expect(rename(name2, name), -ENAMETOOLONG, "rename to one") &&
	       expect(unlink(under), 0, "unlink") && expect(rmdir(name2), 0, "rmdir");
}

/* depth folders of LONG_NAME bytes, then a file of len bytes if len (no slash at the end). */
static char *deep_path(char *buf, int depth, int len)
{
	int i, at = 0;

	for (i = 0; i < depth; i++) {
		memset(buf + at, 'd', LONG_NAME);
		buf[at + LONG_NAME] = '/';
		at += LONG_NAME + 1;
	}
	memset(buf + at, 'f', len);
	buf[len ? at + len : at - 1] = 0;
	return buf;
}

/* 4095 bytes and a NUL are a path (PATH_MAX, as Linux); 4096 bytes are ENAMETOOLONG. */
static int test_path_max(void)
{
	static char path[PATH_MAX + 1];
	int depth = (PATH_MAX - 1) / (LONG_NAME + 1), i;	/* 20, and a file of 75 bytes */
	int file = PATH_MAX - 1 - depth * (LONG_NAME + 1);

	for (i = 1; i <= depth; i++)
		if (!expect(mkdir(deep_path(path, i, 0)), 0, "mkdir a folder deeper each time"))
			return 0;
	if (!expect(create(deep_path(path, depth, file)), 0, "create by a path of 4095 bytes") ||
	    !expect(strlen(path), PATH_MAX - 1, "its length") ||
	    !expect(stat(path), 0, "stat by it") || !expect(unlink(path), 0, "unlink by it") ||
	    !expect(create(deep_path(path, depth, file + 1)), -ENAMETOOLONG, "a path of 4096 bytes") ||
	    !expect(stat(path), -ENAMETOOLONG, "stat by it"))
		return 0;
	for (i = depth; i >= 1; i--)
		if (!expect(rmdir(deep_path(path, i, 0)), 0, "rmdir the deepest"))
			return 0;
	return 1;
}

/*
 * Renames of short paths can build a tree whose leaf lies deeper than any
 * path may reach (24 folders of 200 bytes: 4,824 bytes). It can still be
 * walked into and removed, a folder at a time from the working directory.
 */
static int test_deep_tree_by_renames(void)
{
	static char name[LONG_NAME + 1], to[LONG_NAME + 8];
	char buf[PATH_MAX];
	int depth = 24, i;

	memset(name, 'd', LONG_NAME);
	snprintf(to, sizeof(to), "new/%s", name);
	if (!expect(mkdir("top"), 0, "mkdir top"))
		return 0;
	for (i = 0; i < depth; i++)
		if (!expect(mkdir("new"), 0, "mkdir new") || !expect(rename("top", to), 0, "rename top new/D") ||
		    !expect(rename("new", "top"), 0, "rename new top"))
			return 0;
	if (!expect(chdir("top"), 0, "chdir top"))
		return 0;
	for (i = 0; i < depth; i++)
		if (!expect(chdir(name), 0, "chdir a level down"))
			return 0;
	if (!expect(create("leaf"), 0, "create at the bottom") ||
	    !expect(getcwd(buf, sizeof(buf)), -ENAMETOOLONG, "getcwd of a cwd deeper than PATH_MAX") ||
	    !expect(unlink("leaf"), 0, "unlink it"))
		return 0;
	for (i = 0; i < depth; i++)
		if (!expect(chdir(".."), 0, "chdir ..") || !expect(rmdir(name), 0, "rmdir the level below"))
			return 0;
	return cwd_is("top", "back in top") && expect(chdir(".."), 0, "chdir ..") &&
	       expect(rmdir("top"), 0, "rmdir top");
}

/* A child has its parent's working directory, and exec keeps it: a directory, not a name. */
static int test_fork_exec_keep_cwd(void)
{
	long pid;
	int status;

	if (self[0] != '/')
		return skip("argv[0] is a relative path");
	if (!expect(mkdir("ex"), 0, "mkdir ex") || !expect(chdir("ex"), 0, "chdir ex") ||
	    !expect(rename(in_dir("ex"), in_dir("ex2")), 0, "rename ex ex2"))
		return 0;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { (char *)self, "create-here", NULL };

		execve(self, argv, NULL);
		exit_group(1);
	}
	if (pid < 0 || wait4(pid, &status, 0, NULL) != pid)
		return ktap_fail("fork or wait4 failed");
	return expect_exit(status, 42, "the child's exec created its file") &&
	       expect(stat(in_dir("ex2/made-by-child")), 0, "it is in ex2");
}

/*
 * Working directories and descriptors of removed folders, in processes
 * that exit: 100 rounds leave MemFree where it was (ccos: exact; a node
 * and its name kept each round would be 19 kB).
 */
static int test_no_leak(void)
{
	long before = 0, pid, fd;
	int i, status;

	if (!on_ccos())
		return skip("MemFree is the whole host's");
	for (i = 0; i < 102; i++) {
		if (i == 2) {
			own_memory();	/* the pages fork shares with the runner (ktap.c) */
			before = meminfo_kb("MemFree");	/* the heap's classes have filled */
		}
		if (mkdir("w") || (fd = open("w", O_RDONLY | O_DIRECTORY, 0)) < 0 || chdir("w"))
			return ktap_fail("round %d: mkdir, open or chdir failed", i);
		if ((pid = fork()) == 0)
			exit_group(rmdir(in_dir("w")) == 0 ? 0 : 1);
		if (pid < 0 || wait4(pid, &status, 0, NULL) != pid || status)
			return ktap_fail("round %d: the child did not remove w", i);
		if (chdir(test_dir) || close(fd))
			return ktap_fail("round %d: chdir or close failed", i);
	}
	return expect(meminfo_kb("MemFree"), before, "MemFree after 100 rounds");
}

static const struct test tests[] = {
	{ "rename_keeps_cwd_and_dirfd", test_rename_keeps_cwd },
	{ "removed_cwd_and_dirfd_enoent", test_removed_cwd },
	{ "dot_or_dotdot_last_ebusy", test_dot_last },
	{ "name_255_ok_256_enametoolong", test_name_max },
	{ "path_4095_ok_4096_enametoolong", test_path_max },
	{ "deep_tree_by_renames_removable", test_deep_tree_by_renames },
	{ "fork_and_exec_keep_cwd", test_fork_exec_keep_cwd, 1 },
	{ "removed_cwds_no_leak", test_no_leak },
};

/* rm -r of this run's folder: what a failed case left, below its working directory. */
static void remove_tree(int depth)
{
	char buf[2048];
	long fd = open(".", O_RDONLY | O_DIRECTORY, 0), n, off;

	while (fd >= 0 && (n = syscall3(__NR_getdents64, fd, L(buf), sizeof(buf))) > 0)
		for (off = 0; off < n; off += *(unsigned short *)(buf + off + 16)) {
			const char *name = buf + off + 19;

			if (!strcmp(name, ".") || !strcmp(name, ".."))
				continue;
			if (buf[off + 18] == 4 && depth < 40 && chdir(name) == 0) {
				remove_tree(depth + 1);
				chdir("..");
			}
			syscall3(__NR_unlinkat, AT_FDCWD, L(name), buf[off + 18] == 4 ? AT_REMOVEDIR : 0);
		}
	close(fd);
}

int main(int argc, char **argv, char **envp)
{
	unsigned long i;
	int failed = 0;

	(void)envp;
	if (argc == 2 && !strcmp(argv[1], "create-here"))
		return create("made-by-child") == 0 ? 42 : 1;
	find_self(argv[0]);
	snprintf(test_dir, sizeof(test_dir), "/tmp/syspath.%ld", getpid());
	if (mkdir(test_dir) < 0 || chdir(test_dir) < 0) {
		printf("syspath: cannot make %s\n", test_dir);
		return 1;
	}
	ktap_plan(ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (tests[i].needs_self && !self)
			ktap_skip("argv[0] is not a path to this program's file", tests[i].name);
		else
			failed |= !run_case(tests[i].name, tests[i].run, tests[i].seconds);
		remove_tree(0);
	}
	chdir("/");
	rmdir(test_dir);
	return ktap_done() || failed;
}
