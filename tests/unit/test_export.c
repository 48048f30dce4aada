#include "config.h"

#include "tflame/export.h"

#include "tflame/model.h"
#include "tflame/strbuf.h"

#include "test_util.h"

/*
 * A profile of two threads, its samples out of time order in the input:
 * thread 10 a;b (5 at t=30), a;c (2 at t=10), a;b (1 at t=20); thread 11
 * x (4 at t=5).
 */
static struct profile_set *
two_threads(void)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_SAMPLES);

	test_sample(ps, p, "a;b", 5, 30, 10);
	test_sample(ps, p, "a;c", 2, 10, 10);
	test_sample(ps, p, "x", 4, 5, 11);
	test_sample(ps, p, "a;b", 1, 20, 10);
	check_profile_set(ps);
	return ps;
}

/* Run the export of m's lens (zoom: a call path, or NULL) into a new string. */
static char *
export_text(struct model *m, enum export_format f, const char *zoom,
	    const struct export_svg_options *svg, struct export_result *res)
{
	struct tf_error err = TF_ERROR_INIT;
	struct export_lens l = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct tf_error cerr = TF_ERROR_INIT;

	assert_non_null(out);
	l.ps = m->ps;
	l.p = model_profile(m);
	l.stack_w = model_stack_weights(m);
	l.threads = m->lens.threads;
	if (zoom)
		for (stack_id s = 1; s < m->ps->nr_stacks && !l.zoom; s++)
			if (profile_stack_is_path(m->ps, s, zoom))
				l.zoom = s;
	assert_int_equal(export_write(&l, f, svg, out, res, &err), 0);
	assert_int_equal(fclose(out), 0);
	if (model_check(m, &cerr))
		fail_msg("model_check: %s", tf_error_text(&cerr));
	tf_error_release(&err);
	return buf;
}

static void
test_folded(void **state)
{
	struct model m;
	struct export_result res;
	bool mask[3] = { 0 };
	char *text;

	(void)state;
	model_init(&m, two_threads());
	text = export_text(&m, EXPORT_FOLDED, NULL, NULL, &res);
	assert_string_equal(text, "a;b 6\na;c 2\nx 4\n");
	assert_int_equal(res.items, 3);
	free(text);

	/* The lens: thread 11 only, then a zoom on a;c with 10 back. */
	mask[1] = true; /* thread ids: 10 is 0, 11 is 1 */
	model_set_threads(&m, mask);
	text = export_text(&m, EXPORT_FOLDED, NULL, NULL, NULL);
	assert_string_equal(text, "x 4\n");
	free(text);
	model_set_threads(&m, NULL);
	text = export_text(&m, EXPORT_FOLDED, "a;c", NULL, NULL);
	assert_string_equal(text, "a;c 2\n");
	free(text);
	check_profile_set(m.ps);
	model_release(&m);
}

/* A name that would break a folded line keeps it whole. */
static void
test_folded_names(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "", 0), UNIT_NONE);
	thread_id t = profile_set_thread(ps, -1, -1, STR_EMPTY);
	struct frame f = { 0 };
	struct model m;
	char *text;

	(void)state;
	f.name = ps_str(ps, "a;b\nc", 5);
	assert_int_equal(profile_add_sample(p, profile_set_stack(ps, STACK_ROOT,
								  profile_set_frame(ps, &f)),
					    3, 0, false, t, NULL), 0);
	model_init(&m, ps);
	text = export_text(&m, EXPORT_FOLDED, NULL, NULL, NULL);
	assert_string_equal(text, "a:b c 3\n");
	free(text);
	check_profile_set(m.ps);
	model_release(&m);
}

