#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/cli.h"
#include "tflame/cmd.h"
#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/layout.h"
#include "tflame/model.h"
#include "tflame/nav.h"
#include "tflame/render.h"
#include "tflame/sandwich.h"
#include "tflame/search.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

static const char dump_usage[] =
	"usage: tflame dump [OPTIONS] FILE\n"
	"   or: tflame dump [OPTIONS] BASE NEW\n"
	"\n"
	"Print a pane as text, laid out by the same code as the interactive view:\n"
	"one line per stack depth, each box its frame's name cut to its width,\n"
	"'|' closing each box ('*' when --search matches it). A cell that boxes\n"
	"narrower than a cell share goes to the one covering most of it, shown\n"
	"by the first letter of its name. In UTF-8, box edges fall on eighths\n"
	"of a cell: a cell two boxes share is the block of its left part.\n"
	"\n"
	"With --inverted, Left Heavy bottom-up: the frames that ran on the first\n"
	"line, heaviest first, their callers below; --zoom reads from the leaf.\n"
	"\n"
	"With --view=time-order: a ruler, then each thread's rows, heaviest\n"
	"thread first; x is time (cumulative weight when the profile has none).\n"
	"\n"
	"With --view=sandwich: the function table (total, self, module, name),\n"
	"then the callers and the callees of the function chosen by --function\n"
	"(default: the heaviest), each laid out like Left Heavy.\n"
	"\n"
	"With BASE and NEW (or --diff, or a folded file with two counts), NEW\n"
	"compared with BASE: after the boxes of Left Heavy, the callers and the\n"
	"callees, each box with its base and new weight, the delta, the delta in\n"
	"percent of the base and the sign of its colour: + grew, - shrank, new,\n"
	"gone, = the same. The Sandwich table has the base, new and delta of\n"
	"total and self, the most grown first.\n"
	"\n"
	"  --view=VIEW             left-heavy (default), time-order or sandwich\n"
	"  --function=REGEX        sandwich: the heaviest function matching REGEX\n"
	"                          (in a comparison, the one that grew most)\n"
	"  --width=W               columns (default 100)\n"
	"  --height=H              rows of boxes (default 30); sandwich: of the\n"
	"                          table, and of callers and callees under the\n"
	"                          function's own row\n"
	"  --zoom=FRAME;FRAME;...  zoom on the box of this call path, root first\n"
	CLI_LENS_USAGE
	CLI_SYMBOL_USAGE
	"  --ascii                 ASCII only ('~' for the ellipsis), whole cells\n"
	"  --diff                  compare BASE and NEW (two files are enough)\n"
	"  --normalize             compare BASE scaled to NEW's total\n"
	"  --ignore-module         match functions by name alone (BASE NEW)\n"
	"  --swap                  show BASE compared with NEW\n"
	CLI_COMMON_USAGE;

enum {
	OPT_VIEW = 256, OPT_WIDTH, OPT_HEIGHT, OPT_ZOOM, OPT_ASCII, OPT_FUNCTION,
	OPT_SWAP,
};

static const struct option dump_options_table[] = {
	{ "view", required_argument, NULL, OPT_VIEW },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "zoom", required_argument, NULL, OPT_ZOOM },
	{ "function", required_argument, NULL, OPT_FUNCTION },
	CLI_LENS_OPTIONS,
	CLI_SYMBOL_OPTIONS,
	{ "ascii", no_argument, NULL, OPT_ASCII },
	CLI_DIFF_OPTIONS,
	{ "swap", no_argument, NULL, OPT_SWAP },
	CLI_COMMON_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

const struct option *
cmd_dump_options(void)
{
	return dump_options_table;
}

#define MAX_DUMP_WIDTH 10000
#define MAX_DUMP_HEIGHT 100000

/* Left Heavy as the model shows it: the tree, or the inverted tree. */
static void
nav_left_heavy(struct nav *nv, struct model *m)
{
	if (m->inverted)
		nav_inverted(nv, &model_inverted(m)->tree);
	else
		nav_tree(nv, model_tree(m));
}

/*
 * The x range of the first box (tree node or chart box) on path, which
 * reads from the leaf in the inverted tree.
 */
