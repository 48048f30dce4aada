#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/cli.h"
#include "tflame/cmd.h"
#include "tflame/diff.h"
#include "tflame/functions.h"
#include "tflame/json.h"
#include "tflame/lens.h"
#include "tflame/load.h"
#include "tflame/model.h"
#include "tflame/profile.h"
#include "tflame/render.h"
#include "tflame/sandwich.h"
#include "tflame/search.h"
#include "tflame/source.h"
#include "tflame/strbuf.h"
#include "tflame/text.h"
#include "tflame/xalloc.h"

static const char report_usage[] =
	"usage: tflame report [OPTIONS] FILE\n"
	"   or: tflame report --diff [OPTIONS] BASE NEW\n"
	"\n"
	"Summarise a profile: its format, events, samples, total weight and time\n"
	"span, the threads, and the top functions by self and by total weight\n"
	"(total counts a function once per sample, even when it recurses).\n"
	"\n"
	"With --inverted, the top of the inverted (bottom-up) tree too: the frames\n"
	"that ran, heaviest first, each with its heaviest callers.\n"
	"\n"
	"With --search, the weight of the samples with a matching frame, counted\n"
	"once per sample.\n"
	"\n"
	"With --lines, the top source lines instead of the top functions: self\n"
	"(samples executing the line) and total (samples with the line anywhere on\n"
	"their call path, once per sample); with --search, only the lines of\n"
	"matching functions.\n"
	"\n"
	"  --limit=N               top N threads, functions or lines (default 20, 0 for\n"
	"                          all)\n"
	"  --lines                 the top source lines instead of the top functions\n"
	"  --diff                  compare BASE and NEW: the functions whose total and\n"
	"                          self weight changed most\n"
	"  --normalize             with --diff, scale BASE to NEW's total weight\n"
	"  --ignore-module         with --diff, match functions by name alone\n"
	"  --fail-above=PCT        with --diff, exit 4 when a function's share of the\n"
	"                          total grew by more than PCT percentage points\n"
	CLI_LENS_USAGE
	CLI_SYMBOL_USAGE
	"  --json                  the same numbers as JSON\n"
	CLI_COMMON_USAGE;

enum {
	OPT_LIMIT = 256, OPT_JSON, OPT_LINES, OPT_FAIL_ABOVE,
};

