#include "config.h"

#include "tflame/model.h"

#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/xalloc.h"

#include "test_model_check.h"
#include "test_util.h"

/*
 * The model in diff mode: two small hand-made profiles joined as the
 * command line joins them (diff_join()), and every base answer checked
 * against numbers worked out by hand.
 */

/* A sample of path on thread (pid, tid, comm); time < 0: none. */
static void
add(struct profile_set *ps, const char *path, uint64_t w, int64_t time, int64_t pid,
    int64_t tid, const char *comm)
{
	struct profile *p = ps->nr_profiles ? ps->profiles[0]
					    : profile_set_profile(ps, STR_EMPTY, UNIT_EVENTS);
	thread_id t = profile_set_thread(ps, pid, tid, ps_str(ps, comm, strlen(comm)));

	assert_int_equal(profile_add_sample(p, test_stack(ps, path), w, time, time >= 0, t, NULL),
			 0);
}

/* base joined into new, and a model of new over both. */
static void
join(struct model *m, struct profile_set *now, struct profile_set *base)
{
	struct tf_error err = TF_ERROR_INIT;

	if (diff_join(now, base, 0, &err))
		fail_msg("diff_join: %s", tf_error_text(&err));
	profile_set_free(base);
	model_init(m, now);
	check_model(m);
}

/* The stack of set whose path is path (root first), or FRAME_NONE: without adding one. */
static stack_id
find(const struct profile_set *set, const char *path)
{
	char buf[256];

	for (stack_id s = 1; s < set->nr_stacks; s++)
		if (!strcmp(stack_text(set, s, buf, sizeof(buf)), path))
			return s;
	return FRAME_NONE;
}

static func_id
func(struct model *m, const char *name)
{
	func_id f = model_func_find(m, ps_str(m->ps, name, strlen(name)),
				    ps_str(m->ps, "m", 1));

	assert_int_not_equal(f, FUNC_NONE);
	return f;
}

/*
 * base: main;grow 10, main;gone 5, main;same 7, rec;rec;rec 4 (26)
 * new:  main;grow 30, main;fresh 6, main;same 7, rec;rec 2    (45)
 */
static void
grew_gone_new(struct model *m)
{
	struct profile_set *base = profile_set_new(), *now = profile_set_new();

	add(base, "main;grow", 10, -1, 1, 1, "prog");
	add(base, "main;gone", 5, -1, 1, 1, "prog");
	add(base, "main;same", 7, -1, 1, 1, "prog");
	add(base, "rec;rec;rec", 4, -1, 1, 1, "prog");
	add(now, "main;grow", 30, -1, 1, 1, "prog");
	add(now, "main;fresh", 6, -1, 1, 1, "prog");
	add(now, "main;same", 7, -1, 1, 1, "prog");
	add(now, "rec;rec", 2, -1, 1, 1, "prog");
	join(m, now, base);
}

static void
test_weights(void **state)
{
	struct model m;
	const uint64_t *w, *tot;
	const struct func_stats *st, *bst;
	uint64_t total = 0;

	(void)state;
	grew_gone_new(&m);
	assert_non_null(model_diff_base(&m));
	assert_string_equal(ps_get(m.ps, model_diff_base(&m)->name), DIFF_BASE_PREFIX);
	w = model_base_stack_weights(&m, &total);
	assert_int_equal(total, 26);
	assert_int_equal(model_total(&m), 45);
	assert_int_equal(w[find(m.ps, "main;grow")], 10);
	assert_int_equal(w[find(m.ps, "main;gone")], 5);
	assert_int_equal(w[find(m.ps, "main;fresh")], 0);
	assert_int_equal(w[find(m.ps, "rec;rec;rec")], 4);
	check_model(&m);

	/* Subtree sums, through nodes the new profile does not have. */
	model_tree(&m);
	tot = model_base_tree_totals(&m);
	assert_int_equal(tot[STACK_ROOT], 26);
	assert_int_equal(tot[find(m.ps, "main")], 22);
	assert_int_equal(tot[find(m.ps, "rec")], 4);
	assert_int_equal(tot[find(m.ps, "rec;rec")], 4);
	assert_int_equal(tot[find(m.ps, "main;fresh")], 0);
	assert_int_equal(m.tree.total[find(m.ps, "main;gone")], 0);
	check_model(&m);

	st = model_func_stats(&m);
	bst = model_base_func_stats(&m);
	assert_int_equal(bst[func(&m, "grow")].total, 10);
	assert_int_equal(bst[func(&m, "gone")].self, 5);
	assert_int_equal(st[func(&m, "gone")].total, 0);
	assert_int_equal(bst[func(&m, "fresh")].total, 0);
	assert_int_equal(st[func(&m, "fresh")].total, 6);
	assert_int_equal(bst[func(&m, "main")].total, 22);
	assert_int_equal(bst[func(&m, "main")].self, 0);
	/* Recursion counts once per sample, on either side. */
	assert_int_equal(bst[func(&m, "rec")].total, 4);
	assert_int_equal(bst[func(&m, "rec")].self, 4);
	assert_int_equal(st[func(&m, "rec")].total, 2);
	check_model(&m);
	model_release(&m);
}

