#include "config.h"

#include "tflame/model.h"

#include "tflame/export.h"
#include "tflame/xalloc.h"

#include "test_util.h"
#include "test_model_check.h"

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

/* A rewrite that puts an inlined frame "g.inl" under every g. */
static void
inline_g(void *ctx, struct profile_set *ps, const struct frame *old, struct frame_rewrite *rw)
{
	struct frame *out = ctx;

	if (strcmp(ps_get(ps, old->name), "g"))
		return;
	out[0] = out[1] = *old;
	out[1].name = ps_str(ps, "g.inl", 5);
	out[1].flags |= FRAME_INLINED;
	rw->frames = out;
	rw->nr = 2;
}

/*
 * The set rewritten under the model (symbols arrived): the caches are made
 * again for the new stacks, the lens stays, a function is found again by
 * its name, and a search for one function has to be set again.
 */
static void
test_set_changed(void **state)
{
	struct model m;
	struct frame out[2];
	struct search_re *re;
	struct tf_error err = TF_ERROR_INIT;
	bool mask[2] = { true, false };
	str_id name, module;
	size_t at;
	func_id g;

	(void)state;
	setup(&m);
	model_set_threads(&m, mask);
	assert_int_equal(model_total(&m), 6);
	g = fn(&m, "g");
	name = model_funcs(&m)->funcs[g].name;
	module = model_funcs(&m)->funcs[g].module;
	model_set_search_func(&m, g);
	model_tree(&m);
	model_chart(&m);
	model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false);
	model_sandwich(&m, g);
	check_model(&m);

	profile_set_rewrite(m.ps, inline_g, out);
	model_set_changed(&m);
	assert_int_equal(model_search_func(&m), FUNC_NONE);
	/* The thread filter stayed: thread 1 only. */
	assert_int_equal(model_total(&m), 6);
	/* Thread 1's samples at 10 and 30 ns, 20 apart: 40 ns of time. */
	assert_int_equal(model_chart(&m)->total, 40);
	assert_int_equal(model_func_find(&m, name, module), fn(&m, "g"));
	assert_int_equal(model_func_stats(&m)[fn(&m, "g.inl")].total, 1);
	assert_int_equal(model_func_find(&m, ps_str(m.ps, "nowhere", 7), module),
			 FUNC_NONE);
	model_set_search_func(&m, fn(&m, "g.inl"));
	assert_non_null(model_sandwich(&m, fn(&m, "g.inl")));
	assert_non_null(model_sandwich_rows(&m, SANDWICH_BY_SELF, false, false));
	check_model(&m);
	/* A regex search survives the change and matches the new frames. */
	re = search_re_new("inl", 3, &at, &err);
	assert_non_null(re);
	model_set_search(&m, re);
	assert_int_equal(model_search(&m)->frames_matched, 1);
	profile_set_rewrite(m.ps, inline_g, out);
	model_set_changed(&m);
	assert_non_null(model_search_re(&m));
	/* g.inl again under g, and the old g.inl: one frame, twice as deep. */
	assert_int_equal(model_search(&m)->frames_matched, 1);
	assert_int_equal(model_search_tree(&m) != NULL, 1);
	check_model(&m);
	tf_error_release(&err);
	model_release(&m);
}

/*
 * The weight per thread of the samples the whole lens keeps: a dropped
 * function's samples go from their thread, a time range keeps its own,
 * and the weights add up to the model's total.
 */