static const struct option report_options_table[] = {
	{ "limit", required_argument, NULL, OPT_LIMIT },
	CLI_LENS_OPTIONS,
	CLI_SYMBOL_OPTIONS,
	{ "json", no_argument, NULL, OPT_JSON },
	{ "lines", no_argument, NULL, OPT_LINES },
	CLI_DIFF_OPTIONS,
	{ "fail-above", required_argument, NULL, OPT_FAIL_ABOVE },
	CLI_COMMON_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

const struct option *
cmd_report_options(void)
{
	return report_options_table;
}

struct report {
	const char *path;
	struct model *m;
	const struct profile_set *ps;
	const struct profile *p;
	uint64_t total;          /* selected weight */
	/*
	 * The same, exact: the profile's own 128-bit total when the lens
	 * keeps every sample (the views' sums are 64-bit, profile.h), a
	 * weight of whole_p: the set's profile when p is the views' scaled
	 * copy of it (model_profile()), else p.
	 */
	weight_sum whole;
	const struct profile *whole_p;
	size_t nr_samples;       /* selected samples */
	struct thread_row *threads; /* of the selected samples, heaviest first */
	size_t nr_threads;
	struct proc_row *procs;  /* the processes of those threads, heaviest first */
	uint32_t nr_procs;
	bool *shown;             /* per thread: among the --limit heaviest */
	struct thread_weight *kept; /* per thread: its samples the lens keeps */
	const struct func_table *ft;
	const struct func_stats *stats;
	func_id *by_self, *by_total; /* functions with weight, in order */
	uint32_t nr_by_self, nr_by_total;
	size_t limit;
	bool searching;
	uint64_t matched;        /* weight of samples the search matches */
	bool lines;              /* --lines: source lines instead of functions */
	bool utf8;               /* the locale is UTF-8: "sh→python3", else "sh->python3" */
	struct source_lines sl;
	uint32_t *line_rows;     /* indexes into sl.lines, hottest first */
	uint32_t nr_line_rows;   /* with the limit applied */
};

struct thread_row {
	thread_id id;
	uint64_t samples;
	uint64_t weight;
};

/* A process of the thread table: a slice of the model's thread table. */
struct proc_row {
	const struct process_weight *pw;
	uint64_t samples, weight;  /* of the selected samples */
	uint32_t nr, shown;        /* its threads with samples, and those shown */
};

static int
cmp_proc_row(const void *pa, const void *pb)
{
	const struct proc_row *a = pa, *b = pb;

	if (a->weight != b->weight)
		return a->weight < b->weight ? 1 : -1;
	return (a->pw->pid > b->pw->pid) - (a->pw->pid < b->pw->pid);
}

static int
cmp_thread_row(const void *pa, const void *pb)
{
	const struct thread_row *a = pa, *b = pb;

	if (a->weight != b->weight)
		return a->weight < b->weight ? 1 : -1;
	return (a->id > b->id) - (a->id < b->id);
}

/* A copy of the Sandwich table's order (the model keeps one at a time). */
static func_id *
copy_rows(struct model *m, enum sandwich_sort by, uint32_t *nr)
{
	const struct sandwich_rows *rows = model_sandwich_rows(m, by, false, false);

	func_id *copy = xmalloc(sizeof(*copy) * ((size_t)rows->nr + 1));

	/* A profile whose samples have no frames has no table at all. */
	*nr = rows->nr;
	if (rows->nr)
		memcpy(copy, rows->rows, sizeof(*copy) * rows->nr);
	return copy;
}

/* --lines: the lens' source lines, hottest first, of the search's functions. */
static void
lines_compute(struct report *r)
{
	struct sample_filter filter = model_filter(r->m);
	const struct search *s = r->searching ? model_search(r->m) : NULL;
	uint32_t *order;

	source_lines_compute(&r->sl, r->ps, r->p, &filter, SOURCE_ALL_FILES);
	order = source_lines_top(&r->sl, r->ps);
	r->nr_line_rows = 0;
	for (uint32_t i = 0; i < r->sl.nr && (!r->limit || r->nr_line_rows < r->limit); i++)
		if (!s || search_frame(s, r->sl.lines[order[i]].frame))
			order[r->nr_line_rows++] = order[i];
	r->line_rows = order;
}

/*
 * Group the threads by process, as the thread picker does, with the weights
 * of the selected samples, and mark the --limit heaviest threads to show.
 */
static void
procs_compute(struct report *r)
{
	const struct thread_table *tt = model_thread_weights(r->m);

	r->shown = xcalloc((size_t)r->ps->nr_threads + 1, sizeof(*r->shown));
	for (size_t i = 0; i < r->nr_threads && (!r->limit || i < r->limit); i++)
		r->shown[r->threads[i].id] = true;
	r->procs = xcalloc((size_t)tt->nr_procs + 1, sizeof(*r->procs));
	for (uint32_t i = 0; i < tt->nr_procs; i++) {
		const struct process_weight *pw = &tt->procs[i];
		struct proc_row pr = { pw, 0, 0, 0, 0 };

		for (uint32_t j = pw->first; j < pw->first + pw->nr; j++) {
			thread_id id = tt->threads[j].thread;
			const struct thread_weight *tw = &r->kept[id];

			if (!tw->samples)
				continue;
			pr.samples += tw->samples;
			pr.weight += tw->weight;
			pr.nr++;
			pr.shown += r->shown[id];
		}
		if (pr.nr)
			r->procs[r->nr_procs++] = pr;
	}
	qsort(r->procs, r->nr_procs, sizeof(*r->procs), cmp_proc_row);
}

static void
report_compute(struct report *r)
{
	const struct profile_set *ps = r->ps;
	struct thread_row *rows = xcalloc(ps->nr_threads + 1, sizeof(*rows));

	r->total = model_total(r->m);
	/* The samples the lens keeps, so that the shares add up to 100%. */
	r->kept = xcalloc((size_t)ps->nr_threads + 1, sizeof(*r->kept));
	r->nr_samples = model_kept_thread_weights(r->m, r->kept);
	r->whole = r->total;
	r->whole_p = r->p;
	if (r->nr_samples == r->p->nr_samples && r->total == (uint64_t)r->p->total_weight) {
		/* A scaled copy of a wide profile: the set's own has the exact total. */
		if (r->p->weight_shift)
			r->whole_p = ps->profiles[r->m->lens.profile];
		r->whole = r->whole_p->total_weight;
	}
	r->nr_threads = 0;
	for (uint32_t t = 0; t < ps->nr_threads; t++)
		if (r->kept[t].samples)
			rows[r->nr_threads++] = (struct thread_row){ t, r->kept[t].samples,
								     r->kept[t].weight };
	qsort(rows, r->nr_threads, sizeof(*rows), cmp_thread_row);
	r->threads = rows;
	procs_compute(r);

	r->ft = model_funcs(r->m);
	r->stats = model_func_stats(r->m);
	r->by_self = copy_rows(r->m, SANDWICH_BY_SELF, &r->nr_by_self);
	r->by_total = copy_rows(r->m, SANDWICH_BY_TOTAL, &r->nr_by_total);
	if (model_search_re(r->m)) {
		r->searching = true;
		r->matched = model_search_matched(r->m);
	}
	if (r->lines)
		lines_compute(r);
}

static void
report_release(struct report *r)
{
	free(r->threads);
	free(r->procs);
	free(r->shown);
	free(r->kept);
	free(r->by_self);
	free(r->by_total);
	free(r->line_rows);
	source_lines_release(&r->sl);
}

/* How many rows of a top list to show: those with weight, up to the limit. */
static size_t
top_count(const struct report *r, bool self)
{
	const func_id *order = self ? r->by_self : r->by_total;
	size_t nr = self ? r->nr_by_self : r->nr_by_total, n = 0;

	while (n < nr && (!r->limit || n < r->limit)) {
		const struct func_stats *st = &r->stats[order[n]];

		if (!(self ? st->self : st->total))
			break;
		n++;
	}
	return n;
}

static double
pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/*
 * The share of w (a sum of r->p's weights) in the selected weight. For the
 * views' scaled copy of a wide profile, the share of its rounded amount
 * (profile_unscale()) in the exact total, so that a row's share agrees with
 * its amount as printed, to what the scaled sums know.
 */
static double
row_pct(const struct report *r, uint64_t w)
{
	weight_sum unit, part, whole;

	if (!r->p->weight_shift)
		return pct(w, r->total);
	part = profile_unscale(r->p, w, &unit);
	whole = r->whole_p == r->p ? profile_unscale(r->p, r->whole, &unit) : r->whole;
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Seconds with 6 decimals from ns, exactly (no floating point). */
static void
add_seconds(struct strbuf *sb, int64_t ns)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t v = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	strbuf_addf(sb, "%s%llu.%06llu", sign, (unsigned long long)(v / 1000000000),
		    (unsigned long long)(v % 1000000000 / 1000));
}

/* Exact weight text, as in JSON and collapse. */
static void
add_weight(struct strbuf *sb, const struct profile *p, uint64_t w)
{
	profile_format_weight(p, w, sb);
}

/* Weight for people: 1.01 s, 67,198,400,121, 12.5. */
static void
add_amount(struct strbuf *sb, const struct profile *p, uint64_t w)
{
	profile_format_amount(p, w, sb);
}

static void
add_escaped(struct strbuf *sb, const char *s)
{
	text_escape_str(sb, s);
}

static const char *
unit_phrase(const struct profile *p)
{
	switch (p->unit) {
	case UNIT_NANOSECONDS:
		return "ns";
	case UNIT_EVENTS:
		return "events";
	case UNIT_SAMPLES:
		return "samples";
	case UNIT_BYTES:
		return "bytes";
	case UNIT_OBJECTS:
		return "objects";
	case UNIT_NONE:
		break;
	}
	return "(no unit)";
}

/* The share of part in a cell of 6 columns, right-aligned; blank if no whole. */
static void
add_share_cell(struct strbuf *out, uint64_t part, uint64_t whole)
{
	struct strbuf sb = STRBUF_INIT;

	profile_format_share(part, whole, &sb);
	strbuf_addf(out, "%6s", sb.buf);
	strbuf_release(&sb);
}

/* "  self  %  total  %" cells of one row, amounts right-aligned in w[0], w[1]. */
static void
add_self_total(struct strbuf *out, const struct report *r, const int *w, uint64_t self,
	       uint64_t total)
{
	struct strbuf num = STRBUF_INIT;

	add_amount(&num, r->p, self);
	strbuf_addf(out, "  %*s  ", w[0], num.buf);
	add_share_cell(out, self, r->total);
	strbuf_reset(&num);
	add_amount(&num, r->p, total);
	strbuf_addf(out, "  %*s  ", w[1], num.buf);
	add_share_cell(out, total, r->total);
	strbuf_addstr(out, "  ");
	strbuf_release(&num);
}

/* Widen w[0], w[1] to the self and total amounts of a row. */
static void
fit_self_total(const struct report *r, int *w, uint64_t self, uint64_t total)
{
	struct strbuf num = STRBUF_INIT;

	add_amount(&num, r->p, self);
	if ((int)num.len > w[0])
		w[0] = (int)num.len;
	strbuf_reset(&num);
	add_amount(&num, r->p, total);
	if ((int)num.len > w[1])
		w[1] = (int)num.len;
	strbuf_release(&num);
}

/*
 * Escaped text in a column of width cols, left-aligned: too long, it keeps
 * its end, where a path's file name and line are, after ".../" as git's
 * --stat does, so that the columns after it stay aligned.
 */
static void
add_column(struct strbuf *out, const char *text, size_t len, unsigned cols)
{
	unsigned w = render_width(text, len);
	size_t i = 0;

	if (w > cols && cols > 4) {
		/* The first character from which the rest fits after "...". */
		while (i < len && render_width(text + i, len - i) > cols - 3) {
			i++;
			while (i < len && (text[i] & 0xc0) == 0x80)
				i++;
		}
		/* Start at a directory when one begins in what is kept. */
		for (size_t j = i; j < len; j++) {
			if (text[j] == '/' && j > i) {
				i = j;
				break;
			}
		}
		strbuf_addstr(out, "...");
		strbuf_add(out, text + i, len - i);
		w = 3 + render_width(text + i, len - i);
	} else {
		strbuf_add(out, text, len);
	}
	strbuf_addchars(out, ' ', w < cols ? cols - w : 0);
}

/* widest (the widest so far), widened to text's columns, at most max. */
static unsigned
fit_column(unsigned widest, const struct strbuf *text, unsigned max)
{
	unsigned w = render_width(text->buf, text->len);

	if (w > widest)
		widest = w;
	return widest > max ? max : widest;
}

static void
print_top(const struct report *r, bool self, struct strbuf *out)
{
	const func_id *order = self ? r->by_self : r->by_total;
	size_t n = top_count(r, self);
	struct strbuf num = STRBUF_INIT;
	int w[2] = { 4, 5 };
	unsigned wmod = 6;

	for (size_t i = 0; i < n; i++) {
		const struct func_stats *st = &r->stats[order[i]];

		fit_self_total(r, w, st->self, st->total);
		strbuf_reset(&num);
		add_escaped(&num, model_module_name(r->m, r->ft->funcs[order[i]].module));
		wmod = fit_column(wmod, &num, 40);
	}
	strbuf_addf(out, "\ntop %zu functions by %s\n", n, self ? "self" : "total");
	if (!n) {
		strbuf_addstr(out, "  (none)\n");
		strbuf_release(&num);
		return;
	}
	strbuf_addf(out, "  %*s  %6s  %*s  %6s  %-*s  %s\n", w[0], "self", "%", w[1], "total",
		    "%", (int)wmod, "module", "function");
	for (size_t i = 0; i < n; i++) {
		const struct func_stats *st = &r->stats[order[i]];
		const struct func *fn = &r->ft->funcs[order[i]];
		const char *mod = ps_get(r->ps, fn->module);

		add_self_total(out, r, w, st->self, st->total);
		strbuf_reset(&num);
		add_escaped(&num, *mod ? model_module_name(r->m, fn->module) : "-");
		add_column(out, num.buf, num.len, wmod);
		strbuf_addstr(out, "  ");
		add_escaped(out, ps_get(r->ps, fn->name));
		strbuf_addch(out, '\n');
	}
	strbuf_release(&num);
}

/* Callers listed under each frame of the inverted tree's top. */
#define INVERTED_CALLERS 3

/* One row of print_inverted(): weight, share, the frame indented by indent. */
static void
add_inverted_row(struct strbuf *out, const struct report *r, const struct calltree *t,
		 stack_id s, int w, int indent)
{
	const struct profile_set *v = t->ps;
	struct strbuf num = STRBUF_INIT;

	add_amount(&num, r->p, t->total[s]);
	strbuf_addf(out, "  %*s  ", w, num.buf);
	add_share_cell(out, t->total[s], r->total);
	strbuf_addf(out, "  %*s", indent, "");
	add_escaped(out, ps_get(v, ps_frame(v, v->stacks[s].frame)->name));
	strbuf_addch(out, '\n');
	strbuf_release(&num);
}

/*
 * The top of the inverted tree (--inverted): the frames that ran, the
 * heaviest first, each with its heaviest direct callers: where the time
 * went, and who asked for it.
 */
static void
print_inverted(const struct report *r, struct strbuf *out)
{
	const struct calltree *t = &model_inverted(r->m)->tree;
	uint32_t nr_top;
	const stack_id *top = calltree_kids(t, STACK_ROOT, &nr_top);
	size_t n = r->limit && r->limit < nr_top ? r->limit : nr_top;
	struct strbuf num = STRBUF_INIT;
	int w = 6;

	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&num);
		add_amount(&num, r->p, t->total[top[i]]);
		if ((int)num.len > w)
			w = (int)num.len;
	}
	strbuf_addf(out, "\ninverted tree: the top %zu frames that ran, and their callers\n", n);
	if (!n) {
		strbuf_addstr(out, "  (none)\n");
		strbuf_release(&num);
		return;
	}
	strbuf_addf(out, "  %*s  %6s  %s\n", w, "weight", "%", "frame  (callers below it)");
	for (size_t i = 0; i < n; i++) {
		uint32_t nr;
		const stack_id *kids = calltree_kids(t, top[i], &nr);

		add_inverted_row(out, r, t, top[i], w, 0);
		for (uint32_t k = 0; k < nr && k < INVERTED_CALLERS; k++)
			add_inverted_row(out, r, t, kids[k], w, 4);
		if (nr > INVERTED_CALLERS)
			strbuf_addf(out, "  %*s  %6s      ... %u more\n", w, "", "",
				    nr - INVERTED_CALLERS);
	}
	strbuf_release(&num);
}

