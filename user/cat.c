/* cat: copy each file named on the command line, or standard input, to standard output. */
#include "ulib.h"

static int cat_file(const char *path)
{
	char buf[4096];
	long fd, n;

	fd = path ? open(path, O_RDONLY, 0) : 0;
	if (fd < 0) {
		dprintf(2, "cat: cannot open %s: error %ld\n", path, -fd);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (write(1, buf, n) != n) {
			dprintf(2, "cat: write to standard output failed\n");
			close(fd);
			return 1;
		}
	}
	close(fd);
	if (n < 0) {
		dprintf(2, "cat: cannot read %s: error %ld\n", path ? path : "standard input", -n);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	int i, status = 0;

	(void)envp;
	if (argc < 2)
		return cat_file(NULL);
	for (i = 1; i < argc; i++)
		status |= cat_file(argv[i]);
	return status;
}