static void
test_kept_thread_weights(void **state)
{
	struct model m;
	struct thread_weight kept[3];
	struct tf_error err = TF_ERROR_INIT;
	thread_id t1, t2;

	(void)state;
	setup(&m);
	t1 = m.ps->profiles[0]->thread[0];
	t2 = m.ps->profiles[0]->thread[1];
	assert_int_equal(m.ps->nr_threads, 2);
	assert_int_equal(model_kept_thread_weights(&m, kept), 3);
	assert_int_equal(kept[t1].weight, 6);
	assert_int_equal(kept[t1].samples, 2);
	assert_int_equal(kept[t2].weight, 4);

	assert_int_equal(model_push_transform(&m, LENS_DROP_FUNCTION, "^f$", &err), 0);
	assert_int_equal(model_kept_thread_weights(&m, kept), 2);
	assert_int_equal(kept[t1].weight, 1);
	assert_int_equal(kept[t1].samples, 1);
	assert_int_equal(kept[t2].weight, 4);
	assert_int_equal(kept[t1].weight + kept[t2].weight, model_total(&m));

	/* From 15 ns on: thread 2's sample at 20 and thread 1's at 30. */
	model_set_time(&m, true, 15, 100);
	assert_int_equal(model_kept_thread_weights(&m, kept), 2);
	assert_int_equal(model_pop_transform(&m), true);
	model_set_time(&m, true, 0, 25);
	assert_int_equal(model_kept_thread_weights(&m, kept), 2);
	assert_int_equal(kept[t1].weight, 5);
	assert_int_equal(kept[t2].weight, 4);
	assert_int_equal(kept[t1].weight + kept[t2].weight, model_total(&m));
	check_model(&m);
	tf_error_release(&err);
	model_release(&m);
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
	/*
	 * Times 10 (thread 1's f), 20 (thread 2's g), 30 (thread 1's g):
	 * thread 1 samples every 20 ns, so 20 after its last sample ends the
	 * axis. Merged, main [0,40) over f [0,10) and g [10,40), the two
	 * threads' g one after the other.
	 */
	assert_int_equal(c->total, 40);
	assert_int_equal(c->nr_boxes, 3);
	assert_int_equal(model_timeline(&m)->nr_lanes, 2);
	assert_int_equal(model_timeline(&m)->lanes[0].weight, 6);
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
	const stack_id *boxes;
	const struct func_stats *st;
	uint64_t gen;
	bool all[2] = { true, true };

	(void)state;
	setup(&m);
	t = model_tree(&m);
	total = t->total;
	boxes = model_chart(&m)->first;
	st = model_func_stats(&m);
	w = model_stack_weights(&m);
	gen = m.generation;
	/* Asking again, switching panes, or setting the same lens: no rebuild. */
	assert_ptr_equal(model_tree(&m), t);
	assert_ptr_equal(model_tree(&m)->total, total);
	model_set_profile(&m, 0);
	model_set_threads(&m, NULL);
	model_set_threads(&m, all);
	assert_null(m.lens.threads);
	assert_int_equal(m.generation, gen);
	assert_ptr_equal(model_tree(&m)->total, total);
	assert_ptr_equal(model_chart(&m)->first, boxes);
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
	assert_int_equal(model_chart(&m)->total, 40);
	gen = m.generation;
	mask[profile_set_thread(m.ps, 1, 1, STR_EMPTY)] = true;
	model_set_threads(&m, mask);
	assert_true(m.generation > gen);
	assert_non_null(m.lens.threads);
	assert_ptr_not_equal(m.lens.threads, mask);
	/* The mask was copied: changing the caller's changes nothing. */
	mask[0] = false;
	assert_int_equal(model_total(&m), 6);
	assert_int_equal(model_tree(&m)->total[test_stack(m.ps, "main;g")], 1);
	c = model_chart(&m);
	/* Thread 1's range, on which thread 2's g in between splits nothing... */
	assert_int_equal(c->total, 40);
	assert_int_equal(c->nr_boxes, 3);
	assert_int_equal(model_timeline(&m)->nr_lanes, 1);
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

/*
 * Processes and threads for the picker, one profile:
 *   pid 1 "app":   tid 1 main;f 5, tid 2 "app-worker" main;g 4,
 *                  tid 3 "app-gc" main;gc 1 + 1;
 *   pid 7 "db":    tid 7 q 20, tid 8 "db-io" q;r 1;
 *   pid 9 "idle":  a thread with samples in another profile only.
 */
static void
setup_threads(struct model *m)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	struct profile *other = profile_set_profile(ps, ps_str(ps, "other", 5), UNIT_EVENTS);
	static const struct {
		int64_t pid, tid;
		const char *comm, *path;
		uint64_t weight;
	} rows[] = {
		{ 1, 1, "app", "main;f", 5 },
		{ 7, 8, "db-io", "q;r", 1 },
		{ 1, 2, "app-worker", "main;g", 4 },
		{ 7, 7, "db", "q", 20 },
		{ 1, 3, "app-gc", "main;gc", 1 },
		{ 1, 3, "app-gc", "main;gc", 1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		thread_id t = profile_set_thread(ps, rows[i].pid, rows[i].tid,
						 ps_str(ps, rows[i].comm, strlen(rows[i].comm)));

		assert_int_equal(profile_add_sample(p, test_stack(ps, rows[i].path),
						    rows[i].weight, 0, false, t, NULL), 0);
	}
	assert_int_equal(profile_add_sample(other, test_stack(ps, "idle"), 3, 0, false,
					    profile_set_thread(ps, 9, 9, ps_str(ps, "idle", 4)),
					    NULL), 0);
	model_init(m, ps);
	check_model(m);
}

/*
 * A tid that ran sh, then exec'd python3, is one thread: one row of the
 * thread table, one lane, one tick, found by either name; the time range
 * leaves Time Order's chart as it is.
 */
static void
test_exec_is_one_thread(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cpu", 3), UNIT_NANOSECONDS);
	thread_id sh = profile_set_thread(ps, 5, 5, ps_str(ps, "sh", 2));
	thread_id worker = profile_set_thread(ps, 5, 6, ps_str(ps, "python3", 7));
	thread_id py = profile_set_thread(ps, 5, 5, ps_str(ps, "python3", 7));
	const struct thread_table *tt;
	struct thread_weight *kept;
	struct search_re *re;
	struct model m;
	bool *mask;
	uint64_t chart_gen;

	(void)state;
	assert_int_equal(profile_add_sample(p, test_stack(ps, "dash"), 10, 100, true, sh, NULL), 0);
	assert_int_equal(profile_add_sample(p, test_stack(ps, "py;run"), 10, 110, true, py, NULL),
			 0);
	assert_int_equal(profile_add_sample(p, test_stack(ps, "py;work"), 10, 115, true, worker,
					    NULL), 0);
	assert_int_equal(profile_add_sample(p, test_stack(ps, "py;run"), 10, 120, true, py, NULL),
			 0);
	model_init(&m, ps);

	tt = model_thread_weights(&m);
	assert_int_equal(tt->nr_procs, 1);
	assert_int_equal(tt->nr_threads, 2);
	assert_int_equal(tt->threads[0].thread, sh);
	assert_int_equal(tt->threads[0].weight, 30);
	assert_int_equal(tt->threads[0].samples, 3);
	/* The process is named after its main thread's last name. */
	assert_int_equal(tt->procs[0].comm, ps->threads[py].comm);
	assert_int_equal(model_timeline(&m)->nr_lanes, 2);
	kept = calloc(ps->nr_threads, sizeof(*kept));
	assert_non_null(kept);
	assert_int_equal(model_kept_thread_weights(&m, kept), 4);
	assert_int_equal(kept[sh].weight, 30);
	assert_int_equal(kept[py].weight, 0);
	free(kept);

	/* By its first name: the whole thread, counted once. */
	mask = calloc(ps->nr_threads, sizeof(*mask));
	assert_non_null(mask);
	re = search_re_new("^sh$", 4, NULL, NULL);
	assert_non_null(re);
	assert_int_equal(model_mark_threads(&m, THREAD_BY_COMM, 0, re, mask), 1);
	search_re_free(re);
	assert_true(mask[sh] && mask[py]);
	assert_false(mask[worker]);
	model_set_threads(&m, mask);
	assert_int_equal(model_total(&m), 30);
	assert_int_equal(model_timeline(&m)->nr_lanes, 1);
	check_model(&m);

	/* The picker ticks the thread's first entry: its later name follows. */
	memset(mask, 0, ps->nr_threads * sizeof(*mask));
	mask[worker] = true;
	mask[py] = true; /* not the thread's first: its tick is sh's */
	model_set_threads(&m, mask);
	assert_int_equal(model_total(&m), 10);
	assert_false(m.lens.threads[py]);
	memset(mask, 0, ps->nr_threads * sizeof(*mask));
	assert_int_equal(model_mark_threads(&m, THREAD_BY_TID, 5, NULL, mask), 1);
	assert_true(mask[sh] && mask[py]);
	model_set_threads(&m, NULL);
	check_model(&m);

	/* A time range changes what is counted, not Time Order's chart. */
	chart_gen = model_chart_generation(&m);
	model_set_time(&m, true, 100, 112);
	assert_int_equal(model_chart_generation(&m), chart_gen);
	assert_int_equal(model_total(&m), 20);
	model_set_threads(&m, mask);
	assert_int_not_equal(model_chart_generation(&m), chart_gen);
	check_model(&m);
	free(mask);
	model_release(&m);
}

/*
 * A filter picked among one profile's threads holds in the others: the
 * same thread (pid, tid, and comm unless one is unknown) keeps its tick,
 * a thread only the other profile has loses it, all ticked is no filter.
 */
static void
test_carry_threads(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *cyc = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	struct profile *sw = profile_set_profile(ps, ps_str(ps, "switches", 8), UNIT_EVENTS);
	thread_id app = profile_set_thread(ps, 1, 1, ps_str(ps, "app", 3));
	thread_id worker = profile_set_thread(ps, 1, 2, ps_str(ps, "worker", 6));
	/* worker again, as an event that does not name threads records it */
	thread_id worker_anon = profile_set_thread(ps, 1, 2, STR_EMPTY);
	/* the same tid after an exec: another name, the same thread */
	thread_id execd = profile_set_thread(ps, 1, 1, ps_str(ps, "sh", 2));
	thread_id only_sw = profile_set_thread(ps, 5, 5, ps_str(ps, "kworker", 7));
	/* no tid: a name is a thread, and one an event does not name is the same */
	thread_id helper = profile_set_thread(ps, 6, -1, ps_str(ps, "helper", 6));
	thread_id helper_anon = profile_set_thread(ps, 6, -1, STR_EMPTY);
	struct model m;
	bool *mask;

	(void)state;
	assert_int_not_equal(worker, worker_anon);
	assert_int_not_equal(app, execd);
	assert_int_equal(ps_thread(ps, execd), app);
	assert_int_equal(ps_thread(ps, worker_anon), worker);
	assert_int_equal(profile_add_sample(cyc, test_stack(ps, "main;f"), 5, 0, false, app,
					    NULL), 0);
	assert_int_equal(profile_add_sample(cyc, test_stack(ps, "main;g"), 4, 0, false, worker,
					    NULL), 0);
	assert_int_equal(profile_add_sample(sw, test_stack(ps, "main;g"), 2, 0, false,
					    worker_anon, NULL), 0);
	assert_int_equal(profile_add_sample(sw, test_stack(ps, "sh"), 3, 0, false, execd,
					    NULL), 0);
	assert_int_equal(profile_add_sample(sw, test_stack(ps, "kw"), 7, 0, false, only_sw,
					    NULL), 0);
	assert_int_equal(profile_add_sample(cyc, test_stack(ps, "h"), 1, 0, false, helper, NULL),
			 0);
	assert_int_equal(profile_add_sample(sw, test_stack(ps, "h"), 1, 0, false, helper_anon,
					    NULL), 0);
	model_init(&m, ps);
	mask = calloc(ps->nr_threads, sizeof(*mask));
	assert_non_null(mask);

	/* The picker's way: everything ticked, then app unticked in cycles. */
	for (thread_id t = 0; t < ps->nr_threads; t++)
		mask[t] = true;
	mask[app] = false;
	/* worker's and app's other names are theirs; outside cycles, helper's. */
	assert_int_equal(ps_thread(ps, helper_anon), helper_anon);
	assert_int_equal(model_carry_threads(&m, mask), 1);
	assert_true(mask[helper_anon]);
	assert_true(mask[worker]);
	assert_true(mask[worker_anon]);
	assert_false(mask[app]);
	assert_false(mask[execd]);
	assert_false(mask[only_sw]);
	model_set_threads(&m, mask);
	assert_int_equal(model_total(&m), 5);
	model_set_profile(&m, 1);
	assert_int_equal(model_total(&m), 3);
	check_model(&m);

	/* Only app: in switches, its tid after the exec (sh) is it. */
	model_set_profile(&m, 0);
	memset(mask, 0, ps->nr_threads * sizeof(*mask));
	mask[app] = true;
	mask[only_sw] = true;
	assert_int_equal(model_carry_threads(&m, mask), 0);
	assert_false(mask[only_sw]);
	assert_true(mask[execd]);
	model_set_threads(&m, mask);
	model_set_profile(&m, 1);
	assert_int_equal(model_total(&m), 3);
	check_model(&m);

	/* Every thread of cycles ticked: no filter at all. */
	model_set_profile(&m, 0);
	memset(mask, 0, ps->nr_threads * sizeof(*mask));
	mask[app] = mask[worker] = mask[helper] = true;
	model_carry_threads(&m, mask);
	model_set_threads(&m, mask);
	assert_null(m.lens.threads);
	free(mask);
	model_release(&m);
}

static const char *
comm_of(const struct model *m, thread_id t)
{
	return ps_get(m->ps, m->ps->threads[t].comm);
}

static void
test_thread_table(void **state)
{
	struct model m;
	const struct thread_table *tt;

	(void)state;
	setup_threads(&m);
	tt = model_thread_weights(&m);
	assert_int_equal(tt->total, 32);
	assert_int_equal(tt->nr_procs, 2);
	assert_int_equal(tt->nr_threads, 5);
	/* db outweighs app; within each, heaviest thread first. */
	assert_int_equal(tt->procs[0].pid, 7);
	assert_string_equal(ps_get(m.ps, tt->procs[0].comm), "db");
	assert_int_equal(tt->procs[0].weight, 21);
	assert_int_equal(tt->procs[0].samples, 2);
	assert_int_equal(tt->procs[0].first, 0);
	assert_int_equal(tt->procs[0].nr, 2);
	assert_string_equal(comm_of(&m, tt->threads[0].thread), "db");
	assert_string_equal(comm_of(&m, tt->threads[1].thread), "db-io");
	assert_int_equal(tt->procs[1].pid, 1);
	assert_string_equal(ps_get(m.ps, tt->procs[1].comm), "app");
	assert_int_equal(tt->procs[1].weight, 11);
	assert_int_equal(tt->procs[1].first, 2);
	assert_string_equal(comm_of(&m, tt->threads[2].thread), "app");
	assert_string_equal(comm_of(&m, tt->threads[3].thread), "app-worker");
	assert_string_equal(comm_of(&m, tt->threads[4].thread), "app-gc");
	assert_int_equal(tt->threads[4].weight, 2);
	assert_int_equal(tt->threads[4].samples, 2);
	check_model(&m);

	/* The table ignores the filter, and is rebuilt for another profile only. */
	{
		bool mask[6] = { false };

		mask[tt->threads[0].thread] = true;
		model_set_threads(&m, mask);
	}
	assert_ptr_equal(model_thread_weights(&m), tt);
	assert_int_equal(tt->total, 32);
	model_set_profile(&m, 1);
	tt = model_thread_weights(&m);
	assert_int_equal(tt->nr_procs, 1);
	assert_int_equal(tt->procs[0].pid, 9);
	assert_int_equal(tt->total, 3);
	check_model(&m);
	model_release(&m);
}

static struct search_re *
re_of(const char *pattern)
{
	struct tf_error err = TF_ERROR_INIT;
	struct search_re *re = search_re_new(pattern, strlen(pattern), NULL, &err);

	if (!re)
		fail_msg("%s: %s", pattern, tf_error_text(&err));
	tf_error_release(&err);
	return re;
}

static void
test_thread_filter_by_tid_pid_comm(void **state)
{
	struct model m;
	bool mask[6];
	struct search_re *re;

	(void)state;
	setup_threads(&m);
	assert_int_equal(model_total(&m), 32);

	/* By tid: only app-worker. */
	memset(mask, 0, sizeof(mask));
	assert_int_equal(model_mark_threads(&m, THREAD_BY_TID, 2, NULL, mask), 1);
	model_set_threads(&m, mask);
	assert_int_equal(model_total(&m), 4);
	assert_int_equal(model_tree(&m)->total[test_stack(m.ps, "main;g")], 4);
	assert_int_equal(model_func_stats(&m)[fn(&m, "f")].total, 0);
	assert_int_equal(model_chart(&m)->total, 4);
	check_model(&m);

	/* By pid: db's two threads. */
	memset(mask, 0, sizeof(mask));
	assert_int_equal(model_mark_threads(&m, THREAD_BY_PID, 7, NULL, mask), 2);
	model_set_threads(&m, mask);
	assert_int_equal(model_total(&m), 21);
	assert_int_equal(model_func_stats(&m)[fn(&m, "q")].total, 21);
	assert_int_equal(model_func_stats(&m)[fn(&m, "q")].self, 20);
	check_model(&m);

	/* By comm, a regex with smart case. */
	memset(mask, 0, sizeof(mask));
	re = re_of("^app");
	assert_int_equal(model_mark_threads(&m, THREAD_BY_COMM, 0, re, mask), 3);
	search_re_free(re);
	model_set_threads(&m, mask);
	assert_int_equal(model_total(&m), 11);
	assert_int_equal(model_tree(&m)->total[test_stack(m.ps, "main")], 11);
	check_model(&m);
	re = re_of("DB");
	assert_int_equal(model_mark_threads(&m, THREAD_BY_COMM, 0, re, mask), 0);
	search_re_free(re);
	re = re_of("db");
	/* Marks add to the mask: app's three and db's two are everything. */
	assert_int_equal(model_mark_threads(&m, THREAD_BY_COMM, 0, re, mask), 2);
	search_re_free(re);
	model_set_threads(&m, mask);
	assert_int_equal(model_total(&m), 32);
	/* No thread 1234, and no comm regex: nothing marked. */
	assert_int_equal(model_mark_threads(&m, THREAD_BY_TID, 1234, NULL, mask), 0);
	assert_int_equal(model_mark_threads(&m, THREAD_BY_COMM, 0, NULL, mask), 0);
	check_model(&m);
	model_release(&m);
}

static void
test_search_in_model(void **state)
{
	struct model m;
	const struct search *s;
	const struct search_index *ix, *cx;
	uint64_t gen;
	bool mask[2] = { true, false };

	(void)state;
	setup(&m);
	assert_null(model_search(&m));
	assert_null(model_search_tree(&m));
	model_tree(&m);
	gen = m.generation;
	model_set_search(&m, re_of("^[fg]$"));
	/* The lens is unchanged: no weights or trees rebuilt. */
	assert_int_equal(m.generation, gen);
	s = model_search(&m);
	assert_non_null(s);
	assert_int_equal(s->frames_matched, 2);
	ix = model_search_tree(&m);
	assert_int_equal(ix->total, 10);
	assert_int_equal(search_index_matched(ix, 0, ix->total), 10);
	cx = model_search_chart(&m);
	/* Time Order matches time: every box but main, all 40 ns. */
	assert_int_equal(search_index_matched(cx, 0, cx->total), 40);
	assert_int_equal(m.tree_gen, gen);
	check_model(&m);

	/* A thread change keeps the bitsets and re-indexes the new tree. */
	model_set_search(&m, re_of("^f$"));
	s = model_search(&m);
	mask[profile_set_thread(m.ps, 1, 1, STR_EMPTY)] = true;
	mask[profile_set_thread(m.ps, 1, 2, STR_EMPTY)] = false;
	model_set_threads(&m, mask);
	assert_ptr_equal(model_search(&m), s);
	ix = model_search_tree(&m);
	assert_int_equal(ix->total, 6);
	assert_int_equal(search_index_matched(ix, 0, ix->total), 5);
	assert_int_equal(search_index_next(ix, SEARCH_NONE, 0, UINT64_MAX),
			 test_stack(m.ps, "main;f"));
	check_model(&m);

	model_set_search(&m, NULL);
	assert_null(model_search(&m));
	assert_null(model_search_chart(&m));
	assert_null(model_search_re(&m));
	check_model(&m);
	model_release(&m);
}

/*
 * The search over one lane: the index is of the chart asked for, and
 * asking for another lane, or the merged chart, rebuilds it.
 */
static void
test_search_lane(void **state)
{
	struct model m;
	const struct timeline *tl;
	const struct search_index *ix;

	(void)state;
	setup(&m);
	assert_null(model_search_lane(&m, model_chart(&m)));
	model_set_search(&m, re_of("^f$"));
	tl = model_timeline(&m);
	assert_int_equal(tl->nr_lanes, 2);
	/* Lane 0 is thread 1: f from 10 to 30 ns, x [0, 20). */
	ix = model_search_lane(&m, &tl->lanes[0]);
	assert_ptr_equal(ix->chart, &tl->lanes[0]);
	assert_int_equal(search_index_matched(ix, 0, tl->axis.total), 20);
	check_model(&m);
	ix = model_search_lane(&m, &tl->lanes[1]);
	assert_ptr_equal(ix->chart, &tl->lanes[1]);
	assert_int_equal(search_index_matched(ix, 0, tl->axis.total), 0);
	assert_int_equal(ix->nr_hits, 0);
	check_model(&m);
	ix = model_search_chart(&m);
	assert_ptr_equal(ix->chart, model_chart(&m));
	/* Merged: thread 1, the heavier, owns the time it ran. */
	assert_int_equal(search_index_matched(ix, 0, tl->axis.total), 20);
	check_model(&m);
	model_release(&m);
}

/* The row of thread tid in the thread table. */
static uint32_t
table_row(struct model *m, int64_t tid)
{
	const struct thread_table *tt = model_thread_weights(m);

	for (uint32_t i = 0; i < tt->nr_threads; i++)
		if (m->ps->threads[tt->threads[i].thread].tid == tid)
			return i;
	fail_msg("no thread %lld", (long long)tid);
	return 0;
}

/*
 * The picker's sparklines. Thread 1 samples at 10 and 30 ns, thread 2
 * at 20: the period is 20 ns (thread 1's gap), the range 10 to 30 and a
 * period past it, 40 ns. Thread 1's first sample lasts until its second,
 * that one a period: busy all along. Thread 2's lasts a period: 20 to 40.
 */
static void
test_thread_activity(void **state)
{
	struct model m;
	float act[2 * 5];
	uint32_t t1, t2;
	bool mask[2] = { false, false };

	(void)state;
	setup(&m);
	t1 = table_row(&m, 1);
	t2 = table_row(&m, 2);
	assert_true(model_thread_activity(&m, 4, act));
	for (int c = 0; c < 4; c++)
		assert_float_equal(act[t1 * 4 + c], 1.0, 1e-6);
	assert_float_equal(act[t2 * 4 + 0], 0.0, 1e-6);
	assert_float_equal(act[t2 * 4 + 1], 1.0, 1e-6);
	assert_float_equal(act[t2 * 4 + 2], 1.0, 1e-6);
	assert_float_equal(act[t2 * 4 + 3], 0.0, 1e-6);
	/* Columns of 8 ns: thread 2's [10, 30) of the range covers parts of two. */
	assert_true(model_thread_activity(&m, 5, act));
	assert_float_equal(act[t2 * 5 + 0], 0.0, 1e-6);
	assert_float_equal(act[t2 * 5 + 1], 0.75, 1e-6);
	assert_float_equal(act[t2 * 5 + 2], 1.0, 1e-6);
	assert_float_equal(act[t2 * 5 + 3], 0.75, 1e-6);
	assert_float_equal(act[t2 * 5 + 4], 0.0, 1e-6);
	/* Whatever the filter: an unticked thread still has its sparkline. */
	mask[profile_set_thread(m.ps, 1, 1, STR_EMPTY)] = true;
	model_set_threads(&m, mask);
	assert_true(model_thread_activity(&m, 5, act));
	assert_float_equal(act[t2 * 5 + 1], 0.75, 1e-6);
	assert_false(model_thread_activity(&m, 0, act));
	check_model(&m);
	model_release(&m);
}

/* No times (folded stacks): no sparklines. */
static void
test_thread_activity_untimed(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "samples", 7), UNIT_SAMPLES);
	struct model m;
	float act[4] = { 7, 7, 7, 7 };

	(void)state;
	test_sample(ps, p, "main;f", 3, -1, 1);
	model_init(&m, ps);
	assert_false(model_thread_activity(&m, 4, act));
	assert_float_equal(act[0], 7, 0);
	model_release(&m);
}

