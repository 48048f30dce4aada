#include "config.h"

#include "tflame/flame.h"

#include <curses.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/chart.h"
#include "tflame/display.h"
#include "tflame/flow.h"
#include "tflame/functions.h"
#include "tflame/lanes.h"
#include "tflame/layout.h"
#include "tflame/model.h"
#include "tflame/nav.h"
#include "tflame/profile.h"
#include "tflame/render.h"
#include "tflame/search.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * The flame view (flame.h), and the Left Heavy and Time Order panes made
 * of one each, over the model's call tree and its chart. Trees place
 * nodes on an x axis of cumulative weight, charts on one of time (or of
 * weight without times): either way x is a uint64_t, so the view (an x
 * range, a first row, the selection, the zoom history) and everything
 * done with it are the same code, which walks the source through its
 * struct nav (nav.h) and never asks which kind of source it is.
 *
 * A node is the nav's: a stack id in a tree, a box index in a chart;
 * NODE_NONE is neither.
 */

#define NODE_NONE NAV_NONE

/* Details take at most this share of the pane's height (the rest is boxes). */
#define DETAILS_MAX_SHARE 2 /* 1/2 */
/* A name longer than this many lines goes on the details page (d). */
#define DETAILS_NAME_LINES 4
/*
 * An inverted tree of this many stacks takes long enough to build (about
 * a second for 4 M) that the status line says so first.
 */
#define SLOW_INVERTED_STACKS 1000000

/* One step of the zoom history: what Esc goes back to. */
struct zoom_step {
	uint64_t x0, x1;
	uint32_t root;
};

/*
 * A node across a rewrite of the set (flame_remap()): its stack in the
 * new set, and for a chart the middle of its box, since the chart's x
 * axis survives the rewrite while its box numbers do not.
 */
struct flame_anchor {
	stack_id stack; /* STACK_ROOT: no node */
	uint64_t x;
};

struct flame {
	bool started;              /* the state below belongs to key, key2 */
	uint64_t key, key2;        /* the source's */

	/* the source, lent again before every use */
	struct nav nav;
	const struct profile_set *ps;       /* nav.ps */
	const struct search_index *matches; /* or NULL */
	uint64_t total;            /* nav.total: x runs over [0, total) */
	uint64_t all;              /* what "% of all" is of */
	uint64_t matched_all;      /* the search's "of all", if has_matched_all */
	bool has_matched_all;
	uint32_t depth;            /* rows in all: the deepest stack */
	/* comparing: the base's weight per node (or NULL), and its largest change */
	const uint64_t *base;
	const uint64_t *base_self, *self; /* or NULL: colour by the totals */
	uint64_t max_delta;
	bool max_ok;               /* max_delta is of max_key, max_key2, max_base */
	uint64_t max_key, max_key2, max_base;

	/* the view */
	uint64_t x0, x1;           /* the x range across the width */
	uint32_t root;             /* the box zoomed into (Enter), or NODE_NONE */
	uint32_t sel;              /* the selected node, or NODE_NONE */
	/*
	 * What the last n or N had to say beyond "match 3 of 12" ("from the
	 * top again"), while note_sel, the match it went to, is selected.
	 */
	const char *note;
	uint32_t note_sel;
	uint32_t first_row;        /* the row at the root end of the screen */
	struct zoom_step *hist;
	size_t nr_hist, alloc_hist;
	/* Up then down comes back to the box it left, not to the heaviest. */
	uint32_t came_from;
	/*
	 * After flame_remap(): the selection, zoom root and zoom history as
	 * anchors, turned back into nodes by the next flame_set_source().
	 */
	bool remapped;
	struct flame_anchor a_sel, a_root;
	struct flame_anchor *a_hist; /* nr_hist of them */

	/* what the last draw used: requests map rows and the pointer by it */
	struct pane_area area;     /* all of it */
	struct pane_area body;     /* rows of boxes */
	struct flame_look look;
	bool flip;
	struct layout lay;
	struct ink *row_ink;       /* per cell of the row being drawn: its left part's ink */
	size_t alloc_row_ink;
	struct flow details;
	size_t name_lines;         /* the first lines of details: the name */
};

/* ------------------------------------------------------------ arithmetic */

/* a * b / c without overflow (c > 0; the result fits when a <= c). */
static uint64_t
mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((unsigned __int128)a * b / c);
}

static uint64_t
span(const struct flame *f)
{
	return f->x1 - f->x0;
}

/* The x range that Enter zoomed into, or the whole axis. */
static void
root_range(const struct flame *f, uint64_t *x0, uint64_t *x1);

/* ----------------------------------------------------------------- nodes */

static void
node_range(const struct flame *f, uint32_t n, uint64_t *x0, uint64_t *x1)
{
	f->nav.ops->range(&f->nav, n, x0, x1);
}

static uint64_t
node_total(const struct flame *f, uint32_t n)
{
	return nav_weight(&f->nav, n);
}

/* Row of n: stack depth - 1. */
static uint32_t
node_row(const struct flame *f, uint32_t n)
{
	return f->nav.ops->row(&f->nav, n);
}

static uint32_t
node_parent(const struct flame *f, uint32_t n)
{
	return f->nav.ops->parent(&f->nav, n);
}

static stack_id
node_stack(const struct flame *f, uint32_t n)
{
	return f->nav.ops->stack(&f->nav, n);
}

static const struct frame *
node_frame(const struct flame *f, uint32_t n)
{
	return ps_frame(f->ps, nav_frame(&f->nav, n));
}

/* The node of row that covers x, or NODE_NONE. */
static uint32_t
node_at(const struct flame *f, uint32_t row, uint64_t x)
{
	return f->nav.ops->at(&f->nav, row, x);
}

static uint32_t
node_next_at(const struct flame *f, uint32_t row, uint64_t x, int dir)
{
	return f->nav.ops->next_at(&f->nav, row, x, dir);
}

/* The callee to go down to: the heaviest one on screen, or the heaviest of all. */
static uint32_t
node_child(const struct flame *f, uint32_t n)
{
	return f->nav.ops->child(&f->nav, n, f->x0, f->x1);
}

/* ------------------------------------------------------------ the source */

static void
view_reset(struct flame *f)
{
	f->nr_hist = 0;
	f->root = NODE_NONE;
	f->x0 = 0;
	f->x1 = f->total ? f->total : 1;
}

static void select_node(struct flame *f, uint32_t n);

static void clamp_rows(struct flame *f);
static void pan_to(struct flame *f, uint64_t x0);
static void show_row(struct flame *f, uint32_t row);

/* The node an anchor is in the current source, or NODE_NONE. */
static uint32_t
anchor_node(const struct flame *f, const struct flame_anchor *a)
{
	if (a->stack == STACK_ROOT)
		return NODE_NONE;
	return f->nav.ops->find(&f->nav, a->stack, a->x);
}

/*
 * The first source after flame_remap(): the anchors become nodes again.
 * A tree's x axis is laid out anew (a merge may reorder children), so a
 * zoom takes its root's new range; a chart keeps its x ranges.
 */
static void
remap_finish(struct flame *f)
{
	uint64_t span0 = span(f);
	uint32_t sel;

	f->remapped = false;
	f->depth = f->nav.ops->depth(&f->nav);
	f->came_from = NODE_NONE;
	f->root = anchor_node(f, &f->a_root);
	for (size_t i = 0; i < f->nr_hist; i++) {
		struct zoom_step *z = &f->hist[i];

		z->root = anchor_node(f, &f->a_hist[i]);
		if (f->nav.paths || z->root == NODE_NONE) {
			z->x0 = 0;
			z->x1 = f->total ? f->total : 1;
			if (z->root != NODE_NONE)
				node_range(f, z->root, &z->x0, &z->x1);
		}
	}
	free(f->a_hist);
	f->a_hist = NULL;
	if (f->root != NODE_NONE && f->nav.paths) {
		node_range(f, f->root, &f->x0, &f->x1);
	} else if (f->x1 > f->total || f->x0 >= f->x1 || f->nav.paths) {
		/* No root: + and - zoomed a span, kept around the selection below. */
		f->x0 = 0;
		f->x1 = span0 && span0 < f->total ? span0 : f->total ? f->total : 1;
	}
	sel = anchor_node(f, &f->a_sel);
	if (sel == NODE_NONE)
		sel = f->root != NODE_NONE ? f->root : f->nav.ops->first(&f->nav);
	f->sel = sel;
	if (sel != NODE_NONE) {
		uint64_t x0, x1;

		node_range(f, sel, &x0, &x1);
		if (f->nav.paths && f->root == NODE_NONE && span(f) < f->total)
			pan_to(f, x0 + (x1 - x0) / 2 > span(f) / 2 ? x0 + (x1 - x0) / 2 - span(f) / 2
								     : 0);
		select_node(f, sel);
	}
	clamp_rows(f);
}

static struct flame_anchor
node_anchor(const struct flame *f, uint32_t n, const stack_id *map, uint32_t nr)
{
	struct flame_anchor a = { STACK_ROOT, 0 };
	uint64_t x0, x1;
	stack_id s;

	if (n == NODE_NONE)
		return a;
	s = node_stack(f, n);
	a.stack = s < nr ? map[s] : STACK_ROOT;
	node_range(f, n, &x0, &x1);
	a.x = x0 + (x1 - x0) / 2;
	return a;
}

void
flame_remap(struct flame *f, const stack_id *map, uint32_t nr, uint64_t key)
{
	/* A view of another source starts over at its next draw anyway. */
	if (!f->started || f->remapped || f->key != key)
		return;
	f->a_sel = node_anchor(f, f->sel, map, nr);
	f->a_root = node_anchor(f, f->root, map, nr);
	free(f->a_hist);
	f->a_hist = xreallocarray(NULL, f->nr_hist ? f->nr_hist : 1, sizeof(*f->a_hist));
	for (size_t i = 0; i < f->nr_hist; i++)
		f->a_hist[i] = node_anchor(f, f->hist[i].root, map, nr);
	f->remapped = true;
	/* The old tree or chart goes with the model's caches: no pointer to it stays. */
	memset(&f->nav, 0, sizeof(f->nav));
}

/*
 * The largest change of a node against the base, which takes the
 * strongest colour: once per tree and base weights (a pass over the
 * nodes), never per draw.
 */
