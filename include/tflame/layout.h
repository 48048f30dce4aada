#ifndef TFLAME_LAYOUT_H
#define TFLAME_LAYOUT_H

/*
 * Layout: from a tree or chart, a view and a width in cells, what each
 * cell shows. Pure and deterministic: the TUI paints exactly this, and
 * `tflame dump` prints it, so golden tests see what a user sees.
 *
 * Both panes place nodes on one x axis of cumulative weight, [0, total).
 * A view shows the range [x0, x1) of it across width cells: zooming into a
 * node is choosing its range, so the node's ancestors, which cover it,
 * span the whole width above it, as in speedscope.
 *
 * Each row is drawn as speedscope draws it, with nothing too narrow left
 * out: a row is cut into slots (cells, or eighths of a cell when
 * view.eighths is set) and each slot goes to the node of that row that
 * covers most of it, however narrow; a slot that no node touches is empty.
 * So a sliver a thousandth of a cell wide still owns a slot when nothing
 * bigger shares it, and the rows beneath it keep drawing: the shape of a
 * deep, fast-changing stack shows at every zoom.
 *
 * A cell belongs to the node owning most of its slots (the first of them
 * on a tie); the runs of cells with one owner are the boxes, which carry
 * the labels. With eighths, a cell also says how to draw it in two
 * colours, as a left block of the eighths glyphs (struct cell).
 *
 * A row is a depth: row 0 holds the outermost frames (stack depth 1), row
 * d the frames at stack depth d + 1. Only rows [first_row, first_row +
 * nr_rows) are laid out, and only nodes that overlap [x0, x1) are looked
 * at; see layout_tree() and layout_chart() for the cost.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflame/calltree.h"
#include "tflame/chart.h"

struct tf_error;

#define LAYOUT_NONE UINT32_MAX /* no node: an empty slot or cell part */
#define LAYOUT_EIGHTHS 8       /* slots per cell with view.eighths */

enum box_flags {
	/*
	 * The node is narrower than a cell: it shows because it covers
	 * more of these cells than any other node of its row.
	 */
	BOX_NARROW = 1 << 0,
};

struct box {
	uint32_t row;   /* stack depth - 1 */
	uint32_t col0;  /* first cell */
	uint32_t col1;  /* one past the last cell (col1 > col0) */
	uint32_t node;  /* stack id (tree) or box index (chart) */
	uint32_t flags; /* enum box_flags */
};

/*
 * How a cell is drawn: left's colour over its eighths [0, split), right's
 * over [split, 8), as the left block of split eighths (U+2590 - split:
 * U+258F is one eighth) in left's colour on right's. split is 8 when left fills
 * the cell, and always without eighths; left and right are LAYOUT_NONE
 * where nothing is drawn (an empty cell has both).
 */
struct cell {
	uint32_t left, right;
	uint32_t split;
};

/* A node of a row of the tree walk, with its x range [x0, x1) read once. */
struct layout_node {
	uint64_t x0, x1;
	uint32_t node;
};

/* The last layout; reuse one across calls to save allocations. */
struct layout {
	struct box *boxes;  /* by row, then by col0; valid until the next layout */
	size_t nr, alloc;
	/*
	 * Cells of the rows laid out, nr_rows of width each, row first_row
	 * first; rows past the deepest shown are left out.
	 */
	struct cell *cells;
	uint32_t nr_rows, width, first_row;
	uint32_t sub;       /* slots per cell: LAYOUT_EIGHTHS or 1 */
	size_t alloc_cells;
	/* Scratch space, kept between calls. */
	uint32_t *slot;      /* owner of each slot of a row */
	uint8_t *slot_narrow; /* whether that owner is narrower than a cell */
	struct layout_node *nodes, *next; /* the tree walk's rows */
	size_t alloc_slot, alloc_nodes, alloc_next;
};