static void
test_rows(void **state)
{
	static const char *const by_delta[] = { "main", "grow", "fresh", "same", "rec", "gone" };
	struct model m;
	const struct sandwich_rows *r;
	const struct func_table *ft;

	(void)state;
	grew_gone_new(&m);
	ft = model_funcs(&m);
	/* main +21, grow +20, fresh +6, same 0, rec -2, gone -5 */
	r = model_sandwich_rows(&m, SANDWICH_BY_DELTA_TOTAL, false, false);
	assert_int_equal(r->nr, 6);
	for (uint32_t i = 0; i < r->nr; i++)
		assert_string_equal(ps_get(m.ps, ft->funcs[r->rows[i]].name), by_delta[i]);
	check_model(&m);
	r = model_sandwich_rows(&m, SANDWICH_BY_DELTA_TOTAL, true, false);
	assert_string_equal(ps_get(m.ps, ft->funcs[r->rows[0]].name), "gone");
	/* Self: grow +20, fresh +6, main and same 0 (main's total +21 first), rec -2, gone -5 */
	r = model_sandwich_rows(&m, SANDWICH_BY_DELTA_SELF, false, false);
	assert_string_equal(ps_get(m.ps, ft->funcs[r->rows[0]].name), "grow");
	assert_string_equal(ps_get(m.ps, ft->funcs[r->rows[2]].name), "main");
	assert_string_equal(ps_get(m.ps, ft->funcs[r->rows[5]].name), "gone");
	check_model(&m);
	/* The gone function is listed by total too, last, with nothing new. */
	r = model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false);
	assert_int_equal(r->nr, 6);
	assert_string_equal(ps_get(m.ps, ft->funcs[r->rows[5]].name), "gone");
	check_model(&m);
	model_release(&m);
}

static void
test_sandwich(void **state)
{
	struct model m;
	const struct sandwich *sw;
	const uint64_t *callers, *callees;
	stack_id top, kid;

	(void)state;
	grew_gone_new(&m);
	/* main's callees: grow 10, same 7, fresh nothing; gone counts in main. */
	sw = model_sandwich(&m, func(&m, "main"));
	callees = model_base_sandwich(&m, func(&m, "main"), true);
	callers = model_base_sandwich(&m, func(&m, "main"), false);
	assert_int_equal(callees[STACK_ROOT], 22);
	assert_int_equal(callers[STACK_ROOT], 22);
	assert_int_equal(callees[find(sw->callees.ps, "main")], 22);
	assert_int_equal(callees[find(sw->callees.ps, "main;grow")], 10);
	assert_int_equal(callees[find(sw->callees.ps, "main;same")], 7);
	assert_int_equal(callees[find(sw->callees.ps, "main;fresh")], 0);
	assert_int_equal(find(sw->callees.ps, "main;gone"), FRAME_NONE);
	check_model(&m);

	/* rec;rec;rec against rec;rec: the path base has further down counts in rec;rec. */
	model_func_stats(&m);
	sw = model_sandwich(&m, func(&m, "rec"));
	callees = model_base_sandwich(&m, func(&m, "rec"), true);
	top = find(sw->callees.ps, "rec");
	kid = find(sw->callees.ps, "rec;rec");
	assert_int_not_equal(kid, FRAME_NONE);
	assert_int_equal(find(sw->callees.ps, "rec;rec;rec"), FRAME_NONE);
	assert_int_equal(sw->callees.total[kid], 2);
	assert_int_equal(callees[top], 4);
	assert_int_equal(callees[kid], 4);
	assert_int_equal(model_base_sandwich(&m, func(&m, "rec"), false)[STACK_ROOT], 4);
	check_model(&m);
	model_release(&m);
}

