#include "config.h"

#include "tflame/import.h"

#define PARSE safari_parse
#include "test_json_import.h"

#define REC(traces, durations) \
	"{\"version\": 1, \"recording\": {\"displayName\": \"R\", \"sampleStackTraces\": [" \
	traces "], \"sampleDurations\": [" durations "]}}"

#define FRAME(name, url, line) \
	"{\"name\": \"" name "\", \"url\": \"" url "\", \"line\": " #line ", \"column\": 1}"

static void
test_recording(void **state)
{
	struct profile_set *ps;
	const struct frame *f;

	(void)state;
	/*
	 * Leaf first; a sample weighs its duration and started that long
	 * before its timestamp; a gap over 2 ms is a sample of no frames, a
	 * shorter one nothing. Anonymous functions are named after their URL.
	 */
	ps = parse(REC("{\"timestamp\": 1.002, \"stackFrames\": [" FRAME("b", "x/a.js", 3) ","
		       FRAME("a", "x/a.js", 1) "]},"
		       "{\"timestamp\": 1.0035, \"stackFrames\": [" FRAME("", "x/a.js", 9) "]},"
		       "{\"stackFrames\": [" FRAME("", "", 2) "], \"timestamp\": 1.0101}",
		       "0.002, 0.001, 0.0001"));
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "R");
	assert_int_equal(ps->profiles[0]->unit, UNIT_NANOSECONDS);
	assert_true(ps->profiles[0]->spans);
	ASSERT_SAMPLES(ps, 0, "a;b 2000000@1000000000|-1\n"
			      "(anonymous a.js:9) 1000000@1002500000|-1\n"
			      " 6500000@1003500000|-1\n"
			      "(anonymous) 100000@1010000000|-1\n");
	f = ps_frame(ps, ps->stacks[ps->profiles[0]->stack[0]].frame);
	assert_string_equal(ps_get(ps, f->file), "x/a.js");
	assert_int_equal(f->line, 3);
	profile_set_free(ps);
}

static void
test_edges(void **state)
{
	struct profile_set *ps;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	/* Durations before the traces; no name: "samples". */
	ps = parse("{\"recording\": {\"sampleDurations\": [0.5], \"sampleStackTraces\":"
		   " [{\"timestamp\": 2, \"stackFrames\": []}]}}");
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "samples");
	ASSERT_SAMPLES(ps, 0, " 500000000@1500000000|-1\n");
	profile_set_free(ps);
	/* No samples. */
	ps = parse(REC("", ""));
	assert_int_equal(ps->profiles[0]->nr_samples, 0);
	profile_set_free(ps);
	/* A deep stack: 20,000 frames. */
	strbuf_addstr(&sb, "{\"recording\": {\"sampleStackTraces\": [{\"timestamp\": 1,"
			   " \"stackFrames\": [");
	for (int i = 0; i < 20000; i++)
		strbuf_addf(&sb, "%s{\"name\": \"f%d\"}", i ? "," : "", i % 3);
	strbuf_addstr(&sb, "]}], \"sampleDurations\": [0.001]}}");
	ps = parse(sb.buf);
	assert_int_equal(ps->stacks[ps->profiles[0]->stack[0]].depth, 20000);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_errors(void **state)
{
	(void)state;
	parse_fails(REC("{\"timestamp\": 1, \"stackFrames\": []}", ""),
		    "1: 1 samples but 0 sample durations");
	parse_fails(REC("{\"stackFrames\": []}", "1"), "1: a sample has no timestamp (at byte 71)");
	parse_fails(REC("{\"timestamp\": \"x\"}", "1"),
		    "1: a timestamp is not a number of seconds (at byte 85)");
	parse_fails("{\"version\": 1}", "1: not a Safari recording: no recording");
	parse_fails("{\"recording\": {}}", "1: not a Safari recording: no recording.sampleStackTraces");
	parse_fails("{\"recording\": {\"sampleStackTraces\": [1]}}",
		    "1: a sample is not an object (at byte 37)");
	parse_fails("{\"recording\": {\"sampleStackTraces\": [{\"stackFrames\": 3}]}}",
		    "1: stackFrames is not an array (at byte 53)");
	parse_fails("{\"recording\": {", "1: unexpected end of input");
}

static void
test_probe(void **state)
{
	static const char *const yes[] = {
		"{\"version\":1,\"recording\":{\"displayName\":\"x\",\"startTime\":1,"
		"\"instrumentTypes\":[\"timeline-record-type-network\"]",
		"{\"recording\": {\"sampleStackTraces\": []}}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		assert_true(importer_safari.probe(yes[i], strlen(yes[i])) >= 60);
		assert_int_equal(importer_chrome.probe(yes[i], strlen(yes[i])), 0);
		assert_int_equal(importer_gecko.probe(yes[i], strlen(yes[i])), 0);
	}
	assert_int_equal(importer_safari.probe("{\"a\": 1}", 8), 0);
	assert_int_equal(importer_safari.probe("{\"recording\": 1}", 16), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recording),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
