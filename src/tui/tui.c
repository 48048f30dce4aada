#include "config.h"

#include "tflame/tui.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tflame/exitcode.h"
#include "tflame/clock.h"
#include "tflame/conf.h"
#include "tflame/diff.h"
#include "tflame/display.h"
#include "tflame/error.h"
#include "tflame/export.h"
#include "tflame/flow.h"
#include "tflame/keys.h"
#include "tflame/lens.h"
#include "tflame/model.h"
#include "tflame/pane.h"
#include "tflame/pane_source.h"
#include "tflame/picker.h"
#include "tflame/profile.h"
#include "tflame/prompt.h"
#include "tflame/render.h"
#include "tflame/resolve.h"
#include "tflame/search.h"
#include "tflame/source.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

/* Below this the UI draws a request to make the window bigger. */
#define MIN_COLS 20
#define MIN_LINES 6

/* Wake up this often to notice a SIGTERM or SIGHUP. */
#define KEY_TIMEOUT_MS 500
/* While symbols resolve: the tick that moves their percentage and takes them. */
#define SYMBOLS_TICK_MS 100
/*
 * A slow cache is built once no key has come for this long: longer than
 * the gap between a held key's repeats, shorter than a person notices.
 */
#define SETTLE_MS 150

/*
 * Set to the signal by SIGTERM, SIGHUP and SIGINT from outside: leave
 * cleanly, then die of it, so the parent learns how tflame ended.
 */
static volatile sig_atomic_t tui_stop;

static void
tui_on_signal(int sig)
{
	tui_stop = sig;
}

enum tab {
	TAB_LEFT_HEAVY,
	TAB_TIME_ORDER,
	TAB_SANDWICH,
	NR_TABS
};

/* The panes, in tab order. */
static const struct pane_ops *const pane_table[NR_TABS] = {
	[TAB_LEFT_HEAVY] = &pane_left_heavy,
	[TAB_TIME_ORDER] = &pane_time_order,
	[TAB_SANDWICH] = &pane_sandwich,
};
#define NR_PANES ARRAY_SIZE(pane_table)

/* Each pane's keymap: its own bindings, then the generic ones. */
static const enum keymap pane_keymaps[NR_TABS] = {
	[TAB_LEFT_HEAVY] = KEYMAP_LEFT_HEAVY,
	[TAB_TIME_ORDER] = KEYMAP_TIME_ORDER,
	[TAB_SANDWICH] = KEYMAP_SANDWICH,
};

/*
 * The status line's hints when there is nothing to say, with the keys
 * bound at the time: per kind of pane, and for the pages over them.
 */
static const struct key_hint flame_hints[] = {
	{ { REQ_HELP }, "help" },
	{ { REQ_MOVE_LEFT, REQ_MOVE_DOWN, REQ_MOVE_UP, REQ_MOVE_RIGHT }, "move" },
	{ { REQ_ZOOM }, "zoom" },
	{ { REQ_BACK }, "back" },
	{ { REQ_SHOW_SANDWICH }, "Sandwich" },
	{ { REQ_LEFT_HEAVY, REQ_TIME_ORDER, REQ_SANDWICH }, "panes" },
	{ { REQ_QUIT }, "quit" },
};
static const struct key_hint time_order_hints[] = {
	{ { REQ_HELP }, "help" },
	{ { REQ_MOVE_LEFT, REQ_MOVE_DOWN, REQ_MOVE_UP, REQ_MOVE_RIGHT }, "move" },
	{ { REQ_ZOOM }, "zoom" },
	{ { REQ_BACK }, "back" },
	{ { REQ_LANE_PREV, REQ_LANE_NEXT }, "lanes" },
	{ { REQ_LANE_MERGED }, "merged" },
	{ { REQ_LEFT_HEAVY, REQ_TIME_ORDER, REQ_SANDWICH }, "panes" },
	{ { REQ_QUIT }, "quit" },
};
static const struct key_hint sandwich_hints[] = {
	{ { REQ_HELP }, "help" },
	{ { REQ_MOVE_DOWN, REQ_MOVE_UP }, "rows" },
	{ { REQ_SORT_TOTAL, REQ_SORT_SELF, REQ_SORT_NAME }, "sort" },
	{ { REQ_NEXT_PANE }, "focus" },
	{ { REQ_ZOOM }, "back, marked" },
	{ { REQ_QUIT }, "quit" },
};
/* In a comparison, the keys that only it has take the place of rarer ones. */
static const struct key_hint diff_flame_hints[] = {
	{ { REQ_HELP }, "help" },
	{ { REQ_MOVE_LEFT, REQ_MOVE_DOWN, REQ_MOVE_UP, REQ_MOVE_RIGHT }, "move" },
	{ { REQ_ZOOM }, "zoom" },
	{ { REQ_DIFF_NORMALIZE }, "normalise" },
	{ { REQ_DIFF_SWAP }, "swap sides" },
	{ { REQ_LEFT_HEAVY, REQ_TIME_ORDER, REQ_SANDWICH }, "panes" },
	{ { REQ_QUIT }, "quit" },
};
static const struct key_hint diff_sandwich_hints[] = {
	{ { REQ_HELP }, "help" },
	{ { REQ_MOVE_DOWN, REQ_MOVE_UP }, "rows" },
	{ { REQ_SORT_TOTAL, REQ_SORT_SELF, REQ_SORT_NAME }, "sort" },
	{ { REQ_SORT_DELTA_TOTAL, REQ_SORT_DELTA_SELF }, "sort by change" },
	{ { REQ_DIFF_NORMALIZE }, "normalise" },
	{ { REQ_DIFF_SWAP }, "swap sides" },
	{ { REQ_QUIT }, "quit" },
};
static const struct key_hint page_hints[] = {
	{ { REQ_MOVE_DOWN, REQ_MOVE_UP, REQ_PAGE_UP, REQ_PAGE_DOWN }, "scroll" },
	{ { REQ_QUIT, REQ_BACK, REQ_HELP }, "close" },
};
static const struct key_hint picker_hints[] = {
	{ { REQ_PICKER_TICK }, "tick" },
	{ { REQ_PICKER_APPLY }, "apply" },
	{ { REQ_PICKER_CANCEL }, "cancel" },
	{ { REQ_PICKER_TICK_SHOWN, REQ_PICKER_UNTICK_SHOWN, REQ_PICKER_ONLY_SHOWN,
	    REQ_PICKER_INVERT_SHOWN }, "shown: tick untick only invert" },
	{ { REQ_PICKER_UP, REQ_PICKER_DOWN }, "move" },
};
static const struct key_hint source_hints[] = {
	{ { REQ_MOVE_DOWN, REQ_MOVE_UP }, "move" },
	{ { REQ_FIND_NEXT, REQ_FIND_PREV }, "lines with weight" },
	{ { REQ_MOVE_LEFT, REQ_MOVE_RIGHT }, "scroll" },
	{ { REQ_SOURCE_DECL }, "declaration" },
	{ { REQ_TOP, REQ_BOTTOM }, "ends" },
	{ { REQ_BACK }, "back" },
};

/*
 * The tabs: the key that shows the pane, then its name, or its initials
 * when the tab bar is short of room.
 */
static const struct {
	enum request req;
	const char *name, *initials;
} tab_names[NR_TABS] = {
	{ REQ_LEFT_HEAVY, "Left Heavy", "LH" },
	{ REQ_TIME_ORDER, "Time Order", "TO" },
	{ REQ_SANDWICH, "Sandwich", "SW" },
};

/* How the tabs are labelled: widest first, down to the keys alone. */
enum tab_style {
	TABS_NAMES,
	TABS_INITIALS,
	TABS_KEYS,
	NR_TAB_STYLES
};

/*
 * Symbols resolved on a thread of their own (resolve.h), so that the
 * first screen shows perf's names at once; the panes take the resolved
 * set at the first key or tick after it is ready.
 */
struct tui_symbols {
	struct symbols_job *job; /* NULL when there is nothing running or to take */
	pthread_t thread;
	_Atomic uint64_t done, total;
	_Atomic int cancel;
	_Atomic int finished;    /* the thread is done: join it */
	bool started;            /* the thread runs: after the first screen */
	bool ok;                 /* it finished without being cancelled */
	/*
	 * TFLAME_SYMBOLS_DELAY=SECONDS (tests): the thread waits this long
	 * first, so that a test can act before the symbols come.
	 */
	double delay;
	unsigned shown;          /* the percentage last drawn */
};

struct tui {
	const char *path;
	const char *base_path;   /* comparing two files: the base, else NULL */
	const struct keys *keys; /* the bindings: the config's, borrowed */
	const struct conf *conf; /* borrowed: its warnings, for the warnings page */
	struct tui_symbols sym;
	struct display disp;
	struct model model;
	struct pane panes[NR_PANES];
	size_t active;
	size_t flame_pane; /* the flame pane last shown: where Sandwich's Enter goes */
	struct pane_ctx ctx;
	struct strbuf message;
	int tab_x0[NR_TABS], tab_x1[NR_TABS]; /* where the last draw put the tabs */

	/* the page (help or details) over the panes, when paging */
	bool paging;
	struct strbuf page;
	struct flow page_flow;
	unsigned page_width; /* the flow is laid out for this width; 0: stale */
	size_t page_top;
	bool quit;

	/* the prompt on the bottom line, when open: a search, or x's file name */
	bool prompting;
	bool exporting;             /* the prompt asks for x's file name */
	/*
	 * The file named exists, and the prompt's error asks whether to
	 * overwrite it: Enter again while it shows (no edit since) does.
	 */
	bool export_asked;
	struct prompt prompt;
	struct strbuf last_pattern; /* the last regex applied, for Up in the prompt */
	struct strbuf last_export;  /* the last file exported to */

	/* b swapped the sides of a comparison: the base is shown */
	bool diff_swapped;

	/* a was pressed: the next key picks a transform (KEYMAP_TRANSFORM) */
	bool transforming;
	/* P while the symbols resolve: grouping adds frames, so after them. */
	bool by_process_later;
	/* group_ahead() has looked at the profile (and started or not) */
	bool group_tried;
	/*
	 * Button 1: curses reports its presses and releases as they come,
	 * and clicks are made of them here, so that a press moved to
	 * another column before its release is a drag (Time Order: a time
	 * range) rather than a click.
	 */
	struct {
		bool down, dragging;
		struct pane_input from, to;
		double click_ms;      /* when the last click was, for a double click */
		struct pane_input click_at;
	} mouse;

	/* the thread picker over the panes, when open */
	bool picking;
	struct thread_picker picker;

	/* the source view over the panes, when open */
	struct source_pane *source;
	struct source_search where; /* where its files are looked for */
	char *profile_dir;          /* owned; where.profile_dir */

	/*
	 * TFLAME_KEY_TIMING=FILE (for bench/keys.sh): the time from reading a
	 * key to the end of the refresh that shows its effect, summed here and
	 * written to FILE on exit.
	 */
	const char *timing_path;
	double *timing_ms;    /* per key, in order */
	size_t timing_keys, timing_alloc;
};

/* The keymap of what is on screen: keys are looked up there first. */
static enum keymap
active_keymap(const struct tui *ui)
{
	if (ui->picking)
		return KEYMAP_PICKER;
	if (ui->paging)
		return KEYMAP_PAGE;
	if (ui->source)
		return KEYMAP_SOURCE;
	if (ui->transforming)
		return KEYMAP_TRANSFORM;
	return pane_keymaps[ui->active];
}

/* ------------------------------------------------------------ the tab bar */

/* One piece of the tab bar's right-hand side: text that may shrink or go. */
struct info {
	struct strbuf text;
	unsigned min;  /* shrink no further than this (with the ellipsis) */
	unsigned want; /* columns it gets */
};

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!strcmp(path, "-"))
		return "(stdin)";
	return slash && slash[1] ? slash + 1 : path;
}

/*
 * Comparing two profiles: "diff raw vs base.folded: red grew, blue
 * shrank", the normalisation and what the shown profile is compared with
 * first, since the colours show for themselves. Nothing outside diff
 * mode.
 */
