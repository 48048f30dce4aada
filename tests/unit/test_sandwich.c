#include "config.h"

#include "tflame/sandwich.h"

#include <stdlib.h>

#include "tflame/calltree.h"
#include "tflame/functions.h"
#include "tflame/layout.h"
#include "tflame/search.h"
#include "tflame/xalloc.h"

#include "test_util.h"

/* A profile set with its per-stack weights and functions. */
struct fixture {
	struct profile_set *ps;
	struct profile *p;
	struct func_table ft;
	uint64_t *w;
	struct func_stats *st;
	struct calltree tree; /* the lens's Left Heavy tree, from w */
};

static void
fixture_init(struct fixture *fx)
{
	fx->ps = profile_set_new();
	fx->p = profile_set_profile(fx->ps, ps_str(fx->ps, "cycles", 6), UNIT_EVENTS);
	fx->w = NULL;
	fx->st = NULL;
	memset(&fx->ft, 0, sizeof(fx->ft));
	memset(&fx->tree, 0, sizeof(fx->tree));
}

static void
sample(struct fixture *fx, const char *path, uint64_t weight, int tid)
{
	test_sample(fx->ps, fx->p, path, weight, -1, tid);
}

/*
 * Weights (through filter, NULL for all), the tree, functions and their
 * stats. Functions are marked for outermost occurrences unless told not
 * to, to try both ways of sandwich_build().
 */
static void
fixture_weigh_marked(struct fixture *fx, const struct sample_filter *filter, bool mark)
{
	func_table_release(&fx->ft);
	calltree_release(&fx->tree);
	free(fx->w);
	free(fx->st);
	func_table_init(&fx->ft, fx->ps);
	if (mark)
		func_table_mark_outermost(&fx->ft, fx->ps);
	fx->w = xmalloc(sizeof(*fx->w) * fx->ps->nr_stacks);
	stack_weights(fx->ps, fx->p, filter, fx->w);
	fx->st = xmalloc(sizeof(*fx->st) * ((size_t)fx->ft.nr_funcs + 1));
	func_stats_compute(&fx->ft, fx->ps, fx->w, fx->st);
	calltree_build(&fx->tree, fx->ps, fx->w);
}

static void
fixture_weigh(struct fixture *fx, const struct sample_filter *filter)
{
	fixture_weigh_marked(fx, filter, true);
}

static void
fixture_release(struct fixture *fx)
{
	check_profile_set(fx->ps);
	calltree_release(&fx->tree);
	func_table_release(&fx->ft);
	free(fx->w);
	free(fx->st);
	profile_set_free(fx->ps);
}

static func_id
fn(struct fixture *fx, const char *name)
{
	for (func_id f = 0; f < fx->ft.nr_funcs; f++)
		if (!strcmp(ps_get(fx->ps, fx->ft.funcs[f].name), name))
			return f;
	fail_msg("no function %s", name);
	return 0;
}

static void
check_sandwich(const struct sandwich *sw)
{
	struct tf_error err = TF_ERROR_INIT;

	if (sandwich_check(sw, &err))
		fail_msg("sandwich_check: %s", tf_error_text(&err));
	tf_error_release(&err);
	check_profile_set(sw->ps);
}

/* The node of t for path "F;x;y" (top first), or fail. */
static stack_id
tnode(const struct calltree *t, const char *path)
{
	char buf[1024];

	for (stack_id s = 1; s < t->nr_nodes; s++)
		if (!strcmp(stack_text(t->ps, s, buf, sizeof(buf)), path))
			return s;
	fail_msg("no node %s", path);
	return 0;
}

static uint64_t
total_of(const struct calltree *t, const char *path)
{
	return t->total[tnode(t, path)];
}

static uint64_t
self_of(const struct calltree *t, const char *path)
{
	return t->self[tnode(t, path)];
}

/* Nodes of t with weight, the root aside. */
static uint32_t
nr_nodes(const struct calltree *t)
{
	uint32_t nr = 0;

	for (stack_id s = 1; s < t->nr_nodes; s++)
		if (t->total[s])
			nr++;
	return nr;
}

