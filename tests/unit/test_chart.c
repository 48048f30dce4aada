#include "config.h"

#include "tflame/chart.h"

#include <stdlib.h>

#include "tflame/strbuf.h"
#include "test_util.h"

/* A ruler's scale of unit u, kept with d decimals. */
#define SCALE(u, d) ((struct ruler_scale){ .unit = (u), .decimals = (d) })

struct fixture {
	struct profile_set *ps;
	struct profile *p;
	struct timeline tl;
	const struct chart *c; /* the first lane */
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
check_timeline(struct timeline *tl)
{
	for (uint32_t l = 0; l < tl->nr_lanes; l++) {
		check_chart(&tl->lanes[l]);
		assert_int_equal(tl->lanes[l].total, tl->axis.total);
		if (l)
			assert_true(tl->lanes[l - 1].weight >= tl->lanes[l].weight);
	}
	check_chart(timeline_merged(tl));
}

static void
build(struct fixture *fx, const bool *keep)
{
	struct sample_filter filter = { .threads = keep };

	timeline_build(&fx->tl, fx->ps, fx->p, keep ? &filter : NULL);
	fx->built = true;
	fx->c = fx->tl.nr_lanes ? &fx->tl.lanes[0] : NULL;
	check_timeline(&fx->tl);
}

static void
unbuild(struct fixture *fx)
{
	if (fx->built)
		timeline_release(&fx->tl);
	fx->built = false;
}

static void
release(struct fixture *fx)
{
	unbuild(fx);
	check_profile_set(fx->ps);
	profile_set_free(fx->ps);
}

/* All boxes of c as "depth:path[x0,x1)" lines, in storage order. */
static const char *
chart_text(const struct chart *c)
{
	static char out[4096];
	char path[512];
	size_t pos = 0;

	out[0] = '\0';
	for (uint32_t i = 0; c && i < c->nr_boxes; i++)
		pos += (size_t)snprintf(out + pos, sizeof(out) - pos, "%s%u:%s[%llu,%llu)",
					i ? " " : "", chart_depth(c, i),
					stack_text(c->ps, chart_stack(c, i), path, sizeof(path)),
					(unsigned long long)chart_x0(c, i),
					(unsigned long long)chart_x1(c, i));
	return out;
}

static const char *
boxes_text(const struct fixture *fx)
{
	return chart_text(fx->c);
}

static void
test_consecutive_prefixes_merge(void **state)
{
	struct fixture fx;
	struct chart_span sp;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 1, 10, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 20, 1);
	test_sample(fx.ps, fx.p, "a;c", 1, 30, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 40, 1);
	build(&fx, NULL);
	/* Every 10 ns: x is time from the first sample; the last lasts a period. */
	assert_int_equal(fx.tl.axis.kind, CHART_X_TIME);
	assert_int_equal(fx.tl.axis.period, 10);
	assert_int_equal(fx.tl.axis.cap, 30);
	assert_int_equal(fx.tl.axis.origin, 10);
	assert_string_equal(boxes_text(&fx),
			    "0:a[0,40) 1:a;b[0,20) 1:a;c[20,30) 1:a;b[30,40)");
	assert_int_equal(fx.c->nr_rows, 2);
	assert_int_equal(fx.c->row_start[1], 1);
	assert_int_equal(fx.c->row_start[2], 4);
	assert_int_equal(fx.c->total, 40);
	assert_true(fx.c->has_time);
	assert_int_equal(chart_parent(fx.c, 0), CHART_NONE);
	for (uint32_t i = 1; i < 4; i++)
		assert_int_equal(chart_parent(fx.c, i), 0);
	chart_box_span(fx.c, 2, &sp);
	assert_int_equal(sp.x0, 20);
	assert_int_equal(sp.x1, 30);
	assert_int_equal(sp.t0, 30);
	assert_int_equal(sp.t1, 40);
	assert_true(sp.pct > 24.99 && sp.pct < 25.01);
	assert_true(sp.pct0 > 49.99 && sp.pct0 < 50.01);
	/* One lane: the merged chart is that lane. */
	assert_string_equal(chart_text(timeline_merged(&fx.tl)), boxes_text(&fx));
	release(&fx);
}

