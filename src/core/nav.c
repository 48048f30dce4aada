#include "config.h"

#include "tflame/nav.h"


#include "tflame/calltree.h"
#include "tflame/chart.h"
#include "tflame/error.h"
#include "tflame/layout.h"
#include "tflame/xalloc.h"

/* Boxes of row 0 that a chart's first_in() weighs at most: a bound per key. */
#define FIRST_IN_SCAN 65536

/* ------------------------------------------------------------------ trees */

static void
tree_range(const struct nav *nv, uint32_t n, uint64_t *x0, uint64_t *x1)
{
	*x0 = nv->tree->x0[n];
	*x1 = *x0 + nv->tree->total[n];
}

static uint32_t
tree_row(const struct nav *nv, uint32_t n)
{
	return nv->ps->stacks[n].depth - 1;
}

static uint32_t
tree_parent(const struct nav *nv, uint32_t n)
{
	stack_id p = nv->ps->stacks[n].parent;

	return p == STACK_ROOT ? NAV_NONE : p;
}

static stack_id
tree_stack(const struct nav *nv, uint32_t n)
{
	(void)nv;
	return n;
}

static uint64_t
tree_self(const struct nav *nv, uint32_t n)
{
	return nv->tree->self[n];
}

/*
 * The child of n that covers x, or NAV_NONE. Children sit edge to edge
 * from n's left edge, in x order: a binary search on x0.
 */
static uint32_t
tree_kid_at(const struct calltree *t, stack_id n, uint64_t x)
{
	uint32_t nr, lo = 0, hi;
	const stack_id *kids = calltree_kids(t, n, &nr);

	hi = nr;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->x0[kids[mid]] + t->total[kids[mid]] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < nr && t->x0[kids[lo]] <= x)
		return kids[lo];
	return NAV_NONE;
}

/*
 * The deepest node of row <= row that covers x (STACK_ROOT when no frame
 * does). O(depth x log siblings).
 */
static stack_id
tree_deepest_at(const struct nav *nv, uint32_t row, uint64_t x)
{
	stack_id n = STACK_ROOT;

	while (nv->ps->stacks[n].depth < row + 1) {
		uint32_t k = tree_kid_at(nv->tree, n, x);

		if (k == NAV_NONE)
			break;
		n = k;
	}
	return n;
}

static uint32_t
tree_at(const struct nav *nv, uint32_t row, uint64_t x)
{
	stack_id n;

	if (x >= nv->total)
		return NAV_NONE;
	n = tree_deepest_at(nv, row, x);
	return n != STACK_ROOT && nv->ps->stacks[n].depth == row + 1 ? n : NAV_NONE;
}

/*
 * A row's boxes belong to different parents, with gaps where a subtree is
 * shallower: the search descends to the deepest node at x, and when that
 * node stops above the row, it jumps past it (to the right) or into its
 * last child (to the left), so each step leaves a subtree behind.
 */
static uint32_t
tree_next_at(const struct nav *nv, uint32_t row, uint64_t x, int dir)
{
	const struct calltree *t = nv->tree;
	const struct profile_set *ps = nv->ps;

	if (dir > 0) {
		while (x < nv->total) {
			stack_id a = tree_deepest_at(nv, row, x);

			if (a != STACK_ROOT && ps->stacks[a].depth == row + 1)
				return a;
			if (a == STACK_ROOT)
				return NAV_NONE; /* the root's self: the end of the axis */
			x = t->x0[a] + t->total[a];
		}
		return NAV_NONE;
	}
	if (!x)
		return NAV_NONE;
	for (x--;;) {
		stack_id a = tree_deepest_at(nv, row, x);
		uint64_t ax0 = a == STACK_ROOT ? 0 : t->x0[a];
		uint64_t kids_end = ax0 + t->total[a] - t->self[a];

		if (a != STACK_ROOT && ps->stacks[a].depth == row + 1)
			return a;
		/* x is in a's self, right of its children: try its last child. */
		if (kids_end > ax0 && x >= kids_end) {
			x = kids_end - 1;
			continue;
		}
		if (!ax0 || a == STACK_ROOT)
			return NAV_NONE;
		x = ax0 - 1;
	}
}

/*
 * Children sit heaviest first from the left, so the heaviest on screen is
 * the one at the left edge of what shows of n.
 */
static uint32_t
tree_child(const struct nav *nv, uint32_t n, uint64_t x0, uint64_t x1)
{
	const struct calltree *t = nv->tree;
	uint32_t nr, k;
	const stack_id *kids = calltree_kids(t, n, &nr);

	(void)x1;
	k = tree_kid_at(t, n, t->x0[n] > x0 ? t->x0[n] : x0);
	return k != NAV_NONE ? k : nr ? kids[0] : NAV_NONE;
}

