/* The GRUB modules, ccos's read-only files: found by name through a hash table, listed by directory. */
#include <ccos/file.h>
#include <ccos/path.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/lib.h>
#include <ccos/printk.h>

/*
 * Every stat, open and exec of a /bin file looks a module up by its path.
 * A walk of the list compared the path with up to 96 names (2,553
 * instructions of strcmp for a file late in the list); the table hashes
 * the path once (FNV-1a, path_ino) and compares one name, or a few when
 * two hash to neighbouring slots (open addressing, linear probing, the
 * table at most half full). The modules themselves are kept grouped by
 * directory, each group in GRUB's order, so that getdents finds the i-th
 * of a directory by an index, not by a walk from the first (listing /bin
 * cost the square of its size).
 */
#define MODULE_SLOTS	256	/* a power of two, at least twice MAX_MODULES */
BUILD_BUG_ON(MODULE_SLOTS < 2 * MAX_MODULES);

static struct module_file modules[MAX_MODULES];
static int n_modules;
static uint8_t slots[MODULE_SLOTS];	/* 1 + the index in modules[]; 0: empty */

/* A directory's modules: modules[first] to modules[first + n - 1]. */
static struct module_dir {
	const char *name;	/* the first module's path; its first len bytes name the directory */
	size_t len;
	int first, n;
} dirs[MAX_MODULES];
static int n_dirs;

/* The directory of a module path: the length up to its last slash ("/bin/sh": 4). */
static size_t dir_len(const char *path)
{
	size_t len = 0, i;

	for (i = 0; path[i]; i++)
		if (path[i] == '/')
			len = i;
	return len;
}

static struct module_dir *find_dir(const char *dir, size_t len)
{
	int i;

	for (i = 0; i < n_dirs; i++)
		if (dirs[i].len == len && !strncmp(dirs[i].name, dir, len))
			return &dirs[i];
	return NULL;
}

/* The modules whose string is an absolute path, grouped by directory; then the hash table. */
void files_init(void)
{
	const struct boot_module *bm = boot_info.modules;
	int i, k, at[MAX_MODULES];
	struct module_dir *d;

	for (i = 0; i < boot_info.n_modules; i++) {
		if (bm[i].name[0] != '/') {
			printk(KERN_WARNING "warning: module \"%s\" is not an absolute path such as /bin/init; ignored\n",
			       bm[i].name);
			at[i] = -1;
			continue;
		}
		if (!(d = find_dir(bm[i].name, dir_len(bm[i].name)))) {
			d = &dirs[n_dirs++];
			*d = (struct module_dir){ bm[i].name, dir_len(bm[i].name), 0, 0 };
		}
		at[i] = d - dirs;
		d->n++;
	}
	for (k = 0; k < n_dirs; k++) {
		dirs[k].first = n_modules;
		n_modules += dirs[k].n;
		dirs[k].n = 0;
	}
	for (i = 0; i < boot_info.n_modules; i++) {
		if (at[i] < 0)
			continue;
		d = &dirs[at[i]];
		k = d->first + d->n++;
		modules[k] = (struct module_file){
			bm[i].name, phys_to_virt(bm[i].start), bm[i].end - bm[i].start,
		};
	}
	for (k = 0; k < n_modules; k++) {
		unsigned int s = path_ino(modules[k].name) % MODULE_SLOTS;

		while (slots[s])
			s = (s + 1) % MODULE_SLOTS;
		slots[s] = k + 1;
	}
	bin_links_init();
}

/* The module at path, a normalized path without links. */
const struct module_file *module_lookup(const char *path)
{
	unsigned int s = path_ino(path) % MODULE_SLOTS;

	for (; slots[s]; s = (s + 1) % MODULE_SLOTS)
		if (!strcmp(modules[slots[s] - 1].name, path))
			return &modules[slots[s] - 1];
	return NULL;
}

const struct module_file *module_at(const char *dir, uint64_t i)
{
	const struct module_dir *d = find_dir(dir, strlen(dir));

	return d && i < (uint64_t)d->n ? &modules[d->first + i] : NULL;
}

uint64_t modules_in(const char *dir)
{
	const struct module_dir *d = find_dir(dir, strlen(dir));

	return d ? d->n : 0;
}

/* The inode number of a module: its place among them, from 1 (fs/file.c's file_stat). */
uint64_t module_ino(const struct module_file *m)
{
	return (uint64_t)(m - modules) + 1;
}

uint64_t modules_pages(uint64_t *count)
{
	uint64_t pages = 0;
	int k;

	for (k = 0; k < n_modules; k++)
		pages += (modules[k].size + PAGE_SIZE - 1) / PAGE_SIZE;
	*count = n_modules;
	return pages;
}
