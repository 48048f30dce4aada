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
 * Left Heavy and Time Order are one flame pane (pane_flame.c) over two
 * sources: the model's call tree and its chart.
 */

#include <stdbool.h>

#include "tflame/keys.h"

struct display;
struct model;
struct strbuf;

enum color_mode {
	COLOR_BY_FUNCTION, /* the hash of the function's name */
	COLOR_BY_MODULE,   /* the hash of its module */
	COLOR_BY_KIND,     /* kernel, JIT, inlined or user code */
	COLOR_NR_MODES
};

/* What the UI lends a pane for the length of a call. */
struct pane_ctx {
	struct model *model;
	const struct display *disp;
	bool flip;              /* flame panes: root at the bottom */
	enum color_mode color;
	struct strbuf *message; /* a pane may write a message for the status line */
	struct strbuf *page;    /* text to show on a page of its own (PANE_PAGE) */
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
	/* Free the view state. */
	void (*done)(struct pane *p);
};

extern const struct pane_ops pane_left_heavy;
extern const struct pane_ops pane_time_order;

#endif /* TFLAME_PANE_H */