static void
add_diff_legend(struct tui *ui, struct info *info)
{
	struct model *m = &ui->model;
	const struct profile *other = model_diff_base(m);
	const char *name;
	size_t min;

	if (!other)
		return;
	strbuf_addstr(&info->text, model_diff_normalized(m) ? "diff normalised" : "diff raw");
	min = info->text.len;
	/* The file compared with, when the sides are two files; else its profile. */
	if (ui->base_path)
		name = base_name(ui->diff_swapped ? ui->path : ui->base_path);
	else
		name = ps_get(m->ps, other->name);
	strbuf_addstr(&info->text, " vs ");
	text_escape_str(&info->text, name);
	/* Two builds at two paths: the functions matched by name alone. */
	if (m->ps->diff_flags & DIFF_IGNORE_MODULE)
		strbuf_addstr(&info->text, " by name");
	if (ui->active == TAB_TIME_ORDER)
		/* Time Order has no base weights per box: it says so rather than mislead. */
		strbuf_addstr(&info->text, ": plain colours here");
	else
		strbuf_addstr(&info->text, ui->disp.colors ? ": red grew, blue shrank"
							   : ": + grew, - shrank, = same");
	info->min = (unsigned)min;
}

static void
add_info_text(struct tui *ui, struct info *info, size_t nr)
{
	const struct profile_set *ps = ui->model.ps;
	const struct profile *p = model_profile(&ui->model);

	/*
	 * the file shown (b swaps in the base): its base name, the directory
	 * rarely helps and costs room
	 */
	text_escape_str(&info[0].text,
			base_name(ui->diff_swapped && ui->base_path ? ui->base_path : ui->path));
	info[0].min = 10;
	/* the profile */
	text_escape_str(&info[1].text, ps_get(ps, p->name)[0] ? ps_get(ps, p->name) : "profile");
	if (ps->nr_profiles > 1)
		strbuf_addf(&info[1].text, " %zu/%zu", ui->model.lens.profile + 1, ps->nr_profiles);
	info[1].min = 6;
	/* the threads */
	picker_describe(&ui->model, ui->disp.utf8, &info[2].text);
	info[2].min = ui->model.lens.threads ? 9 : 0;
	/* the total */
	profile_format_amount_short(p, model_total(&ui->model), &info[3].text);
	if (p->unit != UNIT_NANOSECONDS && p->unit != UNIT_NONE && p->unit != UNIT_BYTES) {
		strbuf_addch(&info[3].text, ' ');
		strbuf_addstr(&info[3].text, weight_unit_name(p->unit));
	}
	info[3].min = render_width(info[3].text.buf, info[3].text.len);
	/* the time range and the transforms, as breadcrumbs */
	if (ui->model.lens.timed) {
		const struct lens *l = &ui->model.lens;

		strbuf_addf(&info[4].text, "time %.3f–%.3f s%s", (double)(l->t0 - p->time_min) / 1e9,
			    (double)((l->t1 > p->time_max ? p->time_max : l->t1) - p->time_min) / 1e9,
			    lens_reshaped(l) ? " > " : "");
	}
	if (lens_reshaped(&ui->model.lens)) {
		struct strbuf crumbs = STRBUF_INIT;

		lens_describe(&ui->model.lens, &crumbs);
		text_escape(&info[4].text, crumbs.buf, crumbs.len);
		strbuf_release(&crumbs);
	}
	info[4].min = 12;
	add_diff_legend(ui, &info[5]);
	for (size_t i = 0; i < nr; i++)
		info[i].want = render_width(info[i].text.buf, info[i].text.len);
}

/*
 * Fit the info into room columns (each also costs a 3-column separator),
 * one step at a time while it does not fit: shrink (to its min) or drop
 * a piece. The file, the event, the thread filter, the total, the
 * transforms' breadcrumbs and a comparison's legend, least useful first:
 * "all threads" says nothing a full view does not and goes at once; the
 * event says what the weights are, and a thread filter, the transforms
 * and the comparison what the view is of: they outlast the file.
 */
static void
fit_info(struct info *info, size_t nr, unsigned room, bool filtered)
{
	enum { SHRINK, DROP };
	const struct {
		int what;
		size_t i;
	} plain[] = {
		{ DROP, 2 }, { SHRINK, 0 }, { SHRINK, 1 }, { SHRINK, 4 }, { SHRINK, 5 },
		{ DROP, 0 }, { DROP, 1 }, { DROP, 4 }, { DROP, 5 }, { DROP, 3 },
	}, with_filter[] = {
		{ SHRINK, 0 }, { SHRINK, 1 }, { SHRINK, 4 }, { SHRINK, 5 }, { DROP, 0 },
		{ SHRINK, 2 }, { DROP, 1 }, { DROP, 2 }, { DROP, 4 }, { DROP, 5 }, { DROP, 3 },
	};
	size_t nr_steps = filtered ? ARRAY_SIZE(with_filter) : ARRAY_SIZE(plain);
	unsigned used = 0;

	for (size_t i = 0; i < nr; i++)
		used += info[i].want ? info[i].want + 3 : 0;
	for (size_t s = 0; s < nr_steps && used > room; s++) {
		struct info *in = &info[filtered ? with_filter[s].i : plain[s].i];
		unsigned cut, can;

		if (!in->want)
			continue;
		cut = used - room;
		can = in->want > in->min ? in->want - in->min : 0;
		if ((filtered ? with_filter[s].what : plain[s].what) == DROP) {
			used -= in->want + 3;
			in->want = 0;
			continue;
		}
		cut = cut < can ? cut : can;
		in->want -= cut;
		used -= cut;
	}
}

/* The label of tab t in style st into label (reset first). */
static void
tab_label(struct tui *ui, int t, enum tab_style st, struct strbuf *label)
{
	int key;
	bool has_key = keys_of(ui->keys, pane_keymaps[ui->active], tab_names[t].req, &key, 1);

	strbuf_reset(label);
	if (has_key)
		keys_name(label, key, ui->disp.utf8);
	/* A pane with no key keeps its initials. */
	if (st == TABS_KEYS && has_key)
		return;
	if (has_key)
		strbuf_addch(label, ' ');
	strbuf_addstr(label, st == TABS_NAMES ? tab_names[t].name : tab_names[t].initials);
	/* The inverted tree is Left Heavy's other face: its tab says which shows. */
	if (t == TAB_LEFT_HEAVY && ui->model.inverted)
		strbuf_addstr(label, st == TABS_NAMES ? " inverted" : "i");
}

/*
 * The widest tabs that leave the info its event, filter and total whole
 * and the file TABS_FILE_COLS: at 80 columns often the initials, so that
 * the bar keeps what the view is of. The keys alone when nothing fits.
 */
#define TABS_FILE_COLS 24
#define TABS_CRUMBS_COLS 48

static enum tab_style
tab_style(struct tui *ui, const struct info *info, size_t nr)
{
	struct strbuf label = STRBUF_INIT;
	enum tab_style st;
	unsigned need = 0;

	for (size_t i = 0; i < nr; i++) {
		if (!info[i].want || (i == 2 && !ui->model.lens.threads))
			continue; /* "all threads" can go: a full view says it */
		/* The file and long breadcrumbs can shrink: the tabs keep initials at least. */
		need += 3 + (i == 0 && info[i].want > TABS_FILE_COLS	    ? TABS_FILE_COLS
			     : i == 4 && info[i].want > TABS_CRUMBS_COLS ? TABS_CRUMBS_COLS
			     : i == 5 && info[i].want > TABS_FILE_COLS   ? TABS_FILE_COLS
									 : info[i].want);
	}
	for (st = TABS_NAMES; st < TABS_KEYS; st++) {
		unsigned w = 0;

		for (int t = 0; t < NR_TABS; t++) {
			tab_label(ui, t, st, &label);
			w += render_width(label.buf, label.len) + 2;
		}
		if (w + need <= (unsigned)COLS)
			break;
	}
	strbuf_release(&label);
	return st;
}

static void
draw_tabs(struct tui *ui)
{
	const struct display *d = &ui->disp;
	struct info info[6];
	struct strbuf label = STRBUF_INIT;
	enum tab_style st;
	int x = 0, tabs_end;

	/* A piece with nothing to say (the legend outside a comparison) has no min either. */
	memset(info, 0, sizeof(info));
	for (size_t i = 0; i < ARRAY_SIZE(info); i++)
		strbuf_init(&info[i].text, 0);
	add_info_text(ui, info, ARRAY_SIZE(info));
	st = tab_style(ui, info, ARRAY_SIZE(info));

	move(0, 0);
	attrset(display_attr(d, DISPLAY_TAB_BAR));
	for (int i = 0; i < COLS; i++)
		addch(' ');
	move(0, 0);
	for (int t = 0; t < NR_TABS; t++) {
		ui->tab_x0[t] = ui->tab_x1[t] = -1; /* not drawn: not clickable */
		enum display_color c = (size_t)t == ui->active ? DISPLAY_TAB_ACTIVE
								: DISPLAY_TAB_BAR;
		int w;

		tab_label(ui, t, st, &label);
		w = (int)render_width(label.buf, label.len) + 2;
		if (x + w > COLS)
			continue;
		ui->tab_x0[t] = x;
		attrset(display_attr(d, c));
		mvaddstr(0, x, " ");
		display_addstr(d, label.buf, label.len);
		addstr(" ");
		x += w;
		ui->tab_x1[t] = x;
	}
	tabs_end = x;

	fit_info(info, ARRAY_SIZE(info), (unsigned)(COLS > tabs_end ? COLS - tabs_end : 0),
		 ui->model.lens.threads != NULL);
	for (size_t i = 0; i < ARRAY_SIZE(info); i++) {
		if (!info[i].want)
			continue;
		attrset(display_attr(d, DISPLAY_TAB_BAR));
		mvaddstr(0, x, " ");
		addstr(display_glyph_bar(d));
		addstr(" ");
		x += 3;
		strbuf_reset(&label);
		/* The file's name and the breadcrumbs' last step matter most: cut in the middle. */
		if (i == 0 || i == 4)
			render_cut_middle(&label, info[i].text.buf, info[i].text.len, info[i].want, d->utf8);
		else
			render_cut(&label, info[i].text.buf, info[i].text.len, info[i].want, d->utf8);
		x += (int)render_width(label.buf, label.len);
		/* The total is what a glance at the bar is for: bold. */
		attrset(display_attr(d, DISPLAY_TAB_INFO) | (i == 3 ? A_BOLD : 0));
		display_addstr(d, label.buf, label.len);
	}
	attrset(A_NORMAL);
	for (size_t i = 0; i < ARRAY_SIZE(info); i++)
		strbuf_release(&info[i].text);
	strbuf_release(&label);
}

/* ------------------------------------------------------------ status line */

static void add_func_name(struct tui *ui, struct strbuf *out, uint32_t fn);

/*
 * While a search or marks are on, the status line says what they are and
 * what they find in the pane: "/re/  matched: 1.2 s (4.5% of all, 9.0% of
 * view)  n N: next, previous  Esc: clear".
 */
static void
search_status(struct tui *ui, struct strbuf *out)
{
	/* Sandwich's table has no boxes to go through: its hints skip the first. */
	static const struct key_hint search_hints[] = {
		{ { REQ_FIND_NEXT, REQ_FIND_PREV }, "next" },
		{ { REQ_BACK }, "clears" },
	};
	struct pane *p = &ui->panes[ui->active];
	struct search_re *re = model_search_re(&ui->model);
	size_t start;

	if (re) {
		strbuf_addch(out, '/');
		text_escape_str(out, search_re_pattern(re));
		strbuf_addch(out, '/');
	} else {
		strbuf_addstr(out, "marked: ");
		add_func_name(ui, out, model_search_func(&ui->model));
	}
	strbuf_addstr(out, "  ");
	start = out->len;
	p->ops->search(p, &ui->ctx, out);
	if (out->len > start)
		strbuf_addstr(out, "  ");
	keys_hints(out, ui->keys, pane_keymaps[ui->active], search_hints + (ui->active == TAB_SANDWICH),
		   ARRAY_SIZE(search_hints) - (ui->active == TAB_SANDWICH), ui->disp.utf8);
}