static bool
find_zoom(struct model *m, bool chart, const char *path, uint64_t *x0, uint64_t *x1)
{
	const struct timeline *tl = chart ? model_timeline(m) : NULL;
	uint32_t nr = chart ? tl->nr_lanes : 1;

	for (uint32_t l = 0; l < nr; l++) {
		struct nav nv;
		uint32_t n;

		if (chart)
			nav_chart(&nv, &tl->lanes[l]);
		else
			nav_left_heavy(&nv, m);
		n = nav_find_path(&nv, path);
		if (n != NAV_NONE) {
			nv.ops->range(&nv, n, x0, x1);
			return true;
		}
	}
	return false;
}

/* The glyph of a cell split after eighths of it (1 to 7): U+258F is one eighth. */
static void
add_eighths(struct strbuf *out, uint32_t eighths)
{
	strbuf_addch(out, '\xe2');
	strbuf_addch(out, '\x96');
	strbuf_addch(out, (char)(0x90 - eighths));
}

/* The first character of name as a one-column mark: '?' if it is not plain ASCII. */
static char
name_mark(const char *name)
{
	return *name > ' ' && *name <= '~' && *name != '|' && *name != '*' ? *name : '?';
}

/*
 * One line per row, one column per cell. A box is its label, padded, and
 * a '|' in its last cell, or a '*' when the search (if not NULL) matches
 * its frame; a box whose node is narrower than a cell (it won its cells
 * from its neighbours) shows the first letter of its name in each, or '*'.
 * With eighths, a cell that a wider box shares with another is the glyph
 * of the edge between them ("\u258c": half way), and the box's label and
 * mark go in the cells it fills. Trailing blanks are trimmed so the output diffs
 * well. The boxes are nv's.
 */
static void
print_rows(const struct nav *nv, const struct layout *l, const struct view *v,
	   const struct search *match, bool utf8, struct strbuf *out)
{
	const struct profile_set *ps = nv->ps;
	size_t i = 0;

	for (uint32_t row = v->first_row; row < v->first_row + v->nr_rows; row++) {
		size_t start = out->len;
		uint32_t col = 0;

		for (; i < l->nr && l->boxes[i].row == row; i++) {
			const struct box *b = &l->boxes[i];
			frame_id f = nav_frame(nv, b->node);
			const char *name = ps_get(ps, ps_frame(ps, f)->name);
			bool hit = match && search_frame(match, f);
			uint32_t c0, c1;

			strbuf_addchars(out, ' ', b->col0 - col);
			col = b->col1;
			if (b->flags & BOX_NARROW) {
				strbuf_addchars(out, hit ? '*' : name_mark(name), b->col1 - b->col0);
				continue;
			}
			/* Shared cells at either end are edges; the rest is the box's own. */
			layout_box_whole(l, b, &c0, &c1);
			for (uint32_t c = b->col0; c < c0; c++)
				add_eighths(out, layout_cell(l, row, c)->split);
			if (c1 > c0) {
				unsigned w = c1 - c0, used = 0;

				if (w > 1)
					used = render_label(out, name, strlen(name), w - 1, utf8);
				strbuf_addchars(out, ' ', w - 1 - used);
				strbuf_addch(out, hit ? '*' : '|');
			}
			for (uint32_t c = c1 > c0 ? c1 : c0; c < b->col1; c++)
				add_eighths(out, layout_cell(l, row, c)->split);
		}
		while (out->len > start && out->buf[out->len - 1] == ' ')
			strbuf_setlen(out, out->len - 1);
		strbuf_addch(out, '\n');
	}
}

/* A cell of a comparison's table, right-aligned in width columns. */
static void
add_cell(struct strbuf *out, const struct strbuf *cell, int width)
{
	strbuf_addf(out, "%*s", width, cell->buf);
}

/*
 * A comparison's line: base and new, the delta, the delta in percent of
 * base and the sign of the colour, each right-aligned. With selfs (a box
 * of Left Heavy: selfs[0] its self weight in the base, selfs[1] now) the
 * self weights come before the sign, which is then of the box's colour,
 * diff_box_change().
 */
