/* muslcred: an unmodified static musl program: users, groups and capabilities, as root and as nobody, with Linux's answers. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/fsuid.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "ktap.h"

/*
 * Every case starts as root (the test boots' init, the host's root) in a
 * child of its own (run_case), so a case may drop to nobody (65534) or to
 * another user and never come back, as a program that drops its
 * privileges must not. The answers are Linux's (kernel/sys.c,
 * kernel/capability.c, security/commoncap.c), on ccos and on the host.
 */

#define NOBODY		65534
#define CAP_V1		0x19980330
#define CAP_V3		0x20080522
#define CAP_CHOWN	0
#define CAP_DAC_OVERRIDE 1
#define CAP_KILL	5
#define CAP_SETUID	7
#define CAP_SYS_NICE	23

struct cap_header {
	uint32_t version;
	int pid;
};

struct cap_data {
	uint32_t effective, permitted, inheritable;
};

static int need_root(void)
{
	return getuid() == 0 && geteuid() == 0 ? 1 : skip("not run as root: the cases start as root and drop");
}

/* The effective and permitted sets, 64 bits each. */
static int caps(uint64_t *eff, uint64_t *prm)
{
	struct cap_header h = { CAP_V3, 0 };
	struct cap_data d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	return 0;
}

/* The bounding set, as root's full set: PR_CAPBSET_READ of each capability until EINVAL. */
static uint64_t bounding_set(void)
{
	uint64_t set = 0;
	int c, r;

	for (c = 0; c < 64 && (r = prctl(PR_CAPBSET_READ, c, 0, 0, 0)) >= 0; c++)
		set |= (uint64_t)r << c;
	return set;
}

/* A line of /proc/self/status ("Uid:"), its value after the tab, into buf. */
static int status_line(const char *key, char *buf, size_t size)
{
	char text[4096], *line;
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	size_t klen = strlen(key);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return -1;
	text[n] = 0;
	for (line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			line += klen + 2;
			n = strchrnul(line, '\n') - line;
			snprintf(buf, size, "%.*s", (int)n, line);
			return 0;
		}
	return -1;
}

static int status_is(const char *key, const char *want)
{
	char got[256];

	if (status_line(key, got, sizeof(got)))
		return ktap_fail("no %s line in /proc/self/status", key);
	return strcmp(got, want) ? ktap_fail("/proc/self/status %s: \"%s\", not \"%s\"", key, got, want) : 1;
}

static int resuid_is(uid_t r, uid_t e, uid_t s)
{
	uid_t a, b, c;

	if (getresuid(&a, &b, &c))
		return ktap_fail("getresuid: %s", strerror(errno));
	if (a != r || b != e || c != s)
		return ktap_fail("uids %u %u %u, not %u %u %u", a, b, c, r, e, s);
	return 1;
}

static int drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
		return ktap_fail("dropping to nobody: %s", strerror(errno));
	return 1;
}

/* An error expected from a call: its return -1 and errno. */
#define EXPECT_ERR(call, err) ({					\
	long r_ = (call);						\
	r_ == -1 && errno == (err) ? 1 :				\
		ktap_fail("%s: %ld (%s), not %s", #call, r_, strerror(errno), strerror(err)); \
})

/* ---- the ids ---- */

static int test_root_holds_every_capability(void)
{
	uint64_t eff = 0, prm = 0, bset = bounding_set();

	if (need_root() != 1)
		return SKIPPED;
	if (caps(&eff, &prm))
		return ktap_fail("capget: %s", strerror(errno));
	if (!(bset & (1ull << CAP_SETUID)) || !(bset & (1ull << CAP_KILL)))
		return ktap_fail("the bounding set %#lx lacks CAP_SETUID or CAP_KILL", (unsigned long)bset);
	if (eff != bset || prm != bset)
		return ktap_fail("root's effective %#lx and permitted %#lx, not the bounding set %#lx",
				 (unsigned long)eff, (unsigned long)prm, (unsigned long)bset);
	return resuid_is(0, 0, 0) && status_is("Uid", "0\t0\t0\t0") && status_is("Gid", "0\t0\t0\t0");
}

