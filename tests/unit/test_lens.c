#include "config.h"

#include "tflame/lens.h"

#include "tflame/model.h"
#include "tflame/search.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

#include "test_tmpdir.h"
#include "test_util.h"
#include "test_model_check.h"

/*
 * Ask for every cache a pane would (tree, chart, functions, a sandwich)
 * so that model_check() compares them all under the lens.
 */
static void
exercise(struct model *m)
{
	const struct func_table *ft;

	model_tree(m);
	model_chart(m);
	ft = model_funcs(m);
	model_func_stats(m);
	for (func_id f = 0; f < ft->nr_funcs; f++)
		if (model_func_stats(m)[f].total) {
			model_sandwich(m, f);
			break;
		}
	check_model(m);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The lens's view as sorted folded lines "a;b;c weight" joined by '|',
 * from the Left Heavy tree's self weights: what a person would read.
 */
static char *
folded(struct model *m)
{
	const struct calltree *t = model_tree(m);
	const struct profile_set *v = model_view(m);
	char **lines = xcalloc(v->nr_stacks + 1, sizeof(*lines));
	struct strbuf sb = STRBUF_INIT;
	size_t nr = 0;
	char buf[512];

	exercise(m);
	for (stack_id s = 1; s < v->nr_stacks; s++) {
		if (!t->self[s])
			continue;
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s %llu", stack_text(v, s, buf, sizeof(buf)),
			    (unsigned long long)t->self[s]);
		lines[nr++] = strbuf_detach(&sb, NULL);
	}
	assert_int_equal(t->self[STACK_ROOT], 0);
	qsort(lines, nr, sizeof(*lines), cmp_str);
	for (size_t i = 0; i < nr; i++) {
		strbuf_addf(&sb, "%s%s", i ? "|" : "", lines[i]);
		free(lines[i]);
	}
	free(lines);
	return strbuf_detach(&sb, NULL);
}

/*
 * B at depths 2 and 3, F recursing directly and through H, and idle:
 *   A;B;C 1  A;B;D 2  A;E;B;C 4  A;F;F;F;G 8  A;F;H;F;G 16  A;idle 32
 */
static void
setup(struct model *m)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);

	test_sample(ps, p, "A;B;C", 1, 10, 1);
	test_sample(ps, p, "A;B;D", 2, 20, 1);
	test_sample(ps, p, "A;E;B;C", 4, 30, 2);
	test_sample(ps, p, "A;F;F;F;G", 8, 40, 1);
	test_sample(ps, p, "A;F;H;F;G", 16, 50, 2);
	test_sample(ps, p, "A;idle", 32, 60, 1);
	model_init(m, ps);
	/* The function weights on a second thread, as for a big profile. */
	m->thread_min_stacks = 0;
	check_model(m);
}

/* What Time Order's lanes weigh together. */
static uint64_t
lanes_weight(struct model *m)
{
	const struct timeline *tl = model_timeline(m);
	uint64_t w = 0;

	for (uint32_t i = 0; i < tl->nr_lanes; i++)
		w += tl->lanes[i].weight;
	return w;
}

static void
expect_after(enum lens_kind kind, const char *arg, const char *want, uint64_t total)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	char *got;

	setup(&m);
	if (model_push_transform(&m, kind, arg, &err))
		fail_msg("%s %s: %s", lens_kind_ops(kind)->name, arg, tf_error_text(&err));
	got = folded(&m);
	assert_string_equal(got, want);
	assert_int_equal(model_total(&m), total);
	assert_int_equal(lanes_weight(&m), total);
	free(got);
	/* Popping gives the profile back, as it was. */
	assert_true(model_pop_transform(&m));
	got = folded(&m);
	assert_string_equal(got, "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;F;F;G 8|A;F;H;F;G 16|A;idle 32");
	assert_int_equal(model_total(&m), 63);
	free(got);
	tf_error_release(&err);
	model_release(&m);
}

static void
test_merge_function(void **state)
{
	(void)state;
	/* B at both depths goes; its self weight would go to its caller. */
	expect_after(LENS_MERGE_FUNCTION, "^B$",
		     "A;C 1|A;D 2|A;E;C 4|A;F;F;F;G 8|A;F;H;F;G 16|A;idle 32", 63);
	/* A regex merging everything but leaves leaves the leaves as roots. */
	expect_after(LENS_MERGE_FUNCTION, "^[ABEFH]$", "C 5|D 2|G 24|idle 32", 63);
	/* Every frame merged: every sample's stack is empty, and dropped. */
	expect_after(LENS_MERGE_FUNCTION, ".", "", 0);
}

static void
test_merge_call_node(void **state)
{
	(void)state;
	/* Only B called by A directly: E's B stays. */
	expect_after(LENS_MERGE_CALL_NODE, "A;B",
		     "A;C 1|A;D 2|A;E;B;C 4|A;F;F;F;G 8|A;F;H;F;G 16|A;idle 32", 63);
	/* F under F, the middle of the direct recursion only. */
	expect_after(LENS_MERGE_CALL_NODE, "A;F;F",
		     "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;F;G 8|A;F;H;F;G 16|A;idle 32", 63);
	/* A path that is in no stack changes nothing. */
	expect_after(LENS_MERGE_CALL_NODE, "A;nope",
		     "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;F;F;G 8|A;F;H;F;G 16|A;idle 32", 63);
}

static void
test_focus_subtree(void **state)
{
	(void)state;
	expect_after(LENS_FOCUS_SUBTREE, "A;E", "E;B;C 4", 4);
	expect_after(LENS_FOCUS_SUBTREE, "A;F;F", "F;F;G 8", 8);
	expect_after(LENS_FOCUS_SUBTREE, "A", "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;F;F;G 8|"
					   "A;F;H;F;G 16|A;idle 32", 63);
	/* Focus on nothing: an empty profile, which every pane must take. */
	expect_after(LENS_FOCUS_SUBTREE, "B", "", 0);
}

static void
test_focus_function(void **state)
{
	(void)state;
	/* B at depth 2 and 3: both become roots and merge. */
	expect_after(LENS_FOCUS_FUNCTION, "^B$", "B;C 5|B;D 2", 7);
	/* The outermost F is the root; the inner ones stay. */
	expect_after(LENS_FOCUS_FUNCTION, "^F$", "F;F;F;G 8|F;H;F;G 16", 24);
	expect_after(LENS_FOCUS_FUNCTION, "^nope$", "", 0);
}

static void
test_focus_function_inverted(void **state)
{
	(void)state;
	/* Cut after the innermost B or F: their callees' weight is their self. */
	expect_after(LENS_FOCUS_FUNCTION_INVERTED, "^B$", "A;B 3|A;E;B 4", 7);
	expect_after(LENS_FOCUS_FUNCTION_INVERTED, "^F$", "A;F;F;F 8|A;F;H;F 16", 24);
}

static void
test_drop_function(void **state)
{
	(void)state;
	expect_after(LENS_DROP_FUNCTION, "^idle$",
		     "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;F;F;G 8|A;F;H;F;G 16", 31);
	expect_after(LENS_DROP_FUNCTION, "^[BH]$", "A;F;F;F;G 8|A;idle 32", 40);
	expect_after(LENS_DROP_FUNCTION, "^A$", "", 0);
}

static void
test_collapse_recursion(void **state)
{
	(void)state;
	/* Direct and indirect: H between the two Fs goes too. */
	expect_after(LENS_COLLAPSE_RECURSION, "^F$",
		     "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;G 24|A;idle 32", 63);
	/* Only F calling F: H's F stays. */
	expect_after(LENS_COLLAPSE_DIRECT_RECURSION, "^F$",
		     "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;G 8|A;F;H;F;G 16|A;idle 32", 63);
	/* A function that does not recurse is left alone. */
	expect_after(LENS_COLLAPSE_RECURSION, "^B$",
		     "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;F;F;G 8|A;F;H;F;G 16|A;idle 32", 63);
	/* Two functions by one regex: each one's recursion folds on its own. */
	expect_after(LENS_COLLAPSE_RECURSION, "^[FH]$",
		     "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;G 24|A;idle 32", 63);
}

static void
test_collapse_subtree(void **state)
{
	(void)state;
	expect_after(LENS_COLLAPSE_SUBTREE, "^F$",
		     "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F 24|A;idle 32", 63);
	expect_after(LENS_COLLAPSE_SUBTREE, "^B$",
		     "A;B 3|A;E;B 4|A;F;F;F;G 8|A;F;H;F;G 16|A;idle 32", 63);
	expect_after(LENS_COLLAPSE_SUBTREE, "^A$", "A 63", 63);
}

/* A frame of name in module, interned into ps. */
static frame_id
mod_frame(struct profile_set *ps, const char *name, const char *module)
{
	struct frame f = { 0 };

	f.name = ps_str(ps, name, strlen(name));
	f.module = ps_str(ps, module, strlen(module));
	return profile_set_frame(ps, &f);
}

