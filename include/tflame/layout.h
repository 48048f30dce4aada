#ifndef TFLAME_LAYOUT_H
#define TFLAME_LAYOUT_H

/*
 * Layout: from a tree or chart, a view and a width in cells, the boxes to
 * draw. Pure and deterministic: the TUI paints exactly these boxes, and
 * `tflame dump` prints them, so golden tests see what a user sees.
 *
 * Both panes place nodes on one x axis of cumulative weight, [0, total).
 * A view shows the range [x0, x1) of it across width cells: zooming into a
 * node is choosing its range, so the node's ancestors, which cover it,
 * span the whole width above it, as in speedscope. A box covers the cells
 * [col0, col1) its weight range falls on, rounded to the nearest cell edge;
 * a node narrower than one cell gets no box of its own: the cells under
 * such nodes are covered by one BOX_MERGED box per run of them, which the
 * TUI draws as a plain marker, never as garbage.
 *
 * A row is a depth: row 0 holds the outermost frames (stack depth 1), row
 * d the frames at stack depth d + 1. Only rows [first_row, first_row +
 * nr_rows) are laid out, and only nodes that overlap [x0, x1) are visited,
 * so the cost of a layout is bounded by what is on screen, not by the size
 * of the tree.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflame/calltree.h"
#include "tflame/chart.h"

enum box_flags {
	BOX_MERGED = 1 << 0, /* stands for several nodes narrower than a cell */
};

struct box {
	uint32_t row;   /* stack depth - 1 */
	uint32_t col0;  /* first cell */
	uint32_t col1;  /* one past the last cell (col1 > col0) */
	uint32_t node;  /* stack id (tree) or box index (chart); 0 if merged */
	uint32_t flags; /* enum box_flags */
};

struct layout {
	struct box *boxes; /* by row, then by col0 */
	size_t nr, alloc;
};

struct view {
	uint64_t x0, x1;    /* the weight range across the width; x1 > x0 */
	uint32_t width;     /* cells */
	uint32_t first_row; /* first row to lay out */
	uint32_t nr_rows;   /* rows to lay out */
};

void layout_init(struct layout *l);
void layout_release(struct layout *l);

/*
 * Lay out the Left Heavy tree: the root's children side by side from x 0,
 * each node's children heaviest first from its left edge, as speedscope
 * does. x runs over [0, t->total[STACK_ROOT]).
 */
void layout_tree(struct layout *l, const struct calltree *t, const struct view *v);

/* Lay out the Time Order chart (range [0, c->total)). */
void layout_chart(struct layout *l, const struct chart *c, const struct view *v);

/*
 * The x range [*x0, *x1) of node in the Left Heavy layout. O(depth x
 * siblings). Returns false if node has no weight in the tree.
 */
bool calltree_node_range(const struct calltree *t, stack_id node, uint64_t *x0,
			 uint64_t *x1);

#endif /* TFLAME_LAYOUT_H */
