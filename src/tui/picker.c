#include "config.h"

#include "tflame/picker.h"

#include <curses.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/display.h"
#include "tflame/keys.h"
#include "tflame/lanes.h"
#include "tflame/model.h"
#include "tflame/profile.h"
#include "tflame/render.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/* Columns right of the name: tick box, pid, tid, weight and share. */
#define TICK_COLS 5
#define ID_COLS 9
#define PCT_COLS 7
/* The sparkline: this many columns at most, none below MIN_SPARK. */
#define MAX_SPARK 32
#define MIN_SPARK 6

/* ------------------------------------------------------------- the list */

/* Whether hay holds needle, ASCII letters in either case. */
static bool
contains_caseless(const char *hay, const char *needle, size_t len)
{
	size_t n = strlen(hay);

	for (size_t i = 0; i + len <= n; i++) {
		size_t j = 0;

		while (j < len) {
			char a = hay[i + j], b = needle[j];

			if (a >= 'A' && a <= 'Z')
				a = (char)(a - 'A' + 'a');
			if (b >= 'A' && b <= 'Z')
				b = (char)(b - 'A' + 'a');
			if (a != b)
				break;
			j++;
		}
		if (j == len)
			return true;
	}
	return false;
}

/* Whether a name, pid or tid passes the filter (an empty one passes all). */
static bool
passes(const struct thread_picker *tp, const char *comm, int64_t pid, int64_t tid)
{
	const struct strbuf *f = &tp->filter.text;
	char num[24];

	if (!f->len || contains_caseless(comm, f->buf, f->len))
		return true;
	snprintf(num, sizeof(num), "%lld", (long long)pid);
	if (pid >= 0 && contains_caseless(num, f->buf, f->len))
		return true;
	snprintf(num, sizeof(num), "%lld", (long long)tid);
	return tid >= 0 && contains_caseless(num, f->buf, f->len);
}

static void
add_row(struct thread_picker *tp, bool proc, uint32_t index)
{
	ALLOC_GROW(tp->rows, tp->nr_rows, tp->alloc_rows);
	tp->rows[tp->nr_rows++] = (struct picker_row){ proc, index };
}

/*
 * The lines the filter keeps: a process when it or one of its threads
 * passes, and under it the threads that pass, or all of them when the
 * process itself does.
 */
static void
filter_rows(struct thread_picker *tp, struct model *m)
{
	const struct thread_table *tt = model_thread_weights(m);
	const struct profile_set *ps = m->ps;
	struct strbuf names = STRBUF_INIT;

	tp->nr_rows = 0;
	for (uint32_t i = 0; i < tt->nr_procs; i++) {
		const struct process_weight *pw = &tt->procs[i];
		bool whole = pw->pid >= 0 && passes(tp, ps_get(ps, pw->comm), pw->pid, -1);
		uint32_t at = tp->nr_rows;
		bool any = false;

		/* Threads of no known process stand alone: no line over them. */
		if (pw->pid >= 0)
			add_row(tp, true, i);
		for (uint32_t j = pw->first; j < pw->first + pw->nr; j++) {
			const struct thread *t = &ps->threads[tt->threads[j].thread];

			/* By any of its names: "sh" finds the sh that became python3. */
			strbuf_reset(&names);
			profile_thread_names(ps, tt->threads[j].thread, "\n", &names);
			if (whole || passes(tp, names.buf, -1, t->tid)) {
				add_row(tp, false, j);
				any = true;
			}
		}
		if (!any && !whole)
			tp->nr_rows = at;
	}
	if (tp->sel >= tp->nr_rows)
		tp->sel = tp->nr_rows ? tp->nr_rows - 1 : 0;
	strbuf_release(&names);
}

void
picker_open(struct thread_picker *tp, struct model *m)
{
	uint32_t n = m->ps->nr_threads;

	memset(tp, 0, sizeof(*tp));
	tp->mask = xmalloc(sizeof(*tp->mask) * ((size_t)n + 1));
	for (uint32_t i = 0; i < n; i++)
		tp->mask[i] = !m->lens.threads || m->lens.threads[i];
	prompt_init(&tp->filter, "filter: ");
	filter_rows(tp, m);
}

void
picker_close(struct thread_picker *tp)
{
	free(tp->mask);
	free(tp->rows);
	free(tp->act);
	prompt_release(&tp->filter);
	memset(tp, 0, sizeof(*tp));
}

const bool *
picker_mask(const struct thread_picker *tp)
{
	return tp->mask;
}

/* ---------------------------------------------------------------- ticks */

