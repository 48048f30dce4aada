#include "config.h"

#include "tflame/chart.h"

#include <stdlib.h>

#include "test_util.h"

struct fixture {
	struct profile_set *ps;
	struct profile *p;
	struct chart c;
	bool built;
};

static void
setup(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	fx->ps = profile_set_new();
	fx->p = profile_set_profile(fx->ps, STR_EMPTY, UNIT_SAMPLES);
}

static void
check_chart(const struct chart *c)
{
	struct tf_error err = TF_ERROR_INIT;

	if (chart_check(c, &err))
		fail_msg("chart_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

static void
build(struct fixture *fx, const bool *keep)
{
	struct sample_filter filter = { keep };

	chart_build(&fx->c, fx->ps, fx->p, keep ? &filter : NULL);
	fx->built = true;
	check_chart(&fx->c);
}

static void
release(struct fixture *fx)
{
	if (fx->built) {
		check_chart(&fx->c);
		chart_release(&fx->c);
	}
	check_profile_set(fx->ps);
	profile_set_free(fx->ps);
}

/* All boxes as "depth:path[x0,x1)" lines, in storage order. */
static const char *
boxes_text(const struct fixture *fx)
{
	static char out[4096];
	char path[512];
	size_t pos = 0;

	out[0] = '\0';
	for (uint32_t i = 0; i < fx->c.nr_boxes; i++) {
		const struct chart_box *b = &fx->c.boxes[i];

		pos += (size_t)snprintf(out + pos, sizeof(out) - pos, "%s%u:%s[%llu,%llu)",
					i ? " " : "", b->depth,
					stack_text(fx->ps, b->stack, path, sizeof(path)),
					(unsigned long long)b->x0, (unsigned long long)b->x1);
	}
	return out;
}

static void
test_consecutive_prefixes_merge(void **state)
{
	struct fixture fx;
	const struct chart_box *b;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 1, 10, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 20, 1);
	test_sample(fx.ps, fx.p, "a;c", 1, 30, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 40, 1);
	build(&fx, NULL);
	assert_string_equal(boxes_text(&fx),
			    "0:a[0,4) 1:a;b[0,2) 1:a;c[2,3) 1:a;b[3,4)");
	assert_int_equal(fx.c.nr_rows, 2);
	assert_int_equal(fx.c.row_start[0], 0);
	assert_int_equal(fx.c.row_start[1], 1);
	assert_int_equal(fx.c.row_start[2], 4);
	assert_int_equal(fx.c.total, 4);
	assert_true(fx.c.has_time);
	b = fx.c.boxes;
	assert_int_equal(b[0].parent, CHART_NONE);
	for (int i = 1; i < 4; i++)
		assert_int_equal(b[i].parent, 0);
	/* A box ends when the next sample starts; the last at its own time. */
	assert_int_equal(b[0].t0, 10);
	assert_int_equal(b[0].t1, 40);
	assert_int_equal(b[1].t0, 10);
	assert_int_equal(b[1].t1, 30);
	assert_int_equal(b[2].t0, 30);
	assert_int_equal(b[2].t1, 40);
	assert_int_equal(b[3].t0, 40);
	assert_int_equal(b[3].t1, 40);
	release(&fx);
}

static void
test_weights_are_x(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "m;f", 5, 1, 1);
	test_sample(fx.ps, fx.p, "m;g;h", 3, 2, 1);
	test_sample(fx.ps, fx.p, "m;g", 7, 3, 1);
	build(&fx, NULL);
	assert_string_equal(boxes_text(&fx),
			    "0:m[0,15) 1:m;f[0,5) 1:m;g[5,15) 2:m;g;h[5,8)");
	assert_int_equal(fx.c.boxes[3].parent, 2);
	assert_int_equal(fx.c.total, 15);
	release(&fx);
}

static void
test_time_sort_is_stable(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;c", 1, 30, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 10, 1);
	test_sample(fx.ps, fx.p, "x", 1, 50, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 40, 1);
	test_sample(fx.ps, fx.p, "y", 1, 50, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 20, 1);
	build(&fx, NULL);
	/* x and y share a time: they stay in input order. */
	assert_string_equal(boxes_text(&fx),
			    "0:a[0,4) 0:x[4,5) 0:y[5,6) 1:a;b[0,2) 1:a;c[2,3) 1:a;b[3,4)");
	assert_int_equal(fx.c.boxes[0].t0, 10);
	assert_int_equal(fx.c.boxes[0].t1, 50);
	assert_int_equal(fx.c.boxes[2].t1, 50);
	release(&fx);
}