static void
build(struct sandwich *sw, struct fixture *fx, const char *name)
{
	func_id f = fn(fx, name);

	sandwich_build(sw, &fx->tree, &fx->ft, f);
	check_sandwich(sw);
	/* The same numbers as the table's row. */
	assert_int_equal(sw->total, fx->st[f].total);
	assert_int_equal(sw->self, fx->st[f].self);
}

/* ---------------------------------------------------------- recursion */

/*
 * Direct recursion: a;a;a 3, a;b 2, c;a;a 1, c 4.
 * a: total 6 (each sample once), self 4 (a;a;a and c;a;a end in a).
 * Callers of a, up to the outermost a: a (3 + 2), a <- c (1).
 * Callees below the outermost a: a;a;a 3, a;b 2, a;a 1.
 */
static void
test_direct_recursion(void **state)
{
	struct fixture fx;
	struct sandwich sw;

	(void)state;
	fixture_init(&fx);
	sample(&fx, "a;a;a", 3, 1);
	sample(&fx, "a;b", 2, 1);
	sample(&fx, "c;a;a", 1, 1);
	sample(&fx, "c", 4, 1);
	fixture_weigh(&fx, NULL);
	build(&sw, &fx, "a");
	assert_int_equal(sw.total, 6);
	assert_int_equal(sw.self, 4);

	assert_int_equal(total_of(&sw.callers, "a"), 6);
	assert_int_equal(self_of(&sw.callers, "a"), 5);
	assert_int_equal(total_of(&sw.callers, "a;c"), 1);
	assert_int_equal(self_of(&sw.callers, "a;c"), 1);
	assert_int_equal(nr_nodes(&sw.callers), 2);

	assert_int_equal(total_of(&sw.callees, "a"), 6);
	assert_int_equal(self_of(&sw.callees, "a"), 0);
	assert_int_equal(total_of(&sw.callees, "a;a"), 4);
	assert_int_equal(self_of(&sw.callees, "a;a"), 1);
	assert_int_equal(total_of(&sw.callees, "a;a;a"), 3);
	assert_int_equal(total_of(&sw.callees, "a;b"), 2);
	assert_int_equal(nr_nodes(&sw.callees), 4);
	/* Heaviest first: a;a (4) before a;b (2). */
	assert_int_equal(sw.callees.kids[sw.callees.first[tnode(&sw.callees, "a")]],
			 tnode(&sw.callees, "a;a"));
	check_sandwich(&sw);
	sandwich_release(&sw);

	/* c: its callers are nobody, its callees a;a once. */
	build(&sw, &fx, "c");
	assert_int_equal(sw.total, 5);
	assert_int_equal(self_of(&sw.callers, "c"), 5);
	assert_int_equal(nr_nodes(&sw.callers), 1);
	assert_int_equal(total_of(&sw.callees, "c;a;a"), 1);
	assert_int_equal(self_of(&sw.callees, "c"), 4);
	check_sandwich(&sw);
	sandwich_release(&sw);
	fixture_release(&fx);
}

/*
 * Indirect recursion: a;b;a;c 5, b;a;b 2, a;b 1, d 3.
 * a: total 8, self 0. Callers: a (5 + 1), a <- b (2).
 *    Callees: a;b;a;c 5, a;b 2 + 1.
 * b: total 8, self 3. Callers: b (2), b <- a (5 + 1).
 *    Callees: b;a;c 5, b;a;b 2, b 1.
 */
