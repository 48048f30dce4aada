#include "config.h"

#include "tflame/pane.h"

#include <curses.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/display.h"
#include "tflame/flame.h"
#include "tflame/flow.h"
#include "tflame/functions.h"
#include "tflame/model.h"
#include "tflame/nav.h"
#include "tflame/profile.h"
#include "tflame/render.h"
#include "tflame/sandwich.h"
#include "tflame/search.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/*
 * The Sandwich pane: the table of every function (total, self, name,
 * module), and under it the callers and callees of the selected one, as
 * two flame views side by side (stacked on a narrow screen). Tab moves
 * the focus between the three; the details of the focus fill the bottom.
 *
 * The pane keeps the selected function, not its row, so a new order, a
 * search that filters the rows or another thread filter keeps it when it
 * is still in the table. The table comes from model_sandwich_rows() and
 * the trees from model_sandwich(), which builds the trees of one function
 * at a time: on a huge profile that takes a while, so it happens only
 * once the keys stop coming (ctx->may_build), and j held down scrolls
 * the table without building the trees of every row it passes.
 */

/* The details take this many lines, on screens this tall and over. */
#define DETAILS_LINES 3
#define DETAILS_LINES_TALL 4
#define TALL 28
/* Callers and callees go side by side from this width, else one over the other. */
#define SIDE_BY_SIDE 60
/*
 * A Sandwich of a set with this many stacks is slow to build (tens of
 * milliseconds and up): built only once the keys stop (pane.h), and said
 * so on the status line before.
 */
#define SLOW_STACKS 100000

enum focus {
	FOCUS_TABLE,
	FOCUS_CALLERS,
	FOCUS_CALLEES,
	NR_FOCUS
};

struct sandwich_pane {
	enum sandwich_sort by;
	bool reverse;
	func_id func;          /* the selected function, FUNC_NONE before there is one */
	uint32_t row;          /* its row in the table */
	uint32_t top;          /* the row at the top of the table */
	size_t profile;        /* the profile the rows are of: b swaps it */
	enum focus focus;
	struct flame *callers, *callees;
	bool built;            /* the flame views show func's trees */
	/*
	 * After a rewrite of the set (sandwich_remap()): func by name and
	 * module, whose str_ids keep their meaning, to find it again.
	 */
	bool remapped;
	struct func remap_func;

	/* what the last draw used: requests map the pointer by it */
	struct pane_area rows; /* the table's rows, without its header */
	struct flow details;
	struct strbuf title[2];
};

/* ------------------------------------------------------------- the table */

static const struct sandwich_rows *
table_rows(struct pane_ctx *ctx, const struct sandwich_pane *sp)
{
	/* A regex filters the table; a function's marks do not. */
	return model_sandwich_rows(ctx->model, sp->by, sp->reverse,
				   model_search_re(ctx->model) != NULL);
}

/*
 * The rows, with the selection moved to where its function went, or (when
 * it left the table) to the nearest row. A marked function (a search for
 * one function, from s or Enter) follows the selection, so the flame
 * panes mark the function last looked at here.
 */
static const struct sandwich_rows *
sandwich_sync(struct sandwich_pane *sp, struct pane_ctx *ctx)
{
	const struct sandwich_rows *r;
	func_id old;

	if (sp->remapped) {
		sp->remapped = false;
		sp->func = model_func_find(ctx->model, sp->remap_func.name, sp->remap_func.module);
		if (sp->func == FUNC_NONE)
			sp->func = FUNC_NONE;
	}
	r = table_rows(ctx, sp);
	old = sp->func;
	if (sp->profile != ctx->model->lens.profile) {
		/* Another order (b, e): from the top, as a new sort. */
		sp->profile = ctx->model->lens.profile;
		sp->top = 0;
	}
	if (!r->nr) {
		sp->row = sp->top = 0;
		sp->func = FUNC_NONE;
		return r;
	}
	if (sp->row >= r->nr || r->rows[sp->row] != sp->func) {
		uint32_t i = sp->func == FUNC_NONE ? UINT32_MAX : sandwich_rows_find(r, sp->func);

		if (i == UINT32_MAX)
			i = sp->row < r->nr ? sp->row : r->nr - 1;
		sp->row = i;
	}
	sp->func = r->rows[sp->row];
	if (sp->func != old && model_search_func(ctx->model) != FUNC_NONE)
		model_set_search_func(ctx->model, sp->func);
	return r;
}

static uint32_t
rows_shown(const struct sandwich_pane *sp)
{
	return sp->rows.height > 0 ? (uint32_t)sp->rows.height : 1;
}

/* Keep the selected row on screen, scrolling as little as possible. */
static void
show_row(struct sandwich_pane *sp, uint32_t nr)
{
	uint32_t h = rows_shown(sp);

	if (sp->row < sp->top)
		sp->top = sp->row;
	else if (sp->row >= sp->top + h)
		sp->top = sp->row - h + 1;
	if (nr <= h)
		sp->top = 0;
	else if (sp->top > nr - h)
		sp->top = nr - h;
}

static void
select_row(struct sandwich_pane *sp, struct pane_ctx *ctx, const struct sandwich_rows *r,
	   int64_t row)
{
	if (!r->nr)
		return;
	if (row < 0)
		row = 0;
	if (row >= (int64_t)r->nr)
		row = r->nr - 1;
	sp->row = (uint32_t)row;
	sp->func = r->rows[sp->row];
	if (model_search_func(ctx->model) != FUNC_NONE)
		model_set_search_func(ctx->model, sp->func);
	show_row(sp, r->nr);
}

/*
 * Comparing two profiles, the weights take columns of their own: the
 * base's, the shown profile's and the change, of total and of self, and
 * the change of total in percent. A narrow table keeps the ones that
 * matter most (DIFF_COL_ORDER) and leaves the names their room.
 */
enum diff_col {
	DC_TOTAL_BASE,
	DC_TOTAL,
	DC_TOTAL_DELTA,
	DC_TOTAL_PCT,
	DC_SELF_BASE,
	DC_SELF,
	DC_SELF_DELTA,
	NR_DIFF_COLS
};
#define DIFF_COL_ORDER \
	{ DC_TOTAL, DC_TOTAL_DELTA, DC_SELF, DC_TOTAL_BASE, DC_SELF_DELTA, DC_TOTAL_PCT, \
	  DC_SELF_BASE }