/* How many of process i's threads are ticked. */
static uint32_t
ticked_in(const struct thread_picker *tp, const struct thread_table *tt, uint32_t i)
{
	const struct process_weight *pw = &tt->procs[i];
	uint32_t n = 0;

	for (uint32_t j = pw->first; j < pw->first + pw->nr; j++)
		n += tp->mask[tt->threads[j].thread];
	return n;
}

/* Space: a thread flips; a process ticks all its threads, or unticks them if all are. */
static void
toggle_row(struct thread_picker *tp, struct model *m, uint32_t row)
{
	const struct thread_table *tt = model_thread_weights(m);
	const struct picker_row *r = &tp->rows[row];

	if (!r->proc) {
		thread_id t = tt->threads[r->index].thread;

		tp->mask[t] = !tp->mask[t];
		return;
	} else {
		const struct process_weight *pw = &tt->procs[r->index];
		bool tick = ticked_in(tp, tt, r->index) < pw->nr;

		for (uint32_t j = pw->first; j < pw->first + pw->nr; j++)
			tp->mask[tt->threads[j].thread] = tick;
	}
}

/*
 * The actions on the threads the filter shows: tick, untick, only
 * (they ticked, every other thread unticked) and invert. The message
 * says what changed.
 */
static void
act_on_shown(struct thread_picker *tp, struct model *m, enum request req, struct strbuf *msg)
{
	const struct thread_table *tt = model_thread_weights(m);
	uint32_t shown = 0, changed = 0, others = 0;
	bool *is_shown = xcalloc((size_t)m->ps->nr_threads + 1, sizeof(*is_shown));

	for (uint32_t i = 0; i < tp->nr_rows; i++) {
		thread_id t;
		bool was, now;

		if (tp->rows[i].proc)
			continue;
		t = tt->threads[tp->rows[i].index].thread;
		is_shown[t] = true;
		was = tp->mask[t];
		now = req == REQ_PICKER_UNTICK_SHOWN   ? false
		      : req == REQ_PICKER_INVERT_SHOWN ? !was
						       : true;
		tp->mask[t] = now;
		changed += now != was;
		shown++;
	}
	/* Only: every thread of the profile the filter hides goes. */
	for (uint32_t i = 0; req == REQ_PICKER_ONLY_SHOWN && i < tt->nr_threads; i++) {
		thread_id t = tt->threads[i].thread;

		if (!is_shown[t] && tp->mask[t]) {
			tp->mask[t] = false;
			others++;
		}
	}
	free(is_shown);
	switch (req) {
	case REQ_PICKER_UNTICK_SHOWN:
		strbuf_addf(msg, "unticked %u of %u", changed, shown);
		break;
	case REQ_PICKER_INVERT_SHOWN:
		strbuf_addf(msg, "inverted %u", shown);
		break;
	case REQ_PICKER_ONLY_SHOWN:
		strbuf_addf(msg, "only the %u shown: ticked %u, unticked %u other%s", shown,
			    changed, others, others == 1 ? "" : "s");
		return;
	default:
		strbuf_addf(msg, "ticked %u of %u", changed, shown);
		break;
	}
	strbuf_addf(msg, " thread%s shown", shown == 1 ? "" : "s");
	if (tp->filter.text.len)
		strbuf_addstr(msg, " by the filter");
}

static uint32_t
ticked_threads(const struct thread_picker *tp, const struct thread_table *tt)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < tt->nr_threads; i++)
		n += tp->mask[tt->threads[i].thread];
	return n;
}

/* ----------------------------------------------------------------- keys */

static uint32_t
list_rows(const struct thread_picker *tp)
{
	return tp->list_height > 0 ? (uint32_t)tp->list_height : 1;
}

static void
move_sel(struct thread_picker *tp, int64_t by)
{
	int64_t s = (int64_t)tp->sel + by;

	if (!tp->nr_rows)
		return;
	if (s < 0)
		s = 0;
	if (s >= (int64_t)tp->nr_rows)
		s = tp->nr_rows - 1;
	tp->sel = (uint32_t)s;
}