static void
test_indirect_recursion(void **state)
{
	struct fixture fx;
	struct sandwich sw;

	(void)state;
	fixture_init(&fx);
	sample(&fx, "a;b;a;c", 5, 1);
	sample(&fx, "b;a;b", 2, 1);
	sample(&fx, "a;b", 1, 1);
	sample(&fx, "d", 3, 1);
	fixture_weigh(&fx, NULL);

	build(&sw, &fx, "a");
	assert_int_equal(sw.total, 8);
	assert_int_equal(sw.self, 0);
	assert_int_equal(total_of(&sw.callers, "a"), 8);
	assert_int_equal(self_of(&sw.callers, "a"), 6);
	assert_int_equal(total_of(&sw.callers, "a;b"), 2);
	assert_int_equal(nr_nodes(&sw.callers), 2);
	assert_int_equal(total_of(&sw.callees, "a;b"), 8);
	assert_int_equal(self_of(&sw.callees, "a;b"), 3);
	assert_int_equal(total_of(&sw.callees, "a;b;a"), 5);
	assert_int_equal(total_of(&sw.callees, "a;b;a;c"), 5);
	assert_int_equal(nr_nodes(&sw.callees), 4);
	check_sandwich(&sw);
	sandwich_release(&sw);

	build(&sw, &fx, "b");
	assert_int_equal(sw.total, 8);
	assert_int_equal(sw.self, 3);
	assert_int_equal(self_of(&sw.callers, "b"), 2);
	assert_int_equal(total_of(&sw.callers, "b;a"), 6);
	assert_int_equal(nr_nodes(&sw.callers), 2);
	assert_int_equal(self_of(&sw.callees, "b"), 1);
	assert_int_equal(total_of(&sw.callees, "b;a"), 7);
	assert_int_equal(total_of(&sw.callees, "b;a;c"), 5);
	assert_int_equal(total_of(&sw.callees, "b;a;b"), 2);
	check_sandwich(&sw);
	sandwich_release(&sw);

	/* d is a leaf called from nowhere. */
	build(&sw, &fx, "d");
	assert_int_equal(sw.total, 3);
	assert_int_equal(nr_nodes(&sw.callers), 1);
	assert_int_equal(nr_nodes(&sw.callees), 1);
	check_sandwich(&sw);
	sandwich_release(&sw);
	fixture_release(&fx);
}

/* Callers several levels deep, merged where their paths agree. */
static void
test_callers_merge(void **state)
{
	struct fixture fx;
	struct sandwich sw;

	(void)state;
	fixture_init(&fx);
	sample(&fx, "main;run;work;malloc", 10, 1);
	sample(&fx, "main;idle;work;malloc;mmap", 4, 1);
	sample(&fx, "main;run;parse;malloc", 3, 1);
	sample(&fx, "main;run;work", 7, 1);
	sample(&fx, "start;malloc", 1, 1);
	fixture_weigh(&fx, NULL);
	build(&sw, &fx, "malloc");
	assert_int_equal(sw.total, 18);
	assert_int_equal(sw.self, 14);
	assert_int_equal(total_of(&sw.callers, "malloc;work"), 14);
	assert_int_equal(total_of(&sw.callers, "malloc;work;run;main"), 10);
	assert_int_equal(total_of(&sw.callers, "malloc;work;idle;main"), 4);
	assert_int_equal(total_of(&sw.callers, "malloc;parse;run;main"), 3);
	assert_int_equal(total_of(&sw.callers, "malloc;start"), 1);
	assert_int_equal(self_of(&sw.callers, "malloc;start"), 1);
	assert_int_equal(self_of(&sw.callers, "malloc;work"), 0);
	assert_int_equal(nr_nodes(&sw.callers), 10);
	assert_int_equal(total_of(&sw.callees, "malloc;mmap"), 4);
	assert_int_equal(self_of(&sw.callees, "malloc"), 14);
	assert_int_equal(nr_nodes(&sw.callees), 2);
	/* The trees lay out like any other: row 0 is malloc across the width. */
	{
		struct layout l;
		struct view v = { 0, 18, 18, 0, 8, true };
		struct tf_error err = TF_ERROR_INIT;

		layout_init(&l);
		layout_tree(&l, &sw.callers, &v);
		assert_int_equal(layout_check(&l, &v, &err), 0);
		assert_true(l.nr > 0);
		assert_int_equal(l.boxes[0].col0, 0);
		assert_int_equal(l.boxes[0].col1, 18);
		assert_int_equal(l.boxes[0].node, tnode(&sw.callers, "malloc"));
		layout_release(&l);
		tf_error_release(&err);
	}
	check_sandwich(&sw);
	sandwich_release(&sw);
	fixture_release(&fx);
}

/*
 * A function that is several frames (lines) is one node on row 0, named
 * by its first frame; the frames stay apart further down.
 */
