#include "config.h"

#include "tflame/import.h"

#define PARSE v8log_parse
#include "test_json_import.h"

/* Code entries 0..12, one of each kind of name. */
#define CODE "\"code\": [" \
	"{\"name\": \"/usr/bin/node\", \"type\": \"SHARED_LIB\"}," /* 0 */ \
	"{\"name\": \"T node::Start(int, char**)\", \"type\": \"CPP\"}," /* 1 */ \
	"{\"name\": \"v8::Foo::Bar@@V8_1\", \"type\": \"CPP\"}," /* 2 */ \
	"{\"name\": \"run /src/a.js:3:10\", \"type\": \"JS\", \"kind\": \"Opt\"}," /* 3 */ \
	"{\"name\": \" /src/lib/b.js:1:1\", \"type\": \"JS\", \"kind\": \"Unopt\"}," /* 4 */ \
	"{\"name\": \"~f node:internal/x:3:4\", \"type\": \"JS\"}," /* 5 */ \
	"{\"name\": \"ArrayMap\", \"type\": \"CODE\", \"kind\": \"Builtin\"}," /* 6 */ \
	"{\"name\": \"Ldar\", \"type\": \"CODE\", \"kind\": \"BytecodeHandler\"}," /* 7 */ \
	"{\"name\": \"x\", \"type\": \"CODE\", \"kind\": \"KeyedLoadIC\"}," /* 8 */ \
	"{\"name\": \"CEntry\", \"type\": \"CODE\", \"kind\": \"Stub\"}," /* 9 */ \
	"{\"name\": \"y\", \"type\": \"CODE\", \"kind\": \"Other\"}," /* 10 */ \
	"{\"name\": \"z\", \"type\": \"GC\"}," /* 11 */ \
	"{\"name\": \"w\"}]" /* 12 */

static void
test_names(void **state)
{
	struct profile_set *ps;
	const struct frame *f;
	const struct profile *p;

	(void)state;
	/* One tick per entry, 10 us apart; s is (code, offset) pairs, leaf first. */
	ps = parse("{" CODE ", \"functions\": [], \"ticks\": ["
		   "{\"tm\": 10, \"vm\": 0, \"s\": [0, 1]}, {\"tm\": 20, \"s\": [1, 0]},"
		   "{\"tm\": 30, \"s\": [2, 0]}, {\"tm\": 40, \"s\": [3, 7]},"
		   "{\"tm\": 50, \"s\": [4, 0]}, {\"tm\": 60, \"s\": [5, 0]},"
		   "{\"tm\": 70, \"s\": [6, 0]}, {\"tm\": 80, \"s\": [7, 0]},"
		   "{\"tm\": 90, \"s\": [8, 0]}, {\"tm\": 100, \"s\": [9, 0]},"
		   "{\"tm\": 110, \"s\": [10, 0]}, {\"tm\": 120, \"s\": [11, 0]},"
		   "{\"tm\": 130, \"s\": [12, 0]}, {\"tm\": 140, \"s\": [13, 0]},"
		   "{\"tm\": 150, \"s\": [4096, 0]}]}");
	p = ps->profiles[0];
	assert_string_equal(ps_get(ps, p->name), "ticks");
	assert_int_equal(p->unit, UNIT_NANOSECONDS);
	assert_true(p->spans);
	ASSERT_SAMPLES(ps, 0, "(LIB) /usr/bin/node 10000@0|-1\n"
			      "(c++) node::Start 10000@10000|-1\n"
			      "v8::Foo::Bar@@V8_1 10000@20000|-1\n"
			      "run 10000@30000|-1\n"
			      "(anonymous) b.js:1:1 10000@40000|-1\n"
			      "~f node:internal/x:3:4 10000@50000|-1\n"
			      "(builtin) ArrayMap 10000@60000|-1\n"
			      "(bytecode) ~Ldar 10000@70000|-1\n"
			      "(IC) x 10000@80000|-1\n"
			      "(stub) CEntry 10000@90000|-1\n"
			      "y 10000@100000|-1\n"
			      "(GC) z 10000@110000|-1\n"
			      "(unknown type) 10000@120000|-1\n"
			      "(unknown type) 10000@130000|-1\n"
			      "0x1000 10000@140000|-1\n");
	/* A JS function keeps its script and line. */
	f = ps_frame(ps, ps->stacks[p->stack[3]].frame);
	assert_string_equal(ps_get(ps, f->file), "/src/a.js");
	assert_int_equal(f->line, 3);
	f = ps_frame(ps, ps->stacks[p->stack[4]].frame);
	assert_string_equal(ps_get(ps, f->file), "/src/lib/b.js");
	profile_set_free(ps);

	/*
	 * node's own anonymous functions, whose node: URLs speedscope's
	 * expression cannot read, are anonymous functions all the same; a
	 * name that does not end in a line and column is not one.
	 */
	ps = parse("{\"code\": [{\"name\": \" node:internal/main/run_main_module:1:1\","
		   " \"type\": \"JS\"}, {\"name\": \" node:x:1:y\", \"type\": \"JS\"}],"
		   " \"ticks\": [{\"tm\": 10, \"s\": [0, 0]}, {\"tm\": 20, \"s\": [1, 0]}]}");
	ASSERT_SAMPLES(ps, 0, "(anonymous) run_main_module:1:1 10000@0|-1\n"
			      " node:x:1:y 10000@10000|-1\n");
	f = ps_frame(ps, ps->stacks[ps->profiles[0]->stack[0]].frame);
	assert_string_equal(ps_get(ps, f->file), "node:internal/main/run_main_module");
	assert_int_equal(f->line, 1);
	profile_set_free(ps);
}