static void
test_sandwich_in_model(void **state)
{
	struct model m;
	const struct sandwich *sw;
	const struct sandwich_rows *r;
	bool mask[2] = { false, false };

	(void)state;
	setup(&m);
	sw = model_sandwich(&m, fn(&m, "g"));
	assert_int_equal(sw->total, 5);
	assert_int_equal(sw->callers.total[STACK_ROOT], 5);
	assert_ptr_equal(model_sandwich(&m, fn(&m, "g")), sw);
	check_model(&m);
	sw = model_sandwich(&m, fn(&m, "main"));
	assert_int_equal(sw->total, 10);
	assert_int_equal(sw->callees.total[STACK_ROOT], 10);
	check_model(&m);

	r = model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false);
	assert_int_equal(r->nr, 3);
	assert_int_equal(r->rows[0], fn(&m, "main"));
	assert_ptr_equal(model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false), r);
	/* f and g tie on total and self: by name. */
	assert_int_equal(r->rows[1], fn(&m, "f"));
	assert_int_equal(r->rows[2], fn(&m, "g"));
	r = model_sandwich_rows(&m, SANDWICH_BY_NAME, false, false);
	assert_int_equal(r->rows[0], fn(&m, "f"));
	/* Filtering with no search current shows every row. */
	r = model_sandwich_rows(&m, SANDWICH_BY_NAME, false, true);
	assert_int_equal(r->nr, 3);
	model_set_search(&m, re_of("^[fh]$"));
	r = model_sandwich_rows(&m, SANDWICH_BY_NAME, false, true);
	assert_int_equal(r->nr, 1);
	assert_int_equal(r->rows[0], fn(&m, "f"));
	check_model(&m);

	/* Thread 2 only: f has no weight, g's sandwich shrinks. */
	mask[profile_set_thread(m.ps, 1, 2, STR_EMPTY)] = true;
	model_set_threads(&m, mask);
	r = model_sandwich_rows(&m, SANDWICH_BY_NAME, false, true);
	assert_int_equal(r->nr, 0);
	sw = model_sandwich(&m, fn(&m, "g"));
	assert_int_equal(sw->total, 4);
	check_model(&m);
	model_release(&m);
}

