/* bench: cycles per call of each way to ask the time (for `make bench`, not a test). */
#include "ulib.h"
#include "gate.h"
#include "vdso.h"

/* Whether this boot's vsyscall page can be called: [vsyscall] is executable. */
static int vsyscall_callable(void)
{
	static char buf[4096];
	long fd = open("/proc/self/maps", O_RDONLY, 0), n;
	char *line;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (line = buf; *line; line++)
		if (!strncmp(line, "ffffffffff600000-ffffffffff601000 ", 34))
			return line[36] == 'x';
	return 0;
}

#define REPORT(name, path, call)					\
	printf("bench: %-13s %-8s %6lu\n", name, path, CYCLES_PER_CALL(call))

int main(int argc, char **argv, char **envp)
{
	clock_gettime_fn d_clock_gettime = vdso_sym("LINUX_2.6", "__vdso_clock_gettime");
	gettimeofday_fn d_gettimeofday = vdso_sym("LINUX_2.6", "__vdso_gettimeofday");
	time_fn d_time = vdso_sym("LINUX_2.6", "__vdso_time");
	getcpu_fn d_getcpu = vdso_sym("LINUX_2.6", "__vdso_getcpu");
	int vs = vsyscall_callable();
	struct timespec ts;
	struct timeval tv;
	unsigned int cpu, node;

	(void)argc, (void)argv, (void)envp;
	REPORT("gettimeofday", "syscall", gettimeofday(&tv, NULL));
	REPORT("time", "syscall", time(NULL));
	REPORT("getcpu", "syscall", getcpu(&cpu, &node, NULL));
	REPORT("clock_gettime", "syscall", clock_gettime(CLOCK_MONOTONIC, &ts));
	if (vs) {
		REPORT("gettimeofday", "vsyscall", vgettimeofday(&tv, NULL));
		REPORT("time", "vsyscall", vtime(NULL));
		REPORT("getcpu", "vsyscall", vgetcpu(&cpu, &node, NULL));
	}
	if (d_clock_gettime && d_gettimeofday && d_time && d_getcpu) {
		REPORT("gettimeofday", "vdso", d_gettimeofday(&tv, NULL));
		REPORT("time", "vdso", d_time(NULL));
		REPORT("getcpu", "vdso", d_getcpu(&cpu, &node, NULL));
		REPORT("clock_gettime", "vdso", d_clock_gettime(CLOCK_MONOTONIC, &ts));
	}
	return 0;
}
