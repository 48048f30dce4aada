#ifndef TFLAME_FLAME_H
#define TFLAME_FLAME_H

/*
 * The flame view: one call tree or flame chart drawn in a rectangle of
 * the screen, with a selection, a zoom history, panning, row scrolling,
 * the keys that move them, the search's highlights and n/N, and the
 * details of the selection.
 *
 * A view walks its source through a struct nav (nav.h), whatever it is:
 * Left Heavy holds two views, over the model's tree and over its
 * inverted tree, and Time Order one over its chart (pane_flame.c);
 * Sandwich holds two, over the callers and callees trees of its function
 * (pane_sandwich.c). The view keeps only view
 * state: its owner lends it the source before every draw or request with
 * flame_set_source(), and the view starts over (first box selected, no
 * zoom) when the source's key changes, since its node ids then mean
 * other boxes (see struct flame_source).
 *
 * Drawing and requests borrow a struct pane_ctx (pane.h) for the model,
 * the terminal and the status message; nothing here refreshes the screen.
 */

#include <stdbool.h>
#include <stdint.h>

#include "tflame/nav.h"
#include "tflame/pane.h"

struct search;
struct search_index;
struct strbuf;

/* What a view shows, lent for one call. */
struct flame_source {
	struct nav nav;                      /* the tree or chart (nav.h) */
	const struct search_index *matches;  /* the search over it, or NULL */
	uint64_t all;                        /* the weight "% of all" is of */
	/*
	 * What the search matches of all (model_search_matched(): exact
	 * where the profile records figures), when has_matched_all; else
	 * the matches' own sum over the whole tree or chart.
	 */
	uint64_t matched_all;
	bool has_matched_all;
	/*
	 * Another key is another tree or chart: the view starts over. The
	 * same key with another key2 is the same tree (of a set whose stack
	 * ids keep their meaning) with other weights: a tree view keeps its
	 * selection if it still has weight.
	 */
	uint64_t key, key2;
	/*
	 * Comparing two profiles (model_diff_base()): per node, the base's
	 * weight of its subtree, which colours each box by its change
	 * (palette_diff_level()) and joins the details. NULL outside diff
	 * mode, and for a view the model has no base weights for. Another
	 * base_key is other base weights over the same nodes (normalised or
	 * not).
	 */
	const uint64_t *base;
	uint64_t base_key;
	/*
	 * Left Heavy in a comparison: per node, the base's self weight and
	 * the shown one's. With them a box takes the colour of the change of
	 * its self weight, as flamegraph.pl colours a differential graph
	 * (palette_box_level()); without them, of its total.
	 */
	const uint64_t *base_self, *self;
};

/* How a view is drawn. */
struct flame_look {
	const char *title;  /* on the rule, before the zoom, or NULL */
	bool rule_on_top;   /* the rule above the boxes, as a title (no details) */
	bool details;       /* the details bar under the rule */
	bool focused;       /* the selection shows; the title is bold */
	/* The frames to light, the rest dimmed (a search), or NULL. */
	const struct search *marks;
	/* The heading of the call path on the details page, or NULL for the usual. */
	const char *path_title;
};

/* A view, of whatever source it is lent; free with flame_free(). */
struct flame *flame_new(void);
void flame_free(struct flame *f);

/* Lend f its source (see above); src is copied, what it points to is not. */
void flame_set_source(struct flame *f, const struct flame_source *src);

/*
 * The set was rewritten under f (symbols came: profile_set_swap_tables()):
 * old stack s is now map[s] (nr entries). Call it while f's last source
 * is still alive, with the key its source has now (a view last drawn
 * with another key starts over anyway); the next flame_set_source() puts
 * the selection, the zoom and its history back on the same call paths
 * where they still exist, instead of starting over.
 */
void flame_remap(struct flame *f, const uint32_t *map, uint32_t nr, uint64_t key);

/* The x range [*x0, *x1) across the width: what a ruler over the view labels. */
void flame_range(const struct flame *f, uint64_t *x0, uint64_t *x1);

/*
 * Show [x0, x1) of the source's axis (clipped to it), as + and - zoom: no
 * box zoomed into, so 0 and Esc go back to the whole axis. The selection
 * moves to the widest outermost box in view if it is not in view, else
 * to the nearest one. For another chart on the same axis (another lane),
 * after flame_set_source(). Nothing changes for the whole axis.
 */
void flame_show_range(struct flame *f, uint64_t x0, uint64_t x1);

/* Draw f in area (cleared first). */
void flame_draw(struct flame *f, struct pane_ctx *ctx, const struct pane_area *area,
		const struct flame_look *look);

/*
 * The details of the selection in lines rows at (y, x), width wide, cut
 * with a pointer to the details page when they do not fit: for an owner
 * that draws them apart from the boxes (look.details false).
 */
void flame_draw_details(struct flame *f, struct pane_ctx *ctx, int y, int x, int width,
			int lines);

/*
 * Act on req (moves, zoom, n/N, clicks in the area last drawn, the
 * details page, the source of the selection: PANE_SHOW_SOURCE). Returns PANE_IGNORED for requests it has no use for, and
 * for REQ_BACK when there is no zoom to leave, so that the owner can give
 * Esc its next meaning.
 */
enum pane_reply flame_request(struct flame *f, struct pane_ctx *ctx, enum request req,
			      const struct pane_input *in);

/* True if the screen cell (x, y) is in the area f was last drawn in. */
bool flame_contains(const struct flame *f, int x, int y);

/*
 * The x range [*x0, *x1) that screen columns a to b (either order, both
 * included, clipped to the boxes) cover, as last drawn: a mouse drag
 * across a chart. False when the cell (a, y) is not on the boxes.
 */
bool flame_columns_range(const struct flame *f, int a, int b, int y, uint64_t *x0,
			 uint64_t *x1);
/* Show screen columns a to b of the boxes (as above) reversed, over what is drawn. */
void flame_mark_columns(const struct flame *f, int a, int b);

/*
 * The function of the selected box (an index into model_funcs()), or
 * UINT32_MAX when nothing is selected.
 */
uint32_t flame_selected_func(const struct flame *f, struct pane_ctx *ctx);

/* The selected node of the source lent last, or NAV_NONE. */
uint32_t flame_selected(const struct flame *f);
/* Select node n (a valid node of the source lent last) and show it. */
void flame_select(struct flame *f, uint32_t n);

/*
 * The selected box and the box zoomed into, of f's last source: set, sel
 * and zoom of *out (the zoom as a stack of that set); the rest is left.
 */
void flame_selection(const struct flame *f, struct pane_selection *out);

/*
 * Select the first match of the search (the source's matches) in layout
 * order, showing it; false when nothing matches or there is no search.
 */
bool flame_select_first_match(struct flame *f);

/*
 * Append the search's score in f to out: "matched: W (P% of all, Q% of
 * view)", counted once per sample, where all is the source's and the
 * view is the x range on screen. Appends nothing without matches.
 */
void flame_search_status(const struct flame *f, struct pane_ctx *ctx, struct strbuf *out);

#endif /* TFLAME_FLAME_H */