/* "file:line" of a source line, escaped. */
static void
add_place(struct strbuf *sb, const struct report *r, const struct source_line *l)
{
	add_escaped(sb, ps_get(r->ps, l->file));
	strbuf_addf(sb, ":%u", l->line);
}

/* --lines: how much weight has a line, and the hottest lines. */
static void
print_lines(const struct report *r, struct strbuf *out)
{
	struct strbuf num = STRBUF_INIT;
	int w[2] = { 4, 5 };
	unsigned wplace = 9;

	for (uint32_t i = 0; i < r->nr_line_rows; i++) {
		const struct source_line *l = &r->sl.lines[r->line_rows[i]];

		fit_self_total(r, w, l->self, l->total);
		strbuf_reset(&num);
		add_place(&num, r, l);
		wplace = fit_column(wplace, &num, 50);
	}
	strbuf_addf(out, "\ntop %u source lines by self, then total\n", r->nr_line_rows);
	if (!r->nr_line_rows) {
		strbuf_addstr(out, r->sl.nr ? "  (none matches the search)\n"
					    : "  (none: the profile records no source lines)\n");
		strbuf_release(&num);
		return;
	}
	strbuf_addf(out, "  %*s  %6s  %*s  %6s  %-*s  %s\n", w[0], "self", "%", w[1], "total",
		    "%", (int)wplace, "file:line", "function");
	for (uint32_t i = 0; i < r->nr_line_rows; i++) {
		const struct source_line *l = &r->sl.lines[r->line_rows[i]];

		add_self_total(out, r, w, l->self, l->total);
		strbuf_reset(&num);
		add_place(&num, r, l);
		add_column(out, num.buf, num.len, wplace);
		strbuf_addstr(out, "  ");
		add_escaped(out, ps_get(r->ps, ps_frame(r->ps, l->frame)->name));
		strbuf_addch(out, '\n');
	}
	strbuf_release(&num);
}

/* Whether the input named any thread (folded stacks do not). */
static bool
has_thread_info(const struct report *r)
{
	for (size_t i = 0; i < r->nr_threads; i++) {
		const struct thread *t = &r->ps->threads[r->threads[i].id];

		if (t->tid >= 0 || t->pid >= 0 ||
		    profile_thread_comm(r->ps, r->threads[i].id) != STR_EMPTY)
			return true;
	}
	return false;
}

/*
 * One line of the thread table; a process's has no tid and its thread
 * count. A thread is named by all its names (thread, not THREAD_NONE), a
 * process by comm.
 */
