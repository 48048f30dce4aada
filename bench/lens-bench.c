/*
 * lens-bench: what changing the lens costs on a big profile.
 *
 * usage: bench/lens-bench [--split] [--cpu | --cpu-all] [--shape=NAME] [--by-process]
 *                         [--issue15] [--no-check] [--pause=MS] [SAMPLES [NAMES]]
 *
 * Generates, in memory, SAMPLES samples (default 10 M) on 32 threads of 4
 * processes, with the locality of a real recording, three times: a "wide"
 * profile whose call tree has about one node per two samples (4.8 M
 * nodes), a "million" one of 1.5 M nodes and a "typical" one of about
 * 340,000. For each it times, as medians through the model:
 *
 *  - a thread filter change: stack_weights, the Left Heavy tree and the
 *    functions' self/total, for several masks (target from
 *    ARCHITECTURE.md: 200 ms for 10 M samples);
 *  - a search on the profile: the frame bitset, and indexing the tree
 *    and the chart for matched weight and n/N;
 *  - the Sandwich of the heaviest function and of a small one;
 *  - issue 15's lens changes, as a table with each figure's target:
 *    each kind of transform (lens.h) applied (the view, the weights
 *    folded through it, its tree and function weights: 200 ms on >= 1 M
 *    stacks and 10 M samples), the next keystroke (the first model
 *    queries of a redraw: Left Heavy's layout at 200 x 60 and the
 *    Sandwich table, 10 ms), undone, and the keystroke after; the same
 *    on top of another transform; and time ranges set and cleared
 *    (200 ms). The model is checked after each kind, off the clock.
 *  - grouping by process (P) and back, as issue 15's lens changes: on,
 *    the next keystroke, off, the keystroke after; bare and under a
 *    transform. The first P builds the group, the later ones take back
 *    what P off kept: two rows.
 *
 * Then it generates NAMES distinct frame names (default 1.2 M) shaped
 * like C++ symbols and times a search over them for several regexes
 * (target: 100 ms for 1 M names).
 *
 * --issue15 runs only issue 15's tables, on the profiles of >= 1 M
 * stacks; --by-process only the group by process's, on every profile;
 * --shape=NAME only that profile (whichever tables); --cpu times with the thread's
 * CPU clock rather than the wall clock (other sessions on a shared
 * machine change it less), --cpu-all with the process's (every thread's
 * work, a second thread's too); --split prints where each change's time
 * goes; --no-check skips the model's checks between changes, which
 * otherwise take most of a `perf record` of the bench; --pause=MS waits
 * MS ms before each issue-15 change and its undo, as a person reading
 * the screen does (see think()). Options come before SAMPLES, in any
 * order.
 *
 * Built by `make bench`, never by `make` or `make check`.
 */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "tflame/error.h"
#include "tflame/layout.h"
#include "tflame/lens.h"
#include "tflame/model.h"
#include "tflame/strbuf.h"
#include "tflame/profile.h"
#include "tflame/sandwich.h"
#include "tflame/search.h"
#include "tflame/xalloc.h"

#include "bench.h"

#define NR_FUNCS 200000u
#define NR_THREADS 32u
#define MAX_DEPTH 64
/* Runs of each lens change: the bench reports their medians. */
#define RUNS_CHANGE 5

/*
 * How often a new frame is one of its caller's usual callees (the first,
 * second or third, in per mille) rather than any function: "wide" grows a
 * call tree of about one node per two samples, like layout-bench's, and
 * "typical" about one per twenty.
 */
struct shape {
	const char *name;
	uint32_t usual[3];
	bool issue;  /* >= 1 M stacks for 10 M samples: issue 15's case */
};

static const struct shape shapes[] = {
	{ "wide", { 920, 970, 990 }, true },
	{ "million", { 965, 988, 996 }, true },
	{ "typical", { 985, 997, 999 }, false },
};

/*
 * Samples that keep most of the previous stack, as a recording does; the
 * threads take turns in bursts of a few thousand samples, and the first 8
 * threads (process 1000 and 1001's first ones) get about half the samples,
 * so the masks below select very different weights.
 */