static void
test_gap_is_idle(void **state)
{
	struct fixture fx;
	float act[4];

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 1, 0, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 10, 1);
	test_sample(fx.ps, fx.p, "a;c", 1, 20, 1);
	/* 80 ns without a sample: more than 3 periods, so a gap */
	test_sample(fx.ps, fx.p, "a;c", 1, 100, 1);
	test_sample(fx.ps, fx.p, "a;c", 1, 110, 1);
	/* 25 ns: within 3 periods, so c goes on */
	test_sample(fx.ps, fx.p, "a;c", 1, 135, 1);
	build(&fx, NULL);
	assert_int_equal(fx.tl.axis.period, 10);
	assert_int_equal(fx.tl.axis.total, 145);
	assert_string_equal(boxes_text(&fx),
			    "0:a[0,30) 0:a[100,145) 1:a;b[0,20) 1:a;c[20,30) 1:a;c[100,145)");
	/* Across the gap, at the same depth. */
	assert_int_equal(chart_step(fx.c, 0, 1), 1);
	assert_int_equal(chart_step(fx.c, 1, 1), CHART_NONE);
	assert_int_equal(chart_step(fx.c, 1, -1), 0);
	assert_int_equal(chart_step(fx.c, 0, -1), CHART_NONE);
	assert_int_equal(chart_step(fx.c, 3, 1), 4);
	assert_int_equal(chart_find(fx.c, 0, 29), 0);
	assert_int_equal(chart_find(fx.c, 0, 30), CHART_NONE);
	assert_int_equal(chart_find(fx.c, 0, 99), CHART_NONE);
	assert_int_equal(chart_find(fx.c, 0, 100), 1);
	assert_int_equal(chart_parent(fx.c, 4), 1);
	/* Busy 30 + 45 of 145. */
	assert_int_equal(chart_covered(fx.c, 0), 0);
	assert_int_equal(chart_covered(fx.c, 15), 15);
	assert_int_equal(chart_covered(fx.c, 60), 30);
	assert_int_equal(chart_covered(fx.c, 105), 35);
	assert_int_equal(chart_covered(fx.c, 145), 75);
	assert_int_equal(chart_covered(fx.c, 1000), 75);
	chart_activity(fx.c, 0, 120, 4, act);
	assert_true(act[0] == 1.0f);  /* [0, 30) */
	assert_true(act[1] == 0.0f);  /* [30, 60) */
	assert_true(act[2] == 0.0f);  /* [60, 90) */
	assert_true(act[3] > 0.66f && act[3] < 0.67f); /* [90, 120): 20 of 30 */
	release(&fx);
}

static void
test_covered_matches_sum(void **state)
{
	struct fixture fx;
	uint64_t seed = 7, t = 0;

	(void)state;
	setup(&fx);
	/* Enough samples for several checkpoints, with gaps now and then. */
	for (int i = 0; i < 1000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		t += (seed >> 60) < 2 ? 100 : 10;
		test_sample(fx.ps, fx.p, (seed >> 40) & 1 ? "a;b" : "a;c", 1, (int64_t)t, 1);
	}
	build(&fx, NULL);
	for (uint64_t x = 0; x <= fx.c->total + 5; x += 7) {
		uint64_t sum = 0;

		for (uint32_t k = 0; k < fx.c->nr_samples; k++) {
			uint64_t a = chart_pos_x0(fx.c, k), b = chart_pos_x1(fx.c, k);

			if (a < x)
				sum += (b < x ? b : x) - a;
		}
		assert_int_equal(chart_covered(fx.c, x), sum);
	}
	release(&fx);
}

