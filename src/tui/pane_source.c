#include "config.h"

#include "tflame/pane_source.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/display.h"
#include "tflame/error.h"
#include "tflame/functions.h"
#include "tflame/model.h"
#include "tflame/pane.h"
#include "tflame/profile.h"
#include "tflame/render.h"
#include "tflame/source.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/* A share in the gutter: "100%", "12.5%", "<0.1%". */
#define PCT_COLS 6
/* Columns h and l scroll a long line by. */
#define HSCROLL_STEP 8

/*
 * Two ways to show the lines: the file itself (FILE_MODE), or, when it
 * cannot be read, a table of its lines that have weight. Both are a list
 * of items with a cursor: lines of the file (item i is line i + 1), or
 * rows of the table.
 */
struct source_pane {
	struct model *m;
	const struct profile_set *ps;
	const struct profile *p;
	uint32_t func;
	str_id file;               /* STR_EMPTY: the profile names none */
	struct source_lines sl;    /* every file's, for the lens at opening */
	uint64_t all;              /* what the shares are of */

	bool file_mode;
	struct source_file sf;
	struct strbuf path;        /* escaped: the file shown, or as recorded */
	struct strbuf why;         /* escaped: why the file is not shown */
	struct strbuf note;        /* a doubt about the file shown, or empty */
	uint32_t *rows;            /* table: indexes into sl.lines; owned */
	uint32_t nr_rows;

	uint32_t nr_items;
	uint32_t cur, top;         /* items */
	uint32_t target;           /* the item to put in view at the first draw */
	uint32_t decl_line;        /* the function's declaration in the file; 0: none */
	uint32_t hot_line;         /* its hottest line in the file; 0: none */
	bool placed;               /* the first draw has placed it */
	unsigned hscroll;          /* columns of code scrolled off to the left */
	int body_top, body_height; /* where the last draw put the items */
};

/* ------------------------------------------------------------ the lines */

/* The weight of line n (1-based) of the file shown, or NULL. */
static const struct source_line *
line_weight(const struct source_pane *sp, uint32_t n)
{
	return source_lines_find(&sp->sl, sp->file, n);
}

/* The entry of item i, or NULL for a line with no weight. */
static const struct source_line *
item_weight(const struct source_pane *sp, uint32_t i)
{
	if (sp->file_mode)
		return line_weight(sp, i + 1);
	return i < sp->nr_rows ? &sp->sl.lines[sp->rows[i]] : NULL;
}

static bool
is_func_line(const struct source_pane *sp, const struct source_line *l)
{
	return l->frame != FRAME_NONE && model_funcs(sp->m)->frame_func[l->frame] == sp->func;
}

/*
 * The line that declares the function in the file shown: the frame's,
 * when symbols or the format give a frame its function's line (a box of
 * Sandwich's table: any frame of the function that has one); 0 if none.
 */
static uint32_t
decl_line(const struct source_pane *sp, frame_id frame)
{
	const uint32_t *frame_func = model_funcs(sp->m)->frame_func;

	if (frame != FRAME_NONE) {
		const struct frame *f = ps_frame(sp->ps, frame);

		return (f->flags & FRAME_HAS_LINE) && f->file == sp->file ? f->line : 0;
	}
	for (frame_id i = 0; i < sp->ps->nr_frames; i++) {
		const struct frame *f = ps_frame(sp->ps, i);

		if (frame_func[i] == sp->func && (f->flags & FRAME_HAS_LINE) &&
		    f->file == sp->file && f->line)
			return f->line;
	}
	return 0;
}

/*
 * The line to open on: the frame's own when its samples are there (a
 * frame per line); else the function's hottest line here, since a
 * frame's line is most often its function's declaration, which has no
 * samples; else the declaration; else the file's hottest.
 */
static uint32_t
pick_line(struct source_pane *sp, frame_id frame)
{
	const struct source_line *best = NULL, *best_func = NULL;
	uint32_t nr, first = source_lines_of_file(&sp->sl, sp->file, &nr);

	sp->decl_line = decl_line(sp, frame);
	for (uint32_t i = first; i < first + nr; i++) {
		const struct source_line *l = &sp->sl.lines[i];

		if (!best || l->total > best->total)
			best = l;
		if (is_func_line(sp, l) && (!best_func || l->total > best_func->total))
			best_func = l;
	}
	sp->hot_line = best_func ? best_func->line : 0;
	if (frame != FRAME_NONE) {
		const struct frame *f = ps_frame(sp->ps, frame);
		const struct source_line *l;

		if ((f->flags & FRAME_HAS_LINE) && f->file == sp->file && f->line &&
		    (l = line_weight(sp, f->line)) && is_func_line(sp, l))
			return f->line;
	}
	if (sp->hot_line)
		return sp->hot_line;
	if (sp->decl_line)
		return sp->decl_line;
	return best ? best->line : 1;
}