static struct profile_set *
generate_samples(size_t nr_samples, const struct shape *shape)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	frame_id *frames = xmalloc(sizeof(*frames) * NR_FUNCS);
	thread_id threads[NR_THREADS];
	stack_id path[MAX_DEPTH + 1];
	uint32_t depth = 0, th = 0;
	uint64_t seed = 1;
	int64_t t = 1000000000;
	char name[48];

	for (uint32_t i = 0; i < NR_FUNCS; i++) {
		struct frame f = { 0 };
		int n = snprintf(name, sizeof(name), "function_%u", i);

		f.name = ps_str(ps, name, (size_t)n);
		f.module = ps_str(ps, "bench", 5);
		frames[i] = profile_set_frame(ps, &f);
	}
	for (uint32_t i = 0; i < NR_THREADS; i++) {
		int n = snprintf(name, sizeof(name), "proc%u-thread%u", i % 4, i);

		threads[i] = profile_set_thread(ps, 1000 + i % 4, 2000 + i,
						ps_str(ps, name, (size_t)n));
	}
	path[0] = STACK_ROOT;
	for (size_t i = 0; i < nr_samples; i++) {
		uint32_t target = 8 + rnd(&seed) % 25, pop = 1;

		if (i % 4096 == 0)
			th = rnd(&seed) % NR_THREADS < NR_THREADS / 2 ? rnd(&seed) % 8
								      : rnd(&seed) % NR_THREADS;
		while (pop < 12 && rnd(&seed) % 100 < 60)
			pop++;
		if (rnd(&seed) % 100 < 2)
			pop = depth;
		depth = depth > pop ? depth - pop : 0;
		while (depth < target) {
			stack_id parent = path[depth];
			uint32_t r = rnd(&seed) % 1000, f;
			uint32_t usual = r < shape->usual[0]   ? 0
					 : r < shape->usual[1] ? 1
					 : r < shape->usual[2] ? 2
							       : 3;

			if (usual < 3)
				f = (uint32_t)((parent * 2654435761u + usual * 40503u) % NR_FUNCS);
			else
				f = rnd(&seed) % NR_FUNCS;
			path[++depth] = profile_set_stack(ps, parent, frames[f]);
		}
		t += 900 + rnd(&seed) % 200;
		if (profile_add_sample(p, path[depth], 1000 + rnd(&seed) % 1000, t, true,
				       threads[th], NULL))
			die("weights overflow");
	}
	free(frames);
	return ps;
}

/* Distinct names like C++ symbols, about 40 to 70 bytes each. */
static struct profile_set *
generate_names(uint32_t nr)
{
	static const char *const words[] = {
		"parse",  "read",   "write", "buffer", "alloc",  "free",   "vector", "map",
		"string", "hash",   "lookup", "insert", "Render", "Layout", "draw",   "flush",
		"encode", "decode", "socket", "poll",   "lock",   "Queue",  "task",   "run",
	};
	const uint32_t nw = sizeof(words) / sizeof(words[0]);
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	uint64_t seed = 42;
	char name[160];

	for (uint32_t i = 0; i < nr; i++) {
		struct frame f = { 0 };
		int n = snprintf(name, sizeof(name), "ns%u::%s%u::%s_%s(std::%s<int>&, unsigned long)",
				 i % 97, words[rnd(&seed) % nw], i, words[rnd(&seed) % nw],
				 words[rnd(&seed) % nw], rnd(&seed) % 2 ? "vector" : "deque");

		f.name = ps_str(ps, name, (size_t)n);
		f.module = ps_str(ps, "libbench.so", 11);
		profile_set_frame(ps, &f);
	}
	(void)p;
	return ps;
}