static void
test_function_of_several_frames(void **state)
{
	struct fixture fx;
	struct sandwich sw;
	struct frame f = { 0 };
	frame_id main_f, g7, g9;
	stack_id s;

	(void)state;
	fixture_init(&fx);
	f.name = ps_str(fx.ps, "main", 4);
	f.module = ps_str(fx.ps, "m", 1);
	main_f = profile_set_frame(fx.ps, &f);
	f.name = ps_str(fx.ps, "g", 1);
	f.flags = FRAME_HAS_LINE;
	f.line = 7;
	g7 = profile_set_frame(fx.ps, &f);
	f.line = 9;
	g9 = profile_set_frame(fx.ps, &f);
	s = profile_set_stack(fx.ps, profile_set_stack(fx.ps, STACK_ROOT, main_f), g9);
	assert_int_equal(profile_add_sample(fx.p, s, 5, 0, false,
					    profile_set_thread(fx.ps, 1, 1, STR_EMPTY), NULL), 0);
	s = profile_set_stack(fx.ps, profile_set_stack(fx.ps, STACK_ROOT, main_f), g7);
	s = profile_set_stack(fx.ps, s, g9);
	assert_int_equal(profile_add_sample(fx.p, s, 2, 0, false,
					    profile_set_thread(fx.ps, 1, 1, STR_EMPTY), NULL), 0);
	fixture_weigh(&fx, NULL);
	build(&sw, &fx, "g");
	assert_int_equal(sw.top, g7);
	assert_int_equal(sw.total, 7);
	assert_int_equal(total_of(&sw.callers, "g;main"), 7);
	assert_int_equal(nr_nodes(&sw.callers), 2);
	/* The inner g (line 9) is a callee of the outer one (line 7). */
	assert_int_equal(total_of(&sw.callees, "g;g"), 2);
	assert_int_equal(self_of(&sw.callees, "g"), 5);
	check_sandwich(&sw);
	sandwich_release(&sw);
	fixture_release(&fx);
}

/* Under a thread filter, and for a function the filter leaves no weight. */
static void
test_thread_filter(void **state)
{
	struct fixture fx;
	struct sandwich sw;
	struct sample_filter filter = { 0 };
	bool keep[2] = { false, false };

	(void)state;
	fixture_init(&fx);
	sample(&fx, "main;a;b", 3, 1);
	sample(&fx, "main;c;b", 4, 2);
	sample(&fx, "main;c", 2, 2);
	keep[profile_set_thread(fx.ps, 1, 2, STR_EMPTY)] = true;
	filter.threads = keep;
	fixture_weigh(&fx, &filter);
	build(&sw, &fx, "b");
	assert_int_equal(sw.total, 4);
	assert_int_equal(total_of(&sw.callers, "b;c;main"), 4);
	assert_int_equal(nr_nodes(&sw.callers), 3);
	check_sandwich(&sw);
	sandwich_release(&sw);

	build(&sw, &fx, "a");
	assert_int_equal(sw.total, 0);
	assert_int_equal(nr_nodes(&sw.callers), 0);
	assert_int_equal(nr_nodes(&sw.callees), 0);
	assert_int_equal(sw.callers.total[STACK_ROOT], 0);
	check_sandwich(&sw);
	sandwich_release(&sw);
	fixture_release(&fx);
}

/* A 100 000-frame stack: no recursion on depth anywhere. */
static void
test_deep_stack(void **state)
{
	struct fixture fx;
	struct sandwich sw;
	struct frame f = { 0 };
	const uint32_t depth = 100000;
	stack_id s = STACK_ROOT, mid = STACK_ROOT;
	char name[16];

	(void)state;
	fixture_init(&fx);
	f.module = ps_str(fx.ps, "m", 1);
	for (uint32_t i = 0; i < depth; i++) {
		int len = snprintf(name, sizeof(name), "f%u", i);

		f.name = ps_str(fx.ps, name, (size_t)len);
		s = profile_set_stack(fx.ps, s, profile_set_frame(fx.ps, &f));
		if (i == depth / 2)
			mid = s;
	}
	assert_int_equal(profile_add_sample(fx.p, s, 9, 0, false,
					    profile_set_thread(fx.ps, 1, 1, STR_EMPTY), NULL), 0);
	assert_int_equal(profile_add_sample(fx.p, mid, 1, 0, false,
					    profile_set_thread(fx.ps, 1, 1, STR_EMPTY), NULL), 0);
	fixture_weigh(&fx, NULL);
	build(&sw, &fx, "f50000");
	assert_int_equal(sw.total, 10);
	assert_int_equal(sw.self, 1);
	assert_int_equal(nr_nodes(&sw.callers), depth / 2 + 1);
	assert_int_equal(nr_nodes(&sw.callees), depth / 2);
	assert_int_equal(sw.callers_ps.stacks[sw.callers_ps.nr_stacks - 1].depth, depth / 2 + 1);
	check_sandwich(&sw);
	sandwich_release(&sw);
	fixture_release(&fx);
}