static void
test_collapse_module(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	struct tf_error err = TF_ERROR_INIT;
	thread_id t = profile_set_thread(ps, 1, 1, STR_EMPTY);
	stack_id s;
	struct model m;
	size_t off;
	char *got;

	(void)state;
	/* main -> qsort -> msort (libc) -> cmp (app) -> strcmp (libc): 3 */
	s = profile_set_stack(ps, STACK_ROOT, mod_frame(ps, "main", "/bin/app"));
	s = profile_set_stack(ps, s, mod_frame(ps, "qsort", "/lib/libc.so.6"));
	assert_int_equal(profile_add_sample(p, s, 2, 1, true, t, NULL), 0);
	s = profile_set_stack(ps, s, mod_frame(ps, "msort", "/lib/libc.so.6"));
	s = profile_set_stack(ps, s, mod_frame(ps, "cmp", "/bin/app"));
	s = profile_set_stack(ps, s, mod_frame(ps, "strcmp", "/lib/libc.so.6"));
	assert_int_equal(profile_add_sample(p, s, 3, 2, true, t, NULL), 0);
	model_init(&m, ps);

	assert_int_equal(model_push_transform(&m, LENS_COLLAPSE_MODULE, "libc", &err), 0);
	got = folded(&m);
	assert_string_equal(got, "main;[libc.so.6] 2|main;[libc.so.6];cmp;[libc.so.6] 3");
	free(got);
	/* The new frame is a function like any other, and the search finds it. */
	model_set_search(&m, search_re_new("^\\[libc", 7, &off, &err));
	assert_int_equal(model_search_matched(&m), 5);
	check_model(&m);
	/* Another transform over the new frame, then both undone and redone. */
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^cmp$", &err), 0);
	got = folded(&m);
	/* Merging is no collapse: the two runs of libc stay two frames. */
	assert_string_equal(got, "main;[libc.so.6] 2|main;[libc.so.6];[libc.so.6] 3");
	free(got);
	assert_true(model_pop_transform(&m));
	assert_true(model_pop_transform(&m));
	assert_false(model_pop_transform(&m));
	got = folded(&m);
	assert_string_equal(got, "main;qsort 2|main;qsort;msort;cmp;strcmp 3");
	free(got);
	assert_true(model_redo_transform(&m));
	assert_true(model_redo_transform(&m));
	assert_false(model_redo_transform(&m));
	got = folded(&m);
	assert_string_equal(got, "main;[libc.so.6] 2|main;[libc.so.6];[libc.so.6] 3");
	free(got);
	tf_error_release(&err);
	model_release(&m);
}

/* A frame of name in module at address addr, interned into ps. */
static frame_id
addr_frame(struct profile_set *ps, const char *name, const char *module, uint64_t addr)
{
	struct frame f = { 0 };

	f.name = ps_str(ps, name, strlen(name));
	f.module = ps_str(ps, module, strlen(module));
	f.addr = addr;
	return profile_set_frame(ps, &f);
}

/*
 * The recursion kinds fold calls of one function, whatever the frames:
 * F at two addresses is one function, F of another module is not.
 *   A;F@1;F@2;F@1;G 1  A;F@2;Fm;F@1;G 2  A;F@1;F@2;H;F@2 4
 */
static void
test_collapse_recursion_functions(void **state)
{
	static const struct {
		enum lens_kind kind;
		const char *want;
	} cases[] = {
		{ LENS_COLLAPSE_DIRECT_RECURSION, "A;F;F;F;G 2|A;F;G 1|A;F;H;F 4" },
		{ LENS_COLLAPSE_RECURSION, "A;F 4|A;F;G 1|A;F;G 2" },
	};
	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct profile_set *ps = profile_set_new();
		struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
		thread_id t = profile_set_thread(ps, 1, 1, STR_EMPTY);
		frame_id a = addr_frame(ps, "A", "app", 0), f1 = addr_frame(ps, "F", "app", 1);
		frame_id f2 = addr_frame(ps, "F", "app", 2), fm = addr_frame(ps, "F", "libm", 3);
		frame_id g = addr_frame(ps, "G", "app", 4), h = addr_frame(ps, "H", "app", 5);
		const frame_id paths[3][5] = { { a, f1, f2, f1, g }, { a, f2, fm, f1, g },
					       { a, f1, f2, h, f2 } };
		struct tf_error err = TF_ERROR_INIT;
		struct model m;
		char *got;

		for (int i = 0; i < 3; i++) {
			stack_id s = STACK_ROOT;

			for (int d = 0; d < 5; d++)
				s = profile_set_stack(ps, s, paths[i][d]);
			assert_int_equal(profile_add_sample(p, s, 1u << i, i, true, t, NULL), 0);
		}
		model_init(&m, ps);
		assert_int_equal(model_push_transform(&m, cases[k].kind, "^F$", &err), 0);
		got = folded(&m);
		assert_string_equal(got, cases[k].want);
		free(got);
		assert_int_equal(model_total(&m), 7);
		check_model(&m);
		tf_error_release(&err);
		model_release(&m);
	}
}

static void
test_stacked_undo_redo(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	char *got;

	(void)state;
	setup(&m);
	assert_int_equal(model_push_transform(&m, LENS_DROP_FUNCTION, "idle", &err), 0);
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^B$", &err), 0);
	assert_int_equal(model_push_transform(&m, LENS_FOCUS_FUNCTION, "^E$", &err), 0);
	got = folded(&m);
	assert_string_equal(got, "E;C 4");
	free(got);
	lens_describe(&m.lens, &sb);
	assert_string_equal(sb.buf, "drop idle > merge ^B$ > focus ^E$");
	/* Undo the focus: the merge's view again, without idle. */
	assert_true(model_pop_transform(&m));
	got = folded(&m);
	assert_string_equal(got, "A;C 1|A;D 2|A;E;C 4|A;F;F;F;G 8|A;F;H;F;G 16");
	free(got);
	assert_true(model_redo_transform(&m));
	got = folded(&m);
	assert_string_equal(got, "E;C 4");
	free(got);
	/* A new transform forgets what could be redone. */
	assert_true(model_pop_transform(&m));
	assert_int_equal(model_push_transform(&m, LENS_COLLAPSE_RECURSION, "F", &err), 0);
	assert_false(model_redo_transform(&m));
	got = folded(&m);
	assert_string_equal(got, "A;C 1|A;D 2|A;E;C 4|A;F;G 24");
	free(got);
	/* A bad regex changes nothing and says why. */
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "(", &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "parenthesis"));
	assert_int_equal(m.lens.nr_levels, 3);
	assert_int_equal(model_push_transform(&m, LENS_FOCUS_SUBTREE, "", &err), -1);
	check_model(&m);
	strbuf_release(&sb);
	tf_error_release(&err);
	model_release(&m);
}

/* Symbols came: the transforms are built again over the new stacks. */
static void
rename_c(void *ctx, struct profile_set *ps, const struct frame *old, struct frame_rewrite *rw)
{
	struct frame *out = ctx;

	memset(rw, 0, sizeof(*rw));
	*out = *old;
	if (!strcmp(ps_get(ps, old->name), "C"))
		out->name = ps_str(ps, "B", 1);
	rw->frames = out;
	rw->nr = 1;
}

static void
test_rebuilt_after_symbols(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	struct frame scratch;
	char *got;

	(void)state;
	setup(&m);
	assert_int_equal(model_push_transform(&m, LENS_COLLAPSE_DIRECT_RECURSION, "^B$", &err),
			 0);
	got = folded(&m);
	free(got);
	profile_set_rewrite(m.ps, rename_c, &scratch);
	model_set_changed(&m);
	got = folded(&m);
	/* C is B now: B;B folds into one B. */
	assert_string_equal(got, "A;B 1|A;B;D 2|A;E;B 4|A;F;F;F;G 8|A;F;H;F;G 16|A;idle 32");
	free(got);
	tf_error_release(&err);
	model_release(&m);
}

static void
test_lens_file_round_trip(void **state)
{
	struct model m, again;
	struct lens_spec spec = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf text = STRBUF_INIT, text2 = STRBUF_INIT;
	char *want, *got;
	const char *path;

	setup(&m);
	assert_int_equal(model_push_transform(&m, LENS_MERGE_CALL_NODE, "A;E", &err), 0);
	assert_int_equal(model_push_transform(&m, LENS_COLLAPSE_RECURSION, "^F$", &err), 0);
	assert_int_equal(model_push_transform(&m, LENS_DROP_FUNCTION, "id:le|x", &err), 0);
	want = folded(&m);
	assert_string_equal(want, "A;B;C 5|A;B;D 2|A;F;G 24|A;idle 32");
	lens_write(&m.lens, &text);
	assert_string_equal(text.buf, "# tflame lens: one transform a line, KIND:ARG\n"
				      "merge-call-node:A;E\n"
				      "collapse-recursion:^F$\n"
				      "drop-function:id:le|x\n");
	/* Written, read back on a fresh model: the same lens, the same view. */
	strbuf_addstr(&text, "\n# a comment\r\n");
	path = tmpdir_put(state, "t.lens", text.buf, text.len);
	setup(&again);
	spec.file = path;
	if (model_apply_spec(&again, &spec, "p.txt", &err))
		fail_msg("%s", tf_error_text(&err));
	got = folded(&again);
	assert_string_equal(got, want);
	lens_write(&again.lens, &text2);
	strbuf_setlen(&text, text2.len);
	assert_string_equal(text.buf, text2.buf);
	free(got);
	free(want);
	model_release(&again);

	/* A bad line names the file and the line. */
	path = "# x\nmerge-function:a\nfold:b\n";
	path = tmpdir_put(state, "bad.lens", path, strlen(path));
	setup(&again);
	spec.file = path;
	assert_int_equal(model_apply_spec(&again, &spec, "p.txt", &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "bad.lens:3: unknown transform 'fold'"));
	model_release(&again);
	setup(&again);
	spec.file = tmpdir_path(state, "none.lens");
	assert_int_equal(model_apply_spec(&again, &spec, "p.txt", &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "cannot open"));
	model_release(&again);

	strbuf_release(&text);
	strbuf_release(&text2);
	tf_error_release(&err);
	model_release(&m);
}