static uint32_t
tree_first(const struct nav *nv)
{
	uint32_t nr;
	const stack_id *kids;

	if (!nv->total)
		return NAV_NONE;
	kids = calltree_kids(nv->tree, STACK_ROOT, &nr);
	return nr ? kids[0] : NAV_NONE;
}

static uint32_t
tree_first_in(const struct nav *nv, uint64_t x0, uint64_t x1)
{
	uint32_t n = nv->ops->next_at(nv, 0, x0, 1);

	(void)x1;
	return n != NAV_NONE ? n : nv->ops->next_at(nv, 0, x0, -1);
}

static bool
tree_valid(const struct nav *nv, uint32_t n)
{
	return n != STACK_ROOT && n < nv->tree->nr_nodes && nv->tree->total[n];
}

static uint32_t
tree_find(const struct nav *nv, stack_id s, uint64_t x)
{
	(void)x;
	return s < nv->ps->nr_stacks && tree_valid(nv, s) ? s : NAV_NONE;
}

static uint32_t
tree_depth(const struct nav *nv)
{
	const struct calltree *t = nv->tree;
	uint32_t depth = 0;

	for (stack_id s = 1; s < t->nr_nodes; s++)
		if (t->total[s] && nv->ps->stacks[s].depth > depth)
			depth = nv->ps->stacks[s].depth;
	return depth;
}

static void
tree_layout(const struct nav *nv, struct layout *l, const struct view *v)
{
	layout_tree(l, nv->tree, v);
}

static const struct nav_ops tree_ops = {
	.range = tree_range,
	.row = tree_row,
	.parent = tree_parent,
	.stack = tree_stack,
	.self = tree_self,
	.at = tree_at,
	.next_at = tree_next_at,
	.child = tree_child,
	.first = tree_first,
	.first_in = tree_first_in,
	.find = tree_find,
	.depth = tree_depth,
	.valid = tree_valid,
	.layout = tree_layout,
};

void
nav_tree(struct nav *nv, const struct calltree *t)
{
	*nv = (struct nav){
		.ops = &tree_ops,
		.ps = t->ps,
		.tree = t,
		.total = t->nr_nodes ? t->total[STACK_ROOT] : 0,
		.begin = 1,
		.end = t->nr_nodes,
		.paths = true,
	};
}

void
nav_inverted(struct nav *nv, const struct calltree *t)
{
	nav_tree(nv, t);
	nv->inverted = true;
}

/* ----------------------------------------------------------------- charts */

static void
chart_range(const struct nav *nv, uint32_t n, uint64_t *x0, uint64_t *x1)
{
	*x0 = chart_x0(nv->chart, n);
	*x1 = chart_x1(nv->chart, n);
}

static uint32_t
chart_row(const struct nav *nv, uint32_t n)
{
	return chart_depth(nv->chart, n);
}

static uint32_t
chart_up(const struct nav *nv, uint32_t n)
{
	return chart_parent(nv->chart, n);
}

static stack_id
chart_box_stack(const struct nav *nv, uint32_t n)
{
	return chart_stack(nv->chart, n);
}

/* The children of box n: [*first, *end) in row n.depth + 1, the boxes inside n's range. */
static void
chart_kids(const struct chart *c, uint32_t n, uint32_t *first, uint32_t *end)
{
	uint32_t row = chart_depth(c, n) + 1, i;
	uint64_t x1 = chart_x1(c, n);

	*first = *end = 0;
	if (row >= c->nr_rows)
		return;
	i = chart_first_after(c, row, chart_x0(c, n));
	*first = i;
	while (i < c->row_start[row + 1] && chart_x0(c, i) < x1)
		i++;
	*end = i;
}

static uint64_t
chart_self(const struct nav *nv, uint32_t n)
{
	const struct chart *c = nv->chart;
	uint64_t self = chart_x1(c, n) - chart_x0(c, n);
	uint32_t i, end;

	chart_kids(c, n, &i, &end);
	for (; i < end; i++)
		self -= chart_x1(c, i) - chart_x0(c, i);
	return self;
}

static uint32_t
chart_at(const struct nav *nv, uint32_t row, uint64_t x)
{
	return x >= nv->total ? NAV_NONE : chart_find(nv->chart, row, x);
}

/* A row is an array, searched by x. */
static uint32_t
chart_next_at(const struct nav *nv, uint32_t row, uint64_t x, int dir)
{
	const struct chart *c = nv->chart;
	uint32_t i;

	if (row >= c->nr_rows)
		return NAV_NONE;
	i = chart_first_after(c, row, dir > 0 ? x : x ? x - 1 : 0);
	if (dir > 0)
		return i < c->row_start[row + 1] ? i : NAV_NONE;
	/* i is the first box that ends after x - 1: it or the one before. */
	if (i < c->row_start[row + 1] && chart_x0(c, i) < x)
		return i;
	return x && i > c->row_start[row] ? i - 1 : NAV_NONE;
}

