/* Physical frames: a bitmap over the multiboot2 memory map, one bit per 4 KiB frame. */
#include <ccos/mm.h>
#include <ccos/boot.h>
#include <ccos/printk.h>
#include <ccos/lib.h>
#include <ccos/spinlock.h>

#define MAX_PHYS	(4ul << 30)		/* frames above 4 GiB are not used */
#define NFRAMES		(MAX_PHYS / PAGE_SIZE)

/* Lock rule: frame_lock guards bitmap, nr_free and search_from; a leaf lock (docs/smp.md). */
static DEFINE_SPINLOCK(frame_lock);
static uint64_t bitmap[NFRAMES / 64];	/* 1 = used or reserved */
static size_t nr_free, nr_total;
static uint64_t search_from;
uint64_t trampoline_frame;	/* below 1 MiB, for the APs' first instructions; 0 = none */

extern char _kernel_end[];

static bool frame_is_used(uint64_t pfn)
{
	return bitmap[pfn / 64] & (1ul << (pfn % 64));
}

static void mark(uint64_t pfn, bool used)
{
	if (used)
		bitmap[pfn / 64] |= 1ul << (pfn % 64);
	else
		bitmap[pfn / 64] &= ~(1ul << (pfn % 64));
}

/* Bits set in w: add pairs, then nibbles, then bytes, and sum the bytes. */
static uint64_t popcount(uint64_t w)
{
	w -= (w >> 1) & 0x5555555555555555ul;
	w = (w & 0x3333333333333333ul) + ((w >> 2) & 0x3333333333333333ul);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0ful;
	return (w * 0x0101010101010101ul) >> 56;
}

/*
 * Mark frames [start, end) used or free, a bitmap word at a time (256 MiB
 * is 1024 words, not 65536 bits); returns how many changed state.
 */
static uint64_t mark_range(uint64_t start, uint64_t end, bool used)
{
	uint64_t pfn, span, mask, changed, n = 0;

	end = MIN(end, NFRAMES);
	for (pfn = start; pfn < end; pfn += span) {
		span = MIN(64 - pfn % 64, end - pfn);
		mask = (span == 64 ? ~0ul : (1ul << span) - 1) << (pfn % 64);
		changed = (used ? ~bitmap[pfn / 64] : bitmap[pfn / 64]) & mask;
		bitmap[pfn / 64] ^= changed;
		n += popcount(changed);
	}
	return n;
}

/* Mark [start, end) used; only frames that were free count. */
static void reserve(uint64_t start, uint64_t end)
{
	nr_free -= mark_range(start / PAGE_SIZE, ALIGN_UP(end, PAGE_SIZE) / PAGE_SIZE, true);
}

/*
 * A page below 1 MiB for arch/x86/smp.c's real-mode trampoline: a startup
 * IPI starts a CPU in real mode at CS:IP = VV00:0000, so the page must be
 * below 1 MiB and page-aligned, and its number VV cannot be 0xa0-0xbf
 * (reserved for the VGA window). The highest such page that the memory
 * map calls RAM and neither the multiboot information nor a module
 * overlaps (GRUB under UEFI may load a small module there); the first MiB
 * is reserved below, so nothing else is ever put there.
 */
static bool boot_data_overlaps(const struct boot_info *bi, uint64_t page)
{
	int i;

	if (page < bi->mbi_end && page + PAGE_SIZE > bi->mbi_start)
		return true;
	for (i = 0; i < bi->n_modules; i++)
		if (page < bi->modules[i].end && page + PAGE_SIZE > bi->modules[i].start)
			return true;
	return false;
}