static void
add_change_cells(struct strbuf *out, const struct profile *p, uint64_t base, uint64_t now,
		 const uint64_t *selfs)
{
	struct strbuf cell = STRBUF_INIT;
	enum diff_change c = diff_change(base, now);

	profile_format_amount_short(p, base, &cell);
	add_cell(out, &cell, 10);
	strbuf_reset(&cell);
	profile_format_amount_short(p, now, &cell);
	add_cell(out, &cell, 10);
	strbuf_reset(&cell);
	diff_format_delta(&cell, p, diff_delta(base, now));
	add_cell(out, &cell, 10);
	strbuf_reset(&cell);
	diff_format_change(&cell, base, now);
	add_cell(out, &cell, 9);
	if (selfs) {
		strbuf_reset(&cell);
		profile_format_amount_short(p, selfs[0], &cell);
		add_cell(out, &cell, 10);
		strbuf_reset(&cell);
		profile_format_amount_short(p, selfs[1], &cell);
		add_cell(out, &cell, 10);
		c = diff_box_change(base, now, selfs[0], selfs[1]);
	}
	strbuf_addf(out, "  %-4s", diff_change_sign(c));
	strbuf_release(&cell);
}

/* The header of print_box_changes() and print_gone()'s lines. */
static void
add_change_header(struct strbuf *out, bool selfs)
{
	strbuf_addf(out, "%4s%10s%10s%10s%9s", "row", "base", "new", "delta", "change");
	if (selfs)
		strbuf_addf(out, "%10s%10s", "base self", "self");
	strbuf_addf(out, "  %-4s  %s\n", "sign", "frame");
}

/*
 * A comparison: every box of l (laid out from nv) on a line, row by row,
 * with its base weight (base[] per stack of nv), as add_change_cells()
 * says, and its name; in Left Heavy (base_self and self per stack of nv,
 * else NULL) with the self weights its colour is of.
 */
static void
print_box_changes(const struct nav *nv, const struct layout *l, const uint64_t *base,
		  const uint64_t *base_self, const uint64_t *self, const struct profile *p,
		  struct strbuf *out)
{
	add_change_header(out, self != NULL);
	for (size_t i = 0; i < l->nr; i++) {
		const struct box *b = &l->boxes[i];
		frame_id f = nav_frame(nv, b->node);
		stack_id s = nv->ops->stack(nv, b->node);
		uint64_t selfs[2] = { self ? base_self[s] : 0, self ? self[s] : 0 };

		strbuf_addf(out, "%4u", b->row);
		add_change_cells(out, p, base[s], nav_weight(nv, b->node), self ? selfs : NULL);
		strbuf_addstr(out, "  ");
		text_escape_str(out, ps_get(nv->ps, ps_frame(nv->ps, f)->name));
		strbuf_addch(out, '\n');
	}
}

/*
 * Left Heavy in a comparison: the call paths only the base has (no box,
 * having no weight now) whose caller has a box in l, each as gone, one
 * row below its caller. One pass over the stacks of t's set.
 */
static void
print_gone(const struct calltree *t, const struct layout *l, const uint64_t *base,
	   const uint64_t *base_self, const struct profile *p, struct strbuf *out)
{
	const struct profile_set *ps = t->ps;
	uint32_t *row = xmalloc(sizeof(*row) * ((size_t)ps->nr_stacks + 1));

	for (stack_id s = 0; s < ps->nr_stacks; s++)
		row[s] = UINT32_MAX;
	for (size_t i = 0; i < l->nr; i++)
		row[l->boxes[i].node] = l->boxes[i].row;
	for (stack_id s = 1; s < ps->nr_stacks; s++) {
		stack_id parent = ps->stacks[s].parent;

		if (t->total[s] || !base[s] || (parent != STACK_ROOT && row[parent] == UINT32_MAX))
			continue;
		uint64_t selfs[2] = { base_self[s], 0 };

		strbuf_addf(out, "%4u", parent == STACK_ROOT ? 0 : row[parent] + 1);
		add_change_cells(out, p, base[s], 0, selfs);
		strbuf_addstr(out, "  ");
		text_escape_str(out, ps_get(ps, ps_frame(ps, ps->stacks[s].frame)->name));
		strbuf_addstr(out, "  (under ");
		text_escape_str(out, parent == STACK_ROOT ? "the root"
				: ps_get(ps, ps_frame(ps, ps->stacks[parent].frame)->name));
		strbuf_addstr(out, ")\n");
	}
	free(row);
}