static void
test_search_func_in_model(void **state)
{
	struct model m;
	const struct search *s;
	const struct search_index *ix;
	uint64_t gen, sgen;

	(void)state;
	setup(&m);
	model_tree(&m);
	gen = m.generation;
	model_set_search_func(&m, fn(&m, "g"));
	assert_int_equal(model_search_func(&m), fn(&m, "g"));
	assert_null(model_search_re(&m));
	assert_int_equal(m.generation, gen);
	s = model_search(&m);
	assert_non_null(s);
	assert_int_equal(s->funcs_matched, 1);
	assert_true(search_func(s, fn(&m, "g")));
	ix = model_search_tree(&m);
	/* g: 4 on thread 2 and 1 on thread 1, one node main;g. */
	assert_int_equal(search_index_matched(ix, 0, ix->total), 5);
	assert_int_equal(search_index_next(ix, SEARCH_NONE, 0, UINT64_MAX),
			 test_stack(m.ps, "main;g"));
	check_model(&m);

	/* The same function again changes nothing; another rebuilds. */
	sgen = m.search_gen;
	model_set_search_func(&m, fn(&m, "g"));
	assert_int_equal(m.search_gen, sgen);
	model_set_search_func(&m, fn(&m, "f"));
	assert_int_equal(search_index_matched(model_search_tree(&m), 0, 10), 5);
	check_model(&m);

	/* A regex replaces it, and the other way round. */
	model_set_search(&m, re_of("^main$"));
	assert_int_equal(model_search_func(&m), FUNC_NONE);
	assert_int_equal(model_search(&m)->frames_matched, 1);
	check_model(&m);
	model_set_search_func(&m, fn(&m, "f"));
	assert_null(model_search_re(&m));
	assert_int_equal(model_search(&m)->funcs_matched, 1);
	check_model(&m);

	model_set_search_func(&m, FUNC_NONE);
	assert_null(model_search(&m));
	check_model(&m);
	model_release(&m);
}