static void
find_max_delta(struct flame *f, const struct flame_source *src)
{
	uint64_t max = 0;

	f->base = src->base;
	f->base_self = src->base_self;
	f->self = src->self;
	if (!f->base || (f->max_ok && f->max_key == src->key && f->max_key2 == src->key2 &&
			 f->max_base == src->base_key))
		return;
	for (uint32_t n = f->nav.begin; n < f->nav.end; n++) {
		uint64_t x0, x1, d;

		if (!f->nav.ops->valid(&f->nav, n))
			continue;
		if (f->self) {
			d = f->self[n] > f->base_self[n] ? f->self[n] - f->base_self[n]
							 : f->base_self[n] - f->self[n];
		} else {
			f->nav.ops->range(&f->nav, n, &x0, &x1);
			d = x1 - x0 > f->base[n] ? x1 - x0 - f->base[n] : f->base[n] - (x1 - x0);
		}
		if (d > max)
			max = d;
	}
	f->max_delta = max;
	f->max_ok = true;
	f->max_key = src->key;
	f->max_key2 = src->key2;
	f->max_base = src->base_key;
}

/*
 * Point at the source. When it is another tree or chart (another key:
 * another event, another Sandwich), start over: the old selection and
 * zoom mean nothing in it. When only the weights changed (key2: another
 * thread filter over the same tree), keep the selected node if it still
 * has weight; the zoom goes, its x range is stale.
 */
void
flame_set_source(struct flame *f, const struct flame_source *src)
{
	uint32_t keep = NODE_NONE;

	f->nav = src->nav;
	f->ps = f->nav.ps;
	f->total = f->nav.total;
	f->matches = src->matches;
	f->all = src->all ? src->all : f->total;
	f->matched_all = src->matched_all;
	f->has_matched_all = src->has_matched_all;
	find_max_delta(f, src);
	if (f->remapped) {
		f->key = src->key;
		f->key2 = src->key2;
		remap_finish(f);
		return;
	}
	if (f->started && f->key == src->key && f->key2 == src->key2)
		return;
	if (f->started && f->key == src->key && f->nav.paths && f->sel != NODE_NONE &&
	    f->nav.ops->valid(&f->nav, f->sel))
		keep = f->sel;
	f->started = true;
	f->key = src->key;
	f->key2 = src->key2;
	f->depth = f->nav.ops->depth(&f->nav);
	view_reset(f);
	f->first_row = 0;
	f->came_from = NODE_NONE;
	f->sel = f->nav.ops->first(&f->nav);
	if (keep != NODE_NONE)
		select_node(f, keep);
}

void
flame_range(const struct flame *f, uint64_t *x0, uint64_t *x1)
{
	*x0 = f->x0;
	*x1 = f->x1;
}

void
flame_show_range(struct flame *f, uint64_t x0, uint64_t x1)
{
	uint64_t bx0, bx1;
	uint32_t n;

	if (x1 > f->total)
		x1 = f->total;
	if (x0 >= x1 || (!x0 && x1 == f->total))
		return;
	f->nr_hist = 0;
	f->root = NODE_NONE;
	f->x0 = x0;
	f->x1 = x1;
	if (f->sel != NODE_NONE) {
		node_range(f, f->sel, &bx0, &bx1);
		if (bx1 > x0 && bx0 < x1)
			return;
	}
	n = f->nav.ops->first_in(&f->nav, x0, x1);
	if (n == NODE_NONE)
		return;
	f->came_from = NODE_NONE;
	f->sel = n;
	show_row(f, 0);
}

static void
root_range(const struct flame *f, uint64_t *x0, uint64_t *x1)
{
	if (f->root == NODE_NONE) {
		*x0 = 0;
		*x1 = f->total ? f->total : 1;
	} else {
		node_range(f, f->root, x0, x1);
	}
}

/* ------------------------------------------------------------- geometry */

static uint32_t
body_rows(const struct flame *f)
{
	return f->body.height > 0 ? (uint32_t)f->body.height : 1;
}

/* Keep the row window inside [0, depth). */
static void
clamp_rows(struct flame *f)
{
	uint32_t rows = body_rows(f);

	if (f->depth <= rows)
		f->first_row = 0;
	else if (f->first_row > f->depth - rows)
		f->first_row = f->depth - rows;
}

/* Scroll the rows so that row is on screen, by as little as possible. */
static void
show_row(struct flame *f, uint32_t row)
{
	uint32_t rows = body_rows(f);

	if (row < f->first_row)
		f->first_row = row;
	else if (row >= f->first_row + rows)
		f->first_row = row - rows + 1;
	clamp_rows(f);
}

/* Move the view (same span) to start at x0, inside the zoom root's range. */
static void
pan_to(struct flame *f, uint64_t x0)
{
	uint64_t rx0, rx1, w = span(f);

	root_range(f, &rx0, &rx1);
	if (w > rx1 - rx0)
		w = rx1 - rx0;
	if (x0 < rx0)
		x0 = rx0;
	if (x0 > rx1 - w)
		x0 = rx1 - w;
	f->x0 = x0;
	f->x1 = x0 + w;
}

/* Pan so that the selection shows: all of it if it fits, else its near part. */
static void
show_x(struct flame *f, uint32_t n)
{
	uint64_t x0, x1;

	node_range(f, n, &x0, &x1);
	if (x0 >= f->x0 && x1 <= f->x1)
		return;
	if (x1 - x0 <= span(f))
		pan_to(f, x0 < f->x0 ? x0 : x1 - span(f));
	else if (x1 <= f->x0 || x0 >= f->x1)
		pan_to(f, x1 <= f->x0 ? x1 - span(f) : x0);
}

static void
select_node(struct flame *f, uint32_t n)
{
	if (n == NODE_NONE)
		return;
	f->sel = n;
	show_row(f, node_row(f, n));
	show_x(f, n);
}

/* Screen row of a row, or -1 when it is not on screen. */
static int
row_y(const struct flame *f, uint32_t row)
{
	uint32_t i;

	if (row < f->first_row || row - f->first_row >= body_rows(f) || f->body.height <= 0)
		return -1;
	i = row - f->first_row;
	return f->flip ? f->body.top + f->body.height - 1 - (int)i : f->body.top + (int)i;
}

/* The row at screen row y, or UINT32_MAX. */
static uint32_t
y_row(const struct flame *f, int y)
{
	int i;

	if (y < f->body.top || y >= f->body.top + f->body.height)
		return UINT32_MAX;
	i = f->flip ? f->body.top + f->body.height - 1 - y : y - f->body.top;
	return f->first_row + (uint32_t)i;
}

/* The x at the middle of screen column col. */
static uint64_t
col_x(const struct flame *f, int col)
{
	uint64_t w = (uint64_t)(f->body.width > 0 ? f->body.width : 1);

	return f->x0 + mul_div(2 * (uint64_t)col + 1, span(f), 2 * w);
}

/* The x where screen column col starts (col may be the width: the end). */
static uint64_t
col_start(const struct flame *f, uint64_t col)
{
	uint64_t w = (uint64_t)(f->body.width > 0 ? f->body.width : 1);

	unsigned __int128 p = (unsigned __int128)col * span(f);

	/* The first x whose column is col: ceil(col * span / width). */
	return f->x0 + (uint64_t)((p + w - 1) / w);
}

/*
 * The neighbour of n in direction dir, as the screen shows it: from a box
 * of its own, the next node on the row (which may be a sliver in a dotted
 * cell); from a sliver, the first node in the next cell over, so that h
 * and l cross a run of thousands of slivers a cell at a time.
 */
static uint32_t
node_neighbour(const struct flame *f, uint32_t n, int dir)
{
	uint32_t row = node_row(f, n), next;
	uint64_t x0, x1, w = (uint64_t)(f->body.width > 0 ? f->body.width : 1), x;

	node_range(f, n, &x0, &x1);
	x = dir > 0 ? x1 : x0;
	if (mul_div(x1 - x0, w, span(f)) < 1 && x0 >= f->x0 && x0 < f->x1) {
		uint64_t col = mul_div(x0 - f->x0, w, span(f));

		if (dir > 0 && col_start(f, col + 1) > x)
			x = col_start(f, col + 1);
		else if (dir < 0 && col_start(f, col) < x)
			x = col_start(f, col);
	}
	next = node_next_at(f, row, x, dir);
	/* A chart's search from a cell edge may land back on n itself. */
	if (next == n)
		next = node_next_at(f, row, dir > 0 ? x1 : x0, dir);
	return next == n ? NODE_NONE : next;
}

/* ---------------------------------------------------------------- colour */

/* The family and name hash that choose n's colour in the colour mode. */
static enum flame_family
node_hue(const struct flame *f, const struct pane_ctx *ctx, uint32_t n, uint32_t *hash)
{
	return palette_hue(f->ps, node_frame(f, n), ctx->color, hash);
}

/* Comparing: n's change against the base, a palette_diff_level(). */
static int
node_change(const struct flame *f, uint32_t n)
{
	if (f->self)
		return palette_box_level(f->base[n], node_total(f, n), f->base_self[n], f->self[n],
					 f->max_delta);
	return palette_diff_level(f->base[n], node_total(f, n), f->max_delta);
}

/* n's ink, before the search and the selection: its colour mode's, or its change's. */
static struct ink
node_hue_ink(const struct flame *f, const struct pane_ctx *ctx, uint32_t n)
{
	uint32_t h;
	enum flame_family family;

	if (f->base)
		return display_diff_ink(ctx->disp, node_change(f, n));
	family = node_hue(f, ctx, n, &h);
	return display_flame_ink(ctx->disp, family, h);
}

/* ---------------------------------------------------------------- drawing */

/* The selection shows in a focused view only: one selection on screen at a time. */
static bool
shows_selection(const struct flame *f, uint32_t n)
{
	return n == f->sel && f->look.focused;
}

/* Whether the search dims n: it does not match n's frame. */
static bool
dims(const struct flame *f, const struct search *s, uint32_t n)
{
	return s && !search_frame(s, f->ps->stacks[node_stack(f, n)].frame);
}

/*
 * Without colour: each box a bar, then its label; a box narrower than a
 * cell is a dot per cell, lit when the search matches it.
 */