static void find_trampoline_frame(const struct boot_info *bi)
{
	uint64_t start, end;
	int i;

	for (i = 0; i < bi->n_mmap; i++) {
		const struct mmap_region *r = &bi->mmap[i];

		if (r->type != 1)
			continue;
		start = MAX(ALIGN_UP(r->base, PAGE_SIZE), PAGE_SIZE);	/* not page 0: the real-mode IVT */
		end = MIN(ALIGN_DOWN(r->base + r->len, PAGE_SIZE), 0xa0000ul);
		for (; end > start; end -= PAGE_SIZE)
			if (!boot_data_overlaps(bi, end - PAGE_SIZE))
				break;
		if (end > start && end - PAGE_SIZE > trampoline_frame)
			trampoline_frame = end - PAGE_SIZE;
	}
}

void frame_init(void)
{
	const struct boot_info *bi = &boot_info;
	uint64_t freed;
	int i;

	memset(bitmap, 0xff, sizeof(bitmap));
	for (i = 0; i < bi->n_mmap; i++) {
		const struct mmap_region *r = &bi->mmap[i];
		uint64_t start = ALIGN_UP(r->base, PAGE_SIZE);
		uint64_t end = ALIGN_DOWN(r->base + r->len, PAGE_SIZE);

		if (r->type != 1)	/* only "available RAM" is ours */
			continue;
		if (end > MAX_PHYS) {
			printk(KERN_NOTICE "frames: RAM above 4 GiB (%lx-%lx) is not used\n",
			       MAX(start, MAX_PHYS), end);
			end = MAX_PHYS;
		}
		freed = mark_range(start / PAGE_SIZE, end / PAGE_SIZE, false);
		nr_free += freed;
		nr_total += freed;
	}
	/* Never hand out: the first MiB (real-mode IVT, BDA, EBDA, option
	 * ROMs), the kernel image with its boot page tables, the multiboot
	 * information and the modules. */
	find_trampoline_frame(bi);
	reserve(0, 0x100000);
	reserve(0x100000, virt_to_phys(_kernel_end));
	reserve(bi->mbi_start, bi->mbi_end);
	for (i = 0; i < bi->n_modules; i++)
		reserve(bi->modules[i].start, bi->modules[i].end);
	search_from = 0;
}

/* The first pfn of n free frames in a row at or above from, or NFRAMES. */
static uint64_t find_run(uint64_t from, size_t n)
{
	uint64_t pfn, run = 0;

	for (pfn = from; pfn < NFRAMES; pfn++) {
		run = frame_is_used(pfn) ? 0 : run + 1;
		if (run == n)
			return pfn - (n - 1);
	}
	return NFRAMES;
}

uint64_t frame_alloc_run(size_t n)
{
	uint64_t pfn, i;

	spin_lock(&frame_lock);
	pfn = find_run(search_from, n);
	if (pfn == NFRAMES && search_from)
		pfn = find_run(0, n);	/* wrap around once */
	if (pfn == NFRAMES) {
		spin_unlock(&frame_lock);
		return 0;
	}
	for (i = 0; i < n; i++)
		mark(pfn + i, true);
	nr_free -= n;
	search_from = pfn + n;
	spin_unlock(&frame_lock);
	memset(phys_to_virt(pfn * PAGE_SIZE), 0, n * PAGE_SIZE);
	return pfn * PAGE_SIZE;
}

uint64_t frame_alloc(void)
{
	return frame_alloc_run(1);
}

void frame_free_run(uint64_t phys, size_t n)
{
	uint64_t pfn = phys / PAGE_SIZE;

	spin_lock(&frame_lock);
	for (; n; n--, pfn++) {
		if (phys % PAGE_SIZE || pfn >= NFRAMES || !frame_is_used(pfn))
			panic("frame_free: %lx is not an allocated frame", pfn * PAGE_SIZE);
		mark(pfn, false);
		nr_free++;
	}
	spin_unlock(&frame_lock);
}

void frame_free(uint64_t phys)
{
	frame_free_run(phys, 1);
}

size_t frames_free(void)
{
	return nr_free;
}

size_t frames_used(void)
{
	return nr_total - nr_free;
}
