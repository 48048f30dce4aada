#include "config.h"

#include "tflame/layout.h"

#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/xalloc.h"

/*
 * Both panes are laid out by one walk, a row at a time. The visible nodes
 * of a row (those that got a box) are kept in x order; the next row is
 * their children, found by binary search on x, in the same order, so boxes
 * come out sorted by row and column with no sorting.
 *
 * A node gets its own box when it is at least one cell wide. Its box is
 * [col(start), col(end)), where col() rounds to the nearest cell edge:
 * since col() is monotone, siblings that touch on x touch on screen, and
 * the boxes of a family never overlap and fill their parent's cells. The
 * nodes narrower than a cell, and the gaps narrower than a cell between
 * them, form runs; a run is drawn as one BOX_MERGED box over [col(run
 * start), col(run end)), or not at all when that is empty.
 *
 * The cost stays bounded by the screen: a row holds at most width visible
 * nodes, and a run of narrow nodes is crossed by jumping about a cell at a
 * time (binary search for the last node starting within `step` of the run's
 * end) instead of visiting the thousands of slivers a cell can hold.
 */

/* The children of one visible node: a range of a sorted sequence. */
struct seq_ops {
	uint64_t (*start)(const void *src, uint32_t i);
	uint64_t (*end)(const void *src, uint32_t i);
	uint32_t (*node)(const void *src, uint32_t i);
};

struct walk {
	const struct view *v;
	struct layout *l;
	/*
	 * The widest weight narrower than one cell, (span - 1) / width: a
	 * node of weight w is narrow when w <= step, and `step` is also the
	 * longest jump that cannot pass over a node one cell wide.
	 */
	uint64_t step;
	uint32_t row;
	bool emit;     /* row is one of the rows asked for */
	uint32_t *next; /* visible nodes of this row, in x order */
	size_t nr_next, alloc_next;
};

void
layout_init(struct layout *l)
{
	memset(l, 0, sizeof(*l));
}

void
layout_release(struct layout *l)
{
	free(l->boxes);
	memset(l, 0, sizeof(*l));
}

/* floor(a * b / c) and the remainder, for a <= c, c > 0. */
static uint64_t
mul_div(uint64_t a, uint32_t b, uint64_t c, uint64_t *rem)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 p = (unsigned __int128)a * b;

	*rem = (uint64_t)(p % c);
	return (uint64_t)(p / c);
#else
	/* Long division of the 96-bit product, one bit at a time. */
	uint64_t hi = (a >> 32) * b, lo = (a & 0xffffffffu) * b;
	uint64_t q = 0, r = 0;

	hi += lo >> 32;
	lo &= 0xffffffffu;
	for (int i = 95; i >= 0; i--) {
		uint64_t bit = i >= 32 ? (hi >> (i - 32)) & 1 : (lo >> i) & 1;
		bool carry = r >> 63;

		r = (r << 1) | bit;
		q <<= 1;
		if (carry || r >= c) {
			r -= c;
			q |= 1;
		}
	}
	*rem = r;
	return q;
#endif
}

/* The cell edge nearest x (halves round up), clamped to [0, width]. */
static uint32_t
col_of(const struct view *v, uint64_t x)
{
	uint64_t span = v->x1 - v->x0, q, rem;

	if (x <= v->x0)
		return 0;
	if (x >= v->x1)
		return v->width;
	q = mul_div(x - v->x0, v->width, span, &rem);
	if (rem >= span - rem)
		q++;
	return (uint32_t)q;
}

static void
add_box(struct walk *w, uint32_t col0, uint32_t col1, uint32_t node, uint32_t flags)
{
	struct layout *l = w->l;

	ALLOC_GROW(l->boxes, l->nr, l->alloc);
	l->boxes[l->nr].row = w->row;
	l->boxes[l->nr].col0 = col0;
	l->boxes[l->nr].col1 = col1;
	l->boxes[l->nr].node = node;
	l->boxes[l->nr].flags = flags;
	l->nr++;
}

static void
close_run(struct walk *w, uint64_t rs, uint64_t re)
{
	uint32_t c0 = col_of(w->v, rs), c1 = col_of(w->v, re);

	if (w->emit && c1 > c0)
		add_box(w, c0, c1, 0, BOX_MERGED);
}

