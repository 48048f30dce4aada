#include "config.h"

#include "tflame/builder.h"

#include "test_util.h"

static frame_id
mkframe(struct profile_set *ps, const char *name)
{
	struct frame f = { 0 };

	f.name = ps_str(ps, name, strlen(name));
	return profile_set_frame(ps, &f);
}

static void
test_orders_give_the_same_stack(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_SAMPLES);
	thread_id t = profile_set_thread(ps, -1, -1, STR_EMPTY);
	frame_id a = mkframe(ps, "a"), b = mkframe(ps, "b"), c = mkframe(ps, "c");
	struct builder bld;
	char buf[64];

	(void)state;
	builder_init(&bld, ps);
	builder_begin_sample(&bld, p, t, 1, 0, false);
	builder_push_frame(&bld, a);
	builder_push_frame(&bld, b);
	builder_push_frame(&bld, c);
	assert_true(builder_in_sample(&bld));
	assert_int_equal(builder_end_sample(&bld, BUILDER_ROOT_FIRST, NULL), 0);
	assert_false(builder_in_sample(&bld));

	builder_begin_sample(&bld, p, t, 2, 0, false);
	builder_push_frame(&bld, c);
	builder_push_frame(&bld, b);
	builder_push_frame(&bld, a);
	assert_int_equal(builder_end_sample(&bld, BUILDER_LEAF_FIRST, NULL), 0);

	assert_int_equal(p->nr_samples, 2);
	assert_int_equal(p->stack[0], p->stack[1]);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)), "a;b;c");
	assert_int_equal(p->total_weight, 3);
	builder_release(&bld);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_tree_stacks(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_BYTES);
	thread_id t = profile_set_thread(ps, -1, -1, STR_EMPTY);
	frame_id a = mkframe(ps, "a"), b = mkframe(ps, "b"), c = mkframe(ps, "c");
	/* a(0) -> b(1) -> c(2), a(0) -> c(3), and a second root b(4) */
	struct builder_tree_node nodes[] = { { 0, a }, { 1, b }, { 2, c }, { 1, c }, { 0, b } };
	stack_id memo[5] = { 0 };
	struct builder bld;
	char buf[64];

	(void)state;
	builder_init(&bld, ps);
	/* The deepest first: its ancestors are interned on the way. */
	assert_int_equal(builder_add_stack_sample(&bld, p, t, 5, 0, false,
					    builder_tree_stack(&bld, nodes, memo, 2), NULL), 0);
	assert_int_not_equal(memo[0], STACK_ROOT);
	assert_int_not_equal(memo[1], STACK_ROOT);
	assert_int_equal(memo[3], STACK_ROOT);
	assert_int_equal(ps->nr_stacks, 4);
	assert_int_equal(builder_add_stack_sample(&bld, p, t, 7, 0, false,
					    builder_tree_stack(&bld, nodes, memo, 3), NULL), 0);
	assert_int_equal(builder_add_stack_sample(&bld, p, t, 1, 0, false,
					    builder_tree_stack(&bld, nodes, memo, 4), NULL), 0);
	/* Asked again: the stack remembered. */
	assert_int_equal(builder_tree_stack(&bld, nodes, memo, 2), p->stack[0]);
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)), "a;b;c");
	assert_string_equal(stack_text(ps, p->stack[1], buf, sizeof(buf)), "a;c");
	assert_string_equal(stack_text(ps, p->stack[2], buf, sizeof(buf)), "b");
	assert_int_equal(p->total_weight, 13);

	/* Past max_samples, dropped with the usual warning. */
	bld.max_samples = 3;
	assert_int_equal(builder_add_stack_sample(&bld, p, t, 1, 0, false, memo[4], NULL), 0);
	assert_int_equal(p->nr_samples, 3);
	assert_true(builder_stopped(&bld));
	assert_string_equal(ps->diags[0].msg, "stopped after 3 samples (--max-samples)");
	builder_release(&bld);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_empty_sample_and_restart(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_SAMPLES);
	thread_id t = profile_set_thread(ps, -1, -1, STR_EMPTY);
	struct builder bld;

	(void)state;
	builder_init(&bld, ps);
	builder_begin_sample(&bld, p, t, 4, 99, true);
	assert_int_equal(builder_end_sample(&bld, BUILDER_LEAF_FIRST, NULL), 0);
	assert_int_equal(p->stack[0], STACK_ROOT);
	assert_int_equal(p->time[0], 99);
	/* Beginning again drops the frames of a sample that was not ended. */
	builder_begin_sample(&bld, p, t, 1, 0, false);
	builder_push_frame(&bld, mkframe(ps, "lost"));
	builder_begin_sample(&bld, p, t, 1, 0, false);
	builder_push_frame(&bld, mkframe(ps, "kept"));
	builder_clear_frames(&bld);
	builder_push_frame(&bld, mkframe(ps, "kept2"));
	assert_int_equal(builder_end_sample(&bld, BUILDER_LEAF_FIRST, NULL), 0);
	assert_int_equal(ps->stacks[p->stack[1]].depth, 1);
	assert_string_equal(frame_name(ps, ps->stacks[p->stack[1]].frame), "kept2");
	builder_release(&bld);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_deep_stack(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_SAMPLES);
	thread_id t = profile_set_thread(ps, -1, -1, STR_EMPTY);
	frame_id a = mkframe(ps, "a"), b = mkframe(ps, "b");
	struct builder bld;

	(void)state;
	builder_init(&bld, ps);
	builder_begin_sample(&bld, p, t, 1, 0, false);
	for (int i = 0; i < 100000; i++)
		builder_push_frame(&bld, i % 2 ? a : b);
	assert_int_equal(builder_end_sample(&bld, BUILDER_LEAF_FIRST, NULL), 0);
	assert_int_equal(ps->stacks[p->stack[0]].depth, 100000);
	/* Leaf first: the last frame pushed (a) is the root. */
	assert_int_equal(ps->stacks[p->stack[0]].frame, b);
	builder_release(&bld);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
