/* The kernel heap: power-of-two size classes carved from frames, with debug checks. */
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/lib.h>
#include <ccos/spinlock.h>
#include <ccos/proc.h>

/*
 * Every block starts with a header and ends with a canary right after the
 * bytes asked for. kfree checks both: a header that says "free" is a double
 * free, a changed canary an overrun, and either panics with the address.
 */
#define MAGIC_USED	0xa110c8edu
#define MAGIC_FREE	0xf4eef4eeu
#define CANARY		0x5a5a5a5a5a5a5a5aul

struct block {
	uint32_t magic;
	uint32_t class;		/* index into the free lists, or LARGE */
	uint64_t size;		/* bytes asked for */
	struct block *next;	/* free list link while free */
	uint64_t pad;		/* keeps the payload 16-byte aligned */
};

#define MIN_SHIFT	5	/* 32-byte blocks ... */
#define NCLASSES	8	/* ... up to 4096 bytes */
#define LARGE		0xff

/* Lock rule: heap_lock guards the free lists and free_bytes; it nests outside frame_lock (refill). */
static DEFINE_SPINLOCK(heap_lock);
static struct block *free_lists[NCLASSES];
static size_t free_bytes;	/* in the free lists: frames the heap took but uses for nothing */

static size_t class_size(int c)
{
	return 1ul << (MIN_SHIFT + c);
}

static bool refill(int c)
{
	uint64_t frame = frame_alloc();
	char *page;
	size_t off;

	if (!frame)
		return false;
	page = phys_to_virt(frame);
	for (off = 0; off + class_size(c) <= PAGE_SIZE; off += class_size(c)) {
		struct block *b = (struct block *)(page + off);

		b->magic = MAGIC_FREE;
		b->class = c;
		b->next = free_lists[c];
		free_lists[c] = b;
	}
	free_bytes += PAGE_SIZE;	/* the class sizes divide a page */
	return true;
}

void *kmalloc(size_t size)
{
	size_t need = sizeof(struct block) + size + sizeof(uint64_t);
	struct block *b;
	int c;

	for (c = 0; c < NCLASSES && class_size(c) < need; c++)
		;
	if (c == NCLASSES) {
		size_t n = ALIGN_UP(need, PAGE_SIZE) / PAGE_SIZE;
		uint64_t run = frame_alloc_run(n);

		if (!run)
			return NULL;
		b = phys_to_virt(run);
		b->class = LARGE;
	} else {
		spin_lock(&heap_lock);
		if (!free_lists[c] && !refill(c)) {
			spin_unlock(&heap_lock);
			return NULL;
		}
		b = free_lists[c];
		free_lists[c] = b->next;
		free_bytes -= class_size(c);
		spin_unlock(&heap_lock);
	}
	b->magic = MAGIC_USED;
	b->size = size;
	memcpy((char *)(b + 1) + size, &(uint64_t){ CANARY }, sizeof(uint64_t));
	return b + 1;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

/* What is wrong with the block at p, or NULL: the heap's debug check. */
const char *kmalloc_check(const void *p)
{
	const struct block *b = (const struct block *)p - 1;
	uint64_t canary;

	if (b->magic == MAGIC_FREE)
		return "double free";
	if (b->magic != MAGIC_USED)
		return "not a kmalloc block";
	memcpy(&canary, (const char *)p + b->size, sizeof(canary));
	if (canary != CANARY)
		return "overrun past its end";
	return NULL;
}

void kfree(void *p)
{
	struct block *b = (struct block *)p - 1;
	const char *problem;

	if (!p)
		return;
	problem = kmalloc_check(p);
	if (problem)
		panic("kfree(%p): %s", p, problem);
	b->magic = MAGIC_FREE;
	if (b->class == LARGE) {
		frame_free_run(virt_to_phys(b),
			       ALIGN_UP(sizeof(*b) + b->size + sizeof(uint64_t), PAGE_SIZE) / PAGE_SIZE);
		return;
	}
	spin_lock(&heap_lock);
	b->next = free_lists[b->class];
	free_lists[b->class] = b;
	free_bytes += class_size(b->class);
	spin_unlock(&heap_lock);
}

/*
 * Free memory, what MemFree and sysinfo's freeram report: the free frames,
 * the heap's free blocks, which it keeps rather than giving back, and the
 * frames of freed kernel stacks that wait for their flush (kernel/kstack.c).
 * Frames and heap are read together under heap_lock, so that a refill (a
 * frame from one to the other) is counted once: the sum only moves when
 * memory is really taken or given back.
 */
size_t mem_free_bytes(void)
{
	size_t n;

	spin_lock(&heap_lock);
	n = frames_free() * PAGE_SIZE + free_bytes;
	spin_unlock(&heap_lock);
	return n + kstack_waiting_frames() * PAGE_SIZE;
}
