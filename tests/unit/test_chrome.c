#include "config.h"

#include "tflame/import.h"

#define PARSE chrome_parse
#include "test_json_import.h"

static void
test_cpuprofile(void **state)
{
	struct profile_set *ps;
	const struct frame *f;

	(void)state;
	/* Children lists give parents; deltas in µs, one negative. */
	ps = parse("{\"nodes\": ["
		   "{\"id\": 1, \"callFrame\": {\"functionName\": \"(root)\", \"url\": \"\","
		   " \"lineNumber\": -1}, \"children\": [2]},"
		   "{\"id\": 2, \"callFrame\": {\"functionName\": \"\", \"url\": \"file:///a.js\","
		   " \"lineNumber\": 0}, \"children\": [3]},"
		   "{\"id\": 3, \"callFrame\": {\"functionName\": \"f\", \"url\": \"file:///a.js\","
		   " \"lineNumber\": 9}}],"
		   " \"startTime\": 1000, \"endTime\": 1100, \"samples\": [3, 2, 3],"
		   " \"timeDeltas\": [10, 50, -20]}");
	assert_int_equal(ps->nr_profiles, 1);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "cpu");
	assert_int_equal(ps->profiles[0]->unit, UNIT_NANOSECONDS);
	/*
	 * (root) is left out; a sample lasts until the next, the last not at
	 * all (speedscope's weights). The time that went back stays at 1060
	 * until the deltas pass it again, so nothing is counted twice.
	 */
	ASSERT_SAMPLES(ps, 0, "(anonymous) a.js:1;f 50000@1010000|-1\n"
			      "(anonymous) a.js:1 0@1060000|-1\n"
			      "(anonymous) a.js:1;f 0@1060000|-1\n");
	assert_true(ps->profiles[0]->spans);
	assert_int_equal(ps->profiles[0]->time_max, 1060000);
	f = ps_frame(ps, ps->stacks[ps->profiles[0]->stack[0]].frame);
	assert_string_equal(ps_get(ps, f->name), "f");
	assert_string_equal(ps_get(ps, f->file), "file:///a.js");
	assert_string_equal(ps_get(ps, f->module), "a.js");
	assert_int_equal(f->line, 10);
	profile_set_free(ps);
}

/* The name, module and frame of the leaf of sample i of the first profile. */
static const struct frame *
leaf(const struct profile_set *ps, size_t i)
{
	return ps_frame(ps, ps->stacks[ps->profiles[0]->stack[i]].frame);
}

/* One sample of each node id, a microsecond apart. */
#define NODE(id, name, url, line, col)                                                     \
	"{\"id\": " #id ", \"callFrame\": {\"functionName\": \"" name "\", \"url\": \"" url      \
	"\", \"lineNumber\": " #line ", \"columnNumber\": " #col "}}"

