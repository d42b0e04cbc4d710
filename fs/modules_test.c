/* In-kernel tests of the module table: every module found by its name, and each directory's listed in GRUB's order. */
#include <ccos/ktest.h>
#include <ccos/file.h>
#include <ccos/boot.h>
#include <ccos/lib.h>

/* A module's directory is exactly dir: "/bin/sh" is in "/bin", "/bin/x/y" is not. */
static bool in(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/' && !strchr(path + n + 1, '/');
}

KTEST(modules_found_by_name_and_listed_in_order)
{
	static const char *const dirs[] = { "/bin", "/etc" };
	uint64_t listed = 0, i, k;
	unsigned int d;
	int b;

	for (b = 0; b < boot_info.n_modules; b++) {
		const struct module_file *m = module_lookup(boot_info.modules[b].name);

		if (boot_info.modules[b].name[0] != '/')
			continue;
		KEXPECT(m != NULL);
		if (m)
			KEXPECT_STREQ(m->name, boot_info.modules[b].name);
	}
	KEXPECT(module_lookup("/bin/no-such-program") == NULL);
	KEXPECT(module_lookup("/bin") == NULL);
	/* Each directory's modules by index: all of them, in GRUB's order, then NULL. */
	for (d = 0; d < ARRAY_SIZE(dirs); d++) {
		for (i = 0, b = 0; i < modules_in(dirs[d]); i++, b++) {
			const struct module_file *m = module_at(dirs[d], i);

			while (b < boot_info.n_modules && !in(boot_info.modules[b].name, dirs[d]))
				b++;
			KEXPECT(m != NULL && b < boot_info.n_modules);
			if (m && b < boot_info.n_modules)
				KEXPECT_STREQ(m->name, boot_info.modules[b].name);
		}
		KEXPECT(module_at(dirs[d], i) == NULL);
		listed += i;
	}
	for (b = 0, k = 0; b < boot_info.n_modules; b++)
		k += in(boot_info.modules[b].name, "/bin") || in(boot_info.modules[b].name, "/etc");
	KEXPECT_EQ(listed, k);
}