/* collapse: the transforms made the set's own, its samples the view's. */
static void
test_bake(void **state)
{
	struct model m, again;
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps;
	char *want, *got;

	(void)state;
	setup(&m);
	assert_int_equal(model_push_transform(&m, LENS_DROP_FUNCTION, "^idle$", &err), 0);
	assert_int_equal(model_push_transform(&m, LENS_COLLAPSE_RECURSION, "^F$", &err), 0);
	want = folded(&m);
	assert_string_equal(want, "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;G 24");
	model_bake_lens(&m);
	assert_int_equal(m.lens.nr_levels, 0);
	/* The model over the baked set shows the same. */
	got = folded(&m);
	assert_string_equal(got, want);
	free(got);
	ps = m.ps;
	m.ps = NULL;
	model_release(&m);
	check_profile_set(ps);
	/* The dropped samples are gone, the others on their view stacks. */
	assert_int_equal(ps->profiles[0]->nr_samples, 5);
	assert_int_equal(ps->profiles[0]->total_weight, 31);
	assert_int_equal(ps->profiles[0]->time_min, 10);
	assert_int_equal(ps->profiles[0]->time_max, 50);
	model_init(&again, ps);
	got = folded(&again);
	assert_string_equal(got, want);
	free(got);
	free(want);
	model_release(&again);
	tf_error_release(&err);
}

/* --time: a range of the samples' times narrows the weights, not the chart. */
static void
test_time_range(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	const struct thread_table *tt;
	int64_t t0, t1;
	char *got;

	(void)state;
	setup(&m);
	/* Times 10 .. 60 ns: 50% is 35, the end past the last sample. */
	assert_int_equal(lens_parse_time("50%,", model_profile(&m), &t0, &t1, &err), 0);
	assert_int_equal(t0, 35);
	assert_int_equal(t1, 61);
	assert_int_equal(lens_parse_time(",0.00000002", model_profile(&m), &t0, &t1, &err), 0);
	assert_int_equal(t0, 10);
	assert_int_equal(t1, 30);
	assert_int_equal(lens_parse_time("1", model_profile(&m), &t0, &t1, &err), -1);
	assert_int_equal(lens_parse_time("x,1", model_profile(&m), &t0, &t1, &err), -1);
	assert_int_equal(lens_parse_time("60%,40%", model_profile(&m), &t0, &t1, &err), -1);
	assert_int_equal(lens_parse_time("101%,", model_profile(&m), &t0, &t1, &err), -1);
	/* Both ends past the span: once cut to it they met, and kept the last sample. */
	assert_int_equal(lens_parse_time("5,3", model_profile(&m), &t0, &t1, &err), -1);
	assert_string_equal(err.msg, "'5,3': the range ends before it starts");
	assert_int_equal(lens_parse_time("5,10", model_profile(&m), &t0, &t1, &err), -1);
	assert_string_equal(err.msg, "'5,10' starts after the profile ends (0.000000 s from its "
				     "start)");
	/* Seconds against a share: only the profile can say (50 ns is 100%). */
	assert_int_equal(lens_parse_time("0.00000004,50%", model_profile(&m), &t0, &t1, &err), -1);
	assert_int_equal(lens_parse_time("0.00000002,50%", model_profile(&m), &t0, &t1, &err), 0);
	assert_int_equal(t0, 30);
	assert_int_equal(t1, 35);
	/* Before a profile: the text, and an order of one kind. */
	assert_int_equal(lens_check_time("5,3", &err), -1);
	assert_int_equal(lens_check_time("60%,40%", &err), -1);
	assert_int_equal(lens_check_time("1,x", &err), -1);
	assert_int_equal(lens_check_time("3", &err), -1);
	assert_int_equal(lens_check_time("5,10%", &err), 0);
	assert_int_equal(lens_check_time(",", &err), 0);
	assert_int_equal(lens_check_time("1.5,", &err), 0);

	/* [20, 45): the samples at 20, 30 and 40. */
	model_set_time(&m, true, 20, 45);
	got = folded(&m);
	assert_string_equal(got, "A;B;D 2|A;E;B;C 4|A;F;F;F;G 8");
	free(got);
	assert_int_equal(model_total(&m), 14);
	assert_false(model_func_stats_exact(&m));
	tt = model_thread_weights(&m);
	assert_int_equal(tt->total, 14);
	assert_int_equal(tt->nr_threads, 2);
	assert_int_equal(tt->threads[0].weight, 10);
	assert_int_equal(tt->threads[1].weight, 4);
	check_model(&m);
	/* With a transform over it, and a range that keeps nothing. */
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^[AB]$", &err), 0);
	got = folded(&m);
	assert_string_equal(got, "D 2|E;C 4|F;F;F;G 8");
	free(got);
	model_set_time(&m, true, 61, 70);
	got = folded(&m);
	assert_string_equal(got, "");
	free(got);
	assert_int_equal(model_thread_weights(&m)->nr_threads, 0);
	check_model(&m);
	model_set_time(&m, false, 0, 0);
	assert_int_equal(model_total(&m), 63);
	check_model(&m);

	/* Baked for collapse: the samples out of the range are gone. */
	model_set_time(&m, true, 20, 45);
	model_bake_lens(&m);
	assert_false(m.lens.timed);
	assert_int_equal(model_total(&m), 14);
	assert_int_equal(m.ps->profiles[0]->nr_samples, 3);
	assert_int_equal(m.ps->profiles[0]->total_weight, 14);
	check_profile_set(m.ps);
	tf_error_release(&err);
	model_release(&m);
}

/* The weight switch: every sample weighs 1, under the transforms too. */
static void
test_count_samples(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "x", 1), UNIT_NONE);
	char *got;

	(void)state;
	setup(&m);
	assert_true(model_set_count_samples(&m, true));
	assert_int_equal(model_profile(&m)->unit, UNIT_SAMPLES);
	got = folded(&m);
	assert_string_equal(got, "A;B;C 1|A;B;D 1|A;E;B;C 1|A;F;F;F;G 1|A;F;H;F;G 1|A;idle 1");
	free(got);
	assert_int_equal(model_thread_weights(&m)->total, 6);
	assert_int_equal(model_push_transform(&m, LENS_COLLAPSE_RECURSION, "^F$", &err), 0);
	got = folded(&m);
	assert_string_equal(got, "A;B;C 1|A;B;D 1|A;E;B;C 1|A;F;G 2|A;idle 1");
	free(got);
	assert_true(model_set_count_samples(&m, false));
	assert_int_equal(model_profile(&m)->unit, UNIT_EVENTS);
	got = folded(&m);
	assert_string_equal(got, "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;G 24|A;idle 32");
	free(got);
	assert_int_equal(model_thread_weights(&m)->total, 63);
	check_model(&m);
	model_release(&m);

	/* Weights that are counts already: nothing to switch. */
	test_sample(ps, p, "a", 3, -1, 1);
	model_init(&m, ps);
	assert_false(model_set_count_samples(&m, true));
	assert_false(m.lens.count_samples);
	check_model(&m);
	model_release(&m);

	/*
	 * Times of a file that recorded no samples (a cProfile's tree):
	 * counting them counts nothing, so it is not offered.
	 */
	ps = profile_set_new();
	p = profile_set_profile(ps, ps_str(ps, "time", 4), UNIT_NANOSECONDS);
	test_sample(ps, p, "a", 3, -1, 1);
	assert_true(model_can_count_samples(p));
	p->no_samples = true;
	assert_false(model_can_count_samples(p));
	model_init(&m, ps);
	assert_false(model_set_count_samples(&m, true));
	assert_false(m.lens.count_samples);
	check_model(&m);
	model_release(&m);
	tf_error_release(&err);
}

/* Undoing the last transform gives back the set's own tree, unbuilt. */
static void
test_pop_keeps_base(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	const uint64_t *total;
	bool *mask;
	char *got;

	(void)state;
	setup(&m);
	exercise(&m);
	total = model_tree(&m)->total;
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^B$", &err), 0);
	exercise(&m);
	assert_true(model_pop_transform(&m));
	/* Current at once, the same arrays, the weights too. */
	assert_int_equal(m.tree_gen, m.generation);
	assert_int_equal(m.fstats_gen, m.generation);
	assert_ptr_equal(model_tree(&m)->total, total);
	check_model(&m);
	got = folded(&m);
	assert_string_equal(got, "A;B;C 1|A;B;D 2|A;E;B;C 4|A;F;F;F;G 8|A;F;H;F;G 16|A;idle 32");
	free(got);

	/* Another thread filter meanwhile: the kept tree is of other samples. */
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^B$", &err), 0);
	mask = xcalloc(m.ps->nr_threads, sizeof(*mask));
	mask[0] = true;
	model_set_threads(&m, mask);
	exercise(&m);
	assert_true(model_pop_transform(&m));
	assert_int_not_equal(m.tree_gen, m.generation);
	got = folded(&m);
	assert_string_equal(got, "A;B;C 1|A;B;D 2|A;F;F;F;G 8|A;idle 32");
	free(got);
	free(mask);

	/* New functions meanwhile (collapse-module): their weights are made again. */
	exercise(&m);
	assert_int_equal(model_push_transform(&m, LENS_COLLAPSE_MODULE, "^m$", &err), 0);
	exercise(&m);
	assert_true(model_pop_transform(&m));
	assert_int_equal(m.tree_gen, m.generation);
	assert_int_not_equal(m.fstats_gen, m.generation);
	got = folded(&m);
	assert_string_equal(got, "A;B;C 1|A;B;D 2|A;F;F;F;G 8|A;idle 32");
	free(got);
	check_model(&m);
	tf_error_release(&err);
	model_release(&m);
}

