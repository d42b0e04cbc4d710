/* In-kernel tests of cmdline_parse: every option, and every kind of malformed input. */
#include <ccos/ktest.h>
#include <ccos/boot.h>
#include <ccos/printk.h>
#include <ccos/lib.h>

static struct boot_options opts;

/*
 * Parse with warnings off: the malformed lines below would each print one,
 * and the console would fill with warnings that are expected. The boot
 * tests (tools/tests/test_cmdline.py) check that the warnings are printed.
 */
static void parse(const char *cmdline)
{
	int level = console_loglevel;

	console_loglevel = 3;
	cmdline_parse(cmdline, &opts);
	console_loglevel = level;
}

static void expect_defaults(const char *file, int line)
{
	if (opts.vsyscall != VSYSCALL_EMULATE || opts.clocksource != CLOCK_DEFAULT ||
	    opts.ktest || opts.ptdump || opts.quiet || strcmp(opts.init, "/bin/init") ||
	    opts.init_argc)
		ktest_fail(file, line, "expected the defaults, got vsyscall=%s clocksource=%s%s%s%s init=%s argc=%d",
			   vsyscall_mode_names[opts.vsyscall], clocksource_names[opts.clocksource],
			   opts.ktest ? " ktest" : "", opts.ptdump ? " ptdump" : "",
			   opts.quiet ? " quiet" : "", opts.init, opts.init_argc);
}
#define KEXPECT_DEFAULTS() expect_defaults(__FILE__, __LINE__)

KTEST(cmdline_empty)
{
	parse(NULL);
	KEXPECT_DEFAULTS();
	parse("");
	KEXPECT_DEFAULTS();
	parse("   \t  ");
	KEXPECT_DEFAULTS();
}

KTEST(cmdline_every_option)
{
	parse("vsyscall=none clocksource=hpet init=/bin/sh ktest ptdump quiet norandmaps");
	KEXPECT_EQ(opts.vsyscall, VSYSCALL_NONE);
	KEXPECT_EQ(opts.clocksource, CLOCK_HPET);
	KEXPECT_STREQ(opts.init, "/bin/sh");
	KEXPECT(opts.ktest);
	KEXPECT(opts.ptdump);
	KEXPECT(opts.quiet);
	KEXPECT(opts.norandmaps);
	KEXPECT_EQ(opts.init_argc, 0);
}

KTEST(cmdline_vsyscall_modes)
{
	static const struct {
		const char *line;
		enum vsyscall_mode mode;
	} cases[] = {
		{ "vsyscall=native", VSYSCALL_NATIVE },
		{ "vsyscall=emulate", VSYSCALL_EMULATE },
		{ "vsyscall=xonly", VSYSCALL_XONLY },
		{ "vsyscall=none", VSYSCALL_NONE },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		parse(cases[i].line);
		KEXPECT_EQ(opts.vsyscall, cases[i].mode);
	}
}

KTEST(cmdline_clocksources)
{
	parse("clocksource=tsc");
	KEXPECT_EQ(opts.clocksource, CLOCK_TSC);
	parse("clocksource=hpet");
	KEXPECT_EQ(opts.clocksource, CLOCK_HPET);
	parse("clocksource=jiffies");
	KEXPECT_EQ(opts.clocksource, CLOCK_JIFFIES);
}

KTEST(cmdline_whitespace)
{
	parse("  \tktest\t\tquiet   vsyscall=xonly  ");
	KEXPECT(opts.ktest);
	KEXPECT(opts.quiet);
	KEXPECT_EQ(opts.vsyscall, VSYSCALL_XONLY);
}

KTEST(cmdline_unknown_option)
{
	parse("frobnicate");
	KEXPECT_DEFAULTS();
	parse("frobnicate=3 ktest =x = vsyscall_=none");
	KEXPECT(opts.ktest);
	KEXPECT_EQ(opts.vsyscall, VSYSCALL_EMULATE);
	parse("KTEST Vsyscall=none");	/* names are case-sensitive */
	KEXPECT_DEFAULTS();
}

KTEST(cmdline_bad_value)
{
	parse("vsyscall=bogus");
	KEXPECT_DEFAULTS();
	parse("vsyscall=NATIVE clocksource=pit");
	KEXPECT_DEFAULTS();
	parse("clocksource=default");	/* the name of the default is no value */
	KEXPECT_DEFAULTS();
	parse("init=bin/init");		/* a path must be absolute */
	KEXPECT_DEFAULTS();
	parse("vsyscall=native,emulate ktest");
	KEXPECT_EQ(opts.vsyscall, VSYSCALL_EMULATE);
	KEXPECT(opts.ktest);		/* the next word still counts */
}

KTEST(cmdline_missing_value)
{
	parse("vsyscall");
	KEXPECT_DEFAULTS();
	parse("vsyscall= clocksource= init=");
	KEXPECT_DEFAULTS();
	parse("init");
	KEXPECT_DEFAULTS();
}

