#ifndef TFLAME_NAV_H
#define TFLAME_NAV_H

/*
 * Navigation over a laid-out tree or chart: one interface for every view
 * of boxes on an x axis, so that the layout, the flame views of the TUI
 * and `tflame dump` walk Left Heavy, the inverted tree, Sandwich's callers
 * and callees and Time Order's charts with the same calls. A new view is a
 * new struct nav_ops, not another branch in each of them.
 *
 * A view places nodes on an x axis, [0, total): a node covers [x0, x1) of
 * it, its children lie inside that range one row further from the root,
 * and the nodes of one row are disjoint. A node is a uint32_t whose
 * meaning is the implementation's (a stack id of the tree's set, a chart's
 * box index); NAV_NONE is no node. Every node stands for a stack of
 * nav.ps, which names its frame.
 *
 * The implementations:
 *  - nav_tree(): any struct calltree (calltree.h) laid out Left Heavy:
 *    the main tree and Sandwich's callees, each over its own set of
 *    stacks. Nodes are stack ids.
 *  - nav_inverted(): a tree whose paths run from the leaf out, the
 *    inverted tree (inverted.h) or Sandwich's callers: laid out and walked
 *    as a tree, with the caller one row below its callee.
 *  - nav_chart(): a flame chart of Time Order (chart.h). Nodes are box
 *    indexes.
 *
 * A struct nav borrows its tree or chart, which must outlive it; it is a
 * small value, set up in O(1) and copied freely. No operation recurses;
 * the cost of each is the implementation's, given with nav_ops.
 */

#include <stdbool.h>
#include <stdint.h>

#include "tflame/profile.h"

struct calltree;
struct chart;
struct layout;
struct tf_error;
struct view;

#define NAV_NONE UINT32_MAX

struct nav;

struct nav_ops {
	/* The x range [*x0, *x1) of n. */
	void (*range)(const struct nav *nv, uint32_t n, uint64_t *x0, uint64_t *x1);
	/* The row of n: its stack's depth - 1. */
	uint32_t (*row)(const struct nav *nv, uint32_t n);
	/* The node one row up that holds n, or NAV_NONE on row 0. */
	uint32_t (*parent)(const struct nav *nv, uint32_t n);
	/* The stack of n, in nv->ps. */
	stack_id (*stack)(const struct nav *nv, uint32_t n);
	/* n's weight outside its children's ranges. */
	uint64_t (*self)(const struct nav *nv, uint32_t n);
	/* The node of row that covers x, or NAV_NONE. */
	uint32_t (*at)(const struct nav *nv, uint32_t row, uint64_t x);
	/*
	 * The next node on row in direction dir from x: to the right (dir >
	 * 0), the first that covers x or starts after it; to the left, the
	 * last that ends at x or before it. NAV_NONE when there is none.
	 */
	uint32_t (*next_at)(const struct nav *nv, uint32_t row, uint64_t x, int dir);
	/*
	 * The child of n to go down to: the heaviest one that shows in the
	 * view [x0, x1), or the heaviest of all when none does; NAV_NONE for
	 * a leaf.
	 */
	uint32_t (*child)(const struct nav *nv, uint32_t n, uint64_t x0, uint64_t x1);
	/* The node to select first: the heaviest of row 0, or NAV_NONE. */
	uint32_t (*first)(const struct nav *nv);
	/*
	 * The node of row 0 to select when the view becomes [x0, x1): the
	 * widest part in it, or the nearest one. NAV_NONE if row 0 is empty.
	 */
	uint32_t (*first_in)(const struct nav *nv, uint64_t x0, uint64_t x1);
	/*
	 * The node of stack s (of nv->ps), taken at x where one stack may be
	 * several nodes (a chart's boxes): NAV_NONE if it has none there.
	 */
	uint32_t (*find)(const struct nav *nv, stack_id s, uint64_t x);
	/* Rows in all: the deepest stack with weight. */
	uint32_t (*depth)(const struct nav *nv);
	/* Whether n is a node of the view with weight. */
	bool (*valid)(const struct nav *nv, uint32_t n);
	/* Lay out the view v (layout.h: layout_tree(), layout_chart()). */
	void (*layout)(const struct nav *nv, struct layout *l, const struct view *v);
};