/* The percentage of the symbols done, while they resolve. */
static unsigned
symbols_percent(const struct tui_symbols *sym)
{
	uint64_t done = atomic_load(&sym->done), total = atomic_load(&sym->total);

	if (!total)
		return 0;
	return done >= total ? 99 : (unsigned)(done * 100 / total);
}

static void
draw_status(struct tui *ui)
{
	const struct display *d = &ui->disp;
	bool diff = model_diff_base(&ui->model) != NULL;
	const struct key_hint *hints = ui->picking  ? picker_hints
				       : ui->paging ? page_hints
				       : ui->source ? source_hints
				       : ui->active == TAB_SANDWICH ? diff ? diff_sandwich_hints
									  : sandwich_hints
				       : ui->active == TAB_TIME_ORDER ? time_order_hints
				       : diff			      ? diff_flame_hints
								      : flame_hints;
	size_t nr_hints = ui->picking  ? ARRAY_SIZE(picker_hints)
			  : ui->paging ? ARRAY_SIZE(page_hints)
			  : ui->source ? ARRAY_SIZE(source_hints)
			  : ui->active == TAB_SANDWICH ? diff ? ARRAY_SIZE(diff_sandwich_hints)
							      : ARRAY_SIZE(sandwich_hints)
			  : ui->active == TAB_TIME_ORDER ? ARRAY_SIZE(time_order_hints)
			  : diff			 ? ARRAY_SIZE(diff_flame_hints)
							 : ARRAY_SIZE(flame_hints);
	struct strbuf sb = STRBUF_INIT, search = STRBUF_INIT, phase = STRBUF_INIT;
	struct strbuf hint = STRBUF_INIT;
	const char *text;
	size_t len;
	unsigned room = (unsigned)COLS - 1;

	keys_hints(&hint, ui->keys, active_keymap(ui), hints, nr_hints, d->utf8);
	text = hint.buf;
	len = hint.len;

	if (ui->message.len) {
		text = ui->message.buf;
		len = ui->message.len;
	} else if (!ui->paging && !ui->picking && !ui->source && model_search(&ui->model)) {
		search_status(ui, &search);
		text = search.buf;
		len = search.len;
	}
	/* What is still on its way goes at the right end, and stays. */
	if (ui->sym.job) {
		ui->sym.shown = symbols_percent(&ui->sym);
		strbuf_addf(&phase, "symbols %u%%", ui->sym.shown);
		room = phase.len + 2 < room ? room - (unsigned)phase.len - 2 : 0;
	}
	render_cut(&sb, text, len, room, d->utf8);
	move(LINES - 1, 0);
	clrtoeol();
	attrset(display_attr(d, ui->message.len ? DISPLAY_MESSAGE : DISPLAY_STATUS));
	display_addstr(d, sb.buf, sb.len);
	if (phase.len && (int)phase.len < COLS) {
		attrset(display_attr(d, DISPLAY_STATUS) | A_BOLD);
		mvaddstr(LINES - 1, COLS - 1 - (int)phase.len, phase.buf);
	}
	attrset(A_NORMAL);
	strbuf_release(&sb);
	strbuf_release(&search);
	strbuf_release(&phase);
	strbuf_release(&hint);
}

/* ------------------------------------------------------------------ pages */

static void
page_open(struct tui *ui)
{
	ui->paging = true;
	ui->page_top = 0;
	ui->page_width = 0;
}

static void
open_help(struct tui *ui)
{
	static const enum request close[] = { REQ_QUIT, REQ_BACK, REQ_HELP };
	enum keymap km = active_keymap(ui);

	strbuf_reset(&ui->page);
	strbuf_addf(&ui->page, "tflame %s: keys (", PACKAGE_VERSION);
	/* "q, Esc or ? closes this page", as the page keymap has it */
	for (size_t i = 0; i < ARRAY_SIZE(close); i++) {
		if (i)
			strbuf_addstr(&ui->page, i + 1 < ARRAY_SIZE(close) ? ", " : " or ");
		keys_first_name(&ui->page, ui->keys, KEYMAP_PAGE, close[i], false);
	}
	strbuf_addstr(&ui->page, " closes this page)\n");
	keys_help_text(&ui->page, ui->keys, km, ui->disp.utf8);
	strbuf_addstr(&ui->page,
		      "\n# Reading the panes\n"
		      "  A box's width is its weight. Left Heavy merges every call path into\n"
		      "  one tree, heaviest callees first; Time Order shows the stacks in the\n"
		      "  order the samples were taken, on a time axis, each thread a lane:\n"
		      "  over the chart, one row per lane with a sparkline of its activity in\n"
		      "  the time on screen, and a ruler. Boxes narrower than a cell are drawn\n"
		      "  as dots. 'this box' is the selected box; 'function' adds up every\n"
		      "  box of the same function, counting recursion once per sample.\n"
		      "  Sandwich lists every function; under the table, the callers of the\n"
		      "  selected one go down from it, and its callees too. A search (or a\n"
		      "  function marked with s or Enter) lights the boxes it matches and\n"
		      "  dims the rest; the status line gives the weight they hold, each\n"
		      "  sample counted once, as a share of all and of the view.\n"
		      "  In a perf profile of several processes, the outermost boxes name\n"
		      "  the processes (the samples' comm); they are not functions, so\n"
		      "  Sandwich lists none of them.\n"
		      "  Symbols resolve in the background: until the status line says\n"
		      "  'symbols done', frames carry perf's names, with no inline frames\n"
		      "  and no source lines; the view then keeps its place.\n"
		      "\n# Changing the keys\n"
		      "  The keys above are those in effect: ~/.config/tflame/config (or\n"
		      "  $TFLAME_CONFIG) can bind others, per pane or page, and set the\n"
		      "  colours and defaults; 'tflame --dump-config' prints the defaults in\n"
		      "  its syntax. The search prompt's editing keys are fixed.\n");
	page_open(ui);
}

/*
 * Where a wrapped line of the page continues: under the text after the
 * first gap of two spaces ("  keys   help"), or 4 columns in.
 */
static unsigned
hanging_indent(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && s[i] == ' ')
		i++;
	for (; i + 2 < len; i++)
		if (s[i] == ' ' && s[i + 1] == ' ' && s[i + 2] != ' ')
			return (unsigned)render_width(s, i + 2);
	return 4;
}

/* Lay the page out for the current width (headings, lines starting "# ", bold). */
static void
page_layout(struct tui *ui)
{
	const char *s = ui->page.buf, *end = s + ui->page.len;
	bool first = true;

	if (ui->page_width == (unsigned)COLS)
		return;
	ui->page_width = (unsigned)COLS;
	flow_reset(&ui->page_flow, (unsigned)COLS);
	/* The first line is the title, drawn apart. */
	s = memchr(s, '\n', ui->page.len);
	s = s ? s + 1 : end;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);

		if (!first)
			flow_newline(&ui->page_flow);
		first = false;
		ui->page_flow.indent = hanging_indent(s, len);
		if (len >= 2 && s[0] == '#' && s[1] == ' ')
			flow_text(&ui->page_flow, display_attr(&ui->disp, DISPLAY_HEADING), s + 2,
				  len - 2);
		else
			flow_words(&ui->page_flow, A_NORMAL, s, len);
		s += len + 1;
	}
}

static size_t
page_rows(void)
{
	return LINES > 2 ? (size_t)LINES - 2 : 1;
}

static void
draw_page(struct tui *ui)
{
	const char *nl = memchr(ui->page.buf, '\n', ui->page.len);
	size_t title_len = nl ? (size_t)(nl - ui->page.buf) : ui->page.len;
	struct strbuf sb = STRBUF_INIT;
	size_t rows = page_rows(), nr;

	page_layout(ui);
	nr = ui->page_flow.nr_lines;
	if (ui->page_top + rows > nr)
		ui->page_top = nr > rows ? nr - rows : 0;

	move(0, 0);
	attrset(display_attr(&ui->disp, DISPLAY_TAB_BAR));
	for (int i = 0; i < COLS; i++)
		addch(' ');
	render_label(&sb, ui->page.buf, title_len, (unsigned)COLS - 1, ui->disp.utf8);
	mvaddstr(0, 1, "");
	attrset(display_attr(&ui->disp, DISPLAY_TAB_BAR) | A_BOLD);
	display_addstr(&ui->disp, sb.buf, sb.len);
	if (nr > rows) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, " %zu-%zu of %zu ", ui->page_top + 1,
			    ui->page_top + rows < nr ? ui->page_top + rows : nr, nr);
		if ((int)sb.len < COLS)
			mvaddstr(0, COLS - (int)sb.len, sb.buf);
	}
	attrset(A_NORMAL);
	for (int y = 1; y < LINES - 1; y++) {
		move(y, 0);
		clrtoeol();
	}
	flow_draw(&ui->page_flow, &ui->disp, ui->page_top, rows, 1, 0, A_NORMAL);
	strbuf_release(&sb);
}

/*
 * The warnings, one a line: the config's, then the file's, with its name
 * and line; what the warnings page shows and what is printed on exit.
 */
static void
add_warnings(struct strbuf *out, const char *path, const struct profile_set *ps,
	     const struct conf *conf)
{
	/* The config's are escaped already. */
	for (size_t i = 0; i < conf->nr_warnings; i++)
		strbuf_addf(out, "%s\n", conf->warnings[i]);
	for (size_t i = 0; i < ps->nr_diags; i++) {
		text_escape_str(out, path);
		if (ps->diags[i].line)
			strbuf_addf(out, ":%llu", (unsigned long long)ps->diags[i].line);
		strbuf_addstr(out, ": warning: ");
		text_escape_str(out, ps->diags[i].msg);
		strbuf_addch(out, '\n');
	}
}

static void
print_warnings(const char *path, const struct profile_set *ps, const struct conf *conf)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s, *nl;

	add_warnings(&sb, path, ps, conf);
	for (s = sb.buf; (nl = strchr(s, '\n')); s = nl + 1)
		fprintf(stderr, "tflame: %.*s\n", (int)(nl - s), s);
	strbuf_release(&sb);
}

/* W: the warnings so far on a page, rather than only on exit. */
static void
open_warnings(struct tui *ui)
{
	size_t n = ui->conf->nr_warnings + ui->model.ps->nr_diags;

	if (!n) {
		strbuf_addstr(&ui->message, "no warnings");
		return;
	}
	strbuf_reset(&ui->page);
	strbuf_addf(&ui->page, "tflame: %zu warning%s (also printed when tflame exits; ", n,
		    n == 1 ? "" : "s");
	keys_first_name(&ui->page, ui->keys, KEYMAP_PAGE, REQ_BACK, false);
	strbuf_addstr(&ui->page, " closes)\n");
	add_warnings(&ui->page, ui->path, ui->model.ps, ui->conf);
	page_open(ui);
}

/* ", W lists them": the end of a message that says there are warnings. */
static void
add_warnings_key(struct tui *ui, struct strbuf *out)
{
	int key;

	if (!keys_of(ui->keys, pane_keymaps[ui->active], REQ_WARNINGS, &key, 1))
		return;
	strbuf_addstr(out, ", ");
	keys_name(out, key, ui->disp.utf8);
	strbuf_addstr(out, " lists them");
}

/* Requests while a page shows: scrolling, closing; others close it and go on. */
static bool
page_request(struct tui *ui, enum request req)
{
	size_t rows = page_rows(), nr = ui->page_flow.nr_lines;
	size_t max = nr > rows ? nr - rows : 0;

	switch (req) {
	case REQ_MOVE_DOWN:
		ui->page_top += ui->page_top < max;
		return true;
	case REQ_MOVE_UP:
		ui->page_top -= ui->page_top > 0;
		return true;
	case REQ_PAGE_DOWN:
	case REQ_WHEEL_DOWN:
		ui->page_top += req == REQ_PAGE_DOWN ? rows - 1 : 3;
		if (ui->page_top > max)
			ui->page_top = max;
		return true;
	case REQ_PAGE_UP:
	case REQ_WHEEL_UP: {
		size_t step = req == REQ_PAGE_UP ? rows - 1 : 3;

		ui->page_top = ui->page_top > step ? ui->page_top - step : 0;
		return true;
	}
	case REQ_TOP:
		ui->page_top = 0;
		return true;
	case REQ_BOTTOM:
		ui->page_top = max;
		return true;
	case REQ_QUIT:
	case REQ_BACK:
	case REQ_HELP:
	case REQ_DETAILS:
	case REQ_ZOOM:
		ui->paging = false;
		return true;
	case REQ_CLICK:
	case REQ_CLICK_ZOOM:
		return true; /* nothing to click on a page */
	case REQ_INTERRUPT:
	case REQ_REDRAW:
	case REQ_SUSPEND:
		return false;
	default:
		ui->paging = false;
		return false;
	}
}