static int test_setresuid_sets_each_and_status_shows_them(void)
{
	gid_t a, b, c;

	if (need_root() != 1)
		return SKIPPED;
	if (setresgid(10, 11, 12) || setresuid(1000, 1001, 1002))
		return ktap_fail("setresgid, setresuid: %s", strerror(errno));
	if (getresgid(&a, &b, &c) || a != 10 || b != 11 || c != 12)
		return ktap_fail("gids %u %u %u, not 10 11 12", a, b, c);
	if (getuid() != 1000 || geteuid() != 1001 || getgid() != 10 || getegid() != 11)
		return ktap_fail("getuid %u geteuid %u getgid %u getegid %u", getuid(), geteuid(), getgid(), getegid());
	return resuid_is(1000, 1001, 1002) && status_is("Uid", "1000\t1001\t1002\t1001") &&
	       status_is("Gid", "10\t11\t12\t11");
}

static int test_nobody_cannot_become_root_again(void)
{
	uint64_t eff = 0, prm = 0;

	if (need_root() != 1)
		return SKIPPED;
	if (!drop_to_nobody())
		return 0;
	if (!resuid_is(NOBODY, NOBODY, NOBODY))
		return 0;
	if (caps(&eff, &prm) || eff || prm)
		return ktap_fail("nobody's capabilities %#lx %#lx, not none", (unsigned long)eff, (unsigned long)prm);
	return EXPECT_ERR(setuid(0), EPERM) && EXPECT_ERR(setreuid(-1, 0), EPERM) &&
	       EXPECT_ERR(setreuid(0, -1), EPERM) && EXPECT_ERR(setresuid(-1, -1, 0), EPERM) &&
	       EXPECT_ERR(setgid(0), EPERM) && EXPECT_ERR(setresgid(0, -1, -1), EPERM) &&
	       EXPECT_ERR(setgroups(0, NULL), EPERM) && setfsuid(0) == NOBODY && setfsuid(-1) == NOBODY &&
	       status_is("Uid", "65534\t65534\t65534\t65534") && status_is("CapEff", "0000000000000000") &&
	       resuid_is(NOBODY, NOBODY, NOBODY);
}

/* An unprivileged thread moves each id among the three it holds: a saved 0 gets root back. */
static int test_saved_root_gives_root_back(void)
{
	uint64_t eff = 0, prm = 0, bset = bounding_set();

	if (need_root() != 1)
		return SKIPPED;
	if (setresuid(1000, NOBODY, 0))
		return ktap_fail("setresuid(1000, 65534, 0): %s", strerror(errno));
	if (caps(&eff, &prm) || eff || prm != bset)
		return ktap_fail("with euid 65534 and saved 0: effective %#lx permitted %#lx",
				 (unsigned long)eff, (unsigned long)prm);
	if (!EXPECT_ERR(setresuid(-1, 2000, -1), EPERM) || !EXPECT_ERR(setuid(2000), EPERM))
		return 0;
	if (setreuid(-1, 1000) || !resuid_is(1000, 1000, 0))	/* e to the real id: saved stays */
		return ktap_fail("setreuid(-1, 1000): %s", strerror(errno));
	if (seteuid(0) || caps(&eff, &prm) || eff != bset)
		return ktap_fail("seteuid(0) with saved 0: %s, effective %#lx", strerror(errno), (unsigned long)eff);
	/* setreuid with a real id sets the saved one to the new effective: no way back. */
	if (setreuid(1000, 1000) || !resuid_is(1000, 1000, 1000))
		return 0;
	if (caps(&eff, &prm) || eff || prm)
		return ktap_fail("after leaving uid 0 for good: %#lx %#lx", (unsigned long)eff, (unsigned long)prm);
	return EXPECT_ERR(seteuid(0), EPERM);
}