/* The first i in [lo, hi) with end(i) > x, or hi. */
static uint32_t
first_ending_after(const struct seq_ops *ops, const void *src, uint32_t lo, uint32_t hi,
		   uint64_t x)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ops->end(src, mid) > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The last i in [lo, hi) with start(i) <= x, or lo - 1 if none. */
static uint32_t
last_starting_by(const struct seq_ops *ops, const void *src, uint32_t lo, uint32_t hi,
		 uint64_t x)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ops->start(src, mid) <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/*
 * Lay out the children [lo, hi) of one visible node that covers [px0, px1):
 * a range of a sequence sorted by x, whose members outside [px0, px1) are
 * someone else's. Boxes go to row w->row; children with a box go to
 * w->next for the row below.
 */
static void
walk_kids(struct walk *w, const struct seq_ops *ops, const void *src, uint32_t lo,
	  uint32_t hi, uint64_t px0, uint64_t px1)
{
	const struct view *v = w->v;
	uint64_t stop = px1 < v->x1 ? px1 : v->x1;
	uint64_t rs = 0, re = 0;
	bool in_run = false;
	uint32_t i = first_ending_after(ops, src, lo, hi, px0 > v->x0 ? px0 : v->x0);

	while (i < hi) {
		uint64_t s = ops->start(src, i), e = ops->end(src, i), p;
		uint32_t j;

		if (s >= stop)
			break;
		if (in_run && s - re > w->step) {
			close_run(w, rs, re);
			in_run = false;
		}
		if (e - s > w->step) {
			uint32_t c0 = col_of(v, s), c1 = col_of(v, e);

			if (in_run) {
				close_run(w, rs, re);
				in_run = false;
			}
			/* Clipped by the view to less than a cell: nothing to show. */
			if (c1 > c0) {
				if (w->emit)
					add_box(w, c0, c1, ops->node(src, i), 0);
				ALLOC_GROW(w->next, w->nr_next, w->alloc_next);
				w->next[w->nr_next++] = ops->node(src, i);
			}
			i++;
			continue;
		}
		if (!in_run)
			rs = s;
		in_run = true;
		re = e;
		/*
		 * Everything that starts within step of e, and before the
		 * parent ends, is narrower than a cell and joins the run: jump
		 * to the last of them.
		 */
		if (e >= px1)
			break;
		p = px1 - 1 - e < w->step ? px1 - 1 : e + w->step;
		j = i + 1 < hi ? last_starting_by(ops, src, i + 1, hi, p) : i;
		if (j > i + 1)
			re = ops->end(src, j - 1);
		i = j > i ? j : i + 1;
	}
	if (in_run)
		close_run(w, rs, re);
}

/* Set up a walk over v; false if there is nothing to lay out. */
static bool
walk_init(struct walk *w, struct layout *l, const struct view *v)
{
	memset(w, 0, sizeof(*w));
	w->v = v;
	w->l = l;
	l->nr = 0;
	if (!v->width || !v->nr_rows || v->x1 <= v->x0)
		return false;
	w->step = (v->x1 - v->x0 - 1) / v->width;
	return true;
}

/* Whether row is in the window, without overflow. */
static bool
row_shown(const struct view *v, uint32_t row)
{
	return row >= v->first_row && row - v->first_row < v->nr_rows;
}

static bool
row_past(const struct view *v, uint32_t row)
{
	return row >= v->first_row && row - v->first_row >= v->nr_rows;
}

/* ------------------------------------------------------------ Left Heavy */

static uint64_t
tree_start(const void *src, uint32_t i)
{
	const struct calltree *t = src;

	return t->x0[t->kids[i]];
}

static uint64_t
tree_end(const void *src, uint32_t i)
{
	const struct calltree *t = src;

	return t->x0[t->kids[i]] + t->total[t->kids[i]];
}

static uint32_t
tree_node(const void *src, uint32_t i)
{
	const struct calltree *t = src;

	return t->kids[i];
}

static const struct seq_ops tree_ops = {
	.start = tree_start,
	.end = tree_end,
	.node = tree_node,
};