static void
draw_box_mono(const struct flame *f, const struct pane_ctx *ctx, const struct search *s,
	      const struct box *b, struct strbuf *label)
{
	const struct display *d = ctx->disp;
	int y = row_y(f, b->row), x = f->body.left + (int)b->col0;
	unsigned w = b->col1 - b->col0, used;
	attr_t attr = A_NORMAL;
	const struct frame *fr;

	if (y < 0)
		return;
	move(y, x);
	if ((b->flags & BOX_NARROW) && !shows_selection(f, b->node)) {
		attrset(display_attr(d, s && !dims(f, s, b->node) ? DISPLAY_MATCH_DOTS
								 : DISPLAY_MERGED));
		for (unsigned i = 0; i < w; i++)
			addstr(display_glyph_merged(d));
		return;
	}
	fr = node_frame(f, b->node);
	if (dims(f, s, b->node))
		attr = display_attr(d, DISPLAY_DIMMED);
	else if (s)
		attr |= A_BOLD | A_UNDERLINE;
	if (shows_selection(f, b->node))
		attr |= A_REVERSE | A_BOLD;
	attrset(attr);
	if (f->base) {
		/* Comparing: the sign of the change, bold when it is strong. */
		int level = node_change(f, b->node);

		if (level > PALETTE_DIFF_LEVELS / 2 || level < -PALETTE_DIFF_LEVELS / 2)
			attrset(attr | A_BOLD);
		addch(level > 0 ? '+' : level < 0 ? '-' : '=');
		w--;
	} else if (w >= 2 && !shows_selection(f, b->node)) {
		addstr(display_glyph_bar(d));
		w--;
	}
	strbuf_reset(label);
	used = render_label(label, ps_get(f->ps, fr->name), intern_len(&f->ps->strings, fr->name),
			    w, d->utf8);
	display_addstr(d, label->buf, label->len);
	for (; used < w; used++)
		addch(' ');
}

/* The ink n is drawn in: its colour, dimmed by the search, reversed when selected. */
static struct ink
node_ink(const struct flame *f, const struct pane_ctx *ctx, const struct search *s, uint32_t n)
{
	struct ink ink;

	if (dims(f, s, n))
		ink = display_ui_ink(ctx->disp, DISPLAY_DIMMED);
	else
		ink = node_hue_ink(f, ctx, n);
	if (shows_selection(f, n)) {
		short t = ink.fg;

		ink.fg = ink.bg;
		ink.bg = t;
	}
	return ink;
}

/*
 * Inks along a row, left to right: a node keeps the ink it started with,
 * and a node that touches a different node of the same colour takes the
 * other shade, so neighbours are always told apart, even two functions of
 * one module in colour-by-module mode.
 */
struct inker {
	uint32_t node; /* the node of the last part drawn, LAYOUT_NONE after a gap */
	struct ink ink;
};

static const struct ink *
inker_next(struct inker *k, const struct flame *f, const struct pane_ctx *ctx,
	   const struct search *s, uint32_t n)
{
	struct ink ink;

	if (n == LAYOUT_NONE) {
		k->node = LAYOUT_NONE;
		return NULL;
	}
	if (n == k->node)
		return &k->ink;
	ink = node_ink(f, ctx, s, n);
	/* A change's ink: its shade may be another text colour on the same background. */
	if (f->base && !dims(f, s, n)) {
		if (k->node != LAYOUT_NONE && ink.bg == k->ink.bg && ink.fg == k->ink.fg)
			ink = display_diff_shade(ctx->disp, ink);
	} else if (k->node != LAYOUT_NONE && ink.bg == k->ink.bg) {
		ink = display_ink_shade(ctx->disp, ink);
	}
	k->node = n;
	k->ink = ink;
	return &k->ink;
}

/*
 * One row in colour: every cell in the ink of its part or parts (with
 * eighths, a cell two boxes share is a block glyph in one's colour on the
 * other's), then each box's label over the cells it fills.
 */
static void
draw_row(struct flame *f, const struct pane_ctx *ctx, const struct search *s, uint32_t row,
	 size_t *bi, struct strbuf *label)
{
	const struct display *d = ctx->disp;
	int y = row_y(f, row);
	struct inker k = { LAYOUT_NONE, { -1, -1 } };
	size_t first = *bi;

	while (*bi < f->lay.nr && f->lay.boxes[*bi].row == row)
		(*bi)++;
	if (y < 0)
		return;
	move(y, f->body.left);
	for (uint32_t c = 0; c < f->lay.width; c++) {
		const struct cell *cl = layout_cell(&f->lay, row, c);
		const struct ink *left = inker_next(&k, f, ctx, s, cl->left), *right;
		struct ink l;

		if (cl->split == LAYOUT_EIGHTHS) {
			if (left)
				f->row_ink[c] = *left;
			if (left)
				display_set_ink(d, *left, 0);
			else
				attrset(A_NORMAL);
			addch(' ');
			continue;
		}
		l = left ? *left : (struct ink){ -1, -1 };
		f->row_ink[c] = l;
		right = inker_next(&k, f, ctx, s, cl->right);
		display_eighths(d, left ? &l : NULL, right, cl->split);
	}
	/* Labels: over the cells each box fills, in the ink its cells got. */
	for (size_t i = first; i < *bi; i++) {
		const struct box *b = &f->lay.boxes[i];
		const struct frame *fr = node_frame(f, b->node);
		uint32_t c0, c1;

		layout_box_whole(&f->lay, b, &c0, &c1);
		/* A lone ellipsis in a one-cell box is noise: its colour says enough. */
		if (c1 - c0 < 2)
			continue;
		strbuf_reset(label);
		render_label(label, ps_get(f->ps, fr->name), intern_len(&f->ps->strings, fr->name),
			     c1 - c0, d->utf8);
		display_set_ink(d, f->row_ink[c0], shows_selection(f, b->node) ? A_BOLD : 0);
		move(y, f->body.left + (int)c0);
		display_addstr(d, label->buf, label->len);
	}
}

/*
 * A selected node narrower than a cell has no box of its own: mark the
 * cell it falls in, so the selection is never invisible.
 */
static void
draw_narrow_selection(const struct flame *f, const struct pane_ctx *ctx)
{
	uint64_t x0, x1, mid;
	int y, col;

	if (f->sel == NODE_NONE || !f->look.focused)
		return;
	y = row_y(f, node_row(f, f->sel));
	node_range(f, f->sel, &x0, &x1);
	if (y < 0 || x1 <= f->x0 || x0 >= f->x1)
		return;
	for (size_t i = 0; i < f->lay.nr; i++)
		if (f->lay.boxes[i].node == f->sel)
			return;
	mid = x0 / 2 + x1 / 2;
	if (mid < f->x0)
		mid = f->x0;
	if (mid >= f->x1)
		mid = f->x1 - 1;
	col = (int)mul_div(mid - f->x0, (uint64_t)f->body.width, span(f));
	move(y, f->body.left + col);
	if (ctx->disp->colors)
		display_set_ink(ctx->disp, node_hue_ink(f, ctx, f->sel), A_REVERSE | A_BOLD);
	else
		attrset(A_REVERSE | A_BOLD);
	addstr(display_glyph_merged(ctx->disp));
	attrset(A_NORMAL);
}

/*
 * "thread   comm  pid 12 tid 13": which timeline a Time Order box is on.
 * Nothing when the input named no threads (folded stacks).
 */
static void
add_thread_line(struct flow *fl, attr_t label, const struct profile_set *ps, thread_id id,
		bool utf8, struct strbuf *sb)
{
	const struct thread *t = &ps->threads[id];

	/* Its names, "sh→python3" for a tid that exec'd. */
	strbuf_reset(sb);
	profile_thread_names(ps, id, utf8 ? "\xe2\x86\x92" : "->", sb);
	if (t->tid < 0 && t->pid < 0 && !sb->len)
		return;
	flow_newline(fl);
	flow_wordz(fl, label, "thread");
	flow_space(fl, 5);
	if (sb->len) {
		flow_word(fl, A_NORMAL, sb->buf, sb->len);
		flow_space(fl, 2);
	}
	strbuf_reset(sb);
	if (t->pid >= 0)
		strbuf_addf(sb, "pid %lld  ", (long long)t->pid);
	if (t->tid >= 0)
		strbuf_addf(sb, "tid %lld", (long long)t->tid);
	flow_word(fl, label, sb->buf, sb->len);
}

/* What x is counted in: a chart with times counts time, whatever the weight. */
static const struct profile *
x_profile(const struct flame *f, const struct profile *p)
{
	static const struct profile ns = { .unit = UNIT_NANOSECONDS };

	return f->nav.chart && f->nav.chart->has_time ? &ns : p;
}

/* "0.123456 s": x, ns from the start of Time Order's range. */
static void
add_time(struct strbuf *sb, uint64_t x)
{
	strbuf_addf(sb, "%llu.%06llu s", (unsigned long long)(x / 1000000000),
		    (unsigned long long)(x % 1000000000 / 1000));
}

/*
 * Comparing: "change   box 1.20 s -> 1.51 s +310 ms (+25.8%)   function
 * ...   self ...": the box's weight and its function's in the base and
 * now. Nothing outside diff mode; a view with no base weights per box
 * (Time Order) gives the function's only.
 */
static void
add_change_details(const struct flame *f, const struct pane_ctx *ctx, struct flow *fl,
		   uint32_t n, func_id fn)
{
	const struct display *d = ctx->disp;
	attr_t label = display_attr(d, DISPLAY_LABEL);
	const struct profile *p = model_profile(ctx->model);
	const struct func_stats *fs, *bs;
	uint64_t now;

	if (!model_diff_base(ctx->model))
		return;
	fs = model_func_stats(ctx->model);
	bs = model_base_func_stats(ctx->model);
	flow_newline(fl);
	flow_wordz(fl, label, "change");
	flow_space(fl, 5);
	if (f->base) {
		now = node_total(f, n);
		flow_wordz(fl, label, "box");
		flow_space(fl, 6);
		flow_change(fl, d, label, p, f->base[n], now);
		/* What the box's colour is of, in Left Heavy. */
		if (f->self) {
			flow_space(fl, 3);
			flow_wordz(fl, label, "self");
			flow_space(fl, 1);
			flow_change(fl, d, label, p, f->base_self[n], f->self[n]);
		}
		if (!bs)
			return;
		flow_newline(fl);
		flow_words(fl, A_NORMAL, "           ", 11);
	}
	if (!bs)
		return;
	flow_wordz(fl, label, "function");
	flow_space(fl, 1);
	flow_change(fl, d, label, p, bs[fn].total, fs[fn].total);
	flow_space(fl, 3);
	flow_wordz(fl, label, "self");
	flow_space(fl, 1);
	flow_change(fl, d, label, p, bs[fn].self, fs[fn].self);
}