static void
test_period(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	assert_int_equal(chart_axis_period(fx.ps, fx.p), 0);
	/* Two threads at 4 ns, one sleeping often: the quartile is still 4. */
	for (int i = 0; i < 40; i++)
		test_sample(fx.ps, fx.p, "a", 1, 4 * i, 1);
	for (int i = 0; i < 20; i++)
		test_sample(fx.ps, fx.p, "b", 1, 1000 + 4 * i + (i % 2) * 500, 2);
	assert_int_equal(chart_axis_period(fx.ps, fx.p), 4);
	release(&fx);

	setup(&fx);
	/* Every thread sampled once: no period from the data. */
	test_sample(fx.ps, fx.p, "a", 1, 0, 1);
	test_sample(fx.ps, fx.p, "b", 1, 100, 2);
	assert_int_equal(chart_axis_period(fx.ps, fx.p), 0);
	build(&fx, NULL);
	assert_int_equal(fx.tl.axis.kind, CHART_X_TIME);
	assert_int_equal(fx.tl.axis.period, 50);
	assert_int_equal(fx.tl.axis.total, 150);
	release(&fx);

	setup(&fx);
	/* All at one time: no time axis at all. */
	test_sample(fx.ps, fx.p, "a", 2, 5, 1);
	test_sample(fx.ps, fx.p, "b", 1, 5, 1);
	build(&fx, NULL);
	assert_int_equal(fx.tl.axis.kind, CHART_X_WEIGHT);
	assert_false(fx.c->has_time);
	assert_string_equal(boxes_text(&fx), "0:a[0,2) 0:b[2,3)");
	release(&fx);
}

static void
test_weights_are_x(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "m;f", 5, -1, 1);
	test_sample(fx.ps, fx.p, "m;g;h", 3, -1, 1);
	test_sample(fx.ps, fx.p, "m;g", 7, -1, 1);
	build(&fx, NULL);
	assert_int_equal(fx.tl.axis.kind, CHART_X_WEIGHT);
	assert_string_equal(boxes_text(&fx),
			    "0:m[0,15) 1:m;f[0,5) 1:m;g[5,15) 2:m;g;h[5,8)");
	assert_int_equal(chart_parent(fx.c, 3), 2);
	assert_int_equal(fx.c->total, 15);
	assert_int_equal(chart_covered(fx.c, 15), 15);
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
	/* x and y share a time: x, first in the input, shows; y would last no time. */
	assert_string_equal(boxes_text(&fx),
			    "0:a[0,40) 0:x[40,50) 1:a;b[0,20) 1:a;c[20,30) 1:a;b[30,40)");
	assert_int_equal(fx.c->nr_samples, 5);
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
	assert_int_equal(fx.tl.axis.kind, CHART_X_SPANS);
	/* Each box ends where its last sample ended, then a gap. */
	assert_string_equal(boxes_text(&fx), "0:a[0,100) 0:b[500,530) 1:b;c[510,530)");
	assert_int_equal(fx.c->total, 530);
	assert_int_equal(chart_covered(fx.c, 530), 130);
	release(&fx);
}

/*
 * Thread 1 runs A at 0-10 ms and B at 90-100 ms, thread 2 runs C at
 * 0-100 ms: lanes on one axis, the heavier thread 2 first.
 */