void
layout_tree(struct layout *l, const struct calltree *t, const struct view *v)
{
	struct walk w;
	uint32_t *cur = NULL;
	size_t nr_cur = 0, alloc_cur = 0;

	if (!walk_init(&w, l, v) || !t->nr_nodes || !t->total[STACK_ROOT])
		return;
	ALLOC_GROW(cur, nr_cur, alloc_cur);
	cur[nr_cur++] = STACK_ROOT;
	for (w.row = 0; nr_cur && !row_past(v, w.row); w.row++) {
		uint32_t *tmp;
		size_t tmp_alloc;

		w.emit = row_shown(v, w.row);
		w.nr_next = 0;
		for (size_t k = 0; k < nr_cur; k++) {
			stack_id n = cur[k];

			walk_kids(&w, &tree_ops, t, t->first[n], t->first[n] + t->nr_kids[n],
				  t->x0[n], t->x0[n] + t->total[n]);
		}
		tmp = cur;
		cur = w.next;
		nr_cur = w.nr_next;
		tmp_alloc = alloc_cur;
		alloc_cur = w.alloc_next;
		w.next = tmp;
		w.alloc_next = tmp_alloc;
	}
	free(cur);
	free(w.next);
}

bool
calltree_node_range(const struct calltree *t, stack_id node, uint64_t *x0, uint64_t *x1)
{
	if (node >= t->nr_nodes || !t->total[node])
		return false;
	*x0 = t->x0[node];
	*x1 = t->x0[node] + t->total[node];
	return true;
}

/* ------------------------------------------------------------ Time Order */

static uint64_t
chart_start(const void *src, uint32_t i)
{
	return chart_x0(src, i);
}

static uint64_t
chart_end(const void *src, uint32_t i)
{
	return chart_x1(src, i);
}

static uint32_t
chart_node(const void *src, uint32_t i)
{
	(void)src;
	return i;
}

static const struct seq_ops chart_ops = {
	.start = chart_start,
	.end = chart_end,
	.node = chart_node,
};

void
layout_chart(struct layout *l, const struct chart *c, const struct view *v)
{
	struct walk w;
	uint32_t *cur = NULL;
	size_t nr_cur = 0, alloc_cur = 0;
	bool top = true; /* row 0: the whole row is one family */

	if (!walk_init(&w, l, v) || !c->nr_rows)
		return;
	for (w.row = 0; w.row < c->nr_rows && (top || nr_cur) && !row_past(v, w.row); w.row++) {
		uint32_t lo = c->row_start[w.row], hi = c->row_start[w.row + 1];
		uint32_t *tmp;
		size_t tmp_alloc;

		w.emit = row_shown(v, w.row);
		w.nr_next = 0;
		if (top) {
			walk_kids(&w, &chart_ops, c, lo, hi, 0, c->total);
			top = false;
		}
		for (size_t k = 0; k < nr_cur; k++) {
			uint64_t x0 = chart_x0(c, cur[k]), x1 = chart_x1(c, cur[k]);

			/* The family starts at the first box of the row past its parent's start. */
			lo = first_ending_after(&chart_ops, c, lo, hi, x0);
			walk_kids(&w, &chart_ops, c, lo, hi, x0, x1);
		}
		tmp = cur;
		cur = w.next;
		nr_cur = w.nr_next;
		tmp_alloc = alloc_cur;
		alloc_cur = w.alloc_next;
		w.next = tmp;
		w.alloc_next = tmp_alloc;
	}
	free(cur);
	free(w.next);
}

/* ----------------------------------------------------------------- check */

int
layout_check(const struct layout *l, const struct view *v, struct tf_error *err)
{
	for (size_t i = 0; i < l->nr; i++) {
		const struct box *b = &l->boxes[i];

		if (!row_shown(v, b->row))
			return tf_error_set(err, "box %zu: row %u outside the window", i, b->row);
		if (b->col1 <= b->col0 || b->col1 > v->width)
			return tf_error_set(err, "box %zu: columns [%u, %u) in a width of %u", i,
					    b->col0, b->col1, v->width);
		if (b->flags & ~(uint32_t)BOX_MERGED)
			return tf_error_set(err, "box %zu: unknown flags %#x", i, b->flags);
		if ((b->flags & BOX_MERGED) && b->node)
			return tf_error_set(err, "box %zu: merged, but names node %u", i, b->node);
		if (!i)
			continue;
		if (b->row < b[-1].row)
			return tf_error_set(err, "box %zu: row %u after row %u", i, b->row,
					    b[-1].row);
		if (b->row == b[-1].row && b->col0 < b[-1].col1)
			return tf_error_set(err, "box %zu: [%u, %u) overlaps [%u, %u) on row %u", i,
					    b->col0, b->col1, b[-1].col0, b[-1].col1, b->row);
	}
	return 0;
}
