/* In-kernel tests of vsnprintf: conversions, width, padding, length modifiers, truncation. */
#include <ccos/ktest.h>
#include <ccos/printk.h>
#include <ccos/lib.h>

static char buf[128];

/* Format into buf; the text must be `expected` and the return value its length. */
#define KEXPECT_FORMAT(expected, fmt, ...)				\
	do {								\
		int n_ = snprintf(buf, sizeof(buf), fmt, ##__VA_ARGS__); \
		KEXPECT_STREQ(buf, expected);				\
		KEXPECT_EQ(n_, strlen(expected));			\
	} while (0)

KTEST(printk_string_and_char)
{
	KEXPECT_FORMAT("hello", "hello");
	KEXPECT_FORMAT("a hello b", "a %s b", "hello");
	KEXPECT_FORMAT("", "%s", "");
	KEXPECT_FORMAT("x=Q.", "x=%c.", 'Q');
	KEXPECT_FORMAT("100%", "100%%");
}

KTEST(printk_signed)
{
	KEXPECT_FORMAT("0", "%d", 0);
	KEXPECT_FORMAT("42 -42", "%d %i", 42, -42);
	KEXPECT_FORMAT("2147483647", "%d", INT32_MAX);
	KEXPECT_FORMAT("-2147483648", "%d", INT32_MIN);
}

KTEST(printk_unsigned_and_hex)
{
	KEXPECT_FORMAT("4294967295", "%u", 4294967295u);
	KEXPECT_FORMAT("ff", "%x", 255u);
	KEXPECT_FORMAT("DEADBEEF", "%X", 0xdeadbeefu);
	KEXPECT_FORMAT("ffffffff", "%x", -1);
	KEXPECT_FORMAT("0", "%x", 0u);
}

KTEST(printk_pointer)
{
	KEXPECT_FORMAT("0xffffffff80001000", "%p", (void *)0xffffffff80001000ul);
	KEXPECT_FORMAT("0x0", "%p", NULL);
	KEXPECT_FORMAT("   0x10", "%7p", (void *)0x10);
}

KTEST(printk_long_and_size)
{
	KEXPECT_FORMAT("ffffffff80000000", "%lx", 0xffffffff80000000ul);
	KEXPECT_FORMAT("-9223372036854775808", "%ld", INT64_MIN);
	KEXPECT_FORMAT("9223372036854775807", "%li", INT64_MAX);
	KEXPECT_FORMAT("18446744073709551615", "%lu", UINT64_MAX);
	KEXPECT_FORMAT("18446744073709551615", "%llu", (unsigned long long)UINT64_MAX);
	KEXPECT_FORMAT("-1", "%lld", -1ll);
	KEXPECT_FORMAT("123456789012", "%zu", (size_t)123456789012ul);
	KEXPECT_FORMAT("1000", "%zx", (size_t)0x1000);
	KEXPECT_FORMAT("-5", "%zd", (ssize_t)-5);
}

KTEST(printk_width_and_padding)
{
	KEXPECT_FORMAT("   42", "%5d", 42);
	KEXPECT_FORMAT("00042", "%05d", 42);
	KEXPECT_FORMAT("-0042", "%05d", -42);
	KEXPECT_FORMAT("  -42", "%5d", -42);
	KEXPECT_FORMAT("42   |", "%-5d|", 42);
	KEXPECT_FORMAT("-42  |", "%-5d|", -42);
	KEXPECT_FORMAT("123456", "%3d", 123456);	/* width is a minimum */
	KEXPECT_FORMAT("00000000000000ff", "%016lx", 0xfful);
	KEXPECT_FORMAT("000000ff", "%08x", 0xffu);
	KEXPECT_FORMAT("   ab", "%5s", "ab");
	KEXPECT_FORMAT("ab   |", "%-5s|", "ab");
	KEXPECT_FORMAT("abcdef", "%3s", "abcdef");
	KEXPECT_FORMAT("  x", "%3c", 'x');
	KEXPECT_FORMAT("x  |", "%-3c|", 'x');
}

/* snprintf without the format check, for formats that GCC rightly warns about. */
static int unchecked_snprintf(char *b, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, size, fmt, ap);
	va_end(ap);
	return n;
}

KTEST(printk_odd_formats)
{
	/* An unknown conversion is printed as it is, and takes no argument. */
	KEXPECT_EQ(unchecked_snprintf(buf, sizeof(buf), "%q %d", 7), 4);
	KEXPECT_STREQ(buf, "%q 7");
	/* A NULL string prints as "(null)". */
	KEXPECT_EQ(unchecked_snprintf(buf, sizeof(buf), "%s", (const char *)NULL), 6);
	KEXPECT_STREQ(buf, "(null)");
	/* A lone '%' at the end prints nothing. */
	KEXPECT_EQ(unchecked_snprintf(buf, sizeof(buf), "end%"), 3);
	KEXPECT_STREQ(buf, "end");
	/* '-' wins over '0'. */
	KEXPECT_EQ(unchecked_snprintf(buf, sizeof(buf), "%-05d|", 42), 6);
	KEXPECT_STREQ(buf, "42   |");
}

/* A '*' width comes from an int argument; negative means left-justified (procfs uses it). */
KTEST(printk_star_width)
{
	KEXPECT_EQ(snprintf(buf, sizeof(buf), "%*s|", 5, "ab"), 6);
	KEXPECT_STREQ(buf, "   ab|");
	KEXPECT_EQ(snprintf(buf, sizeof(buf), "%*s%s", 3, "", "[vdso]"), 9);
	KEXPECT_STREQ(buf, "   [vdso]");
	KEXPECT_EQ(snprintf(buf, sizeof(buf), "%*d|", -4, 7), 5);
	KEXPECT_STREQ(buf, "7   |");
}

KTEST(printk_truncation)
{
	char small[6];
	int n;

	memset(small, 'x', sizeof(small));
	n = snprintf(small, sizeof(small), "hello world");
	KEXPECT_STREQ(small, "hello");
	KEXPECT_EQ(n, 11);	/* the length it would have had */

	n = snprintf(small, sizeof(small), "%d", 1234567);
	KEXPECT_STREQ(small, "12345");
	KEXPECT_EQ(n, 7);

	n = snprintf(small, sizeof(small), "%10s", "ab");
	KEXPECT_STREQ(small, "     ");
	KEXPECT_EQ(n, 10);

	n = snprintf(small, 1, "abc");
	KEXPECT_EQ(small[0], '\0');
	KEXPECT_EQ(n, 3);

	/* Size 0 writes nothing at all, and still counts. */
	small[0] = 'z';
	n = snprintf(small, 0, "abc%d", 42);
	KEXPECT_EQ(small[0], 'z');
	KEXPECT_EQ(n, 5);
	KEXPECT_EQ(snprintf(NULL, 0, "%s", "four"), 4);

	/* Exactly fitting: the terminator takes the last byte. */
	n = snprintf(small, sizeof(small), "12345");
	KEXPECT_STREQ(small, "12345");
	KEXPECT_EQ(n, 5);
	n = snprintf(small, sizeof(small), "123456");
	KEXPECT_STREQ(small, "12345");
	KEXPECT_EQ(n, 6);
}