enum picker_result
picker_request(struct thread_picker *tp, struct model *m, enum request req, int y,
	       const struct keys *k, struct strbuf *msg)
{
	const struct thread_table *tt = model_thread_weights(m);
	int64_t page = list_rows(tp) > 1 ? list_rows(tp) - 1 : 1;

	switch (req) {
	case REQ_PICKER_UP:
		move_sel(tp, -1);
		break;
	case REQ_PICKER_DOWN:
		move_sel(tp, 1);
		break;
	case REQ_PICKER_PAGE_UP:
		move_sel(tp, -page);
		break;
	case REQ_PICKER_PAGE_DOWN:
		move_sel(tp, page);
		break;
	case REQ_PICKER_SCROLL_UP:
		move_sel(tp, -3);
		break;
	case REQ_PICKER_SCROLL_DOWN:
		move_sel(tp, 3);
		break;
	case REQ_PICKER_TICK:
		/* A click ticks the line under the pointer; a key, the selected one. */
		if (y >= 0) {
			if (y < tp->list_top || y >= tp->list_top + tp->list_height ||
			    tp->top + (uint32_t)(y - tp->list_top) >= tp->nr_rows)
				break;
			tp->sel = tp->top + (uint32_t)(y - tp->list_top);
		}
		if (tp->nr_rows)
			toggle_row(tp, m, tp->sel);
		break;
	case REQ_PICKER_TICK_SHOWN:
	case REQ_PICKER_UNTICK_SHOWN:
	case REQ_PICKER_ONLY_SHOWN:
	case REQ_PICKER_INVERT_SHOWN:
		act_on_shown(tp, m, req, msg);
		break;
	case REQ_PICKER_APPLY:
		if (!ticked_threads(tp, tt)) {
			strbuf_addstr(msg, "no thread ticked: ");
			keys_first_name(msg, k, KEYMAP_PICKER, REQ_PICKER_TICK, false);
			strbuf_addstr(msg, " ticks one, ");
			keys_first_name(msg, k, KEYMAP_PICKER, REQ_PICKER_CANCEL, false);
			strbuf_addstr(msg, " cancels");
			break;
		}
		return PICKER_APPLY;
	case REQ_PICKER_CANCEL:
		return PICKER_CANCEL;
	default:
		break;
	}
	return PICKER_STAY;
}

enum picker_result
picker_type(struct thread_picker *tp, struct model *m, int key)
{
	switch (prompt_key(&tp->filter, key)) {
	case PROMPT_CANCEL:
		return PICKER_CANCEL;
	case PROMPT_EDITED:
		/* A new filter: the first line it keeps. */
		tp->sel = tp->top = 0;
		filter_rows(tp, m);
		break;
	case PROMPT_ENTER:
	case PROMPT_IGNORED:
		break;
	}
	return PICKER_STAY;
}

/* --------------------------------------------------------------- drawing */

static void
add_right(struct strbuf *out, const char *s, unsigned w)
{
	unsigned sw = render_width(s, strlen(s));

	strbuf_addchars(out, ' ', sw < w ? w - sw : 0);
	strbuf_addstr(out, s);
}

/*
 * Two blanks and the row's sparkline: a thread's own, a process's the sum
 * of its threads' (full where they kept a CPU busy between them).
 */
static void
add_spark(struct strbuf *out, const struct thread_picker *tp, const struct thread_table *tt,
	  const struct picker_row *r, bool utf8)
{
	uint32_t n = tp->spark_cols, first = r->index, nr = 1;
	float sum[MAX_SPARK];

	if (r->proc) {
		first = tt->procs[r->index].first;
		nr = tt->procs[r->index].nr;
	}
	for (uint32_t c = 0; c < n; c++) {
		sum[c] = 0;
		for (uint32_t j = first; j < first + nr; j++)
			sum[c] += tp->act[(size_t)j * n + c];
	}
	strbuf_addstr(out, "  ");
	lanes_sparkline(out, sum, n, utf8);
}

/* One line of the list, name cut to name_w, in width columns. */
static void
format_row(struct strbuf *out, const struct thread_picker *tp, struct model *m,
	   const struct picker_row *r, unsigned name_w, unsigned weight_w, bool utf8)
{
	const struct thread_table *tt = model_thread_weights(m);
	const struct profile_set *ps = m->ps;
	const struct profile *p = model_profile(m);
	struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT;
	const char *tick;
	int64_t pid, tid;
	uint64_t w;
	unsigned used, indent = 0;

	if (r->proc) {
		const struct process_weight *pw = &tt->procs[r->index];
		uint32_t n = ticked_in(tp, tt, r->index);

		text_escape_str(&name, ps_get(ps, pw->comm));
		pid = pw->pid;
		tid = -1;
		w = pw->weight;
		tick = n == pw->nr ? "[x]" : n ? "[-]" : "[ ]";
	} else {
		const struct thread_weight *tw = &tt->threads[r->index];
		const struct thread *t = &ps->threads[tw->thread];

		render_thread_name(&name, ps, tw->thread, utf8);
		pid = t->pid;
		tid = t->tid;
		w = tw->weight;
		tick = tp->mask[tw->thread] ? "[x]" : "[ ]";
		/* Threads sit under their process. */
		indent = pid >= 0 ? 2 : 0;
	}
	strbuf_addf(out, " %s ", tick);
	strbuf_addchars(out, ' ', indent);
	if (!name.len)
		strbuf_addstr(&name, "(no name)");
	used = render_cut(out, name.buf, name.len, name_w > indent ? name_w - indent : 1, utf8);
	strbuf_addchars(out, ' ', name_w > indent + used ? name_w - indent - used : 0);
	strbuf_reset(&sb);
	if (pid >= 0)
		strbuf_addf(&sb, "%lld", (long long)pid);
	add_right(out, sb.buf, ID_COLS);
	strbuf_reset(&sb);
	if (tid >= 0)
		strbuf_addf(&sb, "%lld", (long long)tid);
	add_right(out, sb.buf, ID_COLS);
	strbuf_addstr(out, "  ");
	strbuf_reset(&sb);
	profile_format_amount_short(p, w, &sb);
	add_right(out, sb.buf, weight_w);
	strbuf_reset(&sb);
	profile_format_share(w, tt->total, &sb);
	add_right(out, sb.buf, PCT_COLS);
	if (tp->spark_cols && tp->has_act)
		add_spark(out, tp, tt, r, utf8);
	strbuf_release(&name);
	strbuf_release(&sb);
}