static void
test_no_time_keeps_input_order(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;c", 2, -1, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, -1, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, -1, 1);
	build(&fx, NULL);
	assert_false(fx.c.has_time);
	assert_string_equal(boxes_text(&fx), "0:a[0,4) 1:a;c[0,2) 1:a;b[2,4)");
	assert_int_equal(fx.c.boxes[1].t0, 0);
	assert_int_equal(fx.c.boxes[1].t1, 0);
	release(&fx);
}

static void
test_spans(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	/* Trace events: a 100 ns event, a gap, then b with a 20 ns child. */
	fx.p->unit = UNIT_NANOSECONDS;
	fx.p->spans = true;
	test_sample(fx.ps, fx.p, "a", 100, 1000, 1);
	test_sample(fx.ps, fx.p, "b", 10, 1500, 1);
	test_sample(fx.ps, fx.p, "b;c", 20, 1510, 1);
	build(&fx, NULL);
	assert_string_equal(boxes_text(&fx), "0:a[0,100) 0:b[100,130) 1:b;c[110,130)");
	/* Each box ends where its last sample ended, not where the next began. */
	assert_int_equal(fx.c.boxes[0].t0, 1000);
	assert_int_equal(fx.c.boxes[0].t1, 1100);
	assert_int_equal(fx.c.boxes[1].t1, 1530);
	assert_int_equal(fx.c.boxes[2].t0, 1510);
	assert_int_equal(fx.c.boxes[2].t1, 1530);
	/* And so does the profile's time range. */
	assert_int_equal(fx.p->time_min, 1000);
	assert_int_equal(fx.p->time_max, 1530);
	release(&fx);
}

static void
test_filter(void **state)
{
	struct fixture fx;
	bool keep[2] = { false };

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 1, 10, 1);
	test_sample(fx.ps, fx.p, "a;c", 4, 20, 2);
	test_sample(fx.ps, fx.p, "a;b", 1, 30, 1);
	keep[profile_set_thread(fx.ps, 1, 1, STR_EMPTY)] = true;
	/* Another thread's sample in between does not split b. */
	build(&fx, keep);
	assert_string_equal(boxes_text(&fx), "0:a[0,2) 1:a;b[0,2)");
	assert_int_equal(fx.c.total, 2);
	assert_int_equal(fx.c.boxes[1].t1, 30);
	chart_release(&fx.c);
	/*
	 * All threads: each thread's timeline in turn (thread 1 first seen
	 * first), so the two b samples of thread 1 merge, and the threads'
	 * a boxes stay apart.
	 */
	build(&fx, NULL);
	assert_string_equal(boxes_text(&fx), "0:a[0,2) 0:a[2,6) 1:a;b[0,2) 1:a;c[2,6)");
	assert_int_equal(fx.c.boxes[0].t1, 30);
	assert_int_equal(fx.c.boxes[1].t0, 20);
	assert_int_not_equal(fx.c.boxes[0].thread, fx.c.boxes[1].thread);
	release(&fx);
}

static void
test_zero_weights(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 1, 10, 1);
	test_sample(fx.ps, fx.p, "a;c;d", 0, 20, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 30, 1);
	build(&fx, NULL);
	/* The zero-weight sample makes no box and does not split b. */
	assert_string_equal(boxes_text(&fx), "0:a[0,2) 1:a;b[0,2)");
	assert_int_equal(fx.c.nr_rows, 2);
	assert_int_equal(fx.c.boxes[1].t1, 30);
	release(&fx);

	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 0, 10, 1);
	build(&fx, NULL);
	assert_int_equal(fx.c.nr_boxes, 0);
	assert_int_equal(fx.c.nr_rows, 0);
	assert_int_equal(fx.c.total, 0);
	assert_int_equal(chart_find(&fx.c, 0, 0), CHART_NONE);
	release(&fx);
}

static void
test_empty_stack_splits(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 1, 10, 1);
	test_sample(fx.ps, fx.p, "", 2, 20, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 30, 1);
	test_sample(fx.ps, fx.p, "a", 1, 40, 1);
	build(&fx, NULL);
	assert_string_equal(boxes_text(&fx), "0:a[0,1) 0:a[3,5) 1:a;b[0,1) 1:a;b[3,4)");
	assert_int_equal(fx.c.boxes[0].t1, 20);
	assert_int_equal(fx.c.boxes[3].parent, 1);
	release(&fx);
}

