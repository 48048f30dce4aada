#include "config.h"

#include "tflame/import.h"

#define PARSE stackprof_parse
#include "test_json_import.h"

/* Three frames of stackprof ids 1, 2 and 3, and "(garbage collection)" as 9. */
#define FRAMES "\"frames\": {\"1\": {\"name\": \"<main>\", \"file\": \"/src/a.rb\", \"line\": 1}," \
	       " \"2\": {\"name\": \"Object#f\", \"file\": \"/src/a.rb\", \"line\": 5}," \
	       " \"3\": {\"name\": \"Integer#times\", \"file\": \"<cfunc>\", \"line\": null}," \
	       " \"9\": {\"name\": \"(garbage collection)\", \"file\": \"\"}}"

static void
test_cpu(void **state)
{
	struct profile_set *ps;
	const struct profile *p;
	const struct frame *f;

	(void)state;
	/*
	 * A stack weighs the deltas of its samples (µs), and lasts from the
	 * sample before: 2 samples of main;f (10 + 20 us), 1 of main;f;times.
	 */
	ps = parse("{\"version\": 1.2, \"mode\": \"cpu\", \"interval\": 1000, " FRAMES ","
		   " \"raw\": [2, 1, 2, 2, 3, 1, 2, 3, 1],"
		   " \"raw_timestamp_deltas\": [10, 20, 5]}");
	assert_int_equal(ps->nr_profiles, 1);
	p = ps->profiles[0];
	assert_string_equal(ps_get(ps, p->name), "cpu");
	assert_int_equal(p->unit, UNIT_NANOSECONDS);
	assert_true(p->spans);
	ASSERT_SAMPLES(ps, 0, "<main>;Object#f 30000@0|-1\n"
			      "<main>;Object#f;Integer#times 5000@30000|-1\n");
	assert_int_equal(p->total_weight, 35000);
	f = ps_frame(ps, ps->stacks[p->stack[0]].frame);
	assert_string_equal(ps_get(ps, f->file), "/src/a.rb");
	assert_true(f->flags & FRAME_HAS_LINE);
	assert_int_equal(f->line, 5);
	/* <cfunc> is the file stackprof gives, "line": null none. */
	f = ps_frame(ps, ps->stacks[p->stack[1]].frame);
	assert_string_equal(ps_get(ps, f->file), "<cfunc>");
	assert_false(f->flags & FRAME_HAS_LINE);
	assert_int_equal(ps->nr_diags, 0);
	profile_set_free(ps);
}

static void
test_object(void **state)
{
	struct profile_set *ps;

	(void)state;
	/* Objects: a stack weighs its count; the deltas say nothing of it. */
	ps = parse("{\"mode\": \"object\", \"interval\": 1, " FRAMES ","
		   " \"raw\": [2, 1, 2, 7, 1, 1, 3], \"raw_timestamp_deltas\": [1, 1, 1]}");
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "object");
	assert_int_equal(ps->profiles[0]->unit, UNIT_OBJECTS);
	assert_false(ps->profiles[0]->has_time);
	ASSERT_SAMPLES(ps, 0, "<main>;Object#f 7@-|-1\n<main> 3@-|-1\n");
	profile_set_free(ps);
}

static void
test_gc(void **state)
{
	struct profile_set *ps;

	(void)state;
	/*
	 * The lone GC frame goes on top of the stack before it, which a
	 * second GC stack then lengthens again (speedscope does the same);
	 * GC first has nothing under it, and GC under other frames (newer
	 * stackprof's "(marking)") is a stack like any other.
	 */
	ps = parse("{\"mode\": \"wall\", " FRAMES ","
		   " \"raw\": [1, 9, 1, 2, 1, 2, 1, 1, 9, 1, 1, 9, 1, 2, 9, 3, 1],"
		   " \"raw_timestamp_deltas\": [1, 2, 3, 4, 5]}");
	ASSERT_SAMPLES(ps, 0, "(garbage collection) 1000@0|-1\n"
			      "<main>;Object#f 2000@1000|-1\n"
			      "<main>;Object#f;(garbage collection) 3000@3000|-1\n"
			      "<main>;Object#f;(garbage collection);(garbage collection) 4000@6000|-1\n"
			      "(garbage collection);Integer#times 5000@10000|-1\n");
	profile_set_free(ps);
}