static void
bench_threads(struct model *m)
{
	enum { RUNS = 9 };
	uint32_t nt = m->ps->nr_threads;
	bool *masks[4];
	const char *names[4] = {
		"one thread",
		"one process (8 threads)",
		"all but one process",
		"every other thread",
	};
	double wt[RUNS], tt[RUNS], ft[RUNS], all[RUNS];

	for (int k = 0; k < 4; k++)
		masks[k] = xcalloc(nt, sizeof(bool));
	masks[0][0] = true;
	for (uint32_t i = 0; i < nt; i++) {
		masks[1][i] = m->ps->threads[i].pid == 1000;
		masks[2][i] = m->ps->threads[i].pid != 1003;
		masks[3][i] = i % 2 == 0;
	}
	/* Warm every cache once, so the first run is like the others. */
	model_func_stats(m);
	model_tree(m);
	printf("thread filter change, %zu samples, %u stacks, %u functions:\n",
	       model_profile(m)->nr_samples, m->ps->nr_stacks, model_funcs(m)->nr_funcs);
	for (int k = 0; k < 5; k++) {
		uint64_t total = 0;
		uint32_t nodes = 0;

		for (int r = 0; r < RUNS; r++) {
			double t0, t1, t2, t3;

			/* Leave the mask, then come back: the change is what is timed. */
			model_set_threads(m, k < 4 ? masks[(k + 1) % 4] : masks[0]);
			model_stack_weights(m);
			model_set_threads(m, k < 4 ? masks[k] : NULL);
			t0 = now_ms();
			total = model_total(m);
			t1 = now_ms();
			model_tree(m);
			t2 = now_ms();
			model_func_stats(m);
			t3 = now_ms();
			wt[r] = t1 - t0;
			tt[r] = t2 - t1;
			ft[r] = t3 - t2;
			all[r] = t3 - t0;
		}
		for (stack_id s = 1; s < m->ps->nr_stacks; s++)
			nodes += model_tree(m)->total[s] != 0;
		printf("  %-26s weight %5.1f%%  %8u nodes: stack_weights %6.1f ms  tree %6.1f ms"
		       "  func stats %6.1f ms  total %6.1f ms\n",
		       k < 4 ? names[k] : "all threads (no filter)",
		       100.0 * (double)total / (double)model_profile(m)->total_weight, nodes,
		       median(wt, RUNS), median(tt, RUNS), median(ft, RUNS), median(all, RUNS));
	}
	for (int k = 0; k < 4; k++)
		free(masks[k]);
}

static void
bench_search(struct profile_set *ps)
{
	enum { RUNS = 11 };
	static const char *const patterns[] = {
		"alloc",
		"Render",
		"std::deque",
		"^ns4\\d::Queue\\d+7::",
		"(?:read|write)_buffer\\(",
		"lookup.*map|hash_insert",
		"\\d{6}::",
		"zzz_nothing",
		"",
	};
	struct func_table ft;
	double ms[RUNS];

	func_table_init(&ft, ps);
	printf("search over %u distinct frame names (%u functions):\n", ps->nr_frames,
	       ft.nr_funcs);
	for (size_t k = 0; k < sizeof(patterns) / sizeof(patterns[0]); k++) {
		struct tf_error err = TF_ERROR_INIT;
		struct search_re *re;
		struct search s;
		uint32_t matched = 0;

		for (int r = 0; r < RUNS; r++) {
			double t0 = now_ms();

			re = search_re_new(patterns[k], strlen(patterns[k]), NULL, &err);
			if (!re)
				die("%s", tf_error_text(&err));
			search_init(&s, re, ps, &ft);
			ms[r] = now_ms() - t0;
			matched = s.frames_matched;
			search_release(&s);
			search_re_free(re);
		}
		printf("  %-28s %8u matched  median %6.1f ms\n", patterns[k], matched,
		       median(ms, RUNS));
		tf_error_release(&err);
	}
	func_table_release(&ft);
}

/* Searching the big profile: the bitset, then indexing its tree and chart. */
static void
bench_search_index(struct model *m)
{
	enum { RUNS = 5 };
	double bits[RUNS], tree[RUNS], chart[RUNS];
	const struct search_index *ix = NULL;
	struct tf_error err = TF_ERROR_INIT;

	model_tree(m);
	model_chart(m);
	for (int r = 0; r < RUNS; r++) {
		const char *pattern = "function_1\\d*7$";
		struct search_re *re = search_re_new(pattern, strlen(pattern), NULL, &err);
		double t0, t1, t2;

		if (!re)
			die("%s", tf_error_text(&err));
		model_set_search(m, re);
		t0 = now_ms();
		model_search(m);
		t1 = now_ms();
		ix = model_search_tree(m);
		t2 = now_ms();
		model_search_chart(m);
		bits[r] = t1 - t0;
		tree[r] = t2 - t1;
		chart[r] = now_ms() - t2;
	}
	printf("search on the big profile, %u spans and %u hits in the tree, %u chart boxes:\n"
	       "  bitset %6.1f ms  tree index %6.1f ms  chart index %6.1f ms"
	       "  (matched %.1f%%)\n",
	       ix->nr_spans, ix->nr_hits, model_chart(m)->nr_boxes, median(bits, RUNS), median(tree, RUNS),
	       median(chart, RUNS),
	       100.0 * (double)search_index_matched(ix, 0, ix->total) / (double)ix->total);
	model_set_search(m, NULL);
	tf_error_release(&err);
}