static void
test_recursion(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;a;a", 1, 1, 1);
	test_sample(fx.ps, fx.p, "a;a", 1, 2, 1);
	test_sample(fx.ps, fx.p, "a;a;a", 1, 3, 1);
	build(&fx, NULL);
	assert_string_equal(boxes_text(&fx),
			    "0:a[0,3) 1:a;a[0,3) 2:a;a;a[0,1) 2:a;a;a[2,3)");
	release(&fx);
}

static void
test_find(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 2, 10, 1);
	test_sample(fx.ps, fx.p, "a", 1, 20, 1);
	test_sample(fx.ps, fx.p, "a;c", 1, 30, 1);
	test_sample(fx.ps, fx.p, "", 1, 40, 1);
	test_sample(fx.ps, fx.p, "d", 1, 50, 1);
	build(&fx, NULL);
	assert_string_equal(boxes_text(&fx), "0:a[0,4) 0:d[5,6) 1:a;b[0,2) 1:a;c[3,4)");
	assert_int_equal(chart_find(&fx.c, 0, 0), 0);
	assert_int_equal(chart_find(&fx.c, 0, 3), 0);
	assert_int_equal(chart_find(&fx.c, 0, 4), CHART_NONE);
	assert_int_equal(chart_find(&fx.c, 0, 5), 1);
	assert_int_equal(chart_find(&fx.c, 0, 6), CHART_NONE);
	assert_int_equal(chart_find(&fx.c, 1, 1), 2);
	assert_int_equal(chart_find(&fx.c, 1, 2), CHART_NONE);
	assert_int_equal(chart_find(&fx.c, 1, 3), 3);
	assert_int_equal(chart_find(&fx.c, 1, 5), CHART_NONE);
	assert_int_equal(chart_find(&fx.c, 2, 0), CHART_NONE);
	release(&fx);
}

static void
test_deep_stack(void **state)
{
	struct fixture fx;
	thread_id th;
	stack_id s = STACK_ROOT, mid = STACK_ROOT;
	struct frame fa = { 0 };
	frame_id a;

	(void)state;
	setup(&fx);
	th = profile_set_thread(fx.ps, 1, 1, STR_EMPTY);
	fa.name = ps_str(fx.ps, "a", 1);
	a = profile_set_frame(fx.ps, &fa);
	for (int i = 0; i < 100000; i++) {
		s = profile_set_stack(fx.ps, s, a);
		if (i == 49999)
			mid = s;
	}
	profile_add_sample(fx.p, s, 1, 1, true, th, NULL);
	profile_add_sample(fx.p, s, 1, 2, true, th, NULL);
	profile_add_sample(fx.p, mid, 1, 3, true, th, NULL);
	profile_add_sample(fx.p, s, 1, 4, true, th, NULL);
	build(&fx, NULL);
	/* 50 000 rows span all four samples; the 50 000 below split in two. */
	assert_int_equal(fx.c.nr_rows, 100000);
	assert_int_equal(fx.c.nr_boxes, 50000 + 2 * 50000);
	assert_int_equal(fx.c.boxes[fx.c.row_start[49999]].x1, 4);
	assert_int_equal(fx.c.boxes[fx.c.row_start[50000]].x1, 2);
	assert_int_equal(fx.c.boxes[fx.c.row_start[50000] + 1].x0, 3);
	assert_int_equal(fx.c.boxes[fx.c.nr_boxes - 1].stack, s);
	release(&fx);
}

/* A deterministic pseudo-random number generator. */
static uint32_t
lcg(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*state >> 33);
}

/*
 * Against the definition, on random samples: at every depth, a box starts
 * exactly where the prefix down to that depth differs from the previous
 * (weighted) sample's, and chart_find() at each sample's x finds its
 * ancestor of that depth.
 */