static void
test_speedscope(void **state)
{
	struct model m;
	struct export_result res;
	char *text;

	(void)state;
	model_init(&m, two_threads());
	text = export_text(&m, EXPORT_SPEEDSCOPE, NULL, NULL, &res);
	assert_int_equal(res.threads, 2);
	assert_int_equal(res.items, 4);
	/*
	 * Frames in stack order, their module as the file (they have no
	 * source file); thread 10's samples in time order.
	 */
	assert_non_null(strstr(text, "\"frames\":[\n{\"name\":\"a\",\"file\":\"m\"},\n"
				     "{\"name\":\"b\",\"file\":\"m\"},\n{\"name\":\"c\",\"file\":\"m\"},\n"
				     "{\"name\":\"x\",\"file\":\"m\"}]"));
	/* Threads named as speedscope names perf's, which its importer reads back. */
	assert_non_null(strstr(text, "\"name\":\"pid: 1 tid: 10\",\"unit\":\"none\",\"startValue\":0,"
				     "\"endValue\":8,\n\"samples\":[[0,2],[0,1],[0,1]],\n"
				     "\"weights\":[2,1,5]}"));
	assert_non_null(strstr(text, "\"name\":\"pid: 1 tid: 11\",\"unit\":\"none\",\"startValue\":0,"
				     "\"endValue\":4,\n\"samples\":[[3]],\n\"weights\":[4]}"));

	/* speedscope opens the heaviest thread first. */
	assert_non_null(strstr(text, "\"activeProfileIndex\":0,"));
	free(text);

	/* A zoom keeps the samples under it, their whole paths. */
	text = export_text(&m, EXPORT_SPEEDSCOPE, "a;b", NULL, &res);
	assert_int_equal(res.threads, 1);
	assert_int_equal(res.items, 2);
	assert_non_null(strstr(text, "\"samples\":[[0,1],[0,1]],\n\"weights\":[1,5]}"));
	assert_null(strstr(text, "\"c\""));
	free(text);
	check_profile_set(m.ps);
	model_release(&m);
}

/*
 * In ns, each thread starts where its first sample is in the profile, so
 * the threads keep their places on one time axis; the heaviest is active.
 */
static void
test_speedscope_times(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cpu-clock", 9), UNIT_NANOSECONDS);
	struct model m;
	char *text;

	(void)state;
	test_sample(ps, p, "a", 1, 100, 10);
	test_sample(ps, p, "b", 5, 150, 11);
	test_sample(ps, p, "b", 2, 160, 11);
	model_init(&m, ps);
	text = export_text(&m, EXPORT_SPEEDSCOPE, NULL, NULL, NULL);
	assert_non_null(strstr(text, "\"name\":\"pid: 1 tid: 10\",\"unit\":\"nanoseconds\","
				     "\"startValue\":0,\"endValue\":1,"));
	assert_non_null(strstr(text, "\"name\":\"pid: 1 tid: 11\",\"unit\":\"nanoseconds\","
				     "\"startValue\":50,\"endValue\":57,"));
	assert_non_null(strstr(text, "\"activeProfileIndex\":1,"));
	free(text);
	check_profile_set(m.ps);
	model_release(&m);
}

/* A lens that maps samples (a transform): every a;b sample to a, x dropped. */
static stack_id
merge_b(void *ctx, size_t i)
{
	const struct profile_set *ps = ctx;
	const struct profile *p = ps->profiles[0];
	stack_id s = p->stack[i];

	if (!strcmp(frame_name(ps, ps->stacks[s].frame), "x"))
		return EXPORT_DROP;
	if (!strcmp(frame_name(ps, ps->stacks[s].frame), "b"))
		return ps->stacks[s].parent;
	return s;
}

static void
test_speedscope_sample_map(void **state)
{
	struct profile_set *ps = two_threads();
	struct export_lens l = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct export_result res;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(out);
	l.ps = ps;
	l.p = ps->profiles[0];
	l.sample_stack = merge_b;
	l.ctx = ps;
	assert_int_equal(export_write(&l, EXPORT_SPEEDSCOPE, NULL, out, &res, &err), 0);
	assert_int_equal(fclose(out), 0);
	/* Thread 11's only sample dropped; a;b became a, in time order. */
	assert_int_equal(res.threads, 1);
	assert_int_equal(res.items, 3);
	assert_non_null(strstr(buf, "\"samples\":[[0,1],[0],[0]],\n\"weights\":[2,1,5]}"));
	free(buf);
	check_profile_set(ps);
	profile_set_free(ps);
}