/* What the names keep at least, before another weight column comes. */
#define DIFF_NAME_COLS 24

/* Column widths of the table, for width cells. */
struct columns {
	unsigned amount;  /* one weight, right-aligned */
	unsigned name;
	unsigned module;  /* 0: no module column */
	unsigned module_at; /* the column it starts at */
	bool diff;        /* comparing: the columns below, not total and self */
	bool shown[NR_DIFF_COLS];
};

#define PCT_COLS 5
/* "+123.4%", "new", "gone" */
#define DELTA_PCT_COLS 7

/* The width of a comparison's column, its two spaces after included. */
static unsigned
diff_col_width(const struct columns *c, enum diff_col dc)
{
	return (dc == DC_TOTAL_PCT ? DELTA_PCT_COLS
		: dc == DC_TOTAL_DELTA || dc == DC_SELF_DELTA ? c->amount + 1
							       : c->amount) + 2;
}

/* Whether two rows on screen have the same function name. */
static bool
names_repeat(struct pane_ctx *ctx, const struct sandwich_pane *sp, const struct sandwich_rows *r)
{
	const struct func_table *ft = model_funcs(ctx->model);
	uint32_t end = sp->top + rows_shown(sp) < r->nr ? sp->top + rows_shown(sp) : r->nr;

	/* A screenful of rows: pairs are few. */
	for (uint32_t i = sp->top; i < end; i++)
		for (uint32_t j = sp->top; j < i; j++)
			if (ft->funcs[r->rows[i]].name == ft->funcs[r->rows[j]].name)
				return true;
	return false;
}

/*
 * The name column is as wide as the widest name on screen (within what
 * the module leaves), so that a wide screen does not put the module far
 * from short names.
 */
static void
table_columns(struct columns *c, struct pane_ctx *ctx, unsigned width,
	      const struct sandwich_pane *sp, const struct sandwich_rows *r)
{
	const struct profile *p = model_profile(ctx->model);
	const struct profile_set *ps = ctx->model->ps;
	const struct func_table *ft = model_funcs(ctx->model);
	struct strbuf sb = STRBUF_INIT;
	unsigned used, rest, widest = 24;

	/*
	 * No function weighs more than the total, but "999 ms" is wider than
	 * "1.51 s": leave room for the widest short amount too.
	 */
	profile_format_amount_short(p, model_total(ctx->model), &sb);
	c->amount = render_width(sb.buf, sb.len);
	if (c->amount < 8)
		c->amount = 8;
	c->diff = model_diff_base(ctx->model) != NULL;
	if (c->diff) {
		static const enum diff_col order[] = DIFF_COL_ORDER;

		used = 1;
		for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
			unsigned w = diff_col_width(c, order[i]);

			c->shown[order[i]] = i < 2 || used + w + DIFF_NAME_COLS <= width;
			used += c->shown[order[i]] ? w : 0;
		}
	} else {
		used = 1 + 2 * (c->amount + 1 + PCT_COLS + 2);
	}
	rest = width > used ? width - used : 0;
	c->module = rest >= 40 ? (rest / 3 < 32 ? rest / 3 : 32) : 0;
	/* Two rows of one name ([unknown] in two modules) need the module to tell. */
	if (!c->module && rest >= 30 && names_repeat(ctx, sp, r))
		c->module = rest / 3;
	c->name = rest > c->module + 2 ? rest - c->module - (c->module ? 2 : 0) : rest;
	for (uint32_t i = sp->top; i < r->nr && i < sp->top + rows_shown(sp); i++) {
		const struct func *f = &ft->funcs[r->rows[i]];

		strbuf_reset(&sb);
		text_escape(&sb, ps_get(ps, f->name), intern_len(&ps->strings, f->name));
		if (render_width(sb.buf, sb.len) > widest)
			widest = render_width(sb.buf, sb.len);
	}
	strbuf_release(&sb);
	if (c->name > widest + 2) {
		/* The module gets what the names leave, up to twice its share. */
		unsigned spare = c->name - widest - 2;

		c->name = widest + 2;
		c->module += spare < c->module ? spare : c->module;
	}
	c->module_at = used + c->name + 2;
}

/* text right-aligned in w columns. */
static void
add_right(struct strbuf *out, const char *s, size_t len, unsigned w)
{
	unsigned sw = render_width(s, len);

	strbuf_addchars(out, ' ', sw < w ? w - sw : 0);
	strbuf_add(out, s, len);
}

static void
add_weight(struct strbuf *out, const struct profile *p, const struct columns *c, uint64_t w,
	   uint64_t all)
{
	struct strbuf sb = STRBUF_INIT;

	profile_format_amount_short(p, w, &sb);
	add_right(out, sb.buf, sb.len, c->amount);
	strbuf_addch(out, ' ');
	strbuf_reset(&sb);
	profile_format_share(w, all, &sb);
	add_right(out, sb.buf, sb.len, PCT_COLS);
	strbuf_addstr(out, "  ");
	strbuf_release(&sb);
}

/* Where a change went in a row's text, to colour it: bytes, and its column. */
struct delta_cell {
	size_t off, len;
	unsigned col;
	int color; /* a display_color, -1 for none (unchanged) */
};

/* "+1.20 k": the change from base to now, short, signed; "0" for none. */
static void
add_delta_short(struct strbuf *out, const struct profile *p, uint64_t base, uint64_t now)
{
	if (now != base)
		strbuf_addch(out, now > base ? '+' : '-');
	profile_format_amount_short(p, now > base ? now - base : base - now, out);
}

/* A cell of a change into line, right-aligned in w columns, noted in *dc. */
static void
add_delta_cell(struct strbuf *line, const struct strbuf *cell, unsigned w, uint64_t base,
	       uint64_t now, struct delta_cell *dc)
{
	unsigned cw = render_width(cell->buf, cell->len);

	strbuf_addchars(line, ' ', cw < w ? w - cw : 0);
	dc->off = line->len;
	dc->len = cell->len;
	dc->col = render_width(line->buf, line->len);
	dc->color = now > base ? DISPLAY_GREW : now < base ? DISPLAY_SHRANK : -1;
	strbuf_add(line, cell->buf, cell->len);
	strbuf_addstr(line, "  ");
}