static void
test_edges(void **state)
{
	struct profile_set *ps;
	char errbuf[256];

	(void)state;
	/* Frames after raw; a frame without a name; no deltas: the interval. */
	ps = parse("{\"mode\": \"cpu\", \"interval\": 250, \"raw\": [1, 7, 4],"
		   " \"frames\": {\"7\": {\"file\": \"<cfunc>\"}}}");
	ASSERT_SAMPLES(ps, 0, "[unknown] 1000000@-|-1\n");
	assert_int_equal(ps->nr_diags, 1);
	assert_string_equal(ps->diags[0].msg,
			    "no raw_timestamp_deltas: every sample weighs the interval (250 us)");
	profile_set_free(ps);

	/* Empty: no samples, which import_file() reports. */
	ps = parse("{\"mode\": \"cpu\", \"frames\": {}, \"raw\": [], \"raw_timestamp_deltas\": []}");
	assert_int_equal(ps->profiles[0]->nr_samples, 0);
	profile_set_free(ps);

	/* A stack of no frames is the root; a negative delta counts as 0. */
	ps = parse("{\"mode\": \"wall\", \"frames\": {}, \"raw\": [0, 2],"
		   " \"raw_timestamp_deltas\": [-5, 7]}");
	ASSERT_SAMPLES(ps, 0, " 7000@0|-1\n");
	assert_string_equal(ps->diags[0].msg, "1 raw_timestamp_deltas below 0 counted as 0");
	profile_set_free(ps);

	/* --max-samples stops early. */
	{
		struct import_options opts = { .max_samples = 1 };

		ps = try_parse("{\"mode\": \"object\", " FRAMES ", \"raw\": [1, 1, 1, 1, 2, 1]}",
			       &opts, errbuf, sizeof(errbuf));
		assert_non_null(ps);
		ASSERT_SAMPLES(ps, 0, "<main> 1@-|-1\n");
		profile_set_free(ps);
	}
}

static void
test_deep(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;

	(void)state;
	/* A stack of 20,000 frames: no recursion anywhere. */
	strbuf_addstr(&sb, "{\"mode\": \"object\", " FRAMES ", \"raw\": [20000");
	for (int i = 0; i < 20000; i++)
		strbuf_addstr(&sb, i % 2 ? ", 2" : ", 1");
	strbuf_addstr(&sb, ", 3]}");
	ps = parse(sb.buf);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 1);
	assert_int_equal(p->weight[0], 3);
	assert_int_equal(ps->stacks[p->stack[0]].depth, 20000);
	assert_string_equal(frame_name(ps, ps->stacks[p->stack[0]].frame), "Object#f");
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_errors(void **state)
{
	(void)state;
	parse_fails("", "1: empty document (at byte 0)");
	parse_fails("[1]", "1: not a stackprof profile: expected an object (at byte 0)");
	parse_fails("{\"mode\": \"cpu\", \"frames\": {\"x\": {}}}",
		    "1: frame id 'x' is not a number (at byte 27)");
	parse_fails("{\"mode\": \"cpu\", \"frames\": {\"1\": 5}}",
		    "1: frame 1 is not an object (at byte 32)");
	parse_fails("{\"mode\": \"cpu\",\n \"raw\": [1, 2,\n \"x\"]}",
		    "3: raw: not a number (at byte 32)");
	parse_fails("{\"mode\": \"cpu\", \"raw\": [1, -2, 1]}",
		    "1: raw: '-2' is not a count or frame id (at byte 27)");
	parse_fails("{\"mode\": \"cpu\", \"raw\": 5}", "1: raw has the wrong type (at byte 23)");
	/* Bad indexes in raw name where raw begins. */
	parse_fails("{\"mode\": \"object\", " FRAMES ",\n \"raw\": [1, 1, 1, 1, 5, 1]}",
		    "2: raw[4]: frame 5 is not in frames (raw begins at byte 271)");
	parse_fails("{\"mode\": \"object\", " FRAMES ",\n \"raw\": [1, 1, 1, 3, 1, 2]}",
		    "2: raw[3]: the stack and its count run past the end of raw "
		    "(raw begins at byte 271)");
	parse_fails("{\"mode\": \"cpu\", " FRAMES ",\n \"raw\": [1, 1, 3],"
		    " \"raw_timestamp_deltas\": [1, 2]}",
		    "2: raw[0]: more samples than raw_timestamp_deltas (raw begins at byte 268)");
	parse_fails("{\"mode\": \"cpu\", \"raw\": [0, 1]}",
		    "0: no raw_timestamp_deltas and no interval: the samples have no weight");
	parse_fails("{\"mode\": \"cpu\", \"raw\": [0, 1]", "1: unexpected end of input");
}

static void
test_probe(void **state)
{
	static const char *const yes[] = {
		"{\"version\":1.2,\"mode\":\"cpu\",\"interval\":1000,\"samples\":3,\"frames\":{",
		"\xef\xbb\xbf {\"mode\": \"object\", \"raw\": [], \"frames\": {}}",
	};
	static const char *const no[] = {
		"{\"frames\": [], \"mode\": \"x\"",       /* half the keys: weak */
		"[{\"mode\": 1, \"frames\": 2, \"raw\": 3}]",
		"{\"shared\": {\"frames\": []}, \"profiles\": []}",
		"mode frames raw",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_int_equal(importer_stackprof.probe(yes[i], strlen(yes[i])), 95);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_true(importer_stackprof.probe(no[i], strlen(no[i])) < 50);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu),
		cmocka_unit_test(test_object),
		cmocka_unit_test(test_gc),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