static void
add_thread_line(struct strbuf *out, const struct report *r, const int *width,
		uint64_t weight, uint64_t samples, int64_t pid, int64_t tid, str_id comm,
		thread_id thread, const char *indent, const struct proc_row *proc)
{
	struct strbuf num = STRBUF_INIT;
	char ids[2][24];

	add_amount(&num, r->p, weight);
	snprintf(ids[0], sizeof(ids[0]), pid >= 0 ? "%lld" : "-", (long long)pid);
	snprintf(ids[1], sizeof(ids[1]), tid >= 0 ? "%lld" : "-", (long long)tid);
	strbuf_addf(out, "  %*s  ", width[0], num.buf);
	add_share_cell(out, weight, r->total);
	strbuf_addf(out, "  %*llu  %*s  %*s  %s", width[1], (unsigned long long)samples,
		    width[2], ids[0], width[3], ids[1], indent);
	if (thread == THREAD_NONE)
		add_escaped(out, *ps_get(r->ps, comm) ? ps_get(r->ps, comm) : "-");
	else if (!render_thread_name(out, r->ps, thread, r->utf8))
		strbuf_addch(out, '-');
	if (proc && proc->shown < proc->nr)
		strbuf_addf(out, " (%u threads, %u shown)", proc->nr, proc->shown);
	else if (proc)
		strbuf_addf(out, " (%u threads)", proc->nr);
	strbuf_addch(out, '\n');
	strbuf_release(&num);
}

/*
 * The threads, heaviest first under their processes, heaviest first: a
 * process of several threads has a line of its own with their sum. Only
 * the --limit heaviest threads are listed; the rest are counted.
 */
static void
print_threads(const struct report *r, struct strbuf *out)
{
	const struct thread_table *tt = model_thread_weights(r->m);
	const struct profile_set *ps = r->ps;
	struct strbuf num = STRBUF_INIT;
	int width[4] = { 6, 7, 8, 8 };  /* weight, samples, pid, tid */
	size_t hidden = 0;
	uint32_t hidden_procs = 0, known_procs = 0;
	bool unknown_pid = false;

	for (uint32_t i = 0; i < r->nr_procs; i++) {
		const struct proc_row *pr = &r->procs[i];

		if (pr->pw->pid < 0)
			unknown_pid = true;
		else
			known_procs++;
		hidden += pr->nr - pr->shown;
		hidden_procs += pr->shown < pr->nr && pr->pw->pid >= 0;
		strbuf_reset(&num);
		add_amount(&num, r->p, pr->weight);
		if ((int)num.len > width[0])
			width[0] = (int)num.len;
		strbuf_reset(&num);
		strbuf_addf(&num, "%llu", (unsigned long long)pr->samples);
		if ((int)num.len > width[1])
			width[1] = (int)num.len;
		/* A lighter thread's amount can be wider: "50.0 us" under "150 us". */
		for (uint32_t j = pr->pw->first; j < pr->pw->first + pr->pw->nr; j++) {
			thread_id id = tt->threads[j].thread;

			if (!r->shown[id])
				continue;
			strbuf_reset(&num);
			add_amount(&num, r->p, r->kept[id].weight);
			if ((int)num.len > width[0])
				width[0] = (int)num.len;
		}
	}
	/* Ids past 8 digits (a trace's thread ids) widen their columns. */
	for (uint32_t i = 0; i < ps->nr_threads; i++) {
		const struct thread *t = &ps->threads[i];

		strbuf_reset(&num);
		strbuf_addf(&num, "%lld", (long long)t->pid);
		if ((int)num.len > width[2])
			width[2] = (int)num.len;
		strbuf_reset(&num);
		strbuf_addf(&num, "%lld", (long long)t->tid);
		if ((int)num.len > width[3])
			width[3] = (int)num.len;
	}
	strbuf_release(&num);

	strbuf_addf(out, "\nthreads (%zu", r->nr_threads);
	if (!unknown_pid && known_procs < r->nr_threads)
		strbuf_addf(out, " in %u process%s", known_procs, known_procs == 1 ? "" : "es");
	strbuf_addstr(out, ") by weight\n");
	strbuf_addf(out, "  %*s  %6s  %*s  %*s  %*s  %s\n", width[0], "weight", "%", width[1],
		    "samples", width[2], "pid", width[3], "tid", "comm");
	for (uint32_t i = 0; i < r->nr_procs; i++) {
		const struct proc_row *pr = &r->procs[i];
		const struct process_weight *pw = pr->pw;
		/* Threads of no known process are no process: each stands alone. */
		bool group = pw->pid >= 0 && pr->nr > 1;

		if (!pr->shown)
			continue;
		if (group)
			add_thread_line(out, r, width, pr->weight, pr->samples, pw->pid, -1,
					pw->comm, THREAD_NONE, "", pr);
		for (uint32_t j = pw->first; j < pw->first + pw->nr; j++) {
			thread_id id = tt->threads[j].thread;
			const struct thread_weight *tw = &r->kept[id];
			const struct thread *t = &ps->threads[id];

			if (!r->shown[id])
				continue;
			add_thread_line(out, r, width, tw->weight, tw->samples, t->pid, t->tid,
					STR_EMPTY, id, group ? "  " : "", NULL);
		}
	}
	if (hidden && hidden_procs && !unknown_pid)
		strbuf_addf(out, "  ... %zu more thread%s in %u process%s; --limit 0 for all\n",
			    hidden, hidden == 1 ? "" : "s", hidden_procs,
			    hidden_procs == 1 ? "" : "es");
	else if (hidden)
		strbuf_addf(out, "  ... %zu more thread%s; --limit 0 for all\n", hidden,
			    hidden == 1 ? "" : "s");
}

