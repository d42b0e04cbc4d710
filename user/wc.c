/* wc: count the lines, words and bytes of standard input or of each file. */
#include "ulib.h"

static int count(long fd, const char *name)
{
	char buf[4096];
	long n, lines = 0, words = 0, bytes = 0, i;
	int in_word = 0;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			int space = buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\t';

			lines += buf[i] == '\n';
			words += !space && !in_word;
			in_word = !space;
		}
		bytes += n;
	}
	if (n < 0) {
		dprintf(2, "wc: cannot read %s: error %ld\n", name ? name : "standard input", -n);
		return 1;
	}
	printf("%7ld %7ld %7ld%s%s\n", lines, words, bytes, name ? " " : "", name ? name : "");
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	int i, status = 0;
	long fd;

	(void)envp;

	if (argc < 2)
		return count(0, NULL);
	for (i = 1; i < argc; i++) {
		if ((fd = open(argv[i], O_RDONLY, 0)) < 0) {
			dprintf(2, "wc: cannot open %s: error %ld\n", argv[i], -fd);
			status = 1;
			continue;
		}
		status |= count(fd, argv[i]);
		close(fd);
	}
	return status;
}