/* Columns of the widest name in the list, indent included; 24 at least. */
static unsigned
widest_name(const struct thread_picker *tp, struct model *m, bool utf8)
{
	const struct thread_table *tt = model_thread_weights(m);
	const struct profile_set *ps = m->ps;
	struct strbuf sb = STRBUF_INIT;
	unsigned widest = 24;

	for (uint32_t i = 0; i < tp->nr_rows; i++) {
		const struct picker_row *r = &tp->rows[i];

		strbuf_reset(&sb);
		if (r->proc)
			text_escape_str(&sb, ps_get(ps, tt->procs[r->index].comm));
		else
			render_thread_name(&sb, ps, tt->threads[r->index].thread, utf8);
		if (render_width(sb.buf, sb.len) + 2 > widest)
			widest = render_width(sb.buf, sb.len) + 2;
	}
	strbuf_release(&sb);
	return widest;
}

/*
 * The sparklines' width out of the name's room (half of what is left
 * over 16 columns of name), and their activity, worked out again when
 * the width changes: O(samples), not per key.
 */
static void
update_spark(struct thread_picker *tp, struct model *m, unsigned *name_w)
{
	const struct thread_table *tt = model_thread_weights(m);
	unsigned cols = *name_w > 16 ? (*name_w - 16) / 2 : 0;

	if (cols > MAX_SPARK)
		cols = MAX_SPARK;
	if (cols < MIN_SPARK)
		cols = 0;
	*name_w -= cols ? cols + 2 : 0;
	if (cols == tp->spark_cols && tp->act)
		return;
	tp->spark_cols = cols;
	free(tp->act);
	tp->act = xcalloc((size_t)tt->nr_threads * cols + 1, sizeof(*tp->act));
	tp->has_act = cols && model_thread_activity(m, cols, tp->act);
}