/* The table's rows: the file's weighed lines, or, with no file, the function's. */
static void
fill_rows(struct source_pane *sp, uint32_t target_line)
{
	uint32_t nr, first;

	sp->rows = xmalloc(sizeof(*sp->rows) * ((size_t)sp->sl.nr + 1));
	if (sp->file != STR_EMPTY) {
		first = source_lines_of_file(&sp->sl, sp->file, &nr);
		for (uint32_t i = 0; i < nr; i++)
			sp->rows[sp->nr_rows++] = first + i;
	} else {
		for (uint32_t i = 0; i < sp->sl.nr; i++)
			if (is_func_line(sp, &sp->sl.lines[i]))
				sp->rows[sp->nr_rows++] = i;
	}
	for (uint32_t i = 0; i < sp->nr_rows; i++)
		if (sp->sl.lines[sp->rows[i]].line == target_line)
			sp->target = i;
}

struct source_pane *
source_pane_open(struct model *m, const struct source_search *where, uint32_t func,
		 frame_id frame)
{
	struct source_pane *sp = xcalloc(1, sizeof(*sp));
	struct sample_filter filter = model_filter(m);
	struct tf_error err = TF_ERROR_INIT;
	const struct frame *f = frame != FRAME_NONE ? ps_frame(m->ps, frame) : NULL;
	uint32_t target;

	sp->m = m;
	sp->ps = m->ps;
	sp->p = model_profile(m);
	sp->func = func;
	strbuf_init(&sp->path, 0);
	strbuf_init(&sp->why, 0);
	strbuf_init(&sp->note, 0);
	source_lines_compute(&sp->sl, sp->ps, sp->p, &filter, SOURCE_ALL_FILES);
	sp->all = sp->sl.all;

	/* The box's own file when it has a line, else where the function's weight is. */
	if (f && (f->flags & FRAME_HAS_LINE) && f->file != STR_EMPTY)
		sp->file = f->file;
	else
		sp->file = source_func_file(&sp->sl, sp->ps, model_funcs(m)->frame_func, func);
	target = pick_line(sp, frame);

	if (sp->file == STR_EMPTY) {
		strbuf_addstr(&sp->why, "no source file recorded for this function");
	} else if (source_file_load(&sp->sf, ps_get(sp->ps, sp->file), where, &err) == 0) {
		uint32_t nr, first = source_lines_of_file(&sp->sl, sp->file, &nr);

		sp->file_mode = true;
		text_escape_str(&sp->path, sp->sf.path);
		sp->nr_items = sp->sf.nr_lines;
		/* Weight past the end: the profile was of another version of it. */
		if (nr && sp->sl.lines[first + nr - 1].line > sp->nr_items)
			strbuf_addf(&sp->note,
				    "weight on line %u of a file of %u: another version?",
				    sp->sl.lines[first + nr - 1].line, sp->nr_items);
		sp->target = target > sp->nr_items ? 0 : target - 1;
	} else {
		text_escape_str(&sp->why, tf_error_text(&err));
	}
	tf_error_release(&err);
	if (!sp->file_mode) {
		if (sp->file != STR_EMPTY)
			text_escape_str(&sp->path, ps_get(sp->ps, sp->file));
		fill_rows(sp, target);
		sp->nr_items = sp->nr_rows;
	}
	sp->cur = sp->target;
	return sp;
}

void
source_pane_free(struct source_pane *sp)
{
	if (!sp)
		return;
	source_lines_release(&sp->sl);
	source_file_release(&sp->sf);
	strbuf_release(&sp->path);
	strbuf_release(&sp->why);
	strbuf_release(&sp->note);
	free(sp->rows);
	free(sp);
}

/* -------------------------------------------------------------- moving */

static uint32_t
body_rows(const struct source_pane *sp)
{
	return sp->body_height > 0 ? (uint32_t)sp->body_height : 1;
}

/* Keep the cursor on screen. */
static void
follow(struct source_pane *sp)
{
	if (sp->cur < sp->top)
		sp->top = sp->cur;
	else if (sp->cur >= sp->top + body_rows(sp))
		sp->top = sp->cur - body_rows(sp) + 1;
}