/* Count the occurrences of needle in s. */
static size_t
count(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void
test_svg(void **state)
{
	struct export_svg_options o = EXPORT_SVG_OPTIONS_INIT;
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "", 0), UNIT_SAMPLES);
	struct export_result res;
	struct model m;
	char *text;

	(void)state;
	/* 1180 px for 20,000: tiny is 0.59 px, zspeck 0.059 px; by name, as flamegraph.pl. */
	test_sample(ps, p, "main;big", 19989, -1, 1);
	test_sample(ps, p, "main;tiny<&>", 10, -1, 1);
	test_sample(ps, p, "main;zspeck", 1, -1, 1);
	model_init(&m, ps);

	/* flamegraph.pl's default minimum width, 0.1 px: tiny stays, zspeck goes. */
	text = export_text(&m, EXPORT_SVG, NULL, &o, &res);
	assert_int_equal(res.items, 4); /* all, main, big, tiny */
	assert_int_equal(res.omitted, 1);
	assert_int_equal(count(text, "<g class=\"f\">"), 4);
	assert_null(strstr(text, "zspeck"));
	/* Titles as flamegraph.pl's: N samples, the root's share 100%. */
	assert_non_null(strstr(text, "<title>tiny&lt;&amp;&gt; (10 samples, 0.05%)</title>"));
	assert_non_null(strstr(text, "<title>main (20,000 samples, 100.00%)</title>"));
	assert_non_null(strstr(text, "<title>all (20,000 samples, 100%)</title>"));
	/* main spans the width between the pads: 1180 px from x = 10. */
	assert_non_null(strstr(text, "<rect x=\"10.0\" y=\"53.0\" width=\"1180.0\""));
	/*
	 * Both edges rounded, the width their difference: big ends at
	 * 1189.351 and tiny at 1189.941, so tiny is 1189.4 to 1189.9, not
	 * 0.6 wide from 1189.4 past big's neighbour's edge.
	 */
	assert_non_null(strstr(text, "<rect x=\"10.0\" y=\"37.0\" width=\"1179.4\""));
	assert_non_null(strstr(text, "<rect x=\"1189.4\" y=\"37.0\" width=\"0.5\""));
	free(text);

	/* 0.1% of the width, as --minwidth=0.1%: tiny goes too. */
	o.minwidth_percent = true;
	text = export_text(&m, EXPORT_SVG, NULL, &o, &res);
	assert_int_equal(res.items, 3);
	assert_int_equal(res.omitted, 2);
	assert_null(strstr(text, "tiny"));
	free(text);

	/* In pixels, and as an icicle: the root's row at the top. */
	o.minwidth = 1;
	o.minwidth_percent = false;
	o.icicle = true;
	text = export_text(&m, EXPORT_SVG, NULL, &o, &res);
	assert_int_equal(res.items, 3);
	assert_non_null(strstr(text, "<title>all (20,000 samples, 100%)</title>"
				     "<rect x=\"10.0\" y=\"36.0\""));
	free(text);
	check_profile_set(m.ps);
	model_release(&m);
}

/*
 * Boxes where flamegraph.pl draws them, which merges its lines sorted
 * by byte order: a box's own weight before its callees, the callees by
 * name, a name followed by the blank before its own count, or else by
 * the ';' before its callees: "pyenv" (a count of its own) before
 * "pyenv-x", "q-x" before "q" (which only calls).
 */