static void
bench_sandwich(struct model *m)
{
	enum { RUNS = 5 };
	const struct func_stats *st;
	const struct func_table *ft = model_funcs(m);
	func_id heavy = 0, mid = 0;
	double ms[RUNS];
	const struct sandwich *sw = NULL;

	model_set_threads(m, NULL);
	st = model_func_stats(m);
	for (func_id f = 0; f < ft->nr_funcs; f++)
		if (st[f].total > st[heavy].total)
			heavy = f;
	/* And one with a mid-sized total: up to a hundredth of the heaviest. */
	for (func_id f = 0; f < ft->nr_funcs; f++)
		if (st[f].total <= st[heavy].total / 100 &&
		    (st[mid].total > st[heavy].total / 100 || st[f].total > st[mid].total))
			mid = f;
	for (int k = 0; k < 2; k++) {
		func_id f = k ? mid : heavy;

		for (int r = 0; r < RUNS; r++) {
			double t0;

			model_sandwich(m, k ? heavy : mid); /* another function first */
			t0 = now_ms();
			sw = model_sandwich(m, f);
			ms[r] = now_ms() - t0;
		}
		printf("sandwich of %s (%.1f%% of the total): %u callers nodes, %u callees stacks,"
		       " median %6.1f ms\n",
		       ps_get(m->ps, ft->funcs[f].name),
		       100.0 * (double)sw->total / (double)model_total(m),
		       sw->callers_ps.nr_stacks - 1, sw->callees_ps.nr_stacks - 1,
		       median(ms, RUNS));
	}
}

/*
 * The clock of the lens changes: the wall clock, or with --cpu the
 * thread's CPU time, which the other sessions of a shared machine
 * change less (the caches they share still count), or with --cpu-all
 * the process's, which counts the work of a thread the change starts.
 */
static clockid_t lens_clock = CLOCK_MONOTONIC;

static double
tick(void)
{
	struct timespec ts;

	clock_gettime(lens_clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * The next keystroke after a change of the lens: the first model queries
 * a redraw makes, the Left Heavy layout of 200 x 60 cells over the tree
 * (*layout) and the Sandwich table of functions by total (*rows). The
 * first call asks for the table: from then on, the model sorts it with
 * each change's function weights (in the change's time, lens_work()),
 * as in the UI once the Sandwich pane has been shown.
 */
static void
keystroke(struct model *m, double *layout, double *rows)
{
	const struct calltree *t;
	struct layout l;
	struct view v = { 0 };
	double t0 = tick(), t1;

	t = model_tree(m);
	v.x1 = t->total[STACK_ROOT] ? t->total[STACK_ROOT] : 1;
	v.width = 200;
	v.nr_rows = 60;
	v.eighths = true;
	layout_init(&l);
	layout_tree(&l, t, &v);
	layout_release(&l);
	t1 = tick();
	model_sandwich_rows(m, SANDWICH_BY_TOTAL, false, false);
	*layout = t1 - t0;
	*rows = tick() - t1;
}

static bool split; /* --split: print where each change's time goes */
static bool no_check; /* --no-check: no model_check() between changes */
static unsigned pause_ms; /* --pause=MS: before each change, as a person reads the screen */
static const char *only_shape; /* --shape=NAME: that profile only */
static bool only_p; /* --by-process: the group by process's table only */

/*
 * A person's pause before a change (--pause): on this kind of virtual
 * machine, memory freed goes back to the host within seconds, and the
 * next change's fresh memory then costs 1.6 to 3 ms a MiB to touch,
 * where changes run back to back reuse the pages the last one freed.
 */
static void
think(void)
{
	if (pause_ms)
		usleep((useconds_t)pause_ms * 1000);
}

/* The lens's own work after a change: the view's weights, tree and function weights. */
static void
lens_work(struct model *m)
{
	double t0 = tick(), t1, t2, t3;
	long f0 = bench_faults(), f1, f2, f3;

	model_total(m);
	t1 = tick();
	f1 = bench_faults();
	model_tree(m);
	t2 = tick();
	f2 = bench_faults();
	model_funcs(m);
	t3 = tick();
	f3 = bench_faults();
	model_func_stats(m);
	if (split)
		printf("    (weights %.1f, tree %.1f, marks %.1f, function weights and rows %.1f ms;"
		       " page faults %ld, %ld, %ld, %ld)\n",
		       t1 - t0, t2 - t1, t3 - t2, tick() - t3, f1 - f0, f2 - f1, f3 - f2,
		       bench_faults() - f3);
}

/*
 * Bytes malloc() has handed out, big blocks (mmap()ed) included, and
 * xgrow_pages()'s, those it keeps for the next included.
 */
static size_t
heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd + xpages_held() + xpages_pooled();
}