/*
 * A row's weights when comparing: the columns c shows, in order; the
 * changes' places into deltas[3] (total, percent, self; len 0 when not
 * shown).
 */
static void
add_diff_weights(struct strbuf *line, const struct profile *p, const struct columns *c,
		 const struct func_stats *now, const struct func_stats *base,
		 struct delta_cell *deltas)
{
	struct strbuf cell = STRBUF_INIT;

	memset(deltas, 0, 3 * sizeof(*deltas));
	for (int i = 0; i < NR_DIFF_COLS; i++) {
		unsigned w = diff_col_width(c, (enum diff_col)i) - 2;
		bool self = i >= DC_SELF_BASE;
		uint64_t b = self ? base->self : base->total, n = self ? now->self : now->total;

		if (!c->shown[i])
			continue;
		strbuf_reset(&cell);
		switch ((enum diff_col)i) {
		case DC_TOTAL_BASE:
		case DC_SELF_BASE:
			profile_format_amount_short(p, b, &cell);
			break;
		case DC_TOTAL:
		case DC_SELF:
			profile_format_amount_short(p, n, &cell);
			break;
		case DC_TOTAL_DELTA:
		case DC_SELF_DELTA:
			add_delta_short(&cell, p, b, n);
			add_delta_cell(line, &cell, w, b, n, &deltas[self ? 2 : 0]);
			continue;
		case DC_TOTAL_PCT:
			if (!b)
				strbuf_addstr(&cell, n ? "new" : "");
			else if (!n)
				strbuf_addstr(&cell, "gone");
			else if (n == b)
				strbuf_addstr(&cell, "0%");
			else
				strbuf_addf(&cell, "%+.1f%%",
					    ((double)n - (double)b) * 100.0 / (double)b);
			add_delta_cell(line, &cell, w, b, n, &deltas[1]);
			continue;
		case NR_DIFF_COLS:
			break;
		}
		add_right(line, cell.buf, cell.len, w);
		strbuf_addstr(line, "  ");
	}
	strbuf_release(&cell);
}

static void
draw_header(const struct sandwich_pane *sp, struct pane_ctx *ctx, const struct columns *c,
	    int y, int x, int width, const struct sandwich_rows *r)
{
	const struct display *d = ctx->disp;
	/* A triangle says the order; in ASCII a letter on its own, apart. */
	const char *arrow = sp->reverse ? (d->utf8 ? "\xe2\x96\xb2" : " ^")
					: (d->utf8 ? "\xe2\x96\xbc" : " v");
	struct strbuf line = STRBUF_INIT, label = STRBUF_INIT, pos = STRBUF_INIT;
	static const char *const names[] = { "Total", "Self" };

	strbuf_addch(&line, ' ');
	for (int i = 0; i < 2 && !c->diff; i++) {
		strbuf_reset(&label);
		strbuf_addstr(&label, names[i]);
		if ((int)sp->by == i)
			strbuf_addstr(&label, arrow);
		add_right(&line, label.buf, label.len, c->amount + 1 + PCT_COLS);
		strbuf_addstr(&line, "  ");
	}
	for (int i = 0; i < NR_DIFF_COLS && c->diff; i++) {
		/* The order each column shows, so that its arrow goes there. */
		static const int sorts[NR_DIFF_COLS] = {
			[DC_TOTAL_BASE] = -1, [DC_TOTAL] = SANDWICH_BY_TOTAL,
			[DC_TOTAL_DELTA] = SANDWICH_BY_DELTA_TOTAL, [DC_TOTAL_PCT] = -1,
			[DC_SELF_BASE] = -1, [DC_SELF] = SANDWICH_BY_SELF,
			[DC_SELF_DELTA] = SANDWICH_BY_DELTA_SELF,
		};
		static const char *const utf8_names[NR_DIFF_COLS] = {
			"Base", "Total", "\xce\x94Total", "\xce\x94%", "BaseSelf", "Self",
			"\xce\x94Self",
		};
		static const char *const ascii_names[NR_DIFF_COLS] = {
			"Base", "Total", "dTotal", "d%", "BaseSelf", "Self", "dSelf",
		};

		if (!c->shown[i])
			continue;
		strbuf_reset(&label);
		strbuf_addstr(&label, d->utf8 ? utf8_names[i] : ascii_names[i]);
		if (sorts[i] == (int)sp->by)
			strbuf_addstr(&label, arrow);
		add_right(&line, label.buf, label.len, diff_col_width(c, (enum diff_col)i) - 2);
		strbuf_addstr(&line, "  ");
	}
	strbuf_addstr(&line, "Function");
	if (sp->by == SANDWICH_BY_NAME)
		strbuf_addstr(&line, arrow);
	if (c->module) {
		unsigned w = render_width(line.buf, line.len), at = c->module_at;

		strbuf_addchars(&line, ' ', at > w ? at - w : 1);
		strbuf_addstr(&line, "Module");
	}
	/* Where the selection is, at the right end, when the table scrolls. */
	if (r->nr > rows_shown(sp))
		strbuf_addf(&pos, " %u/%u ", sp->row + 1, r->nr);
	attrset(display_attr(d, DISPLAY_LABEL) | A_BOLD);
	strbuf_reset(&label);
	render_label(&label, line.buf, line.len, (unsigned)width, d->utf8);
	mvaddstr(y, x, "");
	display_addstr(d, label.buf, label.len);
	if (pos.len && (int)pos.len < width)
		mvaddstr(y, x + width - (int)pos.len, pos.buf);
	attrset(A_NORMAL);
	strbuf_release(&line);
	strbuf_release(&label);
	strbuf_release(&pos);
}