static void
test_normalize(void **state)
{
	struct model m;
	const uint64_t *w;
	uint64_t total = 0;

	(void)state;
	grew_gone_new(&m);
	model_sandwich_rows(&m, SANDWICH_BY_DELTA_TOTAL, false, false);
	assert_false(model_diff_normalized(&m));
	model_set_diff_normalize(&m, true);
	assert_true(model_diff_normalized(&m));
	/* floor(w * 45 / 26) per stack: 17 + 8 + 12 + 6 */
	w = model_base_stack_weights(&m, &total);
	assert_int_equal(total, 43);
	assert_int_equal(w[find(m.ps, "main;grow")], 17);
	assert_int_equal(w[find(m.ps, "main;gone")], 8);
	assert_int_equal(w[find(m.ps, "main;same")], 12);
	assert_int_equal(w[find(m.ps, "rec;rec;rec")], 6);
	assert_int_equal(model_base_tree_totals(&m)[find(m.ps, "main")], 37);
	assert_int_equal(model_base_func_stats(&m)[func(&m, "same")].total, 12);
	/* The new side is what it was. */
	assert_int_equal(model_total(&m), 45);
	/* grow +13 leads now: main +6, fresh +6, rec -4, same -5, gone -8 */
	{
		const struct sandwich_rows *r = model_sandwich_rows(&m, SANDWICH_BY_DELTA_TOTAL,
								    false, false);

		assert_string_equal(ps_get(m.ps, model_funcs(&m)->funcs[r->rows[0]].name), "grow");
	}
	model_sandwich(&m, func(&m, "main"));
	assert_int_equal(model_base_sandwich(&m, func(&m, "main"), true)[STACK_ROOT], 37);
	check_model(&m);
	model_set_diff_normalize(&m, false);
	model_base_stack_weights(&m, &total);
	assert_int_equal(total, 26);
	check_model(&m);
	model_release(&m);
}

/* A transform maps the base's stacks as it maps the shown ones. */
static void
test_transform(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	struct model m;
	const struct profile_set *view;
	const uint64_t *w;
	uint64_t total = 0;

	(void)state;
	grew_gone_new(&m);
	assert_int_equal(model_push_transform(&m, LENS_DROP_FUNCTION, "^gone$", &err), 0);
	model_base_stack_weights(&m, &total);
	assert_int_equal(total, 21);
	check_model(&m);
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^main$", &err), 0);
	view = model_view(&m);
	w = model_base_stack_weights(&m, &total);
	assert_int_equal(total, 21);
	assert_int_equal(w[find(view, "grow")], 10);
	assert_int_equal(w[find(view, "same")], 7);
	assert_int_equal(model_total(&m), 45);
	model_tree(&m);
	assert_int_equal(model_base_tree_totals(&m)[find(view, "grow")], 10);
	assert_int_equal(model_base_func_stats(&m)[func(&m, "main")].total, 0);
	check_model(&m);
	assert_true(model_pop_transform(&m));
	assert_true(model_pop_transform(&m));
	model_base_stack_weights(&m, &total);
	assert_int_equal(total, 26);
	check_model(&m);
	model_release(&m);
	tf_error_release(&err);
}

/* The inverted tree: row 0 the leaves, then their callers. */
static void
test_inverted(void **state)
{
	struct model m;
	const struct inverted *inv;
	const uint64_t *tot;

	(void)state;
	grew_gone_new(&m);
	inv = model_inverted(&m);
	tot = model_base_inverted_totals(&m);
	assert_int_equal(tot[STACK_ROOT], 26);
	assert_int_equal(tot[find(&inv->view, "grow")], 10);
	assert_int_equal(tot[find(&inv->view, "grow;main")], 10);
	assert_int_equal(tot[find(&inv->view, "fresh")], 0);
	/* rec;rec;rec read from the leaf is rec;rec;rec: its first two rows are new's. */
	assert_int_equal(tot[find(&inv->view, "rec")], 4);
	assert_int_equal(tot[find(&inv->view, "rec;rec")], 4);
	check_model(&m);
	model_release(&m);
}

/*
 * Threads by comm, and swapping: base has worker (tid 11) 8 and io (12)
 * 3; new worker (21) 9 and io (22) 4, in other processes.
 */