static void
test_ticks(void **state)
{
	struct profile_set *ps;

	(void)state;
	/*
	 * Ticks are taken in time order (stably), each weighing the time
	 * since the one before, the first since 0; -1 entries are left out,
	 * odd entries are offsets. Ticks may come before code.
	 */
	ps = parse("{\"ticks\": [{\"tm\": 25, \"s\": [3, 9, -1, 0, 1, 5]},"
		   " {\"tm\": 5, \"s\": [6, 1, 1, 0]}, {\"tm\": 25, \"s\": []}], " CODE "}");
	ASSERT_SAMPLES(ps, 0, "(c++) node::Start;(builtin) ArrayMap 5000@0|-1\n"
			      "(c++) node::Start;run 20000@5000|-1\n"
			      " 0@25000|-1\n");
	profile_set_free(ps);

	/* A tick before the start weighs 0, with a warning. */
	ps = parse("{" CODE ", \"ticks\": [{\"tm\": -5, \"s\": [1, 0]}, {\"tm\": 3, \"s\": [1, 0]}]}");
	ASSERT_SAMPLES(ps, 0, "(c++) node::Start 0@0|-1\n(c++) node::Start 3000@0|-1\n");
	assert_string_equal(ps->diags[0].msg, "1 ticks before the log's start weigh 0");
	profile_set_free(ps);

	/* No ticks at all: no samples (and no qsort() of NULL). */
	ps = parse("{\"code\": [], \"ticks\": []}");
	assert_int_equal(ps->profiles[0]->nr_samples, 0);
	profile_set_free(ps);
}

static void
test_deep(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;

	(void)state;
	strbuf_addstr(&sb, "{" CODE ", \"ticks\": [{\"tm\": 1, \"s\": [");
	for (int i = 0; i < 20000; i++)
		strbuf_addf(&sb, "%s%d, 0", i ? ", " : "", i % 2 ? 3 : 1);
	strbuf_addstr(&sb, "]}]}");
	ps = parse(sb.buf);
	p = ps->profiles[0];
	assert_int_equal(ps->stacks[p->stack[0]].depth, 20000);
	assert_string_equal(frame_name(ps, ps->stacks[p->stack[0]].frame), "(c++) node::Start");
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_errors(void **state)
{
	(void)state;
	parse_fails("", "1: empty document (at byte 0)");
	parse_fails("[]", "1: not a V8 tick log: expected an object (at byte 0)");
	parse_fails("{\"code\": []}", "0: no ticks: not a V8 tick log");
	parse_fails("{\"ticks\": [{\"s\": [1, 0]}]}", "1: a tick without tm (at byte 23)");
	parse_fails("{\"ticks\": [{\"tm\": 1.5}]}", "1: tm '1.5' is not a time in us (at byte 18)");
	parse_fails("{\"ticks\": [{\"tm\": 1, \"s\": [1, \"x\"]}]}", "1: s: not a number (at byte 30)");
	parse_fails("{\"ticks\": [{\"tm\": 1, \"s\": [1e3]}]}",
		    "1: s: '1e3' is not a code index or address (at byte 27)");
	parse_fails("{\"ticks\": [{\"tm\": 1, \"s\": 4}]}",
		    "1: s of a tick has the wrong type (at byte 26)");
	parse_fails("{\"ticks\": [3]}", "1: a tick is not an object (at byte 11)");
	parse_fails("{\"code\": [3], \"ticks\": []}", "1: a code entry is not an object (at byte 10)");
	parse_fails("{\"ticks\": {}}", "1: ticks: not the one array of a V8 tick log (at byte 10)");
	parse_fails("{\"ticks\": [{\"tm\": 1, \"s\": [1, 0]}", "1: unexpected end of input");
}

static void
test_probe(void **state)
{
	static const char *const yes[] = {
		"{\"code\": [], \"functions\": [], \"ticks\": []}",
		/* the probe window may hold only the start of code */
		"{\"code\":[{\"name\":\"/usr/bin/node\",\"type\":\"SHARED_LIB\"},{\"name\":\"T a\",",
	};

	(void)state;
	assert_int_equal(importer_v8log.probe(yes[0], strlen(yes[0])), 95);
	assert_int_equal(importer_v8log.probe(yes[1], strlen(yes[1])), 80);
	assert_int_equal(importer_v8log.probe("{\"code\": 1}", 11), 0);
	assert_int_equal(importer_v8log.probe("[{\"code\": [], \"ticks\": []}]", 27), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_ticks),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