/*
 * The details of the selection: its full name (wrapped, never cut), where
 * it comes from, this box's total and self, and the function's over all
 * its boxes, as speedscope's details pane does. Long reads for the
 * details page (full = true) add the call path.
 */
static void
build_details(struct flame *f, const struct pane_ctx *ctx, struct flow *fl, bool full)
{
	const struct display *d = ctx->disp;
	attr_t label = display_attr(d, DISPLAY_LABEL);
	const struct profile *p = model_profile(ctx->model);
	const struct func_table *ft;
	const struct func_stats *fs;
	const struct frame *fr;
	struct strbuf sb = STRBUF_INIT, of = STRBUF_INIT;
	uint64_t all = f->all, zoom = 0;
	bool has_zoom = f->root != NODE_NONE;
	/*
	 * Time Order's boxes are stretches of time: their shares are of the
	 * timeline, while a function's are of the weight, whatever its unit.
	 */
	bool timed = f->nav.chart && f->nav.chart->has_time;
	const char *box_of = timed ? "the timeline" : NULL, *fn_of = timed ? "all weight" : NULL;
	uint32_t n = f->sel;
	func_id fn;

	f->name_lines = 0;
	if (n == NODE_NONE) {
		flow_wordz(fl, label, f->total ? "nothing selected" : "no samples here");
		return;
	}
	fr = node_frame(f, n);
	if (has_zoom) {
		zoom = node_total(f, f->root);
		strbuf_addstr(&of, "zoom");
	} else if (f->total != f->all && f->total) {
		/* A part of the profile (Sandwich): the share of its root, the function. */
		const struct frame *top = node_frame(f, f->nav.ops->first(&f->nav));

		zoom = f->total;
		render_label(&of, ps_get(f->ps, top->name), intern_len(&f->ps->strings, top->name),
			     24, d->utf8);
		has_zoom = true;
	}

	fl->indent = 0;
	flow_text(fl, display_attr(d, DISPLAY_NAME), ps_get(f->ps, fr->name),
		  intern_len(&f->ps->strings, fr->name));
	f->name_lines = fl->nr_lines;
	flow_newline(fl);

	fl->indent = 2;
	if (fr->module != STR_EMPTY) {
		const char *module = ps_get(f->ps, fr->module);

		flow_field(fl, label, "module", A_NORMAL, module, strlen(module));
		flow_space(fl, 3);
	}
	if (fr->file != STR_EMPTY) {
		strbuf_addstr(&sb, ps_get(f->ps, fr->file));
		if (fr->flags & FRAME_HAS_LINE)
			strbuf_addf(&sb, ":%u", fr->line);
		flow_field(fl, label, "file", A_NORMAL, sb.buf, sb.len);
		flow_space(fl, 3);
	}
	if (fr->flags & (FRAME_KERNEL | FRAME_JIT | FRAME_INLINED)) {
		flow_wordz(fl, label, fr->flags & FRAME_KERNEL ? "kernel code"
				      : fr->flags & FRAME_JIT  ? "JIT code"
							       : "inlined into its caller");
	}
	if (fl->col)
		flow_newline(fl);

	fl->indent = 11;
	flow_wordz(fl, label, timed ? "this box   spans" : "this box   total");
	flow_space(fl, 1);
	flow_amount_of(fl, label, x_profile(f, p), node_total(f, n), all, box_of, zoom,
		       has_zoom ? of.buf : NULL);
	/* In an inverted tree a box's self weight says nothing of its frame. */
	if (!f->nav.inverted) {
		flow_space(fl, 3);
		flow_wordz(fl, label, "self");
		flow_space(fl, 1);
		flow_amount_of(fl, label, x_profile(f, p), f->nav.ops->self(&f->nav, n), all,
			       box_of, zoom, has_zoom ? of.buf : NULL);
	}
	flow_newline(fl);

	ft = model_funcs(ctx->model);
	fs = model_func_stats(ctx->model);
	fn = ft->frame_func[f->ps->stacks[node_stack(f, n)].frame];
	flow_wordz(fl, label, "function   total");
	flow_space(fl, 1);
	flow_amount_of(fl, label, p, fs[fn].total, model_total(ctx->model), fn_of, 0, NULL);
	flow_space(fl, 3);
	flow_wordz(fl, label, "self");
	flow_space(fl, 1);
	flow_amount_of(fl, label, p, fs[fn].self, model_total(ctx->model), fn_of, 0, NULL);
	if (model_tree_rebuilt(ctx->model)) {
		/* The boxes are a guess from a call graph; the function line may not be. */
		const char *why = model_func_stats_exact(ctx->model)
					  ? "boxes rebuilt from it, an approximation; "
					    "function figures as the file records them"
					  : "boxes rebuilt from it, an approximation; "
					    "function figures counted from the boxes";

		flow_newline(fl);
		flow_wordz(fl, label, "call graph");
		flow_space(fl, 1);
		flow_words(fl, A_NORMAL, why, strlen(why));
	}

	add_change_details(f, ctx, fl, n, fn);

	/* A box of a chart is also a stretch of time on one thread. */
	if (f->nav.chart) {
		const struct chart *c = f->nav.chart;
		struct chart_span sp;

		chart_box_span(c, n, &sp);
		flow_newline(fl);
		flow_wordz(fl, label, "time");
		flow_space(fl, 7);
		if (!c->has_time) {
			flow_wordz(fl, label, "none in this profile: x is cumulative weight, "
					      "samples in file order");
		} else {
			/* A span is a time whatever the weight's unit. */
			struct profile ns = { .unit = UNIT_NANOSECONDS };

			/*
			 * Where it starts and ends from the start of the range, in
			 * time and as shares of it; then how long it lasts.
			 */
			strbuf_reset(&sb);
			add_time(&sb, sp.x0);
			strbuf_setlen(&sb, sb.len - 2); /* the unit once, after the second */
			strbuf_addstr(&sb, d->utf8 ? " \xe2\x80\x93 " : " - ");
			add_time(&sb, sp.x1);
			flow_word(fl, A_NORMAL, sb.buf, sb.len);
			flow_space(fl, 1);
			strbuf_reset(&sb);
			strbuf_addch(&sb, '(');
			profile_format_share(sp.x0, c->total, &sb);
			strbuf_setlen(&sb, sb.len - 1); /* one % for both */
			strbuf_addstr(&sb, d->utf8 ? "\xe2\x80\x93" : "-");
			profile_format_share(sp.x1, c->total, &sb);
			strbuf_addstr(&sb, "),");
			flow_word(fl, label, sb.buf, sb.len);
			flow_space(fl, 1);
			strbuf_reset(&sb);
			profile_format_amount(&ns, sp.x1 - sp.x0, &sb);
			flow_word(fl, A_BOLD, sb.buf, sb.len);
			flow_space(fl, 1);
			strbuf_reset(&sb);
			strbuf_addf(&sb, "(%.1f%% of the timeline)", sp.pct);
			flow_word(fl, label, sb.buf, sb.len);
		}
		add_thread_line(fl, label, f->ps, chart_box_thread(c, n), d->utf8, &sb);
	}

	if (full) {
		uint32_t depth = node_row(f, n) + 1;
		stack_id s = node_stack(f, n);
		stack_id *path = xmalloc(sizeof(*path) * depth);

		for (uint32_t i = depth; i-- > 0; s = f->ps->stacks[s].parent)
			path[i] = s;
		flow_newline(fl);
		flow_newline(fl);
		flow_wordz(fl, display_attr(d, DISPLAY_HEADING),
			   f->look.path_title ? f->look.path_title
					      : "# call path, outermost first");
		fl->indent = 8;
		for (uint32_t i = 0; i < depth; i++) {
			const struct frame *pf = ps_frame(f->ps, f->ps->stacks[path[i]].frame);

			flow_newline(fl);
			strbuf_reset(&sb);
			strbuf_addf(&sb, "%6u ", i + 1);
			flow_word(fl, label, sb.buf, sb.len);
			flow_text(fl, i + 1 == depth ? A_BOLD : A_NORMAL, ps_get(f->ps, pf->name),
				  intern_len(&f->ps->strings, pf->name));
			if (pf->module != STR_EMPTY) {
				flow_space(fl, 2);
				flow_wordz(fl, label, ps_get(f->ps, pf->module));
			}
		}
		free(path);
	}
	fl->indent = 0;
	strbuf_release(&sb);
	strbuf_release(&of);
}

/*
 * The rule between the boxes and the details (or over the boxes, as their
 * title): the title, where the zoom is, and which rows show when the
 * stacks are deeper than the screen.
 */