/*
 * A layout of nv, all of its width, into out: its rows, at most
 * frame->nr_rows, and no blank rows after its last, so that what follows
 * comes right after; in a comparison (base not NULL: per stack of nv) with
 * its boxes' changes after it.
 */
static void
print_whole(const struct nav *nv, const struct view *frame, const struct search *match,
	    const uint64_t *base, const struct profile *p, bool utf8, struct strbuf *out)
{
	struct view v = *frame;
	uint32_t depth = nv->ops->depth(nv);
	struct layout l;

	v.x0 = 0;
	v.x1 = nv->total ? nv->total : 1;
	if (v.nr_rows > depth)
		v.nr_rows = depth ? depth : 1;
	layout_init(&l);
	nv->ops->layout(nv, &l, &v);
	print_rows(nv, &l, &v, match, utf8, out);
	if (base)
		print_box_changes(nv, &l, base, NULL, NULL, p, out);
	layout_release(&l);
}

/* A table's amount and share cells, as the TUI's Sandwich table has them. */
static void
add_amount_cells(struct strbuf *out, const struct profile *p, uint64_t w,
		 uint64_t total)
{
	struct strbuf num = STRBUF_INIT;

	profile_format_amount_short(p, w, &num);
	strbuf_addf(out, "%12s  ", num.buf);
	strbuf_reset(&num);
	profile_format_share(w, total, &num);
	strbuf_addf(out, "%6s  ", num.buf);
	strbuf_release(&num);
}

/*
 * The Sandwich view: the table (at most v->nr_rows rows), then the callers
 * and callees of the chosen function. Returns an exit status, or CLI_NEXT.
 */
static int
print_sandwich(struct model *m, const char *path, const char *function,
	       const struct view *v, bool utf8, struct strbuf *out)
{
	const struct profile *p = model_profile(m);
	const struct sandwich_rows *rows;
	const struct func_table *ft = model_funcs(m);
	const struct func_stats *st = model_func_stats(m);
	const struct func_stats *base = model_base_func_stats(m);
	const struct sandwich *sw;
	struct search_re *re = NULL;
	struct nav nv;
	struct view tv;
	uint64_t total = model_total(m);
	func_id chosen = UINT32_MAX;

	/* A comparison: what grew most first. */
	rows = model_sandwich_rows(m, base ? SANDWICH_BY_DELTA_TOTAL : SANDWICH_BY_TOTAL, false,
				   model_search_re(m) != NULL);
	if (function) {
		struct tf_error err = TF_ERROR_INIT;
		size_t offset;

		re = search_re_new(function, strlen(function), &offset, &err);
		if (!re) {
			cli_error("--function: %s", tf_error_text(&err));
			tf_error_release(&err);
			return EXIT_USAGE;
		}
	}
	for (uint32_t i = 0; i < rows->nr && chosen == UINT32_MAX; i++) {
		const char *name = ps_get(m->ps, ft->funcs[rows->rows[i]].name);

		if (!re || search_re_match(re, name, strlen(name)))
			chosen = rows->rows[i];
	}
	search_re_free(re);
	if (chosen == UINT32_MAX) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, path);
		cli_error("%s: no function%s%s", sb.buf, function ? " matches " : " has weight",
			  function ? function : "");
		strbuf_release(&sb);
		return EXIT_USAGE;
	}

	if (base)
		strbuf_addf(out, "  %10s%10s%10s%9s  %-4s  %10s%10s%10s  %s\n", "base", "total",
			    "delta", "change", "sign", "base self", "self", "delta",
			    "function  (module)");
	else
		strbuf_addf(out, "  %12s  %6s  %12s  %6s  %s\n", "total", "%", "self", "%",
			    "function  (module)");
	for (uint32_t i = 0; i < rows->nr && i < v->nr_rows; i++) {
		func_id fn = rows->rows[i];
		const char *mod = ps_get(m->ps, ft->funcs[fn].module);

		strbuf_addstr(out, fn == chosen ? "> " : "  ");
		if (base) {
			struct strbuf cell = STRBUF_INIT;

			add_change_cells(out, p, base[fn].total, st[fn].total, NULL);
			strbuf_addstr(out, "  ");
			profile_format_amount_short(p, base[fn].self, &cell);
			add_cell(out, &cell, 10);
			strbuf_reset(&cell);
			profile_format_amount_short(p, st[fn].self, &cell);
			add_cell(out, &cell, 10);
			strbuf_reset(&cell);
			diff_format_delta(&cell, p, diff_delta(base[fn].self, st[fn].self));
			add_cell(out, &cell, 10);
			strbuf_addstr(out, "  ");
			strbuf_release(&cell);
		} else {
			add_amount_cells(out, p, st[fn].total, total);
			add_amount_cells(out, p, st[fn].self, total);
		}
		text_escape_str(out, ps_get(m->ps, ft->funcs[fn].name));
		if (*mod) {
			strbuf_addstr(out, "  (");
			text_escape_str(out, model_module_name(m, ft->funcs[fn].module));
			strbuf_addch(out, ')');
		}
		strbuf_addch(out, '\n');
	}
	if (rows->nr > v->nr_rows)
		strbuf_addf(out, "  ... %u more\n", rows->nr - v->nr_rows);

	/*
	 * Each tree starts with the function's own row, as in the TUI; --height
	 * counts the rows of callers (callees) below it, so that any height
	 * shows some.
	 */
	tv = *v;
	tv.nr_rows = v->nr_rows + 1;
	sw = model_sandwich(m, chosen);
	strbuf_addstr(out, "\ncallers of ");
	text_escape_str(out, ps_get(m->ps, ft->funcs[chosen].name));
	strbuf_addch(out, '\n');
	nav_inverted(&nv, &sw->callers);
	print_whole(&nv, &tv, model_search(m), model_base_sandwich(m, chosen, false), p, utf8, out);
	strbuf_addstr(out, "\ncallees of ");
	text_escape_str(out, ps_get(m->ps, ft->funcs[chosen].name));
	strbuf_addch(out, '\n');
	sw = model_sandwich(m, chosen);
	nav_tree(&nv, &sw->callees);
	print_whole(&nv, &tv, model_search(m), model_base_sandwich(m, chosen, true), p, utf8, out);
	return CLI_NEXT;
}