/* ----------------------------------------------- against brute force */

struct path_weight {
	char *path;
	uint64_t weight;
};

struct path_map {
	struct path_weight *v;
	size_t nr, alloc;
};

static void
map_add(struct path_map *m, const char *path, uint64_t w)
{
	for (size_t i = 0; i < m->nr; i++) {
		if (!strcmp(m->v[i].path, path)) {
			m->v[i].weight += w;
			return;
		}
	}
	ALLOC_GROW(m->v, m->nr, m->alloc);
	m->v[m->nr].path = xstrdup(path);
	m->v[m->nr].weight = w;
	m->nr++;
}

static void
map_release(struct path_map *m)
{
	for (size_t i = 0; i < m->nr; i++)
		free(m->v[i].path);
	free(m->v);
}

/* Add w to every prefix of the names seq[0 .. n). */
static void
map_add_prefixes(struct path_map *m, const char **seq, size_t n, uint64_t w)
{
	char buf[1024];
	size_t pos = 0;

	for (size_t i = 0; i < n; i++) {
		pos += (size_t)snprintf(buf + pos, sizeof(buf) - pos, "%s%s", i ? ";" : "", seq[i]);
		map_add(m, buf, w);
	}
}

/* Every node of t with weight is in m with its total, and nothing else is. */
static void
compare_tree(const struct calltree *t, const struct path_map *m, const char *what)
{
	char buf[1024];
	uint32_t nr = 0;

	for (stack_id s = 1; s < t->nr_nodes; s++) {
		size_t i;

		if (!t->total[s])
			continue;
		nr++;
		stack_text(t->ps, s, buf, sizeof(buf));
		for (i = 0; i < m->nr && strcmp(m->v[i].path, buf); i++)
			;
		if (i == m->nr)
			fail_msg("%s: node %s is not expected", what, buf);
		if (m->v[i].weight != t->total[s])
			fail_msg("%s: %s weighs %llu, want %llu", what, buf,
				 (unsigned long long)t->total[s],
				 (unsigned long long)m->v[i].weight);
	}
	if (nr != m->nr)
		fail_msg("%s: %u nodes, want %zu", what, nr, m->nr);
}

/* Compare the sandwich of f with the definition, sample by sample. */
static void
brute_force_one(struct fixture *fx, func_id f, const bool *keep)
{
	struct path_map callers = { 0 }, callees = { 0 };
	struct sandwich sw;

	for (size_t i = 0; i < fx->p->nr_samples; i++) {
		const char *names[16], *seq[16];
		stack_id s = fx->p->stack[i];
		uint32_t depth = fx->ps->stacks[s].depth, outer = depth;

		if (!keep[fx->p->thread[i]])
			continue;
		for (uint32_t d = depth; d-- > 0; s = fx->ps->stacks[s].parent)
			names[d] = frame_name(fx->ps, fx->ps->stacks[s].frame);
		for (uint32_t d = 0; d < depth && outer == depth; d++)
			if (!strcmp(names[d], ps_get(fx->ps, fx->ft.funcs[f].name)))
				outer = d;
		if (outer == depth)
			continue;
		for (uint32_t d = 0; d <= outer; d++)
			seq[d] = names[outer - d];
		map_add_prefixes(&callers, seq, outer + 1, fx->p->weight[i]);
		map_add_prefixes(&callees, names + outer, depth - outer, fx->p->weight[i]);
	}
	sandwich_build(&sw, &fx->tree, &fx->ft, f);
	compare_tree(&sw.callers, &callers, "callers");
	compare_tree(&sw.callees, &callees, "callees");
	assert_int_equal(sw.total, fx->st[f].total);
	assert_int_equal(sw.self, fx->st[f].self);
	check_sandwich(&sw);
	sandwich_release(&sw);
	map_release(&callers);
	map_release(&callees);
}

/*
 * Random stacks over five names, so recursion of every kind is common;
 * each function's sandwich is compared with a sample-by-sample reading
 * of the definition.
 */