/* The names of rows, joined by '|': what the Sandwich table lists, in its order. */
static char *
row_names(struct model *m, const struct sandwich_rows *r)
{
	struct strbuf sb = STRBUF_INIT;

	for (uint32_t i = 0; i < r->nr; i++) {
		strbuf_addstr(&sb, i ? "|" : "");
		strbuf_addstr(&sb, ps_get(m->ps, model_funcs(m)->funcs[r->rows[i]].name));
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * The Sandwich rows are kept with the tree: undone, a change gives back
 * the rows of the lens before it, unless what they are of changed
 * meanwhile (the search that filters them, their functions).
 */
static void
test_pop_keeps_rows(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	size_t off;
	char *before, *got;

	(void)state;
	setup(&m);
	/* The tree too, as Left Heavy shows: the stash is of a lens whose tree was current. */
	exercise(&m);
	before = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false));
	assert_string_equal(before, "A|idle|G|F|H|B|C|E|D");
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^F$", &err), 0);
	exercise(&m);
	got = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false));
	assert_string_equal(got, "A|idle|G|H|B|C|E|D");
	free(got);
	assert_true(model_pop_transform(&m));
	/* Current at once: no build. */
	assert_int_equal(m.rows_gen, m.generation);
	check_model(&m);
	got = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false));
	assert_string_equal(got, before);
	free(got);

	/* A time range set and cleared, as Esc does. */
	model_set_time(&m, true, 25, 55);
	exercise(&m);
	got = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false));
	assert_string_equal(got, "A|G|F|H|C|B|E");
	free(got);
	model_set_time(&m, false, 0, 0);
	assert_int_equal(m.rows_gen, m.generation);
	got = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false));
	assert_string_equal(got, before);
	free(got);

	/* Rows filtered by a search, then another search meanwhile: built again. */
	model_set_search(&m, search_re_new("^[BC]$", 6, &off, &err));
	exercise(&m);
	got = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, true));
	assert_string_equal(got, "B|C");
	free(got);
	assert_int_equal(model_push_transform(&m, LENS_DROP_FUNCTION, "^C$", &err), 0);
	exercise(&m);
	got = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, true));
	assert_string_equal(got, "B");
	free(got);
	model_set_search(&m, search_re_new("^[FGH]$", 7, &off, &err));
	assert_true(model_pop_transform(&m));
	/* Kept, but of the search before: model_sandwich_rows() makes them again. */
	assert_int_equal(m.rows_gen, m.generation);
	check_model(&m);
	got = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, true));
	assert_string_equal(got, "G|F|H");
	free(got);
	check_model(&m);

	/* New functions meanwhile (collapse-module): the rows are made again. */
	model_set_search(&m, NULL);
	model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false);
	assert_int_equal(model_push_transform(&m, LENS_COLLAPSE_MODULE, "^m$", &err), 0);
	exercise(&m);
	model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false);
	assert_true(model_pop_transform(&m));
	assert_int_not_equal(m.rows_gen, m.generation);
	got = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false));
	assert_string_equal(got, before);
	free(got);
	check_model(&m);
	free(before);
	tf_error_release(&err);
	model_release(&m);
}

/*
 * Once asked for, the Sandwich rows follow new function weights at once,
 * in the order and with the filter asked last; never before they are
 * asked for, and not with a filter whose search has gone.
 */
static void
test_rows_follow(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	size_t off;
	char *got;

	(void)state;
	setup(&m);
	model_func_stats(&m);
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^F$", &err), 0);
	model_func_stats(&m);
	assert_int_equal(m.rows_gen, 0);

	got = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_SELF, true, false));
	assert_string_equal(got, "E|B|H|A|D|C|G|idle");
	free(got);
	assert_true(model_pop_transform(&m));
	model_func_stats(&m);
	assert_int_equal(m.rows_gen, m.generation);
	check_model(&m);
	/* The weights of the lens now, not the rows of before. */
	got = row_names(&m, &m.rows);
	assert_string_equal(got, "E|B|H|F|A|D|C|G|idle");
	free(got);

	/* Filtered: by the search of now. */
	model_set_search(&m, search_re_new("^[BCD]$", 7, &off, &err));
	got = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, true));
	assert_string_equal(got, "B|C|D");
	free(got);
	model_set_search(&m, search_re_new("^[CD]$", 6, &off, &err));
	model_set_time(&m, true, 5, 25);
	model_func_stats(&m);
	assert_int_equal(m.rows_gen, m.generation);
	check_model(&m);
	got = row_names(&m, &m.rows);
	assert_string_equal(got, "D|C");
	free(got);
	/* The search gone: the filtered rows wait for the pane to ask. */
	model_set_search(&m, NULL);
	model_set_time(&m, false, 0, 0);
	model_func_stats(&m);
	assert_int_not_equal(m.rows_gen, m.generation);
	got = row_names(&m, model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false));
	assert_string_equal(got, "A|idle|G|F|H|B|C|E|D");
	free(got);
	check_model(&m);
	tf_error_release(&err);
	model_release(&m);
}


/* ------------------------------------------------- incremental vs full */

static uint32_t
prop_rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

/*
 * A random profile: paths up to 14 frames deep over 9 functions in 3
 * modules (so recursion, direct and not, is everywhere), one function
 * of two frames (two addresses), weights of 1 to 4 (ties in every
 * table), times increasing, 3 threads.
 */
static struct profile_set *
prop_profile(uint64_t *seed)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	frame_id frames[10];
	uint32_t nr_samples = 20 + prop_rnd(seed) % 200;

	for (int i = 0; i < 10; i++) {
		struct frame f = { 0 };
		char name[8];

		snprintf(name, sizeof(name), "f%d", i < 9 ? i : 4);
		f.name = ps_str(ps, name, strlen(name));
		f.module = ps_str(ps, i % 3 ? "libm" : "app", i % 3 ? 4 : 3);
		f.addr = (uint64_t)i;
		frames[i] = profile_set_frame(ps, &f);
	}
	for (uint32_t i = 0; i < nr_samples; i++) {
		uint32_t depth = 1 + prop_rnd(seed) % 14;
		stack_id s = STACK_ROOT;
		thread_id t = profile_set_thread(ps, 1, 1 + prop_rnd(seed) % 3, STR_EMPTY);

		for (uint32_t d = 0; d < depth; d++)
			s = profile_set_stack(ps, s, frames[prop_rnd(seed) % 10]);
		assert_int_equal(profile_add_sample(p, s, 1 + prop_rnd(seed) % 4, 100 * (int64_t)i,
						    true, t, NULL),
				 0);
	}
	return ps;
}

/* One random change of the lens: a transform pushed, popped or redone, a time range, threads. */
static void
prop_change(struct model *m, uint64_t *seed)
{
	static const char *const regexes[] = { "^f1$", "^f4$", "f[23]", "^f[0-8]$", "^f0$", "^f7$" };
	const struct profile *p = model_profile(m);
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf arg = STRBUF_INIT;
	uint32_t r = prop_rnd(seed) % 10;
	enum lens_kind kind;

	if (r < 5 && m->lens.nr_levels < 5) {
		kind = (enum lens_kind)(prop_rnd(seed) % LENS_NR_KINDS);
		if (lens_kind_ops(kind)->arg == LENS_ARG_PATH) {
			const struct profile_set *v = model_view(m);

			if (v->nr_stacks < 2)
				return;
			lens_path_text(v, 1 + prop_rnd(seed) % (v->nr_stacks - 1), &arg);
		} else if (lens_kind_ops(kind)->arg == LENS_ARG_MODULE) {
			strbuf_addstr(&arg, prop_rnd(seed) % 2 ? "libm" : "^app$");
		} else {
			strbuf_addstr(&arg, regexes[prop_rnd(seed) % 6]);
		}
		if (model_push_transform(m, kind, arg.buf, &err))
			fail_msg("%s:%s: %s", lens_kind_ops(kind)->name, arg.buf, tf_error_text(&err));
	} else if (r < 7) {
		model_pop_transform(m);
	} else if (r < 8) {
		model_redo_transform(m);
	} else if (r < 9 && !m->lens.timed) {
		int64_t a = p->time_min + prop_rnd(seed) % 20000, b = a + 1 + prop_rnd(seed) % 10000;

		model_set_time(m, true, a, b);
	} else if (r < 9) {
		model_set_time(m, false, 0, 0);
	} else {
		bool *mask = xcalloc(m->ps->nr_threads + 1, sizeof(*mask));

		for (thread_id t = 0; t < m->ps->nr_threads; t++)
			mask[t] = prop_rnd(seed) % 3 != 0;
		model_set_threads(m, prop_rnd(seed) % 4 ? mask : NULL);
		free(mask);
	}
	strbuf_release(&arg);
	tf_error_release(&err);
}

/*
 * The caches after a change (a tree kept from before it, a view's marks
 * made in its transform's pass, arrays reused) against everything built
 * from scratch: the tree of the view's weights, function weights from
 * marks made by a walk of the view, and a fresh table of rows.
 */
static void
prop_compare(struct model *m)
{
	const struct profile_set *v = model_view(m);
	const uint64_t *w = model_stack_weights(m);
	const struct calltree *t = model_tree(m);
	const struct func_table *ft = model_funcs(m);
	const struct func_stats *st = model_func_stats(m);
	struct func_table walked = *ft;
	struct func_stats *want = xcalloc(ft->nr_funcs + 1, sizeof(*want));
	struct calltree full;

	calltree_build(&full, v, w);
	assert_int_equal(t->nr_nodes, full.nr_nodes);
	assert_ptr_equal(t->ps, v);
	for (stack_id s = 0; s < v->nr_stacks; s++) {
		uint32_t n1, n2;
		const stack_id *k1 = calltree_kids(t, s, &n1), *k2 = calltree_kids(&full, s, &n2);

		assert_int_equal(t->self[s], full.self[s]);
		assert_int_equal(t->total[s], full.total[s]);
		if (!full.total[s])
			continue;
		assert_int_equal(t->x0[s], full.x0[s]);
		assert_int_equal(t->height[s], full.height[s]);
		assert_int_equal(n1, n2);
		assert_memory_equal(k1, k2, sizeof(*k1) * n1);
	}
	calltree_release(&full);
	walked.outermost = NULL;
	func_table_mark_outermost(&walked, v);
	for (stack_id s = 1; s < v->nr_stacks; s++)
		assert_int_equal(func_table_outermost(ft, s), func_table_outermost(&walked, s));
	if (!model_func_stats_exact(m)) {
		func_stats_compute_sums(&walked, v, w, t->total, want);
		assert_memory_equal(st, want, sizeof(*st) * ft->nr_funcs);
	}
	free(walked.outermost);
	free(want);
	/* Rows current now (kept from before a change) are those a fresh build makes. */
	if (m->rows_gen == m->generation && !m->rows.filtered) {
		struct sandwich_rows fresh;

		sandwich_rows_init(&fresh);
		sandwich_rows_build(&fresh, m->ps, ft, st, NULL, m->rows.by, m->rows.reverse, NULL);
		assert_int_equal(fresh.nr, m->rows.nr);
		assert_memory_equal(fresh.rows, m->rows.rows, sizeof(*fresh.rows) * fresh.nr);
		sandwich_rows_release(&fresh);
	}
	for (int by = 0; by < 3; by++)
		for (int rev = 0; rev < 2; rev++) {
			model_sandwich_rows(m, (enum sandwich_sort)by, rev, false);
			check_model(m);
		}
}