static void
test_js_functions(void **state)
{
	static const char *const want[][2] = {
		{ "(anonymous) app.js:1:1", "app.js" },
		{ "(anonymous) app.js:7:28", "app.js" },
		{ "(anonymous) app.js:26:20", "app.js" },
		{ "(anonymous) app.js:26:70", "app.js" },
		{ "sortRows", "app.js" },
		{ "get app.js:3:5", "app.js" },
		{ "get app.js:9:5", "app.js" },
		{ "get", "lodash/index.js" },
		{ "(anonymous) index.js:1:1", "lodash/index.js" },
		{ "(anonymous) readable:1:1", "node:internal/streams/readable" },
		{ "(anonymous)", "" },
		{ "(program)", "" },
	};
	struct profile_set *ps;

	(void)state;
	/*
	 * Every anonymous function is one of its own, told by its position
	 * (two arrows of one line by their columns); a named one keeps its
	 * name unless another of its name and module lies elsewhere.
	 */
	ps = parse("{\"nodes\": ["
		   NODE(1, "", "file:///srv/app.js", 0, 0) ","
		   NODE(2, "", "file:///srv/app.js", 6, 27) ","
		   NODE(3, "", "file:///srv/app.js", 25, 19) ","
		   NODE(4, "", "file:///srv/app.js", 25, 69) ","
		   NODE(5, "sortRows", "file:///srv/app.js", 4, 17) ","
		   NODE(6, "get", "file:///srv/app.js", 2, 4) ","
		   NODE(7, "get", "file:///srv/app.js", 8, 4) ","
		   NODE(8, "get", "file:///srv/node_modules/lodash/index.js", 40, 2) ","
		   NODE(9, "", "file:///srv/node_modules/lodash/index.js", 0, 0) ","
		   NODE(10, "", "node:internal/streams/readable", 0, 0) ","
		   NODE(11, "", "", -1, -1) ","
		   NODE(12, "(program)", "", -1, -1) "],"
		   " \"samples\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],"
		   " \"timeDeltas\": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]}");
	assert_int_equal(ps->profiles[0]->nr_samples, 12);
	for (size_t i = 0; i < 12; i++) {
		const struct frame *f = leaf(ps, i);

		if (strcmp(ps_get(ps, f->module), want[i][1]))
			fail_msg("sample %zu: module %s, not %s", i, ps_get(ps, f->module), want[i][1]);
		if (strcmp(ps_get(ps, f->name), want[i][0]))
			fail_msg("sample %zu: name %s, not %s", i, ps_get(ps, f->name), want[i][0]);
	}
	/* Twelve call frames, twelve frames: none merged. */
	assert_int_equal(ps->nr_frames, 12);
	profile_set_free(ps);
}

static void
test_position_ticks(void **state)
{
	const struct profile *p;
	struct profile_set *ps;
	uint32_t at[40] = { 0 };

	(void)state;
	/*
	 * f (line 5) was sampled 4 times: 3 at line 7, 1 at line 6; g has no
	 * ticks. Each sample of f is at one of those lines, as many at each
	 * as the ticks say, the one at 6 not last; its caller g at g's line.
	 */
	ps = parse("{\"nodes\": ["
		   "{\"id\": 1, \"callFrame\": {\"functionName\": \"g\", \"url\": \"file:///a.js\","
		   " \"lineNumber\": 19, \"columnNumber\": 0}, \"children\": [2]},"
		   "{\"id\": 2, \"callFrame\": {\"functionName\": \"f\", \"url\": \"file:///a.js\","
		   " \"lineNumber\": 4, \"columnNumber\": 0}, \"hitCount\": 4,"
		   " \"positionTicks\": [{\"line\": 7, \"ticks\": 3}, {\"line\": 6, \"ticks\": 1},"
		   " {\"line\": 0, \"ticks\": 9}, {\"ticks\": 2}]}],"
		   " \"samples\": [2, 2, 1, 2, 2], \"timeDeltas\": [1, 1, 1, 1, 1]}");
	p = ps->profiles[0];
	assert_non_null(p->src);
	assert_int_equal(p->nr_samples, 5);
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct src_node *n = &ps->srcs[p->src[i]];

		if (i == 2) {
			/* g has no ticks: no recorded position, its frame's own line serves */
			assert_int_equal(p->src[i], SRC_ROOT);
			continue;
		}
		assert_int_not_equal(p->src[i], SRC_ROOT);
		assert_int_equal(n->stack, p->stack[i]);
		assert_string_equal(ps_get(ps, n->file), "file:///a.js");
		at[n->line]++;
		assert_int_equal(ps->srcs[n->parent].line, 20);
		assert_int_equal(ps->srcs[ps->srcs[n->parent].parent].stack, STACK_ROOT);
	}
	assert_int_equal(at[7], 3);
	assert_int_equal(at[6], 1);
	/* Spread, not in a block: 7, 7, 6, 7. */
	assert_int_equal(ps->srcs[p->src[3]].line, 6);
	assert_int_equal(ps->srcs[p->src[4]].line, 7);
	profile_set_free(ps);
}