static int test_minus_one_is_unchanged_or_invalid(void)
{
	if (need_root() != 1)
		return SKIPPED;
	if (!EXPECT_ERR(setuid(-1), EINVAL) || !EXPECT_ERR(setgid(-1), EINVAL))
		return 0;
	if (setresuid(-1, -1, -1) || setreuid(-1, -1) || setresgid(-1, -1, -1) || setregid(-1, -1))
		return ktap_fail("-1 everywhere: %s", strerror(errno));
	if (!resuid_is(0, 0, 0) || !drop_to_nobody())
		return 0;
	return EXPECT_ERR(setuid(-1), EINVAL) && setresuid(-1, -1, -1) == 0 && resuid_is(NOBODY, NOBODY, NOBODY);
}

static int test_setuid_as_root_sets_all_four(void)
{
	if (need_root() != 1)
		return SKIPPED;
	if (setgid(NOBODY) || setuid(NOBODY))
		return ktap_fail("setgid, setuid(65534): %s", strerror(errno));
	return resuid_is(NOBODY, NOBODY, NOBODY) && status_is("Uid", "65534\t65534\t65534\t65534") &&
	       status_is("Gid", "65534\t65534\t65534\t65534") && EXPECT_ERR(setuid(0), EPERM);
}

static int test_groups_sorted_counted_bounded(void)
{
	gid_t set[3] = { 50, 7, 1000 }, got[4];
	static gid_t many[65537];

	if (need_root() != 1)
		return SKIPPED;
	if (!EXPECT_ERR(setgroups(65537, many), EINVAL) || !EXPECT_ERR(setgroups(-1, many), EINVAL))
		return 0;
	set[1] = -1;
	if (!EXPECT_ERR(setgroups(3, set), EINVAL))
		return 0;
	set[1] = 7;
	if (!EXPECT_ERR(setgroups(3, (gid_t *)8), EFAULT))
		return 0;
	if (setgroups(3, set))
		return ktap_fail("setgroups of 3: %s", strerror(errno));
	if (getgroups(0, NULL) != 3 || !EXPECT_ERR(getgroups(2, got), EINVAL) || !EXPECT_ERR(getgroups(-1, got), EINVAL))
		return ktap_fail("getgroups(0) %d", getgroups(0, NULL));
	if (getgroups(4, got) != 3 || got[0] != 7 || got[1] != 50 || got[2] != 1000)
		return ktap_fail("getgroups: %u %u %u, not 7 50 1000 (sorted)", got[0], got[1], got[2]);
	if (!status_is("Groups", "7 50 1000 ") || setgroups(65536, many) || getgroups(0, NULL) != 65536)
		return ktap_fail("65536 groups: %s", strerror(errno));
	return setgroups(0, NULL) == 0 && getgroups(0, NULL) == 0 && status_is("Groups", " ");
}

/* The fs uid follows the effective one, or setfsuid; leaving 0 takes the file capabilities only. */
static int test_setfsuid_answers_the_old_one(void)
{
	uint64_t eff = 0, prm = 0;

	if (need_root() != 1)
		return SKIPPED;
	if (setfsuid(1000) != 0 || setfsuid(-1) != 1000 || !status_is("Uid", "0\t0\t0\t1000"))
		return ktap_fail("setfsuid(1000) then setfsuid(-1): fs uid %d", setfsuid(-1));
	if (caps(&eff, &prm) || (eff & (1ull << CAP_DAC_OVERRIDE)) || (eff & (1ull << CAP_CHOWN)) ||
	    !(eff & (1ull << CAP_KILL)))
		return ktap_fail("with fs uid 1000, effective %#lx: CAP_CHOWN and CAP_DAC_OVERRIDE go, CAP_KILL stays",
				 (unsigned long)eff);
	if (setfsuid(0) != 1000 || caps(&eff, &prm) || eff != prm)
		return ktap_fail("setfsuid(0) back: effective %#lx permitted %#lx", (unsigned long)eff, (unsigned long)prm);
	if (setfsgid(33) != 0 || setfsgid(-1) != 33 || !status_is("Gid", "0\t0\t0\t33"))
		return 0;
	if (!drop_to_nobody())
		return 0;
	return setfsuid(0) == NOBODY && setfsuid(-1) == NOBODY && setfsgid(0) == NOBODY && setfsgid(-1) == NOBODY;
}

