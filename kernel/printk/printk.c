/* vsnprintf and printk: formatted output to the console, with log levels. */
#include <ccos/printk.h>
#include <ccos/lib.h>
#include <ccos/spinlock.h>

int console_loglevel = 7;

/*
 * Lock rule: console_lock keeps one CPU's line whole on the console and in
 * the log (kernel/printk/kmsg.c). A leaf lock. panic takes it over: the CPU that
 * panics may have been holding it.
 */
static DEFINE_SPINLOCK(console_lock);

void console_lock_break(void)
{
	console_lock = (struct spinlock)SPINLOCK_INIT("console_lock");
}	/* `quiet` lowers it to 4: warnings and errors only */

struct outbuf {
	char *buf;
	size_t size, len;
};

static void put(struct outbuf *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_padded(struct outbuf *o, const char *s, size_t n, int width,
		       bool left, char pad)
{
	int fill = width > (int)n ? width - (int)n : 0;

	/* Zero padding goes after a sign: -0042, not 00-42. */
	if (pad == '0' && n && *s == '-') {
		put(o, *s++);
		n--;
	}
	if (!left)
		while (fill-- > 0)
			put(o, pad);
	while (n--)
		put(o, *s++);
	if (left)
		while (fill-- > 0)
			put(o, ' ');
}

static size_t format_u64(char *tmp, uint64_t v, unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char rev[24];
	size_t n = 0, i;

	do {
		rev[n++] = digits[v % base];
		v /= base;
	} while (v);
	for (i = 0; i < n; i++)
		tmp[i] = rev[n - 1 - i];
	return n;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct outbuf o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		char tmp[32], pad = ' ';
		bool left = false, is_signed = false, upper = false;
		int width = 0, lng = 0;
		unsigned base = 10;
		uint64_t v;
		size_t n;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				pad = '0';
			else
				break;
		}
		if (*fmt == '*') {		/* the width is an int argument */
			width = va_arg(ap, int);
			if (width < 0) {
				left = true;
				width = -width;
			}
			fmt++;
		}
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			width = width * 10 + (*fmt - '0');
		for (;; fmt++) {
			if (*fmt == 'l')
				lng++;
			else if (*fmt == 'z')
				lng = 1;
			else
				break;
		}
		switch (*fmt) {
		case 's': {
			const char *s = va_arg(ap, const char *);

			if (!s)
				s = "(null)";
			put_padded(&o, s, strlen(s), width, left, ' ');
			continue;
		}
		case 'c':
			tmp[0] = (char)va_arg(ap, int);
			put_padded(&o, tmp, 1, width, left, ' ');
			continue;
		case '%':
			put(&o, '%');
			continue;
		case 'p':
			v = (uint64_t)va_arg(ap, void *);
			tmp[0] = '0';
			tmp[1] = 'x';
			n = 2 + format_u64(tmp + 2, v, 16, false);
			put_padded(&o, tmp, n, width, left, ' ');
			continue;
		case 'd':
		case 'i':
			is_signed = true;
			break;
		case 'u':
			break;
		case 'X':
			upper = true;
			/* fall through */
		case 'x':
			base = 16;
			break;
		case '\0':
			fmt--;
			continue;
		default:	/* unknown conversion: print it as it is */
			put(&o, '%');
			put(&o, *fmt);
			continue;
		}
		if (lng)
			v = va_arg(ap, uint64_t);
		else
			v = is_signed ? (uint64_t)(int64_t)va_arg(ap, int) : va_arg(ap, unsigned);
		n = 0;
		if (is_signed && (int64_t)v < 0) {
			tmp[n++] = '-';
			v = -v;
		}
		n += format_u64(tmp + n, v, base, upper);
		put_padded(&o, tmp, n, width, left, pad);
	}
	if (size)
		buf[MIN(o.len, size - 1)] = '\0';
	return o.len;
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

/* COM1 always; the text screen too where there is one. */
void console_write(const char *s, size_t len)
{
	for (; len--; s++) {
		serial_putc(*s);
		vga_putc(*s);
	}
}

int vprintk(const char *fmt, va_list ap)
{
	char buf[512];
	int level = 6, n;

	if (fmt[0] == '\001' && fmt[1] >= '0' && fmt[1] <= '7') {
		level = fmt[1] - '0';
		fmt += 2;
	}
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	spin_lock(&console_lock);
	log_store(buf, MIN((size_t)n, sizeof(buf) - 1));	/* every level, as Linux's log */
	if (level <= console_loglevel)
		console_write(buf, MIN((size_t)n, sizeof(buf) - 1));
	spin_unlock(&console_lock);
	return level <= console_loglevel ? n : 0;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}
