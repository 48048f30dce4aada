#include "config.h"

#include "tflame/import.h"

#define PARSE gecko_parse
#include "test_json_import.h"

/* A raw thread of one table each, strings given. */
#define RAW_THREAD(samples, stacks, frames, strings) \
	"{\"name\": \"T\", \"tid\": 7, \"pid\": 5," \
	" \"samples\": {\"schema\": {\"stack\": 0, \"time\": 1}, \"data\": [" samples "]}," \
	" \"stackTable\": {\"schema\": {\"prefix\": 0, \"frame\": 1}, \"data\": [" stacks "]}," \
	" \"frameTable\": {\"schema\": {\"location\": 0, \"category\": 1}, \"data\": [" frames "]}," \
	" \"stringTable\": [" strings "]}"

#define RAW(threads) \
	"{\"meta\": {\"version\": 24, \"startTime\": 1000, \"categories\": [" \
	"{\"name\": \"User\"}, {\"name\": \"GC / CC\"}]}, \"threads\": [" threads "]}"

static void
test_raw(void **state)
{
	struct profile_set *ps;
	const struct frame *f;

	(void)state;
	ps = parse(RAW(RAW_THREAD("[1, 1.5], [2, 2.25], [null, 3], [0, 4]",
				  "[null, 0], [0, 1], [1, 2]",
				  "[0, 0], [1], [2, 1]",
				  "\"main (in app)\", \"f (https://x/a.js:12:3)\", \"0x10\"")));
	assert_int_equal(ps->nr_profiles, 1);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "samples");
	assert_int_equal(ps->profiles[0]->unit, UNIT_SAMPLES);
	/* Times in ns; the sample with no stack counts nowhere. */
	ASSERT_SAMPLES(ps, 0, "main;f 1@1500000|7\nmain;f;0x10 1@2250000|7\nmain 1@4000000|7\n");
	/* "(in lib)": the library is the module. */
	f = ps_frame(ps, ps->stacks[ps->profiles[0]->stack[2]].frame);
	assert_string_equal(ps_get(ps, f->name), "main");
	assert_string_equal(ps_get(ps, f->module), "app");
	/* JS: file and line; no category of its own, its caller's. */
	f = ps_frame(ps, ps->stacks[ps->profiles[0]->stack[0]].frame);
	assert_string_equal(ps_get(ps, f->name), "f");
	assert_string_equal(ps_get(ps, f->file), "https://x/a.js");
	assert_int_equal(f->line, 12);
	assert_true(f->flags & FRAME_HAS_LINE);
	assert_string_equal(ps_get(ps, f->module), "User");
	/* A category with a slash, which would read as a path. */
	f = ps_frame(ps, ps->stacks[ps->profiles[0]->stack[1]].frame);
	assert_string_equal(ps_get(ps, f->module), "GC & CC");
	assert_int_equal(ps->threads[ps->profiles[0]->thread[0]].pid, 5);
	assert_string_equal(ps_get(ps, ps->threads[ps->profiles[0]->thread[0]].comm), "T");
	profile_set_free(ps);
}