static void
test_search_sandwich_in_model(void **state)
{
	struct model m;
	const struct search_index *ix;
	const struct sandwich *sw;

	(void)state;
	setup(&m);
	assert_null(model_search_sandwich(&m, fn(&m, "g"), false));
	model_set_search(&m, re_of("^main$"));
	/* g's callers: g, then main above every one of its 5 units. */
	ix = model_search_sandwich(&m, fn(&m, "g"), false);
	sw = model_sandwich(&m, fn(&m, "g"));
	assert_ptr_equal(ix->tree, &sw->callers);
	assert_int_equal(search_index_matched(ix, 0, ix->total), 5);
	assert_int_equal(ix->nr_hits, 1);
	assert_int_equal(ix->hits[0].row, 1);
	/* g calls nothing: no main below it. */
	ix = model_search_sandwich(&m, fn(&m, "g"), true);
	assert_int_equal(search_index_matched(ix, 0, ix->total), 0);
	check_model(&m);

	/* Another search, another function and back: indexes of the new trees. */
	model_set_search(&m, re_of("^g$"));
	assert_int_equal(search_index_matched(model_search_sandwich(&m, fn(&m, "g"), true), 0, 5),
			 5);
	model_sandwich(&m, fn(&m, "f"));
	ix = model_search_sandwich(&m, fn(&m, "g"), false);
	assert_ptr_equal(ix->tree, &model_sandwich(&m, fn(&m, "g"))->callers);
	assert_int_equal(search_index_matched(ix, 0, ix->total), 5);
	check_model(&m);
	model_release(&m);
}

