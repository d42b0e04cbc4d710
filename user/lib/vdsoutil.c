/* vdsoutil: finding this process's vDSO and its functions, and reading /proc/self/maps. */
#include "vdsoutil.h"

struct vdso vdso;
clock_gettime_fn v_clock_gettime;
gettimeofday_fn v_gettimeofday;
time_fn v_time;
getcpu_fn v_getcpu;
clock_getres_fn v_clock_getres;

/* The whole of /proc/self/maps into buf (NUL-terminated); its length or -errno. */
long read_maps(char *buf, size_t size)
{
	long fd = open("/proc/self/maps", O_RDONLY, 0), n, len = 0;

	if (fd < 0)
		return fd;
	while (len < (long)size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len;
}

/* Copy the line of maps that ends in tag ("[vdso]") into line; 0 if there is none. */
int maps_line(const char *maps, const char *tag, char *line, size_t size)
{
	const char *p = maps;
	size_t taglen = strlen(tag);

	while (*p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len >= taglen && !memcmp(p + len - taglen, tag, taglen)) {
			if (len >= size)
				len = size - 1;
			memcpy(line, p, len);
			line[len] = '\0';
			return 1;
		}
		p += len + (end ? 1 : 0);
	}
	return 0;
}

unsigned long hex(const char *s)
{
	unsigned long v = 0;

	for (;; s++) {
		int c = *s;

		if (c >= '0' && c <= '9')
			v = v * 16 + c - '0';
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + c - 'a' + 10;
		else
			return v;
	}
}

int find_vdso(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);

	if (!base)
		return ktap_fail("no AT_SYSINFO_EHDR in the auxiliary vector");
	if (vdso_parse(&vdso, base))
		return ktap_fail("the image at %lx is not an ELF object with a dynamic symbol table", base);
	ktap_diag("vDSO at %lx, soname %s, %s%s%s", base, vdso.soname ? vdso.soname : "(none)",
		  vdso.hash ? "DT_HASH " : "", vdso.gnu_hash ? "DT_GNU_HASH " : "",
		  vdso.verdef ? "versioned" : "unversioned");
	v_clock_gettime = vdso_sym("LINUX_2.6", "__vdso_clock_gettime");
	v_gettimeofday = vdso_sym("LINUX_2.6", "__vdso_gettimeofday");
	v_time = vdso_sym("LINUX_2.6", "__vdso_time");
	v_getcpu = vdso_sym("LINUX_2.6", "__vdso_getcpu");
	v_clock_getres = vdso_sym("LINUX_2.6", "__vdso_clock_getres");
	if (!v_clock_gettime || !v_gettimeofday || !v_time || !v_getcpu)
		return ktap_fail("a function is missing: clock_gettime %p gettimeofday %p time %p getcpu %p",
				 v_clock_gettime, v_gettimeofday, v_time, v_getcpu);
	return 1;
}

static const char *const exports[] = {
	"clock_gettime", "gettimeofday", "time", "getcpu", "clock_getres",
};

/*
 * Every export by both names, through both hash tables, in LINUX_2.6 and
 * nowhere else; the plain name is the same code as the __vdso_ one.
 * The same binary runs on Linux: what depends on ccos says so.
 */
int vdso_lookup_check(void)
{
	struct vdso sysv = vdso;
	char full[64];
	size_t i;

	sysv.gnu_hash = NULL;
	for (i = 0; i < ARRAY_SIZE(exports); i++) {
		void *plain, *prefixed, *by_sysv;

		snprintf(full, sizeof(full), "__vdso_%s", exports[i]);
		prefixed = vdso_lookup(&vdso, "LINUX_2.6", full);
		plain = vdso_lookup(&vdso, "LINUX_2.6", exports[i]);
		if (!prefixed) {
			/* Linux's own vDSO added clock_getres in 5.x; an older host may lack it. */
			if (!on_ccos() && !strcmp(exports[i], "clock_getres"))
				continue;
			return ktap_fail("%s not found in LINUX_2.6", full);
		}
		if (plain && plain != prefixed)
			return ktap_fail("%s at %p but %s at %p", exports[i], plain, full, prefixed);
		if (!plain && on_ccos())
			return ktap_fail("the weak alias %s is missing", exports[i]);
		if (sysv.hash && (by_sysv = vdso_lookup(&sysv, "LINUX_2.6", full)) != prefixed)
			return ktap_fail("DT_HASH finds %s at %p, DT_GNU_HASH at %p", full, by_sysv, prefixed);
		if (vdso.verdef && vdso_lookup(&vdso, "LINUX_9.9", full))
			return ktap_fail("%s found in the version LINUX_9.9, which does not exist", full);
	}
	if (vdso_lookup(&vdso, "LINUX_2.6", "__vdso_nonexistent") ||
	    vdso_lookup(&sysv, "LINUX_2.6", "__vdso_nonexistent"))
		return ktap_fail("a name that is not there was found");
	if (on_ccos() && (!vdso.soname || strcmp(vdso.soname, "linux-vdso.so.1")))
		return ktap_fail("soname %s, not linux-vdso.so.1", vdso.soname ? vdso.soname : "(none)");
	return 1;
}