static void
test_against_brute_force(void **state)
{
	struct fixture fx;
	uint64_t seed = 12345;
	char path[256];

	(void)state;
	fixture_init(&fx);
	for (int i = 0; i < 300; i++) {
		size_t pos = 0;
		int depth;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		depth = 1 + (int)((seed >> 33) % 7);
		for (int d = 0; d < depth; d++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			pos += (size_t)snprintf(path + pos, sizeof(path) - pos, "%s%c", d ? ";" : "",
						'a' + (int)((seed >> 33) % 5));
		}
		sample(&fx, path, 1 + (seed >> 55), 1 + i % 3);
	}
	/* With outermost marks, without them, and with a thread filter. */
	for (int pass = 0; pass < 3; pass++) {
		bool keep[3] = { true, pass < 2, true };
		struct sample_filter filter = { .threads = keep };

		fixture_weigh_marked(&fx, pass == 2 ? &filter : NULL, pass != 1);
		assert_int_equal(fx.ft.nr_funcs, 5);
		for (func_id f = 0; f < fx.ft.nr_funcs; f++)
			brute_force_one(&fx, f, keep);
	}
	fixture_release(&fx);
}

static void
test_check_catches_damage(void **state)
{
	struct fixture fx;
	struct sandwich sw;
	struct tf_error err = TF_ERROR_INIT;

	(void)state;
	fixture_init(&fx);
	sample(&fx, "a;b", 3, 1);
	fixture_weigh(&fx, NULL);
	build(&sw, &fx, "b");
	sw.total++;
	assert_int_equal(sandwich_check(&sw, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "weigh"));
	sw.total--;
	sw.top = fx.ps->stacks[test_stack(fx.ps, "a")].frame;
	assert_int_equal(sandwich_check(&sw, &err), -1);
	sw.top = fx.ps->stacks[test_stack(fx.ps, "a;b")].frame;
	tf_error_release(&err);
	check_sandwich(&sw);
	sandwich_release(&sw);
	fixture_release(&fx);
}

/* ------------------------------------------------------------ the table */

static void
check_rows(const struct sandwich_rows *r, struct fixture *fx, const struct search *match)
{
	struct tf_error err = TF_ERROR_INIT;

	if (sandwich_rows_check(r, fx->ps, &fx->ft, fx->st, NULL, match, &err))
		fail_msg("sandwich_rows_check: %s", tf_error_text(&err));
	tf_error_release(&err);
	check_profile_set(fx->ps);
}

static const char *
row_name(const struct sandwich_rows *r, struct fixture *fx, uint32_t i)
{
	assert_true(i < r->nr);
	return ps_get(fx->ps, fx->ft.funcs[r->rows[i]].name);
}