static void
test_lanes(void **state)
{
	struct fixture fx;
	struct chart_span sp;
	const struct chart *t1, *t2, *m;
	float act[10];

	(void)state;
	setup(&fx);
	fx.p->unit = UNIT_NANOSECONDS;
	fx.p->spans = true;
	test_sample(fx.ps, fx.p, "A", 10000000, 0, 1);
	test_sample(fx.ps, fx.p, "C", 100000000, 0, 2);
	test_sample(fx.ps, fx.p, "B", 10000000, 90000000, 1);
	build(&fx, NULL);
	assert_int_equal(fx.tl.nr_lanes, 2);
	t2 = &fx.tl.lanes[0];
	t1 = &fx.tl.lanes[1];
	assert_int_equal(fx.ps->threads[t2->thread].tid, 2);
	assert_int_equal(fx.ps->threads[t1->thread].tid, 1);
	assert_int_equal(fx.tl.axis.total, 100000000);
	assert_string_equal(chart_text(t2), "0:C[0,100000000)");
	chart_box_span(t2, 0, &sp);
	assert_int_equal(sp.t0, 0);
	assert_int_equal(sp.t1, 100000000);
	assert_true(sp.pct > 99.99 && sp.pct0 == 0.0);
	assert_string_equal(chart_text(t1), "0:A[0,10000000) 0:B[90000000,100000000)");
	assert_int_equal(chart_step(t1, 0, 1), 1);
	assert_int_equal(chart_box_thread(t1, 1), t1->thread);
	assert_int_equal(t1->x_begin, 0);
	assert_int_equal(t1->x_end, 100000000);
	chart_activity(t1, 0, 100000000, 10, act);
	assert_true(act[0] == 1.0f && act[9] == 1.0f);
	for (int i = 1; i < 9; i++)
		assert_true(act[i] == 0.0f);
	chart_activity(t2, 0, 100000000, 10, act);
	for (int i = 0; i < 10; i++)
		assert_true(act[i] == 1.0f);
	/* Merged: the heavier thread 2 owns all of it while C runs. */
	m = timeline_merged(&fx.tl);
	assert_int_equal(m->thread, THREAD_NONE);
	assert_string_equal(chart_text(m), "0:C[0,100000000)");
	assert_int_equal(chart_box_thread(m, 0), t2->thread);
	assert_true(timeline_memory(&fx.tl) > 0);
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
	/* The selection's range: from thread 1's first sample. */
	build(&fx, keep);
	assert_int_equal(fx.tl.nr_lanes, 1);
	assert_int_equal(fx.tl.axis.origin, 10);
	/* The period is the profile's, whatever the selection: 20 ns. */
	assert_int_equal(fx.tl.axis.period, 20);
	assert_string_equal(boxes_text(&fx), "0:a[0,40) 1:a;b[0,40)");
	unbuild(&fx);
	/*
	 * Each thread its lane. Merged: thread 1's b until thread 2, the
	 * heavier, starts c, which then lasts its period, hiding thread 1's
	 * second b.
	 */
	build(&fx, NULL);
	assert_int_equal(fx.tl.nr_lanes, 2);
	assert_string_equal(chart_text(&fx.tl.lanes[0]), "0:a[10,30) 1:a;c[10,30)");
	assert_string_equal(chart_text(&fx.tl.lanes[1]), "0:a[0,40) 1:a;b[0,40)");
	assert_string_equal(chart_text(timeline_merged(&fx.tl)),
			    "0:a[0,30) 1:a;b[0,10) 1:a;c[10,30)");
	release(&fx);
}

/* A lighter thread shows in the merged chart where the heavier one slept. */
static void
test_merged_fills_gaps(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	for (int i = 0; i < 10; i++)
		test_sample(fx.ps, fx.p, "h", 3, 10 * i, 1);
	for (int i = 0; i < 10; i++)
		test_sample(fx.ps, fx.p, "h", 3, 200 + 10 * i, 1);
	for (int i = 0; i < 30; i++)
		test_sample(fx.ps, fx.p, "l", 1, 5 + 10 * i, 2);
	build(&fx, NULL);
	assert_int_equal(fx.tl.axis.period, 10);
	assert_string_equal(chart_text(&fx.tl.lanes[0]), "0:h[0,100) 0:h[200,300)");
	/*
	 * h until its gap; l's samples from then (a merged sample lasts until
	 * the next one shown, so h's last reaches l's first at 105); h again
	 * from 200, when it takes over from the lighter l.
	 */
	assert_string_equal(chart_text(timeline_merged(&fx.tl)),
			    "0:h[0,105) 0:l[105,200) 0:h[200,300)");
	release(&fx);
}

static void
test_untimed_lanes(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 1, -1, 1);
	test_sample(fx.ps, fx.p, "a;c", 4, -1, 2);
	test_sample(fx.ps, fx.p, "a;b", 1, -1, 1);
	build(&fx, NULL);
	/* Lanes one after the other, heaviest first; the merged chart is all. */
	assert_string_equal(chart_text(&fx.tl.lanes[0]), "0:a[0,4) 1:a;c[0,4)");
	assert_string_equal(chart_text(&fx.tl.lanes[1]), "0:a[4,6) 1:a;b[4,6)");
	assert_string_equal(chart_text(timeline_merged(&fx.tl)),
			    "0:a[0,4) 0:a[4,6) 1:a;c[0,4) 1:a;b[4,6)");
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
	test_sample(fx.ps, fx.p, "a;b", 1, 50, 1);
	build(&fx, NULL);
	/* The zero-weight sample makes no box and does not split b. */
	assert_string_equal(boxes_text(&fx), "0:a[0,60) 1:a;b[0,60)");
	assert_int_equal(fx.c->nr_rows, 2);
	release(&fx);

	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 0, 10, 1);
	build(&fx, NULL);
	assert_int_equal(fx.tl.nr_lanes, 0);
	assert_int_equal(fx.tl.axis.total, 0);
	assert_int_equal(timeline_merged(&fx.tl)->nr_boxes, 0);
	assert_int_equal(chart_find(timeline_merged(&fx.tl), 0, 0), CHART_NONE);
	release(&fx);
}