static void
test_old_cpuprofile(void **state)
{
	struct profile_set *ps;

	(void)state;
	ps = parse("{\"head\": {\"functionName\": \"(root)\", \"hitCount\": 0, \"children\": ["
		   "{\"callFrame\": {\"functionName\": \"m\", \"url\": \"m.js\", \"lineNumber\": 4},"
		   " \"hitCount\": 2, \"children\": [{\"functionName\": \"g\", \"hitCount\": 1,"
		   " \"children\": []}]},"
		   "{\"functionName\": \"h\", \"hitCount\": 1}]}}");
	assert_int_equal(ps->profiles[0]->unit, UNIT_SAMPLES);
	ASSERT_SAMPLES(ps, 0, "m 1@-|-1\nm 1@-|-1\nm;g 1@-|-1\nh 1@-|-1\n");
	profile_set_free(ps);

	/*
	 * With samples and timestamps (absolute µs; startTime in seconds):
	 * timed as the new form is. Samples name nodes by the file's ids,
	 * written after the children as V8 wrote them, in no tree order.
	 * Node 10 wrote a timestamp more, which speedscope does not read.
	 */
	for (int extra = 0; extra < 2; extra++) {
		char text[1024];

		snprintf(text, sizeof(text),
			 "{\"head\": {\"functionName\": \"(root)\", \"children\": ["
			 "{\"functionName\": \"m\", \"children\": ["
			 "{\"functionName\": \"g\", \"children\": [], \"id\": 3}], \"id\": 7},"
			 "{\"functionName\": \"h\", \"children\": [], \"id\": 2}], \"id\": 5},"
			 " \"startTime\": 12.5, \"endTime\": 12.6, \"samples\": [3, 7, 2, 2],"
			 " \"timestamps\": [12500010, 12500030, 12500030.5, 12500100%s]}",
			 extra ? ", 12500200" : "");
		ps = parse(text);
		assert_int_equal(ps->profiles[0]->unit, UNIT_NANOSECONDS);
		ASSERT_SAMPLES(ps, 0, "m;g 20000@12500010000|-1\nm 500@12500030000|-1\n"
				      "h 69500@12500030500|-1\nh 0@12500100000|-1\n");
		profile_set_free(ps);
	}
	/* Two timestamps more: not one a sample, so counted. */
	ps = parse("{\"head\": {\"functionName\": \"(root)\", \"children\": ["
		   "{\"functionName\": \"m\", \"children\": [], \"id\": 2}], \"id\": 1},"
		   " \"samples\": [2], \"timestamps\": [10, 20, 30]}");
	assert_int_equal(ps->profiles[0]->unit, UNIT_SAMPLES);
	ASSERT_SAMPLES(ps, 0, "m 1@-|-1\n");
	profile_set_free(ps);
}

