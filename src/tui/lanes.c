#include "config.h"

#include "tflame/lanes.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/chart.h"
#include "tflame/display.h"
#include "tflame/model.h"
#include "tflame/render.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/* The overview takes at most this share of the pane's height. */
#define OVERVIEW_SHARE 3 /* 1/3 */
/* Below this many rows for the chart, the overview goes. */
#define MIN_CHART_ROWS 4
/* Labels take at most this share of the width, and at least MIN_LABEL columns. */
#define LABEL_SHARE 4 /* 1/4 */
#define MIN_LABEL 8
#define MAX_TICKS 64

void
lanes_init(struct lanes *ln)
{
	memset(ln, 0, sizeof(*ln));
	ln->focus = THREAD_NONE;
}

void
lanes_release(struct lanes *ln)
{
	free(ln->act);
	lanes_init(ln);
}

/* The focused lane's index: the focus thread's, or 0 when it has none now. */
static uint32_t
focus_lane(struct lanes *ln, const struct timeline *tl)
{
	for (uint32_t i = 0; i < tl->nr_lanes; i++)
		if (tl->lanes[i].thread == ln->focus)
			return i;
	ln->focus = tl->nr_lanes ? tl->lanes[0].thread : THREAD_NONE;
	return 0;
}

/*
 * Merged until m says otherwise only without times: there the lanes
 * follow one another on the axis, so a lane alone is mostly blank.
 */
static bool
shows_merged(const struct lanes *ln, const struct timeline *tl)
{
	if (tl->nr_lanes <= 1)
		return false;
	return ln->merged_set ? ln->merged : tl->axis.kind == CHART_X_WEIGHT;
}

const struct chart *
lanes_chart(struct lanes *ln, struct model *m, uint64_t *which)
{
	const struct timeline *tl = model_timeline(m);
	uint32_t l = focus_lane(ln, tl);

	if (!tl->nr_lanes || shows_merged(ln, tl)) {
		*which = 0;
		return model_chart(m);
	}
	*which = (uint64_t)l + 1;
	return &tl->lanes[l];
}

/* Rows of the overview in a pane height rows high: 0 for a lone lane. */
static uint32_t
overview_rows(const struct timeline *tl, int height)
{
	int rows = height / OVERVIEW_SHARE;

	if (tl->nr_lanes <= 1 || height - 1 - rows < MIN_CHART_ROWS)
		return 0;
	if (rows < 1)
		rows = 1;
	return (uint32_t)rows < tl->nr_lanes ? (uint32_t)rows : tl->nr_lanes;
}

/*
 * "comm 1234", the lane's label ("sh→python3 1234" for a tid that
 * exec'd); "?" when the input named no thread.
 */
static void
add_lane_name(struct strbuf *out, const struct profile_set *ps, thread_id t, bool utf8)
{
	const struct thread *th = &ps->threads[t];

	if (!render_thread_name(out, ps, t, utf8))
		strbuf_addch(out, '?');
	if (th->tid >= 0)
		strbuf_addf(out, " %lld", (long long)th->tid);
}

void
lanes_sparkline(struct strbuf *out, const float *act, uint32_t n, bool utf8)
{
	static const char ascii[] = " .:-=+*#%@";

	for (uint32_t i = 0; i < n; i++) {
		float a = act[i] < 0 ? 0 : act[i] > 1 ? 1 : act[i];
		unsigned level;

		if (a <= 0) {
			strbuf_addch(out, ' ');
		} else if (utf8) {
			/* U+2581 to U+2588: one to eight eighths, rounded up. */
			level = (unsigned)(a * 8.0f + 0.999f);
			level = level < 1 ? 1 : level > 8 ? 8 : level;
			strbuf_addstr(out, "\xe2\x96");
			strbuf_addch(out, (char)(0x80 + level));
		} else {
			level = (unsigned)(a * 9.0f + 0.999f);
			level = level < 1 ? 1 : level > 9 ? 9 : level;
			strbuf_addch(out, ascii[level]);
		}
	}
}