static void
print_text(const struct report *r)
{
	const struct profile_set *ps = r->ps;
	const struct profile *p = r->p;
	struct strbuf out = STRBUF_INIT;

	strbuf_addstr(&out, "file      ");
	add_escaped(&out, r->path);
	strbuf_addf(&out, "\nformat    %s\n", ps->format ? ps->format : "unknown");
	strbuf_addf(&out, "profiles  %zu:", ps->nr_profiles);
	for (size_t i = 0; i < ps->nr_profiles; i++) {
		const char *name = ps_get(ps, ps->profiles[i]->name);

		strbuf_addstr(&out, i ? ", " : " ");
		add_escaped(&out, *name ? name : "(unnamed)");
		/* A file of no samples: the importer's stacks, not samples (profile.h). */
		strbuf_addf(&out, " (%zu %s)", ps->profiles[i]->nr_samples,
			    ps->profiles[i]->no_samples ? "stacks" : "samples");
		if (ps->profiles[i] == p && ps->nr_profiles > 1)
			strbuf_addstr(&out, " [shown]");
	}
	strbuf_addch(&out, '\n');
	strbuf_addf(&out, "%s%zu", p->no_samples ? "stacks    " : "samples   ", r->nr_samples);
	if (r->nr_samples < p->nr_samples) {
		const char *sep = " (";

		strbuf_addf(&out, " of %zu", p->nr_samples);
		if (r->m->lens.threads) {
			strbuf_addf(&out, "%sthread filter", sep);
			sep = ", ";
		}
		if (r->m->lens.timed) {
			strbuf_addf(&out, "%stime range", sep);
			sep = ", ";
		}
		if (r->m->lens.nr_levels) {
			strbuf_addf(&out, "%stransforms", sep);
			sep = ", ";
		}
		if (*sep == ',')
			strbuf_addch(&out, ')');
	}
	if (p->no_samples)
		strbuf_addstr(&out, "  (weighed stacks, not single samples)");
	strbuf_addstr(&out, "\nweight    ");
	profile_format_amount_sum(r->whole_p, r->whole, &out);
	if (p->unit == UNIT_NANOSECONDS) {
		strbuf_addstr(&out, " (");
		profile_format_weight_sum(r->whole_p, r->whole, &out);
		strbuf_addstr(&out, " ns)");
	} else {
		strbuf_addf(&out, " %s", unit_phrase(p));
	}
	strbuf_addch(&out, '\n');
	strbuf_addstr(&out, "time      ");
	if (p->has_time) {
		add_seconds(&out, p->time_min);
		strbuf_addstr(&out, " .. ");
		add_seconds(&out, p->time_max);
		strbuf_addstr(&out, " (");
		add_seconds(&out, p->time_max - p->time_min);
		strbuf_addstr(&out, " s)\n");
	} else {
		strbuf_addstr(&out, "not recorded\n");
	}
	if (r->m->lens.timed) {
		/* --time: the range counted, from the start as it was given. */
		strbuf_addstr(&out, "range     ");
		add_seconds(&out, r->m->lens.t0 - p->time_min);
		strbuf_addstr(&out, " .. ");
		add_seconds(&out, (r->m->lens.t1 > p->time_max ? p->time_max : r->m->lens.t1) -
					  p->time_min);
		strbuf_addstr(&out, " s from the start\n");
	}
	if (lens_reshaped(&r->m->lens)) {
		struct strbuf crumbs = STRBUF_INIT;

		strbuf_addstr(&out, "lens      ");
		lens_describe(&r->m->lens, &crumbs);
		text_escape(&out, crumbs.buf, crumbs.len);
		strbuf_addch(&out, '\n');
		strbuf_release(&crumbs);
	}
	if (r->searching) {
		strbuf_addstr(&out, "matched   ");
		add_amount(&out, p, r->matched);
		if (r->matched && r->total) {
			strbuf_addstr(&out, " (");
			profile_format_share(r->matched, r->total, &out);
			strbuf_addstr(&out, " of all)");
		}
		strbuf_addstr(&out, " for /");
		text_escape_str(&out, search_re_pattern(model_search_re(r->m)));
		strbuf_addf(&out, "/%s\n", search_re_caseless(model_search_re(r->m)) ? "i" : "");
	}

	if (r->lines) {
		strbuf_addstr(&out, "lines     ");
		add_amount(&out, p, r->sl.placed);
		if (r->sl.placed && r->sl.all) {
			strbuf_addstr(&out, " (");
			profile_format_share(r->sl.placed, r->sl.all, &out);
			strbuf_addch(&out, ')');
		}
		strbuf_addf(&out, " on a known source line%s\n",
			    r->sl.recorded ? "" : ", from the frames' own lines");
	}

	if (!has_thread_info(r)) {
		strbuf_addstr(&out, "threads   not recorded\n");
		goto functions;
	}
	print_threads(r, &out);

functions:
	if (r->lines) {
		print_lines(r, &out);
	} else {
		print_top(r, true, &out);
		print_top(r, false, &out);
	}
	if (r->m->inverted)
		print_inverted(r, &out);
	fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&out);
}

static void
json_weight(struct json_writer *jw, const struct profile *p, uint64_t w)
{
	struct strbuf sb = STRBUF_INIT;

	add_weight(&sb, p, w);
	json_raw_number(jw, sb.buf);
	strbuf_release(&sb);
}

/* A sum, exact past 64 bits. */
static void
json_weight_sum(struct json_writer *jw, const struct profile *p, weight_sum w)
{
	struct strbuf sb = STRBUF_INIT;

	profile_format_weight_sum(p, w, &sb);
	json_raw_number(jw, sb.buf);
	strbuf_release(&sb);
}

/* The self and total members of a row, with their shares of the total. */
static void
json_self_total(struct json_writer *jw, const struct report *r, uint64_t self,
		uint64_t total)
{
	json_key(jw, "self");
	json_weight(jw, r->p, self);
	json_key(jw, "self_percent");
	json_double(jw, row_pct(r, self));
	json_key(jw, "total");
	json_weight(jw, r->p, total);
	json_key(jw, "total_percent");
	json_double(jw, row_pct(r, total));
}

static void
json_top(struct json_writer *jw, const struct report *r, bool self)
{
	const func_id *order = self ? r->by_self : r->by_total;
	size_t n = top_count(r, self);

	json_array_begin(jw);
	for (size_t i = 0; i < n; i++) {
		const struct func_stats *st = &r->stats[order[i]];
		const struct func *fn = &r->ft->funcs[order[i]];

		json_object_begin(jw);
		json_key(jw, "function");
		json_string(jw, ps_get(r->ps, fn->name));
		json_key(jw, "module");
		json_string(jw, ps_get(r->ps, fn->module));
		json_self_total(jw, r, st->self, st->total);
		json_object_end(jw);
	}
	json_array_end(jw);
}

/* One node of the inverted tree: its frame, module and weight. */
static void
json_inverted_node(struct json_writer *jw, const struct report *r, const struct calltree *t,
		   stack_id s)
{
	const struct frame *f = ps_frame(t->ps, t->ps->stacks[s].frame);

	json_key(jw, "frame");
	json_string(jw, ps_get(t->ps, f->name));
	json_key(jw, "module");
	json_string(jw, ps_get(t->ps, f->module));
	json_key(jw, "weight");
	json_weight(jw, r->p, t->total[s]);
	json_key(jw, "percent");
	json_double(jw, row_pct(r, t->total[s]));
}

/* print_inverted() as JSON: every direct caller, not only the first few. */
static void
json_inverted(struct json_writer *jw, const struct report *r)
{
	const struct calltree *t = &model_inverted(r->m)->tree;
	uint32_t nr_top;
	const stack_id *top = calltree_kids(t, STACK_ROOT, &nr_top);
	size_t n = r->limit && r->limit < nr_top ? r->limit : nr_top;

	json_array_begin(jw);
	for (size_t i = 0; i < n; i++) {
		uint32_t nr;
		const stack_id *kids = calltree_kids(t, top[i], &nr);

		json_object_begin(jw);
		json_inverted_node(jw, r, t, top[i]);
		json_key(jw, "callers");
		json_array_begin(jw);
		for (uint32_t k = 0; k < nr; k++) {
			json_object_begin(jw);
			json_inverted_node(jw, r, t, kids[k]);
			json_object_end(jw);
		}
		json_array_end(jw);
		json_object_end(jw);
	}
	json_array_end(jw);
}

static void
json_lines(struct json_writer *jw, const struct report *r)
{
	json_key(jw, "lines_weight");
	json_weight(jw, r->p, r->sl.placed);
	json_key(jw, "lines_recorded");
	json_bool(jw, r->sl.recorded);
	json_key(jw, "top_lines");
	json_array_begin(jw);
	for (uint32_t i = 0; i < r->nr_line_rows; i++) {
		const struct source_line *l = &r->sl.lines[r->line_rows[i]];
		const struct frame *f = ps_frame(r->ps, l->frame);

		json_object_begin(jw);
		json_key(jw, "file");
		json_string(jw, ps_get(r->ps, l->file));
		json_key(jw, "line");
		json_uint(jw, l->line);
		json_key(jw, "function");
		json_string(jw, ps_get(r->ps, f->name));
		json_key(jw, "module");
		json_string(jw, ps_get(r->ps, f->module));
		json_self_total(jw, r, l->self, l->total);
		json_object_end(jw);
	}
	json_array_end(jw);
}