static void
draw_table(struct sandwich_pane *sp, struct pane_ctx *ctx, const struct sandwich_rows *r,
	   const struct pane_area *a)
{
	const struct display *d = ctx->disp;
	const struct profile *p = model_profile(ctx->model);
	const struct profile_set *ps = ctx->model->ps;
	const struct func_table *ft = model_funcs(ctx->model);
	const struct func_stats *st = model_func_stats(ctx->model);
	const struct func_stats *bst = model_base_func_stats(ctx->model);
	uint64_t all = model_total(ctx->model);
	struct strbuf line = STRBUF_INIT, cell = STRBUF_INIT;
	struct columns c;
	struct delta_cell deltas[3];

	sp->rows = (struct pane_area){ a->top + 1, a->left, a->height - 1, a->width };
	show_row(sp, r->nr);
	table_columns(&c, ctx, (unsigned)a->width, sp, r);
	draw_header(sp, ctx, &c, a->top, a->left, a->width, r);
	if (!r->nr) {
		attrset(display_attr(d, DISPLAY_LABEL));
		mvaddstr(sp->rows.top, a->left + 1,
			 model_search_re(ctx->model)
				 ? "no function matches the search (Esc clears it)"
				 : "no samples here");
		attrset(A_NORMAL);
	}
	for (int i = 0; i < sp->rows.height && sp->top + (uint32_t)i < r->nr; i++) {
		uint32_t row = sp->top + (uint32_t)i;
		func_id fn = r->rows[row];
		const struct func *f = &ft->funcs[fn];
		unsigned used;
		attr_t attr = A_NORMAL;

		strbuf_reset(&line);
		strbuf_addch(&line, ' ');
		if (c.diff) {
			add_diff_weights(&line, p, &c, &st[fn], &bst[fn], deltas);
		} else {
			add_weight(&line, p, &c, st[fn].total, all);
			add_weight(&line, p, &c, st[fn].self, all);
		}
		used = render_width(line.buf, line.len);
		strbuf_reset(&cell);
		used += render_label(&cell, ps_get(ps, f->name), intern_len(&ps->strings, f->name),
				     c.name, d->utf8);
		strbuf_add(&line, cell.buf, cell.len);
		if (c.module && f->module != STR_EMPTY) {
			const char *mod = model_module_name(ctx->model, f->module);

			strbuf_addchars(&line, ' ', c.module_at > used ? c.module_at - used : 1);
			strbuf_reset(&cell);
			render_label(&cell, mod, strlen(mod), c.module, d->utf8);
			strbuf_add(&line, cell.buf, cell.len);
		}
		if (row == sp->row)
			attr = display_attr(d, sp->focus == FOCUS_TABLE ? DISPLAY_ROW_SELECTED
									: DISPLAY_ROW_UNFOCUSED);
		attrset(attr);
		move(sp->rows.top + i, a->left);
		display_addstr(d, line.buf, line.len);
		for (unsigned w = render_width(line.buf, line.len); w < (unsigned)a->width; w++)
			addch(' ');
		/* The changes in the colours of the boxes, but on the selected row. */
		for (int k = 0; k < 3 && c.diff && row != sp->row; k++) {
			if (!deltas[k].len || deltas[k].color < 0)
				continue;
			attrset(display_attr(d, (enum display_color)deltas[k].color));
			mvaddstr(sp->rows.top + i, a->left + (int)deltas[k].col, "");
			display_addstr(d, line.buf + deltas[k].off, deltas[k].len);
		}
		attrset(A_NORMAL);
	}
	strbuf_release(&line);
	strbuf_release(&cell);
}

/* ----------------------------------------------------------- the details */

/* "1.51 s (45.6% of all)"; just "0 s" for nothing, which has no share. */
static void
add_amount_of(struct strbuf *out, const struct profile *p, uint64_t w, uint64_t all)
{
	profile_format_amount(p, w, out);
	if (!w || !all)
		return;
	strbuf_addstr(out, " (");
	profile_format_share(w, all, out);
	strbuf_addstr(out, " of all)");
}

/* The selected function, for the details when the table has the focus. */
static void
function_details(struct sandwich_pane *sp, struct pane_ctx *ctx, struct flow *fl)
{
	const struct display *d = ctx->disp;
	const struct profile *p = model_profile(ctx->model);
	const struct profile_set *ps = ctx->model->ps;
	const struct func *f;
	const struct func_stats *st;
	attr_t label = display_attr(d, DISPLAY_LABEL);
	uint64_t all = model_total(ctx->model);

	if (sp->func == FUNC_NONE) {
		flow_wordz(fl, label, "no function selected");
		return;
	}
	f = &model_funcs(ctx->model)->funcs[sp->func];
	st = &model_func_stats(ctx->model)[sp->func];
	fl->indent = 0;
	flow_text(fl, display_attr(d, DISPLAY_NAME), ps_get(ps, f->name),
		  intern_len(&ps->strings, f->name));
	flow_newline(fl);
	fl->indent = 2;
	/* Comparing, the change takes the module's line: three lines show at 24 rows. */
	if (f->module != STR_EMPTY && !model_diff_base(ctx->model)) {
		const char *module = ps_get(ps, f->module);

		flow_field(fl, label, "module", A_NORMAL, module, strlen(module));
		flow_newline(fl);
	}
	fl->indent = 11;
	flow_wordz(fl, label, "function   total");
	flow_space(fl, 1);
	flow_amount(fl, label, p, st->total, all, 0, NULL);
	flow_space(fl, 3);
	flow_wordz(fl, label, "self");
	flow_space(fl, 1);
	flow_amount(fl, label, p, st->self, all, 0, NULL);
	if (model_diff_base(ctx->model)) {
		const struct func_stats *b = &model_base_func_stats(ctx->model)[sp->func];

		flow_newline(fl);
		flow_wordz(fl, label, "change     total");
		flow_space(fl, 1);
		flow_change(fl, d, label, p, b->total, st->total);
		flow_space(fl, 3);
		flow_wordz(fl, label, "self");
		flow_space(fl, 1);
		flow_change(fl, d, label, p, b->self, st->self);
		if (f->module != STR_EMPTY) {
			const char *module = ps_get(ps, f->module);

			fl->indent = 2;
			flow_newline(fl);
			flow_field(fl, label, "module", A_NORMAL, module, strlen(module));
		}
	}
	fl->indent = 0;
}