static void
test_sandwich_cached(void **state)
{
	struct model m;

	(void)state;
	setup(&m);
	assert_false(model_sandwich_cached(&m, fn(&m, "g")));
	model_sandwich(&m, fn(&m, "g"));
	assert_true(model_sandwich_cached(&m, fn(&m, "g")));
	assert_false(model_sandwich_cached(&m, fn(&m, "f")));
	model_set_profile(&m, 1);
	assert_false(model_sandwich_cached(&m, fn(&m, "g")));
	check_model(&m);
	model_release(&m);
}

/* The frame called name (the first one), for recording its figures. */
static frame_id
frame_of(const struct profile_set *ps, const char *name)
{
	for (frame_id f = 0; f < ps->nr_frames; f++)
		if (!strcmp(ps_get(ps, ps->frames[f].name), name))
			return f;
	fail_msg("no frame %s", name);
	return 0;
}

/*
 * Recorded figures (cProfile's, callgrind's) are what the tables show
 * while the lens keeps every sample, whatever the tree says; a search
 * for one function matches its recorded total. A thread filter that
 * drops samples, or a rewrite of the frames, does not lose track of them:
 * the first falls back to the tree, the second keeps them on the new
 * frames.
 */
static void
test_figures(void **state)
{
	struct model m;
	struct profile *cyc;
	struct frame out[2];
	bool mask[2] = { false, false };
	struct search_re *re;
	struct tf_error err = TF_ERROR_INIT;
	size_t at;

	(void)state;
	setup(&m);
	assert_false(model_tree_rebuilt(&m));
	assert_false(model_func_stats_exact(&m));
	assert_int_equal(model_func_stats(&m)[fn(&m, "g")].total, 5);
	cyc = m.ps->profiles[0];
	/* Not the tree's 5 and 5: the file says g ran 3 of its own in 7. */
	profile_add_figure(cyc, frame_of(m.ps, "g"), 3, 7);
	profile_add_figure(cyc, frame_of(m.ps, "main"), 0, 10);
	model_set_changed(&m);
	assert_true(model_tree_rebuilt(&m));
	assert_true(model_func_stats_exact(&m));
	assert_int_equal(model_func_stats(&m)[fn(&m, "g")].self, 3);
	assert_int_equal(model_func_stats(&m)[fn(&m, "g")].total, 7);
	/* A function the file has no figure of has none. */
	assert_int_equal(model_func_stats(&m)[fn(&m, "f")].total, 0);
	assert_int_equal(model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false)->rows[1],
			 fn(&m, "g"));
	/* The sandwich's trees are the tree's: checked apart from the figures. */
	model_sandwich(&m, fn(&m, "g"));
	re = search_re_new("^g$", 3, &at, &err);
	assert_non_null(re);
	model_set_search(&m, re);
	assert_int_equal(model_search_matched(&m), 7);
	check_model(&m);

	/* A filter that keeps a thread with samples out: the tree counts. */
	mask[profile_set_thread(m.ps, 1, 1, STR_EMPTY)] = true;
	model_set_threads(&m, mask);
	assert_false(model_func_stats_exact(&m));
	assert_int_equal(model_func_stats(&m)[fn(&m, "g")].total, 1);
	assert_int_equal(model_search_matched(&m), 1);
	check_model(&m);
	model_set_threads(&m, NULL);
	assert_true(model_func_stats_exact(&m));

	/* A rewrite keeps the figures, on what the frames became. */
	profile_set_rewrite(m.ps, inline_g, out);
	model_set_changed(&m);
	assert_true(model_func_stats_exact(&m));
	assert_int_equal(model_func_stats(&m)[fn(&m, "g")].total, 7);
	assert_int_equal(model_func_stats(&m)[fn(&m, "g.inl")].total, 0);
	check_model(&m);
	tf_error_release(&err);
	model_release(&m);
}