static void
test_empty_stack_splits(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 1, -1, 1);
	test_sample(fx.ps, fx.p, "", 2, -1, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, -1, 1);
	test_sample(fx.ps, fx.p, "a", 1, -1, 1);
	build(&fx, NULL);
	assert_string_equal(boxes_text(&fx), "0:a[0,1) 0:a[3,5) 1:a;b[0,1) 1:a;b[3,4)");
	assert_int_equal(chart_parent(fx.c, 3), 1);
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
	test_sample(fx.ps, fx.p, "a;b", 2, -1, 1);
	test_sample(fx.ps, fx.p, "a", 1, -1, 1);
	test_sample(fx.ps, fx.p, "a;c", 1, -1, 1);
	test_sample(fx.ps, fx.p, "", 1, -1, 1);
	test_sample(fx.ps, fx.p, "d", 1, -1, 1);
	build(&fx, NULL);
	assert_string_equal(boxes_text(&fx), "0:a[0,4) 0:d[5,6) 1:a;b[0,2) 1:a;c[3,4)");
	assert_int_equal(chart_find(fx.c, 0, 0), 0);
	assert_int_equal(chart_find(fx.c, 0, 3), 0);
	assert_int_equal(chart_find(fx.c, 0, 4), CHART_NONE);
	assert_int_equal(chart_find(fx.c, 0, 5), 1);
	assert_int_equal(chart_find(fx.c, 0, 6), CHART_NONE);
	assert_int_equal(chart_find(fx.c, 1, 1), 2);
	assert_int_equal(chart_find(fx.c, 1, 2), CHART_NONE);
	assert_int_equal(chart_find(fx.c, 1, 3), 3);
	assert_int_equal(chart_find(fx.c, 1, 5), CHART_NONE);
	assert_int_equal(chart_find(fx.c, 2, 0), CHART_NONE);
	assert_int_equal(chart_first_after(fx.c, 1, 2), 3);
	assert_int_equal(chart_first_after(fx.c, 1, 4), 4);
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
	assert_int_equal(fx.c->nr_rows, 100000);
	assert_int_equal(fx.c->nr_boxes, 50000 + 2 * 50000);
	assert_int_equal(chart_x1(fx.c, fx.c->row_start[49999]), 4);
	assert_int_equal(chart_x1(fx.c, fx.c->row_start[50000]), 2);
	assert_int_equal(chart_x0(fx.c, fx.c->row_start[50000] + 1), 3);
	assert_int_equal(chart_stack(fx.c, fx.c->nr_boxes - 1), s);
	assert_int_equal(chart_parent(fx.c, fx.c->nr_boxes - 1), fx.c->nr_boxes - 3);
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
 * Against the definition, on random untimed samples: lane by lane (each
 * thread's samples in input order, the lanes one after the other), at
 * every depth a box starts exactly where the prefix down to that depth
 * differs from the previous (weighted) sample's, and chart_find() at each
 * sample's x finds its ancestor of that depth.
 */
/*
 * Long boxes over short ones: a box's end is found through the minima of
 * blocks of 64 and 4096 positions, and must be where its frame changes.
 */
static void
test_long_boxes(void **state)
{
	struct fixture fx;
	char path[64];
	uint32_t r1;

	(void)state;
	setup(&fx);
	for (int64_t t = 0; t < 10000; t++)
		test_sample(fx.ps, fx.p, t % 3 ? "m;b" : "m;a;x", 1, 1 + t + (t >= 5000 ? 100 : 0), 1);
	build(&fx, NULL); /* chart_check() looks for each box's end position by position */
	assert_int_equal(fx.c->nr_levels, 3);
	assert_int_equal(fx.c->nr_rows, 3);
	assert_int_equal(fx.c->row_start[1], 2);
	assert_int_equal(chart_x1(fx.c, 0), 5000);
	assert_int_equal(chart_x0(fx.c, 1), 5100);
	assert_int_equal(chart_x1(fx.c, 1), 10100);
	assert_int_equal(chart_find(fx.c, 0, 4999), 0);
	assert_int_equal(chart_find(fx.c, 0, 5000), CHART_NONE);
	assert_int_equal(chart_first_after(fx.c, 0, 5000), 1);
	assert_int_equal(chart_find(fx.c, 0, 10099), 1);
	/* a, then b twice, and again: each its own box of row 1. */
	r1 = fx.c->row_start[1];
	assert_int_equal(chart_x1(fx.c, r1), 1);
	assert_int_equal(chart_x1(fx.c, r1 + 1), 3);
	assert_int_equal(chart_find(fx.c, 1, 2), r1 + 1);
	assert_int_equal(chart_parent(fx.c, fx.c->row_start[2] - 1), 1);
	assert_string_equal(stack_text(fx.ps, chart_stack(fx.c, fx.c->nr_boxes - 1), path,
				       sizeof(path)), "m;a;x");
	release(&fx);
}

static void
test_matches_definition(void **state)
{
	uint64_t seed = 1;

	(void)state;
	for (int round = 0; round < 10; round++) {
		struct fixture fx;
		char path[64];
		uint64_t x = 0;

		setup(&fx);
		for (int i = 0; i < 2000; i++) {
			size_t pos = 0;
			int depth = (int)(lcg(&seed) % 7);

			path[0] = '\0';
			for (int d = 0; d < depth; d++)
				pos += (size_t)snprintf(path + pos, sizeof(path) - pos, "%s%c",
							d ? ";" : "", 'a' + (int)(lcg(&seed) % 2));
			test_sample(fx.ps, fx.p, path, lcg(&seed) % 4, -1, 1 + (int)(lcg(&seed) % 3));
		}
		build(&fx, NULL);
		for (uint32_t l = 0; l < fx.tl.nr_lanes; l++) {
			const struct chart *c = &fx.tl.lanes[l];
			uint32_t expect[16] = { 0 };
			size_t prev = SIZE_MAX;

			for (size_t i = 0; i < fx.p->nr_samples; i++) {
				stack_id s = fx.p->stack[i];
				stack_id q = prev == SIZE_MAX ? STACK_ROOT : fx.p->stack[prev];
				uint32_t depth = fx.ps->stacks[s].depth;

				if (!fx.p->weight[i] || fx.p->thread[i] != c->thread)
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
					box = chart_find(c, d - 1, x);
					assert_int_not_equal(box, CHART_NONE);
					assert_int_equal(chart_stack(c, box), anc);
					assert_true(chart_x0(c, box) <= x);
					assert_true(chart_x1(c, box) >= x + fx.p->weight[i]);
				}
				assert_int_equal(chart_find(c, depth, x), CHART_NONE);
				x += fx.p->weight[i];
				prev = i;
			}
			for (uint32_t d = 0; d < 16; d++) {
				uint32_t got = 0;

				if (d < c->nr_rows)
					got = c->row_start[d + 1] - c->row_start[d];
				assert_int_equal(got, expect[d]);
			}
		}
		assert_int_equal(fx.tl.axis.total, x);
		release(&fx);
	}
}