/* The rule over the details: a line of dashes. */
static void
draw_dashes(const struct display *d, int y, int x, int width)
{
	attrset(display_attr(d, DISPLAY_RULE));
	move(y, x);
	for (int i = 0; i < width; i++)
		addstr(d->utf8 ? "\xe2\x94\x80" : "-");
	attrset(A_NORMAL);
}

static void
draw_details(struct sandwich_pane *sp, struct pane_ctx *ctx, int y, int x, int width,
	     int lines)
{
	if (sp->focus != FOCUS_TABLE && sp->built) {
		flame_draw_details(sp->focus == FOCUS_CALLERS ? sp->callers : sp->callees, ctx,
				   y, x, width, lines);
		return;
	}
	flow_reset(&sp->details, (unsigned)(width > 0 ? width : 1));
	function_details(sp, ctx, &sp->details);
	flow_draw(&sp->details, ctx->disp, 0, (size_t)lines, y, x, A_NORMAL);
}

/* ------------------------------------------------------- callers, callees */

/* "building..." where the trees go, until no key is waiting. */
static void
draw_building(const struct pane_ctx *ctx, const struct pane_area *a, const char *what)
{
	const struct display *d = ctx->disp;

	draw_dashes(d, a->top, a->left, a->width);
	attrset(display_attr(d, DISPLAY_LABEL));
	mvaddstr(a->top, a->left + 2, " ");
	addstr(what);
	addstr(" ");
	mvaddstr(a->top + 1, a->left + 1, d->utf8 ? "building\xe2\x80\xa6" : "building...");
	attrset(A_NORMAL);
}

static void
set_titles(struct sandwich_pane *sp, struct pane_ctx *ctx)
{
	const struct profile_set *ps = ctx->model->ps;
	const struct func *f = &model_funcs(ctx->model)->funcs[sp->func];
	static const char *const words[] = { "Callers of ", "Callees of " };

	for (int i = 0; i < 2; i++) {
		strbuf_reset(&sp->title[i]);
		strbuf_addstr(&sp->title[i], words[i]);
		/* Raw: the rule escapes and cuts it to the room it has. */
		strbuf_addstr(&sp->title[i], ps_get(ps, f->name));
	}
}

/* Lend the views the trees of the selected function; false if not built yet. */
static bool
lend_trees(struct sandwich_pane *sp, struct pane_ctx *ctx, bool may_build)
{
	struct model *m = ctx->model;
	const struct sandwich *sw;
	struct flame_source src = { .all = model_total(m), .key = m->generation };

	if (sp->func == FUNC_NONE)
		return false;
	if (!model_sandwich_cached(m, sp->func) && m->ps->nr_stacks >= SLOW_STACKS) {
		const struct func *f = &model_funcs(m)->funcs[sp->func];
		struct strbuf what = STRBUF_INIT;

		if (!may_build)
			return false;
		strbuf_addstr(&what, "Sandwich of ");
		strbuf_addstr(&what, ps_get(m->ps, f->name));
		ctx->announce(ctx, what.buf);
		strbuf_release(&what);
	}
	sw = model_sandwich(m, sp->func);
	src.key2 = sp->func;
	src.base_key = m->diff.dgen;
	nav_inverted(&src.nav, &sw->callers);
	/* A regex's matches, lit and visited; a marked function is neither here. */
	if (model_search_re(m))
		src.matches = model_search_sandwich(m, sp->func, false);
	src.base = model_base_sandwich(m, sp->func, false);
	flame_set_source(sp->callers, &src);
	nav_tree(&src.nav, &sw->callees);
	if (model_search_re(m))
		src.matches = model_search_sandwich(m, sp->func, true);
	src.base = model_base_sandwich(m, sp->func, true);
	flame_set_source(sp->callees, &src);
	return true;
}

static void
sandwich_draw(struct pane *pane, struct pane_ctx *ctx, const struct pane_area *area)
{
	struct sandwich_pane *sp = pane->priv;
	const struct sandwich_rows *r = sandwich_sync(sp, ctx);
	/* Comparing, a line more: the change of the function wraps at 80 columns. */
	int details = (area->height >= TALL ? DETAILS_LINES_TALL : DETAILS_LINES) +
		      (model_diff_base(ctx->model) != NULL);
	int rest = area->height - details - 1, table_h, flames_h;
	struct pane_area table, fa[2];
	struct model *m = ctx->model;
	/* A function's own marks would dim every caller: only a regex lights here. */
	const struct search *marks = model_search_re(m) ? model_search(m) : NULL;

	/* The table gets two fifths of what the details leave, and no more than it needs. */
	table_h = rest * 2 / 5;
	if (table_h < 3)
		table_h = 3;
	if (table_h > (int)r->nr + 1)
		table_h = (int)r->nr + 1 < 3 ? 3 : (int)r->nr + 1;
	flames_h = rest - table_h;
	if (flames_h < 2) {
		flames_h = 2;
		table_h = rest - flames_h;
	}
	table = (struct pane_area){ area->top, area->left, table_h, area->width };
	if (area->width >= SIDE_BY_SIDE) {
		int lw = (area->width - 1) / 2;

		fa[0] = (struct pane_area){ area->top + table_h, area->left, flames_h, lw };
		fa[1] = (struct pane_area){ area->top + table_h, area->left + lw + 1, flames_h,
					    area->width - lw - 1 };
	} else {
		int th = flames_h / 2;

		fa[0] = (struct pane_area){ area->top + table_h, area->left, th, area->width };
		fa[1] = (struct pane_area){ area->top + table_h + th, area->left, flames_h - th,
					    area->width };
	}

	for (int y = area->top; y < area->top + area->height; y++) {
		move(y, area->left);
		clrtoeol();
	}
	draw_table(sp, ctx, r, &table);

	sp->built = lend_trees(sp, ctx, ctx->may_build);
	if (sp->built) {
		struct flame_look look = { .rule_on_top = true, .marks = marks };

		set_titles(sp, ctx);
		look.title = sp->title[0].buf;
		look.focused = sp->focus == FOCUS_CALLERS;
		look.path_title = "# callers, from the function out to the outermost frame";
		flame_draw(sp->callers, ctx, &fa[0], &look);
		look.title = sp->title[1].buf;
		look.focused = sp->focus == FOCUS_CALLEES;
		look.path_title = "# call path, from the function down";
		flame_draw(sp->callees, ctx, &fa[1], &look);
	} else if (sp->func != FUNC_NONE) {
		draw_building(ctx, &fa[0], "Callers");
		draw_building(ctx, &fa[1], "Callees");
		ctx->build_pending = true;
	}
	if (area->width >= SIDE_BY_SIDE) {
		attrset(display_attr(ctx->disp, DISPLAY_RULE));
		for (int y = fa[1].top; y < fa[1].top + fa[1].height; y++)
			mvaddstr(y, fa[1].left - 1, display_glyph_bar(ctx->disp));
		attrset(A_NORMAL);
	}
	draw_dashes(ctx->disp, area->top + area->height - details - 1, area->left, area->width);
	draw_details(sp, ctx, area->top + area->height - details, area->left, area->width,
		     details);
}

