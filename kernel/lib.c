/* Freestanding string and memory functions: GCC may call these itself. */
#include <ccos/lib.h>

/*
 * rep movsq / rep stosq move eight bytes a step, then rep movsb / stosb
 * the rest (SDM Vol. 2B MOVS, STOS: rcx counts the steps, rdi and rsi
 * advance since the kernel keeps DF clear). QEMU's -icount counts each
 * step of a rep string instruction as one instruction, so eight bytes a
 * step cost an eighth of one byte a step there (make bench counts them).
 */
void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;
	size_t words = n / 8;

	__asm__ volatile("rep movsq" : "+D"(d), "+S"(src), "+c"(words) : : "memory");
	words = n % 8;
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(words) : : "memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;
	size_t words = n / 8;

	__asm__ volatile("rep stosq"
			 : "+D"(d), "+c"(words) : "a"(0x0101010101010101ul * (uint8_t)c) : "memory");
	words = n % 8;
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(words) : "a"(c) : "memory");
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;

	if (d < s)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (; *s; s++)
		if (*s == (char)c)
			return (char *)s;
	return c ? NULL : (char *)s;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = MIN(len, size - 1);

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
