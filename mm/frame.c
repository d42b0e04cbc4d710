/* Physical frames: a bitmap over the multiboot2 memory map, one bit per 4 KiB frame, and a count of each frame's users. */
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

/*
 * How many page-table entries of user memory map each frame (Linux's
 * page->_mapcount, in spirit), plus one for its owner: 1 from frame_alloc
 * on, one more for each address space that fork gave the frame to share
 * (copy on write, mm/memory.c). A GRUB module's frames start at 1 too,
 * the module's own reference, which is never put: programs map them
 * read-only (their ELF segments' pages), and a write copies them, as
 * Linux's page cache pages. Frames taken only by the kernel (its tables,
 * heap and stacks) keep their 1. NPROC address spaces at most can share
 * a frame, so 16 bits are plenty. Changed atomically: a frame is shared
 * by address spaces, which the kernel lock guards today but which need
 * not share a lock. One entry per frame of RAM, taken from the frames
 * themselves at boot.
 */
static uint16_t *refs;
static uint64_t nr_refs;	/* frames that have an entry */

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

/* The counts, for every frame below ram_end: 2 bytes a frame (128 KiB for 256 MiB). */
static void refs_init(const struct boot_info *bi, uint64_t ram_end)
{
	uint64_t n = ALIGN_UP(ram_end / PAGE_SIZE * sizeof(*refs), PAGE_SIZE) / PAGE_SIZE, run, f;
	int i;

	if (!(run = frame_alloc_run(n)))
		panic("frames: no %lu frames in a row for the frames' counts", n);
	refs = phys_to_virt(run);
	nr_refs = ram_end / PAGE_SIZE;
	for (; n; n--, run += PAGE_SIZE)
		refs[run / PAGE_SIZE] = 1;
	for (i = 0; i < bi->n_modules; i++)
		for (f = ALIGN_DOWN(bi->modules[i].start, PAGE_SIZE); f < bi->modules[i].end; f += PAGE_SIZE)
			if (f / PAGE_SIZE < nr_refs)
				refs[f / PAGE_SIZE] = 1;
}

void frame_init(void)
{
	const struct boot_info *bi = &boot_info;
	uint64_t freed, ram_end = 0;
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
		ram_end = MAX(ram_end, end);
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
	refs_init(bi, ram_end);
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

/* n free frames in a row, marked used, each counted once; not zeroed. */
static uint64_t take_run(size_t n)
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
	for (i = 0; i < n; i++) {
		mark(pfn + i, true);
		if (refs)
			refs[pfn + i] = 1;
	}
	nr_free -= n;
	search_from = pfn + n;
	spin_unlock(&frame_lock);
	return pfn * PAGE_SIZE;
}

uint64_t frame_alloc_run(size_t n)
{
	uint64_t phys = take_run(n);

	if (phys)
		memset(phys_to_virt(phys), 0, n * PAGE_SIZE);
	return phys;
}

uint64_t frame_alloc(void)
{
	return frame_alloc_run(1);
}

/* A frame whose every byte the caller writes next (a copy): zeroing it would be wasted. */
uint64_t frame_alloc_uninit(void)
{
	return take_run(1);
}

void frame_free_run(uint64_t phys, size_t n)
{
	uint64_t pfn = phys / PAGE_SIZE;

	spin_lock(&frame_lock);
	for (; n; n--, pfn++) {
		if (phys % PAGE_SIZE || pfn >= NFRAMES || !frame_is_used(pfn))
			panic("frame_free: %lx is not an allocated frame", pfn * PAGE_SIZE);
		if (pfn < nr_refs && refs[pfn] != 1)
			panic("frame_free: %lx is still mapped %u times", pfn * PAGE_SIZE, refs[pfn] - 1);
		mark(pfn, false);
		nr_free++;
	}
	spin_unlock(&frame_lock);
}

void frame_free(uint64_t phys)
{
	frame_free_run(phys, 1);
}

/* One more page-table entry maps phys (fork shares it). */
void frame_get(uint64_t phys)
{
	__atomic_add_fetch(&refs[phys / PAGE_SIZE], 1, __ATOMIC_RELAXED);
}

/* One entry fewer maps phys; the last one frees it. */
void frame_put(uint64_t phys)
{
	if (__atomic_sub_fetch(&refs[phys / PAGE_SIZE], 1, __ATOMIC_ACQ_REL) == 0) {
		refs[phys / PAGE_SIZE] = 1;	/* as frame_free finds a frame of one user */
		frame_free(phys);
	}
}

/* How many entries map phys: 1 means the caller's is the only one. */
unsigned int frame_users(uint64_t phys)
{
	return __atomic_load_n(&refs[phys / PAGE_SIZE], __ATOMIC_ACQUIRE);
}

size_t frames_free(void)
{
	return nr_free;
}

size_t frames_used(void)
{
	return nr_total - nr_free;
}