/* The threads of the report as a JSON array. */
static void
json_threads(struct json_writer *jw, const struct report *r)
{
	const struct profile_set *ps = r->ps;
	const struct profile *p = r->p;

	json_array_begin(jw);
	for (size_t i = 0; i < r->nr_threads; i++) {
		const struct thread *t = &ps->threads[r->threads[i].id];

		json_object_begin(jw);
		/* Its last name, as perf report --sort pid, and all of them in order. */
		json_key(jw, "comm");
		json_string(jw, ps_get(ps, profile_thread_comm(ps, r->threads[i].id)));
		json_key(jw, "comms");
		json_array_begin(jw);
		for (thread_id e = t->first; e != THREAD_NONE; e = ps->threads[e].next)
			if (ps->threads[e].comm != STR_EMPTY)
				json_string(jw, ps_get(ps, ps->threads[e].comm));
		json_array_end(jw);
		json_key(jw, "pid");
		if (t->pid >= 0)
			json_int(jw, t->pid);
		else
			json_null(jw);
		json_key(jw, "tid");
		if (t->tid >= 0)
			json_int(jw, t->tid);
		else
			json_null(jw);
		json_key(jw, "samples");
		json_uint(jw, r->threads[i].samples);
		json_key(jw, "weight");
		json_weight(jw, p, r->threads[i].weight);
		json_key(jw, "percent");
		json_double(jw, row_pct(r, r->threads[i].weight));
		json_object_end(jw);
	}
	json_array_end(jw);
}

static void
print_json(const struct report *r)
{
	const struct profile_set *ps = r->ps;
	const struct profile *p = r->p;
	struct json_writer jw;

	json_init(&jw, stdout);
	json_object_begin(&jw);
	json_key(&jw, "file");
	json_string(&jw, r->path);
	json_key(&jw, "format");
	json_string(&jw, ps->format ? ps->format : "unknown");
	json_key(&jw, "profiles");
	json_array_begin(&jw);
	for (size_t i = 0; i < ps->nr_profiles; i++) {
		const struct profile *q = ps->profiles[i];

		json_object_begin(&jw);
		json_key(&jw, "name");
		json_string(&jw, ps_get(ps, q->name));
		json_key(&jw, "unit");
		json_string(&jw, weight_unit_name(q->unit));
		json_key(&jw, "samples");
		json_uint(&jw, q->nr_samples);
		json_key(&jw, "weight");
		json_weight_sum(&jw, q, q->total_weight);
		json_object_end(&jw);
	}
	json_array_end(&jw);
	json_key(&jw, "profile");
	json_string(&jw, ps_get(ps, p->name));
	json_key(&jw, "unit");
	json_string(&jw, weight_unit_name(p->unit));
	json_key(&jw, "samples");
	json_uint(&jw, r->nr_samples);
	json_key(&jw, "weight");
	json_weight_sum(&jw, r->whole_p, r->whole);
	if (p->weight_shift) {
		/* The views' amounts of a wide profile are rounded (profile_unscale()). */
		weight_sum unit;
		struct strbuf sb = STRBUF_INIT;
		struct profile q = *p;

		profile_unscale(p, 0, &unit);
		q.weight_shift = 0;
		profile_format_weight_sum(&q, unit, &sb);
		json_key(&jw, "amounts_rounded_to");
		json_raw_number(&jw, sb.buf);
		strbuf_release(&sb);
	}
	json_key(&jw, "time");
	if (p->has_time) {
		json_object_begin(&jw);
		json_key(&jw, "start_ns");
		json_int(&jw, p->time_min);
		json_key(&jw, "end_ns");
		json_int(&jw, p->time_max);
		json_key(&jw, "duration_ns");
		json_int(&jw, p->time_max - p->time_min);
		json_object_end(&jw);
	} else {
		json_null(&jw);
	}
	json_key(&jw, "search");
	if (r->searching) {
		json_object_begin(&jw);
		json_key(&jw, "pattern");
		json_string(&jw, search_re_pattern(model_search_re(r->m)));
		json_key(&jw, "caseless");
		json_bool(&jw, search_re_caseless(model_search_re(r->m)));
		json_key(&jw, "matched");
		json_weight(&jw, p, r->matched);
		json_key(&jw, "matched_percent");
		json_double(&jw, row_pct(r, r->matched));
		json_object_end(&jw);
	} else {
		json_null(&jw);
	}
	json_key(&jw, "threads");
	/* As the text says "not recorded": no made-up thread of no name. */
	if (!has_thread_info(r))
		json_null(&jw);
	else
		json_threads(&jw, r);
	if (r->lines) {
		json_lines(&jw, r);
	} else {
		json_key(&jw, "top_self");
		json_top(&jw, r, true);
		json_key(&jw, "top_total");
		json_top(&jw, r, false);
	}
	if (r->m->inverted) {
		json_key(&jw, "inverted");
		json_inverted(&jw, r);
	}
	json_object_end(&jw);
	json_finish(&jw);
}

/* ------------------------------------------------------------- --diff */

/* One side of report --diff: its file, loaded, with the lens applied. */
struct diff_input {
	const char *path;
	struct profile_set *ps;
	struct model m;
	bool have_model;
	struct diff_side side;
};

struct diff_opts {
	unsigned flags;      /* enum diff_flags */
	struct diff_overlap overlap; /* with DIFF_NAMES_AUTO: why */
	struct module_names modnames; /* of both sides' modules */
	uint64_t base_whole; /* what BASE's shares are of: its total, scaled as its rows are */
	size_t limit;
	bool json;
	bool fail;           /* --fail-above given */
	double fail_above;   /* percentage points */
};

static int64_t
row_delta(const struct diff_row *r, bool self)
{
	return self ? (int64_t)(r->new_self - r->base_self) : (int64_t)(r->new_total - r->base_total);
}

static uint64_t
abs_delta(const struct diff_row *r, bool self)
{
	int64_t d = row_delta(r, self);

	return d < 0 ? -(uint64_t)d : (uint64_t)d;
}

/* Biggest change first, then by name and module: the same order every run. */
static int
cmp_diff_row(const struct diff_row *x, const struct diff_row *y, bool self)
{
	uint64_t dx = abs_delta(x, self), dy = abs_delta(y, self);
	int c;

	if (dx != dy)
		return dx > dy ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return strcmp(x->module, y->module);
}

static int
cmp_diff_self(const void *a, const void *b)
{
	return cmp_diff_row(a, b, true);
}

static int
cmp_diff_total(const void *a, const void *b)
{
	return cmp_diff_row(a, b, false);
}

/* Rows with a change in self (or total), at most limit of them, sorted. */
static size_t
diff_order(struct diff_row *rows, size_t nr, bool self, size_t limit)
{
	size_t n = 0;

	qsort(rows, nr, sizeof(*rows), self ? cmp_diff_self : cmp_diff_total);
	while (n < nr && abs_delta(&rows[n], self) && (!limit || n < limit))
		n++;
	return n;
}

/* The numbers of a row of a diff table: base, new, delta, change, share. */
#define DIFF_CELLS 5