void
picker_draw(struct thread_picker *tp, struct model *m, const struct display *d,
	    const struct keys *k)
{
	/* Once a filter is typed, what to do with the threads it shows. */
	static const struct key_hint shown_hints[] = {
		{ { REQ_PICKER_ONLY_SHOWN }, "only these" },
		{ { REQ_PICKER_TICK_SHOWN }, "tick" },
		{ { REQ_PICKER_UNTICK_SHOWN }, "untick" },
		{ { REQ_PICKER_INVERT_SHOWN }, "invert" },
	};
	struct strbuf hint = STRBUF_INIT;

	const struct thread_table *tt = model_thread_weights(m);
	const struct profile_set *ps = m->ps;
	const struct profile *p = model_profile(m);
	struct strbuf line = STRBUF_INIT, label = STRBUF_INIT;
	unsigned width = (unsigned)COLS, weight_w, name_w;

	/* The title, on the tab bar's line. */
	move(0, 0);
	attrset(display_attr(d, DISPLAY_TAB_BAR));
	for (int i = 0; i < COLS; i++)
		addch(' ');
	strbuf_addstr(&line, "Threads of ");
	text_escape_str(&line, ps_get(ps, p->name)[0] ? ps_get(ps, p->name) : "the profile");
	strbuf_addf(&line, ": %u of %u ticked", ticked_threads(tp, tt), tt->nr_threads);
	render_cut(&label, line.buf, line.len, width > 2 ? width - 2 : 1, d->utf8);
	attrset(display_attr(d, DISPLAY_TAB_BAR) | A_BOLD);
	mvaddstr(0, 1, "");
	display_addstr(d, label.buf, label.len);

	/* The header. */
	strbuf_reset(&line);
	profile_format_amount_short(p, tt->total, &line);
	weight_w = render_width(line.buf, line.len);
	if (weight_w < 8)
		weight_w = 8;
	name_w = width > TICK_COLS + 2 * ID_COLS + 2 + weight_w + PCT_COLS + 1
			 ? width - (TICK_COLS + 2 * ID_COLS + 2 + weight_w + PCT_COLS + 1)
			 : 4;
	update_spark(tp, m, &name_w);
	/* No wider than the names, so that a wide screen keeps the numbers near them. */
	if (name_w > widest_name(tp, m, d->utf8) + 4)
		name_w = widest_name(tp, m, d->utf8) + 4;
	strbuf_reset(&line);
	strbuf_addchars(&line, ' ', TICK_COLS);
	strbuf_addstr(&line, "process / thread");
	strbuf_addchars(&line, ' ', name_w > 16 ? name_w - 16 : 1);
	add_right(&line, "pid", ID_COLS);
	add_right(&line, "tid", ID_COLS);
	strbuf_addstr(&line, "  ");
	add_right(&line, "weight", weight_w);
	add_right(&line, "%", PCT_COLS);
	if (tp->spark_cols && tp->has_act)
		strbuf_addstr(&line, "  activity");
	strbuf_reset(&label);
	render_label(&label, line.buf, line.len, width, d->utf8);
	move(2, 0);
	clrtoeol();
	attrset(display_attr(d, DISPLAY_LABEL) | A_BOLD);
	display_addstr(d, label.buf, label.len);

	/* The list, the selection kept on screen. */
	tp->list_top = 3;
	tp->list_height = LINES - 1 - tp->list_top;
	if (tp->sel < tp->top)
		tp->top = tp->sel;
	else if (tp->sel >= tp->top + list_rows(tp))
		tp->top = tp->sel - list_rows(tp) + 1;
	for (int i = 0; i < tp->list_height; i++) {
		uint32_t row = tp->top + (uint32_t)i;
		attr_t attr = A_NORMAL;

		move(tp->list_top + i, 0);
		attrset(A_NORMAL);
		clrtoeol();
		if (row >= tp->nr_rows) {
			if (!tp->nr_rows && !i) {
				attrset(display_attr(d, DISPLAY_LABEL));
				addstr(" no thread matches the filter (Ctrl-U empties it)");
			}
			continue;
		}
		strbuf_reset(&line);
		format_row(&line, tp, m, &tp->rows[row], name_w, weight_w, d->utf8);
		if (tp->rows[row].proc)
			attr |= A_BOLD;
		if (row == tp->sel)
			attr = display_attr(d, DISPLAY_ROW_SELECTED);
		attrset(attr);
		display_addstr(d, line.buf, line.len);
		for (unsigned w = render_width(line.buf, line.len); w < width; w++)
			addch(' ');
	}
	attrset(A_NORMAL);

	/* Last: the terminal's cursor stays in the filter. */
	move(1, 0);
	clrtoeol();
	if (tp->filter.text.len)
		keys_hints(&hint, k, KEYMAP_PICKER, shown_hints, ARRAY_SIZE(shown_hints), d->utf8);
	else
		strbuf_addstr(&hint, "type to filter by name, pid or tid");
	prompt_draw(&tp->filter, d, 1, 1, COLS - 1, hint.buf);
	strbuf_release(&hint);
	strbuf_release(&line);
	strbuf_release(&label);
}

void
picker_describe(struct model *m, bool utf8, struct strbuf *out)
{
	const struct thread_table *tt;
	const struct profile_set *ps = m->ps;
	uint32_t n = 0, last = 0;

	if (!m->lens.threads) {
		strbuf_addstr(out, "all threads");
		return;
	}
	tt = model_thread_weights(m);
	for (uint32_t i = 0; i < tt->nr_threads; i++) {
		if (m->lens.threads[tt->threads[i].thread]) {
			n++;
			last = i;
		}
	}
	if (n == 1) {
		const struct thread *t = &ps->threads[tt->threads[last].thread];

		strbuf_addstr(out, "1 thread: ");
		render_thread_name(out, ps, tt->threads[last].thread, utf8);
		if (t->tid >= 0)
			strbuf_addf(out, " %lld", (long long)t->tid);
		return;
	}
	strbuf_addf(out, "%u threads", n);
	if (n < tt->nr_threads)
		strbuf_addf(out, " of %u", tt->nr_threads);
}
