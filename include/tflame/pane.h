#ifndef TFLAME_PANE_H
#define TFLAME_PANE_H

/*
 * Panes: what fills the screen between the tab bar and the status line.
 *
 * A pane is a struct pane_ops (after tig's view ops) and its private view
 * state. The UI owns the model and the terminal; a pane borrows them
 * through struct pane_ctx, keeps only its view state (selection, zoom,
 * scroll), and never loads or aggregates: it asks the model for a tree or
 * a chart and the layout for boxes.
 *
 * Left Heavy and Time Order are flame views (flame.h) over the model's
 * call tree (or its inverted tree, a view of its own) and its chart
 * (pane_flame.c); Sandwich is a table of
 * functions and two flame views over the callers and callees of the one
 * selected (pane_sandwich.c).
 */

#include <stdbool.h>
#include <stdint.h>

#include "tflame/keys.h"
#include "tflame/palette.h"
#include "tflame/profile.h"

struct display;
struct model;
struct profile_set;
struct strbuf;


/* What the UI lends a pane for the length of a call. */
struct pane_ctx {
	struct model *model;
	const struct display *disp;
	bool flip;              /* flame panes: root at the bottom */
	enum color_mode color;
	struct strbuf *message; /* a pane may write a message for the status line */
	struct strbuf *page;    /* text to show on a page of its own (PANE_PAGE) */
	uint32_t show_func;     /* the function of a PANE_SHOW_FUNC or PANE_SHOW_SOURCE reply */
	uint32_t show_frame;    /* PANE_SHOW_SOURCE: the frame of the box, or FRAME_NONE */
	/*
	 * Slow caches (a Sandwich on a huge profile) are built only once the
	 * keys stop coming: the UI draws first with may_build false, when a
	 * pane with a slow cache to build draws what it has, says
	 * "building", and sets build_pending; then, unless a key comes
	 * within a moment, the UI draws again with may_build set. So j held
	 * down in a table does not build the trees of every row it passes.
	 * Cheap caches are built either way.
	 */
	bool may_build;
	bool build_pending;
	/*
	 * Say at once, on the status line, that something slow is being
	 * built ("building Sandwich of main..."), before the pane builds it:
	 * a frozen screen looks like a hang. The UI lends it, so that panes
	 * call nothing in the UI above them.
	 */
	void (*announce)(const struct pane_ctx *ctx, const char *what);
};

/* A rectangle of the screen, in cells. */
struct pane_area {
	int top, left, height, width;
};

/* Where the pointer was, for mouse requests (screen cells). */
struct pane_input {
	int x, y;
};

enum pane_reply {
	PANE_IGNORED, /* not a request for this pane: nothing changed */
	PANE_DONE,    /* handled; redraw */
	PANE_PAGE,    /* handled; show ctx->page (its first line is the title) */
	/*
	 * Handled; show function ctx->show_func in the other kind of pane: a
	 * flame pane asks for Sandwich, Sandwich for the flame pane it was
	 * opened from. The UI marks the function's boxes and calls show().
	 */
	PANE_SHOW_FUNC,
	/*
	 * Handled; show the source of function ctx->show_func, at the line of
	 * frame ctx->show_frame when it is a box's (pane_source.h).
	 */
	PANE_SHOW_SOURCE,
};

/*
 * What the copy keys (y, Y), the export (x), the transforms (a) and the
 * time range (r) act on: pane_ops.selection.
 */
struct pane_selection {
	const struct profile_set *set; /* of the boxes: the model's, or a Sandwich tree's */
	stack_id sel;   /* the selected box's stack in set, STACK_ROOT when none */
	/*
	 * The box zoomed into (Enter), as a stack of set; STACK_ROOT when
	 * none.
	 */
	stack_id zoom;
	/* sel's path runs up from the function (Sandwich's callers) or the leaf (inverted) */
	bool inverted;
	str_id name;    /* with no box selected, the selected row's function, or STR_EMPTY */
	bool timed;     /* a time axis on screen (Time Order): */
	int64_t t0, t1; /* the time range shown, [t0, t1) */
};

struct pane {
	const struct pane_ops *ops;
	void *priv; /* the pane's view state, from open() */
};

struct pane_ops {
	const char *name; /* on the tab: "Left Heavy" */
	/* Create the view state for ctx->model. */
	void *(*open)(struct pane_ctx *ctx);
	/*
	 * Draw everything in area (with curses, not refreshed). Called after
	 * every request and on resize; the pane notices a new model
	 * generation (another event) here and starts over.
	 */
	void (*draw)(struct pane *p, struct pane_ctx *ctx, const struct pane_area *area);
	/* Act on req; in is the pointer for mouse requests, else NULL. */
	enum pane_reply (*request)(struct pane *p, struct pane_ctx *ctx, enum request req,
				   const struct pane_input *in);
	/*
	 * Append to out what the search finds in this pane, for the status
	 * line ("matched: ..."); nothing when there is no search.
	 */
	void (*search)(struct pane *p, struct pane_ctx *ctx, struct strbuf *out);
	/* Select function func (an index into model_funcs()), as another pane asked. */
	void (*show)(struct pane *p, struct pane_ctx *ctx, uint32_t func);
	/*
	 * The model's set was rewritten (symbols came): old stack s is now
	 * map[s] (nr entries). Called after the swap but before the model
	 * drops its caches, so the pane can still read the tree or chart it
	 * last drew (not the set's tables: they are the new ones); it keeps
	 * its selection and zoom where they still exist.
	 */
	void (*remap)(struct pane *p, struct pane_ctx *ctx, const uint32_t *map, uint32_t nr);
	/* Fill *out with what is selected and zoomed into (see above). */
	void (*selection)(struct pane *p, struct pane_ctx *ctx, struct pane_selection *out);
	/*
	 * Button 1 held down at from and moved to to (screen cells): whether
	 * the pane takes the drag (Time Order's chart: a time range), shown
	 * until a call with end; then the time range it covers in [*t0,
	 * *t1), the profile's clock, for the UI to count (model_set_time()).
	 * NULL for panes that take no drag.
	 */
	bool (*drag)(struct pane *p, struct pane_ctx *ctx, const struct pane_input *from,
		     const struct pane_input *to, bool end, int64_t *t0, int64_t *t1);
	/* Free the view state. */
	void (*done)(struct pane *p);
};

extern const struct pane_ops pane_left_heavy;
extern const struct pane_ops pane_time_order;
extern const struct pane_ops pane_sandwich;

#endif /* TFLAME_PANE_H */