static void
move_to(struct source_pane *sp, int64_t i)
{
	if (!sp->nr_items)
		return;
	if (i < 0)
		i = 0;
	if (i >= (int64_t)sp->nr_items)
		i = (int64_t)sp->nr_items - 1;
	sp->cur = (uint32_t)i;
	follow(sp);
}

/* n, N: the next (dir 1) or previous line with weight. */
static void
find_weighed(struct source_pane *sp, int dir, struct strbuf *msg)
{
	uint32_t nr, first;

	if (!sp->file_mode) {
		move_to(sp, (int64_t)sp->cur + dir);
		return;
	}
	first = source_lines_of_file(&sp->sl, sp->file, &nr);
	if (dir > 0) {
		for (uint32_t i = first; i < first + nr; i++)
			if (sp->sl.lines[i].line > sp->cur + 1) {
				move_to(sp, sp->sl.lines[i].line - 1);
				return;
			}
	} else {
		for (uint32_t i = first + nr; i-- > first;)
			if (sp->sl.lines[i].line < sp->cur + 1) {
				move_to(sp, sp->sl.lines[i].line - 1);
				return;
			}
	}
	if (!nr)
		strbuf_addstr(msg, "no line of this file has weight");
	else
		strbuf_addstr(msg, dir > 0 ? "no line with weight below"
					   : "no line with weight above");
}

/* d: to the declaration, and back to the hottest line. */
static void
to_decl(struct source_pane *sp, struct strbuf *msg)
{
	uint32_t to;

	if (!sp->file_mode) {
		strbuf_addstr(msg, "no file shown: the list has the lines with weight only");
		return;
	}
	if (!sp->decl_line || sp->decl_line > sp->nr_items) {
		strbuf_addstr(msg, "the profile does not say where the function is declared");
		return;
	}
	to = sp->cur + 1 == sp->decl_line && sp->hot_line ? sp->hot_line : sp->decl_line;
	move_to(sp, (int64_t)to - 1);
	strbuf_addf(msg, "line %u: %s", to,
		    to == sp->decl_line ? "the declaration" : "the function's hottest line");
}

bool
source_pane_request(struct source_pane *sp, enum request req, const struct pane_input *in,
		    struct strbuf *msg)
{
	int64_t page = body_rows(sp) > 1 ? body_rows(sp) - 1 : 1;

	switch (req) {
	case REQ_BACK:
	case REQ_QUIT:
	case REQ_SOURCE:
		return false;
	case REQ_MOVE_UP:
		move_to(sp, (int64_t)sp->cur - 1);
		break;
	case REQ_MOVE_DOWN:
		move_to(sp, (int64_t)sp->cur + 1);
		break;
	case REQ_PAGE_UP:
		move_to(sp, (int64_t)sp->cur - page);
		break;
	case REQ_PAGE_DOWN:
		move_to(sp, (int64_t)sp->cur + page);
		break;
	case REQ_TOP:
		move_to(sp, 0);
		break;
	case REQ_BOTTOM:
		move_to(sp, (int64_t)sp->nr_items - 1);
		break;
	case REQ_FIND_NEXT:
	case REQ_FIND_PREV:
		find_weighed(sp, req == REQ_FIND_NEXT ? 1 : -1, msg);
		break;
	case REQ_SOURCE_DECL:
		to_decl(sp, msg);
		break;
	case REQ_MOVE_LEFT:
	case REQ_PAN_LEFT:
		sp->hscroll = sp->hscroll > HSCROLL_STEP ? sp->hscroll - HSCROLL_STEP : 0;
		break;
	case REQ_MOVE_RIGHT:
	case REQ_PAN_RIGHT:
		if (sp->file_mode)
			sp->hscroll += HSCROLL_STEP;
		break;
	case REQ_WHEEL_UP:
	case REQ_WHEEL_DOWN:
		if (req == REQ_WHEEL_UP)
			sp->top = sp->top > 3 ? sp->top - 3 : 0;
		else if (sp->top + body_rows(sp) < sp->nr_items)
			sp->top += 3;
		/* The cursor stays where it is if it is still on screen. */
		if (sp->cur < sp->top)
			sp->cur = sp->top;
		else if (sp->cur >= sp->top + body_rows(sp))
			sp->cur = sp->top + body_rows(sp) - 1;
		if (sp->cur >= sp->nr_items)
			sp->cur = sp->nr_items ? sp->nr_items - 1 : 0;
		break;
	case REQ_CLICK:
	case REQ_CLICK_ZOOM:
		if (in && in->y >= sp->body_top && in->y < sp->body_top + sp->body_height)
			move_to(sp, (int64_t)sp->top + (in->y - sp->body_top));
		break;
	default:
		strbuf_addstr(msg, "in the source: j k n N move, h l scroll, Esc goes back");
		break;
	}
	return true;
}