/*
 * A property: on random profiles (fixed seeds), after random changes of
 * the lens, the caches kept or made incrementally are what a full
 * rebuild makes, and every invariant holds.
 */
static void
test_incremental_matches_full(void **state)
{
	uint64_t seed = 20261123;

	(void)state;
	for (int round = 0; round < 40; round++) {
		struct model m;

		model_init(&m, prop_profile(&seed));
		/* Every other round with the function weights on a second thread. */
		if (round % 2)
			m.thread_min_stacks = 0;
		for (int step = 0; step < 30; step++) {
			/* Not every step asks: a change after a change stashes nothing. */
			if (prop_rnd(&seed) % 4)
				prop_compare(&m);
			prop_change(&m, &seed);
			check_model(&m);
		}
		prop_compare(&m);
		model_release(&m);
	}
}

static void
test_check_catches_damage(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	stack_id idle, deep, saved;
	struct lens_level *lv;

	(void)state;
	setup(&m);
	idle = test_stack(m.ps, "A;idle");
	deep = test_stack(m.ps, "A;F;F;F;G");
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^B$", &err), 0);
	check_model(&m);
	lv = &m.lens.levels[0];
	saved = lv->map[deep];
	/* A stack mapped off its parent's path. */
	lv->map[deep] = lv->map[idle];
	assert_int_equal(lens_check(&m.lens, m.ps, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "not under"));
	lv->map[deep] = saved;
	saved = lv->map[idle];
	/* Dropped without being counted out. */
	lv->map[idle] = LENS_DROPPED;
	assert_int_equal(lens_check(&m.lens, m.ps, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "kept"));
	lv->map[idle] = saved;
	assert_int_equal(lens_check(&m.lens, m.ps, &err), 0);
	tf_error_release(&err);
	model_release(&m);
}

static void
test_parse(void **state)
{
	struct tf_error err = TF_ERROR_INIT;
	enum lens_kind kind;
	const char *arg;

	(void)state;
	assert_int_equal(lens_parse_transform("focus-subtree:a;b", &kind, &arg, &err), 0);
	assert_int_equal(kind, LENS_FOCUS_SUBTREE);
	assert_string_equal(arg, "a;b");
	assert_int_equal(lens_parse_transform("merge-function:x:y", &kind, &arg, &err), 0);
	assert_string_equal(arg, "x:y");
	assert_int_equal(lens_parse_transform("merge", &kind, &arg, &err), -1);
	assert_int_equal(lens_parse_transform("merge:x", &kind, &arg, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "collapse-module"));
	for (int k = 0; k < LENS_NR_KINDS; k++) {
		assert_ptr_equal(lens_kind_find(lens_kind_ops((enum lens_kind)k)->name, &kind),
				 lens_kind_ops((enum lens_kind)k));
		assert_int_equal(kind, k);
	}
	tf_error_release(&err);
}

static void
test_quote_name(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct tf_error err = TF_ERROR_INIT;
	const char *names[] = { "a.b(int)", "x\\Ey", "[libc.so]", "operator()" };
	size_t off;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		struct search_re *re;

		strbuf_reset(&sb);
		lens_quote_name(names[i], &sb);
		re = search_re_new(sb.buf, sb.len, &off, &err);
		assert_non_null(re);
		assert_true(search_re_match(re, names[i], strlen(names[i])));
		assert_false(search_re_match(re, "a", 1));
		search_re_free(re);
		/* The breadcrumbs show the name, not the regex. */
		if (i != 1) {
			struct lens l;
			struct model m;
			struct strbuf crumbs = STRBUF_INIT;

			setup(&m);
			assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, sb.buf,
							      &err), 0);
			l = m.lens;
			lens_describe(&l, &crumbs);
			assert_string_equal(crumbs.buf + strlen("merge "), names[i]);
			strbuf_release(&crumbs);
			model_release(&m);
		}
	}
	strbuf_release(&sb);
	tf_error_release(&err);
}

/* ------------------------------------------------------------ by process */

/* A sample of path on thread (pid, tid, comm; comm NULL for none). */
static void
proc_sample(struct profile_set *ps, struct profile *p, const char *path, uint64_t weight,
	    int64_t time, int64_t pid, int64_t tid, const char *comm)
{
	str_id c = comm ? ps_str(ps, comm, strlen(comm)) : STR_EMPTY;
	thread_id t = profile_set_thread(ps, pid, tid, c);

	assert_int_equal(profile_add_sample(p, test_stack(ps, path), weight, time, true, t,
					    NULL), 0);
}

/*
 * Two threads of xz (pid 10), cc with a space in its comm (pid 20), perl
 * with no pid, and a thread with neither pid nor comm:
 *   xz 10/10 main;f 1   xz 10/11 main;f 2   "c c" 20/20 main;g 4
 *   perl -/30 run 8   -/-  x 16
 */
static void
setup_procs(struct model *m)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);

	proc_sample(ps, p, "main;f", 1, 10, 10, 10, "xz");
	proc_sample(ps, p, "main;f", 2, 20, 10, 11, "xz");
	proc_sample(ps, p, "main;g", 4, 30, 20, 20, "c c");
	proc_sample(ps, p, "run", 8, 40, -1, 30, "perl");
	proc_sample(ps, p, "x", 16, 50, -1, -1, NULL);
	model_init(m, ps);
	check_model(m);
}

#define PROCS_GROUPED "[unknown process];x 16|c_c-20;main;g 4|perl-?;run 8|xz-10;main;f 3"

static void
test_by_process(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf crumbs = STRBUF_INIT;
	char *got;

	(void)state;
	setup_procs(&m);
	assert_true(model_set_by_process(&m, true));
	assert_false(model_set_by_process(&m, true));
	/* The group's stacks are walked, never looked up: not linked. */
	assert_int_equal(m.lens.group.set.unlinked_from, 1);
	/* Each stack under its process, comm-PID; the two threads of xz together. */
	got = folded(&m);
	assert_string_equal(got, PROCS_GROUPED);
	free(got);
	assert_int_equal(model_total(&m), 31);
	assert_int_equal(lanes_weight(&m), 31);
	lens_describe(&m.lens, &crumbs);
	assert_string_equal(crumbs.buf, "by process");
	/* A process is no function of the tables, but f's weights are the same. */
	for (func_id f = 0; f < model_funcs(&m)->nr_funcs; f++) {
		const char *name = ps_get(m.ps, model_funcs(&m)->funcs[f].name);

		if (!strcmp(name, "f"))
			assert_int_equal(model_func_stats(&m)[f].total, 3);
		if (!strcmp(name, "xz-10")) {
			assert_true(model_funcs(&m)->process[f]);
			assert_int_equal(model_func_stats(&m)[f].total, 3);
		}
	}

	/* A transform on top, over the grouped stacks. */
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^main$", &err), 0);
	got = folded(&m);
	assert_string_equal(got, "[unknown process];x 16|c_c-20;g 4|perl-?;run 8|xz-10;f 3");
	free(got);
	strbuf_reset(&crumbs);
	lens_describe(&m.lens, &crumbs);
	assert_string_equal(crumbs.buf, "by process > merge ^main$");
	/* Ungrouped, the transform stays, built again over the set's stacks. */
	assert_true(model_set_by_process(&m, false));
	assert_int_equal(m.lens.nr_levels, 1);
	got = folded(&m);
	assert_string_equal(got, "f 3|g 4|run 8|x 16");
	free(got);
	assert_true(model_set_by_process(&m, true));
	assert_true(model_pop_transform(&m));
	got = folded(&m);
	assert_string_equal(got, PROCS_GROUPED);
	free(got);
	/* A process frame is a name like any: focus on one process. */
	assert_int_equal(model_push_transform(&m, LENS_FOCUS_FUNCTION, "^xz-", &err), 0);
	got = folded(&m);
	assert_string_equal(got, "xz-10;main;f 3");
	free(got);
	assert_int_equal(model_total(&m), 3);
	/* A time range narrows the grouped weights too. */
	assert_true(model_pop_transform(&m));
	model_set_time(&m, true, 15, 45);
	got = folded(&m);
	assert_string_equal(got, "c_c-20;main;g 4|perl-?;run 8|xz-10;main;f 2");
	free(got);
	model_set_time(&m, false, 0, 0);
	/* And back: the set's own stacks. */
	assert_true(model_set_by_process(&m, false));
	got = folded(&m);
	assert_string_equal(got, "main;f 3|main;g 4|run 8|x 16");
	free(got);
	strbuf_release(&crumbs);
	tf_error_release(&err);
	model_release(&m);
}