/* -------------------------------------------------------------- requests */

static const char *const sort_names[] = {
	[SANDWICH_BY_TOTAL] = "total",
	[SANDWICH_BY_SELF] = "self",
	[SANDWICH_BY_NAME] = "name",
	[SANDWICH_BY_DELTA_TOTAL] = "the change of total",
	[SANDWICH_BY_DELTA_SELF] = "the change of self",
};

/* Sort the table by by (again: reverse). False if there is no such order here. */
static bool
sort_by(struct sandwich_pane *sp, struct pane_ctx *ctx, enum sandwich_sort by)
{
	bool delta = by == SANDWICH_BY_DELTA_TOTAL || by == SANDWICH_BY_DELTA_SELF;

	if (delta && !model_diff_base(ctx->model)) {
		strbuf_addstr(ctx->message, "no change to sort by: not comparing two profiles "
					    "(tflame BASE NEW)");
		return false;
	}
	if (sp->by == by) {
		sp->reverse = !sp->reverse;
	} else {
		sp->by = by;
		sp->reverse = false;
	}
	strbuf_addf(ctx->message, "sorted by %s, %s", sort_names[by],
		    by == SANDWICH_BY_NAME ? (sp->reverse ? "Z to A" : "A to Z")
		    : delta		   ? (sp->reverse ? "the most shrunk first"
							  : "the most grown first")
					   : (sp->reverse ? "lightest first" : "heaviest first"));
	if (sp->by != SANDWICH_BY_TOTAL || sp->reverse)
		strbuf_addstr(ctx->message, " (again: reverse)");
	return true;
}

/* The function's details, and its direct callers and callees, on a page. */
static enum pane_reply
function_page(struct sandwich_pane *sp, struct pane_ctx *ctx)
{
	const struct profile_set *ps = ctx->model->ps;
	const struct profile *p = model_profile(ctx->model);
	const struct func *f;
	const struct func_stats *st;
	const struct sandwich *sw;
	uint64_t all = model_total(ctx->model);

	if (sp->func == FUNC_NONE) {
		strbuf_addstr(ctx->message, "no function selected");
		return PANE_DONE;
	}
	f = &model_funcs(ctx->model)->funcs[sp->func];
	st = &model_func_stats(ctx->model)[sp->func];
	sw = model_sandwich(ctx->model, sp->func);
	strbuf_addstr(ctx->page, "Function details (q or Esc closes)\n");
	text_escape(ctx->page, ps_get(ps, f->name), intern_len(&ps->strings, f->name));
	strbuf_addch(ctx->page, '\n');
	if (f->module != STR_EMPTY) {
		strbuf_addstr(ctx->page, "  module ");
		text_escape_str(ctx->page, ps_get(ps, f->module));
		strbuf_addch(ctx->page, '\n');
	}
	strbuf_addstr(ctx->page, "  total ");
	add_amount_of(ctx->page, p, st->total, all);
	strbuf_addstr(ctx->page, "   self ");
	add_amount_of(ctx->page, p, st->self, all);
	strbuf_addch(ctx->page, '\n');
	if (model_diff_base(ctx->model)) {
		const struct func_stats *b = &model_base_func_stats(ctx->model)[sp->func];

		strbuf_addstr(ctx->page, "  change: total ");
		flow_change_text(ctx->page, p, b->total, st->total, ctx->disp->utf8);
		strbuf_addstr(ctx->page, "   self ");
		flow_change_text(ctx->page, p, b->self, st->self, ctx->disp->utf8);
		strbuf_addch(ctx->page, '\n');
	}
	for (int side = 0; side < 2; side++) {
		struct nav nv;
		uint32_t nr = 0, top, k;

		if (side)
			nav_tree(&nv, &sw->callees);
		else
			nav_inverted(&nv, &sw->callers);
		/* Row 0 is the function alone; its children, its direct callers or callees. */
		top = nv.ops->first(&nv);
		k = top != NAV_NONE ? nav_next_kid(&nv, top, NAV_NONE) : NAV_NONE;
		for (; k != NAV_NONE; k = nav_next_kid(&nv, top, k))
			nr++;
		strbuf_addf(ctx->page, "\n# %s (%u), heaviest first\n",
			    side ? "Direct callees" : "Direct callers", nr);
		if (!nr)
			strbuf_addstr(ctx->page, side ? "  none: it is a leaf in every sample\n"
						      : "  none: it is an outermost frame\n");
		for (k = nr ? nav_next_kid(&nv, top, NAV_NONE) : NAV_NONE; k != NAV_NONE;
		     k = nav_next_kid(&nv, top, k)) {
			const struct frame *fr = ps_frame(nv.ps, nav_frame(&nv, k));
			struct strbuf w = STRBUF_INIT;

			profile_format_amount_short(p, nav_weight(&nv, k), &w);
			strbuf_addf(ctx->page, "  %10s  ", w.buf);
			strbuf_reset(&w);
			profile_format_share(nav_weight(&nv, k), sw->total, &w);
			strbuf_addf(ctx->page, "%6s  ", w.buf);
			text_escape(ctx->page, ps_get(ps, fr->name),
				    intern_len(&ps->strings, fr->name));
			strbuf_addch(ctx->page, '\n');
			strbuf_release(&w);
		}
	}
	return PANE_PAGE;
}