static uint32_t
chart_child(const struct nav *nv, uint32_t n, uint64_t vx0, uint64_t vx1)
{
	const struct chart *c = nv->chart;
	uint32_t i, end, best = NAV_NONE, best_seen = NAV_NONE;
	uint64_t best_w = 0, best_seen_w = 0;

	chart_kids(c, n, &i, &end);
	for (; i < end; i++) {
		uint64_t x0 = chart_x0(c, i), x1 = chart_x1(c, i), w = x1 - x0;

		if (w > best_w) {
			best_w = w;
			best = i;
		}
		if (x1 > vx0 && x0 < vx1 && w > best_seen_w) {
			best_seen_w = w;
			best_seen = i;
		}
	}
	return best_seen != NAV_NONE ? best_seen : best;
}

/* The chart's first box may be a sliver: start on the widest instead. */
static uint32_t
chart_first(const struct nav *nv)
{
	const struct chart *c = nv->chart;
	uint32_t best = NAV_NONE;
	uint64_t best_w = 0;

	if (!nv->total)
		return NAV_NONE;
	for (uint32_t i = 0; c->nr_rows && i < c->row_start[1]; i++) {
		if (chart_x1(c, i) - chart_x0(c, i) > best_w) {
			best_w = chart_x1(c, i) - chart_x0(c, i);
			best = i;
		}
	}
	return best;
}

static uint32_t
chart_first_in(const struct nav *nv, uint64_t x0, uint64_t x1)
{
	const struct chart *c = nv->chart;
	uint32_t best = NAV_NONE;
	uint64_t best_w = 0;

	if (c->nr_rows) {
		uint32_t end = c->row_start[1], i = chart_first_after(c, 0, x0);

		for (uint32_t k = 0; i < end && k < FIRST_IN_SCAN && chart_x0(c, i) < x1;
		     i++, k++) {
			uint64_t bx0 = chart_x0(c, i) > x0 ? chart_x0(c, i) : x0;
			uint64_t bx1 = chart_x1(c, i) < x1 ? chart_x1(c, i) : x1;

			if (bx1 - bx0 > best_w) {
				best_w = bx1 - bx0;
				best = i;
			}
		}
	}
	if (best == NAV_NONE)
		best = chart_next_at(nv, 0, x0, 1);
	if (best == NAV_NONE)
		best = chart_next_at(nv, 0, x0, -1);
	return best;
}

static uint32_t
chart_find_stack(const struct nav *nv, stack_id s, uint64_t x)
{
	uint32_t depth;

	if (s == STACK_ROOT || s >= nv->ps->nr_stacks)
		return NAV_NONE;
	depth = nv->ps->stacks[s].depth;
	return depth ? chart_find(nv->chart, depth - 1, x) : NAV_NONE;
}

static uint32_t
chart_rows(const struct nav *nv)
{
	return nv->chart->nr_rows;
}

static bool
chart_valid(const struct nav *nv, uint32_t n)
{
	return n < nv->chart->nr_boxes;
}

static void
chart_layout(const struct nav *nv, struct layout *l, const struct view *v)
{
	layout_chart(l, nv->chart, v);
}

static const struct nav_ops chart_ops = {
	.range = chart_range,
	.row = chart_row,
	.parent = chart_up,
	.stack = chart_box_stack,
	.self = chart_self,
	.at = chart_at,
	.next_at = chart_next_at,
	.child = chart_child,
	.first = chart_first,
	.first_in = chart_first_in,
	.find = chart_find_stack,
	.depth = chart_rows,
	.valid = chart_valid,
	.layout = chart_layout,
};

void
nav_chart(struct nav *nv, const struct chart *c)
{
	*nv = (struct nav){
		.ops = &chart_ops,
		.ps = c->ps,
		.chart = c,
		.total = c->total,
		.begin = 0,
		.end = c->nr_boxes,
	};
}

/* ------------------------------------------------------------------ paths */

uint32_t
nav_find_path(const struct nav *nv, const char *path)
{
	for (uint32_t n = nv->begin; n < nv->end; n++)
		if (nv->ops->valid(nv, n) &&
		    profile_stack_is_path(nv->ps, nv->ops->stack(nv, n), path))
			return n;
	return NAV_NONE;
}

frame_id *
nav_frames(const struct nav *nv, uint32_t n, uint32_t *depth)
{
	uint32_t rows = nv->ops->row(nv, n) + 1;
	frame_id *path = xreallocarray(NULL, rows, sizeof(*path));

	for (uint32_t i = rows; i-- > 0; n = nv->ops->parent(nv, n))
		path[i] = nav_frame(nv, n);
	*depth = rows;
	return path;
}