build(struct builder *bld, struct profile *p, thread_id t, const char *const *names, size_t n,
      enum builder_order order)
{
	builder_begin_sample(bld, p, t, 1, 0, false);
	for (size_t i = 0; i < n; i++)
		builder_push_frame(bld, mkframe(bld->ps, names[order == BUILDER_ROOT_FIRST ? i
										: n - 1 - i]));
	assert_int_equal(builder_end_sample(bld, order, NULL), 0);
}

static void
test_shared_prefixes_between_samples(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_SAMPLES);
	thread_id t = profile_set_thread(ps, -1, -1, STR_EMPTY);
	const char *abc[] = { "a", "b", "c" }, *abd[] = { "a", "b", "d" }, *ax[] = { "a", "x" };
	const char *xbc[] = { "x", "b", "c" }, *ab[] = { "a", "b" };
	const char *want[] = { "a;b;c", "a;b;d", "a;x", "a;b;c", "x;b;c", "a;b", "a;b;c", "" };
	struct builder bld;
	char buf[64];

	(void)state;
	builder_init(&bld, ps);
	build(&bld, p, t, abc, 3, BUILDER_ROOT_FIRST);
	build(&bld, p, t, abd, 3, BUILDER_LEAF_FIRST);
	build(&bld, p, t, ax, 2, BUILDER_ROOT_FIRST);
	build(&bld, p, t, abc, 3, BUILDER_LEAF_FIRST);
	build(&bld, p, t, xbc, 3, BUILDER_ROOT_FIRST);
	build(&bld, p, t, ab, 2, BUILDER_ROOT_FIRST);
	build(&bld, p, t, abc, 3, BUILDER_ROOT_FIRST);
	build(&bld, p, t, abc, 0, BUILDER_ROOT_FIRST);
	for (size_t i = 0; i < p->nr_samples; i++)
		assert_string_equal(stack_text(ps, p->stack[i], buf, sizeof(buf)), want[i]);
	assert_int_equal(p->stack[0], p->stack[3]);
	assert_int_equal(p->stack[0], p->stack[6]);
	assert_int_equal(ps->stacks[p->stack[0]].parent, p->stack[5]);
	builder_release(&bld);
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * A total past 64 bits is exact; a weight past them is split into samples
 * of its stack, thread and time, and the release says how many were.
 */