/* A perf profile's own process frame (its comm) is replaced, not doubled. */
static void
test_by_process_replaces_root(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	struct frame f = { 0 };
	struct model m;
	stack_id s;
	char *got;

	(void)state;
	f.name = ps_str(ps, "xz", 2);
	f.flags = FRAME_PROCESS;
	s = profile_set_stack(ps, STACK_ROOT, profile_set_frame(ps, &f));
	f.name = ps_str(ps, "main", 4);
	f.flags = 0;
	s = profile_set_stack(ps, s, profile_set_frame(ps, &f));
	assert_int_equal(profile_add_sample(p, s, 5, 1, true,
					    profile_set_thread(ps, 7, 7, ps_str(ps, "xz", 2)),
					    NULL), 0);
	/* An inner process frame is a frame like any: only the root is replaced. */
	f.name = ps_str(ps, "sh", 2);
	f.flags = FRAME_PROCESS;
	s = profile_set_stack(ps, s, profile_set_frame(ps, &f));
	assert_int_equal(profile_add_sample(p, s, 6, 2, true,
					    profile_set_thread(ps, 8, 8, ps_str(ps, "sh", 2)),
					    NULL), 0);
	model_init(&m, ps);
	got = folded(&m);
	assert_string_equal(got, "xz;main 5|xz;main;sh 6");
	free(got);
	model_set_by_process(&m, true);
	got = folded(&m);
	assert_string_equal(got, "sh-8;main;sh 6|xz-7;main 5");
	free(got);
	model_release(&m);
}

/* A perf profile's sample: its comm as the root process frame, then path. */
static void
comm_sample(struct profile_set *ps, struct profile *p, const char *comm, int64_t pid,
	    const char *path, uint64_t weight, int64_t time)
{
	struct frame f = { 0 };
	str_id c = ps_str(ps, comm, strlen(comm));
	stack_id s;

	f.name = c;
	f.flags = FRAME_PROCESS;
	s = profile_set_stack(ps, STACK_ROOT, profile_set_frame(ps, &f));
	for (const char *q = path; *q;) {
		const char *e = strchr(q, ';');
		size_t n = e ? (size_t)(e - q) : strlen(q);

		f.name = ps_str(ps, q, n);
		f.flags = 0;
		s = profile_set_stack(ps, s, profile_set_frame(ps, &f));
		q += n + (e ? 1 : 0);
	}
	assert_int_equal(profile_add_sample(p, s, weight, time, true,
					    profile_set_thread(ps, pid, pid, c), NULL), 0);
}

/*
 * A call path taken without the group (focus-subtree, merge-call-node)
 * starts at a perf profile's comm: grouped, it is on each of that comm's
 * processes, so P keeps the same samples.
 */
static void
test_by_process_keeps_paths(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	struct tf_error err = TF_ERROR_INIT;
	struct model m;
	char *got;

	(void)state;
	comm_sample(ps, p, "xz", 7, "main;f", 5, 1);
	comm_sample(ps, p, "xz", 9, "main;g", 2, 2);
	comm_sample(ps, p, "xz", 9, "other", 1, 3);
	comm_sample(ps, p, "x z", 11, "main;h", 3, 4);
	comm_sample(ps, p, "sh", 8, "main;f", 6, 5);
	model_init(&m, ps);

	assert_int_equal(model_push_transform(&m, LENS_FOCUS_SUBTREE, "xz;main", &err), 0);
	got = folded(&m);
	assert_string_equal(got, "main;f 5|main;g 2");
	free(got);
	assert_true(model_set_by_process(&m, true));
	got = folded(&m);
	assert_string_equal(got, "main;f 5|main;g 2");
	free(got);
	check_model(&m);
	assert_true(model_set_by_process(&m, false));
	got = folded(&m);
	assert_string_equal(got, "main;f 5|main;g 2");
	free(got);
	assert_true(model_pop_transform(&m));

	/* merge-call-node, pushed while grouped; a comm with a space. */
	assert_true(model_set_by_process(&m, true));
	assert_int_equal(model_push_transform(&m, LENS_MERGE_CALL_NODE, "xz;main", &err), 0);
	got = folded(&m);
	assert_string_equal(got, "sh-8;main;f 6|x_z-11;main;h 3|xz-7;f 5|xz-9;g 2|xz-9;other 1");
	free(got);
	check_model(&m);
	assert_true(model_pop_transform(&m));
	assert_int_equal(model_push_transform(&m, LENS_FOCUS_SUBTREE, "x z;main", &err), 0);
	got = folded(&m);
	assert_string_equal(got, "main;h 3");
	free(got);
	/* A path through one process picks that one only. */
	assert_true(model_pop_transform(&m));
	assert_int_equal(model_push_transform(&m, LENS_FOCUS_SUBTREE, "xz-9;main", &err), 0);
	got = folded(&m);
	assert_string_equal(got, "main;g 2");
	free(got);
	tf_error_release(&err);
	model_release(&m);
}

/* By process in a lens file, --by-process, and made the set's own for collapse. */
static void
test_by_process_file_and_bake(void **state)
{
	struct model m, again;
	struct lens_spec spec = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf text = STRBUF_INIT;
	struct profile_set *ps;
	const char *path;
	char *got;

	setup_procs(&m);
	model_set_by_process(&m, true);
	assert_int_equal(model_push_transform(&m, LENS_DROP_FUNCTION, "^run$", &err), 0);
	lens_write(&m.lens, &text);
	assert_string_equal(text.buf, "# tflame lens: one transform a line, KIND:ARG\n"
				      "by-process\n"
				      "drop-function:^run$\n");
	path = tmpdir_put(state, "p.lens", text.buf, text.len);
	setup_procs(&again);
	spec.file = path;
	if (model_apply_spec(&again, &spec, "p.txt", &err))
		fail_msg("%s", tf_error_text(&err));
	assert_true(again.lens.by_process);
	got = folded(&again);
	assert_string_equal(got, "[unknown process];x 16|c_c-20;main;g 4|xz-10;main;f 3");
	free(got);
	model_release(&again);
	/* --by-process alone. */
	setup_procs(&again);
	spec.file = NULL;
	spec.by_process = true;
	assert_int_equal(model_apply_spec(&again, &spec, "p.txt", &err), 0);
	got = folded(&again);
	assert_string_equal(got, PROCS_GROUPED);
	free(got);
	/* Baked: the set's stacks are the grouped ones, the lens plain. */
	model_bake_lens(&again);
	assert_false(again.lens.by_process);
	got = folded(&again);
	assert_string_equal(got, PROCS_GROUPED);
	free(got);
	ps = again.ps;
	again.ps = NULL;
	model_release(&again);
	check_profile_set(ps);
	assert_int_equal(ps->profiles[0]->nr_samples, 5);
	profile_set_free(ps);
	/* Transforms and grouping baked together. */
	model_bake_lens(&m);
	got = folded(&m);
	assert_string_equal(got, "[unknown process];x 16|c_c-20;main;g 4|xz-10;main;f 3");
	free(got);
	assert_int_equal(m.ps->profiles[0]->nr_samples, 4);
	strbuf_release(&text);
	tf_error_release(&err);
	model_release(&m);
}

/* lens_check() sees a sample on another process's stack, or a frame lost. */
static void
test_by_process_check(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	stack_id *gs, saved;

	(void)state;
	setup_procs(&m);
	model_set_by_process(&m, true);
	check_model(&m);
	gs = m.lens.group.stack[0];
	/* Sample 0 (xz main;f) on sample 2's stack (c c main;g). */
	saved = gs[0];
	gs[0] = gs[2];
	assert_int_equal(lens_check(&m.lens, m.ps, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "sample 0"));
	/* On its process's root alone: its frames are missing. */
	gs[0] = m.lens.group.set.stacks[saved].parent;
	gs[0] = m.lens.group.set.stacks[gs[0]].parent;
	assert_int_equal(lens_check(&m.lens, m.ps, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "short of frames"));
	gs[0] = saved;
	assert_int_equal(lens_check(&m.lens, m.ps, &err), 0);
	tf_error_release(&err);
	model_release(&m);
}

static void prop_compare_lens(struct model *m);

/*
 * Grouping again takes back the group and the levels over it that
 * ungrouping kept, with the model's weights: nothing is built that was,
 * and the result is what a build makes. A transform pushed meanwhile is
 * built over the kept group; new symbols drop what was kept.
 */
/*
 * P stashes the tree it leaves only when the stash has room for the
 * next one: the first P grows the tree in place, and going back builds
 * it again; once a transform's tree (as big as the grouped one) is in
 * the stash, P off and P on are swaps, the tree current at once.
 */
static void
test_by_process_tree_stash(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	char *grouped, *plain, *got;

	(void)state;
	setup_procs(&m);
	plain = folded(&m);
	model_tree(&m);
	assert_true(model_set_by_process(&m, true));
	assert_int_not_equal(m.tree_gen, m.generation);
	grouped = folded(&m);
	model_tree(&m);
	assert_true(model_set_by_process(&m, false));
	assert_int_not_equal(m.tree_gen, m.generation);
	model_tree(&m);
	check_model(&m);

	/* A transform over the group that drops nothing: its tree is the group's size. */
	assert_true(model_set_by_process(&m, true));
	model_tree(&m);
	assert_int_equal(model_push_transform(&m, LENS_DROP_FUNCTION, "^nothing$", &err), 0);
	model_tree(&m);
	assert_true(model_pop_transform(&m));
	assert_int_equal(m.tree_gen, m.generation);
	assert_true(m.stash_tree.alloc_nodes >= model_view(&m)->nr_stacks);
	/* Off: built in the stash's memory, the grouped tree stashed. */
	assert_true(model_set_by_process(&m, false));
	model_tree(&m);
	check_model(&m);
	/* On and off again: swaps. */
	assert_true(model_set_by_process(&m, true));
	assert_int_equal(m.tree_gen, m.generation);
	check_model(&m);
	got = folded(&m);
	assert_string_equal(got, grouped);
	free(got);
	assert_true(model_set_by_process(&m, false));
	assert_int_equal(m.tree_gen, m.generation);
	check_model(&m);
	got = folded(&m);
	assert_string_equal(got, plain);
	free(got);
	free(grouped);
	free(plain);
	tf_error_release(&err);
	model_release(&m);
}