static void
test_threads_swap(void **state)
{
	struct profile_set *base = profile_set_new(), *now = profile_set_new();
	struct model m;
	bool *mask, *before;
	uint64_t total = 0;
	uint32_t n;

	(void)state;
	add(base, "main;work", 8, -1, 10, 11, "worker");
	add(base, "main;read", 3, -1, 10, 12, "io");
	add(now, "main;work", 9, -1, 20, 21, "worker");
	add(now, "main;read", 4, -1, 20, 22, "io");
	join(&m, now, base);
	n = m.ps->nr_threads;
	mask = xcalloc(n, sizeof(*mask));
	assert_int_equal(model_mark_threads(&m, THREAD_BY_TID, 21, NULL, mask), 1);
	model_set_threads(&m, mask);
	before = xmemdup(m.lens.threads, n);
	assert_int_equal(model_total(&m), 9);
	model_base_stack_weights(&m, &total);
	assert_int_equal(total, 8);
	check_model(&m);

	/* Swapped: base shown by comm, and new its counterpart. */
	assert_true(model_swap_diff(&m));
	assert_string_equal(ps_get(m.ps, model_profile(&m)->name), DIFF_BASE_PREFIX);
	assert_int_equal(model_total(&m), 8);
	model_base_stack_weights(&m, &total);
	assert_int_equal(total, 9);
	check_model(&m);
	/* And back: the very mask. */
	assert_true(model_swap_diff(&m));
	assert_int_equal(m.lens.profile, 0);
	assert_non_null(m.lens.threads);
	assert_memory_equal(m.lens.threads, before, n);
	assert_int_equal(model_total(&m), 9);
	check_model(&m);

	/* No filter: all of both. */
	model_set_threads(&m, NULL);
	model_base_stack_weights(&m, &total);
	assert_int_equal(total, 11);
	check_model(&m);
	free(before);
	free(mask);
	model_release(&m);
}

/* A time range by offset from each side's first sample, and counting samples. */
static void
test_time_count(void **state)
{
	struct profile_set *base = profile_set_new(), *now = profile_set_new();
	struct model m;
	uint64_t total = 0;

	(void)state;
	add(base, "a", 1, 1000, 1, 1, "p");
	add(base, "a;b", 2, 2000, 1, 1, "p");
	add(base, "a;b", 4, 3000, 1, 1, "p");
	add(now, "a", 10, 50000, 1, 1, "p");
	add(now, "a;b", 20, 51000, 1, 1, "p");
	add(now, "a;b", 40, 52000, 1, 1, "p");
	add(now, "a;c", 80, 53000, 1, 1, "p");
	join(&m, now, base);
	model_set_time(&m, true, 51000, 53000);
	assert_int_equal(model_total(&m), 60);
	model_base_stack_weights(&m, &total);
	assert_int_equal(total, 6);
	check_model(&m);
	assert_true(model_set_count_samples(&m, true));
	assert_int_equal(model_total(&m), 2);
	model_base_stack_weights(&m, &total);
	assert_int_equal(total, 2);
	check_model(&m);
	assert_true(model_set_count_samples(&m, false));

	assert_true(model_swap_diff(&m));
	assert_true(m.lens.timed);
	assert_int_equal(m.lens.t0, 2000);
	assert_int_equal(m.lens.t1, 4000);
	assert_int_equal(model_total(&m), 6);
	model_base_stack_weights(&m, &total);
	assert_int_equal(total, 60);
	check_model(&m);
	assert_true(model_swap_diff(&m));
	assert_int_equal(m.lens.t0, 51000);
	assert_int_equal(m.lens.t1, 53000);
	check_model(&m);
	model_release(&m);
}

/* Out of diff mode, nothing; "after" of a differential folded file compares with "before". */
static void
test_no_diff(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *before, *after;
	struct model m;
	thread_id t;

	(void)state;
	add(ps, "a;b", 3, -1, 1, 1, "p");
	model_init(&m, ps);
	assert_null(model_diff_base(&m));
	assert_null(model_base_stack_weights(&m, NULL));
	assert_null(model_base_tree_totals(&m));
	assert_null(model_base_func_stats(&m));
	assert_null(model_base_inverted_totals(&m));
	assert_false(model_swap_diff(&m));
	check_model(&m);
	model_release(&m);

	ps = profile_set_new();
	before = profile_set_profile(ps, ps_str(ps, "before", 6), UNIT_NONE);
	after = profile_set_profile(ps, ps_str(ps, "after", 5), UNIT_NONE);
	t = profile_set_thread(ps, 1, 1, STR_EMPTY);
	assert_int_equal(profile_add_sample(before, test_stack(ps, "a;b"), 5, 0, false, t, NULL),
			 0);
	assert_int_equal(profile_add_sample(after, test_stack(ps, "a;b"), 7, 0, false, t, NULL),
			 0);
	model_init(&m, ps);
	model_set_profile(&m, 1);
	assert_ptr_equal(model_diff_base(&m), before);
	assert_int_equal(model_base_tree_totals(&m)[find(ps, "a")], 5);
	assert_true(model_swap_diff(&m));
	assert_ptr_equal(model_diff_base(&m), after);
	check_model(&m);
	model_release(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_sandwich),
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_transform),
		cmocka_unit_test(test_inverted),
		cmocka_unit_test(test_threads_swap),
		cmocka_unit_test(test_time_count),
		cmocka_unit_test(test_no_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