/*
 * A profile whose total is past 64 bits: the views read a copy scaled by
 * 2^3 (main;f 2^64 - 1 twice, main;g 5: 2^65 + 3 in all), whose sums hold
 * in 64 bits and whose shares are exact; the set keeps the exact weights,
 * which export reads. Another profile, of an ordinary total, has no copy.
 */
static void
test_wide_total(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *big = profile_set_profile(ps, ps_str(ps, "big", 3), UNIT_EVENTS);
	struct profile *small = profile_set_profile(ps, ps_str(ps, "small", 5), UNIT_EVENTS);
	const struct func_stats *st;
	const struct profile *p;
	struct export_lens el = { 0 };
	struct model m;

	(void)state;
	test_sample(ps, big, "main;f", UINT64_MAX, 10, 1);
	test_sample(ps, big, "main;f", UINT64_MAX, 20, 1);
	test_sample(ps, big, "main;g", 5, 30, 2);
	test_sample(ps, small, "main;g", 7, 30, 2);
	model_init(&m, ps);
	check_model(&m);
	p = model_profile(&m);
	assert_ptr_not_equal(p, big);
	assert_int_equal(p->weight_shift, 3);
	assert_ptr_equal(p->stack, big->stack);
	assert_true(model_total(&m) == ((uint64_t)1 << 62) + 1);
	st = model_func_stats(&m);
	assert_true(st[fn(&m, "main")].total == ((uint64_t)1 << 62) + 1);
	assert_true(st[fn(&m, "f")].self == (uint64_t)1 << 62);
	assert_true(st[fn(&m, "g")].self == 1); /* 5 / 8, kept */
	model_export_lens(&m, &el);
	assert_ptr_equal(el.exact_weight, big->weight);
	/* The thread picker weighs in the same units. */
	assert_true(model_thread_weights(&m)->total == ((uint64_t)1 << 62) + 1);
	check_model(&m);

	/* Counting samples needs no scaling. */
	assert_true(model_set_count_samples(&m, true));
	assert_int_equal(model_profile(&m)->weight_shift, 0);
	assert_int_equal(model_total(&m), 3);
	assert_true(model_set_count_samples(&m, false));
	assert_int_equal(model_profile(&m)->weight_shift, 3);

	/* An ordinary profile: itself, and no array kept. */
	model_set_profile(&m, 1);
	assert_ptr_equal(model_profile(&m), small);
	assert_null(m.wide.weight);
	assert_int_equal(model_total(&m), 7);
	model_export_lens(&m, &el);
	assert_null(el.exact_weight);
	check_model(&m);
	model_set_profile(&m, 0);
	assert_int_equal(model_profile(&m)->weight_shift, 3);
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
		cmocka_unit_test(test_thread_table),
		cmocka_unit_test(test_thread_filter_by_tid_pid_comm),
		cmocka_unit_test(test_exec_is_one_thread),
		cmocka_unit_test(test_carry_threads),
		cmocka_unit_test(test_search_in_model),
		cmocka_unit_test(test_sandwich_in_model),
		cmocka_unit_test(test_search_func_in_model),
		cmocka_unit_test(test_sandwich_cached),
		cmocka_unit_test(test_search_sandwich_in_model),
		cmocka_unit_test(test_set_changed),
		cmocka_unit_test(test_kept_thread_weights),
		cmocka_unit_test(test_search_lane),
		cmocka_unit_test(test_thread_activity),
		cmocka_unit_test(test_thread_activity_untimed),
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_wide_total),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