static void
diff_cells(struct strbuf cells[DIFF_CELLS], const struct diff_input *in, const struct diff_row *r,
	   bool self, const struct diff_opts *o)
{
	const struct profile *p = model_profile(&in[1].m);
	uint64_t b = self ? r->base_self : r->base_total;
	uint64_t now = self ? r->new_self : r->new_total;
	double share = self ? pct(r->new_self, in[1].side.total) - pct(r->base_self, o->base_whole)
			    : diff_share_change(r, o->base_whole, in[1].side.total);

	for (int k = 0; k < DIFF_CELLS; k++)
		strbuf_reset(&cells[k]);
	profile_format_amount_short(p, b, &cells[0]);
	profile_format_amount_short(p, now, &cells[1]);
	diff_format_delta(&cells[2], p, row_delta(r, self));
	diff_format_change(&cells[3], b, now);
	strbuf_addf(&cells[4], "%+.1f", share);
}

static void
print_diff_table(struct strbuf *out, const struct diff_input *in, struct diff_row *rows,
		 size_t nr, bool self, const struct diff_opts *o)
{
	static const char *const heads[DIFF_CELLS] = { "base", "new", "delta", "change", "share" };
	size_t n = diff_order(rows, nr, self, o->limit);
	struct strbuf cell = STRBUF_INIT, cells[DIFF_CELLS];
	/* The widths the columns had before they grew to fit: goldens keep them. */
	unsigned w[DIFF_CELLS] = { 9, 9, 9, 7, 6 };
	unsigned wmod = 6;

	strbuf_addf(out, "\n%s changed most (%zu function%s)\n", self ? "self" : "total", n,
		    n == 1 ? "" : "s");
	if (!n) {
		strbuf_addstr(out, "  (none)\n");
		strbuf_release(&cell);
		return;
	}
	for (int k = 0; k < DIFF_CELLS; k++)
		strbuf_init(&cells[k], 0);
	/* Every column as wide as its widest cell: wide numbers stay in line. */
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&cell);
		add_escaped(&cell, *rows[i].module ? module_names_get(&o->modnames, rows[i].module)
						   : "-");
		wmod = fit_column(wmod, &cell, 40);
		diff_cells(cells, in, &rows[i], self, o);
		for (int k = 0; k < DIFF_CELLS; k++)
			w[k] = fit_column(w[k], &cells[k], UINT_MAX);
	}
	for (int k = 0; k < DIFF_CELLS; k++)
		strbuf_addf(out, "  %*s", (int)w[k], heads[k]);
	strbuf_addf(out, "  %-*s  %s\n", (int)wmod, "module", "function");
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];

		diff_cells(cells, in, r, self, o);
		for (int k = 0; k < DIFF_CELLS; k++)
			strbuf_addf(out, "  %*s", (int)w[k], cells[k].buf);
		strbuf_addstr(out, "  ");
		strbuf_reset(&cell);
		add_escaped(&cell, *r->module ? module_names_get(&o->modnames, r->module) : "-");
		add_column(out, cell.buf, cell.len, wmod);
		strbuf_addstr(out, "  ");
		add_escaped(out, r->name);
		strbuf_addch(out, '\n');
	}
	for (int k = 0; k < DIFF_CELLS; k++)
		strbuf_release(&cells[k]);
	strbuf_release(&cell);
}

static void
add_side_line(struct strbuf *out, const char *label, const struct diff_input *in)
{
	const struct profile *p = model_profile(&in->m);

	strbuf_addf(out, "%-5s ", label);
	add_escaped(out, in->path);
	strbuf_addf(out, " (%s, ", in->ps->format ? in->ps->format : "unknown");
	add_escaped(out, *ps_get(in->ps, p->name) ? ps_get(in->ps, p->name) : "(unnamed)");
	strbuf_addf(out, ", %zu %s, ", p->nr_samples, p->no_samples ? "stacks" : "samples");
	add_amount(out, p, in->side.total);
	strbuf_addstr(out, ")\n");
}

static void
json_diff_side(struct json_writer *jw, const struct diff_input *in)
{
	const struct profile *p = model_profile(&in->m);

	json_object_begin(jw);
	json_key(jw, "file");
	json_string(jw, in->path);
	json_key(jw, "format");
	json_string(jw, in->ps->format ? in->ps->format : "unknown");
	json_key(jw, "profile");
	json_string(jw, ps_get(in->ps, p->name));
	json_key(jw, "unit");
	json_string(jw, unit_phrase(p));
	json_key(jw, "weight");
	json_weight(jw, p, in->side.total);
	json_object_end(jw);
}

static void
print_diff_json(const struct diff_input *in, struct diff_row *rows, size_t nr,
		const struct diff_opts *o, const struct diff_row *failed, size_t nr_failed)
{
	const struct profile *p = model_profile(&in[1].m);
	size_t n = diff_order(rows, nr, false, o->limit);
	struct json_writer jw;

	json_init(&jw, stdout);
	json_object_begin(&jw);
	json_key(&jw, "base");
	json_diff_side(&jw, &in[0]);
	json_key(&jw, "new");
	json_diff_side(&jw, &in[1]);
	json_key(&jw, "normalized");
	json_bool(&jw, o->flags & DIFF_NORMALIZE);
	json_key(&jw, "ignore_module");
	json_bool(&jw, o->flags & DIFF_IGNORE_MODULE);
	/* Matched by name though not asked: how much each way shared. */
	json_key(&jw, "ignore_module_auto");
	json_bool(&jw, o->flags & DIFF_NAMES_AUTO);
	if (o->flags & DIFF_NAMES_AUTO) {
		json_key(&jw, "shared_by_module");
		json_double(&jw, o->overlap.by_module);
		json_key(&jw, "shared_by_name");
		json_double(&jw, o->overlap.by_name);
	}
	json_key(&jw, "functions");
	json_array_begin(&jw);
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];

		json_object_begin(&jw);
		json_key(&jw, "name");
		json_string(&jw, r->name);
		json_key(&jw, "module");
		json_string(&jw, r->module);
		json_key(&jw, "base_self");
		json_weight(&jw, p, r->base_self);
		json_key(&jw, "base_total");
		json_weight(&jw, p, r->base_total);
		json_key(&jw, "new_self");
		json_weight(&jw, p, r->new_self);
		json_key(&jw, "new_total");
		json_weight(&jw, p, r->new_total);
		json_key(&jw, "delta_self");
		json_int(&jw, row_delta(r, true));
		json_key(&jw, "delta_total");
		json_int(&jw, row_delta(r, false));
		json_key(&jw, "share_change");
		json_double(&jw, diff_share_change(r, o->base_whole, in[1].side.total));
		json_object_end(&jw);
	}
	json_array_end(&jw);
	if (o->fail) {
		json_key(&jw, "fail_above");
		json_double(&jw, o->fail_above);
		json_key(&jw, "failed");
		json_array_begin(&jw);
		for (size_t i = 0; i < nr_failed; i++)
			json_string(&jw, failed[i].name);
		json_array_end(&jw);
	}
	json_object_end(&jw);
	json_finish(&jw);
}

static int
report_diff(struct cli_common *cc, const struct lens_spec *lens, const char *base,
	    struct diff_opts *o)
{
	struct diff_input in[2];
	struct diff_row *rows = NULL, *failed = NULL;
	size_t nr = 0, nr_failed = 0;
	int ret = EXIT_OK;