static void
test_by_process_kept(void **state)
{
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	struct frame scratch;
	uint64_t group_id, level_id;
	const uint64_t *w;
	char *got;

	(void)state;
	setup_procs(&m);
	assert_true(model_set_by_process(&m, true));
	assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^main$", &err), 0);
	got = folded(&m);
	free(got);
	w = model_stack_weights(&m);
	assert_non_null(w);
	group_id = m.lens.group.id;
	level_id = m.lens.levels[0].id;

	/* Off: the group is kept, with its level; the set's stacks are shown. */
	assert_true(model_set_by_process(&m, false));
	check_model(&m);
	assert_int_equal(m.lens.kept_group.id, group_id);
	assert_int_equal(m.lens.nr_grouped, 1);
	assert_int_equal(m.grp_id, group_id);
	assert_non_null(m.grp_base_w);
	got = folded(&m);
	assert_string_equal(got, "f 3|g 4|run 8|x 16");
	free(got);

	/* On again: the same group and level, not built again; the same stacks. */
	assert_true(model_set_by_process(&m, true));
	check_model(&m);
	assert_int_equal(m.lens.group.id, group_id);
	assert_int_equal(m.lens.levels[0].id, level_id);
	assert_int_equal(m.lens.kept_group.id, 0);
	assert_int_equal(m.lens.nr_grouped, 0);
	assert_null(m.grp_base_w);
	got = folded(&m);
	assert_string_equal(got, "[unknown process];x 16|c_c-20;g 4|perl-?;run 8|xz-10;f 3");
	free(got);
	assert_int_equal(model_total(&m), 31);
	prop_compare_lens(&m);

	/* A thread picked while ungrouped: the kept weights are not of the pick. */
	assert_true(model_set_by_process(&m, false));
	{
		bool pick[16] = { false };

		for (thread_id t = 0; t < m.ps->nr_threads && t < 16; t++)
			pick[t] = ps_get(m.ps, m.ps->threads[t].comm)[0] == 'p';
		model_set_threads(&m, pick);
	}
	assert_true(model_set_by_process(&m, true));
	check_model(&m);
	assert_int_equal(m.lens.group.id, group_id);
	assert_int_equal(model_total(&m), 8);
	got = folded(&m);
	assert_string_equal(got, "perl-?;run 8");
	free(got);
	model_set_threads(&m, NULL);

	/* A transform pushed while ungrouped: built over the kept group when it comes back. */
	assert_true(model_set_by_process(&m, false));
	assert_int_equal(model_push_transform(&m, LENS_DROP_FUNCTION, "^run$", &err), 0);
	assert_true(model_set_by_process(&m, true));
	check_model(&m);
	assert_int_equal(m.lens.group.id, group_id);
	assert_int_equal(m.lens.levels[0].id, level_id);
	assert_true(m.lens.levels[1].id > level_id);
	got = folded(&m);
	assert_string_equal(got, "[unknown process];x 16|c_c-20;g 4|xz-10;f 3");
	free(got);
	prop_compare_lens(&m);

	/* Symbols came while ungrouped: what was kept is of the old stacks, and goes. */
	assert_true(model_set_by_process(&m, false));
	assert_int_not_equal(m.lens.kept_group.id, 0);
	profile_set_rewrite(m.ps, rename_c, &scratch);
	model_set_changed(&m);
	assert_int_equal(m.lens.kept_group.id, 0);
	assert_int_equal(m.lens.nr_grouped, 0);
	assert_int_equal(m.grp_id, 0);
	check_model(&m);
	assert_true(model_set_by_process(&m, true));
	assert_true(m.lens.group.id != group_id);
	check_model(&m);
	prop_compare_lens(&m);
	tf_error_release(&err);
	model_release(&m);
}

/* Symbols came: the group is made again over the new frames. */
static void
test_by_process_after_symbols(void **state)
{
	struct model m;
	struct frame scratch;
	char *got;

	(void)state;
	setup_procs(&m);
	model_set_by_process(&m, true);
	got = folded(&m);
	free(got);
	profile_set_rewrite(m.ps, rename_c, &scratch);
	model_set_changed(&m);
	got = folded(&m);
	assert_string_equal(got, PROCS_GROUPED);
	free(got);
	model_release(&m);
}

/*
 * A random profile of many processes: mode 0 with no process frames, 1
 * with a perf process frame (the thread's comm) at the root of each
 * stack, 2 with one at some stacks only (so that a process's frames meet
 * under its root and the group is interned); 3 processes or 80 (more than
 * a band of 64).
 */
static struct profile_set *
prop_procs_profile(uint64_t *seed, int mode)
{
	struct profile_set *ps = prop_profile(seed);
	struct profile *p = ps->profiles[0];
	uint32_t nr_pids = prop_rnd(seed) % 2 ? 3 : 80;
	struct frame f = { 0 };

	for (size_t i = 0; i < p->nr_samples; i++) {
		int64_t pid = 1 + prop_rnd(seed) % nr_pids;
		const char *comm = prop_rnd(seed) % 3 ? "app" : "worker";
		thread_id t = profile_set_thread(ps, pid, pid * 10 + prop_rnd(seed) % 2,
						 ps_str(ps, comm, strlen(comm)));
		stack_id path[16], s = p->stack[i];
		uint32_t n = 0;

		p->thread[i] = t;
		if (mode == 0 || (mode == 2 && prop_rnd(seed) % 2))
			continue;
		/* The same frames under the thread's process frame. */
		for (; s != STACK_ROOT; s = ps->stacks[s].parent)
			path[n++] = s;
		f.name = ps->threads[t].comm;
		f.module = STR_EMPTY;
		f.flags = FRAME_PROCESS;
		s = profile_set_stack(ps, STACK_ROOT, profile_set_frame(ps, &f));
		while (n)
			s = profile_set_stack(ps, s, ps->stacks[path[--n]].frame);
		p->stack[i] = s;
	}
	return ps;
}

/*
 * The lens of m built from scratch over its set (its group and each
 * transform from the text), stack for stack what m's has, however it was
 * made: kept from before grouping, taken back, built on the way.
 */
static void
prop_compare_lens(struct model *m)
{
	struct tf_error err = TF_ERROR_INIT;
	const struct lens *have = &m->lens;
	struct lens l;

	lens_init(&l);
	lens_set_by_process(&l, m->ps, have->by_process);
	for (uint32_t i = 0; i < have->nr_levels; i++)
		assert_int_equal(lens_push(&l, m->ps, have->levels[i].t.kind,
					   have->levels[i].t.arg, &err), 0);
	for (uint32_t i = 0; i <= l.nr_levels; i++) {
		const struct profile_set *a = i < l.nr_levels ? &l.levels[i].view : lens_base(&l, m->ps);
		const struct profile_set *b =
			i < l.nr_levels ? &have->levels[i].view : lens_base(have, m->ps);

		assert_int_equal(a->nr_stacks, b->nr_stacks);
		for (stack_id s = 1; s < a->nr_stacks; s++) {
			assert_int_equal(a->stacks[s].parent, b->stacks[s].parent);
			assert_int_equal(a->stacks[s].frame, b->stacks[s].frame);
		}
		if (i < l.nr_levels)
			assert_memory_equal(l.levels[i].map, have->levels[i].map,
					    sizeof(stack_id) * lens_base(&l, m->ps)->nr_stacks);
	}
	if (l.by_process)
		assert_memory_equal(l.group.stack[0], have->group.stack[0],
				    sizeof(stack_id) * m->ps->profiles[0]->nr_samples);
	lens_release(&l);
	tf_error_release(&err);
}

/*
 * The property of test_incremental_matches_full with the group by process
 * turned on and off among the changes: P on over transforms, P off with
 * transforms pushed or popped meanwhile, undo after either. The caches
 * kept (the lens's views of the set's stacks, the model's weights, marks
 * and stashed tree) are what a full rebuild makes.
 */
static void
test_by_process_matches_full(void **state)
{
	uint64_t seed = 20261127;

	(void)state;
	for (int round = 0; round < 48; round++) {
		struct model m;

		model_init(&m, prop_procs_profile(&seed, round % 3));
		if (round % 2)
			m.thread_min_stacks = 0;
		for (int step = 0; step < 24; step++) {
			if (prop_rnd(&seed) % 4)
				prop_compare(&m);
			if (prop_rnd(&seed) % 3 == 0)
				model_set_by_process(&m, !m.lens.by_process);
			else if (prop_rnd(&seed) % 5 == 0)
				/* A group made ahead, on a thread, for a P to come. */
				model_prepare_group(&m);
			else
				prop_change(&m, &seed);
			check_model(&m);
			prop_compare_lens(&m);
		}
		prop_compare(&m);
		model_release(&m);
	}
}

/*
 * A group prepared on a thread before the first P: the set has its
 * process frames at once and every cache holds; P then takes the group,
 * which is the one P would have built, under a transform too, and a
 * collapse-module meanwhile waits for it.
 */