static void
test_rows(void **state)
{
	struct fixture fx;
	struct sandwich_rows r;
	struct search s;
	struct search_re *re;

	(void)state;
	fixture_init(&fx);
	/*
	 * With thread 2 filtered out: total main 14, b 9, c 5, a 5, zed 0;
	 * self b 6, a 5, c 5, main 0.
	 */
	sample(&fx, "main;b", 6, 1);
	sample(&fx, "main;b;c", 3, 1);
	sample(&fx, "main;a", 5, 1);
	sample(&fx, "c", 2, 1);
	sample(&fx, "zed", 8, 2);
	{
		bool keep[2] = { true, false };
		struct sample_filter filter = { .threads = keep };

		fixture_weigh(&fx, &filter);
	}
	sandwich_rows_init(&r);

	sandwich_rows_build(&r, fx.ps, &fx.ft, fx.st, NULL, SANDWICH_BY_TOTAL, false, NULL);
	/* zed has no weight under the filter: no row. */
	assert_int_equal(r.nr, 4);
	assert_string_equal(row_name(&r, &fx, 0), "main");
	assert_string_equal(row_name(&r, &fx, 1), "b");
	/* a and c: total 5 and self 5 each, so by name. */
	assert_string_equal(row_name(&r, &fx, 2), "a");
	assert_string_equal(row_name(&r, &fx, 3), "c");
	assert_int_equal(sandwich_rows_find(&r, fn(&fx, "zed")), UINT32_MAX);
	check_rows(&r, &fx, NULL);

	sandwich_rows_build(&r, fx.ps, &fx.ft, fx.st, NULL, SANDWICH_BY_SELF, false, NULL);
	/* self: b 6, a 5, c 5, main 0. */
	assert_string_equal(row_name(&r, &fx, 0), "b");
	assert_string_equal(row_name(&r, &fx, 1), "a");
	assert_string_equal(row_name(&r, &fx, 2), "c");
	assert_string_equal(row_name(&r, &fx, 3), "main");
	check_rows(&r, &fx, NULL);

	sandwich_rows_build(&r, fx.ps, &fx.ft, fx.st, NULL, SANDWICH_BY_NAME, false, NULL);
	assert_string_equal(row_name(&r, &fx, 0), "a");
	assert_string_equal(row_name(&r, &fx, 3), "main");
	assert_int_equal(sandwich_rows_find(&r, fn(&fx, "c")), 2);
	check_rows(&r, &fx, NULL);

	sandwich_rows_build(&r, fx.ps, &fx.ft, fx.st, NULL, SANDWICH_BY_NAME, true, NULL);
	assert_string_equal(row_name(&r, &fx, 0), "main");
	assert_string_equal(row_name(&r, &fx, 3), "a");
	check_rows(&r, &fx, NULL);

	/* A search filters the rows. */
	{
		struct tf_error err = TF_ERROR_INIT;

		re = search_re_new("^[ac]$", 6, NULL, &err);
		assert_non_null(re);
		tf_error_release(&err);
	}
	search_init(&s, re, fx.ps, &fx.ft);
	sandwich_rows_build(&r, fx.ps, &fx.ft, fx.st, NULL, SANDWICH_BY_TOTAL, false, &s);
	assert_int_equal(r.nr, 2);
	assert_true(r.filtered);
	assert_string_equal(row_name(&r, &fx, 0), "a");
	assert_string_equal(row_name(&r, &fx, 1), "c");
	check_rows(&r, &fx, &s);
	/* The checker notices a row that should not be there. */
	{
		struct tf_error err = TF_ERROR_INIT;

		r.rows[1] = fn(&fx, "main");
		assert_int_equal(sandwich_rows_check(&r, fx.ps, &fx.ft, fx.st, NULL, &s, &err), -1);
		tf_error_release(&err);
	}
	sandwich_rows_build(&r, fx.ps, &fx.ft, fx.st, NULL, SANDWICH_BY_TOTAL, false, &s);
	check_rows(&r, &fx, &s);
	search_release(&s);
	search_re_free(re);
	sandwich_rows_release(&r);
	fixture_release(&fx);
}

/* A sample of path under a process frame named proc (FRAME_PROCESS). */
static void
process_sample(struct fixture *fx, const char *proc, const char *path, uint64_t weight)
{
	struct frame f = { 0 };
	stack_id s;

	f.name = ps_str(fx->ps, proc, strlen(proc));
	f.flags = FRAME_PROCESS;
	s = profile_set_stack(fx->ps, STACK_ROOT, profile_set_frame(fx->ps, &f));
	for (const char *q = path; *q;) {
		const char *e = strchr(q, ';');
		size_t n = e ? (size_t)(e - q) : strlen(q);
		struct frame g = { 0 };

		g.name = ps_str(fx->ps, q, n);
		s = profile_set_stack(fx->ps, s, profile_set_frame(fx->ps, &g));
		q += n + (e ? 1 : 0);
	}
	assert_int_equal(profile_add_sample(fx->p, s, weight, 0, false,
					    profile_set_thread(fx->ps, 1, 1, STR_EMPTY), NULL),
			 0);
}

/*
 * Processes are no functions: no row of theirs, even with the heaviest
 * total or matching the search; the callers of a function end in them.
 */