static void
test_wide_weights(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_EVENTS);
	thread_id t = profile_set_thread(ps, -1, -1, STR_EMPTY);
	struct frame fr = { .name = ps_str(ps, "f", 1) };
	frame_id f = profile_set_frame(ps, &fr);
	struct tf_error err = TF_ERROR_INIT;
	weight_sum three = (weight_sum)UINT64_MAX * 3;
	struct builder bld;

	(void)state;
	builder_init(&bld, ps);
	builder_begin_sample(&bld, p, t, UINT64_MAX, 0, false);
	assert_int_equal(builder_end_sample(&bld, BUILDER_LEAF_FIRST, &err), 0);
	builder_begin_sample(&bld, p, t, 1, 0, false);
	assert_int_equal(builder_end_sample(&bld, BUILDER_LEAF_FIRST, &err), 0);
	assert_int_equal(p->nr_samples, 2);
	assert_true(p->total_weight == (weight_sum)UINT64_MAX + 1);
	builder_begin_sample_sum(&bld, p, t, three + 2, 7, true);
	builder_push_frame(&bld, f);
	assert_int_equal(builder_end_sample(&bld, BUILDER_LEAF_FIRST, &err), 0);
	assert_int_equal(p->nr_samples, 6);
	for (size_t i = 2; i < 5; i++)
		assert_int_equal(p->weight[i], UINT64_MAX);
	assert_int_equal(p->weight[5], 2);
	for (size_t i = 3; i < 6; i++) {
		assert_int_equal(p->stack[i], p->stack[2]);
		assert_int_equal(p->time[i], 7);
	}
	assert_true(p->total_weight == (weight_sum)UINT64_MAX * 4 + 3);
	assert_int_equal(ps->nr_diags, 0);
	builder_release(&bld);
	assert_int_equal(ps->nr_diags, 1);
	assert_string_equal(ps->diags[0].msg, "1 sample weight past 64 bits, each kept exactly "
					      "as several samples of its stack");
	check_profile_set(ps);
	profile_set_free(ps);
}

/* max_samples: the first ones kept, the rest dropped, one warning. */
static void
test_max_samples(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_SAMPLES);
	thread_id t = profile_set_thread(ps, -1, -1, STR_EMPTY);
	frame_id a = mkframe(ps, "a");
	struct builder bld;

	(void)state;
	builder_init(&bld, ps);
	bld.max_samples = 2;
	for (uint64_t w = 1; w <= 2; w++) {
		builder_begin_sample(&bld, p, t, w, 0, false);
		builder_push_frame(&bld, a);
		assert_int_equal(builder_end_sample(&bld, BUILDER_ROOT_FIRST, NULL), 0);
	}
	/* Full, but nothing dropped yet: no warning, the importer reads on. */
	assert_false(builder_stopped(&bld));
	assert_true(builder_full(&bld));
	assert_int_equal(ps->nr_diags, 0);
	for (uint64_t w = 3; w <= 5; w++) {
		builder_begin_sample(&bld, p, t, w, 0, false);
		builder_push_frame(&bld, a);
		assert_int_equal(builder_end_sample(&bld, BUILDER_ROOT_FIRST, NULL), 0);
		assert_false(builder_in_sample(&bld));
		assert_true(builder_stopped(&bld));
	}
	assert_int_equal(p->nr_samples, 2);
	assert_int_equal(p->total_weight, 3);
	assert_int_equal(ps->nr_diags, 1);
	assert_string_equal(ps->diags[0].msg, "stopped after 2 samples (--max-samples)");
	/* A sample of a known stack counts the same, and is dropped the same. */
	assert_int_equal(builder_add_stack_sample(&bld, p, t, 9, 0, false, p->stack[0], NULL), 0);
	assert_int_equal(p->nr_samples, 2);
	assert_int_equal(ps->nr_diags, 1);

	builder_release(&bld);
	check_profile_set(ps);
	profile_set_free(ps);
}

/* A sample added with its stack is the sample pushing its frames gives. */
static void
test_stack_sample(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_SAMPLES);
	thread_id t = profile_set_thread(ps, -1, 7, STR_EMPTY);
	frame_id a = mkframe(ps, "a"), b = mkframe(ps, "b");
	stack_id ab = profile_set_stack(ps, profile_set_stack(ps, STACK_ROOT, a), b);
	struct builder bld;

	(void)state;
	builder_init(&bld, ps);
	builder_begin_sample(&bld, p, t, 2, 10, true);
	builder_push_frame(&bld, a);
	builder_push_frame(&bld, b);
	assert_int_equal(builder_end_sample(&bld, BUILDER_ROOT_FIRST, NULL), 0);
	assert_int_equal(builder_add_stack_sample(&bld, p, t, 3, 20, true, ab, NULL), 0);
	assert_int_equal(p->nr_samples, 2);
	assert_int_equal(p->stack[0], ab);
	assert_int_equal(p->stack[1], ab);
	assert_int_equal(p->weight[1], 3);
	assert_int_equal(p->time[1], 20);
	assert_int_equal(p->thread[1], t);
	assert_int_equal(p->total_weight, 5);
	assert_int_equal(bld.nr_samples, 2);
	builder_release(&bld);
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * Samples under many roots, interleaved, more roots than the builder keeps
 * paths for: each gets its own stack, whatever path the builder reused.
 */