static void
test_processes(void **state)
{
	struct profile_set *ps;

	(void)state;
	/*
	 * A child process 2 ms later, its child 1 ms after that; sample
	 * times are from each one's own start. A process given as JSON text
	 * (old Gecko) is skipped with a warning.
	 */
	ps = parse("{\"meta\": {\"startTime\": 10}, \"threads\": [],"
		   " \"processes\": [{\"meta\": {\"startTime\": 12}, \"threads\": ["
		   RAW_THREAD("[0, 1]", "[null, 0]", "[0]", "\"a\"") "],"
		   " \"processes\": [{\"meta\": {\"startTime\": 13}, \"threads\": ["
		   RAW_THREAD("[0, 1]", "[null, 0]", "[0]", "\"b\"") "]}, \"{}\"]},"
		   " {\"threads\": [], \"meta\": {}}]}");
	ASSERT_SAMPLES(ps, 0, "a 1@3000000|7\nb 1@4000000|7\n");
	assert_int_equal(ps->nr_diags, 1);
	assert_non_null(strstr(ps->diags[0].msg, "1 process given as JSON text"));
	profile_set_free(ps);

	/* A thread given as JSON text is read; an error in it says so. */
	ps = parse("{\"meta\": {}, \"threads\": [\"{\\\"name\\\": \\\"S\\\","
		   " \\\"samples\\\": {\\\"schema\\\": {\\\"stack\\\": 0}, \\\"data\\\": [[0]]},"
		   " \\\"stackTable\\\": {\\\"schema\\\": {\\\"frame\\\": 0}, \\\"data\\\": [[0]]},"
		   " \\\"frameTable\\\": {\\\"schema\\\": {\\\"location\\\": 0}, \\\"data\\\": [[0]]},"
		   " \\\"stringTable\\\": [\\\"s\\\"]}\"]}");
	ASSERT_SAMPLES(ps, 0, "s 1@-|-1\n");
	profile_set_free(ps);
	parse_fails("{\"meta\": {}, \"threads\": [\"[1]\"]}",
		    "1: in a thread given as JSON text: a thread is not an object (at byte 0)");
}

static void
test_processed(void **state)
{
	struct profile_set *ps;
	const struct frame *f;

	(void)state;
	/*
	 * Columns, strings in shared after the threads, timeDeltas, byte
	 * weights; a function's resource names its module.
	 */
	ps = parse("{\"meta\": {\"startTime\": 0, \"preprocessedProfileVersion\": 50,"
		   " \"categories\": [{\"name\": \"Other\"}, {\"name\": \"Python\"}]},"
		   " \"threads\": [{\"name\": \"W\", \"pid\": \"12\", \"tid\": 13,"
		   " \"samples\": {\"stack\": [1, 0, 1], \"timeDeltas\": [1, 0.5, 0.25],"
		   "  \"weight\": [100, 20, 3], \"weightType\": \"bytes\", \"length\": 3},"
		   " \"stackTable\": {\"frame\": [0, 1], \"prefix\": [null, 0],"
		   "  \"category\": [1, 1], \"length\": 2},"
		   " \"frameTable\": {\"func\": [0, 1], \"line\": [null, 9], \"category\": [1, null]},"
		   " \"funcTable\": {\"name\": [0, 1], \"fileName\": [2, null], \"lineNumber\": [3, null],"
		   "  \"resource\": [0, -1]},"
		   " \"resourceTable\": {\"name\": [2], \"type\": [1]}}],"
		   " \"shared\": {\"stringArray\": [\"main\", \"\", \"m.py\"]}}");
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "bytes");
	assert_int_equal(ps->profiles[0]->unit, UNIT_BYTES);
	ASSERT_SAMPLES(ps, 0, "main;(anonymous) 100@1000000|13\nmain 20@1500000|13\n"
			      "main;(anonymous) 3@1750000|13\n");
	f = ps_frame(ps, ps->stacks[ps->stacks[ps->profiles[0]->stack[0]].parent].frame);
	assert_string_equal(ps_get(ps, f->module), "m.py");
	assert_string_equal(ps_get(ps, f->file), "m.py");
	assert_int_equal(f->line, 3);
	/* No resource: the stack's category. */
	f = ps_frame(ps, ps->stacks[ps->profiles[0]->stack[0]].frame);
	assert_string_equal(ps_get(ps, f->module), "Python");
	assert_int_equal(f->line, 9);
	assert_int_equal(ps->threads[ps->profiles[0]->thread[0]].pid, 12);
	profile_set_free(ps);

	/* tracing-ms weights are times. */
	ps = parse("{\"meta\": {\"startTime\": 0}, \"threads\": [{\"name\": \"W\","
		   " \"samples\": {\"stack\": [0], \"time\": [2], \"weight\": [1.5],"
		   "  \"weightType\": \"tracing-ms\"},"
		   " \"stackTable\": {\"frame\": [0], \"prefix\": [null]},"
		   " \"frameTable\": {\"func\": [0]}, \"funcTable\": {\"name\": [0]},"
		   " \"stringArray\": [\"x\"]}]}");
	assert_int_equal(ps->profiles[0]->unit, UNIT_NANOSECONDS);
	ASSERT_SAMPLES(ps, 0, "x 1500000@2000000|-1\n");
	profile_set_free(ps);
}

