/* In-kernel tests of the tree of areas: its shape, lookups and hole search against a plain map of pages. */
#include <ccos/ktest.h>
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/mm.h>
#include <ccos/lib.h>

#define SLOTS	4096				/* pages of the test's space */
#define BASE	0x10000000ul
#define SLOT(i)	(BASE + (uint64_t)(i) * PAGE_SIZE)

static struct vma *owner[SLOTS];		/* the area over each page, or NULL */
static uint64_t seed;

static uint64_t next_random(void)		/* xorshift64: the same run every boot */
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* The subtree's height if it is a sorted AVL tree with right sums, else -1. */
static int check(const struct vma *t, uint64_t after)
{
	int l, r;

	if (!t)
		return 0;
	l = check(t->left, after);
	if (l < 0 || t->start < after || t->start >= t->end)
		return -1;
	r = check(t->right, t->end);
	if (r < 0 || l - r > 1 || r - l > 1 || t->height != 1 + MAX(l, r))
		return -1;
	if (t->lo != (t->left ? t->left->lo : t->start) || t->hi != (t->right ? t->right->hi : t->end))
		return -1;
	if (t->gap != MAX(t->left ? MAX(t->left->gap, t->start - t->left->hi) : 0,
			  t->right ? MAX(t->right->gap, t->right->lo - t->end) : 0))
		return -1;
	return t->height;
}

/* The highest free run of len pages in slots [lo, hi), as vma_find_gap answers it. */
static uint64_t slow_gap(int lo, int hi, int len)
{
	int a, i;

	for (a = hi - len; a >= lo; a--) {
		for (i = 0; i < len && !owner[a + i]; i++)
			;
		if (i == len)
			return SLOT(a);
	}
	return 0;
}

static void add_area(struct mm *mm, int at, int pages)
{
	struct vma *v = kzalloc(sizeof(*v));
	int i;

	*v = (struct vma){ .start = SLOT(at), .end = SLOT(at + pages) };
	vma_insert(mm, v);
	for (i = 0; i < pages; i++)
		owner[at + i] = v;
}

static void remove_area(struct mm *mm, struct vma *v)
{
	int i;

	for (i = (v->start - BASE) / PAGE_SIZE; i < (int)((v->end - BASE) / PAGE_SIZE); i++)
		owner[i] = NULL;
	vma_remove(mm, v);
	kfree(v);
}

/*
 * Every lookup (the hint's answers among them: each lookup leaves one for
 * the next), the list of areas and a sample of hole searches agree with
 * the map of pages.
 */
static void compare(struct mm *mm)
{
	struct vma *ended = NULL, *v, *prev;
	size_t n = 0;
	int i, k;

	KEXPECT(check(mm->vmas, 0) >= 0);
	for (i = 0; i < SLOTS; i++) {
		struct vma *next = NULL;

		for (k = i; k < SLOTS && !next; k++)
			next = owner[k];
		if (i && owner[i - 1] && owner[i - 1]->end == SLOT(i))
			ended = owner[i - 1];
		KEXPECT(mm_find_vma(mm, SLOT(i) + 8) == owner[i]);
		KEXPECT(vma_next(mm, SLOT(i)) == next);
		KEXPECT(vma_prev(mm, SLOT(i)) == ended);
	}
	for (prev = NULL, v = vma_next(mm, 0); v; prev = v, v = v->next, n++)
		KEXPECT(v->prev == prev && (!prev || prev->end <= v->start));
	KEXPECT_EQ(n, mm->nr_vmas);
	for (k = 0; k < 64; k++) {
		int lo = next_random() % SLOTS, hi = lo + next_random() % (SLOTS - lo + 1);
		int len = 1 + next_random() % 6;

		KEXPECT_EQ(vma_find_gap(mm, SLOT(lo), SLOT(hi), len * PAGE_SIZE),
			   slow_gap(lo, hi, len));
	}
}

KTEST(vma_tree_matches_a_map_of_pages)
{
	struct mm mm = { 0 };
	int round, i, n = 0;

	seed = 0x9e3779b97f4a7c15ul;
	memset(owner, 0, sizeof(owner));
	for (round = 0; round < 6; round++) {
		/* Fill about half of the free pages with areas of 1 to 4 pages ... */
		for (i = 0; i < SLOTS / 4; i++) {
			int at = next_random() % SLOTS, pages = 1 + next_random() % 4, k;

			for (k = 0; k < pages && at + k < SLOTS && !owner[at + k]; k++)
				;
			if (k == pages) {
				add_area(&mm, at, pages);
				n++;
			}
		}
		compare(&mm);
		/* ... then empty about half of them. */
		for (i = 0; i < SLOTS; i++)
			if (owner[i] && owner[i]->start == SLOT(i) && next_random() % 2) {
				remove_area(&mm, owner[i]);
				n--;
			}
		compare(&mm);
		KEXPECT_EQ(mm.nr_vmas, n);
	}
	/* AVL: height at most 1.44 log2(n + 2); 1.5 times its ceiling is checked. */
	KEXPECT(2 * check(mm.vmas, 0) <= 3 * (64 - __builtin_clzl(n + 2)));
	vma_free_all(&mm);
	KEXPECT(mm.vmas == NULL);
}

KTEST(vma_gap_search_edges)
{
	struct mm mm = { 0 };

	memset(owner, 0, sizeof(owner));
	KEXPECT_EQ(vma_find_gap(&mm, SLOT(0), SLOT(10), 10 * PAGE_SIZE), SLOT(0));
	KEXPECT_EQ(vma_find_gap(&mm, SLOT(0), SLOT(10), 11 * PAGE_SIZE), 0);
	add_area(&mm, 5, 1);
	KEXPECT_EQ(vma_find_gap(&mm, SLOT(0), SLOT(10), 4 * PAGE_SIZE), SLOT(6));
	KEXPECT_EQ(vma_find_gap(&mm, SLOT(0), SLOT(10), 5 * PAGE_SIZE), SLOT(0));
	KEXPECT_EQ(vma_find_gap(&mm, SLOT(0), SLOT(10), 6 * PAGE_SIZE), 0);
	/* An area reaching past hi, and one below lo: only [lo, hi) counts. */
	add_area(&mm, 8, 4);
	add_area(&mm, 0, 1);
	KEXPECT_EQ(vma_find_gap(&mm, SLOT(1), SLOT(10), 2 * PAGE_SIZE), SLOT(6));
	KEXPECT_EQ(vma_find_gap(&mm, SLOT(1), SLOT(10), 4 * PAGE_SIZE), SLOT(1));
	KEXPECT_EQ(vma_find_gap(&mm, SLOT(2), SLOT(9), 4 * PAGE_SIZE), 0);
	vma_free_all(&mm);
}