static void
test_trace_nesting(void **state)
{
	struct profile_set *ps;

	(void)state;
	/* X after its children, string ts/tid, E without a name, two threads. */
	ps = parse("{\"traceEvents\": ["
		   "{\"ph\": \"X\", \"name\": \"c\", \"ts\": 2, \"dur\": 1, \"pid\": 1, \"tid\": 1},"
		   "{\"ph\": \"X\", \"name\": \"p\", \"ts\": \"1\", \"dur\": 4.5, \"pid\": 1, \"tid\": \"1\"},"
		   "{\"ph\": \"B\", \"name\": \"q\", \"ts\": 0, \"pid\": 1, \"tid\": 2},"
		   "{\"ph\": \"E\", \"ts\": 3, \"pid\": 1, \"tid\": 2},"
		   "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 2,"
		   " \"args\": {\"name\": \"w\"}},"
		   "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"args\": {\"name\": \"app\"}}"
		   "]}");
	ASSERT_SAMPLES(ps, 0, "p 1000@1000|1\np;c 1000@2000|1\np 2500@3000|1\nq 3000@0|2\n");
	/* Events last: the time range ends where p ends, not where it began. */
	assert_true(ps->profiles[0]->spans);
	assert_int_equal(ps->profiles[0]->time_max, 5500);
	assert_string_equal(ps_get(ps, ps->threads[ps->profiles[0]->thread[3]].comm), "w");
	assert_string_equal(ps_get(ps, ps->threads[ps->profiles[0]->thread[0]].comm), "app");
	profile_set_free(ps);

	/* An E closes the innermost B of its name, and the Bs above it. */
	ps = parse("[{\"ph\": \"B\", \"name\": \"a\", \"ts\": 0},"
		   "{\"ph\": \"B\", \"name\": \"b\", \"ts\": 1},"
		   "{\"ph\": \"E\", \"name\": \"a\", \"ts\": 2},"
		   "{\"ph\": \"E\", \"name\": \"zz\", \"ts\": 3},"
		   "{\"ph\": \"X\", \"name\": \"x\", \"ts\": 4, \"dur\": 2},"
		   "{\"ph\": \"X\", \"name\": \"y\", \"ts\": 5, \"dur\": 5}]");
	ASSERT_SAMPLES(ps, 0, "a 1000@0|-1\na;b 1000@1000|-1\nx 1000@4000|-1\nx;y 1000@5000|-1\n");
	assert_int_equal(ps->nr_diags, 2); /* the unmatched E, the cut y */
	profile_set_free(ps);
}

static void
test_truncated(void **state)
{
	struct profile_set *ps;

	(void)state;
	ps = parse("[{\"ph\": \"X\", \"name\": \"a\", \"ts\": 0, \"dur\": 5},\n"
		   "{\"ph\": \"X\", \"name\": \"b\", \"ts\": 1, \"dur\": 1},\n"
		   "{\"ph\": \"X\", \"name\": \"c\", \"ts\": 3, \"du");
	ASSERT_SAMPLES(ps, 0, "a 1000@0|-1\na;b 1000@1000|-1\na 3000@2000|-1\n");
	assert_int_equal(ps->nr_diags, 1);
	assert_non_null(strstr(ps->diags[0].msg, "cut off"));
	profile_set_free(ps);

	ps = parse("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"ts\": 0, \"dur\": 5},");
	ASSERT_SAMPLES(ps, 0, "a 5000@0|-1\n");
	profile_set_free(ps);
}

static void
test_profile_chunks(void **state)
{
	struct profile_set *ps;

	(void)state;
	ps = parse("{\"traceEvents\": ["
		   "{\"ph\": \"P\", \"name\": \"Profile\", \"id\": \"0x1\", \"pid\": 1, \"tid\": 5,"
		   " \"ts\": 100, \"args\": {\"data\": {\"startTime\": 100}}},"
		   "{\"ph\": \"P\", \"name\": \"ProfileChunk\", \"id\": \"0x1\", \"pid\": 1, \"tid\": 6,"
		   " \"ts\": 200, \"args\": {\"data\": {\"cpuProfile\": {\"nodes\": ["
		   "{\"id\": 1, \"callFrame\": {\"functionName\": \"(root)\"}},"
		   "{\"id\": 2, \"parent\": 1, \"callFrame\": {\"functionName\": \"f\"}}],"
		   " \"samples\": [2]}, \"timeDeltas\": [10]}}},"
		   "{\"ph\": \"P\", \"name\": \"ProfileChunk\", \"id\": \"0x1\", \"pid\": 1, \"tid\": 6,"
		   " \"ts\": 300, \"args\": {\"data\": {\"cpuProfile\": {\"nodes\": ["
		   "{\"id\": 3, \"parent\": 2, \"callFrame\": {\"functionName\": \"g\"}}],"
		   " \"samples\": [3, 99]}, \"timeDeltas\": [5, 5]}}}]}");
	/* One profile from both chunks; node 99 is unknown and skipped. */
	ASSERT_SAMPLES(ps, 0, "f 5000@110000|5\nf;g 5000@115000|5\n");
	assert_int_equal(ps->nr_diags, 1);
	profile_set_free(ps);
}

