/* The areas of an address space: an AVL tree by address, each node knowing its subtree's holes, and a list in the same order. */
#include <ccos/proc.h>
#include <ccos/vm.h>
#include <ccos/mm.h>
#include <ccos/lib.h>
#include <ccos/shmem.h>

/*
 * Areas never overlap, so ordering them by start orders their ends too,
 * and one lookup finds the area at an address or the next one above it.
 * The tree is an AVL tree (Adelson-Velsky and Landis): the heights of a
 * node's two subtrees differ by at most one, so a lookup, an insertion or
 * a removal visits at most about 1.44 log2(n) nodes: 20 for 16,384 areas,
 * where a sorted list visited them all. An AVL tree rather than a
 * red-black tree because its rebalancing is two rotations and a height,
 * short enough to read at once.
 *
 * Each node also keeps its subtree's lowest start, highest end and
 * largest hole between two of its areas, recomputed from its children
 * whenever the subtree changes (update). mmap's search for a free range
 * then skips every subtree whose holes are all too small: it too visits
 * O(log n) nodes.
 *
 * An area's bounds never change while it is in the tree: vm.c removes
 * it, changes it and inserts it again, so that the nodes above it stay
 * right.
 *
 * The areas are also a list in address order (prev, next), as Linux's
 * were until 6.1: a walk over a range of areas steps to the next one
 * without a new search from the root, and fork, exit and /proc/PID/maps
 * visit each area in one step. And the last lookup's answer is kept
 * (mm->hint, Linux's old mmap_cache): a page fault, or an mprotect,
 * usually wants the area the one before it found, and a walk that asks
 * for the area after the one it has (v->end) the one after the hint.
 */

static int height(const struct vma *n)
{
	return n ? n->height : 0;
}

static void update(struct vma *n)
{
	const struct vma *l = n->left, *r = n->right;

	n->height = 1 + MAX(height(l), height(r));
	n->lo = l ? l->lo : n->start;
	n->hi = r ? r->hi : n->end;
	n->gap = MAX(l ? MAX(l->gap, n->start - l->hi) : 0,
		     r ? MAX(r->gap, r->lo - n->end) : 0);
}

static struct vma *rotate_right(struct vma *n)
{
	struct vma *l = n->left;

	n->left = l->right;
	l->right = n;
	update(n);
	update(l);
	return l;
}

static struct vma *rotate_left(struct vma *n)
{
	struct vma *r = n->right;

	n->right = r->left;
	r->left = n;
	update(n);
	update(r);
	return r;
}

/* Restore the AVL rule at n after one of its subtrees grew or shrank by one level. */
static struct vma *balance(struct vma *n)
{
	int tilt = height(n->left) - height(n->right);

	if (tilt > 1) {
		if (height(n->left->left) < height(n->left->right))
			n->left = rotate_left(n->left);
		return rotate_right(n);
	}
	if (tilt < -1) {
		if (height(n->right->right) < height(n->right->left))
			n->right = rotate_right(n->right);
		return rotate_left(n);
	}
	update(n);
	return n;
}

static struct vma *insert(struct vma *t, struct vma *v)
{
	if (!t) {
		v->left = v->right = NULL;
		update(v);
		return v;
	}
	if (v->start < t->start)
		t->left = insert(t->left, v);
	else
		t->right = insert(t->right, v);
	return balance(t);
}

static struct vma *remove_lowest(struct vma *t, struct vma **lowest)
{
	if (!t->left) {
		*lowest = t;
		return t->right;
	}
	t->left = remove_lowest(t->left, lowest);
	return balance(t);
}

static struct vma *remove(struct vma *t, const struct vma *v)
{
	struct vma *next;

	if (v->start < t->start) {
		t->left = remove(t->left, v);
	} else if (v->start > t->start) {
		t->right = remove(t->right, v);
	} else {
		if (!t->right)
			return t->left;
		t->right = remove_lowest(t->right, &next);	/* v's successor takes its place */
		next->left = t->left;
		next->right = t->right;
		return balance(next);
	}
	return balance(t);
}

/* Put v in the list between the areas the tree has below and above it. */
static void link(struct mm *mm, struct vma *v)
{
	struct vma *t = mm->vmas, *prev = NULL, *next = NULL;

	while (t) {
		if (v->start < t->start) {
			next = t;
			t = t->left;
		} else {
			prev = t;
			t = t->right;
		}
	}
	v->prev = prev;
	v->next = next;
	if (prev)
		prev->next = v;
	if (next)
		next->prev = v;
}

void vma_insert(struct mm *mm, struct vma *v)
{
	v->mm = mm;
	link(mm, v);
	mm->vmas = insert(mm->vmas, v);
	mm->nr_vmas++;
}

void vma_remove(struct mm *mm, struct vma *v)
{
	mm->vmas = remove(mm->vmas, v);
	mm->nr_vmas--;
	if (v->prev)
		v->prev->next = v->next;
	if (v->next)
		v->next->prev = v->prev;
	if (mm->hint == v)
		mm->hint = NULL;
}

/* The lowest area that ends above addr: the one holding addr, or the next one. */
struct vma *vma_next(struct mm *mm, uint64_t addr)
{
	struct vma *t = mm->vmas, *found = NULL, *h = mm->hint;

	if (h && h->end > addr && (!h->prev || h->prev->end <= addr))
		return h;			/* the hint itself */
	if (h && h->end <= addr && (!h->next || h->next->end > addr)) {
		if (h->next)			/* the one after it, or none */
			mm->hint = h->next;
		return h->next;
	}
	while (t) {
		if (t->end > addr) {
			found = t;
			t = t->left;
		} else {
			t = t->right;
		}
	}
	if (found)
		mm->hint = found;
	return found;
}

/* The highest area that ends at or below addr, or NULL. */
struct vma *vma_prev(struct mm *mm, uint64_t addr)
{
	struct vma *t = mm->vmas, *found = NULL;

	while (t) {
		if (t->end <= addr) {
			found = t;
			t = t->right;
		} else {
			t = t->left;
		}
	}
	return found;
}

struct vma *mm_find_vma(struct mm *mm, uint64_t addr)
{
	struct vma *v = vma_next(mm, addr);

	return v && v->start <= addr ? v : NULL;
}

/*
 * The highest a with [a, a + len) inside [lo, hi) and clear of t's areas,
 * or 0; no area outside t lies in [lo, hi). A subtree wholly inside
 * [lo, hi) whose holes, and whose room at either end, are all shorter
 * than len has no place: it is skipped without a visit.
 */
static uint64_t gap_below(const struct vma *t, uint64_t lo, uint64_t hi, uint64_t len)
{
	uint64_t a;

	if (hi < lo || hi - lo < len)
		return 0;
	if (!t || t->hi <= lo || t->lo >= hi)
		return hi - len;
	if (t->lo >= lo && t->hi <= hi && t->gap < len && t->lo - lo < len && hi - t->hi < len)
		return 0;
	a = gap_below(t->right, MAX(lo, t->end), hi, len);
	return a ? a : gap_below(t->left, lo, MIN(hi, t->start), len);
}

uint64_t vma_find_gap(struct mm *mm, uint64_t lo, uint64_t hi, uint64_t len)
{
	return gap_below(mm->vmas, lo, hi, len);
}

static void free_tree(struct vma *t)
{
	if (!t)
		return;
	free_tree(t->left);
	free_tree(t->right);
	shmem_vma_close(t);
	kfree(t);
}

void vma_free_all(struct mm *mm)
{
	free_tree(mm->vmas);
	mm->vmas = NULL;
	mm->nr_vmas = 0;
}