static void
test_interleaved_roots(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, STR_EMPTY, UNIT_SAMPLES);
	thread_id t = profile_set_thread(ps, -1, -1, STR_EMPTY);
	frame_id roots[40], x = mkframe(ps, "x"), y[3];
	struct builder bld;
	char want[64], buf[64];

	(void)state;
	for (int r = 0; r < 40; r++) {
		snprintf(buf, sizeof(buf), "r%d", r);
		roots[r] = mkframe(ps, buf);
	}
	for (int j = 0; j < 3; j++) {
		snprintf(buf, sizeof(buf), "y%d", j);
		y[j] = mkframe(ps, buf);
	}
	builder_init(&bld, ps);
	for (int i = 0; i < 600; i++) {
		builder_begin_sample(&bld, p, t, 1, 0, false);
		builder_push_frame(&bld, y[i % 3]);
		builder_push_frame(&bld, x);
		builder_push_frame(&bld, roots[(i * 7) % 40]);
		assert_int_equal(builder_end_sample(&bld, BUILDER_LEAF_FIRST, NULL), 0);
	}
	for (int i = 0; i < 600; i++) {
		snprintf(want, sizeof(want), "r%d;x;y%d", (i * 7) % 40, i % 3);
		assert_string_equal(stack_text(ps, p->stack[i], buf, sizeof(buf)), want);
	}
	/* r, r;x, and r;x;y for the 3 y met under each r */
	assert_int_equal(ps->nr_stacks, 1 + 40 * (2 + 3));
	builder_release(&bld);
	check_profile_set(ps);
	profile_set_free(ps);
}

/* The root of thread t in builder_add_roots(): frame ctx[t]. */
static frame_id
root_of(void *ctx, thread_id t)
{
	return ((const frame_id *)ctx)[t];
}

/*
 * Roots added late: every sample, of every profile, gets its thread's
 * root above its outermost frame (an empty sample gets the root alone),
 * the trie is built anew with no stack left over, and samples ended
 * afterwards share the new stacks.
 */