static void
test_prepared_group(void **state)
{
	(void)state;
	for (int mode = 0; mode < 6; mode++) {
		uint64_t seed = 20261201 + (uint64_t)mode, again = seed;
		struct tf_error err = TF_ERROR_INIT;
		struct model m, want;
		uint32_t frames;
		char *got, *expect;

		model_init(&m, prop_procs_profile(&seed, mode % 3));
		model_init(&want, prop_procs_profile(&again, mode % 3));
		/* Caches to keep: the tree, the function weights, the rows, a search. */
		model_sandwich_rows(&m, SANDWICH_BY_TOTAL, false, false);
		model_tree(&m);
		model_set_search(&m, search_re_new("f1", 2, &(size_t){ 0 }, &err));
		model_search_matched(&m);
		model_sandwich(&m, 1);
		model_set_inverted(&m, true);
		model_inverted(&m);
		model_set_inverted(&m, false);
		frames = m.ps->nr_frames;
		assert_true(model_prepare_group(&m));
		assert_true(lens_preparing(&m.lens));
		assert_true(m.ps->nr_frames > frames);
		assert_false(model_prepare_group(&m));
		/* The model's own views read the set's tables, wherever they went. */
		assert_ptr_equal(m.sandwich.callers_ps.frames, m.ps->frames);
		assert_ptr_equal(m.sandwich.callees_ps.frames, m.ps->frames);
		assert_ptr_equal(m.inv.view.frames, m.ps->frames);
		assert_int_equal(m.inv.view.nr_frames, m.ps->nr_frames);
		/* The frames are functions of no stack yet: the caches stand, and check. */
		assert_int_equal(m.funcs.nr_frames, m.ps->nr_frames);
		check_model(&m);
		if (mode >= 3) {
			/* A collapse-module adds frames: it waits for the group first. */
			assert_int_equal(model_push_transform(&m, LENS_COLLAPSE_MODULE, "libm", &err), 0);
			assert_false(lens_preparing(&m.lens));
			assert_int_equal(model_push_transform(&want, LENS_COLLAPSE_MODULE, "libm", &err),
					 0);
		} else if (mode == 1) {
			assert_int_equal(model_push_transform(&m, LENS_MERGE_FUNCTION, "^f4$", &err), 0);
			assert_int_equal(model_push_transform(&want, LENS_MERGE_FUNCTION, "^f4$", &err),
					 0);
		} else if (mode == 2) {
			/* Threads filtered since: the weights made ahead are of no use. */
			bool *mask = xcalloc(m.ps->nr_threads + 1, sizeof(*mask));

			for (thread_id t = 1; t < m.ps->nr_threads; t++)
				mask[t] = true;
			model_set_threads(&m, mask);
			model_set_threads(&want, mask);
			free(mask);
		}
		assert_true(model_set_by_process(&m, true));
		assert_false(lens_preparing(&m.lens));
		/*
		 * The first P takes the weights made ahead, or frees them when
		 * filtered since (the totals below show which were used).
		 */
		assert_null(m.lens.group.weights);
		assert_true(model_set_by_process(&want, true));
		got = folded(&m);
		expect = folded(&want);
		assert_string_equal(got, expect);
		assert_int_equal(model_total(&m), model_total(&want));
		check_model(&m);
		prop_compare(&m);
		prop_compare_lens(&m);
		free(got);
		free(expect);
		/* Off and on again: the kept group, as after any P. */
		assert_true(model_set_by_process(&m, false));
		assert_true(model_set_by_process(&m, true));
		check_model(&m);
		tf_error_release(&err);
		model_release(&m);
		model_release(&want);
	}
}

/* A group prepared and never taken goes with the model. */
static void
test_prepared_group_unused(void **state)
{
	uint64_t seed = 20261202;
	struct model m;

	(void)state;
	model_init(&m, prop_procs_profile(&seed, 1));
	assert_true(model_prepare_group(&m));
	model_release(&m);
	model_init(&m, prop_procs_profile(&seed, 2));
	assert_true(model_prepare_group(&m));
	lens_prepare_wait(&m.lens);
	assert_true(m.lens.kept_group.id != 0);
	check_model(&m);
	/* New symbols: the set's stacks change, and the group is let go. */
	model_set_changed(&m);
	assert_int_equal(m.lens.kept_group.id, 0);
	check_model(&m);
	model_release(&m);
}

/* A process with samples under a perf process frame and not: merged under its root. */
static void
test_by_process_frames_meet(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	thread_id t = profile_set_thread(ps, 7, 7, ps_str(ps, "xz", 2));
	struct frame f = { 0 };
	struct model m;
	stack_id s;
	char *got;

	(void)state;
	f.name = ps_str(ps, "xz", 2);
	f.flags = FRAME_PROCESS;
	s = profile_set_stack(ps, STACK_ROOT, profile_set_frame(ps, &f));
	s = profile_set_stack(ps, s, profile_set_frame(ps, &(struct frame){
							  .name = ps_str(ps, "main", 4) }));
	assert_int_equal(profile_add_sample(p, s, 5, 1, true, t, NULL), 0);
	assert_int_equal(profile_add_sample(p, test_stack(ps, "main;f"), 6, 2, true, t, NULL), 0);
	model_init(&m, ps);
	assert_true(model_set_by_process(&m, true));
	check_model(&m);
	got = folded(&m);
	assert_string_equal(got, "xz-7;main 5|xz-7;main;f 6");
	free(got);
	prop_compare_lens(&m);
	model_release(&m);
}

/*
 * A profile big enough for the group's map to run on two threads (1 M
 * samples and more), in pieces that end within runs of one thread and
 * span many short runs: every sample still gets its own stack under its
 * own process.
 */
static void
test_by_process_many_samples(void **state)
{
	uint64_t seed = 20261128;
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	struct strbuf sb = STRBUF_INIT;
	stack_id stacks[300];
	frame_id frames[12];
	thread_id threads[12];
	const stack_id *gs;
	struct model m;
	size_t i = 0;

	(void)state;
	for (int k = 0; k < 12; k++) {
		struct frame f = { 0 };
		char name[8];

		snprintf(name, sizeof(name), "f%d", k);
		f.name = ps_str(ps, name, strlen(name));
		frames[k] = profile_set_frame(ps, &f);
		/* Six processes of two threads each. */
		threads[k] = profile_set_thread(ps, 1 + k / 2, 10 + k, ps_str(ps, "app", 3));
	}
	stacks[0] = profile_set_stack(ps, STACK_ROOT, frames[0]);
	for (int k = 1; k < 300; k++)
		stacks[k] = profile_set_stack(ps, stacks[prop_rnd(&seed) % k],
					      frames[prop_rnd(&seed) % 12]);
	while (i < 1200000) {
		/* Mostly short runs, now and then one longer than a piece of the map. */
		uint32_t len = prop_rnd(&seed) % 50 ? 1 + prop_rnd(&seed) % 40
						     : 70000 + prop_rnd(&seed) % 90000;
		thread_id t = threads[prop_rnd(&seed) % 12];

		for (uint32_t k = 0; k < len; k++, i++)
			assert_int_equal(profile_add_sample(p, stacks[prop_rnd(&seed) % 300], 1,
							    (int64_t)i, true, t, NULL),
					 0);
	}
	model_init(&m, ps);
	assert_true(model_set_by_process(&m, true));
	check_model(&m);
	assert_int_equal(model_total(&m), p->total_weight);
	gs = lens_sample_stacks(&m.lens, ps, 0);
	for (i = 0; i < p->nr_samples; i++) {
		const struct profile_set *g = lens_base(&m.lens, ps);
		stack_id s = p->stack[i], o = gs[i];

		for (; s != STACK_ROOT; s = ps->stacks[s].parent, o = g->stacks[o].parent) {
			if (g->stacks[o].frame != ps->stacks[s].frame)
				fail_msg("sample %zu: group stack of other frames", i);
		}
		strbuf_setlen(&sb, 0);
		lens_process_name(ps, &ps->threads[p->thread[i]], &sb);
		if (g->stacks[o].parent != STACK_ROOT ||
		    strcmp(ps_get(ps, ps->frames[g->stacks[o].frame].name), sb.buf))
			fail_msg("sample %zu: not under %s", i, sb.buf);
	}
	strbuf_release(&sb);
	model_release(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_function),
		cmocka_unit_test(test_merge_call_node),
		cmocka_unit_test(test_focus_subtree),
		cmocka_unit_test(test_focus_function),
		cmocka_unit_test(test_focus_function_inverted),
		cmocka_unit_test(test_drop_function),
		cmocka_unit_test(test_collapse_recursion),
		cmocka_unit_test(test_collapse_subtree),
		cmocka_unit_test(test_collapse_module),
		cmocka_unit_test(test_collapse_recursion_functions),
		cmocka_unit_test(test_stacked_undo_redo),
		cmocka_unit_test(test_rebuilt_after_symbols),
		cmocka_unit_test_setup_teardown(test_lens_file_round_trip, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test(test_bake),
		cmocka_unit_test(test_time_range),
		cmocka_unit_test(test_count_samples),
		cmocka_unit_test(test_pop_keeps_base),
		cmocka_unit_test(test_pop_keeps_rows),
		cmocka_unit_test(test_rows_follow),
		cmocka_unit_test(test_incremental_matches_full),
		cmocka_unit_test(test_check_catches_damage),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_quote_name),
		cmocka_unit_test(test_by_process),
		cmocka_unit_test(test_by_process_replaces_root),
		cmocka_unit_test(test_by_process_keeps_paths),
		cmocka_unit_test_setup_teardown(test_by_process_file_and_bake, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test(test_by_process_check),
		cmocka_unit_test(test_by_process_after_symbols),
		cmocka_unit_test(test_by_process_kept),
		cmocka_unit_test(test_by_process_tree_stash),
		cmocka_unit_test(test_by_process_matches_full),
		cmocka_unit_test(test_prepared_group),
		cmocka_unit_test(test_prepared_group_unused),
		cmocka_unit_test(test_by_process_frames_meet),
		cmocka_unit_test(test_by_process_many_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
