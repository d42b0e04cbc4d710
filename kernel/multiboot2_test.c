/* In-kernel tests of multiboot2_parse on information blocks built here, good and malformed. */
#include <ccos/ktest.h>
#include <ccos/boot.h>
#include <ccos/printk.h>
#include <ccos/lib.h>
#include <ccos/layout.h>

/* Tag types of the multiboot2 spec (§3.6), as kernel/multiboot2.c reads them. */
enum { END = 0, CMDLINE = 1, LOADER = 2, MODULE = 3, MMAP = 6, EFI64 = 12,
       ACPI_OLD = 14, ACPI_NEW = 15 };

/*
 * The block under construction: a u32 total size, a reserved u32, then
 * tags, each 8-byte aligned. It lives in .bss, inside the kernel image, so
 * the parser's virt_to_phys works on it as on GRUB's block.
 */
static uint8_t block[4096] __aligned(8);
static uint32_t block_len;
static struct boot_info bi;

static void begin(void)
{
	memset(block, 0, sizeof(block));
	block_len = 8;
}

/* Append a tag of `size` bytes (header included); returns it, zeroed. */
static uint32_t *add_tag(uint32_t type, uint32_t size)
{
	uint32_t *tag = (uint32_t *)(block + block_len);

	tag[0] = type;
	tag[1] = size;
	block_len = ALIGN_UP(block_len + size, 8);
	return tag;
}

static void add_string(uint32_t type, const char *s)
{
	uint32_t *tag = add_tag(type, 8 + strlen(s) + 1);

	memcpy(tag + 2, s, strlen(s) + 1);
}

static void add_module(uint32_t start, uint32_t end, const char *name)
{
	uint32_t *tag = add_tag(MODULE, 16 + strlen(name) + 1);

	tag[2] = start;
	tag[3] = end;
	memcpy(tag + 4, name, strlen(name) + 1);
}

static void add_mmap(void)
{
	uint32_t *tag = add_tag(MMAP, 16 + 2 * 24);
	uint64_t *e = (uint64_t *)(tag + 4);

	tag[2] = 24;		/* entry size */
	tag[3] = 0;		/* entry version */
	e[0] = 0;		/* base, length, type (1 = RAM) */
	e[1] = 0x9fc00;
	e[2] = 1;
	e[3] = 0x100000;
	e[4] = 0xff00000;
	e[5] = 1;
}

/* Parse the block as it is, quietly: the malformed ones print errors, expectedly. */
static bool parse_block(void)
{
	int level = console_loglevel;
	bool ok;

	console_loglevel = 2;
	ok = multiboot2_parse(block, &bi);
	console_loglevel = level;
	return ok;
}

/* Finish with an end tag (or not), set the total size, and parse. */
static bool parse(bool end_tag)
{
	if (end_tag)
		add_tag(END, 8);
	((uint32_t *)block)[0] = block_len;
	return parse_block();
}

static void add_good_tags(void)
{
	add_string(CMDLINE, "vsyscall=emulate ktest");
	add_string(LOADER, "GRUB 2.06");
	add_module(0x300000, 0x301234, "/bin/init");
	add_module(0x302000, 0x302010, "/bin/cat");
	add_mmap();
}

KTEST(multiboot2_good_block)
{
	uint32_t *rsdp_new;

	begin();
	add_good_tags();
	add_tag(ACPI_OLD, 8 + 20);
	rsdp_new = add_tag(ACPI_NEW, 8 + 36);
	KEXPECT(parse(true));

	KEXPECT(!bi.uefi);
	KEXPECT(bi.cmdline && !strcmp(bi.cmdline, "vsyscall=emulate ktest"));
	KEXPECT(bi.loader && !strcmp(bi.loader, "GRUB 2.06"));
	KEXPECT_EQ(bi.n_modules, 2);
	KEXPECT_EQ(bi.modules[0].start, 0x300000);
	KEXPECT_EQ(bi.modules[0].end, 0x301234);
	KEXPECT(bi.modules[0].name && !strcmp(bi.modules[0].name, "/bin/init"));
	KEXPECT(bi.modules[1].name && !strcmp(bi.modules[1].name, "/bin/cat"));
	KEXPECT_EQ(bi.n_mmap, 2);
	KEXPECT_EQ(bi.mmap[1].base, 0x100000);
	KEXPECT_EQ(bi.mmap[1].len, 0xff00000);
	KEXPECT_EQ(bi.mmap[1].type, 1);
	KEXPECT_EQ(bi.rsdp, virt_to_phys(rsdp_new + 2));	/* ACPI 2.0+ preferred */
	KEXPECT_EQ(bi.rsdp_revision, 2);
	KEXPECT_EQ(bi.mbi_start, virt_to_phys(block));
	KEXPECT_EQ(bi.mbi_end - bi.mbi_start, block_len);
}