static enum pane_reply
table_request(struct sandwich_pane *sp, struct pane_ctx *ctx, enum request req,
	      const struct pane_input *in, const struct sandwich_rows *r)
{
	int64_t page = rows_shown(sp) > 1 ? rows_shown(sp) - 1 : 1;

	switch (req) {
	case REQ_MOVE_UP:
		if (!sp->row)
			strbuf_addstr(ctx->message, "the first row");
		select_row(sp, ctx, r, (int64_t)sp->row - 1);
		return PANE_DONE;
	case REQ_MOVE_DOWN:
		if (sp->row + 1 >= r->nr)
			strbuf_addstr(ctx->message, "the last row");
		select_row(sp, ctx, r, (int64_t)sp->row + 1);
		return PANE_DONE;
	case REQ_PAGE_UP:
		select_row(sp, ctx, r, (int64_t)sp->row - page);
		return PANE_DONE;
	case REQ_PAGE_DOWN:
		select_row(sp, ctx, r, (int64_t)sp->row + page);
		return PANE_DONE;
	case REQ_WHEEL_UP:
		select_row(sp, ctx, r, (int64_t)sp->row - 3);
		return PANE_DONE;
	case REQ_WHEEL_DOWN:
		select_row(sp, ctx, r, (int64_t)sp->row + 3);
		return PANE_DONE;
	case REQ_TOP:
		select_row(sp, ctx, r, 0);
		return PANE_DONE;
	case REQ_BOTTOM:
		select_row(sp, ctx, r, (int64_t)r->nr - 1);
		return PANE_DONE;
	case REQ_CLICK:
	case REQ_CLICK_ZOOM:
		if (!in || in->y < sp->rows.top || in->y >= sp->rows.top + sp->rows.height ||
		    sp->top + (uint32_t)(in->y - sp->rows.top) >= r->nr)
			return PANE_DONE;
		select_row(sp, ctx, r, sp->top + (uint32_t)(in->y - sp->rows.top));
		if (req == REQ_CLICK)
			return PANE_DONE;
		/* A double click is Enter. */
		__attribute__((fallthrough));
	case REQ_ZOOM:
		if (sp->func == FUNC_NONE)
			return PANE_DONE;
		ctx->show_func = sp->func;
		return PANE_SHOW_FUNC;
	case REQ_SHOW_SANDWICH:
		strbuf_addstr(ctx->message, "Enter shows this function in the flame pane, marked");
		return PANE_DONE;
	case REQ_MOVE_LEFT:
	case REQ_MOVE_RIGHT:
	case REQ_PAN_LEFT:
	case REQ_PAN_RIGHT:
	case REQ_ZOOM_IN:
	case REQ_ZOOM_OUT:
	case REQ_ZOOM_RESET:
		strbuf_addstr(ctx->message, "the table has the focus: Tab moves it to the callers");
		return PANE_DONE;
	case REQ_FIND_NEXT:
	case REQ_FIND_PREV:
		strbuf_addstr(ctx->message, model_search_re(ctx->model)
				      ? "the search keeps the table to its matches: j and k go "
					"through them, Tab to the trees for n and N"
				      : "no search: / starts one");
		return PANE_DONE;
	case REQ_DETAILS:
		return function_page(sp, ctx);
	case REQ_SOURCE:
		if (sp->func == FUNC_NONE) {
			strbuf_addstr(ctx->message, "no function selected");
			return PANE_DONE;
		}
		ctx->show_func = sp->func;
		ctx->show_frame = FRAME_NONE;
		return PANE_SHOW_SOURCE;
	default:
		return PANE_IGNORED;
	}
}

/*
 * s on a box of the callers or callees: that function becomes the
 * selection, if the table shows it.
 */
static void
recenter(struct sandwich_pane *sp, struct pane_ctx *ctx, struct flame *f,
	 const struct sandwich_rows *r)
{
	uint32_t fn = flame_selected_func(f, ctx), i;

	if (fn == UINT32_MAX || fn == sp->func) {
		strbuf_addstr(ctx->message, fn == UINT32_MAX ? "nothing selected"
							     : "this is the function shown");
		return;
	}
	i = sandwich_rows_find(r, fn);
	if (i == UINT32_MAX) {
		strbuf_addstr(ctx->message, "the search hides that function: Esc clears it");
		return;
	}
	select_row(sp, ctx, r, i);
	sp->focus = FOCUS_TABLE;
}

static enum pane_reply
sandwich_request(struct pane *pane, struct pane_ctx *ctx, enum request req,
		 const struct pane_input *in)
{
	struct sandwich_pane *sp = pane->priv;
	const struct sandwich_rows *r = sandwich_sync(sp, ctx);
	struct flame *f;

	switch (req) {
	/*
	 * Tab tours the table, the callers, the callees, then the next pane,
	 * so that it still goes round every pane; 1 2 3 jump.
	 */
	case REQ_NEXT_PANE:
		if (sp->focus == FOCUS_CALLEES) {
			sp->focus = FOCUS_TABLE;
			return PANE_IGNORED;
		}
		sp->focus++;
		return PANE_DONE;
	case REQ_PREV_PANE:
		if (sp->focus == FOCUS_TABLE)
			return PANE_IGNORED;
		sp->focus--;
		return PANE_DONE;
	case REQ_SORT_TOTAL:
	case REQ_SORT_SELF:
	case REQ_SORT_NAME:
	case REQ_SORT_DELTA_TOTAL:
	case REQ_SORT_DELTA_SELF:
		if (!sort_by(sp, ctx, req == REQ_SORT_TOTAL		? SANDWICH_BY_TOTAL
				      : req == REQ_SORT_SELF		? SANDWICH_BY_SELF
				      : req == REQ_SORT_DELTA_TOTAL	? SANDWICH_BY_DELTA_TOTAL
				      : req == REQ_SORT_DELTA_SELF	? SANDWICH_BY_DELTA_SELF
									: SANDWICH_BY_NAME))
			return PANE_DONE;
		r = sandwich_sync(sp, ctx);
		/* A new order starts at its top; the selection stays, in view. */
		sp->top = 0;
		show_row(sp, r->nr);
		return PANE_DONE;
	case REQ_CLICK:
	case REQ_CLICK_ZOOM:
	case REQ_WHEEL_UP:
	case REQ_WHEEL_DOWN:
		/* The pointer gives the focus to what it is on. */
		if (in && in->y >= sp->rows.top - 1 && in->y < sp->rows.top + sp->rows.height)
			sp->focus = FOCUS_TABLE;
		else if (in && sp->built && flame_contains(sp->callers, in->x, in->y))
			sp->focus = FOCUS_CALLERS;
		else if (in && sp->built && flame_contains(sp->callees, in->x, in->y))
			sp->focus = FOCUS_CALLEES;
		break;
	default:
		break;
	}
	if (sp->focus == FOCUS_TABLE)
		return table_request(sp, ctx, req, in, r);
	if (!lend_trees(sp, ctx, true))
		return PANE_DONE;
	f = sp->focus == FOCUS_CALLERS ? sp->callers : sp->callees;
	if (req == REQ_SHOW_SANDWICH) {
		recenter(sp, ctx, f, r);
		return PANE_DONE;
	}
	return flame_request(f, ctx, req, in);
}