	memset(in, 0, sizeof(in));
	in[0].path = base;
	in[1].path = cc->path;
	for (int k = 0; k < 2; k++) {
		if ((ret = cli_load(in[k].path, cc->format, &cc->io, &in[k].ps)) != CLI_NEXT)
			goto out;
		model_init(&in[k].m, in[k].ps);
		in[k].have_model = true;
		if ((ret = cli_apply_spec(lens, &in[k].m, in[k].path)) != CLI_NEXT)
			goto out;
		in[k].side.ps = in[k].ps;
		in[k].side.ft = model_funcs(&in[k].m);
		in[k].side.stats = model_func_stats(&in[k].m);
		in[k].side.total = model_total(&in[k].m);
	}
	ret = EXIT_OK;
	if (model_profile(&in[0].m)->unit != model_profile(&in[1].m)->unit ||
	    model_profile(&in[0].m)->weight_decimals != model_profile(&in[1].m)->weight_decimals) {
		cli_error("%s weighs in %s and %s in %s: nothing to compare (choose an event "
			  "of the same unit with --event)", in[0].path,
			  unit_phrase(model_profile(&in[0].m)), in[1].path,
			  unit_phrase(model_profile(&in[1].m)));
		ret = EXIT_INPUT;
		goto out;
	}
	/* Two builds at two paths: by name, and say so (diff.h). */
	if (!(o->flags & DIFF_IGNORE_MODULE)) {
		diff_side_overlap(&in[0].side, &in[1].side, &o->overlap);
		if (diff_overlap_by_name(&o->overlap))
			o->flags |= DIFF_IGNORE_MODULE | DIFF_NAMES_AUTO;
	}
	nr = diff_functions(&in[0].side, &in[1].side, o->flags, &rows);
	/* Two sides, one column: modules of one file name told apart across both. */
	module_names_add_set(&o->modnames, in[0].ps);
	module_names_add_set(&o->modnames, in[1].ps);
	module_names_build(&o->modnames);
	o->base_whole = (o->flags & DIFF_NORMALIZE) ? in[1].side.total : in[0].side.total;
	if (o->fail) {
		/* Shares are of each side's own total: normalising changes none. */
		failed = xcalloc(nr ? nr : 1, sizeof(*failed));
		for (size_t i = 0; i < nr; i++)
			if (diff_share_change(&rows[i], o->base_whole, in[1].side.total) >
			    o->fail_above)
				failed[nr_failed++] = rows[i];
		qsort(failed, nr_failed, sizeof(*failed), cmp_diff_total);
	}
	if (o->json) {
		print_diff_json(in, rows, nr, o, failed, nr_failed);
	} else {
		struct strbuf out = STRBUF_INIT;

		add_side_line(&out, "base", &in[0]);
		add_side_line(&out, "new", &in[1]);
		if (o->flags & DIFF_NAMES_AUTO) {
			diff_overlap_note(&o->overlap, &out);
			strbuf_addch(&out, '\n');
		}
		if (o->flags & DIFF_NORMALIZE)
			strbuf_addf(&out, "base scaled to new's total (x%.3f)\n",
				    in[0].side.total ? (double)in[1].side.total /
							       (double)in[0].side.total
						     : 1.0);
		print_diff_table(&out, in, rows, nr, false, o);
		print_diff_table(&out, in, rows, nr, true, o);
		strbuf_addstr(&out, "\nshare: change of the function's share of the total, in "
				    "percentage points\n");
		fputs(out.buf, stdout);
		strbuf_release(&out);
	}
	if (fflush(stdout)) {
		cli_error("cannot write output");
		ret = EXIT_INPUT;
	} else if (nr_failed) {
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < nr_failed && i < 10; i++) {
			strbuf_reset(&sb);
			add_escaped(&sb, failed[i].name);
			cli_error("%s grew by %.1f points of the total (above %g)", sb.buf,
				  diff_share_change(&failed[i], o->base_whole, in[1].side.total),
				  o->fail_above);
		}
		if (nr_failed > 10)
			cli_error("... and %zu more functions above %g", nr_failed - 10,
				  o->fail_above);
		strbuf_release(&sb);
		ret = EXIT_REGRESSION;
	}
out:
	for (int k = 0; k < 2; k++)
		if (in[k].have_model)
			model_release(&in[k].m);
	module_names_release(&o->modnames);
	free(rows);
	free(failed);
	return ret;
}

int
cmd_report(int argc, char **argv)
{
	struct cli_common cc = { .cmd = "report", .usage = report_usage,
				 CLI_SYMBOLS_ON };
	struct lens_spec lens = { 0 };
	struct report r = { .utf8 = load_locale_utf8() };
	struct profile_set *ps = NULL;
	struct model m;
	unsigned long long limit = 20;
	struct diff_opts dopt = { 0 };
	struct cli_diff d = { 0 };
	bool json = false, have_model = false;
	int c, ret = EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", report_options_table, NULL)) != -1) {
		if ((ret = cli_shared_option(&cc, &lens, &d, "report", c, argv)) == CLI_NEXT)
			continue;
		if (ret != CLI_OWN)
			goto out;
		ret = EXIT_OK;
		switch (c) {
		case OPT_LIMIT:
			if (!cli_parse_uint(optarg, &limit)) {
				ret = cli_usage_error("report", "--limit takes a number, not '%s'",
						      optarg);
				goto out;
			}
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_LINES:
			r.lines = true;
			break;
		case OPT_FAIL_ABOVE: {
			char *end;

			dopt.fail_above = strtod(optarg, &end);
			if (end == optarg || *end || !(dopt.fail_above >= 0)) {
				ret = cli_usage_error("report", "--fail-above takes percentage "
							  "points, not '%s'", optarg);
				goto out;
			}
			dopt.fail = true;
			break;
		}
		}
	}
	dopt.flags = d.flags | (d.normalize ? DIFF_NORMALIZE : 0);
	if ((ret = cli_check_spec(&lens)) != CLI_NEXT)
		goto out;
	if (d.diff) {
		const char *base;

		if (r.lines) {
			ret = cli_usage_error("report", "--lines and --diff do not go together");
			goto out;
		}
		if (lens.inverted) {
			ret = cli_usage_error("report", "--inverted and --diff do not go together");
			goto out;
		}
		if ((ret = cli_diff_args(&cc, argc, argv, &base)) != CLI_NEXT)
			goto out;
		cc.io.no_lines = true;
		dopt.limit = (size_t)limit;
		dopt.json = json;
		ret = report_diff(&cc, &lens, base, &dopt);
		goto out;
	}
	if (dopt.flags || dopt.fail) {
		ret = cli_usage_error("report", "--normalize, --ignore-module and --fail-above "
					  "compare: they need --diff");
		goto out;
	}
	if ((ret = cli_file_arg(&cc, argc, argv)) != CLI_NEXT)
		goto out;
	ret = EXIT_OK;

	r.path = cc.path;
	/* Only --lines shows source lines: the others need no line tables. */
	cc.io.no_lines = !r.lines;
	if ((ret = cli_load(r.path, cc.format, &cc.io, &ps)) != CLI_NEXT)
		goto out;
	model_init(&m, ps);
	have_model = true;
	if ((ret = cli_apply_spec(&lens, &m, r.path)) != CLI_NEXT)
		goto out;
	ret = EXIT_OK;
	r.m = &m;
	r.ps = ps;
	r.p = model_profile(&m);
	r.limit = (size_t)limit;
	report_compute(&r);
	if (json)
		print_json(&r);
	else
		print_text(&r);
	if (fflush(stdout)) {
		cli_error("cannot write output");
		ret = EXIT_INPUT;
	}
out:
	report_release(&r);
	if (have_model)
		model_release(&m);
	lens_spec_release(&lens);
	return ret;
}