KTEST(multiboot2_acpi_new_before_old)
{
	uint32_t *rsdp_new;

	begin();
	rsdp_new = add_tag(ACPI_NEW, 8 + 36);
	add_tag(ACPI_OLD, 8 + 20);
	KEXPECT(parse(true));
	KEXPECT_EQ(bi.rsdp, virt_to_phys(rsdp_new + 2));
	KEXPECT_EQ(bi.rsdp_revision, 2);
}

KTEST(multiboot2_uefi)
{
	begin();
	add_tag(EFI64, 16);
	KEXPECT(parse(true));
	KEXPECT(bi.uefi);
}

KTEST(multiboot2_only_end_tag)
{
	begin();
	KEXPECT(parse(true));
	KEXPECT_EQ(bi.n_modules, 0);
	KEXPECT_EQ(bi.n_mmap, 0);
	KEXPECT(bi.cmdline == NULL);
	KEXPECT_EQ(bi.rsdp, 0);
}

KTEST(multiboot2_unknown_tags_skipped)
{
	begin();
	add_tag(99, 8 + 13);	/* odd size: the next tag is 8-byte aligned */
	add_string(CMDLINE, "quiet");
	KEXPECT(parse(true));
	KEXPECT(bi.cmdline && !strcmp(bi.cmdline, "quiet"));
}

KTEST(multiboot2_tag_past_total_size)
{
	uint32_t *tag;

	begin();
	add_good_tags();
	tag = add_tag(99, 16);
	tag[1] = 64;		/* runs past the end tag and the block */
	KEXPECT(!parse(true));
}

KTEST(multiboot2_tag_size_wraps)
{
	uint32_t *tag;

	/* off + size overflows 32 bits: must not pass for a small tag. */
	begin();
	tag = add_tag(99, 16);
	tag[1] = 0xfffffffc;
	KEXPECT(!parse(true));
	begin();
	tag = add_tag(MMAP, 16);
	tag[1] = 0xfffffff8;
	KEXPECT(!parse(true));
}

KTEST(multiboot2_tag_too_small)
{
	uint32_t *tag;

	begin();
	tag = add_tag(99, 8);
	tag[1] = 0;		/* would loop on the same tag for ever */
	KEXPECT(!parse(true));
	begin();
	tag = add_tag(99, 8);
	tag[1] = 4;
	KEXPECT(!parse(true));
}

KTEST(multiboot2_missing_end_tag)
{
	begin();
	add_good_tags();
	KEXPECT(!parse(false));
}

KTEST(multiboot2_unbelievable_total)
{
	begin();
	((uint32_t *)block)[0] = 8;	/* smaller than the header and an end tag */
	KEXPECT(!parse_block());
	((uint32_t *)block)[0] = 0xffffffff;
	KEXPECT(!parse_block());
}

KTEST(multiboot2_module_name_not_terminated)
{
	uint32_t *tag;

	begin();
	tag = add_tag(MODULE, 16 + 8);
	tag[2] = 0x300000;
	tag[3] = 0x301000;
	memcpy(tag + 4, "/bin/abc", 8);		/* fills the tag: no NUL inside it */
	tag = add_tag(MODULE, 16);		/* no name at all */
	tag[2] = 0x300000;
	tag[3] = 0x301000;
	add_module(0x300000, 0x301000, "/bin/ok");
	KEXPECT(parse(true));
	KEXPECT_EQ(bi.n_modules, 1);
	KEXPECT(bi.modules[0].name && !strcmp(bi.modules[0].name, "/bin/ok"));
}

KTEST(multiboot2_module_ends_before_start)
{
	begin();
	add_module(0x301000, 0x300000, "/bin/backwards");
	KEXPECT(parse(true));
	KEXPECT_EQ(bi.n_modules, 0);
}

KTEST(multiboot2_too_many_modules)
{
	int i;

	begin();
	for (i = 0; i < MAX_MODULES + 3; i++)
		add_module(0x300000, 0x301000, "/bin/m");
	KEXPECT(parse(true));
	KEXPECT_EQ(bi.n_modules, MAX_MODULES);
}

KTEST(multiboot2_string_not_terminated)
{
	uint32_t *tag;

	begin();
	tag = add_tag(CMDLINE, 8 + 4);
	memcpy(tag + 2, "abcd", 4);
	KEXPECT(parse(true));
	KEXPECT(bi.cmdline == NULL);
}

KTEST(multiboot2_mmap_entry_size_too_small)
{
	uint32_t *tag;

	begin();
	tag = add_tag(MMAP, 16 + 2 * 16);
	tag[2] = 16;		/* an entry is 24 bytes */
	KEXPECT(parse(true));
	KEXPECT_EQ(bi.n_mmap, 0);
}