/*
 * The ruler over [x0, x1) across width cells at (y, x): the labels of its
 * ticks, over the time range the lens counts (r), reversed, when there is
 * one and it is on screen.
 */
static void
draw_ruler(const struct timeline *tl, const struct model *m, const struct display *d, int y,
	   int x, int width, uint64_t x0, uint64_t x1)
{
	struct ruler_tick ticks[MAX_TICKS];
	size_t n = chart_ruler(x0, x1, (uint32_t)width, chart_ruler_scale(tl), !d->utf8, ticks,
			       MAX_TICKS);

	attrset(display_attr(d, DISPLAY_LABEL));
	for (size_t i = 0; i < n; i++)
		mvaddstr(y, x + (int)ticks[i].col, ticks[i].label);
	attrset(A_NORMAL);
	if (m->lens.timed && tl->axis.kind != CHART_X_WEIGHT && x1 > x0) {
		/* x is time from the axis's origin: the range's, in columns. */
		double t0 = (double)m->lens.t0 - (double)tl->axis.origin;
		double t1 = (double)m->lens.t1 - (double)tl->axis.origin;
		double scale = (double)width / (double)(x1 - x0);
		double c0 = (t0 - (double)x0) * scale, c1 = (t1 - (double)x0) * scale;

		if (c0 < 0)
			c0 = 0;
		if (c1 > width)
			c1 = width;
		if (c1 > c0)
			mvchgat(y, x + (int)c0, (int)(c1 + 0.5) - (int)c0 > 0
							? (int)(c1 + 0.5) - (int)c0 : 1,
				A_REVERSE, 0, NULL);
	}
}

int
lanes_draw(struct lanes *ln, struct pane_ctx *ctx, const struct pane_area *area, uint64_t x0,
	   uint64_t x1)
{
	const struct display *d = ctx->disp;
	struct model *m = ctx->model;
	const struct timeline *tl = model_timeline(m);
	uint32_t rows = overview_rows(tl, area->height), focus = focus_lane(ln, tl);
	struct strbuf sb = STRBUF_INIT, label = STRBUF_INIT;
	unsigned label_w = MIN_LABEL, cols;
	bool merged = shows_merged(ln, tl);

	ln->rows_y = area->top;
	ln->rows = rows;
	if (area->height < 2 || area->width < 1)
		return 0;
	/* Scroll the overview so that the focus shows. */
	if (focus < ln->top)
		ln->top = focus;
	else if (rows && focus >= ln->top + rows)
		ln->top = focus - rows + 1;
	if (ln->top + rows > tl->nr_lanes)
		ln->top = tl->nr_lanes > rows ? tl->nr_lanes - rows : 0;

	/* As wide as the widest name on screen (and a marker), within limits. */
	for (uint32_t i = 0; i < rows; i++) {
		strbuf_reset(&sb);
		add_lane_name(&sb, m->ps, tl->lanes[ln->top + i].thread, d->utf8);
		if (render_width(sb.buf, sb.len) + 3 > label_w)
			label_w = render_width(sb.buf, sb.len) + 3;
	}
	if (label_w > (unsigned)area->width / LABEL_SHARE)
		label_w = (unsigned)area->width / LABEL_SHARE > MIN_LABEL
				  ? (unsigned)area->width / LABEL_SHARE
				  : MIN_LABEL;
	cols = (unsigned)area->width > label_w ? (unsigned)area->width - label_w : 0;
	if (cols > ln->alloc_act) {
		ln->act = xreallocarray(ln->act, cols, sizeof(*ln->act));
		ln->alloc_act = cols;
	}

	for (uint32_t i = 0; i < rows; i++) {
		uint32_t l = ln->top + i;
		const struct chart *c = &tl->lanes[l];
		int y = area->top + (int)i;
		bool focused = l == focus;

		strbuf_reset(&sb);
		strbuf_addstr(&sb, focused ? (d->utf8 ? "\xe2\x96\xb6 " : "> ") : "  ");
		add_lane_name(&sb, m->ps, c->thread, d->utf8);
		strbuf_reset(&label);
		render_cut(&label, sb.buf, sb.len, label_w - 1, d->utf8);
		move(y, area->left);
		/* The lane the chart shows is lit; in a merged chart, only marked. */
		attrset(focused && !merged ? display_attr(d, DISPLAY_ROW_SELECTED)
			: focused	   ? display_attr(d, DISPLAY_NAME)
					   : display_attr(d, DISPLAY_LABEL));
		display_addstr(d, label.buf, label.len);
		for (unsigned w = render_width(label.buf, label.len); w < label_w - 1; w++)
			addch(' ');
		attrset(A_NORMAL);
		addch(' ');
		if (!cols)
			continue;
		chart_activity(c, x0, x1, cols, ln->act);
		strbuf_reset(&sb);
		lanes_sparkline(&sb, ln->act, cols, d->utf8);
		attrset(focused ? display_attr(d, DISPLAY_HEADING) & ~A_UNDERLINE
				: display_attr(d, DISPLAY_STATUS));
		display_addstr(d, sb.buf, sb.len);
		attrset(A_NORMAL);
	}
	draw_ruler(tl, m, d, area->top + (int)rows, area->left, area->width, x0, x1);
	strbuf_release(&sb);
	strbuf_release(&label);
	return (int)rows + 1;
}

