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
 * [col0, col1) its weight range falls on, rounded to the nearest cell edge
 * (col(x) = round((x - x0) * width / (x1 - x0)), halves up, clamped to
 * [0, width]); since that is monotone, siblings that touch on x touch on
 * screen and a family fills its parent's cells. A node narrower than one
 * cell (weight * width < x1 - x0) gets no box of its own, and nothing below
 * it is laid out: consecutive such siblings, with any gaps narrower than a
 * cell between them, form a run, covered by one BOX_MERGED box over
 * [col(run start), col(run end)) (none if that is empty), which the TUI
 * draws as a plain marker, never as garbage. A wide node that the view
 * clips to less than a cell gets no box either.
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

struct tf_error;

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

/* The boxes of the last layout; reuse one across calls to save allocations. */
struct layout {
	struct box *boxes; /* by row, then by col0; valid until the next layout */
	size_t nr, alloc;
};

struct view {
	uint64_t x0, x1;    /* the weight range across the width; none if x1 <= x0 */
	uint32_t width;     /* cells */
	uint32_t first_row; /* first row to lay out */
	uint32_t nr_rows;   /* rows to lay out */
};

void layout_init(struct layout *l);
void layout_release(struct layout *l);

/*
 * Lay out the Left Heavy tree: the root's children side by side from x 0,
 * each node's children heaviest first from its left edge, as speedscope
 * does. x runs over [0, t->total[STACK_ROOT]). Replaces l's boxes; box.node
 * is a stack id. The cost is O(rows x width x log siblings), whatever the
 * size of the tree (rows above first_row are walked, not laid out).
 */
void layout_tree(struct layout *l, const struct calltree *t, const struct view *v);

/*
 * Lay out the Time Order chart (range [0, c->total)). Replaces l's boxes;
 * box.node is an index into c->boxes. Same cost bound as layout_tree().
 */
void layout_chart(struct layout *l, const struct chart *c, const struct view *v);

/*
 * The x range [*x0, *x1) of node in the Left Heavy layout (t->x0[node] and
 * its total): O(1). Returns false, leaving *x0 and *x1 alone, if node has
 * no weight in the tree.
 */
bool calltree_node_range(const struct calltree *t, stack_id node, uint64_t *x0,
			 uint64_t *x1);

/*
 * Check that l is a well-formed layout of v: rows in the window, 0 < col1 -
 * col0, col1 <= width, sorted by row then col0, no overlap within a row,
 * merged boxes naming no node. Returns 0, or -1 with err set.
 */
int layout_check(const struct layout *l, const struct view *v, struct tf_error *err);

#endif /* TFLAME_LAYOUT_H */
