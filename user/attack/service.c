/* service: the attack lab's victim, a small request service with a stack overflow (docs/attack.md). */
#include "ulib.h"

/*
 * A request is a 4-byte length, then that many bytes of text. The service
 * reads one from the file named on its command line, or else from standard
 * input, and answers with one line (this one only counts the bytes). `-d` prints a debugging line first,
 * which tells where the vDSO is: the information leak of the lab.
 *
 * The bug: read_request takes the sender's length for the size of its
 * 64-byte buffer. The program is built static-pie, with a no-execute stack
 * and no stack protector, so an overflow meets no canary, and nothing of
 * the service (code, stack, heap) is at an address known in advance.
 */
static __attribute__((noinline)) long read_request(int fd)
{
	char body[64];
	uint32_t len;

	if (read(fd, &len, sizeof(len)) != sizeof(len))
		return -1;
	return read(fd, body, len);	/* the bug: len comes from the sender */
}

int main(int argc, char **argv, char **envp)
{
	int fd = 0, i;
	long n;

	(void)envp;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d")) {
			printf("service: debug: vdso at %#lx\n", getauxval(AT_SYSINFO_EHDR));
		} else if ((fd = open(argv[i], O_RDONLY, 0)) < 0) {
			printf("service: cannot open %s\n", argv[i]);
			return 2;
		}
	}
	n = read_request(fd);
	if (n < 0) {
		printf("service: bad request\n");
		return 1;
	}
	printf("service: served a %ld-byte request\n", n);
	return 0;
}
