/* Reading the multiboot2 information that GRUB leaves in memory (spec §3.6). */
#include <ccos/boot.h>
#include <ccos/printk.h>
#include <ccos/lib.h>
#include <ccos/layout.h>

struct boot_info boot_info;

/* Tag types (multiboot2 spec §3.6). */
enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_MMAP = 6,
	MB2_TAG_FRAMEBUFFER = 8,
	MB2_TAG_EFI32 = 11,
	MB2_TAG_EFI64 = 12,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
	MB2_TAG_EFI_MMAP = 17,
};

struct mb2_tag {
	uint32_t type, size;
};

struct mb2_mmap_entry {
	uint64_t base, len;
	uint32_t type, reserved;
};

/* A string inside a tag must end inside it. */
static const char *tag_string(const struct mb2_tag *tag, uint32_t offset)
{
	const char *s = (const char *)tag + offset;

	if (tag->size <= offset || strnlen(s, tag->size - offset) == tag->size - offset)
		return NULL;
	return s;
}

static void parse_mmap(const struct mb2_tag *tag, struct boot_info *bi)
{
	const uint32_t *hdr = (const uint32_t *)(tag + 1);
	uint32_t entry_size = hdr[0], off;

	if (tag->size < 16 || entry_size < sizeof(struct mb2_mmap_entry)) {
		printk(KERN_WARNING "warning: multiboot2: memory map with entry size %u ignored\n",
		       entry_size);
		return;
	}
	for (off = 16; off + entry_size <= tag->size && bi->n_mmap < MAX_MMAP; off += entry_size) {
		const struct mb2_mmap_entry *e = (const void *)((const char *)tag + off);

		bi->mmap[bi->n_mmap++] = (struct mmap_region){ e->base, e->len, e->type };
	}
}

static void parse_module(const struct mb2_tag *tag, struct boot_info *bi)
{
	const uint32_t *m = (const uint32_t *)(tag + 1);
	const char *name = tag_string(tag, 16);

	if (tag->size < 17 || !name || m[1] < m[0]) {
		printk(KERN_WARNING "warning: multiboot2: malformed module tag ignored\n");
		return;
	}
	if (bi->n_modules == MAX_MODULES) {
		printk(KERN_WARNING "warning: multiboot2: more than %d modules; %s ignored\n",
		       MAX_MODULES, name);
		return;
	}
	bi->modules[bi->n_modules++] = (struct boot_module){ m[0], m[1], name };
}

static void parse_rsdp(const struct mb2_tag *tag, struct boot_info *bi, int revision)
{
	if (tag->size < 8 + 20)		/* an RSDP is at least 20 bytes */
		return;
	if (bi->rsdp && bi->rsdp_revision >= revision)
		return;			/* prefer the ACPI 2.0+ copy */
	bi->rsdp = virt_to_phys(tag + 1);
	bi->rsdp_revision = revision;
}

/*
 * Multiboot2 spec §3.6.12: address (u64), pitch, width, height (u32), bpp
 * and type (u8). Type 2 is EGA text: width and height count characters,
 * each two bytes (the character, then its colour). Graphic framebuffers
 * (UEFI's) are left alone: ccos has no font to draw with.
 */
static void parse_framebuffer(const struct mb2_tag *tag, struct boot_info *bi)
{
	const uint8_t *t = (const uint8_t *)tag;
	uint32_t pitch, width, height;

	if (tag->size < 30 || t[29] != 2)
		return;
	memcpy(&pitch, t + 16, 4);
	memcpy(&width, t + 20, 4);
	memcpy(&height, t + 24, 4);
	if (!width || !height || width > 256 || height > 256 || pitch < width * 2)
		return;
	memcpy(&bi->text_screen, t + 8, 8);
	bi->text_cols = width;
	bi->text_rows = height;
	bi->text_pitch = pitch;
}

bool multiboot2_parse(const void *mbi, struct boot_info *bi)
{
	uint32_t total = ((const uint32_t *)mbi)[0], off;
	const struct mb2_tag *tag;

	memset(bi, 0, sizeof(*bi));
	if (total < 16 || total > (1u << 24)) {
		printk(KERN_ERR "multiboot2: information block of %u bytes: not believable\n", total);
		return false;
	}
	bi->mbi_start = virt_to_phys(mbi);
	bi->mbi_end = bi->mbi_start + total;
	for (off = 8; off + sizeof(struct mb2_tag) <= total; off = ALIGN_UP(off + tag->size, 8)) {
		tag = (const void *)((const char *)mbi + off);

		/* total - off, not off + size: a size near 4 GiB would wrap around. */
		if (tag->size < sizeof(*tag) || tag->size > total - off) {
			printk(KERN_ERR "multiboot2: tag %u at offset %u has size %u, past the block's %u bytes\n",
			       tag->type, off, tag->size, total);
			return false;
		}
		switch (tag->type) {
		case MB2_TAG_END:
			return true;
		case MB2_TAG_CMDLINE:
			bi->cmdline = tag_string(tag, 8);
			break;
		case MB2_TAG_LOADER:
			bi->loader = tag_string(tag, 8);
			break;
		case MB2_TAG_MODULE:
			parse_module(tag, bi);
			break;
		case MB2_TAG_MMAP:
			parse_mmap(tag, bi);
			break;
		case MB2_TAG_FRAMEBUFFER:
			parse_framebuffer(tag, bi);
			break;
		case MB2_TAG_EFI32:
		case MB2_TAG_EFI64:
		case MB2_TAG_EFI_MMAP:
			bi->uefi = true;
			break;
		case MB2_TAG_ACPI_OLD:
			parse_rsdp(tag, bi, 0);
			break;
		case MB2_TAG_ACPI_NEW:
			parse_rsdp(tag, bi, 2);
			break;
		}
	}
	printk(KERN_ERR "multiboot2: no end tag within the block's %u bytes\n", total);
	return false;
}