static void
test_matches_definition(void **state)
{
	uint64_t seed = 1;

	(void)state;
	for (int round = 0; round < 10; round++) {
		struct fixture fx;
		char path[64];
		uint32_t *expect = calloc(16, sizeof(*expect));
		uint64_t x = 0;
		size_t prev = SIZE_MAX;

		setup(&fx);
		for (int i = 0; i < 2000; i++) {
			size_t pos = 0;
			int depth = (int)(lcg(&seed) % 7);

			path[0] = '\0';
			for (int d = 0; d < depth; d++)
				pos += (size_t)snprintf(path + pos, sizeof(path) - pos, "%s%c",
							d ? ";" : "", 'a' + (int)(lcg(&seed) % 2));
			test_sample(fx.ps, fx.p, path, lcg(&seed) % 4, (int64_t)(lcg(&seed) % 500),
				    1 + (int)(lcg(&seed) % 3));
		}
		build(&fx, NULL);
		/*
		 * The samples thread by thread (in order of first weighted
		 * sample), in time order within one, the slow way. A thread's
		 * first sample starts every row afresh.
		 */
		for (uint32_t r = 0; r < fx.ps->nr_threads; r++) {
			thread_id th = THREAD_NONE;

			for (size_t i = 0, seen = 0; i < fx.p->nr_samples && th == THREAD_NONE; i++) {
				bool first = fx.p->weight[i] != 0;

				for (size_t j = 0; j < i && first; j++)
					if (fx.p->weight[j] && fx.p->thread[j] == fx.p->thread[i])
						first = false;
				if (first && seen++ == r)
					th = fx.p->thread[i];
			}
			prev = SIZE_MAX;
			for (int64_t t = 0; t < 500 && th != THREAD_NONE; t++) {
				for (size_t i = 0; i < fx.p->nr_samples; i++) {
					stack_id s = fx.p->stack[i];
					stack_id q = prev == SIZE_MAX ? STACK_ROOT : fx.p->stack[prev];
					uint32_t depth = fx.ps->stacks[s].depth;

					if (fx.p->time[i] != t || !fx.p->weight[i] || fx.p->thread[i] != th)
						continue;
					for (uint32_t d = depth; d > 0; d--) {
						stack_id anc = s, qa = q;
						uint32_t box;

						while (fx.ps->stacks[anc].depth > d)
							anc = fx.ps->stacks[anc].parent;
						while (fx.ps->stacks[qa].depth > d)
							qa = fx.ps->stacks[qa].parent;
						if (qa != anc || fx.ps->stacks[q].depth < d)
							expect[d - 1]++;
						box = chart_find(&fx.c, d - 1, x);
						assert_int_not_equal(box, CHART_NONE);
						assert_int_equal(fx.c.boxes[box].stack, anc);
						assert_true(fx.c.boxes[box].x0 <= x);
						assert_true(fx.c.boxes[box].x1 >= x + fx.p->weight[i]);
					}
					assert_int_equal(chart_find(&fx.c, depth, x), CHART_NONE);
					x += fx.p->weight[i];
					prev = i;
				}
			}
		}
		assert_int_equal(fx.c.total, x);
		for (uint32_t d = 0; d < 16; d++) {
			uint32_t got = 0;

			if (d < fx.c.nr_rows)
				got = fx.c.row_start[d + 1] - fx.c.row_start[d];
			assert_int_equal(got, expect[d]);
		}
		free(expect);
		release(&fx);
	}
}

static void
test_check_catches_damage(void **state)
{
	struct fixture fx;
	struct tf_error err = TF_ERROR_INIT;
	struct chart_box saved;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 1, 10, 1);
	test_sample(fx.ps, fx.p, "a;c", 1, 20, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 30, 1);
	build(&fx, NULL);
	saved = fx.c.boxes[2];
	fx.c.boxes[2].stack = fx.c.boxes[1].stack;
	assert_int_equal(chart_check(&fx.c, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "not merged"));
	fx.c.boxes[2] = saved;
	fx.c.boxes[2].x1 = 5;
	assert_int_equal(chart_check(&fx.c, &err), -1);
	fx.c.boxes[2] = saved;
	fx.c.boxes[3].parent = 3;
	assert_int_equal(chart_check(&fx.c, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "parent"));
	fx.c.boxes[3].parent = 0;
	tf_error_release(&err);
	release(&fx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_consecutive_prefixes_merge),
		cmocka_unit_test(test_weights_are_x),
		cmocka_unit_test(test_time_sort_is_stable),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_no_time_keeps_input_order),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_zero_weights),
		cmocka_unit_test(test_empty_stack_splits),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_matches_definition),
		cmocka_unit_test(test_check_catches_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