static void
test_check_catches_damage(void **state)
{
	struct fixture fx;
	struct tf_error err = TF_ERROR_INIT;
	struct chart *c;
	uint8_t *shared;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 1, 10, 1);
	test_sample(fx.ps, fx.p, "a;c", 1, 11, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 12, 1);
	for (int64_t t = 13; t < 13 + 100; t++)
		test_sample(fx.ps, fx.p, t % 2 ? "a;d" : "a;e", 1, t, 1);
	build(&fx, NULL);
	c = &fx.tl.lanes[0];
	assert_int_equal(c->shared_width, 1);
	assert_int_equal(c->nr_levels, 2);
	shared = c->shared;
	/* Position 2 claims to go on with position 1's call path. */
	assert_int_equal(shared[2], 1);
	shared[2] = 2;
	assert_int_equal(chart_check(c, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "position 2: shares 2 frames, not 1"));
	shared[2] = 1;
	/* Box 3 (a;b from position 2) claims position 1: box 2 (a;c) would end as it starts. */
	assert_int_equal(c->first[3], 2);
	c->first[3] = 1;
	assert_int_equal(chart_check(c, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "box 2: positions [1, 1)"));
	c->first[3] = 2;
	/* The minimum of the second block of 64 positions is 1, not 0. */
	assert_int_equal(shared[c->level_at[1] + 1], 1);
	shared[c->level_at[1] + 1] = 0;
	assert_int_equal(chart_check(c, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "level 1, block 1: minimum 0, not 1"));
	shared[c->level_at[1] + 1] = 1;
	/* A box of row 1 counted in row 0. */
	c->row_start[1]++;
	assert_int_equal(chart_check(c, &err), -1);
	c->row_start[1]--;
	assert_int_equal(chart_check(c, &err), 0);
	tf_error_release(&err);
	release(&fx);
}

