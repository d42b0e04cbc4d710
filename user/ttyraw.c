/* ttyraw: put the console in raw mode, read one key without Enter, say which, restore the mode. */
#include "ulib.h"

int main(int argc, char **argv, char **envp)
{
	struct termios saved, raw;
	char c;
	long n;

	(void)argc, (void)argv, (void)envp;
	if (ioctl(0, TCGETS, (unsigned long)&saved) < 0) {
		dprintf(2, "ttyraw: standard input is not a terminal\n");
		return 1;
	}
	raw = saved;
	raw.c_lflag &= ~(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	ioctl(0, TCSETS, (unsigned long)&raw);
	printf("ttyraw: press a key\n");
	n = read(0, &c, 1);
	ioctl(0, TCSETS, (unsigned long)&saved);
	if (n != 1) {
		dprintf(2, "ttyraw: read returned %ld\n", n);
		return 1;
	}
	printf("ttyraw: key %d\n", c);
	return 0;
}