/*
 * A weight of p as profile_format_weight() writes it, after "~" when p is
 * the views' scaled copy of a wide profile and w is rounded (profile.h).
 */
static void
add_weight(const struct profile *p, uint64_t w, struct strbuf *out)
{
	if (p->weight_shift && w)
		strbuf_addch(out, '~');
	profile_format_weight(p, w, out);
}

/* x as the ruler labels it: a time, or a weight when the axis has no times. */
static void
add_x(const struct timeline *tl, uint64_t x, bool utf8, struct strbuf *out)
{
	if (tl->axis.kind == CHART_X_WEIGHT)
		add_weight(tl->p, x, out);
	else
		chart_format_x(x, RULER_TIME, !utf8, out);
}

/* The ruler over v: each tick's label where the tick is. */
static void
print_ruler(const struct timeline *tl, const struct view *v, bool utf8, struct strbuf *out)
{
	size_t max = v->width / 2 + 1, n, start = out->len;
	struct ruler_tick *ticks = xmalloc(sizeof(*ticks) * max);
	uint32_t col = 0;

	n = chart_ruler(v->x0, v->x1, v->width, chart_ruler_scale(tl), !utf8, ticks, max);
	for (size_t i = 0; i < n; i++) {
		strbuf_addchars(out, ' ', ticks[i].col - col);
		strbuf_addstr(out, ticks[i].label);
		col = ticks[i].col + ticks[i].width;
	}
	if (out->len == start)
		strbuf_addch(out, ' ');
	strbuf_addch(out, '\n');
	free(ticks);
}

/*
 * Time Order: the ruler, then every lane: a line naming its thread, then
 * its rows of boxes (as many as it has, at most v->nr_rows).
 */
static void
print_lanes(struct model *m, struct layout *l, const struct view *frame, bool utf8,
	    struct strbuf *out)
{
	const struct timeline *tl = model_timeline(m);
	const struct profile_set *ps = model_view(m);