static void
test_svg_order(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "", 0), UNIT_NONE);
	struct model m;
	char *text;

	(void)state;
	test_sample(ps, p, "pyenv", 1, -1, 1);
	test_sample(ps, p, "a;b", 1, -1, 1);
	test_sample(ps, p, "pyenv-x", 1, -1, 1);
	test_sample(ps, p, "a", 1, -1, 1);
	test_sample(ps, p, "q;c", 1, -1, 1);
	test_sample(ps, p, "q-x", 1, -1, 1);
	model_init(&m, ps);
	text = export_text(&m, EXPORT_SVG, NULL, NULL, NULL);
	assert_non_null(strstr(text, "<title>a (2 samples, 33.33%)</title><rect x=\"10.0\""));
	assert_non_null(strstr(text, "<title>b (1 samples, 16.67%)</title><rect x=\"206.7\""));
	assert_non_null(strstr(text, "<title>pyenv (1 samples, 16.67%)</title><rect x=\"403.3\""));
	assert_non_null(strstr(text, "<title>pyenv-x (1 samples, 16.67%)</title><rect x=\"600.0\""));
	assert_non_null(strstr(text, "<title>q-x (1 samples, 16.67%)</title><rect x=\"796.7\""));
	assert_non_null(strstr(text, "<title>q (1 samples, 16.67%)</title><rect x=\"993.3\""));
	free(text);
	check_profile_set(m.ps);
	model_release(&m);
}

/*
 * Names and units in an SVG as flamegraph.pl writes them: annotations
 * stripped, a time's unit once, empty frames at a stack's end dropped
 * (Perl's split) while an empty frame inside is a box.
 */
static void
test_svg_names(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cpu-clock", 9), UNIT_NANOSECONDS);
	struct model m;
	char *text;

	(void)state;
	test_sample(ps, p, "a_[k];b_[j]", 3000000000, -1, 1);
	test_sample(ps, p, "a_[k];c_[i]", 1000000000, -1, 1);
	test_sample(ps, p, "x_[z];;", 1000000000, -1, 1);
	test_sample(ps, p, "x_[z];;y", 500000000, -1, 1);
	model_init(&m, ps);
	text = export_text(&m, EXPORT_SVG, NULL, NULL, NULL);
	assert_non_null(strstr(text, "<title>all (5.50 s, 100%)</title>"));
	assert_non_null(strstr(text, "<title>a (4.00 s, 72.73%)</title>"));
	assert_non_null(strstr(text, ">a</text>"));
	assert_non_null(strstr(text, "<title>b (3.00 s, 54.55%)</title>"));
	assert_non_null(strstr(text, "<title>c (1.00 s, 18.18%)</title>"));
	assert_null(strstr(text, "_[k]"));
	/* Not an annotation: kept. */
	assert_non_null(strstr(text, "<title>x_[z] (1.50 s, 27.27%)</title>"));
	/* x;; is x; the empty frame of x;;y is a box of y's weight. */
	assert_non_null(strstr(text, "<title> (500 ms, 9.09%)</title>"));
	assert_int_equal(count(text, "<title> ("), 1);
	assert_int_equal(count(text, "<g class=\"f\">"), 7);
	free(text);
	check_profile_set(m.ps);
	model_release(&m);
}

static void
test_formats(void **state)
{
	enum export_format f;

	(void)state;
	assert_int_equal(export_format_of_path("out.svg"), EXPORT_SVG);
	assert_int_equal(export_format_of_path("a.b/out.json"), EXPORT_SPEEDSCOPE);
	assert_int_equal(export_format_of_path("out.txt"), EXPORT_FOLDED);
	assert_int_equal(export_format_of_path(NULL), EXPORT_FOLDED);
	for (int i = 0; i < EXPORT_NR_FORMATS; i++) {
		assert_true(export_format_find(export_format_name((enum export_format)i), &f));
		assert_int_equal(f, i);
		assert_int_equal(export_format_of_path(export_format_extension(f)), f);
	}
	assert_false(export_format_find("pdf", &f));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_folded_names),
		cmocka_unit_test(test_speedscope),
		cmocka_unit_test(test_speedscope_times),
		cmocka_unit_test(test_speedscope_sample_map),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_svg_order),
		cmocka_unit_test(test_svg_names),
		cmocka_unit_test(test_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
