/* muslcred: an unmodified static musl program: users, groups and capabilities, as root and as nobody, with Linux's answers. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/fsuid.h>
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
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