/* Check the model after a change, as the tests do: the bench measures correct code only. */
static void
check_model(struct model *m, const char *what)
{
	struct tf_error err = TF_ERROR_INIT;

	if (no_check)
		return;
	if (model_check(m, &err))
		die("%s: %s", what, tf_error_text(&err));
	tf_error_release(&err);
}

/* One line of the issue-15 table: a change's medians, each with its target. */
struct change_times {
	double apply[RUNS_CHANGE], layout[RUNS_CHANGE], rows[RUNS_CHANGE];
	double pop[RUNS_CHANGE], pop_layout[RUNS_CHANGE], pop_rows[RUNS_CHANGE];
};

static bool all_ok = true;

static const char *
verdict(double ms, double target)
{
	if (ms <= target)
		return "ok";
	all_ok = false;
	return "MISSED";
}

static void
print_header(void)
{
	printf("| change | view stacks | kept | apply ms (<= 200) | key: layout + rows ms (<= 10)"
	       " | undo ms (<= 200) | key after undo ms (<= 10) |\n"
	       "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
}

/* Runs [from, from + n) of c, as the first n of out. */
static void
slice_change(const struct change_times *c, struct change_times *out, int from, int n)
{
	for (int i = 0; i < n; i++) {
		out->apply[i] = c->apply[from + i];
		out->layout[i] = c->layout[from + i];
		out->rows[i] = c->rows[from + i];
		out->pop[i] = c->pop[from + i];
		out->pop_layout[i] = c->pop_layout[from + i];
		out->pop_rows[i] = c->pop_rows[from + i];
	}
}

static void
print_change(const char *what, uint32_t stacks, double kept, struct change_times *c, int runs)
{
	double a = median(c->apply, runs), l = median(c->layout, runs), r = median(c->rows, runs);
	double p = median(c->pop, runs), pl = median(c->pop_layout, runs);
	double pr = median(c->pop_rows, runs);

	printf("| %s | %u | %.1f%% | %.1f %s | %.1f + %.1f %s | %.1f %s | %.1f + %.1f %s |\n", what,
	       stacks, kept, a, verdict(a, 200), l, r, verdict(l + r, 10), p, verdict(p, 200), pl, pr,
	       verdict(pl + pr, 10));
}

/*
 * Issue 15's case: each transform by a function or path of the profile,
 * pushed (its view, the weights folded through it, the tree and the
 * function weights), the next keystroke, then popped and the keystroke
 * after that. With under set, each is pushed on top of another transform
 * (a merge of one function in ten), as a triage recipe stacks them.
 */
static void
bench_transforms(struct model *m, bool under)
{
	const struct calltree *t;
	const struct func_table *ft;
	struct strbuf heavy = STRBUF_INIT, path = STRBUF_INIT;
	struct tf_error err = TF_ERROR_INIT;
	stack_id top = STACK_ROOT;
	uint32_t nr;
	struct {
		enum lens_kind kind;
		const char *arg;
	} cases[LENS_NR_KINDS];
	struct change_times c;
	double l, r;

	model_set_threads(m, NULL);
	model_set_time(m, false, 0, 0);
	if (under && model_push_transform(m, LENS_MERGE_FUNCTION, "function_\\d*3$", &err))
		die("%s", tf_error_text(&err));
	lens_work(m);
	t = model_tree(m);
	ft = model_funcs(m);
	/* The heaviest root's heaviest child: a path, and a function on many stacks. */
	top = calltree_kids(t, STACK_ROOT, &nr)[0];
	top = t->nr_kids[top] ? calltree_kids(t, top, &nr)[0] : top;
	lens_path_text(model_view(m), top, &path);
	lens_quote_name(ps_get(m->ps, ft->funcs[ft->frame_func[model_view(m)->stacks[top].frame]].name),
			&heavy);
	cases[0].kind = LENS_FOCUS_SUBTREE, cases[0].arg = path.buf;
	cases[1].kind = LENS_FOCUS_FUNCTION, cases[1].arg = heavy.buf;
	cases[2].kind = LENS_FOCUS_FUNCTION_INVERTED, cases[2].arg = heavy.buf;
	/* About one function in ten. */
	cases[3].kind = LENS_MERGE_FUNCTION, cases[3].arg = "function_\\d*7$";
	cases[4].kind = LENS_MERGE_CALL_NODE, cases[4].arg = path.buf;
	cases[5].kind = LENS_DROP_FUNCTION, cases[5].arg = heavy.buf;
	cases[6].kind = LENS_COLLAPSE_RECURSION, cases[6].arg = "function_\\d*[02468]$";
	cases[7].kind = LENS_COLLAPSE_DIRECT_RECURSION, cases[7].arg = "function_";
	cases[8].kind = LENS_COLLAPSE_SUBTREE, cases[8].arg = "function_\\d*99$";
	cases[9].kind = LENS_COLLAPSE_MODULE, cases[9].arg = "bench";
	keystroke(m, &l, &r);
	printf("\ntransforms on %u stacks%s, %zu samples (apply: the view, its weights, tree and"
	       " function weights; key: Left Heavy's layout at 200x60 and the Sandwich table):\n\n",
	       model_view(m)->nr_stacks, under ? " (on top of merge-function:function_\\d*3$)" : "",
	       model_profile(m)->nr_samples);
	print_header();
	for (int k = 0; k < LENS_NR_KINDS; k++) {
		uint32_t view_stacks = 0;
		uint64_t kept = 0;

		for (int i = 0; i < RUNS_CHANGE; i++) {
			size_t heap;
			double t0;

			think();
			heap = heap_bytes();
			t0 = tick();
			if (model_push_transform(m, cases[k].kind, cases[k].arg, &err))
				die("%s", tf_error_text(&err));
			if (split)
				printf("    push %s: %.1f ms\n", lens_kind_ops(cases[k].kind)->name,
				       tick() - t0);
			lens_work(m);
			c.apply[i] = tick() - t0;
			keystroke(m, &c.layout[i], &c.rows[i]);
			if (split && i == 0)
				printf("    memory the transform added: %.1f MiB, %.1f bytes a view stack\n",
				       (double)(heap_bytes() - heap) / 1048576.0,
				       (double)(heap_bytes() - heap) / model_view(m)->nr_stacks);
			if (i == 0)
				check_model(m, lens_kind_ops(cases[k].kind)->name);
			view_stacks = model_view(m)->nr_stacks;
			kept = model_total(m);
			think();
			t0 = tick();
			model_pop_transform(m);
			lens_work(m);
			c.pop[i] = tick() - t0;
			keystroke(m, &c.pop_layout[i], &c.pop_rows[i]);
			if (i == 0)
				check_model(m, "undo");
		}
		print_change(lens_kind_ops(cases[k].kind)->name, view_stacks,
			     100.0 * (double)kept / (double)model_profile(m)->total_weight, &c,
			     RUNS_CHANGE);
	}
	if (under)
		model_pop_transform(m);
	tf_error_release(&err);
	strbuf_release(&heavy);
	strbuf_release(&path);
}

/*
 * The group by process (P), as issue 15's lens changes: on (the grouped
 * stacks, the weights, the tree and the function weights), the next
 * keystroke, off (the set's own stacks again), and the keystroke after.
 * With under set, P goes on and off under a transform (a merge of one
 * function in ten), which then takes the other stacks as its input.
 */
static void
bench_by_process(struct model *m, bool under)
{
	struct tf_error err = TF_ERROR_INIT;
	struct change_times c, first, again;
	size_t heap;
	uint32_t stacks = 0;
	uint64_t kept = 0;
	double layout0, rows0;

	model_set_threads(m, NULL);
	model_set_time(m, false, 0, 0);
	if (under && model_push_transform(m, LENS_MERGE_FUNCTION, "function_\\d*3$", &err))
		die("%s", tf_error_text(&err));
	lens_work(m);
	/*
	 * The Sandwich table asked for once before, as in the UI once the
	 * pane has been shown: the first P's key then times P, not the
	 * table's first build (its name ranks, its first sort).
	 */
	keystroke(m, &layout0, &rows0);
	if (split)
		printf("    the table before P: layout %.1f, rows %.1f ms\n", layout0, rows0);
	heap = heap_bytes();
	for (int r = 0; r < RUNS_CHANGE; r++) {
		double t0;
		long f0;

		think();
		t0 = tick();
		f0 = bench_faults();
		model_set_by_process(m, true);
		if (split)
			printf("    P on: %.1f ms, %ld page faults\n", tick() - t0,
			       bench_faults() - f0);
		lens_work(m);
		c.apply[r] = tick() - t0;
		keystroke(m, &c.layout[r], &c.rows[r]);
		if (r == 0)
			check_model(m, "by process");
		stacks = model_view(m)->nr_stacks;
		kept = model_total(m);
		think();
		t0 = tick();
		model_set_by_process(m, false);
		if (split)
			printf("    P off: %.1f ms\n", tick() - t0);
		lens_work(m);
		c.pop[r] = tick() - t0;
		if (split && r == 0)
			printf("    memory kept for the next P: %.1f MiB\n",
			       ((double)heap_bytes() - (double)heap) / 1048576.0);
		keystroke(m, &c.pop_layout[r], &c.pop_rows[r]);
		if (r == 0)
			check_model(m, "by process off");
	}
	printf("\ngroup by process (P)%s, %zu samples (apply: P on, the grouped view, its"
	       " weights, tree and function weights; undo: P off):\n\n",
	       under ? " under merge-function:function_\\d*3$" : "", model_profile(m)->nr_samples);
	print_header();
	/*
	 * The first P builds the group; the others take back the group that
	 * P off kept (lens.kept_group): apart, as a median of both would
	 * show the second only.
	 */
	slice_change(&c, &first, 0, 1);
	slice_change(&c, &again, 1, RUNS_CHANGE - 1);
	print_change(under ? "by process, under a merge: first P" : "by process: first P", stacks,
		     100.0 * (double)kept / (double)model_profile(m)->total_weight, &first, 1);
	print_change(under ? "by process, under a merge: P again" : "by process: P again", stacks,
		     100.0 * (double)kept / (double)model_profile(m)->total_weight, &again,
		     RUNS_CHANGE - 1);
	if (under)
		model_pop_transform(m);
	tf_error_release(&err);
}

/*
 * The first P when the explorer made the group ahead (model_prepare_group(),
 * as it does once the first screen is out): the kept group dropped first
 * (model_set_changed(), as new symbols do), then the group started on its
 * thread and, with at_once false, waited for and 2 s more (a person reads
 * the screen before P), or with at_once true P pressed at once, waiting
 * for it in its time. Bare and under a transform (whose view over the
 * group the first P still builds).
 */
static void
bench_by_process_ahead(struct model *m, bool under, bool at_once)
{
	struct tf_error err = TF_ERROR_INIT;
	struct change_times c;
	double start, build = 0, t0, layout0, rows0;
	char what[96];

	model_set_threads(m, NULL);
	model_set_time(m, false, 0, 0);
	model_set_changed(m);
	if (under && model_push_transform(m, LENS_MERGE_FUNCTION, "function_\\d*3$", &err))
		die("%s", tf_error_text(&err));
	lens_work(m);
	keystroke(m, &layout0, &rows0);
	t0 = tick();
	if (!model_prepare_group(m))
		die("the group by process was not made ahead");
	start = tick() - t0;
	if (!at_once) {
		double w0 = now_ms();

		lens_prepare_wait(&m->lens);
		build = now_ms() - w0;
		sleep(2);
	}
	t0 = tick();
	model_set_by_process(m, true);
	lens_work(m);
	c.apply[0] = tick() - t0;
	keystroke(m, &c.layout[0], &c.rows[0]);
	check_model(m, "by process, made ahead");
	t0 = tick();
	model_set_by_process(m, false);
	lens_work(m);
	c.pop[0] = tick() - t0;
	keystroke(m, &c.pop_layout[0], &c.pop_rows[0]);
	snprintf(what, sizeof(what), "by process%s, made ahead: first P%s",
		 under ? ", under a merge" : "", at_once ? " pressed at once" : "");
	print_change(what, model_view(m)->nr_stacks, 100.0, &c, 1);
	if (!at_once)
		printf("|   (made ahead: %.1f ms on this thread to start it, %.0f ms on its own,"
		       " waited for) | | | | | | |\n", start, build);
	if (under)
		model_pop_transform(m);
	tf_error_release(&err);
}

static void
bench_ahead(struct model *m)
{
	printf("\ngroup by process (P) made ahead on a thread, %zu samples (apply: P on, the"
	       " grouped view, its weights, tree and function weights; undo: P off):\n\n",
	       model_profile(m)->nr_samples);
	print_header();
	bench_by_process_ahead(m, false, false);
	bench_by_process_ahead(m, false, true);
	bench_by_process_ahead(m, true, false);
}

/*
 * A time range: set (the weights of the samples in it, tree and
 * function weights), the next keystroke, and cleared, for several ranges.
 */
static void
bench_time(struct model *m)
{
	static const struct {
		const char *name;
		double from, to;
	} ranges[] = {
		{ "time range: the middle half", 0.25, 0.75 },
		{ "time range: a tenth", 0.40, 0.50 },
		{ "time range: a thousandth", 0.500, 0.501 },
		{ "time range: all but the last hundredth", 0.0, 0.99 },
	};
	const struct profile *p = model_profile(m);
	double span = (double)(p->time_max - p->time_min);
	struct change_times c;

	model_set_threads(m, NULL);
	model_set_time(m, false, 0, 0);
	lens_work(m);
	printf("\ntime ranges over %zu samples, %u stacks (set, then cleared as Esc does):\n\n",
	       p->nr_samples, m->ps->nr_stacks);
	print_header();
	for (size_t k = 0; k < sizeof(ranges) / sizeof(ranges[0]); k++) {
		int64_t t0 = p->time_min + (int64_t)(span * ranges[k].from);
		int64_t t1 = p->time_min + (int64_t)(span * ranges[k].to);
		uint64_t kept = 0;

		for (int i = 0; i < RUNS_CHANGE; i++) {
			double s;

			think();
			s = tick();
			model_set_time(m, true, t0, t1);
			lens_work(m);
			c.apply[i] = tick() - s;
			keystroke(m, &c.layout[i], &c.rows[i]);
			if (i == 0)
				check_model(m, ranges[k].name);
			kept = model_total(m);
			think();
			s = tick();
			model_set_time(m, false, 0, 0);
			lens_work(m);
			c.pop[i] = tick() - s;
			keystroke(m, &c.pop_layout[i], &c.pop_rows[i]);
		}
		print_change(ranges[k].name, m->ps->nr_stacks,
			     100.0 * (double)kept / (double)p->total_weight, &c, RUNS_CHANGE);
	}
}

int
main(int argc, char **argv)
{
	bool issue = false;

	/* malloc()'s heaps in huge pages, as tflame's main() has them */
	xheap_huge_pages();
	for (; argc > 1 && !strncmp(argv[1], "--", 2); argc--, argv++) {
		if (!strcmp(argv[1], "--split"))
			split = true;
		else if (!strcmp(argv[1], "--cpu"))
			lens_clock = CLOCK_THREAD_CPUTIME_ID;
		else if (!strcmp(argv[1], "--cpu-all"))
			lens_clock = CLOCK_PROCESS_CPUTIME_ID;
		else if (!strcmp(argv[1], "--by-process"))
			only_p = true;
		else if (!strcmp(argv[1], "--issue15"))
			issue = true;
		else if (!strcmp(argv[1], "--no-check"))
			no_check = true;
		else if (!strncmp(argv[1], "--pause=", 8))
			pause_ms = (unsigned)strtoul(argv[1] + 8, NULL, 10);
		else if (!strncmp(argv[1], "--shape=", 8))
			only_shape = argv[1] + 8;
		else
			die("usage: lens-bench [--split] [--cpu | --cpu-all] [--shape=NAME] "
			    "[--by-process] [--issue15] [--no-check] [--pause=MS] [SAMPLES [NAMES]]");
	}
	issue = issue || only_p;
	size_t nr_samples = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	uint32_t nr_names = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1200000;

	if (!nr_samples)
		die("lens-bench: no samples to generate");
	struct profile_set *ps;
	struct model m;
	double t0 = now_ms();

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		/* Issue 15's case is >= 1 M stacks: the typical profile has fewer. */
		if (only_shape ? strcmp(only_shape, shapes[i].name) != 0
			       : issue && !only_p && !shapes[i].issue)
			continue;
		t0 = now_ms();
		ps = generate_samples(nr_samples, &shapes[i]);
		printf("\n== %s profile: %zu samples, %u stacks, generated in %.0f ms\n",
		       shapes[i].name, nr_samples, ps->nr_stacks, now_ms() - t0);
		model_init(&m, ps);
		if (!issue) {
			bench_threads(&m);
			bench_search_index(&m);
			bench_sandwich(&m);
		}
		bench_by_process(&m, false);
		bench_by_process(&m, true);
		bench_ahead(&m);
		if (!only_p) {
			bench_transforms(&m, false);
			bench_transforms(&m, true);
			bench_time(&m);
		}
		model_release(&m);
	}
	printf("\nissue 15 targets (%s time): %s\n",
	       lens_clock == CLOCK_MONOTONIC	       ? "wall"
	       : lens_clock == CLOCK_PROCESS_CPUTIME_ID ? "every thread's CPU"
							: "CPU",
	       all_ok ? "all met" : "some MISSED");
	if (issue)
		return 0;

	ps = generate_names(nr_names);
	bench_search(ps);
	profile_set_free(ps);
	return 0;
}