void
lanes_title(struct lanes *ln, struct model *m, bool utf8, struct strbuf *out)
{
	const struct timeline *tl = model_timeline(m);
	uint32_t l = focus_lane(ln, tl);

	if (tl->nr_lanes <= 1)
		return;
	if (shows_merged(ln, tl)) {
		strbuf_addf(out, "%u threads merged (m: one lane)", tl->nr_lanes);
		return;
	}
	strbuf_addf(out, "lane %u of %u: ", l + 1, tl->nr_lanes);
	add_lane_name(out, m->ps, tl->lanes[l].thread, utf8);
}

/* Focus lane l and show its chart. */
static void
focus_on(struct lanes *ln, const struct timeline *tl, uint32_t l)
{
	ln->focus = tl->lanes[l].thread;
	if (shows_merged(ln, tl)) {
		ln->merged = false;
		ln->merged_set = true;
	}
}

enum pane_reply
lanes_request(struct lanes *ln, struct pane_ctx *ctx, enum request req,
	      const struct pane_input *in)
{
	const struct timeline *tl = model_timeline(ctx->model);
	uint32_t l = focus_lane(ln, tl);
	int dir = req == REQ_LANE_NEXT ? 1 : -1;

	switch (req) {
	case REQ_LANE_PREV:
	case REQ_LANE_NEXT:
		if (tl->nr_lanes <= 1) {
			strbuf_addstr(ctx->message, "one thread selected: no other lane (t picks threads)");
			return PANE_DONE;
		}
		if ((dir < 0 && !l) || (dir > 0 && l + 1 >= tl->nr_lanes)) {
			strbuf_addstr(ctx->message, dir < 0 ? "the first lane: the heaviest thread"
							    : "the last lane: the lightest thread");
			if (!shows_merged(ln, tl))
				return PANE_DONE;
			dir = 0; /* out of the merged chart, to this lane */
		}
		focus_on(ln, tl, l + (uint32_t)dir);
		return PANE_DONE;
	case REQ_LANE_MERGED:
		if (tl->nr_lanes <= 1) {
			strbuf_addstr(ctx->message, "one thread selected: its lane is the whole chart");
			return PANE_DONE;
		}
		/* The chart's rule says which it is now: no message over the search's. */
		ln->merged = !shows_merged(ln, tl);
		ln->merged_set = true;
		return PANE_DONE;
	case REQ_CLICK:
	case REQ_CLICK_ZOOM:
		if (!in || in->y < ln->rows_y || in->y >= ln->rows_y + (int)ln->rows ||
		    ln->top + (uint32_t)(in->y - ln->rows_y) >= tl->nr_lanes)
			return PANE_IGNORED;
		focus_on(ln, tl, ln->top + (uint32_t)(in->y - ln->rows_y));
		return PANE_DONE;
	default:
		return PANE_IGNORED;
	}
}