static int test_keepcaps_keeps_permitted(void)
{
	uint64_t eff = 0, prm = 0, bset = bounding_set();

	if (need_root() != 1)
		return SKIPPED;
	if (prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0) != 0 || prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
	    prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0) != 1 || !EXPECT_ERR(prctl(PR_SET_KEEPCAPS, 2, 0, 0, 0), EINVAL))
		return ktap_fail("PR_SET_KEEPCAPS");
	if (setresuid(1000, 1000, 1000) || caps(&eff, &prm))
		return ktap_fail("setresuid(1000...): %s", strerror(errno));
	return eff == 0 && prm == bset ? 1 : ktap_fail("with keepcaps: effective %#lx permitted %#lx",
						       (unsigned long)eff, (unsigned long)prm);
}

/* ---- capget, capset ---- */

static int test_capget_versions_and_errors(void)
{
	struct cap_header h = { 0x12345678, 0 };
	struct cap_data d[2];

	if (!EXPECT_ERR(syscall(SYS_capget, &h, d), EINVAL) || h.version != CAP_V3)
		return ktap_fail("a bad version: the kernel's %#x written back", h.version);
	h.version = 0x1234;
	if (syscall(SYS_capget, &h, NULL) != 0 || h.version != CAP_V3)
		return ktap_fail("capget(bad, NULL) probes the version: %#x", h.version);
	h = (struct cap_header){ CAP_V3, -1 };
	if (!EXPECT_ERR(syscall(SYS_capget, &h, d), EINVAL))
		return 0;
	h = (struct cap_header){ CAP_V3, 1 };	/* init's */
	if (syscall(SYS_capget, &h, d))
		return ktap_fail("capget of pid 1: %s", strerror(errno));
	h = (struct cap_header){ CAP_V3, 0x3fffffff };
	if (!EXPECT_ERR(syscall(SYS_capget, &h, d), ESRCH))
		return 0;
	h = (struct cap_header){ CAP_V1, 0 };
	d[1].effective = 0xdeadbeef;
	return syscall(SYS_capget, &h, d) == 0 && d[1].effective == 0xdeadbeef ? 1 :
	       ktap_fail("v1 copies one block only");
}

static int test_capset_never_more_than_held(void)
{
	struct cap_header h = { CAP_V3, 0 };
	struct cap_data d[2];
	uint64_t eff = 0, prm = 0;

	if (need_root() != 1)
		return SKIPPED;
	syscall(SYS_capget, &h, d);
	d[0].effective &= ~(1u << CAP_SYS_NICE);
	if (syscall(SYS_capset, &h, d) || caps(&eff, &prm) || (eff & (1u << CAP_SYS_NICE)) || !(prm & (1u << CAP_SYS_NICE)))
		return ktap_fail("capset dropping CAP_SYS_NICE from effective: %s", strerror(errno));
	d[0].effective |= 1u << CAP_SYS_NICE;	/* back: still permitted */
	if (syscall(SYS_capset, &h, d))
		return ktap_fail("capset raising a permitted one: %s", strerror(errno));
	d[0].permitted &= ~(1u << CAP_SYS_NICE);
	if (!EXPECT_ERR(syscall(SYS_capset, &h, d), EPERM))	/* effective not within permitted */
		return 0;
	d[0].effective &= ~(1u << CAP_SYS_NICE);
	if (syscall(SYS_capset, &h, d))
		return ktap_fail("capset dropping CAP_SYS_NICE: %s", strerror(errno));
	d[0].permitted |= 1u << CAP_SYS_NICE;
	if (!EXPECT_ERR(syscall(SYS_capset, &h, d), EPERM))	/* never gained back */
		return 0;
	h.pid = 1;
	d[0].permitted &= ~(1u << CAP_SYS_NICE);
	if (!EXPECT_ERR(syscall(SYS_capset, &h, d), EPERM))	/* another's */
		return 0;
	h = (struct cap_header){ CAP_V3, 0 };
	if (!drop_to_nobody())
		return 0;
	d[0] = (struct cap_data){ 1u << CAP_KILL, 1u << CAP_KILL, 0 };
	d[1] = (struct cap_data){ 0 };
	return EXPECT_ERR(syscall(SYS_capset, &h, d), EPERM);
}