static void
sandwich_search(struct pane *pane, struct pane_ctx *ctx, struct strbuf *out)
{
	struct sandwich_pane *sp = pane->priv;
	const struct sandwich_rows *r;
	const struct func_stats *st;
	const struct func_table *ft;
	uint32_t nr = 0, fn = model_search_func(ctx->model);

	if (fn != FUNC_NONE) {
		/* The marked function's weight: its boxes, once per sample. */
		const struct profile *p = model_profile(ctx->model);
		uint64_t all = model_total(ctx->model);

		st = model_func_stats(ctx->model);
		strbuf_addstr(out, "total ");
		profile_format_amount(p, st[fn].total, out);
		strbuf_addstr(out, " (");
		profile_format_share(st[fn].total, all, out);
		strbuf_addstr(out, "), self ");
		profile_format_amount(p, st[fn].self, out);
		strbuf_addstr(out, " (");
		profile_format_share(st[fn].self, all, out);
		strbuf_addch(out, ')');
		return;
	}
	if (!model_search_re(ctx->model))
		return;
	if (sp->focus != FOCUS_TABLE && sp->built) {
		flame_search_status(sp->focus == FOCUS_CALLERS ? sp->callers : sp->callees, ctx,
				    out);
		return;
	}
	r = sandwich_sync(sp, ctx);
	st = model_func_stats(ctx->model);
	ft = model_funcs(ctx->model);
	/* The functions the table would show: processes are none. */
	for (uint32_t i = 0; i < ft->nr_funcs; i++)
		nr += st[i].total > 0 && !ft->process[i];
	strbuf_addf(out, "%u of %u function%s match", r->nr, nr, nr == 1 ? "" : "s");
}

static void
sandwich_show(struct pane *pane, struct pane_ctx *ctx, uint32_t func)
{
	struct sandwich_pane *sp = pane->priv;
	const struct sandwich_rows *r = table_rows(ctx, sp);
	uint32_t i = sandwich_rows_find(r, func);

	sp->focus = FOCUS_TABLE;
	if (i == UINT32_MAX) {
		strbuf_addstr(ctx->message, model_funcs(ctx->model)->process[func]
					    ? "a process, not a function: the table has none; "
					    : "the search hides that function: Esc clears it; ");
		return;
	}
	sp->row = i;
	sp->func = func;
	/* Put it a few rows down from the top, so that what is heavier shows too. */
	sp->top = i > 2 ? i - 2 : 0;
}

static void
sandwich_selection(struct pane *pane, struct pane_ctx *ctx, struct pane_selection *out)
{
	struct sandwich_pane *sp = pane->priv;

	out->set = ctx->model->ps;
	if (sp->focus != FOCUS_TABLE && sp->built) {
		flame_selection(sp->focus == FOCUS_CALLERS ? sp->callers : sp->callees, out);
		/* The trees' stacks are their own: no zoom of the model's. */
		out->zoom = STACK_ROOT;
		out->inverted = sp->focus == FOCUS_CALLERS;
	} else if (sp->func != FUNC_NONE) {
		out->name = model_funcs(ctx->model)->funcs[sp->func].name;
	}
}

static void
sandwich_remap(struct pane *pane, struct pane_ctx *ctx, const stack_id *map, uint32_t nr)
{
	struct sandwich_pane *sp = pane->priv;
	/* Not model_funcs(): it would build a table of the new set. */
	const struct func_table *ft = &ctx->model->funcs;

	(void)map;
	(void)nr;
	/* The callers and callees are trees of their own: they start over. */
	if (sp->func == FUNC_NONE || sp->remapped || !ctx->model->funcs_built ||
	    sp->func >= ft->nr_funcs)
		return;
	sp->remap_func = ft->funcs[sp->func];
	sp->remapped = true;
}

static void *
sandwich_open(struct pane_ctx *ctx)
{
	struct sandwich_pane *sp = xcalloc(1, sizeof(*sp));

	sp->by = SANDWICH_BY_TOTAL;
	sp->profile = ctx->model->lens.profile;
	sp->func = FUNC_NONE;
	sp->callers = flame_new();
	sp->callees = flame_new();
	flow_init(&sp->details, 80);
	strbuf_init(&sp->title[0], 0);
	strbuf_init(&sp->title[1], 0);
	return sp;
}

static void
sandwich_done(struct pane *pane)
{
	struct sandwich_pane *sp = pane->priv;

	if (!sp)
		return;
	flame_free(sp->callers);
	flame_free(sp->callees);
	flow_release(&sp->details);
	strbuf_release(&sp->title[0]);
	strbuf_release(&sp->title[1]);
	free(sp);
	pane->priv = NULL;
}

const struct pane_ops pane_sandwich = {
	.name = "Sandwich",
	.open = sandwich_open,
	.draw = sandwich_draw,
	.request = sandwich_request,
	.search = sandwich_search,
	.show = sandwich_show,
	.remap = sandwich_remap,
	.selection = sandwich_selection,
	.done = sandwich_done,
};