static void
test_sampled_trace(void **state)
{
	struct profile_set *ps;

	(void)state;
	ps = parse("{\"traceEvents\": [], \"samples\": ["
		   "{\"ts\": \"10\", \"tid\": \"3\", \"sf\": 2, \"weight\": \"2\"},"
		   "{\"ts\": 11, \"tid\": 3, \"sf\": 1}],"
		   " \"stackFrames\": {\"1\": {\"name\": \"root\"}, \"2\": {\"name\": \"leaf\", \"parent\": 1}}}");
	ASSERT_SAMPLES(ps, 0, "root;leaf 2@10000|3\nroot 1@11000|3\n");
	profile_set_free(ps);
}

static void
test_errors(void **state)
{
	(void)state;
	parse_fails("{\"head\": {\"callFrame\": {\"functionName\": \"(root)\"}, \"selfSize\": 0,"
		    " \"children\": []}}",
		    "0: a heap profile (.heapprofile), not a CPU profile: --format=heapprofile "
		    "reads it");
	parse_fails("{\"nodes\": [{\"id\": 1}], \"samples\": [1], \"timeDeltas\": [1]",
		    "1: unexpected end of input");
	parse_fails("[{\"ph\": \"X\"} {}]", "1: expected ',' or ']' (at byte 13)");
	parse_fails("\"x\"", "1: not a Chrome or Node profile: expected an array or an object "
			     "(at byte 0)");
}

static void
test_deep_old_form(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char errbuf[256];
	struct profile_set *ps;

	(void)state;
	/* Nested beyond the reader's depth limit: a clear error, no crash. */
	for (int i = 0; i < 2000; i++)
		strbuf_addstr(&sb, i ? ",\"children\":[{\"functionName\":\"f\"" : "{\"head\":{\"hitCount\":1");
	ps = try_parse(sb.buf, NULL, errbuf, sizeof(errbuf));
	assert_null(ps);
	if (!strstr(errbuf, "nested deeper than 1000 levels"))
		fail_msg("%s", errbuf);
	strbuf_release(&sb);
}

static void
test_probe(void **state)
{
	static const char *const yes[] = {
		"{\"nodes\": [{\"id\": 1, \"callFrame\": {}}]}",
		"{\"head\": {\"functionName\": \"(root)\"}}",
		"[{\"ph\": \"B\", \"ts\": 0}]",
		"  [\n{\"pid\": 1, \"ts\": 0, \"name\": \"a\"}",
		"{\"traceEvents\": []}",
		"{\"samples\": [], \"stackFrames\": {}}",
	};
	static const char *const no[] = {
		"{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\"}",
		"main;a;b 12\n",
		"[1, 2, 3]",
		"{\"a\": 1}",
		"",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		assert_true(importer_chrome.probe(yes[i], strlen(yes[i])) >= 60);
		assert_true(importer_folded.probe(yes[i], strlen(yes[i])) < 20);
		assert_int_equal(importer_perf.probe(yes[i], strlen(yes[i])), 0);
		assert_int_equal(importer_speedscope.probe(yes[i], strlen(yes[i])), 0);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(importer_chrome.probe(no[i], strlen(no[i])), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuprofile),
		cmocka_unit_test(test_js_functions),
		cmocka_unit_test(test_position_ticks),
		cmocka_unit_test(test_old_cpuprofile),
		cmocka_unit_test(test_trace_nesting),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_profile_chunks),
		cmocka_unit_test(test_sampled_trace),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_deep_old_form),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