static void
test_allocations(void **state)
{
	struct profile_set *ps;
	struct profile *p;

	(void)state;
	/*
	 * Native allocations (raw, "size"; a deallocation left out) and JS
	 * allocations (processed, "weight"): bytes, each a profile of its
	 * own, beside the samples.
	 */
	ps = parse("{\"meta\": {\"startTime\": 0}, \"threads\": [{\"name\": \"A\", \"tid\": 3,"
		   " \"samples\": {\"schema\": {\"stack\": 0, \"time\": 1}, \"data\": [[1, 1]]},"
		   " \"nativeAllocations\": {\"schema\": {\"time\": 0, \"size\": 1, \"stack\": 2},"
		   "  \"data\": [[1.5, 4096, 1], [2, -4096, 1], [2.5, 16, 0], [3, 8, null]]},"
		   " \"jsAllocations\": {\"time\": [4], \"weight\": [48], \"stack\": [1],"
		   "  \"weightType\": \"bytes\", \"length\": 1},"
		   " \"stackTable\": {\"schema\": {\"prefix\": 0, \"frame\": 1}, \"data\": [[null, 0], [0, 1]]},"
		   " \"frameTable\": {\"schema\": {\"location\": 0}, \"data\": [[0], [1]]},"
		   " \"stringTable\": [\"main\", \"malloc\"]}]}");
	assert_int_equal(ps->nr_profiles, 3);
	ASSERT_SAMPLES(ps, 0, "main;malloc 1@1000000|3\n");
	p = profile_set_find_profile(ps, "native allocations");
	assert_non_null(p);
	assert_int_equal(p->unit, UNIT_BYTES);
	ASSERT_SAMPLES(ps, 1, "main;malloc 4096@1500000|3\nmain 16@2500000|3\n");
	p = profile_set_find_profile(ps, "JS allocations");
	assert_non_null(p);
	assert_int_equal(p->unit, UNIT_BYTES);
	ASSERT_SAMPLES(ps, 2, "main;malloc 48@4000000|3\n");
	profile_set_free(ps);

	/* A bad stack index names the allocation. */
	parse_fails("{\"meta\": {}, \"threads\": [{\"name\": \"A\","
		    " \"jsAllocations\": {\"weight\": [1], \"stack\": [7]},"
		    " \"stackTable\": {\"frame\": [0], \"prefix\": [null]},"
		    " \"frameTable\": {\"location\": [0]}, \"stringTable\": [\"m\"]}]}",
		    "1: thread 'A': JS allocation 0 names 7, which the stack table (1 entries) lacks");
}