static void
draw_rule(const struct flame *f, const struct pane_ctx *ctx, int y, int x, int width)
{
	const struct display *d = ctx->disp;
	const char *dash = d->utf8 ? "\xe2\x94\x80" : "-";
	struct strbuf sb = STRBUF_INIT, rows = STRBUF_INIT, title = STRBUF_INIT;
	int col = 0, rcols = 0;

	if (f->look.title) {
		strbuf_addch(&title, ' ');
		render_label(&title, f->look.title, strlen(f->look.title),
			     (unsigned)(width > 8 ? width - 6 : 1), d->utf8);
		strbuf_addch(&title, ' ');
	}
	if (f->root != NODE_NONE) {
		const struct frame *fr = node_frame(f, f->root);

		strbuf_addf(&sb, " zoom %zu: ", f->nr_hist);
		render_label(&sb, ps_get(f->ps, fr->name), intern_len(&f->ps->strings, fr->name),
			     (unsigned)(width > 40 ? width / 2 : 20), d->utf8);
		strbuf_addstr(&sb, " (Esc: back) ");
	} else if (span(f) < f->total) {
		strbuf_addf(&sb, " zoomed %.1fx (0: reset) ",
			    (double)f->total / (double)span(f));
	}
	if (f->depth > body_rows(f))
		strbuf_addf(&rows, " rows %u-%u of %u ", f->first_row + 1,
			    f->first_row + body_rows(f), f->depth);
	rcols = (int)rows.len;
	attrset(display_attr(d, DISPLAY_RULE));
	move(y, x);
	for (; col < 2 && col < width; col++)
		addstr(dash);
	if (title.len && col + (int)render_width(title.buf, title.len) <= width) {
		attrset(f->look.focused ? display_attr(d, DISPLAY_HEADING)
					: display_attr(d, DISPLAY_LABEL));
		display_addstr(d, title.buf, title.len);
		col += (int)render_width(title.buf, title.len);
		attrset(display_attr(d, DISPLAY_RULE));
	}
	if (sb.len && col + (int)render_width(sb.buf, sb.len) + rcols + 2 <= width) {
		attrset(display_attr(d, DISPLAY_LABEL));
		display_addstr(d, sb.buf, sb.len);
		col += (int)render_width(sb.buf, sb.len);
		attrset(display_attr(d, DISPLAY_RULE));
	}
	for (; col < width - rcols - 2; col++)
		addstr(dash);
	if (rcols && col + rcols <= width) {
		attrset(display_attr(d, DISPLAY_LABEL));
		addstr(rows.buf);
		col += rcols;
		attrset(display_attr(d, DISPLAY_RULE));
	}
	for (; col < width; col++)
		addstr(dash);
	attrset(A_NORMAL);
	strbuf_release(&sb);
	strbuf_release(&rows);
	strbuf_release(&title);
}

/*
 * The details in lines rows at y. When they do not fit, the name gives
 * up lines first (the numbers are what a glance is for), and the last
 * line of what is cut says where the rest is: never cut silently.
 */
static void
draw_details(const struct flame *f, const struct pane_ctx *ctx, int y, int x, size_t lines)
{
	static const char more[] = " d: all details ";
	const struct flow *fl = &f->details;
	size_t rest = fl->nr_lines - f->name_lines, name = f->name_lines, mark;

	if (fl->nr_lines <= lines) {
		flow_draw(fl, ctx->disp, 0, lines, y, x, A_NORMAL);
		return;
	}
	if (rest + 1 <= lines) {
		name = lines - rest;
		mark = name - 1;
	} else {
		name = name ? 1 : 0;
		rest = lines - name;
		mark = lines - 1;
	}
	flow_draw(fl, ctx->disp, 0, name, y, x, A_NORMAL);
	flow_draw(fl, ctx->disp, f->name_lines, rest, y + (int)name, x, A_NORMAL);
	attrset(display_attr(ctx->disp, DISPLAY_MESSAGE) | A_REVERSE);
	if (fl->width >= sizeof(more))
		mvaddstr(y + (int)mark, x + (int)fl->width - (int)sizeof(more) + 1, more);
	attrset(A_NORMAL);
}

void
flame_draw_details(struct flame *f, struct pane_ctx *ctx, int y, int x, int width, int lines)
{
	flow_reset(&f->details, (unsigned)(width > 0 ? width : 1));
	build_details(f, ctx, &f->details, false);
	if (lines > 0)
		draw_details(f, ctx, y, x, (size_t)lines);
}

/* Clear the rectangle: a view may be one of several side by side. */
static void
clear_area(const struct pane_area *a)
{
	attrset(A_NORMAL);
	for (int y = a->top; y < a->top + a->height; y++)
		for (int x = a->left; x < a->left + a->width; x++)
			mvaddch(y, x, ' ');
}

void
flame_draw(struct flame *f, struct pane_ctx *ctx, const struct pane_area *area,
	   const struct flame_look *look)
{
	struct view v;
	struct strbuf label = STRBUF_INIT;
	const struct search *s = look->marks;
	int max_details, details = 0, rule_y;

	f->look = *look;
	f->area = *area;
	f->flip = ctx->flip;

	/* The details first: the boxes get what they leave. */
	flow_reset(&f->details, (unsigned)(area->width > 0 ? area->width : 1));
	if (look->details && !look->rule_on_top) {
		build_details(f, ctx, &f->details, false);
		max_details = area->height / DETAILS_MAX_SHARE - 1;
		if (max_details < 1)
			max_details = 1;
		details = (int)f->details.nr_lines;
		if (f->name_lines > DETAILS_NAME_LINES)
			details -= (int)(f->name_lines - DETAILS_NAME_LINES);
		if (details > max_details)
			details = max_details;
	}

	f->body = (struct pane_area){ area->top, area->left, area->height - details - 1,
				      area->width };
	if (look->rule_on_top)
		f->body.top++;
	if (f->body.height < 1)
		f->body.height = 1;
	clamp_rows(f);

	clear_area(area);
	if (!f->total) {
		attrset(display_attr(ctx->disp, DISPLAY_LABEL));
		mvaddstr(f->body.top, f->body.left, "no samples here");
		attrset(A_NORMAL);
	} else {
		const struct display *d = ctx->disp;
		size_t bi = 0;

		/* Eighths need colours to tell the two sides of a cell apart. */
		v = (struct view){ f->x0, f->x1, (uint32_t)f->body.width, f->first_row,
				   body_rows(f), d->utf8 && d->colors };
		f->nav.ops->layout(&f->nav, &f->lay, &v);
		if (!d->colors) {
			for (size_t i = 0; i < f->lay.nr; i++)
				draw_box_mono(f, ctx, s, &f->lay.boxes[i], &label);
		} else {
			ALLOC_GROW(f->row_ink, f->lay.width, f->alloc_row_ink);
			for (uint32_t r = 0; r < f->lay.nr_rows; r++)
				draw_row(f, ctx, s, f->lay.first_row + r, &bi, &label);
		}
		draw_narrow_selection(f, ctx);
	}
	attrset(A_NORMAL);

	rule_y = look->rule_on_top ? area->top : f->body.top + f->body.height;
	draw_rule(f, ctx, rule_y, area->left, area->width);
	if (details)
		draw_details(f, ctx, rule_y + 1, area->left, (size_t)details);
	strbuf_release(&label);
}

bool
flame_contains(const struct flame *f, int x, int y)
{
	return x >= f->area.left && x < f->area.left + f->area.width && y >= f->area.top &&
	       y < f->area.top + f->area.height;
}

/* Columns a and b of the body, in order and clipped to it. */
static void
body_columns(const struct flame *f, int *a, int *b)
{
	int lo = *a < *b ? *a : *b, hi = *a < *b ? *b : *a;

	lo -= f->body.left;
	hi -= f->body.left;
	*a = lo < 0 ? 0 : lo;
	*b = hi >= f->body.width ? f->body.width - 1 : hi;
}

bool
flame_columns_range(const struct flame *f, int a, int b, int y, uint64_t *x0, uint64_t *x1)
{
	if (!f->total || a < f->body.left || a >= f->body.left + f->body.width ||
	    y_row(f, y) == UINT32_MAX)
		return false;
	body_columns(f, &a, &b);
	*x0 = col_start(f, (uint64_t)a);
	*x1 = col_start(f, (uint64_t)b + 1);
	return *x0 < *x1;
}

void
flame_mark_columns(const struct flame *f, int a, int b)
{
	body_columns(f, &a, &b);
	if (a > b)
		return;
	for (int y = f->body.top; y < f->body.top + f->body.height; y++)
		mvchgat(y, f->body.left + a, b - a + 1, A_REVERSE, 0, NULL);
}

/* --------------------------------------------------------------- requests */

static void find_match(struct flame *f, struct pane_ctx *ctx, int dir);

/* The up/down requests as moves to the caller (-1) or a callee (+1). */
static int
vertical(const struct flame *f, enum request req)
{
	int down = req == REQ_MOVE_DOWN ? 1 : -1;

	return f->flip ? -down : down;
}

/* The middle of the part of n on screen: what + and - zoom around. */
static uint64_t
visible_middle(const struct flame *f, uint32_t n)
{
	uint64_t x0, x1;

	node_range(f, n, &x0, &x1);
	if (x0 < f->x0)
		x0 = f->x0;
	if (x1 > f->x1)
		x1 = f->x1;
	return x0 < x1 ? x0 + (x1 - x0) / 2 : x0;
}

static void
move_vertical(struct flame *f, struct pane_ctx *ctx, int dir)
{
	uint32_t n;

	if (f->sel == NODE_NONE)
		return;
	if (dir < 0) {
		n = node_parent(f, f->sel);
		if (n == NODE_NONE) {
			strbuf_addstr(ctx->message, "this is an outermost frame");
			return;
		}
		f->came_from = f->sel;
	} else {
		if (f->came_from != NODE_NONE && node_parent(f, f->came_from) == f->sel)
			n = f->came_from;
		else
			n = node_child(f, f->sel);
		if (n == NODE_NONE) {
			strbuf_addstr(ctx->message, "this frame calls nothing: it is a leaf");
			return;
		}
	}
	select_node(f, n);
}

/*
 * h and l: the neighbour on the row, except when the selected box runs off
 * the screen that way (zoomed in with +): then pan towards its edge first,
 * a quarter of a screen at a time, so a wide box can be read across.
 * Neighbours stay inside the box Enter zoomed into.
 */
static void
move_horizontal(struct flame *f, struct pane_ctx *ctx, int dir)
{
	uint64_t x0, x1, rx0, rx1, step = span(f) / 4 ? span(f) / 4 : 1;
	uint32_t n;

	if (f->sel == NODE_NONE)
		return;
	node_range(f, f->sel, &x0, &x1);
	if (dir > 0 && x1 > f->x1) {
		pan_to(f, f->x0 + step < x1 - span(f) ? f->x0 + step : x1 - span(f));
		return;
	}
	if (dir < 0 && x0 < f->x0) {
		pan_to(f, f->x0 - x0 > step ? f->x0 - step : x0);
		return;
	}
	n = node_neighbour(f, f->sel, dir);
	root_range(f, &rx0, &rx1);
	if (n != NODE_NONE) {
		node_range(f, n, &x0, &x1);
		if (x1 <= rx0 || x0 >= rx1)
			n = NODE_NONE;
	}
	if (n == NODE_NONE) {
		strbuf_addstr(ctx->message, dir > 0 ? "no box to the right on this row"
						    : "no box to the left on this row");
		if (f->root != NODE_NONE)
			strbuf_addstr(ctx->message, " of the zoomed box (Esc zooms out)");
		return;
	}
	f->came_from = NODE_NONE;
	select_node(f, n);
}