/* ----------------------------------------------------------------- panes */

static void
draw(struct tui *ui)
{
	struct pane *p = &ui->panes[ui->active];
	struct pane_area area = { 1, 0, LINES - 2, COLS };

	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		mvaddstr(0, 0, "tflame: make the");
		mvaddstr(1, 0, "window bigger");
		return;
	}
	if (ui->picking) {
		/* The status line first: the cursor stays in the picker's filter. */
		draw_status(ui);
		picker_draw(&ui->picker, &ui->model, &ui->disp, ui->keys);
		curs_set(1);
		return;
	}
	if (ui->paging) {
		draw_page(ui);
	} else if (ui->source) {
		source_pane_draw(ui->source, &ui->disp);
	} else {
		draw_tabs(ui);
		p->ops->draw(p, &ui->ctx, &area);
	}
	if (ui->prompting) {
		const struct prompt *pr = &ui->prompt;

		/* Last: the terminal's cursor stays on the prompt's. */
		prompt_draw(pr, &ui->disp, LINES - 1, 0, COLS,
			    ui->exporting ? "Enter: write  Tab: format (.folded .json .svg)  Esc: cancel"
			    : !pr->text.len ? "Enter: search  Esc: cancel  Up: last search"
			    : search_smart_caseless(pr->text.buf, pr->text.len)
				    ? "ignoring case (no capital)"
				    : "case-sensitive");
		curs_set(1);
	} else {
		draw_status(ui);
		curs_set(0);
	}
}

/*
 * Say on the status line, at once, that a pane is being built: the first
 * Time Order of a large profile takes a moment, and a frozen screen looks
 * like a hang.
 */
static void
announce_build(struct tui *ui, size_t pane)
{
	const struct model *m = &ui->model;
	bool built = pane == TAB_TIME_ORDER ? m->chart_gen == m->generation
					    : m->tree_gen == m->generation;

	/* Sandwich's table needs the tree's sums; its trees announce themselves. */
	if (built)
		return;
	move(LINES - 1, 0);
	clrtoeol();
	attrset(display_attr(&ui->disp, DISPLAY_MESSAGE));
	printw("building %s...", pane_table[pane]->name);
	attrset(A_NORMAL);
	refresh();
}

/* The status line's "building ...": pane_ctx.announce. */
static void
pane_announce(const struct pane_ctx *ctx, const char *what)
{
	struct strbuf sb = STRBUF_INIT, label = STRBUF_INIT;

	strbuf_addstr(&sb, "building ");
	text_escape_str(&sb, what);
	strbuf_addstr(&sb, ctx->disp->utf8 ? "\xe2\x80\xa6" : "...");
	render_cut(&label, sb.buf, sb.len, COLS > 1 ? (unsigned)COLS - 1 : 1, ctx->disp->utf8);
	move(LINES - 1, 0);
	clrtoeol();
	attrset(display_attr(ctx->disp, DISPLAY_MESSAGE));
	display_addstr(ctx->disp, label.buf, label.len);
	attrset(A_NORMAL);
	refresh();
	strbuf_release(&sb);
	strbuf_release(&label);
}

static void
switch_pane(struct tui *ui, size_t i)
{
	announce_build(ui, i);
	ui->active = i;
	if (i != TAB_SANDWICH)
		ui->flame_pane = i;
}

/* The name of function fn, escaped, for a message. */
static void
add_func_name(struct tui *ui, struct strbuf *out, uint32_t fn)
{
	const struct profile_set *ps = ui->model.ps;
	const struct func *f = &model_funcs(&ui->model)->funcs[fn];
	struct strbuf name = STRBUF_INIT;

	text_escape_str(&name, ps_get(ps, f->name));
	render_cut(out, name.buf, name.len, COLS > 60 ? (unsigned)COLS / 2 : 30, ui->disp.utf8);
	strbuf_release(&name);
}

/*
 * A pane asked to show a function in the other kind of pane: mark its
 * boxes everywhere (a search for that function), then go there.
 */
static void
show_func(struct tui *ui, uint32_t fn)
{
	struct pane *p;
	enum keymap km;

	model_set_search_func(&ui->model, fn);
	switch_pane(ui, ui->active == TAB_SANDWICH ? ui->flame_pane : TAB_SANDWICH);
	p = &ui->panes[ui->active];
	p->ops->show(p, &ui->ctx, fn);
	strbuf_addstr(&ui->message, "marked: ");
	add_func_name(ui, &ui->message, fn);
	km = pane_keymaps[ui->active];
	strbuf_addstr(&ui->message, "  (");
	if (ui->active == TAB_SANDWICH) {
		keys_first_name(&ui->message, ui->keys, km, REQ_ZOOM, ui->disp.utf8);
		strbuf_addstr(&ui->message, ": back, marked; ");
	} else {
		keys_first_name(&ui->message, ui->keys, km, REQ_FIND_NEXT, ui->disp.utf8);
		strbuf_addch(&ui->message, ' ');
		keys_first_name(&ui->message, ui->keys, km, REQ_FIND_PREV, ui->disp.utf8);
		strbuf_addstr(&ui->message, ": its boxes; ");
	}
	keys_first_name(&ui->message, ui->keys, km, REQ_BACK, ui->disp.utf8);
	strbuf_addstr(&ui->message, ": unmark)");
}

/* / opens the prompt, empty: Up brings back the last pattern. */
static void
open_prompt(struct tui *ui)
{
	struct search_re *re = model_search_re(&ui->model);

	ui->prompting = true;
	ui->exporting = false;
	ui->prompt.lead = "/";
	prompt_set(&ui->prompt, "", 0);
	if (re) {
		strbuf_reset(&ui->last_pattern);
		strbuf_addstr(&ui->last_pattern, search_re_pattern(re));
	}
}

/*
 * Enter in the prompt: search for the pattern, or, when it does not
 * compile, say why in the prompt and leave it open. An empty pattern
 * clears the search.
 */
static void
apply_search(struct tui *ui)
{
	struct prompt *pr = &ui->prompt;
	struct tf_error err = TF_ERROR_INIT;
	struct search_re *re;
	const struct search *s;
	size_t at = SIZE_MAX;

	if (!pr->text.len) {
		ui->prompting = false;
		if (model_search(&ui->model)) {
			model_set_search(&ui->model, NULL);
			strbuf_addstr(&ui->message, "search cleared");
		}
		return;
	}
	re = search_re_new(pr->text.buf, pr->text.len, &at, &err);
	if (!re) {
		prompt_set_error(pr, tf_error_text(&err), at);
		tf_error_release(&err);
		return;
	}
	ui->prompting = false;
	strbuf_reset(&ui->last_pattern);
	strbuf_add(&ui->last_pattern, pr->text.buf, pr->text.len);
	model_set_search(&ui->model, re);
	s = model_search(&ui->model);
	if (!s->frames_matched) {
		strbuf_addstr(&ui->message, "no frame name matches /");
		text_escape(&ui->message, pr->text.buf, pr->text.len);
		strbuf_addstr(&ui->message, "/ (Esc clears the search)");
	}
}

/* ----------------------------------------------------------- copy, export */

/* What the active pane has selected and zoomed into. */
static void
active_selection(struct tui *ui, struct pane_selection *sel)
{
	struct pane *p = &ui->panes[ui->active];

	*sel = (struct pane_selection){ .set = ui->model.ps, .sel = STACK_ROOT,
					.zoom = STACK_ROOT, .name = STR_EMPTY };
	p->ops->selection(p, &ui->ctx, sel);
}

/*
 * Where y and Y put the text when the terminal does not take OSC 52: a
 * file of the user's own (in a shared /tmp, never through a link nor
 * into another user's file of that name).
 */