static void
test_devtools(void **state)
{
	struct profile_set *ps;
	struct import_options opts = { .weight = WEIGHT_SAMPLES };
	char errbuf[256];

	(void)state;
	/*
	 * speedscope's weights: until the next sample, the last none; a
	 * sample with no stack keeps its time. Old bit-flag categories;
	 * (root) left out.
	 */
	ps = parse("{\"label\": \"x\", \"duration\": 3, \"profile\": {\"meta\": {\"version\": 9,"
		   " \"startTime\": 5}, \"threads\": ["
		   RAW_THREAD("[1, 1], [null, 1.5], [1, 3.0000004]", "[null, 0], [0, 1]", "[0, 16], [1, 64]",
			      "\"(root)\", \"g (file:///g.js:4)\"")
		   "]}, \"systemHost\": {\"name\": \"Firefox\"}}");
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "time");
	assert_int_equal(ps->profiles[0]->unit, UNIT_NANOSECONDS);
	assert_true(ps->profiles[0]->spans);
	ASSERT_SAMPLES(ps, 0, "g 500000@1000000|7\n 1500000@1500000|7\ng 0@3000000|7\n");
	assert_string_equal(ps_get(ps, ps_frame(ps, ps->stacks[ps->profiles[0]->stack[0]].frame)->module),
			    "JavaScript");
	profile_set_free(ps);

	/*
	 * Times near int64's ends (ns), a process 9e12 ms later: held at the
	 * ends, no overflow; a time going back weighs nothing.
	 */
	ps = parse("{\"profile\": {\"meta\": {\"startTime\": 0}, \"threads\": [],"
		   " \"processes\": [{\"meta\": {\"startTime\": 9000000000000}, \"threads\": ["
		   RAW_THREAD("[0, 9000000000000], [0, -9000000000000], [0, 1]", "[null, 0]", "[0]",
			      "\"a\"") "]}]}}");
	ASSERT_SAMPLES(ps, 0, "a 0@9223372036854775807|7\n"
			      "a 9000000000001000000@0|7\n"
			      "a 0@9000000000001000000|7\n");
	profile_set_free(ps);

	/* --weight=samples counts them. */
	ps = try_parse("{\"profile\": {\"meta\": {}, \"threads\": ["
		       RAW_THREAD("[0, 1], [0, 2]", "[null, 0]", "[0]", "\"a\"") "]}}",
		       &opts, errbuf, sizeof(errbuf));
	assert_non_null(ps);
	assert_int_equal(ps->profiles[0]->unit, UNIT_SAMPLES);
	ASSERT_SAMPLES(ps, 0, "a 1@1000000|7\na 1@2000000|7\n");
	profile_set_free(ps);
}

static void
test_empty_and_one(void **state)
{
	struct profile_set *ps;

	(void)state;
	/* No samples at all: an empty set, which import_file() refuses. */
	ps = parse("{\"meta\": {\"startTime\": 0}, \"threads\": []}");
	assert_int_equal(ps->nr_profiles, 0);
	profile_set_free(ps);
	ps = parse(RAW(RAW_THREAD("", "", "", "")));
	assert_int_equal(ps->nr_profiles, 0);
	profile_set_free(ps);
	/* One sample, a short row, a missing name. */
	ps = parse(RAW(RAW_THREAD("[0]", "[null, 0]", "[0]", "\"\"")));
	ASSERT_SAMPLES(ps, 0, "(anonymous) 1@-|7\n");
	profile_set_free(ps);
}

