/* A small printf family: %s %c %d %i %u %x %p %%, l/ll/z, width (or *), '0' '-' '#', %.Ns and %.*s. */
#include "ulib.h"

/* Output goes to a buffer; with fd >= 0 a full buffer is written out. */
struct sink {
	char *buf;
	size_t size;
	size_t pos;
	int fd;
	int total;
};

static void flush(struct sink *s)
{
	if (s->fd >= 0 && s->pos)
		write(s->fd, s->buf, s->pos);
	s->pos = 0;
}

static void put(struct sink *s, char c)
{
	s->total++;
	if (s->fd >= 0 && s->pos == s->size)
		flush(s);
	if (s->pos + 1 < s->size || s->fd >= 0)
		s->buf[s->pos++] = c;
}

static void pad(struct sink *s, char c, int n)
{
	while (n-- > 0)
		put(s, c);
}

/*
 * Print str (len bytes) in a field of width, padded on the left unless left.
 * Zero padding goes after the first pre bytes (a sign or "0x").
 */
static void field(struct sink *s, const char *str, int len, int width,
		  int left, char padc, int pre)
{
	int i = 0;

	if (padc == '0' && !left)
		for (; i < pre; i++)
			put(s, str[i]);
	if (!left)
		pad(s, padc, width - len);
	for (; i < len; i++)
		put(s, str[i]);
	if (left)
		pad(s, ' ', width - len);
}

static int number(char *out, unsigned long v, int base, int negative)
{
	char tmp[24];
	int n = 0, len = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (negative)
		out[len++] = '-';
	while (n)
		out[len++] = tmp[--n];
	return len;
}

static void format(struct sink *s, const char *fmt, va_list ap)
{
	char num[24];
	const char *str;
	int left, alt, width, longs, len, pre, prec;
	char padc;
	long v;

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(s, *fmt);
			continue;
		}
		left = alt = width = longs = 0;
		padc = ' ';
		for (fmt++; *fmt && strchr("-0#", *fmt); fmt++) {
			if (*fmt == '-')
				left = 1;
			else if (*fmt == '0')
				padc = '0';
			else
				alt = 1;
		}
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			width = width * 10 + *fmt - '0';
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
			if (width < 0) {
				left = 1;
				width = -width;
			}
		}
		prec = -1;		/* a string's most bytes; -1: all */
		if (*fmt == '.') {
			if (*++fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			} else {
				for (prec = 0; *fmt >= '0' && *fmt <= '9'; fmt++)
					prec = prec * 10 + *fmt - '0';
			}
		}
		for (; *fmt == 'l' || *fmt == 'z'; fmt++)
			longs = 1;

		switch (*fmt) {
		case 'd':
		case 'i':
			v = longs ? va_arg(ap, long) : va_arg(ap, int);
			len = number(num, v < 0 ? -(unsigned long)v : (unsigned long)v,
				     10, v < 0);
			field(s, num, len, width, left, padc, v < 0);
			break;
		case 'u':
			v = longs ? va_arg(ap, unsigned long)
				  : va_arg(ap, unsigned int);
			len = number(num, v, 10, 0);
			field(s, num, len, width, left, padc, 0);
			break;
		case 'x':
		case 'p':
			if (*fmt == 'p')
				v = (unsigned long)va_arg(ap, void *);
			else if (longs)
				v = va_arg(ap, unsigned long);
			else
				v = va_arg(ap, unsigned int);
			pre = (*fmt == 'p' || (alt && v)) ? 2 : 0;
			memcpy(num, "0x", 2);
			len = pre + number(num + pre, v, 16, 0);
			field(s, num, len, width, left, padc, pre);
			break;
		case 'c':
			num[0] = va_arg(ap, int);
			field(s, num, 1, width, left, ' ', 0);
			break;
		case 's':
			str = va_arg(ap, const char *);
			if (!str)
				str = "(null)";
			for (len = 0; str[len] && len != prec; len++)
				;
			field(s, str, len, width, left, ' ', 0);
			break;
		case '%':
			put(s, '%');
			break;
		default:	/* unknown: print it as written */
			put(s, '%');
			if (!*fmt)
				return;
			put(s, *fmt);
		}
	}
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct sink s = { .buf = buf, .size = size, .fd = -1 };

	format(&s, fmt, ap);
	if (size)
		buf[s.pos] = '\0';
	return s.total;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* One write per call (for lines up to 256 bytes), so lines do not mix. */
static int vdprintf(int fd, const char *fmt, va_list ap)
{
	char buf[256];
	struct sink s = { .buf = buf, .size = sizeof(buf), .fd = fd };

	format(&s, fmt, ap);
	flush(&s);
	return s.total;
}

int dprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vdprintf(fd, fmt, ap);
	va_end(ap);
	return n;
}

int printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vdprintf(1, fmt, ap);
	va_end(ap);
	return n;
}