/* H and L: pan a quarter of a screen; the selection follows if it leaves. */
static void
pan(struct flame *f, struct pane_ctx *ctx, int dir)
{
	uint64_t step = span(f) / 4 ? span(f) / 4 : 1, old = f->x0, x0, x1;

	pan_to(f, dir > 0 ? f->x0 + step : f->x0 > step ? f->x0 - step : 0);
	if (f->x0 == old) {
		strbuf_addstr(ctx->message, span(f) >= f->total
				      ? "nothing to pan: all of it is on screen (+ zooms in)"
				      : "at the edge");
		return;
	}
	if (f->sel == NODE_NONE)
		return;
	node_range(f, f->sel, &x0, &x1);
	if (x1 <= f->x0 || x0 >= f->x1) {
		uint32_t n = node_at(f, node_row(f, f->sel), f->x0 + span(f) / 2);

		if (n != NODE_NONE)
			f->sel = n;
	}
}

/* Enter: the node's range becomes the view; Esc comes back. */
static void
zoom_into(struct flame *f, struct pane_ctx *ctx, uint32_t n)
{
	uint64_t x0, x1;

	if (n == NODE_NONE)
		return;
	node_range(f, n, &x0, &x1);
	if (x0 == f->x0 && x1 == f->x1) {
		strbuf_addstr(ctx->message, "already zoomed on this box");
		f->sel = n;
		return;
	}
	ALLOC_GROW(f->hist, f->nr_hist, f->alloc_hist);
	f->hist[f->nr_hist++] = (struct zoom_step){ f->x0, f->x1, f->root };
	f->root = n;
	f->x0 = x0;
	f->x1 = x1;
	f->sel = n;
	show_row(f, node_row(f, n));
}

/* Esc: one zoom step back; false when there is no zoom to leave. */
static bool
zoom_back(struct flame *f)
{
	uint32_t left;

	if (f->nr_hist) {
		struct zoom_step *z = &f->hist[--f->nr_hist];

		left = f->root;
		f->x0 = z->x0;
		f->x1 = z->x1;
		f->root = z->root;
		/* Select the box just left: it shows where the zoom was. */
		if (left != NODE_NONE)
			select_node(f, left);
		return true;
	}
	if (span(f) < f->total) {
		view_reset(f);
		return true;
	}
	return false;
}

/* + and -: halve or double the span around the selection. */
static void
zoom_step(struct flame *f, struct pane_ctx *ctx, bool in)
{
	uint64_t rx0, rx1, w = span(f), mid, nw;

	root_range(f, &rx0, &rx1);
	mid = f->sel != NODE_NONE ? visible_middle(f, f->sel) : f->x0 + w / 2;
	if (in) {
		/* One unit of weight across the screen is as far as it goes. */
		if (w <= 1) {
			strbuf_addstr(ctx->message, "zoomed in as far as it goes");
			return;
		}
		nw = w / 2;
	} else {
		if (w >= rx1 - rx0) {
			strbuf_addstr(ctx->message, f->root != NODE_NONE
					      ? "the zoomed box fills the width: Esc leaves it"
					      : "the whole profile is on screen");
			return;
		}
		nw = w > (rx1 - rx0) / 2 ? rx1 - rx0 : w * 2;
	}
	f->x0 = mid > nw / 2 ? mid - nw / 2 : 0;
	f->x1 = f->x0 + nw;
	pan_to(f, f->x0);
}

/*
 * PgUp/PgDn and the wheel: scroll rows, towards the leaves when down > 0
 * (visually down, so the other way when flipped). A selection that
 * scrolls off follows: to its callee on the nearest row on screen, or to
 * its caller.
 */
static void
scroll_rows(struct flame *f, int down, uint32_t rows)
{
	uint32_t n = f->sel, k;

	if (f->flip)
		down = -down;
	if (down > 0)
		f->first_row += rows;
	else
		f->first_row = f->first_row > rows ? f->first_row - rows : 0;
	clamp_rows(f);
	if (n == NODE_NONE)
		return;
	while (node_row(f, n) < f->first_row && (k = node_child(f, n)) != NODE_NONE)
		n = k;
	while (node_row(f, n) >= f->first_row + body_rows(f) && node_parent(f, n) != NODE_NONE)
		n = node_parent(f, n);
	if (n != f->sel)
		f->came_from = NODE_NONE;
	f->sel = n;
}

static void
go_top(struct flame *f)
{
	uint32_t n = f->sel, p;

	if (n == NODE_NONE)
		return;
	while ((p = node_parent(f, n)) != NODE_NONE)
		n = p;
	f->came_from = NODE_NONE;
	select_node(f, n);
}

/* G: follow the heaviest callee down to a leaf, the hottest path. */
static void
go_bottom(struct flame *f)
{
	uint32_t n = f->sel, k;

	if (n == NODE_NONE)
		return;
	while ((k = node_child(f, n)) != NODE_NONE)
		n = k;
	f->came_from = NODE_NONE;
	select_node(f, n);
}

/* The node under the pointer, or NODE_NONE. */
static uint32_t
node_under(const struct flame *f, const struct pane_input *in)
{
	uint32_t row;

	if (!in || in->x < f->body.left || in->x >= f->body.left + f->body.width)
		return NODE_NONE;
	row = y_row(f, in->y);
	if (row == UINT32_MAX)
		return NODE_NONE;
	return node_at(f, row, col_x(f, in->x - f->body.left));
}

enum pane_reply
flame_request(struct flame *f, struct pane_ctx *ctx, enum request req,
	      const struct pane_input *in)
{
	uint32_t n;

	switch (req) {
	case REQ_MOVE_UP:
	case REQ_MOVE_DOWN:
		move_vertical(f, ctx, vertical(f, req));
		break;
	case REQ_MOVE_LEFT:
		move_horizontal(f, ctx, -1);
		break;
	case REQ_MOVE_RIGHT:
		move_horizontal(f, ctx, 1);
		break;
	case REQ_PAN_LEFT:
		pan(f, ctx, -1);
		break;
	case REQ_PAN_RIGHT:
		pan(f, ctx, 1);
		break;
	case REQ_PAGE_UP:
	case REQ_PAGE_DOWN:
		scroll_rows(f, req == REQ_PAGE_DOWN ? 1 : -1,
			    body_rows(f) > 1 ? body_rows(f) - 1 : 1);
		break;
	case REQ_WHEEL_UP:
	case REQ_WHEEL_DOWN:
		scroll_rows(f, req == REQ_WHEEL_DOWN ? 1 : -1, 3);
		break;
	case REQ_TOP:
		go_top(f);
		break;
	case REQ_BOTTOM:
		go_bottom(f);
		break;
	case REQ_ZOOM:
		zoom_into(f, ctx, f->sel);
		break;
	case REQ_BACK:
		if (!zoom_back(f))
			return PANE_IGNORED;
		break;
	case REQ_FIND_NEXT:
	case REQ_FIND_PREV:
		find_match(f, ctx, req == REQ_FIND_NEXT ? 1 : -1);
		break;
	case REQ_ZOOM_RESET:
		if (span(f) >= f->total && f->root == NODE_NONE)
			strbuf_addstr(ctx->message, "not zoomed in");
		view_reset(f);
		break;
	case REQ_ZOOM_IN:
		zoom_step(f, ctx, true);
		break;
	case REQ_ZOOM_OUT:
		zoom_step(f, ctx, false);
		break;
	case REQ_CLICK:
	case REQ_CLICK_ZOOM:
		n = node_under(f, in);
		if (n == NODE_NONE)
			return PANE_DONE;
		f->came_from = NODE_NONE;
		f->sel = n;
		if (req == REQ_CLICK_ZOOM)
			zoom_into(f, ctx, n);
		break;
	case REQ_DETAILS: {
		struct flow fl;

		if (f->sel == NODE_NONE) {
			strbuf_addstr(ctx->message, "nothing selected");
			break;
		}
		/* The page gets plain lines; the pager wraps them itself. */
		flow_init(&fl, 100000);
		strbuf_addstr(ctx->page, "Details (q or Esc closes)\n");
		build_details(f, ctx, &fl, true);
		for (size_t l = 0; l < fl.nr_lines; l++) {
			size_t end = l + 1 < fl.nr_lines ? fl.lines[l + 1] : fl.nr_segs;

			for (size_t s = fl.lines[l]; s < end; s++)
				strbuf_add(ctx->page, fl.text.buf + fl.segs[s].off,
					   fl.segs[s].len);
			strbuf_addch(ctx->page, '\n');
		}
		flow_release(&fl);
		return PANE_PAGE;
	}
	case REQ_SOURCE:
		if (f->sel == NODE_NONE || !f->total) {
			strbuf_addstr(ctx->message, "nothing selected");
			break;
		}
		ctx->show_func = flame_selected_func(f, ctx);
		ctx->show_frame = f->ps->stacks[node_stack(f, f->sel)].frame;
		return PANE_SHOW_SOURCE;
	default:
		return PANE_IGNORED;
	}
	return PANE_DONE;
}

/* ----------------------------------------------------------------- search */