struct nav {
	const struct nav_ops *ops;
	const struct profile_set *ps; /* names the nodes' stacks */
	const struct calltree *tree;  /* nav_tree(): the tree, else NULL */
	const struct chart *chart;    /* nav_chart(): the chart, else NULL */
	uint64_t total;               /* x runs over [0, total) */
	/* Nodes are the ids [begin, end), some of them maybe not valid(). */
	uint32_t begin, end;
	/*
	 * Nodes are call paths (a tree's stack ids): a node keeps its meaning
	 * under other weights or a rewrite of the set, while its x range is
	 * laid out anew. Else (a chart's boxes) a node is a place on the x
	 * axis, which is what survives.
	 */
	bool paths;
	/*
	 * The rows run from the leaves out (nav_inverted()): a node's self
	 * weight is that of the samples whose outermost frame it is, which
	 * says nothing about the frame itself.
	 */
	bool inverted;
};

/*
 * A tree: children heaviest first from their parent's left edge. Every
 * operation is O(1) but at, next_at and find, O(depth x log children),
 * and depth, O(nodes).
 */
void nav_tree(struct nav *nv, const struct calltree *t);
/* An inverted tree (inverted.h, or Sandwich's callers): as nav_tree(), rows leaf first. */
void nav_inverted(struct nav *nv, const struct calltree *t);
/*
 * A chart: x as the chart has it. range, at and next_at cost what
 * chart_x1() and chart_find() do; child and self scan the row below n
 * within n's range; depth is O(1).
 */
void nav_chart(struct nav *nv, const struct chart *c);

/* The node's frame, for names and colours. */
static inline frame_id
nav_frame(const struct nav *nv, uint32_t n)
{
	return nv->ps->stacks[nv->ops->stack(nv, n)].frame;
}

static inline uint64_t
nav_weight(const struct nav *nv, uint32_t n)
{
	uint64_t x0, x1;

	nv->ops->range(nv, n, &x0, &x1);
	return x1 - x0;
}

/*
 * The children of n in x order (heaviest first in a tree; in time in a
 * chart), row 0 for n NAV_NONE: the first when k is NAV_NONE, else the
 * one after child k; NAV_NONE past the last. O(next_at) each.
 */
uint32_t nav_next_kid(const struct nav *nv, uint32_t n, uint32_t k);

/*
 * The first valid node (in id order) whose call path, root first, reads
 * path ("a;b;c": frame names joined by ';', as profile_stack_is_path()
 * reads it), or NAV_NONE. O(nodes x depth): for a command line's --zoom,
 * not for a keystroke.
 */
uint32_t nav_find_path(const struct nav *nv, const char *path);

/*
 * The frames of n's path, row 0 first, in a new array of *depth (n's row
 * + 1) entries that the caller frees: a node written down in terms that
 * outlive the view's ids, for nav_find_frames() over another build.
 */
frame_id *nav_frames(const struct nav *nv, uint32_t n, uint32_t *depth);
/*
 * The node whose path is path[0 .. depth) (frames, row 0 first), the
 * first in x order on each row: NAV_NONE if there is none or depth is
 * 0. O(depth x siblings x next_at).
 */
uint32_t nav_find_frames(const struct nav *nv, const frame_id *path, uint32_t depth);

/*
 * Check that the operations agree on every valid node n: its range in
 * [0, total) and inside its parent's, on the row below the parent's,
 * the row its stack's depth says; at() finds n in its row; the next
 * node on its row starts at or after its end, and the one before it
 * ends at or before its start; self() is at most its weight; child() is
 * a node whose parent is n; depth() exceeds its row; and first() is a
 * valid node of row 0 (NAV_NONE only when nothing weighs). O(nodes x
 * the cost of at and next_at). Its children (nav_next_kid()) are the
 * nodes whose parent it is, and weigh its weight less its self. Returns
 * 0, or -1 with err set.
 */
int nav_check(const struct nav *nv, struct tf_error *err);

#endif /* TFLAME_NAV_H */
