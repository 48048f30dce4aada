#include "config.h"

#include "tflame/import.h"

#define PARSE ghc_parse
#include "test_json_import.h"

#define CCS "\"cost_centres\": [" \
	"{\"id\": 1, \"label\": \"MAIN\", \"module\": \"MAIN\", \"src_loc\": \"<built-in>\", \"is_caf\": false}," \
	"{\"id\": 2, \"label\": \"main\", \"module\": \"Main\", \"src_loc\": \"a.hs:(3,1)-(5,9)\", \"is_caf\": false}," \
	"{\"id\": 7, \"label\": \"fib\", \"module\": \"Main\", \"src_loc\": \"a.hs:8:1-30\", \"is_caf\": false}]"

static void
test_tree(void **state)
{
	struct profile_set *ps;
	const struct frame *f;

	(void)state;
	/*
	 * Two profiles from one tree: ticks times the tick interval (500 us
	 * here), and bytes. The program is the thread's name; built-in
	 * places are no file.
	 */
	ps = parse("{\"program\": \"a\", \"tick_interval\": 500, \"total_ticks\": 6, " CCS ","
		   " \"profile\": {\"id\": 1, \"entries\": 0, \"alloc\": 16, \"ticks\": 1, \"children\": ["
		   "{\"id\": 2, \"entries\": 1, \"alloc\": 0, \"ticks\": 0, \"children\": ["
		   "{\"id\": 7, \"entries\": 3, \"alloc\": 400, \"ticks\": 5, \"children\": []}]},"
		   "{\"id\": 7, \"entries\": 0, \"alloc\": 0, \"ticks\": 0, \"children\": []}]}}");
	assert_int_equal(ps->nr_profiles, 2);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "time");
	assert_int_equal(ps->profiles[0]->unit, UNIT_NANOSECONDS);
	assert_string_equal(ps_get(ps, ps->profiles[1]->name), "allocation");
	assert_int_equal(ps->profiles[1]->unit, UNIT_BYTES);
	ASSERT_SAMPLES(ps, 0, "MAIN.MAIN 500000@-|-1\nMAIN.MAIN;Main.main;Main.fib 2500000@-|-1\n");
	ASSERT_SAMPLES(ps, 1, "MAIN.MAIN 16@-|-1\nMAIN.MAIN;Main.main;Main.fib 400@-|-1\n");
	assert_string_equal(ps_get(ps, ps->threads[ps->profiles[0]->thread[0]].comm), "a");
	f = ps_frame(ps, ps->stacks[ps->profiles[0]->stack[1]].frame);
	assert_string_equal(ps_get(ps, f->file), "a.hs:8:1-30");
	f = ps_frame(ps, ps->stacks[ps->profiles[0]->stack[0]].frame);
	assert_int_equal(f->file, STR_EMPTY);
	assert_int_equal(ps->nr_diags, 0);
	profile_set_free(ps);

	/*
	 * The tree before the cost centres, keys in any order; no
	 * tick_interval: a tick is 1 ms, as speedscope takes it, with a
	 * warning.
	 */
	ps = parse("{\"profile\": {\"children\": [], \"ticks\": 2, \"alloc\": 0, \"id\": 7}, " CCS "}");
	ASSERT_SAMPLES(ps, 0, "Main.fib 2000000@-|-1\n");
	assert_int_equal(ps->profiles[1]->nr_samples, 0);
	assert_string_equal(ps->diags[0].msg, "no tick_interval: a tick is taken as 1000 us");
	profile_set_free(ps);

	/* No cost centres (fuzzing: no qsort() of NULL): the tree names one. */
	parse_fails("{\"tick_interval\": 1, \"profile\": {\"id\": 1, \"children\": []}}",
		    "0: profile node 0 names cost centre 1, which cost_centres does not list");
}

static void
test_deep(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;
	int depth = 20000;

	(void)state;
	strbuf_addstr(&sb, "{\"tick_interval\": 1000, " CCS ", \"profile\": ");
	for (int i = 0; i < depth; i++)
		strbuf_addf(&sb, "{\"id\": %d, \"ticks\": %d, \"alloc\": 0, \"children\": [",
			    i % 2 ? 2 : 7, i == depth - 1);
	for (int i = 0; i < depth; i++)
		strbuf_addstr(&sb, "]}");
	strbuf_addstr(&sb, "}");
	ps = parse(sb.buf);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 1);
	assert_int_equal(ps->stacks[p->stack[0]].depth, depth);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_errors(void **state)
{
	(void)state;
	parse_fails("", "1: empty document (at byte 0)");
	parse_fails("[]", "1: not a GHC profile: expected an object (at byte 0)");
	parse_fails("{" CCS "}", "0: no profile tree: not a GHC -pj profile");
	parse_fails("{\"profile\": {\"id\": 9, \"ticks\": 1, \"children\": []}, " CCS "}",
		    "0: profile node 0 names cost centre 9, which cost_centres does not list");
	parse_fails("{\"profile\": {\"ticks\": 1, \"children\": []}}",
		    "1: a profile node has no id (at byte 39)");
	parse_fails("{\"profile\": {\"id\": 1, \"ticks\": -1}}",
		    "1: ticks of a profile node is not a number (at byte 31)");
	parse_fails("{\"profile\": {\"id\": 1, \"children\": {}}}",
		    "1: children is not an array (at byte 34)");
	parse_fails("{\"profile\": {\"id\": 1, \"children\": [3]}}",
		    "1: a profile node is not an object (at byte 35)");
	parse_fails("{\"cost_centres\": [{\"label\": \"x\"}]}",
		    "1: a cost centre has no id (at byte 31)");
	parse_fails("{\"cost_centres\": [1]}", "1: a cost centre is not an object (at byte 18)");
	parse_fails("{\"cost_centres\": 1}", "1: cost_centres has the wrong type (at byte 17)");
	parse_fails("{\"profile\": {\"id\": 1, \"children\": [\n{\"id\": 1", "2: unexpected end of input");
}

static void
test_probe(void **state)
{
	static const char *const yes =
		"{\n\"program\": \"fib\",\n\"arguments\": [\"./fib\"],\n\"rts_arguments\": [\"-pj\"],\n"
		"\"total_ticks\": 199,\n\"tick_interval\": 1000,\n\"cost_centres\": [\n";

	(void)state;
	assert_int_equal(importer_ghc.probe(yes, strlen(yes)), 95);
	assert_int_equal(importer_ghc.probe("{\"program\": \"x\"}", 16), 0);
	assert_int_equal(importer_ghc.probe("[\"cost_centres\": 1]", 19), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
