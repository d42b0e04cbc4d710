/* The kernel command line: options of design.md; problems are reported, defaults kept. */
#include <ccos/boot.h>
#include <ccos/printk.h>
#include <ccos/lib.h>

struct boot_options boot_options;

const char *const vsyscall_mode_names[] = {
	[VSYSCALL_NATIVE] = "native", [VSYSCALL_EMULATE] = "emulate",
	[VSYSCALL_XONLY] = "xonly", [VSYSCALL_NONE] = "none", NULL,
};

const char *const clocksource_names[] = {
	[CLOCK_DEFAULT] = "default", [CLOCK_TSC] = "tsc",
	[CLOCK_HPET] = "hpet", [CLOCK_JIFFIES] = "jiffies", NULL,
};

const char *const pti_mode_names[] = {
	[PTI_AUTO] = "auto", [PTI_ON] = "on", [PTI_OFF] = "off", NULL,
};

enum option_kind { OPT_FLAG, OPT_CHOICE, OPT_PATH };

struct option {
	const char *name;
	enum option_kind kind;
	size_t offset;			/* of the field in struct boot_options */
	const char *const *choices;	/* OPT_CHOICE: names, NULL-terminated */
	const char *expect;		/* said when the value is wrong */
};

#define FIELD(f) offsetof(struct boot_options, f)

static const struct option options[] = {
	{ "vsyscall", OPT_CHOICE, FIELD(vsyscall), vsyscall_mode_names,
	  "native|emulate|xonly|none" },
	{ "clocksource", OPT_CHOICE, FIELD(clocksource), clocksource_names,
	  "tsc|hpet|jiffies" },
	{ "pti", OPT_CHOICE, FIELD(pti), pti_mode_names, "on|off|auto" },
	{ "init", OPT_PATH, FIELD(init), NULL, "an absolute path such as /bin/init" },
	{ "ktest", OPT_FLAG, FIELD(ktest), NULL, "no value" },
	{ "ptdump", OPT_FLAG, FIELD(ptdump), NULL, "no value" },
	{ "idtdump", OPT_FLAG, FIELD(idtdump), NULL, "no value" },
	{ "quiet", OPT_FLAG, FIELD(quiet), NULL, "no value" },
	{ "norandmaps", OPT_FLAG, FIELD(norandmaps), NULL, "no value" },
	{ "lockdebug", OPT_FLAG, FIELD(lockdebug), NULL, "no value" },
};

static bool set_option(const struct option *o, struct boot_options *opts,
		       const char *val)
{
	char *field = (char *)opts + o->offset;
	int i;

	switch (o->kind) {
	case OPT_FLAG:
		if (val)
			return false;
		*(bool *)field = true;
		return true;
	case OPT_CHOICE:
		for (i = 0; val && o->choices[i]; i++) {
			if (!strcmp(val, o->choices[i]) && strcmp(val, "default")) {
				*(int *)field = i;
				return true;
			}
		}
		return false;
	case OPT_PATH:
		if (!val || val[0] != '/' || strlen(val) >= sizeof(opts->init))
			return false;
		strlcpy(field, val, sizeof(opts->init));
		return true;
	}
	return false;
}

/* What the option is now, for the warning: the default or an earlier value. */
static const char *describe_current(const struct option *o, const struct boot_options *opts)
{
	static char buf[96];
	const char *field = (const char *)opts + o->offset;

	switch (o->kind) {
	case OPT_CHOICE:
		snprintf(buf, sizeof(buf), "%s stays %s", o->name, o->choices[*(const int *)field]);
		return buf;
	case OPT_PATH:
		snprintf(buf, sizeof(buf), "%s stays %s", o->name, field);
		return buf;
	case OPT_FLAG:
		break;
	}
	return *(const bool *)field ? "the flag stays set" : "the flag stays unset";
}

static void parse_word(char *word, struct boot_options *opts)
{
	char *val = strchr(word, '=');
	size_t i;

	if (val)
		*val++ = '\0';
	for (i = 0; i < ARRAY_SIZE(options); i++) {
		if (strcmp(word, options[i].name))
			continue;
		if (!set_option(&options[i], opts, val))
			printk(KERN_WARNING "warning: cmdline: bad value for %s%s%s (expected %s); ignored, %s\n",
			       word, val ? "=" : "", val ? val : "", options[i].expect,
			       describe_current(&options[i], opts));
		return;
	}
	printk(KERN_WARNING "warning: cmdline: unknown option '%s' ignored\n", word);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * The word at *pp (not a space), cut in place, as Linux's next_arg cuts it:
 * double quotes group words ("a b" is one word, a"b c"d too), and the
 * quotes around a whole word, or around the value after its first '=',
 * are removed: "echo hi" becomes echo hi, x="a b" becomes x=a b.
 */
static char *next_word(char **pp)
{
	char *p = *pp, *eq = NULL;
	bool quoted = false, in_quote = false;
	size_t i;

	if (*p == '"') {
		p++;
		quoted = in_quote = true;
	}
	for (i = 0; p[i] && (in_quote || !is_space(p[i])); i++) {
		if (!eq && p[i] == '=')
			eq = p + i;
		if (p[i] == '"')
			in_quote = !in_quote;
	}
	*pp = p[i] ? p + i + 1 : p + i;
	p[i] = '\0';
	if (i && p[i - 1] == '"' && (quoted || (eq && eq[1] == '"')))
		p[--i] = '\0';
	if (!quoted && eq && eq[1] == '"')
		memmove(eq + 1, eq + 2, strlen(eq + 2) + 1);
	return p;
}

void cmdline_parse(const char *cmdline, struct boot_options *opts)
{
	char *p = opts->buf, *word;
	bool for_init = false;

	memset(opts, 0, sizeof(*opts));
	opts->vsyscall = VSYSCALL_EMULATE;
	strlcpy(opts->init, "/bin/init", sizeof(opts->init));
	if (!cmdline)
		return;
	if (strlcpy(opts->buf, cmdline, sizeof(opts->buf)) >= sizeof(opts->buf))
		printk(KERN_WARNING "warning: cmdline: longer than %zu bytes; the rest is ignored\n",
		       sizeof(opts->buf) - 1);

	while (*p) {
		while (is_space(*p))
			p++;
		if (!*p)
			break;
		word = next_word(&p);
		if (for_init) {
			if (opts->init_argc < MAX_INIT_ARGS)
				opts->init_argv[opts->init_argc++] = word;
			else
				printk(KERN_WARNING "warning: cmdline: more than %d arguments for init; '%s' dropped\n",
				       MAX_INIT_ARGS, word);
		} else if (!strcmp(word, "--")) {
			for_init = true;
		} else {
			parse_word(word, opts);
		}
	}
}