static void
test_add_roots(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "p", 1), UNIT_SAMPLES);
	struct profile *q = profile_set_profile(ps, ps_str(ps, "q", 1), UNIT_SAMPLES);
	thread_id t1 = profile_set_thread(ps, 1, 1, ps_str(ps, "one", 3));
	thread_id t2 = profile_set_thread(ps, 2, 2, ps_str(ps, "two", 3));
	frame_id a = mkframe(ps, "a"), b = mkframe(ps, "b"), c = mkframe(ps, "c");
	frame_id roots[2];
	struct builder bld;
	char buf[64];

	(void)state;
	roots[t1] = mkframe(ps, "ONE");
	roots[t2] = mkframe(ps, "TWO");
	builder_init(&bld, ps);
	/* a;b twice (one stack), a;b;c, c in q, and the empty stack */
	for (int i = 0; i < 5; i++) {
		builder_begin_sample(&bld, i == 3 ? q : p, i == 2 ? t2 : t1, 1, 0, false);
		if (i < 3) {
			builder_push_frame(&bld, a);
			builder_push_frame(&bld, b);
		}
		if (i == 2 || i == 3)
			builder_push_frame(&bld, c);
		assert_int_equal(builder_end_sample(&bld, BUILDER_ROOT_FIRST, NULL), 0);
	}
	assert_int_equal(p->stack[3], STACK_ROOT);
	/* An open sample keeps its frames. */
	builder_begin_sample(&bld, p, t2, 1, 0, false);
	builder_push_frame(&bld, a);
	builder_push_frame(&bld, b);

	builder_add_roots(&bld, root_of, roots);
	check_profile_set(ps);
	assert_true(test_stacks_all_used(ps));
	assert_string_equal(stack_text(ps, p->stack[0], buf, sizeof(buf)), "ONE;a;b");
	assert_int_equal(p->stack[0], p->stack[1]);
	assert_string_equal(stack_text(ps, p->stack[2], buf, sizeof(buf)), "TWO;a;b;c");
	assert_string_equal(stack_text(ps, p->stack[3], buf, sizeof(buf)), "ONE");
	assert_string_equal(stack_text(ps, q->stack[0], buf, sizeof(buf)), "ONE;c");
	/* ONE, ONE;a, ONE;a;b, TWO, TWO;a, TWO;a;b, TWO;a;b;c, ONE;c and the root */
	assert_int_equal(ps->nr_stacks, 9);

	/* The importer pushes the root itself from now on. */
	builder_push_frame(&bld, roots[t2]);
	assert_int_equal(builder_end_sample(&bld, BUILDER_LEAF_FIRST, NULL), 0);
	assert_string_equal(stack_text(ps, p->stack[4], buf, sizeof(buf)), "TWO;b;a");
	builder_begin_sample(&bld, p, t1, 1, 0, false);
	builder_push_frame(&bld, roots[t1]);
	builder_push_frame(&bld, a);
	builder_push_frame(&bld, b);
	assert_int_equal(builder_end_sample(&bld, BUILDER_ROOT_FIRST, NULL), 0);
	assert_int_equal(p->stack[5], p->stack[0]);
	/* No path from before the rebuild is reused: its stack ids are gone. */
	builder_begin_sample(&bld, p, t1, 1, 0, false);
	builder_push_frame(&bld, a);
	builder_push_frame(&bld, b);
	builder_push_frame(&bld, c);
	assert_int_equal(builder_end_sample(&bld, BUILDER_ROOT_FIRST, NULL), 0);
	assert_string_equal(stack_text(ps, p->stack[6], buf, sizeof(buf)), "a;b;c");
	assert_int_equal(p->nr_samples, 7);
	assert_int_equal(p->total_weight, 7);
	builder_release(&bld);
	check_profile_set(ps);
	assert_true(test_stacks_all_used(ps));
	profile_set_free(ps);
}

/* Largest remainder: the parts add up, each within one unit of its share. */
static void
test_apportion(void **state)
{
	uint64_t out[4];
	const uint64_t thirds[3] = { 1, 1, 1 }, zeros[2] = { 0, 0 };
	const uint64_t big[3] = { UINT64_MAX, UINT64_MAX, 1 };
	const uint64_t skew[4] = { 0, 7, 3, 0 };

	(void)state;
	/* 10 in thirds: 3 each, and the one left over to the first (ties). */
	builder_apportion(10, thirds, 3, out);
	assert_int_equal(out[0], 4);
	assert_int_equal(out[1], 3);
	assert_int_equal(out[2], 3);
	/* 7/10 and 3/10 of 5: 3.5 and 1.5 round to 4 and 1, never 3 and 2 ... */
	builder_apportion(5, skew, 4, out);
	assert_int_equal(out[0] + out[1] + out[2] + out[3], 5);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[3], 0);
	assert_true(out[1] == 4 && out[2] == 1);
	/* ... and rounding down with the rest to one part would bias it. */
	builder_apportion(1000003, skew, 4, out);
	assert_int_equal(out[1], 700002);
	assert_int_equal(out[2], 300001);
	/* Shares whose sum passes 64 bits. */
	builder_apportion(UINT64_MAX, big, 3, out);
	assert_true(out[0] + out[1] + out[2] == UINT64_MAX);
	assert_true(out[0] >= out[1] && out[0] - out[1] <= 1 && out[2] <= 1);
	/* Nothing to split on. */
	builder_apportion(9, zeros, 2, out);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orders_give_the_same_stack),
		cmocka_unit_test(test_tree_stacks),
		cmocka_unit_test(test_empty_sample_and_restart),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_shared_prefixes_between_samples),
		cmocka_unit_test(test_wide_weights),
		cmocka_unit_test(test_max_samples),
		cmocka_unit_test(test_stack_sample),
		cmocka_unit_test(test_interleaved_roots),
		cmocka_unit_test(test_add_roots),
		cmocka_unit_test(test_apportion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