struct view {
	uint64_t x0, x1;    /* the weight range across the width; none if x1 <= x0 */
	uint32_t width;     /* cells */
	uint32_t first_row; /* first row to lay out */
	uint32_t nr_rows;   /* rows to lay out */
	bool eighths;       /* place edges on eighths of a cell (UTF-8 drawing) */
};

/*
 * One row of sorted, disjoint spans: [x0, x1) is node's, x0 < x1, and each
 * span starts at or after the end of the one before.
 */
struct span {
	uint64_t x0, x1;
	uint32_t node;
};

void layout_init(struct layout *l);
void layout_release(struct layout *l);

/*
 * The owner of each of nr_slots equal slots of [x0, x1) (x0 < x1): the
 * node of the span that covers most of the slot, the first one on a tie,
 * or LAYOUT_NONE if no span touches it. A slot is measured in whole units
 * of x: [floor(x0 + s * (x1 - x0) / nr_slots), ceil(x0 + (s + 1) * (x1 -
 * x0) / nr_slots)), so that a slot narrower than one unit still has the
 * unit it lies in. narrow (may be NULL) gets, per slot, whether the
 * owner's span is narrower than narrow_width units.
 *
 * The spans of a slot are all weighed while there are at most
 * LAYOUT_SLOT_SCAN of them; past that, the first LAYOUT_SLOT_SCAN and the
 * last are, and the rest (each narrower than the slot, and so most likely
 * beaten) are jumped over by binary search. So the cost is O(nr_slots x
 * (LAYOUT_SLOT_SCAN + log nr)) at most, and O(nr + nr_slots) when spans
 * are not crowded; nothing recurses.
 */
#define LAYOUT_SLOT_SCAN 8
void layout_dominant(const struct span *spans, size_t nr, uint64_t x0, uint64_t x1,
		     uint32_t nr_slots, uint64_t narrow_width, uint32_t *owner,
		     uint8_t *narrow);

/*
 * Lay out the Left Heavy tree: the root's children side by side from x 0,
 * each node's children heaviest first from its left edge, as speedscope
 * does. x runs over [0, t->total[STACK_ROOT]). Replaces l's contents;
 * box.node is a stack id. The tree is walked row by row down to the last
 * row asked for (rows above first_row are walked, not laid out). Of the
 * nodes narrower than a cell that start in one cell, only the first few,
 * the last and the one leading to the deepest stack (t->deepest) are laid
 * out and followed to the row below; the rest are skipped by binary
 * search. So a row costs O(cells x log children) however many slivers
 * there are, every cell that nodes reach is drawn, and the deepest stack
 * under a kept node shows on every row; in a crowded cell, the owner is
 * chosen among the nodes taken.
 */
void layout_tree(struct layout *l, const struct calltree *t, const struct view *v);

/*
 * Lay out the Time Order chart (range [0, c->total)). Replaces l's
 * contents; box.node is an index into c->boxes. Rows are found by binary
 * search, so the cost is that of layout_dominant() per row laid out,
 * however many boxes a row holds.
 */
void layout_chart(struct layout *l, const struct chart *c, const struct view *v);

/* The cell col of row (a row laid out, col < width), or NULL if row was not laid out. */
const struct cell *layout_cell(const struct layout *l, uint32_t row, uint32_t col);

/*
 * The cells [*c0, *c1) of box b (one of l's) that it fills alone, where
 * its label goes: its cells but the shared ones at either end (empty when
 * all of them are shared).
 */
void layout_box_whole(const struct layout *l, const struct box *b, uint32_t *c0, uint32_t *c1);

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
 * every box naming a node, cells whose split is in [1, 8] (8 without
 * eighths) and whose parts agree with the boxes: a box's cells are all
 * drawn, its node in each. Returns 0, or -1 with err set.
 */
int layout_check(const struct layout *l, const struct view *v, struct tf_error *err);

#endif /* TFLAME_LAYOUT_H */