static int
clipboard_file(struct strbuf *path, const char *text, size_t len)
{
	const char *dir = getenv("TMPDIR");
	struct stat st;
	int fd;

	strbuf_addf(path, "%s/tflame-clipboard-%lu.txt", dir && *dir ? dir : "/tmp",
		    (unsigned long)getuid());
	fd = open(path->buf, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	errno = 0; /* another's file sets none: EPERM below */
	if (fstat(fd, &st) || st.st_uid != getuid() || ftruncate(fd, 0)) {
		int e = errno;

		close(fd);
		errno = e ? e : EPERM;
		return -1;
	}
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* y and Y: the selected frame's name, or its whole stack, to the clipboard. */
static void
copy_selection(struct tui *ui, bool stack)
{
	struct pane_selection sel;
	struct strbuf text = STRBUF_INIT, what = STRBUF_INIT, path = STRBUF_INIT;
	const struct profile_set *ps;
	uint32_t frames = 0;

	active_selection(ui, &sel);
	ps = sel.set;
	if (sel.sel != STACK_ROOT && stack) {
		uint32_t depth = ps->stacks[sel.sel].depth;
		stack_id *path_ids = xmalloc(sizeof(*path_ids) * depth);
		stack_id s = sel.sel;

		/* Up the parent links, then out root first: no recursion. */
		for (uint32_t i = depth; i > 0; s = ps->stacks[s].parent)
			path_ids[--i] = s;
		for (uint32_t i = 0; i < depth; i++) {
			stack_id k = path_ids[sel.inverted ? depth - 1 - i : i];

			strbuf_addstr(&text, ps_get(ps, ps->frames[ps->stacks[k].frame].name));
			strbuf_addch(&text, '\n');
		}
		free(path_ids);
		frames = depth;
		strbuf_addf(&what, "the stack of %u frame%s", frames, frames == 1 ? "" : "s");
	} else if (sel.sel != STACK_ROOT || (!stack && sel.name != STR_EMPTY)) {
		str_id name = sel.sel != STACK_ROOT ? ps->frames[ps->stacks[sel.sel].frame].name
						    : sel.name;
		struct strbuf esc = STRBUF_INIT;

		strbuf_addstr(&text, ps_get(ps, name));
		text_escape_str(&esc, text.buf);
		render_cut(&what, esc.buf, esc.len, COLS > 60 ? (unsigned)COLS / 2 : 30,
			   ui->disp.utf8);
		strbuf_release(&esc);
	} else {
		strbuf_addstr(&ui->message, stack ? "no box selected: nothing to copy"
						  : "nothing selected to copy");
		goto out;
	}
	if (display_clipboard(&ui->disp, text.buf, text.len)) {
		strbuf_addf(&ui->message, "copied %s to the clipboard", what.buf);
	} else if (!clipboard_file(&path, text.buf, text.len)) {
		strbuf_addf(&ui->message, "copied %s to ", what.buf);
		text_escape_str(&ui->message, path.buf);
		strbuf_addstr(&ui->message, " (this terminal does not take OSC 52)");
	} else {
		strbuf_addstr(&ui->message, "this terminal does not take OSC 52, and ");
		text_escape_str(&ui->message, path.buf);
		strbuf_addf(&ui->message, " cannot be written: %s", strerror(errno));
	}
out:
	strbuf_release(&text);
	strbuf_release(&what);
	strbuf_release(&path);
}

/* x opens the prompt with the last file name, or the profile's with .svg. */
static void
open_export(struct tui *ui)
{
	ui->prompting = true;
	ui->exporting = true;
	ui->export_asked = false;
	ui->prompt.lead = "export to: ";
	if (!ui->last_export.len) {
		const char *base = base_name(ui->path), *dot = strrchr(base, '.');

		if (!strcmp(ui->path, "-"))
			base = "tflame", dot = NULL;
		strbuf_add(&ui->last_export, base, dot && dot != base ? (size_t)(dot - base)
									 : strlen(base));
		strbuf_addstr(&ui->last_export, export_format_extension(EXPORT_SVG));
	}
	prompt_set(&ui->prompt, ui->last_export.buf, ui->last_export.len);
}

/* Tab in x's prompt: the next format, by the file name's extension. */
static void
export_next_format(struct tui *ui)
{
	struct prompt *pr = &ui->prompt;
	enum export_format f = export_format_of_path(pr->text.buf);
	const char *slash = strrchr(pr->text.buf, '/');
	const char *dot = strrchr(slash ? slash : pr->text.buf, '.');
	struct strbuf name = STRBUF_INIT;

	strbuf_add(&name, pr->text.buf, dot ? (size_t)(dot - pr->text.buf) : pr->text.len);
	strbuf_addstr(&name, export_format_extension((f + 1) % EXPORT_NR_FORMATS));
	prompt_set(pr, name.buf, name.len);
	strbuf_release(&name);
}

/*
 * Enter in x's prompt: write the lens (profile, threads, the zoom of the
 * pane) to the file, in the format its name says; on failure say why in
 * the prompt and leave it open.
 */
static void
apply_export(struct tui *ui)
{
	struct prompt *pr = &ui->prompt;
	struct export_svg_options svg = EXPORT_SVG_OPTIONS_INIT;
	struct tf_error err = TF_ERROR_INIT;
	struct export_result res;
	struct export_lens el = { 0 };
	struct inverted_export ie;
	struct pane_selection sel;
	enum export_format f;
	FILE *out;

	if (!pr->text.len) {
		ui->prompting = false;
		return;
	}
	/* An edit clears the question: the name asked about is the one shown. */
	if (!(ui->export_asked && pr->error.len) && !access(pr->text.buf, F_OK)) {
		ui->export_asked = true;
		prompt_set_error(pr, "exists: Enter overwrites, Esc keeps it", SIZE_MAX);
		return;
	}
	ui->export_asked = false;
	f = export_format_of_path(pr->text.buf);
	active_selection(ui, &sel);
	model_export_lens(&ui->model, &el);
	el.zoom = sel.set == el.ps ? sel.zoom : STACK_ROOT;
	el.title = ui->path;
	el.base = diff_other(ui->model.ps, el.p);
	/* Left Heavy inverted exports what it shows: the stacks read from the leaf. */
	if (ui->model.inverted) {
		inverted_export_lens(model_inverted(&ui->model), &el, &ie);
		el.zoom = sel.set == el.ps ? sel.zoom : STACK_ROOT;
	}
	svg.icicle = !ui->ctx.flip;
	svg.color = ui->ctx.color;
	out = fopen(pr->text.buf, "w");
	if (!out) {
		tf_error_set(&err, "cannot write: %s", strerror(errno));
	} else {
		int ret = export_write(&el, f, &svg, out, &res, &err);

		if (fclose(out) && !ret)
			tf_error_set(&err, "cannot write: %s", strerror(errno));
	}
	if (err.msg) {
		prompt_set_error(pr, tf_error_text(&err), SIZE_MAX);
		tf_error_release(&err);
		return;
	}
	ui->prompting = false;
	strbuf_reset(&ui->last_export);
	strbuf_add(&ui->last_export, pr->text.buf, pr->text.len);
	strbuf_addf(&ui->message, "wrote %s", export_format_name(f));
	if (el.zoom != STACK_ROOT)
		strbuf_addstr(&ui->message, " of the zoomed box");
	strbuf_addf(&ui->message, " (%llu %s%s", (unsigned long long)res.items,
		    f == EXPORT_FOLDED ? "stack" : f == EXPORT_SPEEDSCOPE ? "sample" : "box",
		    res.items == 1 ? "" : f == EXPORT_SVG ? "es" : "s");
	if (f == EXPORT_SPEEDSCOPE)
		strbuf_addf(&ui->message, " of %u thread%s", res.threads,
			    res.threads == 1 ? "" : "s");
	strbuf_addstr(&ui->message, ") to ");
	text_escape(&ui->message, pr->text.buf, pr->text.len);
}

/*
 * Where keys type text (the prompts, the picker's filter), a control key
 * that suspends elsewhere (Ctrl-Z) suspends here too. True if it did.
 */
static bool
typing_suspend(struct tui *ui, int key)
{
	if (key < 0 || key >= ' ' || keys_request(ui->keys, KEYMAP_GENERIC, key) != REQ_SUSPEND)
		return false;
	display_suspend(&ui->disp);
	return true;
}

static void
prompt_input(struct tui *ui, int key)
{
	enum prompt_result r = prompt_key(&ui->prompt, key);

	if (ui->exporting) {
		if (r == PROMPT_ENTER)
			apply_export(ui);
		else if (r == PROMPT_CANCEL)
			ui->prompting = false;
		else if (r == PROMPT_IGNORED && key == '\t')
			export_next_format(ui);
		return;
	}
	switch (r) {
	case PROMPT_ENTER:
		apply_search(ui);
		break;
	case PROMPT_CANCEL:
		ui->prompting = false;
		break;
	case PROMPT_IGNORED:
		if (key == KEY_UP && ui->last_pattern.len)
			prompt_set(&ui->prompt, ui->last_pattern.buf, ui->last_pattern.len);
		break;
	case PROMPT_EDITED:
		break;
	}
}

/*
 * A key for the thread picker: a request of its keymap, else typing for
 * its filter; y is the pointer's row for mouse keys, else -1.
 */
static void
picker_input(struct tui *ui, int key, int y)
{
	enum request req = keys_request(ui->keys, KEYMAP_PICKER, key);
	struct strbuf what = STRBUF_INIT;
	enum picker_result r;

	if (req == REQ_NONE && typing_suspend(ui, key))
		return;
	if (req != REQ_NONE)
		r = picker_request(&ui->picker, &ui->model, req, y, ui->keys, &ui->message);
	else if (key >= KEYS_CLICK)
		r = PICKER_STAY; /* the mouse does not type */
	else
		r = picker_type(&ui->picker, &ui->model, key);
	switch (r) {
	case PICKER_APPLY: {
		/* Ticks among this profile's threads: the same threads in the others. */
		bool *mask = xmemdup(picker_mask(&ui->picker),
				     sizeof(*mask) * ((size_t)ui->model.ps->nr_threads + 1));

		model_carry_threads(&ui->model, mask);
		model_set_threads(&ui->model, mask);
		free(mask);
		picker_close(&ui->picker);
		ui->picking = false;
		announce_build(ui, ui->active);
		picker_describe(&ui->model, ui->disp.utf8, &what);
		strbuf_addf(&ui->message, "showing %s", what.buf);
		break;
	}
	case PICKER_CANCEL:
		picker_close(&ui->picker);
		ui->picking = false;
		break;
	case PICKER_STAY:
		break;
	}
	strbuf_release(&what);
}

/* Esc with no zoom to leave: the search or the marks go. */
static void
clear_search(struct tui *ui)
{
	if (model_search_func(&ui->model) != FUNC_NONE) {
		model_set_search(&ui->model, NULL);
		strbuf_addstr(&ui->message, "marks cleared");
		return;
	}
	if (model_search_re(&ui->model)) {
		model_set_search(&ui->model, NULL);
		strbuf_addstr(&ui->message, "search cleared");
		return;
	}
	if (ui->model.lens.timed) {
		model_set_time(&ui->model, false, 0, 0);
		announce_build(ui, ui->active);
		strbuf_addstr(&ui->message, "the whole time range again");
		return;
	}
	strbuf_addstr(&ui->message, "not zoomed in");
}

static void
next_event(struct tui *ui)
{
	const struct profile_set *ps = ui->model.ps;
	const struct profile *p;

	if (ps->nr_profiles < 2) {
		strbuf_addstr(&ui->message, "this file holds one profile");
		return;
	}
	model_set_profile(&ui->model, (ui->model.lens.profile + 1) % ps->nr_profiles);
	announce_build(ui, ui->active);
	p = model_profile(&ui->model);
	strbuf_addstr(&ui->message, "showing ");
	text_escape_str(&ui->message, ps_get(ps, p->name));
	strbuf_addf(&ui->message, " (%zu of %zu)", ui->model.lens.profile + 1, ps->nr_profiles);
	if (ui->model.lens.threads) {
		const struct thread_table *tt = model_thread_weights(&ui->model);
		struct strbuf what = STRBUF_INIT;
		uint32_t shown = 0;

		for (uint32_t i = 0; i < tt->nr_threads; i++)
			shown += ui->model.lens.threads[tt->threads[i].thread];
		picker_describe(&ui->model, ui->disp.utf8, &what);
		if (!shown) {
			/* The filter stays, for the events that have its threads. */
			strbuf_addstr(&ui->message, ": none of the chosen threads has samples here (");
			keys_first_name(&ui->message, ui->keys, pane_keymaps[ui->active],
					REQ_THREADS, ui->disp.utf8);
			strbuf_addstr(&ui->message, ": pick others)");
		} else {
			strbuf_addf(&ui->message, ", %s", what.buf);
		}
		strbuf_release(&what);
	}
}

/* ------------------------------------------------------------ transforms */

/* The transform of each request after x, in the order of the key table. */
static const struct {
	enum request req;
	enum lens_kind kind;
	const char *brief; /* its word on a narrow screen, after the key before it */
} transform_keys[] = {
	{ REQ_TX_FOCUS_SUBTREE, LENS_FOCUS_SUBTREE, "focus" },
	{ REQ_TX_FOCUS_FUNCTION, LENS_FOCUS_FUNCTION, "fn" },
	{ REQ_TX_FOCUS_INVERTED, LENS_FOCUS_FUNCTION_INVERTED, "callers" },
	{ REQ_TX_MERGE_FUNCTION, LENS_MERGE_FUNCTION, "merge" },
	{ REQ_TX_MERGE_CALL_NODE, LENS_MERGE_CALL_NODE, "node" },
	{ REQ_TX_DROP_FUNCTION, LENS_DROP_FUNCTION, "drop" },
	{ REQ_TX_COLLAPSE_SUBTREE, LENS_COLLAPSE_SUBTREE, "collapse" },
	{ REQ_TX_COLLAPSE_MODULE, LENS_COLLAPSE_MODULE, "module" },
	{ REQ_TX_COLLAPSE_RECURSION, LENS_COLLAPSE_RECURSION, "rec" },
	{ REQ_TX_COLLAPSE_DIRECT, LENS_COLLAPSE_DIRECT_RECURSION, "direct" },
};

/*
 * The function a transform by function takes from sel: the selected
 * box's (its frame's), or the selected row's; FUNC_NONE if none.
 */
static func_id
selected_func(struct tui *ui, const struct pane_selection *sel)
{
	const struct func_table *ft = model_funcs(&ui->model);

	if (sel->set && sel->sel != STACK_ROOT)
		return ft->frame_func[sel->set->stacks[sel->sel].frame];
	for (func_id f = 0; sel->name != STR_EMPTY && f < ft->nr_funcs; f++)
		if (ft->funcs[f].name == sel->name)
			return f;
	return FUNC_NONE;
}

/* a: say which keys come next, from the key table. */
static void
start_transform(struct tui *ui)
{
	struct pane_selection sel;
	size_t at;

	active_selection(ui, &sel);
	if (selected_func(ui, &sel) == FUNC_NONE) {
		strbuf_addstr(&ui->message, "nothing selected to transform by");
		return;
	}
	ui->transforming = true;
	at = ui->message.len;
	/*
	 * Every key must show: the transforms' names where they fit, else
	 * a word each, else without the lead (80 columns; ? has them all).
	 */
	for (int form = 0; form < 3; form++) {
		strbuf_setlen(&ui->message, at);
		if (form < 2)
			strbuf_addstr(&ui->message, "transform:");
		for (size_t i = 0; i < ARRAY_SIZE(transform_keys); i++) {
			if (ui->message.len > at)
				strbuf_addch(&ui->message, ' ');
			keys_first_name(&ui->message, ui->keys, KEYMAP_TRANSFORM,
					transform_keys[i].req, ui->disp.utf8);
			strbuf_addch(&ui->message, ' ');
			strbuf_addstr(&ui->message,
				      form ? transform_keys[i].brief
					   : lens_kind_ops(transform_keys[i].kind)->name);
		}
		if (render_width(ui->message.buf + at, ui->message.len - at) < (unsigned)COLS)
			break;
	}
}

/*
 * Append sep and the lens's breadcrumbs (none with sep NULL), then the
 * key of req with what it does: ": merge foo  (u undoes)".
 */
static void
add_crumbs(struct tui *ui, const char *sep, enum request req, const char *does)
{
	struct strbuf crumbs = STRBUF_INIT;

	if (sep) {
		strbuf_addstr(&ui->message, sep);
		lens_describe(&ui->model.lens, &crumbs);
		text_escape(&ui->message, crumbs.buf, crumbs.len);
		strbuf_release(&crumbs);
	}
	strbuf_addstr(&ui->message, "  (");
	keys_first_name(&ui->message, ui->keys, pane_keymaps[ui->active], req, ui->disp.utf8);
	strbuf_addstr(&ui->message, does);
	strbuf_addch(&ui->message, ')');
}

/* Say what the lens is now: "merge foo > focus bar" after what. */
static void
say_lens(struct tui *ui, const char *what)
{
	strbuf_addstr(&ui->message, what);
	if (lens_reshaped(&ui->model.lens))
		add_crumbs(ui, ": ", REQ_UNDO, " undoes");
	else
		strbuf_addstr(&ui->message, ": no transform");
}

/* Whether any thread of ps has a pid: perf script prints none by default. */
static bool
any_pid(const struct profile_set *ps)
{
	for (thread_id t = 0; t < ps->nr_threads; t++)
		if (ps->threads[t].pid >= 0)
			return true;
	return false;
}

static bool
perf_text(const struct profile_set *ps)
{
	return ps->perf_script;
}

/* After P: "not by process: merge gc  (P again: back)". */
static void
say_by_process(struct tui *ui)
{
	bool on = ui->model.lens.by_process;

	strbuf_addstr(&ui->message, on ? "grouped by process" : "not by process");
	if (on && !any_pid(ui->model.ps))
		/* "xz-?" names a comm: say where the pids are. */
		strbuf_addstr(&ui->message, perf_text(ui->model.ps)
						    ? " (no pids: perf script -F +pid)"
						    : " (no pids here)");
	/* Grouped, the breadcrumbs start with it: say only what is on top. */
	add_crumbs(ui, !ui->model.lens.nr_levels ? NULL : on ? ", the lens: " : ": ",
		   REQ_BY_PROCESS, " again: back");
}

/* The key after a: apply its transform by the pane's selection. */
static void
apply_transform(struct tui *ui, enum request req)
{
	struct model *m = &ui->model;
	struct pane_selection sel;
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf arg = STRBUF_INIT;
	const struct lens_kind_ops *ops = NULL;
	enum lens_kind kind = LENS_MERGE_FUNCTION;
	func_id fn;

	for (size_t i = 0; i < ARRAY_SIZE(transform_keys); i++)
		if (transform_keys[i].req == req) {
			kind = transform_keys[i].kind;
			ops = lens_kind_ops(kind);
		}
	if (!ops) {
		strbuf_addstr(&ui->message, "no transform");
		return;
	}
	active_selection(ui, &sel);
	fn = selected_func(ui, &sel);
	if (ops->arg == LENS_ARG_PATH) {
		/* A path of the lens's own stacks: not of a Sandwich tree. */
		if (sel.set != model_view(m) || sel.sel == STACK_ROOT || sel.inverted) {
			strbuf_addf(&ui->message, "%s takes a box of Left Heavy or Time Order",
				    ops->name);
			return;
		}
		lens_path_text(sel.set, sel.sel, &arg);
	} else if (fn == FUNC_NONE) {
		strbuf_addstr(&ui->message, "nothing selected to transform by");
		return;
	} else {
		const struct func *f = &model_funcs(m)->funcs[fn];

		if (ops->arg == LENS_ARG_MODULE && f->module == STR_EMPTY) {
			strbuf_addstr(&ui->message, "the function has no module to collapse");
			return;
		}
		/* The symbols job reads the set, and collapse-module adds frames to it. */
		if (ops->arg == LENS_ARG_MODULE && ui->sym.job) {
			strbuf_addstr(&ui->message, "collapse-module waits for the symbols");
			return;
		}
		lens_quote_name(ps_get(m->ps, ops->arg == LENS_ARG_MODULE ? f->module : f->name),
				&arg);
	}
	if (model_push_transform(m, kind, arg.buf, &err)) {
		strbuf_addstr(&ui->message, ops->name);
		strbuf_addstr(&ui->message, ": ");
		text_escape_str(&ui->message, tf_error_text(&err));
	} else {
		announce_build(ui, ui->active);
		say_lens(ui, ops->name);
	}
	strbuf_release(&arg);
	tf_error_release(&err);
}

/* Count only [t0, t1): r, or a drag across Time Order's chart. */
static void
count_time_range(struct tui *ui, int64_t t0, int64_t t1)
{
	const struct profile *prof = model_profile(&ui->model);

	model_set_time(&ui->model, true, t0, t1);
	announce_build(ui, ui->active);
	strbuf_addf(&ui->message, "counting only %.3f–%.3f s in Left Heavy, Sandwich and the "
				  "search (",
		    (double)(t0 - prof->time_min) / 1e9, (double)(t1 - prof->time_min) / 1e9);
	keys_first_name(&ui->message, ui->keys, pane_keymaps[ui->active], REQ_UNDO,
			ui->disp.utf8);
	strbuf_addstr(&ui->message, " drops it)");
}

/* r in Time Order: the time range on screen becomes the lens's. */
static void
set_time_range(struct tui *ui)
{
	struct pane_selection sel;

	active_selection(ui, &sel);
	if (!sel.timed) {
		strbuf_addstr(&ui->message, "a time range is taken in Time Order, of a profile "
					    "with times: zoom to it there");
		return;
	}
	count_time_range(ui, sel.t0, sel.t1);
}

/* w: the transforms into tflame.lens, for --lens. */
static void
write_lens(struct tui *ui)
{
	static const char path[] = "tflame.lens";
	struct strbuf sb = STRBUF_INIT;
	FILE *f;

	if (!lens_reshaped(&ui->model.lens)) {
		strbuf_addstr(&ui->message, "no transform to write");
		return;
	}
	lens_write(&ui->model.lens, &sb);
	f = fopen(path, "w");
	if (!f || fwrite(sb.buf, 1, sb.len, f) != sb.len || fclose(f)) {
		strbuf_addf(&ui->message, "cannot write %s: %s", path, strerror(errno));
		if (f)
			fclose(f);
	} else {
		strbuf_addf(&ui->message, "wrote %u transform%s%s to %s (tflame --lens=%s)",
			    ui->model.lens.nr_levels, ui->model.lens.nr_levels == 1 ? "" : "s",
			    ui->model.lens.by_process ? " and by process" : "", path, path);
	}
	strbuf_release(&sb);
}

/* o on a box or a row: the source view of its function over the panes. */
static void
open_source(struct tui *ui, uint32_t func, frame_id frame)
{
	pane_announce(&ui->ctx, "the weights of the source lines");
	ui->source = source_pane_open(&ui->model, &ui->where, func, frame);
}

/*
 * A request while the source view is open: it takes them all but those
 * that work everywhere (the help, Ctrl-C, Ctrl-L, Ctrl-Z). True if the
 * request was taken.
 */
static bool
source_request(struct tui *ui, enum request req, const struct pane_input *in)
{
	switch (req) {
	case REQ_HELP:
	case REQ_INTERRUPT:
	case REQ_REDRAW:
	case REQ_SUSPEND:
		return false;
	default:
		break;
	}
	if (!source_pane_request(ui->source, req, in, &ui->message)) {
		source_pane_free(ui->source);
		ui->source = NULL;
	}
	return true;
}

/* D and b: the normalisation of a comparison, and its sides. */
static void
diff_request(struct tui *ui, enum request req)
{
	struct model *m = &ui->model;

	if (!model_diff_base(m)) {
		strbuf_addstr(&ui->message, "not comparing two profiles: tflame BASE NEW "
					    "opens a comparison");
		return;
	}
	if (req == REQ_DIFF_NORMALIZE) {
		model_set_diff_normalize(m, !model_diff_normalized(m));
		strbuf_addstr(&ui->message, model_diff_normalized(m)
					    ? "normalised: the base scaled to the total shown"
					    : "raw: the base's own weights");
		return;
	}
	if (!model_swap_diff(m)) {
		strbuf_addstr(&ui->message, "cannot swap the sides here");
		return;
	}
	ui->diff_swapped = !ui->diff_swapped;
	announce_build(ui, ui->active);
	strbuf_addstr(&ui->message, ui->diff_swapped
				    ? "swapped: the base shown, compared with the new profile "
				      "(red: more in the base)"
				    : "the new profile shown, compared with the base");
}

static void
handle(struct tui *ui, enum request req, const struct pane_input *in)
{
	static const char *const color_names[COLOR_NR_MODES] = {
		[COLOR_BY_FUNCTION] = "colours by function",
		[COLOR_BY_MODULE] = "colours by module",
		[COLOR_BY_KIND] = "colours by kind: kernel orange, JIT green, inlined aqua, "
				  "user red",
	};
	struct pane *p = &ui->panes[ui->active];

	if (ui->paging && page_request(ui, req))
		return;
	if (ui->source && !ui->paging && source_request(ui, req, in))
		return;
	if (keys_is_later(req)) {
		strbuf_addf(&ui->message, "%s: comes in a later version", keys_help(req));
		return;
	}
	if (ui->transforming) {
		ui->transforming = false;
		apply_transform(ui, req);
		return;
	}
	switch (req) {
	case REQ_TRANSFORM:
		start_transform(ui);
		return;
	case REQ_UNDO:
		if (model_pop_transform(&ui->model)) {
			announce_build(ui, ui->active);
			say_lens(ui, "undone");
		} else if (ui->model.lens.timed) {
			/* The time range is the lens's first step: it goes last. */
			model_set_time(&ui->model, false, 0, 0);
			announce_build(ui, ui->active);
			strbuf_addstr(&ui->message, "the whole time range again");
		} else {
			strbuf_addstr(&ui->message, "no transform to undo");
		}
		return;
	case REQ_REDO:
		if (!model_redo_transform(&ui->model)) {
			strbuf_addstr(&ui->message, "no transform to redo");
			return;
		}
		announce_build(ui, ui->active);
		say_lens(ui, "redone");
		return;
	case REQ_WRITE_LENS:
		write_lens(ui);
		return;
	case REQ_BY_PROCESS:
		/* The symbols job reads the set, and grouping adds process frames to it. */
		if (ui->sym.job && !ui->model.lens.by_process) {
			ui->by_process_later = !ui->by_process_later;
			strbuf_addstr(&ui->message, ui->by_process_later
						    ? "grouping by process once the symbols are in"
						    : "not grouping by process after all");
			return;
		}
		/* A toggle below the transforms, which are built again over it. */
		model_set_by_process(&ui->model, !ui->model.lens.by_process);
		announce_build(ui, ui->active);
		say_by_process(ui);
		return;
	case REQ_TIME_RANGE:
		set_time_range(ui);
		return;
	case REQ_COUNT_SAMPLES:
		if (!model_set_count_samples(&ui->model, !ui->model.lens.count_samples)) {
			const char *fmt = ui->model.ps->format;

			if (ui->model.ps->profiles[ui->model.lens.profile]->no_samples)
				strbuf_addf(&ui->message, "no samples to count: %s%s records "
					    "weights, not samples", fmt ? "a " : "this file",
					    fmt ? fmt : "");
			else
				strbuf_addstr(&ui->message, "this profile's weights are counts or "
							    "lengths in time already");
			return;
		}
		announce_build(ui, ui->active);
		strbuf_addstr(&ui->message, ui->model.lens.count_samples
					    ? "weighing by sample counts"
					    : "weighing by the samples' weights");
		return;
	case REQ_DIFF_NORMALIZE:
	case REQ_DIFF_SWAP:
		diff_request(ui, req);
		return;
	case REQ_QUIT:
	case REQ_INTERRUPT:
		ui->quit = true;
		return;
	case REQ_HELP:
		open_help(ui);
		return;
	case REQ_WARNINGS:
		open_warnings(ui);
		return;
	case REQ_LEFT_HEAVY:
		switch_pane(ui, TAB_LEFT_HEAVY);
		return;
	case REQ_TIME_ORDER:
		switch_pane(ui, TAB_TIME_ORDER);
		return;
	case REQ_SANDWICH:
		switch_pane(ui, TAB_SANDWICH);
		return;
	case REQ_SEARCH:
		open_prompt(ui);
		return;
	case REQ_COPY_NAME:
	case REQ_COPY_STACK:
		copy_selection(ui, req == REQ_COPY_STACK);
		return;
	case REQ_EXPORT:
		open_export(ui);
		return;
	case REQ_THREADS:
		picker_open(&ui->picker, &ui->model);
		ui->picking = true;
		return;
	case REQ_NEXT_EVENT:
		next_event(ui);
		return;
	case REQ_COLORS:
		ui->ctx.color = (ui->ctx.color + 1) % COLOR_NR_MODES;
		strbuf_addstr(&ui->message, color_names[ui->ctx.color]);
		if (model_diff_base(&ui->model))
			strbuf_addstr(&ui->message, " (comparing: Left Heavy and Sandwich colour "
						    "by the change; Time Order by this)");
		else if (!ui->disp.colors)
			strbuf_addstr(&ui->message, " (no colours on this terminal, or NO_COLOR)");
		return;
	case REQ_INVERT:
		/* A view of Left Heavy: show it there. */
		model_set_inverted(&ui->model, !ui->model.inverted);
		if (ui->active != TAB_LEFT_HEAVY)
			switch_pane(ui, TAB_LEFT_HEAVY);
		strbuf_addstr(&ui->message, ui->model.inverted
					    ? "inverted: the frames that ran on row 0, their "
					      "callers below"
					    : "not inverted: the outermost frames on row 0");
		return;
	case REQ_FLIP:
		ui->ctx.flip = !ui->ctx.flip;
		strbuf_addstr(&ui->message, ui->ctx.flip ? "root at the bottom"
							 : "root at the top (icicle)");
		return;
	case REQ_REDRAW:
		clearok(curscr, TRUE);
		return;
	case REQ_SUSPEND:
		display_suspend(&ui->disp);
		return;
	default:
		break;
	}
	/* A pane writes a page from scratch: the last one (the help) is gone. */
	strbuf_reset(&ui->page);
	switch (p->ops->request(p, &ui->ctx, req, in)) {
	case PANE_PAGE:
		page_open(ui);
		break;
	case PANE_SHOW_FUNC:
		show_func(ui, ui->ctx.show_func);
		break;
	case PANE_SHOW_SOURCE:
		open_source(ui, ui->ctx.show_func, ui->ctx.show_frame);
		break;
	case PANE_IGNORED:
		/* What the pane leaves: Tab moves between panes, Esc clears the search. */
		if (req == REQ_NEXT_PANE)
			switch_pane(ui, (ui->active + 1) % NR_PANES);
		else if (req == REQ_PREV_PANE)
			switch_pane(ui, (ui->active + NR_PANES - 1) % NR_PANES);
		else if (req == REQ_BACK)
			clear_search(ui);
		break;
	case PANE_DONE:
		break;
	}
}

/* A click on a tab switches to it; true if the click was on the tab bar. */
static bool
click_tabs(struct tui *ui, int x, int y)
{
	if (y != 0 || ui->paging || ui->source)
		return false;
	for (int t = 0; t < NR_TABS; t++)
		if (x >= ui->tab_x0[t] && x < ui->tab_x1[t])
			switch_pane(ui, (size_t)t);
	return true;
}


/* Two clicks on one cell this close together are a double click. */
#define DOUBLE_CLICK_MS 400

/*
 * Button 1 dragged to ev (end: released there): the active pane shows
 * the drag, and at its end counts the time range it covers. Whether the
 * pane takes it.
 */
static bool
mouse_drag(struct tui *ui, const MEVENT *ev, bool end)
{
	struct pane *p = &ui->panes[ui->active];
	int64_t t0, t1;

	ui->mouse.to = (struct pane_input){ ev->x, ev->y };
	if (!p->ops->drag || ui->source ||
	    !p->ops->drag(p, &ui->ctx, &ui->mouse.from, &ui->mouse.to, end, &t0, &t1))
		return false;
	if (end) {
		count_time_range(ui, t0, t1);
	} else {
		const struct profile *prof = model_profile(&ui->model);

		strbuf_addf(&ui->message, "%.3f–%.3f s: release to count only this range",
			    (double)(t0 - prof->time_min) / 1e9, (double)(t1 - prof->time_min) / 1e9);
	}
	return true;
}

/*
 * A mouse event as a KEYS_* code of the key table, *in the cell it is
 * for; 0 for none. Button 1's press and release make a click there (two
 * on one cell, a double click), or, released in another column (drags
 * true), a drag: then *dirty says whether the screen shows it.
 */
static int
mouse_key(struct tui *ui, const MEVENT *ev, bool drags, struct pane_input *in, bool *dirty)
{
	double now;

	*in = (struct pane_input){ ev->x, ev->y };
	*dirty = false;
	if (ev->bstate & BUTTON4_PRESSED)
		return KEYS_WHEEL_UP;
#ifdef BUTTON5_PRESSED
	if (ev->bstate & BUTTON5_PRESSED)
		return KEYS_WHEEL_DOWN;
#endif
	if (ev->bstate & BUTTON1_PRESSED) {
		ui->mouse.down = true;
		ui->mouse.dragging = false;
		ui->mouse.from = *in;
		return 0;
	}
	/* A release whose press went unseen is a click where it is. */
	if (!ui->mouse.down && (ev->bstate & BUTTON1_RELEASED))
		ui->mouse.from = *in;
	else if (!ui->mouse.down)
		return 0;
	if (ev->x != ui->mouse.from.x)
		ui->mouse.dragging = drags;
	if (!(ev->bstate & BUTTON1_RELEASED)) {
		/* Motion with the button down. */
		*dirty = ui->mouse.dragging && mouse_drag(ui, ev, false);
		return 0;
	}
	ui->mouse.down = false;
	if (ui->mouse.dragging) {
		*dirty = true;
		ui->mouse.dragging = false;
		/* A drag the pane has no use for is no click either. */
		mouse_drag(ui, ev, true);
		return 0;
	}
	*in = ui->mouse.from;
	now = clock_ms();
	if (now - ui->mouse.click_ms < DOUBLE_CLICK_MS && in->x == ui->mouse.click_at.x &&
	    in->y == ui->mouse.click_at.y) {
		ui->mouse.click_ms = 0;
		return KEYS_DOUBLE_CLICK;
	}
	ui->mouse.click_ms = now;
	ui->mouse.click_at = *in;
	return KEYS_CLICK;
}

/* The mouse events curses may have queued from one read. */
#define MOUSE_EVENTS 16

static void unknown_key(struct tui *ui, int key);

/* A key (or a KEYS_* mouse code, the pointer at in) for the panes. */
static void
input_key(struct tui *ui, int key, const struct pane_input *in)
{
	enum request req;

	if (ui->picking) {
		picker_input(ui, key, -1);
		return;
	}
	req = keys_request(ui->keys, active_keymap(ui), key);
	if (req == REQ_NONE) {
		if (ui->paging) {
			ui->paging = false;
		} else if (ui->transforming) {
			/* The transform keymap has no fallback: another key cancels. */
			ui->transforming = false;
			strbuf_addstr(&ui->message, "no transform");
		} else {
			unknown_key(ui, key);
		}
		return;
	}
	handle(ui, req, in);
}

static void
unknown_key(struct tui *ui, int key)
{
	strbuf_addstr(&ui->message, "no action on ");
	keys_name(&ui->message, key, ui->disp.utf8);
	strbuf_addstr(&ui->message, ": ");
	keys_first_name(&ui->message, ui->keys, active_keymap(ui), REQ_HELP, ui->disp.utf8);
	strbuf_addstr(&ui->message, " lists the keys");
}

/* One line per key: its time in ms, in the order the keys came. */
static void
timing_write(struct tui *ui)
{
	FILE *f;

	if (ui->timing_path && (f = fopen(ui->timing_path, "w"))) {
		for (size_t i = 0; i < ui->timing_keys; i++)
			fprintf(f, "%.4f\n", ui->timing_ms[i]);
		fclose(f);
	}
	free(ui->timing_ms);
}

/* ---------------------------------------------------------------- symbols */

static void *
symbols_worker(void *arg)
{
	struct tui_symbols *sym = arg;
	struct rewrite_opts o = { .done = &sym->done, .total = &sym->total,
				  .cancel = &sym->cancel };

	xheap_huge_pages();
	for (double waited = 0; waited < sym->delay && !atomic_load(&sym->cancel); waited += 0.01)
		nanosleep(&(struct timespec){ 0, 10000000L }, NULL);
	sym->ok = symbols_job_run(sym->job, &o);
	atomic_store(&sym->finished, 1);
	return NULL;
}

/*
 * Start resolving the symbols of the model's set, once the first screen
 * is out: on two cores, the thread would otherwise slow it down.
 */
static void
symbols_start(struct tui *ui)
{
	int rc;

	if (!ui->sym.job || ui->sym.started)
		return;
	rc = pthread_create(&ui->sym.thread, NULL, symbols_worker, &ui->sym);
	if (rc)
		die("cannot start a thread: %s", strerror(rc));
	ui->sym.started = true;
}

/* Stop the symbols, at once: on the way out. */
static void
symbols_stop(struct tui *ui)
{
	if (!ui->sym.job)
		return;
	atomic_store(&ui->sym.cancel, 1);
	if (ui->sym.started)
		pthread_join(ui->sym.thread, NULL);
	symbols_job_free(ui->sym.job);
	ui->sym.job = NULL;
}

/*
 * The resolved set into the model: every pane keeps its selection and
 * zoom on the same call paths, and a marked function stays marked.
 */
static void
symbols_take(struct tui *ui)
{
	struct model *m = &ui->model;
	uint32_t nr = m->ps->nr_stacks;
	size_t warnings = m->ps->nr_diags;
	func_id marked = model_search_func(m);
	struct func mark = { STR_EMPTY, STR_EMPTY };
	stack_id *map;
	unsigned long n;

	/* Its name and module keep their str_ids; its id does not. */
	if (marked != FUNC_NONE)
		mark = m->funcs.funcs[marked];
	n = symbols_job_apply(ui->sym.job, m->ps, &map);
	for (size_t i = 0; i < NR_PANES; i++)
		if (ui->panes[i].ops->remap)
			ui->panes[i].ops->remap(&ui->panes[i], &ui->ctx, map, nr);
	model_set_changed(m);
	if (ui->by_process_later) {
		ui->by_process_later = false;
		model_set_by_process(m, true);
	}
	if (marked != FUNC_NONE) {
		func_id f = model_func_find(m, mark.name, mark.module);

		if (f != FUNC_NONE)
			model_set_search_func(m, f);
	}
	free(map);
	symbols_job_free(ui->sym.job);
	ui->sym.job = NULL;
	if (ui->message.len)
		strbuf_addstr(&ui->message, "; ");
	strbuf_addf(&ui->message, "symbols done: %lu address%s resolved", n, n == 1 ? "" : "es");
	if (m->ps->nr_diags > warnings) {
		strbuf_addstr(&ui->message, " (a warning");
		add_warnings_key(ui, &ui->message);
		strbuf_addch(&ui->message, ')');
	}
}

/*
 * At every key and tick while symbols resolve: true when the screen must
 * change, because they are ready (and taken) or their percentage moved.
 * They wait while a view that keeps ids of its own is open (the source
 * view, the thread picker).
 */
static bool
symbols_poll(struct tui *ui)
{
	struct tui_symbols *sym = &ui->sym;

	if (!sym->job || !sym->started)
		return false;
	if (!atomic_load(&sym->finished))
		return symbols_percent(sym) != sym->shown;
	if (ui->source || ui->picking)
		return false;
	pthread_join(sym->thread, NULL);
	if (!sym->ok) {
		symbols_job_free(sym->job);
		sym->job = NULL;
		return true;
	}
	symbols_take(ui);
	return true;
}

/* A group of fewer samples is made at P in no time: not worth its memory ahead. */
#define GROUP_AHEAD_SAMPLES 1000000

/*
 * Once the first screen is out and the symbols are in, a profile of
 * several processes and millions of samples starts its group by process
 * on a thread of its own (model_prepare_group()), so that the first P
 * is a swap rather than a build of a trie of (stack, process) pairs:
 * 300 to 500 ms at 10 M samples. It costs the group's memory (about 10
 * bytes a sample) whether P comes or not.
 */
static void
group_ahead(struct tui *ui)
{
	const struct profile_set *ps = ui->model.ps;
	const char *env = getenv("TFLAME_GROUP_AHEAD");
	size_t samples = 0, min = env ? strtoull(env, NULL, 10) : GROUP_AHEAD_SAMPLES;
	bool several = false;

	if (ui->group_tried || ui->sym.job)
		return;
	ui->group_tried = true;
	for (size_t i = 0; i < ps->nr_profiles; i++)
		samples += ps->profiles[i]->nr_samples;
	for (thread_id t = 1; t < ps->nr_threads && !several; t++)
		several = ps->threads[t].pid != ps->threads[0].pid;
	if (samples >= min && several)
		model_prepare_group(&ui->model);
}

static void
run(struct tui *ui)
{
	bool dirty = true;
	double key_at = 0;

	ui->timing_path = getenv("TFLAME_KEY_TIMING");
	/* Timed runs draw every key, even with more typed ahead. */
	if (ui->timing_path)
		typeahead(-1);
	while (!ui->quit && !tui_stop) {
		struct pane_input in = { 0 };
		MEVENT ev[MOUSE_EVENTS];
		int key, nr_ev;

		timeout(ui->sym.job ? SYMBOLS_TICK_MS : KEY_TIMEOUT_MS);
		if (dirty) {
			/* Slow caches wait until the keys stop coming (pane.h). */
			ui->ctx.may_build = false;
			ui->ctx.build_pending = false;
			draw(ui);
			refresh();
			symbols_start(ui);
			group_ahead(ui);
			/* A key's time is to the screen that answers it, "building" or not. */
			if (ui->timing_path && key_at) {
				ALLOC_GROW(ui->timing_ms, ui->timing_keys, ui->timing_alloc);
				ui->timing_ms[ui->timing_keys++] = clock_ms() - key_at;
				key_at = 0;
			}
			if (ui->ctx.build_pending && !display_key_wait(&ui->disp, SETTLE_MS)) {
				ui->ctx.may_build = true;
				draw(ui);
				refresh();
			}
			strbuf_reset(&ui->message);
			dirty = false;
		}
		key = getch();
		if (symbols_poll(ui))
			dirty = true;
		if (key == ERR) {
			/*
			 * A terminal that hung up fails every getch() at once.
			 * Its SIGHUP goes to the session leader, which may catch
			 * it and live on (nohup-like wrappers): leave as if the
			 * signal had come to us.
			 */
			if (display_hung_up(&ui->disp))
				tui_stop = SIGHUP;
			continue;
		}
		if (ui->timing_path)
			key_at = clock_ms();
		dirty = true;
		if (key == KEY_RESIZE) {
			ui->page_width = 0;
			/*
			 * Drawn whole, not as changes: what the terminal kept of
			 * the old screen is its own (tmux crops and pads lines,
			 * and output written for the old size lands in the new
			 * one), and curses's copy of it can differ. Trusted, a
			 * burst of resizes under valgrind left the screen
			 * mostly blank at the last size until a Ctrl-L.
			 */
			clearok(curscr, TRUE);
			continue;
		}
		if (ui->prompting) {
			if (key != KEY_MOUSE && !typing_suspend(ui, key))
				prompt_input(ui, key);
			continue;
		}
		if (key != KEY_MOUSE) {
			input_key(ui, key, &in);
			continue;
		}
		/*
		 * Curses gives the events of one read newest first, each
		 * call one: a press and its release may come together.
		 */
		for (nr_ev = 0; nr_ev < MOUSE_EVENTS && getmouse(&ev[nr_ev]) == OK; nr_ev++)
			;
		dirty = false;
		while (nr_ev-- > 0) {
			bool shown;

			key = mouse_key(ui, &ev[nr_ev], !ui->paging && !ui->transforming &&
							!ui->picking, &in, &shown);
			dirty |= shown;
			if (!key)
				continue;
			dirty = true;
			if (ui->picking)
				picker_input(ui, key,
					     key == KEYS_CLICK || key == KEYS_DOUBLE_CLICK ? in.y : -1);
			else if (key != KEYS_CLICK || !click_tabs(ui, in.x, in.y))
				input_key(ui, key, &in);
		}
	}
}

/* ------------------------------------------------------------- the whole */

int
tui_usable(bool stdin_busy)
{
	const char *why;

	setlocale(LC_ALL, "");
	/* Numbers are printed with '.', whatever the locale says. */
	setlocale(LC_NUMERIC, "C");

	if (!display_usable(stdin_busy, &why)) {
		fprintf(stderr,
			"tflame: %s: the explorer needs a terminal\n"
			"Use 'tflame report FILE' for a summary in text, or 'tflame dump' for\n"
			"a pane as text.\n",
			why);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int
tui_run(const struct tui_options *o)
{
	struct sigaction sa = { .sa_handler = tui_on_signal }, old_term, old_hup, old_int;
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = o->ps;
	struct tui ui = { .path = o->path, .base_path = o->base, .keys = &o->conf->keys,
			   .conf = o->conf };
	struct import_options io = o->io;
	struct symbols_job *job = NULL;
	bool stdin_busy = !strcmp(o->path, "-");
	int ret = EXIT_OK;

	model_init(&ui.model, ps);
	/* A differential folded file: "after", compared with "before". */
	model_set_profile(&ui.model, diff_first_profile(ps));
	if (o->normalize && !model_diff_base(&ui.model)) {
		fprintf(stderr, "tflame: --normalize compares: give BASE and NEW, or a folded "
				"file with two counts\n");
		model_release(&ui.model);
		return EXIT_USAGE;
	}
	model_set_diff_normalize(&ui.model, o->normalize);
	if (o->lens) {
		struct tf_error lerr = TF_ERROR_INIT;

		if (model_apply_spec(&ui.model, o->lens, o->path, &lerr)) {
			/* model_apply_spec() escaped what came from the user. */
			fprintf(stderr, "tflame: %s\n", tf_error_text(&lerr));
			tf_error_release(&lerr);
			model_release(&ui.model);
			return EXIT_USAGE;
		}
		tf_error_release(&lerr);
	}
	if (diff_check_units(ps, ps->profiles[ui.model.lens.profile],
			     o->base ? o->base : o->path, o->path, &err)) {
		struct strbuf sb = STRBUF_INIT;

		text_escape_str(&sb, tf_error_text(&err));
		fprintf(stderr, "tflame: %s\n", sb.buf);
		strbuf_release(&sb);
		tf_error_release(&err);
		model_release(&ui.model);
		return EXIT_INPUT;
	}
	/*
	 * After the lens: the job reads the set from its own thread, and a
	 * collapse-module transform adds frames to it.
	 */
	if (io.symbols_later)
		job = symbols_job_new(ps, SYMBOLS_SHOW_NOW |
						  (io.demangle ? SYMBOLS_DEMANGLE : 0) |
						  (io.verbose ? SYMBOLS_VERBOSE : 0),
				      io.threads);
	ui.sym.job = job;
	if (job && getenv("TFLAME_SYMBOLS_DELAY"))
		ui.sym.delay = atof(getenv("TFLAME_SYMBOLS_DELAY"));

	ui.where.dirs = o->source_dirs;
	ui.where.nr_dirs = o->nr_source_dirs;
	if (!stdin_busy) {
		/* Relative source paths are often relative to where the profile is. */
		char *slash;

		ui.profile_dir = xstrdup(o->path);
		slash = strrchr(ui.profile_dir, '/');
		if (slash) {
			slash[slash == ui.profile_dir] = '\0';
			ui.where.profile_dir = ui.profile_dir;
		}
	}

	tui_stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sigaction(SIGINT, &sa, &old_int);

	ui.disp.custom = o->conf->colors;
	if (display_open(&ui.disp, stdin_busy, &err)) {
		struct strbuf sb = STRBUF_INIT;

		/* The message quotes $TERM: escaped like anything from outside. */
		text_escape_str(&sb, tf_error_text(&err));
		fprintf(stderr, "tflame: %s\n", sb.buf);
		strbuf_release(&sb);
		tf_error_release(&err);
		ret = EXIT_USAGE;
		goto out;
	}
	timeout(KEY_TIMEOUT_MS);

	strbuf_init(&ui.message, 0);
	strbuf_init(&ui.page, 0);
	strbuf_init(&ui.last_pattern, 0);
	strbuf_init(&ui.last_export, 0);
	prompt_init(&ui.prompt, "/");
	flow_init(&ui.page_flow, 80);
	ui.ctx = (struct pane_ctx){
		.model = &ui.model,
		.disp = &ui.disp,
		.color = o->conf->color_mode,
		.flip = o->conf->flip,
		.message = &ui.message,
		.page = &ui.page,
		.announce = pane_announce,
	};
	for (size_t i = 0; i < NR_PANES; i++) {
		ui.panes[i].ops = pane_table[i];
		ui.panes[i].priv = pane_table[i]->open(&ui.ctx);
	}
	if (o->conf->nr_warnings) {
		/* The first one, whole: most often the only one, a typo. */
		strbuf_addstr(&ui.message, o->conf->warnings[0]);
		if (o->conf->nr_warnings > 1)
			strbuf_addf(&ui.message, " (and %zu more config warnings)",
				    o->conf->nr_warnings - 1);
		strbuf_addstr(&ui.message, "; listed when tflame exits");
		add_warnings_key(&ui, &ui.message);
	} else if (ps->nr_diags) {
		strbuf_addf(&ui.message, "%zu warning%s while reading: listed when tflame exits",
			    ps->nr_diags, ps->nr_diags == 1 ? "" : "s");
		add_warnings_key(&ui, &ui.message);
	} else if (!model_search(&ui.model)) {
		/* With --search the status line has better to say: what it matches. */
		keys_first_name(&ui.message, ui.keys, KEYMAP_LEFT_HEAVY, REQ_HELP, false);
		strbuf_addstr(&ui.message, " lists the keys, ");
		keys_first_name(&ui.message, ui.keys, KEYMAP_LEFT_HEAVY, REQ_QUIT, false);
		strbuf_addstr(&ui.message, " quits");
	}

	run(&ui);
	symbols_stop(&ui);
	timing_write(&ui);

	display_close(&ui.disp);
	for (size_t i = 0; i < NR_PANES; i++)
		ui.panes[i].ops->done(&ui.panes[i]);
	flow_release(&ui.page_flow);
	if (ui.picking)
		picker_close(&ui.picker);
	source_pane_free(ui.source);
	prompt_release(&ui.prompt);
	strbuf_release(&ui.last_pattern);
	strbuf_release(&ui.last_export);
	strbuf_release(&ui.page);
	strbuf_release(&ui.message);
	print_warnings(o->path, ps, o->conf);
out:
	symbols_stop(&ui);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGINT, &old_int, NULL);
	model_release(&ui.model);
	free(ui.profile_dir);
	if (tui_stop) {
		signal((int)tui_stop, SIG_DFL);
		raise((int)tui_stop);
	}
	return ret;
}