KTEST(cmdline_flag_with_value)
{
	parse("ktest=1");
	KEXPECT(!opts.ktest);
	parse("quiet= ptdump=yes");
	KEXPECT_DEFAULTS();
}

KTEST(cmdline_init_path)
{
	char longpath[80];

	parse("init=/bin/a=b");		/* the value runs to the end of the word */
	KEXPECT_STREQ(opts.init, "/bin/a=b");

	memset(longpath, 'p', sizeof(longpath));
	memcpy(longpath, "init=/", 6);
	longpath[5 + sizeof(opts.init)] = '\0';	/* a path of sizeof(init) bytes: too long */
	parse(longpath);
	KEXPECT_STREQ(opts.init, "/bin/init");
	longpath[5 + sizeof(opts.init) - 1] = '\0';	/* one byte less: fits */
	parse(longpath);
	KEXPECT_EQ(strlen(opts.init), sizeof(opts.init) - 1);
}

KTEST(cmdline_init_arguments)
{
	parse("quiet -- a  b\tc");
	KEXPECT(opts.quiet);
	KEXPECT_EQ(opts.init_argc, 3);
	if (opts.init_argc == 3) {
		KEXPECT_STREQ(opts.init_argv[0], "a");
		KEXPECT_STREQ(opts.init_argv[1], "b");
		KEXPECT_STREQ(opts.init_argv[2], "c");
	}

	/* After `--` nothing is an option, not even another `--`. */
	parse("-- ktest -- vsyscall=none");
	KEXPECT(!opts.ktest);
	KEXPECT_EQ(opts.vsyscall, VSYSCALL_EMULATE);
	KEXPECT_EQ(opts.init_argc, 3);
	if (opts.init_argc == 3) {
		KEXPECT_STREQ(opts.init_argv[0], "ktest");
		KEXPECT_STREQ(opts.init_argv[1], "--");
		KEXPECT_STREQ(opts.init_argv[2], "vsyscall=none");
	}

	parse("ktest --");
	KEXPECT(opts.ktest);
	KEXPECT_EQ(opts.init_argc, 0);
}

/* Double quotes group words, and are removed around a word or a value, as Linux's next_arg. */
KTEST(cmdline_quotes)
{
	parse("-- sh -c \"echo hi; exit 7\"");
	KEXPECT_EQ(opts.init_argc, 3);
	if (opts.init_argc == 3) {
		KEXPECT_STREQ(opts.init_argv[0], "sh");
		KEXPECT_STREQ(opts.init_argv[1], "-c");
		KEXPECT_STREQ(opts.init_argv[2], "echo hi; exit 7");
	}
	parse("init=\"/bin/sh\" -- X=\"a b\" a\"b c\"d \"\" \"e\tf\"");
	KEXPECT_STREQ(opts.init, "/bin/sh");
	KEXPECT_EQ(opts.init_argc, 4);
	if (opts.init_argc == 4) {
		KEXPECT_STREQ(opts.init_argv[0], "X=a b");
		KEXPECT_STREQ(opts.init_argv[1], "a\"b c\"d");	/* inner quotes stay */
		KEXPECT_STREQ(opts.init_argv[2], "");
		KEXPECT_STREQ(opts.init_argv[3], "e\tf");
	}
	parse("-- \"unterminated quote");	/* runs to the end of the line */
	KEXPECT_EQ(opts.init_argc, 1);
	if (opts.init_argc == 1)
		KEXPECT_STREQ(opts.init_argv[0], "unterminated quote");
}

KTEST(cmdline_too_many_init_arguments)
{
	parse("-- 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18");
	KEXPECT_EQ(opts.init_argc, MAX_INIT_ARGS);
	KEXPECT_STREQ(opts.init_argv[MAX_INIT_ARGS - 1], "16");
}

KTEST(cmdline_overlong_line)
{
	static char line[sizeof(opts.buf) + 64];
	size_t cut = sizeof(opts.buf) - 1;	/* the bytes that are kept */

	/* "quiet aaaa...a ktest": ktest starts past the cut, so it is dropped. */
	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	memcpy(line, "quiet ", 6);
	memcpy(line + cut + 2, " ktest", 7);
	parse(line);
	KEXPECT(opts.quiet);
	KEXPECT(!opts.ktest);
	KEXPECT_EQ(strlen(opts.buf), 5);	/* cut into words: "quiet" */

	/* A word that the cut splits is parsed as what is left of it. */
	memset(line, ' ', sizeof(line) - 1);
	memcpy(line + cut - 20, "quiet", 5);
	memcpy(line + cut - 12, "ktest", 5);
	memcpy(line + cut - 2, "ptdump", 6);	/* cut to "pt": an unknown option */
	parse(line);
	KEXPECT(opts.quiet);
	KEXPECT(opts.ktest);
	KEXPECT(!opts.ptdump);
}