static const char *
ruler_in(uint64_t x0, uint64_t x1, uint32_t width, struct ruler_scale scale)
{
	static char out[512];
	struct ruler_tick ticks[64];
	size_t n = chart_ruler(x0, x1, width, scale, true, ticks, 64), pos = 0;
	uint32_t col = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		/* Sorted, apart, inside the width. */
		assert_true(!i || ticks[i].col >= col + 2);
		assert_true(ticks[i].col + ticks[i].width <= width);
		pos += (size_t)snprintf(out + pos, sizeof(out) - pos, "%s%u:%s", i ? " " : "",
					ticks[i].col, ticks[i].label);
		col = ticks[i].col + ticks[i].width;
	}
	return out;
}

/* A ruler of time (true), or of plain counts (false). */
static const char *
ruler_text(uint64_t x0, uint64_t x1, uint32_t width, bool time)
{
	return ruler_in(x0, x1, width, time ? RULER_TIME
					    : SCALE(UNIT_NONE, 0));
}

static void
test_ruler(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct ruler_tick ticks[8];

	(void)state;
	assert_string_equal(ruler_text(0, 1000000000, 40, true),
			    "0:0 8:200 ms 16:400 ms 24:600 ms 32:800 ms");
	assert_string_equal(ruler_text(0, 2000000000, 40, true),
			    "0:0 10:500 ms 20:1 s 30:1.5 s");
	assert_string_equal(ruler_text(0, 1000000000, 80, true),
			    "0:0 8:100 ms 16:200 ms 24:300 ms 32:400 ms 40:500 ms 48:600 ms "
			    "56:700 ms 64:800 ms 72:900 ms");
	/* Rounded to the nearest cell, as boxes are. */
	assert_string_equal(ruler_text(0, 1600000000, 100, true),
			    "0:0 13:200 ms 25:400 ms 38:600 ms 50:800 ms 63:1 s 75:1.2 s 88:1.4 s");
	/* Zoomed in: ticks at round times, labelled from the range's start. */
	assert_string_equal(ruler_text(1234000, 1334000, 40, true),
			    "6:1.25 ms 16:1.275 ms 26:1.3 ms");
	assert_string_equal(ruler_text(0, 3000, 30, true), "0:0 10:1 us 20:2 us");
	assert_string_equal(ruler_text(0, 23, 40, false),
			    "0:0 9:5 17:10 26:15 35:20");
	assert_string_equal(ruler_text(0, 5000000, 20, false), "0:0 4:1M 8:2M 12:3M 16:4M");
	/* No room, no range. */
	assert_string_equal(ruler_text(0, 1000000000, 1, true), "0:0");
	assert_int_equal(chart_ruler(5, 5, 40, RULER_TIME, true, ticks, 8), 0);
	assert_int_equal(chart_ruler(0, 10, 0, RULER_TIME, true, ticks, 8), 0);
	/* The micro sign is one cell. */
	assert_int_equal(chart_ruler(0, 3000, 30, RULER_TIME, false, ticks, 8), 3);
	assert_string_equal(ticks[1].label, "1 \xc2\xb5s");
	assert_int_equal(ticks[1].width, 4);
	/* Out of room for ticks: a wider step, not a cut ruler. */
	assert_int_equal(chart_ruler(0, 100, 100, SCALE(UNIT_NONE, 0), true,
				     ticks, 8), 5);
	assert_int_equal(ticks[4].x, 80);

	chart_format_x(1500000000, RULER_TIME, false, &sb);
	assert_string_equal(sb.buf, "1.5 s");
	strbuf_reset(&sb);
	chart_format_x(1234567, RULER_TIME, true, &sb);
	assert_string_equal(sb.buf, "1.234567 ms");
	strbuf_reset(&sb);
	chart_format_x(999, RULER_TIME, true, &sb);
	assert_string_equal(sb.buf, "999 ns");
	strbuf_reset(&sb);
	chart_format_x(2500, SCALE(UNIT_NONE, 0), true, &sb);
	assert_string_equal(sb.buf, "2.5k");
	strbuf_release(&sb);
}