static void
test_rows_leave_processes_out(void **state)
{
	struct fixture fx;
	struct sandwich_rows r;
	struct sandwich sw;
	struct search s;
	struct search_re *re;
	struct tf_error err = TF_ERROR_INIT;

	(void)state;
	fixture_init(&fx);
	process_sample(&fx, "xz", "main;compress", 6);
	process_sample(&fx, "python3", "main;eval", 3);
	process_sample(&fx, "python3", "", 1);
	fixture_weigh(&fx, NULL);
	assert_int_equal(fx.st[fn(&fx, "python3")].total, 4);
	sandwich_rows_init(&r);
	for (int by = SANDWICH_BY_TOTAL; by <= SANDWICH_BY_DELTA_SELF; by++) {
		sandwich_rows_build(&r, fx.ps, &fx.ft, fx.st, NULL, (enum sandwich_sort)by, false,
				    NULL);
		assert_int_equal(r.nr, 3); /* main, compress, eval */
		assert_int_equal(sandwich_rows_find(&r, fn(&fx, "xz")), UINT32_MAX);
		assert_int_equal(sandwich_rows_find(&r, fn(&fx, "python3")), UINT32_MAX);
		check_rows(&r, &fx, NULL);
	}
	assert_string_equal(row_name(&r, &fx, 0), "compress");
	/* The checker notices a process that got a row. */
	r.rows[0] = fn(&fx, "xz");
	assert_int_equal(sandwich_rows_check(&r, fx.ps, &fx.ft, fx.st, NULL, NULL, &err), -1);
	tf_error_release(&err);

	re = search_re_new("xz|main", 7, NULL, &err);
	assert_non_null(re);
	search_init(&s, re, fx.ps, &fx.ft);
	sandwich_rows_build(&r, fx.ps, &fx.ft, fx.st, NULL, SANDWICH_BY_TOTAL, false, &s);
	assert_int_equal(r.nr, 1);
	assert_string_equal(row_name(&r, &fx, 0), "main");
	check_rows(&r, &fx, &s);
	search_release(&s);
	search_re_free(re);

	build(&sw, &fx, "main");
	assert_int_equal(total_of(&sw.callers, "main;xz"), 6);
	assert_int_equal(total_of(&sw.callers, "main;python3"), 3);
	sandwich_release(&sw);
	sandwich_rows_release(&r);
	tf_error_release(&err);
	fixture_release(&fx);
}

/* Many rows, many of equal weights: the sorts against the checker, and each other. */
static void
test_many_rows(void **state)
{
	struct fixture fx;
	struct sandwich_rows r;
	uint64_t seed = 99;
	char path[64];
	func_id *first[SANDWICH_BY_DELTA_SELF + 1][2] = { { NULL } };

	(void)state;
	fixture_init(&fx);
	for (int i = 0; i < 3000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		snprintf(path, sizeof(path), "main;f%u;g%u", (unsigned)(seed >> 33) % 700,
			 (unsigned)(seed >> 45) % 300);
		sample(&fx, path, 1 + (seed >> 58), 1);
	}
	fixture_weigh(&fx, NULL);
	sandwich_rows_init(&r);
	/* Comparing names, then with the functions ranked by name: the same rows. */
	for (int ranked = 0; ranked < 2; ranked++) {
		struct tf_error err = TF_ERROR_INIT;

		if (ranked) {
			func_table_rank_names(&fx.ft, fx.ps);
			if (func_table_check(&fx.ft, fx.ps, &err))
				fail_msg("func_table_check: %s", tf_error_text(&err));
		}
		for (int by = SANDWICH_BY_TOTAL; by <= SANDWICH_BY_DELTA_SELF; by++) {
			for (int rev = 0; rev < 2; rev++) {
				sandwich_rows_build(&r, fx.ps, &fx.ft, fx.st, NULL,
						    (enum sandwich_sort)by, rev, NULL);
				assert_int_equal(r.nr, fx.ft.nr_funcs);
				check_rows(&r, &fx, NULL);
				if (!ranked)
					first[by][rev] = xmemdup(r.rows, sizeof(*r.rows) * r.nr);
				else
					assert_memory_equal(first[by][rev], r.rows,
							    sizeof(*r.rows) * r.nr);
			}
		}
		tf_error_release(&err);
	}
	for (int by = 0; by <= SANDWICH_BY_DELTA_SELF; by++)
		for (int rev = 0; rev < 2; rev++)
			free(first[by][rev]);
	sandwich_rows_release(&r);
	fixture_release(&fx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct_recursion),
		cmocka_unit_test(test_indirect_recursion),
		cmocka_unit_test(test_callers_merge),
		cmocka_unit_test(test_function_of_several_frames),
		cmocka_unit_test(test_thread_filter),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_against_brute_force),
		cmocka_unit_test(test_check_catches_damage),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_many_rows),
		cmocka_unit_test(test_rows_leave_processes_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