	print_ruler(tl, frame, utf8, out);
	for (uint32_t i = 0; i < tl->nr_lanes; i++) {
		const struct chart *c = &tl->lanes[i];
		const struct thread *t = &ps->threads[c->thread];
		struct view v = *frame;
		struct nav nv;
		uint64_t busy;

		strbuf_addstr(out, utf8 ? "\xe2\x94\x80\xe2\x94\x80 " : "-- ");
		/* "sh→python3" for a tid that exec'd: one lane. */
		if (!render_thread_name(out, ps, c->thread, utf8))
			strbuf_addch(out, '?');
		if (t->pid >= 0)
			strbuf_addf(out, "  pid %lld", (long long)t->pid);
		if (t->tid >= 0)
			strbuf_addf(out, "  tid %lld", (long long)t->tid);
		strbuf_addstr(out, "  weight ");
		add_weight(tl->p, c->weight, out);
		if (tl->axis.kind != CHART_X_WEIGHT) {
			busy = chart_covered(c, frame->x1) - chart_covered(c, frame->x0);
			strbuf_addstr(out, "  busy ");
			add_x(tl, busy, utf8, out);
			strbuf_addf(out, " (%.1f%% of view)",
				    100.0 * (double)busy / (double)(frame->x1 - frame->x0));
		}
		strbuf_addch(out, '\n');
		v.nr_rows = c->nr_rows < v.nr_rows ? c->nr_rows : v.nr_rows;
		nav_chart(&nv, c);
		nv.ops->layout(&nv, l, &v);
		print_rows(&nv, l, &v, model_search(m), utf8, out);
	}
}

enum dump_view { VIEW_LEFT_HEAVY, VIEW_TIME_ORDER, VIEW_SANDWICH };