/* --------------------------------------------------------------- drawing */

/* A share for the gutter, right-aligned in PCT_COLS; blank for nothing. */
static void
add_share(struct strbuf *out, uint64_t part, uint64_t all)
{
	struct strbuf sb = STRBUF_INIT;

	if (part)
		profile_format_share(part, all, &sb);
	strbuf_addf(out, "%*s", PCT_COLS, sb.buf);
	strbuf_release(&sb);
}

/* " (12.5%)" after an amount, nothing for nothing. */
static void
add_pct(struct strbuf *out, uint64_t part, uint64_t all)
{
	if (!part || !all)
		return;
	strbuf_addstr(out, " (");
	profile_format_share(part, all, out);
	strbuf_addch(out, ')');
}

/* The byte offset in s (escaped text) after the first cols columns. */
static size_t
skip_cols(const char *s, size_t len, unsigned cols)
{
	size_t i = 0;
	unsigned w = 0;

	while (i < len && w < cols) {
		uint32_t cp;
		size_t n = text_utf8_decode((const unsigned char *)s + i, len - i, &cp);

		if (!n)
			n = 1;
		w += render_width(s + i, n);
		i += n;
	}
	return i;
}

/* Fill the rest of the row y from column x with spaces in attr. */
static void
fill_row(int y, attr_t attr)
{
	int cy, cx;

	getyx(stdscr, cy, cx);
	(void)cy;
	attrset(attr);
	for (int x = cx; x < COLS; x++)
		mvaddch(y, x, ' ');
}

static void
draw_title(struct source_pane *sp, const struct display *d)
{
	struct strbuf left = STRBUF_INIT, right = STRBUF_INIT, label = STRBUF_INIT;
	const struct func *fn = &model_funcs(sp->m)->funcs[sp->func];
	unsigned width = (unsigned)COLS, rw;

	move(0, 0);
	attrset(display_attr(d, DISPLAY_TAB_BAR));
	for (int i = 0; i < COLS; i++)
		addch(' ');
	strbuf_addstr(&left, "Source ");
	if (sp->path.len)
		strbuf_add(&left, sp->path.buf, sp->path.len);
	else
		strbuf_addstr(&left, "(no file)");
	if (sp->file_mode)
		strbuf_addf(&right, "line %u/%u  ", sp->cur + 1, sp->nr_items);
	text_escape_str(&right, ps_get(sp->ps, fn->name));
	/* The function gets what the path leaves, down to a third of the bar. */
	rw = render_width(right.buf, right.len);
	if (rw > width / 3)
		rw = width / 3;
	strbuf_reset(&label);
	render_cut(&label, right.buf, right.len, rw, d->utf8);
	rw = render_width(label.buf, label.len);
	if (rw + 2 < width) {
		attrset(display_attr(d, DISPLAY_TAB_INFO));
		mvaddstr(0, (int)(width - rw - 1), "");
		display_addstr(d, label.buf, label.len);
	}
	strbuf_reset(&label);
	/* A long path keeps its file name. */
	render_cut_middle(&label, left.buf, left.len, width > rw + 4 ? width - rw - 4 : 1, d->utf8);
	attrset(display_attr(d, DISPLAY_TAB_BAR) | A_BOLD);
	mvaddstr(0, 1, "");
	display_addstr(d, label.buf, label.len);
	attrset(A_NORMAL);
	strbuf_release(&left);
	strbuf_release(&right);
	strbuf_release(&label);
}