/*
 * A ruler of cumulative weight (a profile without times) speaks its
 * profile's unit: time for a cProfile's ns, bytes, counts with the unit's
 * name at the end, weights kept with decimals as the values they are.
 */
static void
test_ruler_units(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_string_equal(ruler_in(0, 93254995, 60, SCALE(UNIT_NANOSECONDS, 0)),
			    "0:0 13:20 ms 26:40 ms 39:60 ms 51:80 ms");
	assert_string_equal(ruler_in(0, 300000, 40, SCALE(UNIT_BYTES, 0)),
			    "0:0 13:100 kB 27:200 kB");
	/* The ticks at the end give way to the unit's name. */
	assert_string_equal(ruler_in(0, 300, 40, SCALE(UNIT_SAMPLES, 0)),
			    "0:0 7:50 13:100 20:150 27:200 samples");
	assert_string_equal(ruler_in(0, 2, 30, SCALE(UNIT_OBJECTS, 0)),
			    "0:0 15:1 object");
	assert_string_equal(ruler_in(0, 30, 40, SCALE(UNIT_NONE, 1)),
			    "0:0 7:0.5 13:1 20:1.5 27:2 33:2.5");
	/* No name after the labels of plain counts. */
	assert_string_equal(ruler_in(0, 300, 40, SCALE(UNIT_NONE, 0)),
			    "0:0 7:50 13:100 20:150 27:200 33:250");
	chart_format_x(15, SCALE(UNIT_NANOSECONDS, 1), true, &sb);
	assert_string_equal(sb.buf, "1.5 ns");
	strbuf_reset(&sb);
	chart_format_x(2500000, SCALE(UNIT_BYTES, 0), true, &sb);
	assert_string_equal(sb.buf, "2.5 MB");
	strbuf_reset(&sb);
	chart_format_x(UINT64_MAX, SCALE(UNIT_EVENTS, 19), true, &sb);
	assert_string_equal(sb.buf, "1.8446744073709551615");
	strbuf_release(&sb);
}

/*
 * The axis of a wide profile's scaled weights (2^3 of the unit each):
 * ticks on round amounts of the input's units, past 64 bits. 2^62 scaled
 * is 2^65 = 36.89 E: a tick each 5 E, at 80 * 5e18 / 2^65 = 10.84 cells.
 */
static void
test_ruler_wide(void **state)
{
	struct ruler_scale wide = { .unit = UNIT_NONE, .shift = 3 };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_string_equal(ruler_in(0, (uint64_t)1 << 62, 80, wide),
			    "0:0 11:5E 22:10E 33:15E 43:20E 54:25E 65:30E 76:35E");
	chart_format_x(36893488147419103ULL, (struct ruler_scale){ .unit = UNIT_NONE, .tens = 3 },
		       true, &sb);
	assert_string_equal(sb.buf, "36.893488147419103E");
	strbuf_release(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_consecutive_prefixes_merge),
		cmocka_unit_test(test_ruler_wide),
		cmocka_unit_test(test_gap_is_idle),
		cmocka_unit_test(test_covered_matches_sum),
		cmocka_unit_test(test_period),
		cmocka_unit_test(test_weights_are_x),
		cmocka_unit_test(test_time_sort_is_stable),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_lanes),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_merged_fills_gaps),
		cmocka_unit_test(test_untimed_lanes),
		cmocka_unit_test(test_zero_weights),
		cmocka_unit_test(test_empty_stack_splits),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_long_boxes),
		cmocka_unit_test(test_matches_definition),
		cmocka_unit_test(test_check_catches_damage),
		cmocka_unit_test(test_ruler),
		cmocka_unit_test(test_ruler_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