int
cmd_dump(int argc, char **argv)
{
	static const char *const view_names[] = { "left-heavy", "time-order", "sandwich" };
	struct cli_common cc = { .cmd = "dump", .usage = dump_usage,
				 CLI_SYMBOLS_ON };
	struct lens_spec lens = { 0 };
	const char *zoom = NULL, *function = NULL, *path;
	unsigned long long width = 100, height = 30;
	enum dump_view view = VIEW_LEFT_HEAVY;
	bool utf8 = true, have_model = false, timed;
	struct profile_set *ps;
	struct model m;
	struct layout l;
	struct view v = { 0 };
	struct strbuf out = STRBUF_INIT;
	uint64_t total;
	struct cli_diff d = { 0 };
	bool swap = false;
	const char *base_path = NULL;
	const struct profile *base;
	int c, ret = EXIT_OK;

	layout_init(&l);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", dump_options_table, NULL)) != -1) {
		if ((ret = cli_shared_option(&cc, &lens, &d, "dump", c, argv)) == CLI_NEXT)
			continue;
		if (ret != CLI_OWN)
			goto out;
		ret = EXIT_OK;
		switch (c) {
		case OPT_VIEW:
			for (view = 0; view < ARRAY_SIZE(view_names); view++)
				if (!strcmp(optarg, view_names[view]))
					break;
			if (view == ARRAY_SIZE(view_names)) {
				ret = cli_usage_error("dump", "--view takes left-heavy, time-order "
						      "or sandwich, not '%s'", optarg);
				goto out;
			}
			break;
		case OPT_WIDTH:
			if (!cli_parse_uint(optarg, &width) || !width || width > MAX_DUMP_WIDTH) {
				ret = cli_usage_error("dump", "--width takes 1 to %d, not '%s'",
						      MAX_DUMP_WIDTH, optarg);
				goto out;
			}
			break;
		case OPT_HEIGHT:
			if (!cli_parse_uint(optarg, &height) || !height ||
			    height > MAX_DUMP_HEIGHT) {
				ret = cli_usage_error("dump", "--height takes 1 to %d, not '%s'",
						      MAX_DUMP_HEIGHT, optarg);
				goto out;
			}
			break;
		case OPT_ZOOM:
			zoom = optarg;
			break;
		case OPT_FUNCTION:
			function = optarg;
			break;
		case OPT_ASCII:
			utf8 = false;
			break;
		case OPT_SWAP:
			swap = true;
			break;
		}
	}
	if (lens.inverted && view != VIEW_LEFT_HEAVY) {
		ret = cli_usage_error("dump", "--inverted is for --view=left-heavy");
		goto out;
	}
	/* Two files are a comparison, as for the explorer. */
	d.diff = d.diff || argc - optind == 2;
	if ((ret = d.diff ? cli_diff_args(&cc, argc, argv, &base_path)
			: cli_file_arg(&cc, argc, argv)) != CLI_NEXT)
		goto out;
	if (d.flags && !d.diff) {
		ret = cli_usage_error("dump", "--ignore-module compares: give BASE and NEW");
		goto out;
	}
	path = cc.path;
	/* The panes show no source lines: no line tables to read. */
	cc.io.no_lines = true;
	if ((ret = cli_check_spec(&lens)) != CLI_NEXT)
		goto out;
	if ((ret = d.diff ? cli_load_diff(base_path, path, cc.format, &cc.io, d.flags, &ps)
			: cli_load(path, cc.format, &cc.io, &ps)) != CLI_NEXT)
		goto out;
	model_init(&m, ps);
	have_model = true;
	/* A differential folded file: "after", compared with "before". */
	model_set_profile(&m, diff_first_profile(ps));
	if ((ret = cli_apply_spec(&lens, &m, path)) != CLI_NEXT)
		goto out;
	ret = EXIT_OK;
	if ((ret = cli_check_units(ps, ps->profiles[m.lens.profile], base_path ? base_path : path,
				   path)) != CLI_NEXT)
		goto out;
	ret = EXIT_OK;
	if ((d.normalize || swap) && !model_diff_base(&m)) {
		ret = cli_usage_error("dump", "--normalize and --swap compare: give BASE and NEW, "
					      "or a folded file with two counts");
		goto out;
	}
	model_set_diff_normalize(&m, d.normalize);
	if (swap) {
		const char *t = base_path;

		model_swap_diff(&m);
		/* The files' roles swap with the profiles (one file: both are it). */
		if (t) {
			base_path = path;
			path = t;
		}
	}
	base = view == VIEW_TIME_ORDER ? NULL : model_diff_base(&m);

	total = view == VIEW_TIME_ORDER ? model_timeline(&m)->axis.total : model_total(&m);
	v.x0 = 0;
	v.x1 = total ? total : 1;
	v.width = (uint32_t)width;
	v.first_row = 0;
	v.nr_rows = (uint32_t)height;
	v.eighths = utf8;
	if (zoom && (view == VIEW_SANDWICH ||
		     !find_zoom(&m, view == VIEW_TIME_ORDER, zoom, &v.x0, &v.x1))) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, zoom);
		cli_error(view == VIEW_SANDWICH ? "%s: --zoom is for left-heavy and time-order"
						: "%s: no box on the call path %s",
			  path, sb.buf);
		strbuf_release(&sb);
		ret = EXIT_USAGE;
		goto out;
	}

	strbuf_addf(&out, "%s  ", view_names[view]);
	text_escape_str(&out, path);
	if (*ps_get(ps, model_profile(&m)->name)) {
		strbuf_addstr(&out, "  ");
		text_escape_str(&out, ps_get(ps, model_profile(&m)->name));
		/* A swapped comparison shows "base: " of a profile with no name. */
		while (out.buf[out.len - 1] == ' ')
			strbuf_setlen(&out, out.len - 1);
	}
	timed = view == VIEW_TIME_ORDER && model_timeline(&m)->axis.kind != CHART_X_WEIGHT;
	if (timed) {
		strbuf_addstr(&out, "  time ");
		add_x(model_timeline(&m), v.x0, utf8, &out);
		strbuf_addstr(&out, utf8 ? " \xe2\x80\x93 " : " - ");
		add_x(model_timeline(&m), v.x1, utf8, &out);
		strbuf_addstr(&out, " of ");
		add_x(model_timeline(&m), total, utf8, &out);
	} else {
		strbuf_addstr(&out, "  weight ");
		/* An empty lens (a transform kept nothing) has a view of 1 for layout's sake. */
		add_weight(model_profile(&m), total ? v.x1 - v.x0 : 0, &out);
		strbuf_addf(&out, " of ");
		add_weight(model_profile(&m), total, &out);
		if (view == VIEW_TIME_ORDER)
			strbuf_addstr(&out, "  untimed: x is cumulative weight");
	}
	if (m.inverted)
		strbuf_addstr(&out, "  inverted");
	if (zoom) {
		strbuf_addstr(&out, "  zoom ");
		text_escape_str(&out, zoom);
	}
	if (model_search_re(&m)) {
		const struct search_index *ix = view == VIEW_TIME_ORDER ? model_search_chart(&m)
						: m.inverted ? model_search_inverted(&m)
						: model_search_tree(&m);
		/* Time Order with times matches time: its index counts it. */
		uint64_t matched = timed ? search_index_matched(ix, 0, total)
					 : model_search_matched(&m);
		uint64_t in_view = search_index_matched(ix, v.x0, v.x1);

		strbuf_addstr(&out, "  matched ");
		if (timed)
			add_x(model_timeline(&m), matched, utf8, &out);
		else
			add_weight(model_profile(&m), matched, &out);
		if (matched && total) {
			strbuf_addstr(&out, " (");
			profile_format_share(matched, total, &out);
			strbuf_addstr(&out, " of all, ");
			if (!profile_format_share(in_view, v.x1 - v.x0, &out))
				strbuf_addstr(&out, "none");
			strbuf_addstr(&out, " of view)");
		}
	}
	strbuf_addch(&out, '\n');
	if (base) {
		uint64_t base_total = 0;
		const char *bname;

		model_base_stack_weights(&m, &base_total);
		strbuf_addstr(&out, "compared with ");
		text_escape_str(&out, base_path ? base_path : path);
		/* The base's profile by its own name, not the one the join gave it. */
		bname = ps_get(ps, base->name);
		if (!strncmp(bname, DIFF_BASE_PREFIX, strlen(DIFF_BASE_PREFIX)))
			bname += strlen(DIFF_BASE_PREFIX);
		if (*bname) {
			strbuf_addstr(&out, "  ");
			text_escape_str(&out, bname);
		}
		if (ps->diff_flags & DIFF_IGNORE_MODULE)
			strbuf_addstr(&out, "  by name");
		strbuf_addstr(&out, "  weight ");
		add_weight(model_profile(&m), base_total, &out);
		if (model_diff_normalized(&m))
			strbuf_addstr(&out, "  scaled to the shown total");
		strbuf_addstr(&out, "\ncolours: + grew (red), - shrank (blue), new (red: not in "
				    "the base), gone (blue: only in the base), = the same; change "
				    "is the delta in percent of the base\n");
		if (view == VIEW_LEFT_HEAVY && !m.inverted)
			strbuf_addstr(&out, "a box's colour is the change of its self weight, as "
					    "flamegraph.pl's; new and gone are of its total\n");
	}

	if (view == VIEW_SANDWICH) {
		ret = print_sandwich(&m, path, function, &v, utf8, &out);
		if (ret != CLI_NEXT)
			goto out;
		ret = EXIT_OK;
	} else if (view == VIEW_TIME_ORDER) {
		print_lanes(&m, &l, &v, utf8, &out);
	} else {
		struct nav nv;

		nav_left_heavy(&nv, &m);
		nv.ops->layout(&nv, &l, &v);
		print_rows(&nv, &l, &v, model_search(&m), utf8, &out);
		if (base && m.inverted) {
			print_box_changes(&nv, &l, model_base_inverted_totals(&m), NULL, NULL,
					  model_profile(&m), &out);
		} else if (base) {
			const uint64_t *base_self = model_base_stack_weights(&m, NULL);

			print_box_changes(&nv, &l, model_base_tree_totals(&m), base_self,
					  model_tree(&m)->self, model_profile(&m), &out);
			print_gone(model_tree(&m), &l, model_base_tree_totals(&m), base_self,
				   model_profile(&m), &out);
		}
	}
	fwrite(out.buf, 1, out.len, stdout);
	if (fflush(stdout)) {
		cli_error("cannot write output");
		ret = EXIT_INPUT;
	}
out:
	strbuf_release(&out);
	layout_release(&l);
	if (have_model)
		model_release(&m);
	lens_spec_release(&lens);
	return ret;
}