/* The index of node's hit in ix (it is one), for "match 3 of 12". */
static uint32_t
hit_index(const struct search_index *ix, uint32_t row, uint64_t x0)
{
	uint32_t lo = 0, hi = ix->nr_hits;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct search_hit *h = &ix->hits[mid];

		if (h->row < row || (h->row == row && h->x0 < x0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Show match n: as it is when it is on screen a cell wide or more; else
 * with the whole zoomed box when that shows it; else, narrower than a
 * cell, zoomed in around it (as + does, so 0 comes back) until it is a
 * few cells wide.
 */
static void
widen_to_show(struct flame *f, uint32_t n)
{
	uint64_t x0, x1, rx0, rx1, w = (uint64_t)(f->body.width > 0 ? f->body.width : 1), nw;
	const uint64_t cells = 8;

	node_range(f, n, &x0, &x1);
	if (x0 >= f->x0 && x1 <= f->x1 && mul_div(x1 - x0, w, span(f)) >= 1)
		return;
	root_range(f, &rx0, &rx1);
	/* Wide enough without +'s zoom: the whole of the zoomed box shows it best. */
	if (mul_div(x1 - x0, w, rx1 - rx0) >= 1) {
		f->x0 = rx0;
		f->x1 = rx1;
		return;
	}
	nw = w > cells ? mul_div(x1 - x0, w, cells) : x1 - x0;
	if (nw < 1)
		nw = 1;
	if (nw > rx1 - rx0)
		nw = rx1 - rx0;
	f->x0 = x0 + (x1 - x0) / 2 > nw / 2 ? x0 + (x1 - x0) / 2 - nw / 2 : 0;
	f->x1 = f->x0 + nw;
	pan_to(f, f->x0);
}

/*
 * n and N: the next match in layout order (row by row, left to right),
 * inside the box zoomed into; past its last match, out of the zoom to
 * the rest of the pane.
 */
static void
find_match(struct flame *f, struct pane_ctx *ctx, int dir)
{
	const struct search_index *ix = f->matches;
	uint64_t rx0, rx1, x0, x1;
	uint32_t n;
	bool wrapped = false, left_zoom = false;

	if (!ix) {
		/* Sandwich lights a function's marks in its trees, but does not visit them. */
		strbuf_addstr(ctx->message, model_search(ctx->model)
					    ? "n and N visit the marks in Left Heavy and Time Order"
					    : "no search: / starts one");
		return;
	}
	if (!ix->nr_hits) {
		strbuf_addstr(ctx->message, "no match in this pane");
		return;
	}
	root_range(f, &rx0, &rx1);
	n = dir > 0 ? search_index_next(ix, f->sel, rx0, rx1)
		    : search_index_prev(ix, f->sel, rx0, rx1);
	if (n == SEARCH_NONE) {
		n = dir > 0 ? search_index_next(ix, f->sel, 0, UINT64_MAX)
			    : search_index_prev(ix, f->sel, 0, UINT64_MAX);
		if (n == SEARCH_NONE)
			return;
		f->nr_hist = 0;
		view_reset(f);
		left_zoom = true;
	}
	if (f->sel != NODE_NONE) {
		uint32_t r0 = node_row(f, f->sel), r1 = node_row(f, n);

		node_range(f, f->sel, &x0, &x1);
		node_range(f, n, &rx0, &rx1);
		wrapped = dir > 0 ? r1 < r0 || (r1 == r0 && rx0 <= x0)
				  : r1 > r0 || (r1 == r0 && rx0 >= x0);
	}
	f->came_from = NODE_NONE;
	select_node(f, n);
	widen_to_show(f, n);
	node_range(f, n, &x0, &x1);
	/*
	 * "match 3 of 12" goes on the status line with the matched weight
	 * (flame_search_status()), not as a message that would hide it.
	 */
	f->note = NULL;
	f->note_sel = n;
	if (left_zoom)
		f->note = "outside the zoomed box: zoomed out";
	else if (wrapped && ix->nr_hits > 1)
		f->note = dir > 0 ? "from the top again" : "from the bottom again";
}

/* The selection's place among the matches (1-based), or 0 if it is none. */
static uint32_t
selected_match(const struct flame *f)
{
	const struct search_index *ix = f->matches;
	uint64_t x0, x1;
	uint32_t row, i;

	if (!ix || f->sel == NODE_NONE || !f->total)
		return 0;
	node_range(f, f->sel, &x0, &x1);
	row = node_row(f, f->sel);
	i = hit_index(ix, row, x0);
	if (i >= ix->nr_hits || ix->hits[i].row != row || ix->hits[i].x0 != x0)
		return 0;
	return i + 1;
}

uint32_t
flame_selected(const struct flame *f)
{
	return f->sel;
}

void
flame_select(struct flame *f, uint32_t n)
{
	f->came_from = NODE_NONE;
	select_node(f, n);
}

bool
flame_select_first_match(struct flame *f)
{
	uint32_t n;

	if (!f->matches)
		return false;
	n = search_index_next(f->matches, SEARCH_NONE, 0, UINT64_MAX);
	if (n == SEARCH_NONE)
		return false;
	f->came_from = NODE_NONE;
	select_node(f, n);
	widen_to_show(f, n);
	return true;
}

void
flame_search_status(const struct flame *f, struct pane_ctx *ctx, struct strbuf *out)
{
	const struct profile *p = x_profile(f, model_profile(ctx->model));
	uint64_t all, view;
	uint32_t at;

	if (!f->matches)
		return;
	all = f->has_matched_all ? f->matched_all : search_index_matched(f->matches, 0, f->total);
	view = search_index_matched(f->matches, f->x0, f->x1);
	at = selected_match(f);
	if (at) {
		strbuf_addf(out, "match %u of %u", at, f->matches->nr_hits);
		if (f->note && f->note_sel == f->sel)
			strbuf_addf(out, ", %s", f->note);
		strbuf_addstr(out, "  ");
	}
	strbuf_addstr(out, "matched: ");
	profile_format_amount(p, all, out);
	if (!all || !f->all)
		return;
	strbuf_addstr(out, " (");
	profile_format_share(all, f->all, out);
	/* Time Order's matches are time, a share of the timeline, not of the weight. */
	strbuf_addstr(out, f->nav.chart && f->nav.chart->has_time ? " of the timeline, "
								  : " of all, ");
	profile_format_share(view, span(f), out);
	strbuf_addstr(out, " of view)");
}

uint32_t
flame_selected_func(const struct flame *f, struct pane_ctx *ctx)
{
	if (f->sel == NODE_NONE || !f->total)
		return UINT32_MAX;
	return model_funcs(ctx->model)->frame_func[f->ps->stacks[node_stack(f, f->sel)].frame];
}

void
flame_selection(const struct flame *f, struct pane_selection *out)
{
	out->set = f->ps;
	/* An inverted tree's path runs up from the frame that ran. */
	out->inverted = f->nav.inverted;
	out->sel = f->sel != NODE_NONE && f->total ? node_stack(f, f->sel) : STACK_ROOT;
	out->zoom = f->root != NODE_NONE && f->total ? node_stack(f, f->root) : STACK_ROOT;
}

/* ---------------------------------------------------------------- the view */

struct flame *
flame_new(void)
{
	struct flame *f = xcalloc(1, sizeof(*f));

	f->sel = f->root = f->came_from = NODE_NONE;
	layout_init(&f->lay);
	flow_init(&f->details, 80);
	return f;
}

void
flame_free(struct flame *f)
{
	if (!f)
		return;
	layout_release(&f->lay);
	free(f->row_ink);
	flow_release(&f->details);
	free(f->hist);
	free(f->a_hist);
	free(f);
}

/* -------------------------------------------------- Left Heavy, Time Order */

enum flame_pane_kind {
	FLAME_TREE,  /* Left Heavy */
	FLAME_CHART, /* Time Order */
};

struct flame_pane {
	enum flame_pane_kind kind;
	struct flame *view;
	/*
	 * Left Heavy inverted (model_set_inverted()): a view of its own, so
	 * that each face keeps its selection and zoom across toggles.
	 */
	struct flame *inv;
	/*
	 * The inverted tree inv was lent last, which build of which profile,
	 * and whether the set was rewritten since (symbols came): its ids are
	 * one build's, so across a build the selection is carried by its
	 * frames, read before the build (inv_nav) or, across a rewrite, when
	 * it happens (inv_path, inv_depth: see inverted_remap()).
	 */
	struct nav inv_nav;
	uint64_t inv_build;
	size_t inv_profile;
	bool inv_rewritten;
	frame_id *inv_path;
	uint32_t inv_depth;
	struct lanes lanes; /* Time Order: the threads' lanes over the chart (lanes.h) */
	uint64_t which;     /* the chart lanes_chart() gave last */
	bool dragging;      /* Time Order: a drag across the chart, shown */
	int drag_a, drag_b; /* its screen columns */
};

/* What Left Heavy's stack ids are of: a profile under some transforms. */
static uint64_t
tree_key(const struct model *m)
{
	return m->tx_gen << 16 ^ m->lens.profile;
}

/* Lend the view the model's current tree or chart. */
static struct flame *
flame_pane_sync(struct pane *pane, struct pane_ctx *ctx)
{
	struct flame_pane *fp = pane->priv;
	struct model *m = ctx->model;
	struct flame_source src = { .key = m->generation, .all = 0 };
	struct flame *f = fp->view;
	frame_id *path = NULL;
	uint32_t depth = 0, sel;

	if (fp->kind == FLAME_TREE && m->inverted) {
		const struct inverted *inv;

		if (!model_inverted_cached(m)) {
			/* Another thread filter or symbols: the same call path, where it is. */
			sel = flame_selected(fp->inv);
			if (fp->inv_rewritten) {
				path = fp->inv_path;
				depth = fp->inv_depth;
				fp->inv_path = NULL;
			} else if (sel != NAV_NONE && fp->inv_nav.ops &&
				   fp->inv_profile == m->lens.profile) {
				path = nav_frames(&fp->inv_nav, sel, &depth);
			}
			if (m->ps->nr_stacks >= SLOW_INVERTED_STACKS && ctx->announce)
				ctx->announce(ctx, "the inverted tree");
		}
		inv = model_inverted(m);

		/* Its stack ids are one build's: another build is another tree. */
		src.key = m->inv_builds;
		nav_inverted(&src.nav, &inv->tree);
		src.matches = model_search_inverted(m);
		src.base = model_base_inverted_totals(m);
		f = fp->inv;
	} else if (fp->kind == FLAME_TREE) {
		/* Stack ids are the view's: a thread filter keeps their meaning. */
		src.key = tree_key(m);
		src.key2 = m->generation;
		nav_tree(&src.nav, model_tree(m));
		src.matches = model_search_tree(m);
		src.base = model_base_tree_totals(m);
		if (src.base) {
			src.base_self = model_base_stack_weights(m, NULL);
			src.self = model_tree(m)->self;
		}
	} else {
		const struct chart *c = lanes_chart(&fp->lanes, m, &src.key2);

		/* The chart is the same whatever time range is counted: the zoom stays. */
		src.key = model_chart_generation(m);
		nav_chart(&src.nav, c);
		src.matches = model_search_lane(m, c);
		fp->which = src.key2;
	}
	/* The base's weights change with the normalisation, the nodes do not. */
	src.base_key = m->diff.dgen;
	/* A chart with times matches time, which only its index counts. */
	if (src.matches && (fp->kind == FLAME_TREE || !src.nav.chart->has_time)) {
		src.matched_all = model_search_matched(m);
		src.has_matched_all = true;
	}
	flame_set_source(f, &src);
	if (f == fp->inv) {
		if (path && (sel = nav_find_frames(&src.nav, path, depth)) != NAV_NONE)
			flame_select(f, sel);
		fp->inv_nav = src.nav;
		fp->inv_build = m->inv_builds;
		fp->inv_profile = m->lens.profile;
		fp->inv_rewritten = false;
	}
	free(path);
	return f;
}

/* Time Order's rule: the time range counted (r), which the ruler marks too. */
static void
add_counted_range(const struct pane_ctx *ctx, struct strbuf *title)
{
	const struct model *m = ctx->model;
	const struct profile *p = model_profile(m);

	if (!m->lens.timed || !p->has_time)
		return;
	if (title->len)
		strbuf_addstr(title, "  ");
	strbuf_addf(title, "counting %.3f%s%.3f s", (double)(m->lens.t0 - p->time_min) / 1e9,
		    ctx->disp->utf8 ? "\xe2\x80\x93" : "-",
		    (double)(m->lens.t1 - p->time_min) / 1e9);
}

static void
flame_pane_draw(struct pane *pane, struct pane_ctx *ctx, const struct pane_area *area)
{
	struct flame_pane *fp = pane->priv;
	struct flame *f = flame_pane_sync(pane, ctx);
	struct flame_look look = {
		.details = true,
		.focused = true,
		.marks = model_search(ctx->model),
	};
	struct pane_area rest = *area;
	struct strbuf title = STRBUF_INIT;
	uint64_t x0, x1;
	int rows;

	if (fp->kind == FLAME_CHART) {
		/* The lanes' overview and the ruler on top, over the time on screen. */
		flame_range(f, &x0, &x1);
		rows = lanes_draw(&fp->lanes, ctx, area, x0, x1);
		rest.top += rows;
		rest.height -= rows;
		lanes_title(&fp->lanes, ctx->model, ctx->disp->utf8, &title);
		add_counted_range(ctx, &title);
		look.title = title.len ? title.buf : NULL;
	} else if (ctx->model->inverted) {
		look.path_title = "# from the frame that ran out to the outermost caller";
	}
	flame_draw(f, ctx, &rest, &look);
	if (fp->dragging)
		flame_mark_columns(f, fp->drag_a, fp->drag_b);
	strbuf_release(&title);
}

/*
 * Time Order: button 1 dragged across the chart from column from->x to
 * to->x, shown reversed while it lasts; at its end, the time it covers.
 */
static bool
flame_pane_drag(struct pane *pane, struct pane_ctx *ctx, const struct pane_input *from,
		const struct pane_input *to, bool end, int64_t *t0, int64_t *t1)
{
	struct flame_pane *fp = pane->priv;
	struct flame *f = flame_pane_sync(pane, ctx);
	uint64_t x0, x1;

	fp->dragging = false;
	if (fp->kind != FLAME_CHART || !f->nav.chart || !f->nav.chart->has_time ||
	    !flame_columns_range(f, from->x, to->x, from->y, &x0, &x1))
		return false;
	fp->dragging = !end;
	fp->drag_a = from->x;
	fp->drag_b = to->x;
	*t0 = f->nav.chart->axis.origin + (int64_t)x0;
	*t1 = f->nav.chart->axis.origin + (int64_t)x1;
	return true;
}

static enum pane_reply
flame_pane_request(struct pane *pane, struct pane_ctx *ctx, enum request req,
		   const struct pane_input *in)
{
	struct flame_pane *fp = pane->priv;
	struct flame *f = flame_pane_sync(pane, ctx);
	uint64_t which = fp->which, x0, x1;

	if (fp->kind == FLAME_CHART &&
	    lanes_request(&fp->lanes, ctx, req, in) == PANE_DONE) {
		/* Another lane (or merged) on the same axis: the same time on screen. */
		flame_range(f, &x0, &x1);
		f = flame_pane_sync(pane, ctx);
		if (fp->which != which)
			flame_show_range(f, x0, x1);
		return PANE_DONE;
	}
	if (req == REQ_SHOW_SANDWICH) {
		uint32_t fn = flame_selected_func(f, ctx);

		if (fn == UINT32_MAX) {
			strbuf_addstr(ctx->message, "nothing selected");
			return PANE_DONE;
		}
		ctx->show_func = fn;
		return PANE_SHOW_FUNC;
	}
	return flame_request(f, ctx, req, in);
}

static void
flame_pane_search(struct pane *pane, struct pane_ctx *ctx, struct strbuf *out)
{
	flame_search_status(flame_pane_sync(pane, ctx), ctx, out);
}

/*
 * Another pane chose func, and the UI marked its boxes as a search: select
 * its first box, unless the selection is one already.
 */
static void
flame_pane_show(struct pane *pane, struct pane_ctx *ctx, uint32_t func)
{
	struct flame *f = flame_pane_sync(pane, ctx);

	if (flame_selected_func(f, ctx) != func)
		flame_select_first_match(f);
}

/*
 * The set was rewritten: the inverted tree's frames are others now and
 * its stacks mean nothing in the new set. Its selection is carried by the
 * walk that made it (inverted.h): from its leaf up to its base in the old
 * set, mapped to the new set, whose path between them, read upwards, is
 * the selection's new path, inline frames and all. Once: a second rewrite
 * before the tree is built again finds the old build, of neither set.
 */
static void
inverted_remap(struct flame_pane *fp, const struct model *m, const stack_id *map, uint32_t nr)
{
	const struct profile_set *ps = m->ps; /* its new tables */
	uint32_t sel = flame_selected(fp->inv), depth = 0, i = 0;
	bool again = fp->inv_rewritten;
	stack_id s, a, x;

	free(fp->inv_path);
	fp->inv_path = NULL;
	fp->inv_rewritten = true;
	if (again || sel == NAV_NONE || !fp->inv_nav.ops || fp->inv_build != m->inv_builds)
		return;
	s = m->inv.leaf[sel];
	a = m->inv.base[sel];
	if (s >= nr || a >= nr || map[s] == STACK_ROOT || map[a] == STACK_ROOT)
		return;
	s = map[s];
	a = map[a];
	for (x = s; x != a; x = ps->stacks[x].parent, depth++)
		if (x == STACK_ROOT)
			return;
	fp->inv_depth = depth + 1;
	fp->inv_path = xreallocarray(NULL, fp->inv_depth, sizeof(*fp->inv_path));
	for (x = s;; x = ps->stacks[x].parent) {
		fp->inv_path[i++] = ps->stacks[x].frame;
		if (x == a)
			break;
	}
}

static void
flame_pane_selection(struct pane *pane, struct pane_ctx *ctx, struct pane_selection *out)
{
	struct flame *f = flame_pane_sync(pane, ctx);
	uint64_t x0, x1;

	flame_selection(f, out);
	/* Time Order: the time range on screen, for r. */
	if (f->nav.chart && f->nav.chart->has_time) {
		flame_range(f, &x0, &x1);
		out->timed = true;
		out->t0 = f->nav.chart->axis.origin + (int64_t)x0;
		out->t1 = f->nav.chart->axis.origin + (int64_t)x1;
	}
}

static void
flame_pane_remap(struct pane *pane, struct pane_ctx *ctx, const stack_id *map, uint32_t nr)
{
	struct flame_pane *fp = pane->priv;
	const struct model *m = ctx->model;

	/*
	 * Under transforms the view's ids are of their stacks, which map
	 * does not name: it starts over (the transforms are rebuilt, a new
	 * key).
	 */
	if (lens_reshaped(&m->lens))
		return;
	/*
	 * The keys flame_pane_sync() gives. The inverted tree's stack ids are
	 * its own: that view starts over on the tree built from the new set.
	 */
	flame_remap(fp->view, map, nr, fp->kind == FLAME_TREE ? tree_key(m) : m->generation);
	if (fp->inv)
		inverted_remap(fp, m, map, nr);
}

static void *
left_heavy_open(struct pane_ctx *ctx)
{
	struct flame_pane *fp = xcalloc(1, sizeof(*fp));

	(void)ctx;
	fp->kind = FLAME_TREE;
	fp->view = flame_new();
	fp->inv = flame_new();
	return fp;
}

static void *
time_order_open(struct pane_ctx *ctx)
{
	struct flame_pane *fp = xcalloc(1, sizeof(*fp));

	(void)ctx;
	fp->kind = FLAME_CHART;
	fp->view = flame_new();
	lanes_init(&fp->lanes);
	return fp;
}

static void
flame_pane_done(struct pane *pane)
{
	struct flame_pane *fp = pane->priv;

	if (!fp)
		return;
	flame_free(fp->view);
	flame_free(fp->inv);
	free(fp->inv_path);
	lanes_release(&fp->lanes);
	free(fp);
	pane->priv = NULL;
}

const struct pane_ops pane_left_heavy = {
	.name = "Left Heavy",
	.open = left_heavy_open,
	.draw = flame_pane_draw,
	.request = flame_pane_request,
	.search = flame_pane_search,
	.show = flame_pane_show,
	.remap = flame_pane_remap,
	.selection = flame_pane_selection,
	.done = flame_pane_done,
};

const struct pane_ops pane_time_order = {
	.name = "Time Order",
	.open = time_order_open,
	.draw = flame_pane_draw,
	.request = flame_pane_request,
	.search = flame_pane_search,
	.show = flame_pane_show,
	.remap = flame_pane_remap,
	.selection = flame_pane_selection,
	.drag = flame_pane_drag,
	.done = flame_pane_done,
};
