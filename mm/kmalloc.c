/* The kernel heap: power-of-two size classes carved from frames and given back, with debug checks. */
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
	uint32_t class;		/* index into the classes, or LARGE */
	uint64_t size;		/* bytes asked for */
	struct block *next;	/* its page's free list link while free */
	uint64_t pad;		/* keeps the payload 16-byte aligned */
};

/*
 * A page of one class holds its own free list; its first block is this
 * header, never handed out. A class keeps a list of its pages that have a
 * free block (partial), so that a page whose blocks are all free again
 * can be found and given back to the frame allocator.
 */
struct slab {
	struct slab *next, *prev;	/* the class's partial pages */
	struct block *free;
	uint32_t used;			/* blocks handed out */
	uint32_t class;
};

#define MIN_SHIFT	6	/* 64-byte blocks (the header and canary take 40) ... */
#define NCLASSES	5	/* ... up to 1024; anything larger takes whole frames */
#define LARGE		0xff

/* Lock rule: heap_lock guards the classes and free_bytes; it nests outside frame_lock. */
static DEFINE_SPINLOCK(heap_lock);
static struct slab *partial[NCLASSES];
static size_t free_bytes;	/* of the heap's pages, what no block in use takes */

static size_t class_size(int c)
{
	return 1ul << (MIN_SHIFT + c);
}

static struct slab *slab_of(const struct block *b)
{
	return (struct slab *)((uint64_t)b & ~(PAGE_SIZE - 1));
}

static void partial_add(struct slab *s)
{
	s->prev = NULL;
	s->next = partial[s->class];
	if (s->next)
		s->next->prev = s;
	partial[s->class] = s;
}

static void partial_remove(struct slab *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		partial[s->class] = s->next;
	if (s->next)
		s->next->prev = s->prev;
}

/* A fresh page of class c: every block but the header on its free list. */
static struct slab *slab_new(int c)
{
	uint64_t frame = frame_alloc();
	struct slab *s;
	size_t off;

	if (!frame)
		return NULL;
	s = phys_to_virt(frame);
	s->free = NULL;
	s->used = 0;
	s->class = c;
	for (off = PAGE_SIZE - class_size(c); off >= class_size(c); off -= class_size(c)) {
		struct block *b = (struct block *)((char *)s + off);

		b->magic = MAGIC_FREE;
		b->class = c;
		b->next = s->free;
		s->free = b;
	}
	partial_add(s);
	free_bytes += PAGE_SIZE;	/* the header too: it goes back with the page */
	return s;
}

void *kmalloc(size_t size)
{
	size_t need = sizeof(struct block) + size + sizeof(uint64_t);
	struct block *b;
	struct slab *s;
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
		s = partial[c] ? partial[c] : slab_new(c);
		if (!s) {
			spin_unlock(&heap_lock);
			return NULL;
		}
		b = s->free;
		s->free = b->next;
		s->used++;
		if (!s->free)
			partial_remove(s);
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
	struct slab *s;
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
	s = slab_of(b);
	spin_lock(&heap_lock);
	if (!s->free)
		partial_add(s);
	b->next = s->free;
	s->free = b;
	s->used--;
	free_bytes += class_size(b->class);
	/* All free: the page goes back, unless it is the class's only
	 * partial page (a block taken and freed over and over would
	 * otherwise take and give back a frame each time). */
	if (!s->used && (s->next || s->prev)) {
		partial_remove(s);
		free_bytes -= PAGE_SIZE;
		frame_free(virt_to_phys(s));
	}
	spin_unlock(&heap_lock);
}

/*
 * Free memory, what MemFree and sysinfo's freeram report: the free frames,
 * what the heap's pages hold free, and the frames of freed kernel stacks
 * that wait for their flush (kernel/kstack.c). Frames and heap are read
 * together under heap_lock, so that a page going from one to the other is
 * counted once: the sum only moves when a block is taken or given back.
 */
size_t mem_free_bytes(void)
{
	size_t n;

	spin_lock(&heap_lock);
	n = frames_free() * PAGE_SIZE + free_bytes;
	spin_unlock(&heap_lock);
	return n + kstack_waiting_frames() * PAGE_SIZE;
}