/* The bottom line of the page: the item under the cursor, in amounts. */
static void
draw_cursor_info(struct source_pane *sp, const struct display *d, int y)
{
	const struct source_line *l = item_weight(sp, sp->cur);
	struct strbuf sb = STRBUF_INIT, label = STRBUF_INIT;
	uint32_t line = sp->file_mode ? sp->cur + 1 : l ? l->line : 0;

	move(y, 0);
	clrtoeol();
	if (!sp->nr_items) {
		strbuf_release(&sb);
		return;
	}
	if (sp->file_mode || !l)
		strbuf_addf(&sb, "line %u: ", line);
	else {
		text_escape_str(&sb, ps_get(sp->ps, l->file));
		strbuf_addf(&sb, ":%u: ", l->line);
	}
	if (!l) {
		strbuf_addstr(&sb, "no samples");
	} else {
		strbuf_addstr(&sb, "self ");
		profile_format_amount(sp->p, l->self, &sb);
		add_pct(&sb, l->self, sp->all);
		strbuf_addstr(&sb, "  total ");
		profile_format_amount(sp->p, l->total, &sb);
		add_pct(&sb, l->total, sp->all);
		strbuf_addstr(&sb, "  in ");
		text_escape_str(&sb, ps_get(sp->ps, ps_frame(sp->ps, l->frame)->name));
	}
	render_cut(&label, sb.buf, sb.len, COLS > 2 ? (unsigned)COLS - 1 : 1, d->utf8);
	attrset(display_attr(d, DISPLAY_TAB_BAR));
	display_addstr(d, label.buf, label.len);
	fill_row(y, display_attr(d, DISPLAY_TAB_BAR));
	attrset(A_NORMAL);
	strbuf_release(&sb);
	strbuf_release(&label);
}

/* Place the first view: the target a third of the way down. */
static void
place(struct source_pane *sp)
{
	uint32_t third = body_rows(sp) / 3;

	if (sp->placed)
		return;
	sp->placed = true;
	sp->top = sp->target > third ? sp->target - third : 0;
	if (sp->top + body_rows(sp) > sp->nr_items)
		sp->top = sp->nr_items > body_rows(sp) ? sp->nr_items - body_rows(sp) : 0;
	follow(sp);
}

static void
draw_file(struct source_pane *sp, const struct display *d)
{
	struct strbuf row = STRBUF_INIT, code = STRBUF_INIT, label = STRBUF_INIT;
	unsigned num_w = 4;
	const char *self_mark = d->utf8 ? "\xe2\x97\x8f" : "*"; /* ● */
	const char *total_mark = d->utf8 ? "\xe2\x97\x8b" : "+"; /* ○ */

	for (uint32_t n = sp->nr_items; n >= 10000; n /= 10)
		num_w++;
	/* The header. */
	strbuf_addf(&row, "%*s %*s %*s  ", PCT_COLS, "self", PCT_COLS, "total", num_w, "line");
	move(1, 0);
	clrtoeol();
	attrset(display_attr(d, DISPLAY_LABEL) | A_BOLD);
	render_cut(&label, row.buf, row.len, (unsigned)COLS, d->utf8);
	display_addstr(d, label.buf, label.len);
	if (sp->note.len && (unsigned)COLS > label.len + 2) {
		strbuf_reset(&label);
		render_cut(&label, sp->note.buf, sp->note.len, (unsigned)COLS - (unsigned)row.len - 1,
		    d->utf8);
		attrset(display_attr(d, DISPLAY_ERROR));
		display_addstr(d, label.buf, label.len);
	}
	if (!sp->nr_items) {
		attrset(display_attr(d, DISPLAY_LABEL));
		mvaddstr(2, 1, "(the file is empty)");
	}
	for (int i = 0; i < sp->body_height; i++) {
		uint32_t item = sp->top + (uint32_t)i;
		const struct source_line *l;
		unsigned gutter, room;
		size_t skip;
		attr_t num_attr, code_attr;
		int y = sp->body_top + i;

		move(y, 0);
		attrset(A_NORMAL);
		clrtoeol();
		if (item >= sp->nr_items)
			continue;
		l = line_weight(sp, item + 1);
		strbuf_reset(&row);
		add_share(&row, l ? l->self : 0, sp->all);
		strbuf_addch(&row, ' ');
		add_share(&row, l ? l->total : 0, sp->all);
		strbuf_addf(&row, " %*u", num_w, item + 1);
		strbuf_addstr(&row, !l ? " " : l->self ? self_mark : total_mark);
		strbuf_addch(&row, ' ');
		gutter = render_width(row.buf, row.len);

		num_attr = l ? display_attr(d, DISPLAY_MESSAGE) : display_attr(d, DISPLAY_LABEL);
		code_attr = l ? display_attr(d, DISPLAY_NAME) : A_NORMAL;
		if (item == sp->cur)
			num_attr = code_attr = display_attr(d, DISPLAY_ROW_SELECTED);
		attrset(num_attr);
		strbuf_reset(&label);
		render_cut(&label, row.buf, row.len, (unsigned)COLS, d->utf8);
		display_addstr(d, label.buf, label.len);
		if (gutter >= (unsigned)COLS)
			continue;
		room = (unsigned)COLS - gutter;
		strbuf_reset(&code);
		source_file_line(&sp->sf, item + 1, &code);
		skip = skip_cols(code.buf, code.len, sp->hscroll);
		strbuf_reset(&label);
		render_cut(&label, code.buf + skip, code.len - skip, room, d->utf8);
		attrset(code_attr);
		display_addstr(d, label.buf, label.len);
		if (item == sp->cur)
			fill_row(y, code_attr);
	}
	attrset(A_NORMAL);
	strbuf_release(&row);
	strbuf_release(&code);
	strbuf_release(&label);
}