static int test_no_new_privs_sticks(void)
{
	pid_t pid;
	int status;

	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 0 || !status_is("NoNewPrivs", "0"))
		return ktap_fail("NO_NEW_PRIVS set at the start");
	if (!EXPECT_ERR(prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0), EINVAL) ||
	    !EXPECT_ERR(prctl(PR_SET_NO_NEW_PRIVS, 1, 1, 0, 0), EINVAL) ||
	    !EXPECT_ERR(prctl(PR_GET_NO_NEW_PRIVS, 1, 0, 0, 0), EINVAL))
		return 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return ktap_fail("PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
	if ((pid = fork()) == 0)
		_exit(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return ktap_fail("a child of a NO_NEW_PRIVS process does not have it: status %#x", status);
	return status_is("NoNewPrivs", "1");
}

static int test_fork_inherits_credentials(void)
{
	gid_t g[2] = { 4, 5 };
	pid_t pid;
	int status;

	if (need_root() != 1)
		return SKIPPED;
	if (setgroups(2, g) || setresgid(20, 21, 22) || setresuid(1000, 1001, 1002))
		return ktap_fail("setting ids: %s", strerror(errno));
	if ((pid = fork()) == 0) {
		uid_t r, e, s;

		getresuid(&r, &e, &s);
		_exit(r == 1000 && e == 1001 && s == 1002 && getgid() == 20 && getgroups(0, NULL) == 2 ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return ktap_fail("the child's ids differ: status %#x", status);
	return 1;
}

/* ---- files ---- */

static char dir[64], priv[80], pub[80], inner[80];

/* As root: DIR (0755) with PRIV (0600) and PUB (0644, a byte in it) in /tmp, and INNER in a 0700 directory. */
static int make_files(void)
{
	char sub[80];
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/muslcred.%d", getpid());
	snprintf(priv, sizeof(priv), "%s/priv", dir);
	snprintf(pub, sizeof(pub), "/tmp/muslcred.%d.pub", getpid());
	snprintf(sub, sizeof(sub), "%s/closed", dir);
	snprintf(inner, sizeof(inner), "%s/closed/inner", dir);
	umask(022);
	if (mkdir(dir, 0755) || mkdir(sub, 0700) || (fd = open(priv, O_CREAT | O_WRONLY, 0600)) < 0)
		return ktap_fail("making %s: %s", dir, strerror(errno));
	close(fd);
	if ((fd = open(pub, O_CREAT | O_WRONLY, 0644)) < 0 || write(fd, "x", 1) != 1 ||
	    close(fd) || (fd = open(inner, O_CREAT | O_WRONLY, 0644)) < 0)
		return ktap_fail("making %s: %s", pub, strerror(errno));
	close(fd);
	return 1;
}

static void remove_files(void)
{
	char sub[80];

	snprintf(sub, sizeof(sub), "%s/closed", dir);
	unlink(inner);
	rmdir(sub);
	unlink(priv);
	rmdir(dir);
	unlink(pub);
}

/* The checks nobody meets, in a child so that root can clean up after. */
static int nobody_checks(void)
{
	char mine[96], buf[1];
	struct stat st;
	int fd;

	if (!drop_to_nobody())
		return 0;
	snprintf(mine, sizeof(mine), "%s.nobody", dir);
	if (!EXPECT_ERR(open(priv, O_RDONLY), EACCES) || !EXPECT_ERR(open(pub, O_WRONLY), EACCES) ||
	    !EXPECT_ERR(open(pub, O_RDONLY | O_TRUNC), EACCES) || !EXPECT_ERR(truncate(pub, 0), EACCES) ||
	    !EXPECT_ERR(open(inner, O_RDONLY), EACCES) || !EXPECT_ERR(stat(inner, &st), EACCES) ||
	    !EXPECT_ERR(access(priv, R_OK), EACCES) || !EXPECT_ERR(access(pub, W_OK), EACCES))
		return 0;
	if ((fd = open(pub, O_RDONLY)) < 0 || read(fd, buf, 1) != 1 || close(fd) || access(pub, R_OK))
		return ktap_fail("reading a 0644 file: %s", strerror(errno));
	if (!EXPECT_ERR(open(priv, O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST) ||
	    !EXPECT_ERR(mkdir(priv, 0755), EEXIST))
		return 0;
	{
		char inside[96];

		snprintf(inside, sizeof(inside), "%s/new", dir);
		if (!EXPECT_ERR(open(inside, O_CREAT | O_WRONLY, 0644), EACCES) ||
		    !EXPECT_ERR(mkdir(inside, 0755), EACCES) || !EXPECT_ERR(unlink(priv), EACCES) ||
		    !EXPECT_ERR(rename(priv, inside), EACCES))
			return 0;
	}
	if (!EXPECT_ERR(chmod(pub, 0666), EPERM) || !EXPECT_ERR(chown(pub, NOBODY, -1), EPERM) ||
	    !EXPECT_ERR(chown(pub, -1, NOBODY), EPERM) || !EXPECT_ERR(utimensat(AT_FDCWD, pub, NULL, 0), EACCES) ||
	    !EXPECT_ERR(utimensat(AT_FDCWD, pub, (struct timespec[]){ { 1, 0 }, { 1, 0 } }, 0), EPERM) ||
	    !EXPECT_ERR(unlink(pub), EPERM) || !EXPECT_ERR(rename(pub, mine), EPERM))
		return 0;
	/* Its own file in /tmp: its owner and group, its to change, remove. */
	if ((fd = open(mine, O_CREAT | O_WRONLY, 0600)) < 0 || fstat(fd, &st) || close(fd))
		return ktap_fail("nobody creating %s in /tmp: %s", mine, strerror(errno));
	if (st.st_uid != NOBODY || st.st_gid != NOBODY)
		return ktap_fail("nobody's new file is owned by %u:%u", st.st_uid, st.st_gid);
	if (chmod(mine, 0644) || utimensat(AT_FDCWD, mine, (struct timespec[]){ { 1, 0 }, { 1, 0 } }, 0) ||
	    !EXPECT_ERR(chown(mine, 0, -1), EPERM) || chown(mine, NOBODY, NOBODY) || unlink(mine))
		return ktap_fail("nobody changing its own file: %s", strerror(errno));
	return 1;
}

static int test_nobody_meets_the_mode_bits(void)
{
	int status, ok;
	pid_t pid;

	if (need_root() != 1)
		return SKIPPED;
	if (!make_files())
		return 0;
	if ((pid = fork()) == 0)
		_exit(nobody_checks() ? 0 : 1);
	ok = pid > 0 && waitpid(pid, &status, 0) == pid && status == 0;
	/* root passes them all */
	if (ok && (access(priv, R_OK | W_OK) || open(inner, O_RDONLY) < 0 || chmod(pub, 0640)))
		ok = ktap_fail("root refused: %s", strerror(errno));
	remove_files();
	return ok ? 1 : ktap_fail("%s", "nobody's checks failed (above)");
}

/* access asks with the real ids, AT_EACCESS with the effective ones. */
static int test_access_uses_the_real_ids(void)
{
	int ok;

	if (need_root() != 1)
		return SKIPPED;
	if (!make_files())
		return 0;
	ok = setresuid(NOBODY, 0, 0) == 0 && EXPECT_ERR(access(priv, R_OK), EACCES) &&
	     faccessat(AT_FDCWD, priv, R_OK, AT_EACCESS) == 0 && open(priv, O_RDONLY) >= 0;
	setresuid(0, 0, 0);
	remove_files();
	return ok;
}

static int test_chown_drops_setuid_and_setgid_dirs_pass_their_group(void)
{
	char file[96], sub[96];
	struct stat st;
	int fd, ok;

	if (need_root() != 1)
		return SKIPPED;
	snprintf(dir, sizeof(dir), "/tmp/muslcred.%d", getpid());
	snprintf(file, sizeof(file), "%s/f", dir);
	snprintf(sub, sizeof(sub), "%s/d", dir);
	umask(0);
	if (mkdir(dir, 0777) || chown(dir, -1, 50) || chmod(dir, 02777))
		return ktap_fail("a setgid directory: %s", strerror(errno));
	ok = (fd = open(file, O_CREAT | O_WRONLY, 06755)) >= 0 && !fstat(fd, &st) && !close(fd) &&
	     mkdir(sub, 0755) == 0;
	if (!ok)
		ok = ktap_fail("creating in it: %s", strerror(errno));
	else if (st.st_gid != 50 || (st.st_mode & 07777) != 06755)
		ok = ktap_fail("a new file in a setgid directory of group 50: group %u mode %o", st.st_gid, st.st_mode);
	else if (stat(sub, &st) || st.st_gid != 50 || !(st.st_mode & S_ISGID))
		ok = ktap_fail("a new directory in it: group %u mode %o (setgid too, as Linux)", st.st_gid, st.st_mode);
	else if (chown(file, -1, -1) || stat(file, &st) || (st.st_mode & 07777) != 0755)
		ok = ktap_fail("root's chown(-1, -1) leaves mode %o, not 0755", st.st_mode & 07777);
	unlink(file);
	rmdir(sub);
	rmdir(dir);
	return ok;
}

/* ---- signals ---- */

static int test_nobody_cannot_signal_root(void)
{
	union sigval v = { 0 };
	pid_t root = getppid();		/* the runner, root */

	if (need_root() != 1)
		return SKIPPED;
	if (kill(root, 0))
		return ktap_fail("root's kill(parent, 0): %s", strerror(errno));
	if (!drop_to_nobody())
		return 0;
	return EXPECT_ERR(kill(1, SIGTERM), EPERM) && EXPECT_ERR(kill(root, 0), EPERM) &&
	       EXPECT_ERR(syscall(SYS_tgkill, root, root, SIGUSR1), EPERM) &&
	       EXPECT_ERR(syscall(SYS_tkill, 1, 0), EPERM) && EXPECT_ERR(sigqueue(root, SIGUSR1, v), EPERM) &&
	       kill(getpid(), 0) == 0;
}

/* ---- limits and the clock ---- */

static int test_nobody_cannot_raise_limits_or_set_the_clock(void)
{
	struct rlimit lim, low;
	struct timespec now;
	struct timeval tv;

	if (need_root() != 1)
		return SKIPPED;
	if (getrlimit(RLIMIT_SIGPENDING, &lim) || !drop_to_nobody())
		return ktap_fail("getrlimit: %s", strerror(errno));
	clock_gettime(CLOCK_REALTIME, &now);
	tv = (struct timeval){ now.tv_sec, 2000000 };
	if (!EXPECT_ERR(settimeofday(&tv, NULL), EINVAL))	/* checked before the capability, as Linux */
		return 0;
	tv.tv_usec = 0;
	if (!EXPECT_ERR(settimeofday(&tv, NULL), EPERM) || !EXPECT_ERR(clock_settime(CLOCK_REALTIME, &now), EPERM))
		return 0;
	low = (struct rlimit){ lim.rlim_cur / 2, lim.rlim_max / 2 };
	if (setrlimit(RLIMIT_SIGPENDING, &low))
		return ktap_fail("lowering RLIMIT_SIGPENDING: %s", strerror(errno));
	if (!EXPECT_ERR(setrlimit(RLIMIT_SIGPENDING, &lim), EPERM) || !EXPECT_ERR(prlimit(1, RLIMIT_SIGPENDING, &low, NULL), EPERM))
		return 0;
	low.rlim_cur = 1;
	return setrlimit(RLIMIT_SIGPENDING, &low) == 0 ? 1 : ktap_fail("the soft limit under the hard: %s", strerror(errno));
}

/* ---- exec ---- */

/* Run as "muslcred auxv": 0 if the auxiliary vector says ruid 1000, euid 0, AT_SECURE, and root's capabilities are there. */
static int auxv_check(void)
{
	uint64_t eff = 0, prm = 0;

	if (getauxval(AT_UID) != 1000 || getauxval(AT_EUID) != 0 || getauxval(AT_SECURE) != 1)
		return 1;
	return caps(&eff, &prm) || eff != bounding_set() ? 2 : 0;
}

static int test_exec_with_effective_root_is_secure(void)
{
	char *argv[] = { "muslcred", "auxv", NULL };
	int status;
	pid_t pid;

	if (need_root() != 1)
		return SKIPPED;
	if (getauxval(AT_SECURE) || getauxval(AT_UID) || getauxval(AT_EUID))
		return ktap_fail("root's own start: AT_SECURE %lu AT_UID %lu", getauxval(AT_SECURE), getauxval(AT_UID));
	if ((pid = fork()) == 0) {
		if (setresuid(1000, 0, 0) == 0)
			execv("/proc/self/exe", argv);
		_exit(3);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return ktap_fail("exec with real uid 1000, effective 0: status %#x (1: auxv, 2: capabilities, 3: exec)",
				 status);
	return 1;
}

/* ---- nice ---- */

static int test_nice_lower_needs_cap_sys_nice(void)
{
	pid_t root = getppid();

	if (need_root() != 1)
		return SKIPPED;
	errno = 0;
	if (getpriority(PRIO_PROCESS, 0) != 0 || errno)
		return ktap_fail("the case starts at nice %d (%s)", getpriority(PRIO_PROCESS, 0), strerror(errno));
	if (setpriority(PRIO_PROCESS, 0, -5) || getpriority(PRIO_PROCESS, 0) != -5 ||
	    setpriority(PRIO_PROCESS, 0, 100) || getpriority(PRIO_PROCESS, 0) != 19)
		return ktap_fail("root's nice -5, then 100 (clamped to 19): %d", getpriority(PRIO_PROCESS, 0));
	if (setpriority(PRIO_PROCESS, 0, 5) || !EXPECT_ERR(setpriority(3, 0, 0), EINVAL) ||
	    !EXPECT_ERR(setpriority(PRIO_PROCESS, 0x3fffffff, 0), ESRCH) || !drop_to_nobody())
		return 0;
	return setpriority(PRIO_PROCESS, 0, 10) == 0 && getpriority(PRIO_PROCESS, 0) == 10 &&
	       EXPECT_ERR(setpriority(PRIO_PROCESS, 0, 9), EACCES) &&
	       EXPECT_ERR(setpriority(PRIO_PROCESS, root, 19), EPERM) && getpriority(PRIO_PROCESS, 0) == 10;
}

static const struct test tests[] = {
	{ "root_holds_every_capability", test_root_holds_every_capability },
	{ "setresuid_sets_each_and_status_shows_them", test_setresuid_sets_each_and_status_shows_them },
	{ "nobody_cannot_become_root_again", test_nobody_cannot_become_root_again },
	{ "saved_root_gives_root_back", test_saved_root_gives_root_back },
	{ "minus_one_is_unchanged_or_invalid", test_minus_one_is_unchanged_or_invalid },
	{ "setuid_as_root_sets_all_four", test_setuid_as_root_sets_all_four },
	{ "groups_sorted_counted_bounded", test_groups_sorted_counted_bounded },
	{ "setfsuid_answers_the_old_one", test_setfsuid_answers_the_old_one },
	{ "keepcaps_keeps_permitted", test_keepcaps_keeps_permitted },
	{ "capget_versions_and_errors", test_capget_versions_and_errors },
	{ "capset_never_more_than_held", test_capset_never_more_than_held },
	{ "no_new_privs_sticks", test_no_new_privs_sticks },
	{ "fork_inherits_credentials", test_fork_inherits_credentials },
	{ "nobody_meets_the_mode_bits", test_nobody_meets_the_mode_bits },
	{ "access_uses_the_real_ids", test_access_uses_the_real_ids },
	{ "nobody_cannot_signal_root", test_nobody_cannot_signal_root },
	{ "nobody_cannot_raise_limits_or_set_the_clock", test_nobody_cannot_raise_limits_or_set_the_clock },
	{ "exec_with_effective_root_is_secure", test_exec_with_effective_root_is_secure },
	{ "nice_lower_needs_cap_sys_nice", test_nice_lower_needs_cap_sys_nice },
	{ "chown_drops_setuid_and_setgid_dirs_pass_their_group", test_chown_drops_setuid_and_setgid_dirs_pass_their_group },
};

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "auxv"))
		return auxv_check();
	return run_tests(tests, ARRAY_SIZE(tests));
}