uint32_t
nav_next_kid(const struct nav *nv, uint32_t n, uint32_t k)
{
	uint64_t x0 = 0, x1 = nv->total, k0, k1;
	uint32_t row = 0, next;

	/*
	 * Ranges nest and a row's are disjoint: the nodes of the row below n
	 * that lie in n's range are its children, and no others.
	 */
	if (n != NAV_NONE) {
		nv->ops->range(nv, n, &x0, &x1);
		row = nv->ops->row(nv, n) + 1;
	}
	if (k != NAV_NONE)
		nv->ops->range(nv, k, &k0, &x0);
	next = nv->ops->next_at(nv, row, x0, 1);
	if (next == NAV_NONE)
		return NAV_NONE;
	nv->ops->range(nv, next, &k0, &k1);
	return k0 < x1 ? next : NAV_NONE;
}

uint32_t
nav_find_frames(const struct nav *nv, const frame_id *path, uint32_t depth)
{
	uint32_t n = NAV_NONE;

	for (uint32_t row = 0; row < depth; row++) {
		uint32_t k = nav_next_kid(nv, n, NAV_NONE);

		while (k != NAV_NONE && nav_frame(nv, k) != path[row])
			k = nav_next_kid(nv, n, k);
		if (k == NAV_NONE)
			return NAV_NONE;
		n = k;
	}
	return n;
}

/* ------------------------------------------------------------------ check */

int
nav_check(const struct nav *nv, struct tf_error *err)
{
	const struct nav_ops *o = nv->ops;
	uint32_t depth = o->depth(nv), first = o->first(nv), nr_valid = 0;

	for (uint32_t n = nv->begin; n < nv->end; n++) {
		uint64_t x0, x1, px0, px1, kids;
		uint32_t row, p, k;
		stack_id s;

		if (!o->valid(nv, n))
			continue;
		nr_valid++;
		o->range(nv, n, &x0, &x1);
		row = o->row(nv, n);
		s = o->stack(nv, n);
		if (x0 >= x1 || x1 > nv->total)
			return tf_error_set(err, "node %u: range [%llu, %llu) of %llu", n,
					    (unsigned long long)x0, (unsigned long long)x1,
					    (unsigned long long)nv->total);
		if (s == STACK_ROOT || s >= nv->ps->nr_stacks || nv->ps->stacks[s].depth != row + 1)
			return tf_error_set(err, "node %u: row %u, stack %u", n, row, s);
		if (row >= depth)
			return tf_error_set(err, "node %u: row %u of %u", n, row, depth);
		p = o->parent(nv, n);
		if ((p == NAV_NONE) != !row)
			return tf_error_set(err, "node %u: row %u, parent %u", n, row, p);
		if (p != NAV_NONE) {
			o->range(nv, p, &px0, &px1);
			if (!o->valid(nv, p) || o->row(nv, p) + 1 != row || x0 < px0 || x1 > px1 ||
			    nv->ps->stacks[s].parent != o->stack(nv, p))
				return tf_error_set(err, "node %u: not inside its parent %u", n, p);
		}
		if (o->at(nv, row, x0) != n || o->at(nv, row, x1 - 1) != n)
			return tf_error_set(err, "node %u: not found at its edges on row %u", n,
					    row);
		k = o->next_at(nv, row, x1, 1);
		if (k != NAV_NONE) {
			o->range(nv, k, &px0, &px1);
			if (k == n || px0 < x1 || o->row(nv, k) != row)
				return tf_error_set(err, "node %u: next node %u starts at %llu",
						    n, k, (unsigned long long)px0);
		}
		k = o->next_at(nv, row, x0, -1);
		if (k != NAV_NONE) {
			o->range(nv, k, &px0, &px1);
			if (k == n || px1 > x0 || o->row(nv, k) != row)
				return tf_error_set(err, "node %u: node %u before it ends at %llu",
						    n, k, (unsigned long long)px1);
		}
		kids = 0;
		for (k = nav_next_kid(nv, n, NAV_NONE); k != NAV_NONE; k = nav_next_kid(nv, n, k)) {
			if (o->parent(nv, k) != n)
				return tf_error_set(err, "node %u: child %u of another parent", n, k);
			kids += nav_weight(nv, k);
		}
		if (kids > x1 - x0 || o->self(nv, n) != x1 - x0 - kids)
			return tf_error_set(err, "node %u: self %llu, weight %llu, children %llu", n,
					    (unsigned long long)o->self(nv, n),
					    (unsigned long long)(x1 - x0), (unsigned long long)kids);
		k = o->child(nv, n, 0, nv->total);
		if (k != NAV_NONE && o->parent(nv, k) != n)
			return tf_error_set(err, "node %u: child %u of another parent", n, k);
	}
	if (first == NAV_NONE ? nr_valid && nv->total
			      : !o->valid(nv, first) || o->row(nv, first))
		return tf_error_set(err, "first node %u of %u valid ones", first, nr_valid);
	return 0;
}
