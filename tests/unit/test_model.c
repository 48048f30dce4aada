#include "config.h"

#include "tflame/model.h"

#include "test_util.h"

static void
check_model(const struct model *m)
{
	struct tf_error err = TF_ERROR_INIT;

	if (model_check(m, &err))
		fail_msg("model_check: %s", tf_error_text(&err));
	tf_error_release(&err);
	check_profile_set(m->ps);
}

static func_id
fn(struct model *m, const char *name)
{
	const struct func_table *ft = model_funcs(m);

	for (func_id f = 0; f < ft->nr_funcs; f++)
		if (!strcmp(ps_get(m->ps, ft->funcs[f].name), name))
			return f;
	fail_msg("no function %s", name);
	return 0;
}

/*
 * Two profiles: cycles on threads 1 and 2, and instructions on thread 1.
 * Thread 1 of cycles: main;f 5, main;g 1; thread 2: main;g 4.
 */
static void
setup(struct model *m)
{
	struct profile_set *ps = profile_set_new();
	struct profile *cyc = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	struct profile *ins = profile_set_profile(ps, ps_str(ps, "instructions", 12),
						  UNIT_EVENTS);

	test_sample(ps, cyc, "main;f", 5, 10, 1);
	test_sample(ps, cyc, "main;g", 4, 20, 2);
	test_sample(ps, ins, "main;h", 7, 15, 1);
	test_sample(ps, cyc, "main;g", 1, 30, 1);
	model_init(m, ps);
	check_model(m);
}

static void
test_totals(void **state)
{
	struct model m;
	const struct calltree *t;
	const struct chart *c;
	const struct func_stats *st;

	(void)state;
	setup(&m);
	assert_string_equal(ps_get(m.ps, model_profile(&m)->name), "cycles");
	assert_int_equal(model_total(&m), 10);
	t = model_tree(&m);
	assert_int_equal(t->total[STACK_ROOT], 10);
	assert_int_equal(t->total[test_stack(m.ps, "main;g")], 5);
	c = model_chart(&m);
	assert_int_equal(c->total, 10);
	/*
	 * Thread 1's timeline, then thread 2's: main [0,6) over f [0,5) and
	 * g [5,6), then main [6,10) over g [6,10).
	 */
	assert_int_equal(c->nr_boxes, 5);
	st = model_func_stats(&m);
	assert_int_equal(st[fn(&m, "main")].total, 10);
	assert_int_equal(st[fn(&m, "g")].self, 5);
	assert_int_equal(st[fn(&m, "h")].total, 0);
	assert_int_equal(model_stack_weights(&m)[test_stack(m.ps, "main;f")], 5);
	check_model(&m);
	model_release(&m);
}

static void
test_caches_reused(void **state)
{
	struct model m;
	const struct calltree *t;
	const uint64_t *total, *w;
	const struct chart_box *boxes;
	const struct func_stats *st;
	uint64_t gen;
	bool all[2] = { true, true };

	(void)state;
	setup(&m);
	t = model_tree(&m);
	total = t->total;
	boxes = model_chart(&m)->boxes;
	st = model_func_stats(&m);
	w = model_stack_weights(&m);
	gen = m.generation;
	/* Asking again, switching panes, or setting the same lens: no rebuild. */
	assert_ptr_equal(model_tree(&m), t);
	assert_ptr_equal(model_tree(&m)->total, total);
	model_set_profile(&m, 0);
	model_set_threads(&m, NULL);
	model_set_threads(&m, all);
	assert_null(m.threads);
	assert_int_equal(m.generation, gen);
	assert_ptr_equal(model_tree(&m)->total, total);
	assert_ptr_equal(model_chart(&m)->boxes, boxes);
	assert_ptr_equal(model_func_stats(&m), st);
	assert_ptr_equal(model_stack_weights(&m), w);
	assert_int_equal(m.tree_gen, gen);
	assert_int_equal(m.chart_gen, gen);
	check_model(&m);
	model_release(&m);
}

static void
test_set_profile_rebuilds(void **state)
{
	struct model m;
	uint64_t gen;
	uint32_t nr;

	(void)state;
	setup(&m);
	assert_int_equal(model_tree(&m)->total[STACK_ROOT], 10);
	model_chart(&m);
	gen = m.generation;
	model_set_profile(&m, 1);
	assert_true(m.generation > gen);
	assert_string_equal(ps_get(m.ps, model_profile(&m)->name), "instructions");
	assert_int_equal(model_total(&m), 7);
	assert_int_equal(model_tree(&m)->total[STACK_ROOT], 7);
	calltree_kids(model_tree(&m), test_stack(m.ps, "main"), &nr);
	assert_int_equal(nr, 1);
	assert_int_equal(model_chart(&m)->total, 7);
	assert_int_equal(model_func_stats(&m)[fn(&m, "h")].total, 7);
	assert_int_equal(model_func_stats(&m)[fn(&m, "f")].total, 0);
	assert_int_equal(m.tree_gen, m.generation);
	check_model(&m);
	model_set_profile(&m, 0);
	assert_int_equal(model_tree(&m)->total[STACK_ROOT], 10);
	check_model(&m);
	model_release(&m);
}

static void
test_set_threads_rebuilds(void **state)
{
	struct model m;
	bool mask[2] = { false, false };
	uint64_t gen;
	const struct chart *c;

	(void)state;
	setup(&m);
	assert_int_equal(model_total(&m), 10);
	assert_int_equal(model_chart(&m)->total, 10);
	gen = m.generation;
	mask[profile_set_thread(m.ps, 1, 1, STR_EMPTY)] = true;
	model_set_threads(&m, mask);
	assert_true(m.generation > gen);
	assert_non_null(m.threads);
	assert_ptr_not_equal(m.threads, mask);
	/* The mask was copied: changing the caller's changes nothing. */
	mask[0] = false;
	assert_int_equal(model_total(&m), 6);
	assert_int_equal(model_tree(&m)->total[test_stack(m.ps, "main;g")], 1);
	c = model_chart(&m);
	/* Thread 2's g in between does not split thread 1's samples... */
	assert_int_equal(c->total, 6);
	assert_int_equal(c->nr_boxes, 3);
	assert_int_equal(model_func_stats(&m)[fn(&m, "g")].self, 1);
	check_model(&m);
	/* ...and the same mask again is no change. */
	mask[0] = true;
	gen = m.generation;
	model_set_threads(&m, mask);
	assert_int_equal(m.generation, gen);
	model_set_threads(&m, NULL);
	assert_true(m.generation > gen);
	assert_int_equal(model_total(&m), 10);
	check_model(&m);
	model_release(&m);
}

static void
test_check_catches_damage(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;

	(void)state;
	setup(&m);
	model_tree(&m);
	m.total++;
	assert_int_equal(model_check(&m, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "sum"));
	m.total--;
	m.tree_gen = m.generation + 1;
	assert_int_equal(model_check(&m, &err), -1);
	m.tree_gen = m.generation;
	tf_error_release(&err);
	check_model(&m);
	model_release(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_caches_reused),
		cmocka_unit_test(test_set_profile_rebuilds),
		cmocka_unit_test(test_set_threads_rebuilds),
		cmocka_unit_test(test_check_catches_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