static void
draw_table(struct source_pane *sp, const struct display *d)
{
	struct strbuf row = STRBUF_INIT, label = STRBUF_INIT;
	int y = 1;

	move(y, 0);
	clrtoeol();
	attrset(display_attr(d, DISPLAY_ERROR));
	strbuf_addstr(&row, "cannot show the source: ");
	strbuf_add(&row, sp->why.buf, sp->why.len);
	render_cut(&label, row.buf, row.len, (unsigned)COLS - 1, d->utf8);
	mvaddstr(y, 1, "");
	display_addstr(d, label.buf, label.len);
	attrset(display_attr(d, DISPLAY_LABEL));
	strbuf_reset(&row);
	if (sp->file != STR_EMPTY)
		strbuf_addstr(&row, "--source-dir=DIR says where to look. ");
	strbuf_addstr(&row, sp->nr_rows ? "The lines with weight:" : "No line with weight.");
	strbuf_reset(&label);
	render_cut(&label, row.buf, row.len, (unsigned)COLS - 1, d->utf8);
	mvaddstr(y + 1, 1, "");
	display_addstr(d, label.buf, label.len);

	if (!sp->nr_rows) {
		attrset(A_NORMAL);
		strbuf_release(&row);
		strbuf_release(&label);
		return;
	}
	strbuf_reset(&row);
	strbuf_addf(&row, "%*s %*s  file:line  function", PCT_COLS, "self", PCT_COLS,
		    "total");
	strbuf_reset(&label);
	render_cut(&label, row.buf, row.len, (unsigned)COLS, d->utf8);
	move(y + 3, 0);
	attrset(display_attr(d, DISPLAY_LABEL) | A_BOLD);
	display_addstr(d, label.buf, label.len);
	for (int i = 0; i < sp->body_height; i++) {
		uint32_t item = sp->top + (uint32_t)i;
		const struct source_line *l;
		int ry = sp->body_top + i;
		attr_t attr;

		move(ry, 0);
		attrset(A_NORMAL);
		clrtoeol();
		if (item >= sp->nr_rows)
			continue;
		l = &sp->sl.lines[sp->rows[item]];
		strbuf_reset(&row);
		add_share(&row, l->self, sp->all);
		strbuf_addch(&row, ' ');
		add_share(&row, l->total, sp->all);
		strbuf_addstr(&row, "  ");
		text_escape_str(&row, ps_get(sp->ps, l->file));
		strbuf_addf(&row, ":%u  ", l->line);
		text_escape_str(&row, ps_get(sp->ps, ps_frame(sp->ps, l->frame)->name));
		strbuf_reset(&label);
		render_cut(&label, row.buf, row.len, (unsigned)COLS, d->utf8);
		attr = item == sp->cur ? display_attr(d, DISPLAY_ROW_SELECTED) : A_NORMAL;
		attrset(attr);
		display_addstr(d, label.buf, label.len);
		if (item == sp->cur)
			fill_row(ry, attr);
	}
	attrset(A_NORMAL);
	strbuf_release(&row);
	strbuf_release(&label);
}

void
source_pane_draw(struct source_pane *sp, const struct display *d)
{
	for (int y = 0; y < LINES - 1; y++) {
		move(y, 0);
		clrtoeol();
	}
	/*
	 * The title, the header (or the reason, a hint, a gap and the
	 * header), the items, and the line about the cursor's.
	 */
	sp->body_top = sp->file_mode ? 2 : 5;
	sp->body_height = LINES - 2 - sp->body_top;
	if (sp->body_height < 1)
		sp->body_height = 1;
	place(sp);
	follow(sp);
	draw_title(sp, d);
	if (sp->file_mode)
		draw_file(sp, d);
	else
		draw_table(sp, d);
	draw_cursor_info(sp, d, LINES - 2);
}