static void
test_deep(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	const size_t depth = 20000;

	(void)state;
	/* 20,000 frames, prefixes in reverse order: walked, never recursed. */
	strbuf_addstr(&sb, "{\"meta\": {\"startTime\": 0}, \"threads\": [{\"name\": \"D\","
			   " \"samples\": {\"schema\": {\"stack\": 0, \"time\": 1}, \"data\": [[0, 1]]},"
			   " \"stackTable\": {\"schema\": {\"prefix\": 0, \"frame\": 1}, \"data\": [");
	for (size_t i = 0; i < depth; i++)
		if (i + 1 < depth)
			strbuf_addf(&sb, "[%zu, %zu], ", i + 1, i % 2);
		else
			strbuf_addf(&sb, "[null, %zu]", i % 2);
	strbuf_addstr(&sb, "]}, \"frameTable\": {\"schema\": {\"location\": 0}, \"data\": [[0], [1]]},"
			   " \"stringTable\": [\"a\", \"b\"]}]}");
	ps = parse(sb.buf);
	assert_int_equal(ps->profiles[0]->nr_samples, 1);
	assert_int_equal(ps->stacks[ps->profiles[0]->stack[0]].depth, depth);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_errors(void **state)
{
	(void)state;
	parse_fails(RAW(RAW_THREAD("[5, 1]", "[null, 0]", "[0]", "\"a\"")),
		    "1: thread 'T': sample 0 names 5, which the stack table (1 entries) lacks");
	parse_fails(RAW(RAW_THREAD("[0, 1]", "[null, 3]", "[0]", "\"a\"")),
		    "1: thread 'T': stack 0 names 3, which the frame table (1 entries) lacks");
	parse_fails(RAW(RAW_THREAD("[0, 1]", "[4, 0]", "[0]", "\"a\"")),
		    "1: thread 'T': stack 0 names 4, which the stack table (1 entries) lacks");
	parse_fails(RAW(RAW_THREAD("[0, 1]", "[null, 0]", "[9]", "\"a\"")),
		    "1: thread 'T': frame 0 names 9, which the string table (1 entries) lacks");
	parse_fails(RAW(RAW_THREAD("[0, 1]", "[1, 0], [0, 0]", "[0]", "\"a\"")),
		    "1: thread 'T': the stack table has a cycle through stack 0");
	parse_fails("{\"meta\": {},\n \"threads\": [{\"samples\": {\"data\": [[0, 1]]}}]}",
		    "2: a table's data comes before its schema (at byte 47)");
	parse_fails("{\"meta\": {}, \"threads\": [{\"samples\": {\"schema\": {\"stack\": 0},"
		    " \"data\": [[\"x\"]]}}]}",
		    "1: stack is not a number (at byte 72)");
	parse_fails("{\"meta\": {\"startTime\": 0}, \"threads\": [{\"name\": \"N\","
		    " \"samples\": {\"stack\": [0], \"time\": [1]}, \"stackTable\": {\"frame\": [0],"
		    " \"prefix\": [null]}, \"frameTable\": {\"func\": [0]}, \"funcTable\": {\"name\": [0]}}]}",
		    "1: thread 'N': no string table");
	parse_fails("{\"meta\": {}, \"threads\": [{\"samples\": {\"stack\": [3000000000]}}]}",
		    "1: stack is out of range (at byte 48)");
	parse_fails("[1]", "1: not a Gecko profile: expected an object (at byte 0)");
	parse_fails("{\"a\": 1}", "1: not a Gecko profile: no meta, threads or profile");
	parse_fails("{\"meta\": {}, \"threads\": [", "1: unexpected end of input");
	parse_fails("{\"meta\": {}, \"threads\": [1]}", "1: a thread is not an object (at byte 25)");
}

static void
test_probe(void **state)
{
	static const char *const yes[] = {
		"{\"meta\": {\"interval\": 1, \"startTime\": 1, \"version\": 24}, \"libs\": [],"
		" \"threads\": []}",
		"{\"meta\":{\"preprocessedProfileVersion\":57},\"threads\":[]}",
		"{\"label\":\"a\",\"duration\":74.1,\"markers\":[],\"frames\":[],\"memory\":[],"
		"\"ticks\":[],\"allocations\":{}",
	};
	static const char *const no[] = {
		"{\"traceEvents\": []}",
		"{\"name\": \"meta threads startTime\"}",
		"{\"recording\": {\"sampleStackTraces\": []}}",
		"main;a;b 12\n",
		"",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		assert_true(importer_gecko.probe(yes[i], strlen(yes[i])) >= 60);
		assert_int_equal(importer_chrome.probe(yes[i], strlen(yes[i])), 0);
		assert_int_equal(importer_speedscope.probe(yes[i], strlen(yes[i])), 0);
		assert_int_equal(importer_safari.probe(yes[i], strlen(yes[i])), 0);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(importer_gecko.probe(no[i], strlen(no[i])), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_processes),
		cmocka_unit_test(test_processed),
		cmocka_unit_test(test_allocations),
		cmocka_unit_test(test_devtools),
		cmocka_unit_test(test_empty_and_one),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
