#include "config.h"

#include "tflame/layout.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/xalloc.h"

/*
 * Both panes are laid out a row at a time, and every row the same way: the
 * nodes of the row that overlap the view, in x order, are handed to
 * dominant(), which gives each slot to the node covering most of it; the
 * slots of a cell then make its owner and its two-colour drawing, and runs
 * of cells with one owner make the boxes.
 *
 * The chart keeps each row sorted by x, so dominant() reads it in place
 * and jumps over crowds of slivers by binary search. The tree's rows are
 * families side by side: the nodes of a row are the children of the
 * nodes above that overlap the view, found by binary search on x, in x
 * order with no sorting. Of a crowd of slivers in one slot, only a few
 * are followed down, always including the one with the deepest subtree
 * (keep_parents()), so the deepest stack under a sliver still shows.
 */

/* A row's nodes: a range of a sequence sorted by x. */
struct seq_ops {
	uint64_t (*start)(const void *src, uint32_t i);
	uint64_t (*end)(const void *src, uint32_t i);
	uint32_t (*node)(const void *src, uint32_t i);
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
	free(l->cells);
	free(l->slot);
	free(l->slot_narrow);
	free(l->nodes);
	free(l->next);
	memset(l, 0, sizeof(*l));
}

/* floor(a * b / c) and the remainder, for a <= c, c > 0. */
static uint64_t
mul_div(uint64_t a, uint32_t b, uint64_t c, uint64_t *rem)
{
	uint64_t p64;

	/*
	 * A layout asks this twice a slot and once a node: the product fits
	 * in 64 bits but for weights of over 2^52 or so, and a 128-bit
	 * division is a call to a library routine.
	 */
	if (!__builtin_mul_overflow(a, (uint64_t)b, &p64)) {
		*rem = p64 % c;
		return p64 / c;
	}
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

/*
 * The last i in [lo, hi) with start(i) <= x, or lo - 1 if none. The walk
 * asks for spans a slot or two on, so the search gallops from lo (1, 2,
 * 4... on) before it halves: O(log distance), over nearby spans.
 */
static uint32_t
last_starting_by(const struct seq_ops *ops, const void *src, uint32_t lo, uint32_t hi,
		 uint64_t x)
{
	for (uint64_t step = 1; lo < hi; step *= 2) {
		uint64_t probe = lo + step - 1;

		if (probe >= hi)
			break;
		if (ops->start(src, (uint32_t)probe) > x) {
			hi = (uint32_t)probe;
			break;
		}
		lo = (uint32_t)probe + 1;
	}
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
 * The first i in [lo, hi) with end(i) > x, or hi. The spans are disjoint,
 * so only the last one starting by x can end after it: the search is on
 * starts, and one end is read (a chart works ends out, at a cost).
 */
static uint32_t
first_ending_after(const struct seq_ops *ops, const void *src, uint32_t lo, uint32_t hi,
		   uint64_t x)
{
	uint32_t i = last_starting_by(ops, src, lo, hi, x);

	if (i + 1 == lo || ops->end(src, i) <= x)
		return i + 1;
	return i;
}

/*
 * layout_dominant() over the range [lo, hi) of any sorted sequence. The
 * pointer i only moves right, by binary search when a slot's spans are
 * left behind, so a slot costs O(LAYOUT_SLOT_SCAN + log(hi - lo)).
 */
static void
dominant(const struct seq_ops *ops, const void *src, uint32_t lo, uint32_t hi, uint64_t x0,
	 uint64_t x1, uint32_t nr_slots, uint64_t narrow_width, uint32_t *owner,
	 uint8_t *narrow)
{
	uint64_t span = x1 - x0, q = span / nr_slots, r = span % nr_slots, rem;
	uint32_t i = first_ending_after(ops, src, lo, hi, x0);

	for (uint32_t s = 0; s < nr_slots; s++) {
		uint64_t a = x0 + q * s + mul_div(r, s, nr_slots, &rem);
		uint64_t b = x0 + q * (s + 1) + mul_div(r, s + 1, nr_slots, &rem);
		uint64_t best_w = 0;
		uint32_t best = LAYOUT_NONE, seen = 0;
		bool best_narrow = false, jumped = false;

		/* The slot ends on the unit its end falls in. */
		b += rem != 0;
		if (i < hi && ops->end(src, i) <= a)
			i = first_ending_after(ops, src, i + 1, hi, a);
		for (uint32_t j = i; j < hi;) {
			uint64_t s0 = ops->start(src, j), e0 = ops->end(src, j), w;

			if (s0 >= b)
				break;
			/* Every span from i on ends after a: w > 0. */
			w = (e0 < b ? e0 : b) - (s0 > a ? s0 : a);
			if (w > best_w) {
				best_w = w;
				best = ops->node(src, j);
				best_narrow = e0 - s0 < narrow_width;
			}
			if (e0 >= b)
				break;
			j++;
			/*
			 * A crowd of slivers: the rest, up to the one reaching
			 * past b, are each narrower than the slot; weigh only
			 * that last one.
			 */
			if (++seen == LAYOUT_SLOT_SCAN && !jumped && j < hi) {
				uint32_t last = last_starting_by(ops, src, j, hi, b - 1);

				jumped = true;
				if (last != j - 1)
					j = last;
			}
		}
		owner[s] = best;
		if (narrow)
			narrow[s] = best_narrow;
	}
}

/* The node owning most of the n slots o (the first on a tie), or LAYOUT_NONE. */
static uint32_t
majority(const uint32_t *o, uint32_t n, uint32_t *at)
{
	uint32_t best = LAYOUT_NONE, best_count = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t count = 0;

		if (o[i] == LAYOUT_NONE || (i && o[i] == o[i - 1]))
			continue;
		for (uint32_t j = i; j < n; j++)
			count += o[j] == o[i];
		if (count > best_count) {
			best_count = count;
			best = o[i];
			*at = i;
		}
	}
	return best;
}

static uint32_t
row_slots(const struct layout *l)
{
	return l->width * (l->sub ? l->sub : 1);
}

/* Reset l for a layout of v; false if there is nothing to lay out. */
static bool
layout_begin(struct layout *l, const struct view *v)
{
	size_t slots;

	l->nr = 0;
	l->nr_rows = 0;
	l->width = v->width;
	l->first_row = v->first_row;
	/* Eighths take 8 slots a cell; an absurd width keeps whole cells. */
	l->sub = v->eighths && v->width <= UINT32_MAX / LAYOUT_EIGHTHS ? LAYOUT_EIGHTHS : 1;
	if (!v->width || !v->nr_rows || v->x1 <= v->x0)
		return false;
	slots = row_slots(l);
	if (slots > l->alloc_slot) {
		l->alloc_slot = slots;
		l->slot = xrealloc(l->slot, slots * sizeof(*l->slot));
		l->slot_narrow = xrealloc(l->slot_narrow, slots);
	}
	return true;
}

/*
 * Lay out row (the next one after the rows laid out) from its nodes, the
 * range [lo, hi) of a sequence sorted by x: slots, then cells, then boxes.
 */
static void
lay_row(struct layout *l, const struct view *v, uint32_t row, const struct seq_ops *ops,
	const void *src, uint32_t lo, uint32_t hi)
{
	uint32_t sub = l->sub, width = l->width;
	uint64_t span = v->x1 - v->x0;
	uint64_t narrow_width = span / width + (span % width != 0);
	struct cell *cells;

	if (row - l->first_row != l->nr_rows)
		BUG("row %u laid out after %u rows from %u", row, l->nr_rows, l->first_row);
	ALLOC_GROW(l->cells, (size_t)(l->nr_rows + 1) * width, l->alloc_cells);
	cells = l->cells + (size_t)l->nr_rows * width;
	l->nr_rows++;
	dominant(ops, src, lo, hi, v->x0, v->x1, row_slots(l), narrow_width, l->slot,
		 l->slot_narrow);
	for (uint32_t c = 0; c < width; c++) {
		const uint32_t *o = l->slot + (size_t)c * sub;
		struct cell *cl = &cells[c];
		uint32_t at = 0, own = majority(o, sub, &at), k = 1;
		struct box *last = l->nr ? &l->boxes[l->nr - 1] : NULL;

		while (k < sub && o[k] == o[0])
			k++;
		cl->left = o[0];
		cl->right = LAYOUT_NONE;
		cl->split = LAYOUT_EIGHTHS;
		if (k < sub) {
			uint32_t unused;

			cl->split = k;
			cl->right = own != o[0] ? own : majority(o + k, sub - k, &unused);
		}
		if (own == LAYOUT_NONE)
			continue;
		if (last && last->row == row && last->node == own && last->col1 == c) {
			last->col1++;
			continue;
		}
		ALLOC_GROW(l->boxes, l->nr + 1, l->alloc);
		l->boxes[l->nr++] = (struct box){
			.row = row, .col0 = c, .col1 = c + 1, .node = own,
			.flags = l->slot_narrow[(size_t)c * sub + at] ? BOX_NARROW : 0,
		};
	}
}

const struct cell *
layout_cell(const struct layout *l, uint32_t row, uint32_t col)
{
	if (row < l->first_row || row - l->first_row >= l->nr_rows || col >= l->width)
		return NULL;
	return &l->cells[(size_t)(row - l->first_row) * l->width + col];
}

void
layout_box_whole(const struct layout *l, const struct box *b, uint32_t *c0, uint32_t *c1)
{
	uint32_t from = b->col0, to = b->col1;

	while (from < to && layout_cell(l, b->row, from)->split < LAYOUT_EIGHTHS)
		from++;
	while (to > from && layout_cell(l, b->row, to - 1)->split < LAYOUT_EIGHTHS)
		to--;
	*c0 = from;
	*c1 = to;
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

/* ----------------------------------------------------------------- spans */

static uint64_t
span_start(const void *src, uint32_t i)
{
	return ((const struct span *)src)[i].x0;
}

static uint64_t
span_end(const void *src, uint32_t i)
{
	return ((const struct span *)src)[i].x1;
}

static uint32_t
span_node(const void *src, uint32_t i)
{
	return ((const struct span *)src)[i].node;
}

static const struct seq_ops span_ops = {
	.start = span_start,
	.end = span_end,
	.node = span_node,
};

void
layout_dominant(const struct span *spans, size_t nr, uint64_t x0, uint64_t x1,
		uint32_t nr_slots, uint64_t narrow_width, uint32_t *owner, uint8_t *narrow)
{
	if (nr > UINT32_MAX || x1 <= x0)
		BUG("%zu spans over [%" PRIu64 ", %" PRIu64 ")", nr, x0, x1);
	if (nr_slots)
		dominant(&span_ops, spans, 0, (uint32_t)nr, x0, x1, nr_slots, narrow_width,
			 owner, narrow);
}

/* ------------------------------------------------------------ Left Heavy */

/* Children of one node: an index range of t->kids. */
static uint64_t
kid_start(const void *src, uint32_t i)
{
	const struct calltree *t = src;

	return t->x0[t->kids[i]];
}

static uint64_t
kid_end(const void *src, uint32_t i)
{
	const struct calltree *t = src;

	return t->x0[t->kids[i]] + t->total[t->kids[i]];
}

static uint32_t
kid_node(const void *src, uint32_t i)
{
	const struct calltree *t = src;

	return t->kids[i];
}

static const struct seq_ops kid_ops = {
	.start = kid_start,
	.end = kid_end,
	.node = kid_node,
};

/* A row of the tree: its nodes in x order, with their ranges. */
static uint64_t
row_start_x(const void *src, uint32_t i)
{
	return ((const struct layout_node *)src)[i].x0;
}

static uint64_t
row_end_x(const void *src, uint32_t i)
{
	return ((const struct layout_node *)src)[i].x1;
}

static uint32_t
row_node(const void *src, uint32_t i)
{
	return ((const struct layout_node *)src)[i].node;
}

static const struct seq_ops tree_row_ops = {
	.start = row_start_x,
	.end = row_end_x,
	.node = row_node,
};

/*
 * A tree row could hold millions of slivers; laying out all of them on
 * every keystroke is what a redraw cannot afford. Kids are heaviest first,
 * so a family's narrow kids (under a cell each) come last, and the first
 * of them in a cell are its heaviest there. So of the narrow nodes in one
 * cell, only a few are taken: the first LAYOUT_KEEP_NARROW, the last
 * (which may reach into the next cell alone), and the one leading to the
 * deepest stack; the rest cost a binary search. A row then costs
 * O(cells x LAYOUT_KEEP_NARROW^2) however many slivers there are, cells
 * are never left empty where nodes are, and the deepest stack under a
 * kept node shows on every row.
 */
#define LAYOUT_KEEP_NARROW 4

struct tree_walk {
	const struct calltree *t;
	const struct view *v;
	uint64_t cell_w; /* the narrowest weight a cell wide */
};

/* The cell x falls in. */
static uint64_t
cell_of(const struct tree_walk *w, uint64_t x)
{
	const struct view *v = w->v;
	uint64_t rem;

	return x <= v->x0 ? 0 : mul_div(x - v->x0, v->width, v->x1 - v->x0, &rem);
}

/* The first x of cell c + 1: ceil(x0 + (c + 1) * span / width). */
static uint64_t
cell_end(const struct tree_walk *w, uint64_t c)
{
	const struct view *v = w->v;
	uint64_t span = v->x1 - v->x0, rem, q;

	if (c + 1 >= v->width)
		return v->x1;
	q = mul_div(span, (uint32_t)(c + 1), v->width, &rem);
	return v->x0 + q + (rem != 0);
}

/*
 * How far ahead the walk asks for nodes' data. A tree of a million nodes
 * is tens of MiB in eight arrays, and the few thousand nodes a view
 * reaches lie anywhere in them: read in turn, each node is a handful of
 * cache and TLB misses, one after the other, and the walk waits on
 * memory rather than computes (a tree just built or swapped in by an
 * undo is cold). Asked for ahead, the misses overlap. A node's x range
 * is read once, when its row is made, and goes with it: siblings lie
 * edge to edge, so a family's edges are a running sum of its totals.
 */
#define WALK_AHEAD 4

/*
 * Node n, over [x0, x1), joins the next row: keep_parents() reads its
 * children's count and height, and push_kids() its first child and
 * deepest, if kept.
 */
static void
push_node(struct layout *l, size_t *nr, const struct calltree *t, stack_id n, uint64_t x0,
	  uint64_t x1)
{
	__builtin_prefetch(&t->nr_kids[n]);
	__builtin_prefetch(&t->height[n]);
	__builtin_prefetch(&t->first[n]);
	__builtin_prefetch(&t->deepest[n]);
	ALLOC_GROW(l->next, *nr + 1, l->alloc_next);
	l->next[(*nr)++] = (struct layout_node){ x0, x1, n };
}

/* The parent n's children ahead: their list, then the first ones' totals. */
static void
kids_prefetch(const struct calltree *t, stack_id n, bool totals)
{
	const stack_id *k = t->kids + t->first[n];

	if (!totals) {
		__builtin_prefetch(k);
		return;
	}
	for (uint32_t i = 0; i < t->nr_kids[n] && i < 2; i++)
		__builtin_prefetch(&t->total[k[i]]);
}

/* The kids of p in the view onto l->next, narrow ones a few per cell (above). */
static void
push_kids(struct layout *l, size_t *nr, const struct tree_walk *w, const struct layout_node *p)
{
	const struct calltree *t = w->t;
	const struct view *v = w->v;
	stack_id n = p->node, deep = t->deepest[n];
	uint32_t lo = t->first[n], hi = lo + t->nr_kids[n], i = lo;
	uint64_t x = p->x0;

	/*
	 * The first kid starts at n's left edge and has weight: when that
	 * edge is in the view, the kid is the first to show, with no search.
	 */
	if (p->x0 < v->x0) {
		i = first_ending_after(&kid_ops, t, lo, hi, v->x0);
		x = i < hi ? kid_start(t, i) : 0;
	}
	while (i < hi && x < v->x1) {
		stack_id k = t->kids[i];
		uint64_t total = t->total[k];
		uint32_t j, stop;

		if (i + WALK_AHEAD < hi) {
			__builtin_prefetch(&t->x0[t->kids[i + WALK_AHEAD]]);
			__builtin_prefetch(&t->total[t->kids[i + WALK_AHEAD]]);
		}
		if (total >= w->cell_w) {
			push_node(l, nr, t, k, x, x + total);
			x += total;
			i++;
			continue;
		}
		/* Narrow from here on: the kids starting in this cell are [i, j]. */
		j = last_starting_by(&kid_ops, t, i, hi, cell_end(w, cell_of(w, x)) - 1);
		stop = j - i < LAYOUT_KEEP_NARROW ? j : i + LAYOUT_KEEP_NARROW - 1;
		for (uint32_t m = i; m <= stop; m++) {
			uint64_t tm = m == i ? total : t->total[t->kids[m]];

			push_node(l, nr, t, t->kids[m], x, x + tm);
			x += tm;
		}
		if (j > stop) {
			/* Jump to the deepest, if it is among the rest, and to the last. */
			uint64_t dx = t->x0[deep];
			uint32_t d = first_ending_after(&kid_ops, t, stop + 1, j, dx);

			if (d < j && t->kids[d] == deep)
				push_node(l, nr, t, deep, dx, dx + t->total[deep]);
			x = kid_start(t, j);
			push_node(l, nr, t, t->kids[j], x, x + t->total[t->kids[j]]);
			x += t->total[t->kids[j]];
		}
		i = j + 1;
	}
}

/*
 * Which of a row's nodes (l->next[0 .. nr)) have their children looked at
 * for the next row: every node a cell wide or more, and of the narrower
 * ones starting in one cell, the first LAYOUT_KEEP_NARROW, the last and
 * the deepest. Returns how many are kept, moved to the front in x order.
 */
static size_t
keep_parents(struct layout *l, const struct tree_walk *w, size_t nr)
{
	const struct calltree *t = w->t;
	struct layout_node *next = l->next;
	size_t kept = 0, i = 0;

	while (i < nr) {
		stack_id n = next[i].node;
		uint64_t cell;
		size_t end, deepest = i, count = 0;

		if (next[i].x1 - next[i].x0 >= w->cell_w || !t->nr_kids[n]) {
			if (t->nr_kids[n])
				next[kept++] = next[i];
			i++;
			continue;
		}
		cell = cell_of(w, next[i].x0);
		for (end = i; end < nr; end++) {
			if (next[end].x1 - next[end].x0 >= w->cell_w ||
			    cell_of(w, next[end].x0) != cell)
				break;
			if (t->height[next[end].node] > t->height[next[deepest].node])
				deepest = end;
		}
		for (size_t j = i; j < end; j++) {
			if (!t->nr_kids[next[j].node] ||
			    (count >= LAYOUT_KEEP_NARROW && j != deepest && j != end - 1))
				continue;
			count++;
			next[kept++] = next[j];
		}
		i = end;
	}
	return kept;
}

void
layout_tree(struct layout *l, const struct calltree *t, const struct view *v)
{
	size_t nr_nodes = 0;
	uint64_t span = v->x1 - v->x0;
	struct tree_walk w = { t, v, 0 };

	if (!layout_begin(l, v) || !t->nr_nodes || !t->total[STACK_ROOT])
		return;
	w.cell_w = span / v->width + (span % v->width != 0);
	ALLOC_GROW(l->nodes, 1, l->alloc_nodes);
	l->nodes[nr_nodes++] = (struct layout_node){ 0, t->total[STACK_ROOT], STACK_ROOT };
	for (uint32_t row = 0; nr_nodes && !row_past(v, row); row++) {
		size_t nr_next = 0;
		struct layout_node *tmp;
		size_t tmp_alloc;

		/* The children of this row's parents that overlap the view, in x order. */
		for (size_t k = 0; k < nr_nodes; k++) {
			if (k + 2 * WALK_AHEAD < nr_nodes)
				kids_prefetch(t, l->nodes[k + 2 * WALK_AHEAD].node, false);
			if (k + WALK_AHEAD < nr_nodes)
				kids_prefetch(t, l->nodes[k + WALK_AHEAD].node, true);
			push_kids(l, &nr_next, &w, &l->nodes[k]);
		}
		if (nr_next > UINT32_MAX)
			BUG("%zu nodes on one row", nr_next);
		if (row_shown(v, row) && nr_next)
			lay_row(l, v, row, &tree_row_ops, l->next, 0, (uint32_t)nr_next);
		nr_nodes = keep_parents(l, &w, nr_next);
		tmp = l->nodes;
		l->nodes = l->next;
		l->next = tmp;
		tmp_alloc = l->alloc_nodes;
		l->alloc_nodes = l->alloc_next;
		l->alloc_next = tmp_alloc;
	}
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

/*
 * A row of the chart. dominant() asks for the end of one box again and
 * again, a slot at a time, and a chart works ends out from its positions
 * (chart_row_x1()): the last few are remembered.
 */
#define CHART_MEMO 4

struct chart_memo {
	uint32_t box[CHART_MEMO];
	uint64_t x1[CHART_MEMO];
};

struct chart_row {
	const struct chart *c;
	uint32_t row;
	struct chart_memo *memo;
};

static uint64_t
chart_start(const void *src, uint32_t i)
{
	const struct chart_row *r = src;

	return chart_x0(r->c, i);
}

static uint64_t
chart_end(const void *src, uint32_t i)
{
	const struct chart_row *r = src;
	uint32_t slot = i % CHART_MEMO;

	if (r->memo->box[slot] != i) {
		r->memo->box[slot] = i;
		r->memo->x1[slot] = chart_row_x1(r->c, r->row, i);
	}
	return r->memo->x1[slot];
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
	struct chart_memo memo;

	if (!layout_begin(l, v))
		return;
	/*
	 * Boxes nest inside their parents, so the rows are independent: a
	 * row's boxes in [x0, x1) are what it shows. A row with none ends the
	 * chart, as every row below it lies inside it.
	 */
	for (uint32_t row = v->first_row; row < c->nr_rows && row_shown(v, row); row++) {
		struct chart_row r = { c, row, &memo };
		uint32_t lo = c->row_start[row], hi = c->row_start[row + 1];
		uint32_t i;

		memset(memo.box, 0xff, sizeof(memo.box));
		i = first_ending_after(&chart_ops, &r, lo, hi, v->x0);
		if (i == hi || chart_x0(c, i) >= v->x1)
			break;
		lay_row(l, v, row, &chart_ops, &r, i, hi);
	}
}

/* ----------------------------------------------------------------- check */

int
layout_check(const struct layout *l, const struct view *v, struct tf_error *err)
{
	if (l->nr_rows && (l->width != v->width || l->first_row != v->first_row ||
			   l->nr_rows > v->nr_rows))
		return tf_error_set(err, "%u rows of %u cells from row %u, for a view of %u "
				    "rows of %u from row %u", l->nr_rows, l->width,
				    l->first_row, v->nr_rows, v->width, v->first_row);
	for (size_t i = 0; i < (size_t)l->nr_rows * l->width; i++) {
		const struct cell *c = &l->cells[i];

		if (!c->split || c->split > LAYOUT_EIGHTHS ||
		    (l->sub != LAYOUT_EIGHTHS && c->split != LAYOUT_EIGHTHS))
			return tf_error_set(err, "cell %zu: split %u", i, c->split);
		if (c->split == LAYOUT_EIGHTHS && c->right != LAYOUT_NONE)
			return tf_error_set(err, "cell %zu: whole, with a right part", i);
	}
	for (size_t i = 0; i < l->nr; i++) {
		const struct box *b = &l->boxes[i];

		if (!row_shown(v, b->row) || b->row - l->first_row >= l->nr_rows)
			return tf_error_set(err, "box %zu: row %u outside the window", i, b->row);
		if (b->col1 <= b->col0 || b->col1 > v->width)
			return tf_error_set(err, "box %zu: columns [%u, %u) in a width of %u", i,
					    b->col0, b->col1, v->width);
		if (b->flags & ~(uint32_t)BOX_NARROW)
			return tf_error_set(err, "box %zu: unknown flags %#x", i, b->flags);
		if (b->node == LAYOUT_NONE)
			return tf_error_set(err, "box %zu: names no node", i);
		for (uint32_t col = b->col0; col < b->col1; col++) {
			const struct cell *c = layout_cell(l, b->row, col);

			if (c->left != b->node && c->right != b->node)
				return tf_error_set(err, "box %zu: cell %u of row %u draws %u, %u",
						    i, col, b->row, c->left, c->right);
		}
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
