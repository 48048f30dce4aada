#include "config.h"

#include "tflame/import.h"

#define PARSE heapprofile_parse
#include "test_json_import.h"

/* A callFrame of function name in url at 0-based line. */
#define CF(name, url, line) \
	"\"callFrame\": {\"functionName\": \"" name "\", \"scriptId\": \"1\", \"url\": \"" url \
	"\", \"lineNumber\": " #line ", \"columnNumber\": 4}"

static void
test_tree(void **state)
{
	struct profile_set *ps;
	const struct profile *p;
	const struct frame *f;

	(void)state;
	/*
	 * Every node is a sample of its path weighing its selfSize, (root)
	 * included; nodes that allocated nothing add nothing. Key order does
	 * not matter (children before callFrame below); "samples" is not read.
	 */
	ps = parse("{\"head\": {" CF("(root)", "", -1) ", \"selfSize\": 0, \"id\": 1, \"children\": ["
		   "{" CF("f", "file:///src/a.js", 9) ", \"selfSize\": 100, \"id\": 2, \"children\": ["
		   "{\"children\": [], \"selfSize\": 50, " CF("", "file:///src/b.js", 2) "}]},"
		   "{" CF("g", "", -1) ", \"selfSize\": 0, \"children\": []},"
		   "{\"selfSize\": 8, \"children\": [], " CF("", "", -1) "}]},"
		   " \"samples\": [{\"size\": 100, \"nodeId\": 2, \"ordinal\": 1}]}");
	assert_int_equal(ps->nr_profiles, 1);
	p = ps->profiles[0];
	assert_string_equal(ps_get(ps, p->name), "heap");
	assert_int_equal(p->unit, UNIT_BYTES);
	assert_false(p->has_time);
	ASSERT_SAMPLES(ps, 0, "(root);f 100@-|-1\n"
			      "(root);f;(anonymous) b.js:3:5 50@-|-1\n"
			      "(root);(anonymous) 8@-|-1\n");
	assert_int_equal(p->total_weight, 158);
	/* url and the 1-based line, as for a .cpuprofile */
	f = ps_frame(ps, ps->stacks[p->stack[0]].frame);
	assert_string_equal(ps_get(ps, f->file), "file:///src/a.js");
	assert_int_equal(f->line, 10);
	assert_true(f->flags & FRAME_HAS_LINE);
	profile_set_free(ps);

	/* A head without a callFrame; a lone head that allocated. */
	ps = parse("{\"head\": {\"selfSize\": 3}}");
	ASSERT_SAMPLES(ps, 0, "[unknown] 3@-|-1\n");
	profile_set_free(ps);

	/* Nothing allocated: no samples (import_file() says so). */
	ps = parse("{\"head\": {" CF("(root)", "", -1) ", \"selfSize\": 0, \"children\": []}}");
	assert_int_equal(ps->profiles[0]->nr_samples, 0);
	profile_set_free(ps);
}

static void
test_deep(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;
	int depth = 20000;

	(void)state;
	/* 20,000 nested nodes, 40,000 JSON levels: read without recursion. */
	strbuf_addstr(&sb, "{\"head\": {" CF("(root)", "", -1) ", \"selfSize\": 0, \"children\": [");
	for (int i = 0; i < depth; i++)
		strbuf_addf(&sb, "{" CF("f", "a.js", 1) ", \"selfSize\": %d, \"children\": [",
			    i == depth - 1 ? 7 : 0);
	for (int i = 0; i < depth; i++)
		strbuf_addstr(&sb, "]}");
	strbuf_addstr(&sb, "]}}");
	ps = parse(sb.buf);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 1);
	assert_int_equal(p->weight[0], 7);
	assert_int_equal(ps->stacks[p->stack[0]].depth, depth + 1);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_errors(void **state)
{
	(void)state;
	parse_fails("", "1: empty document (at byte 0)");
	parse_fails("[]", "1: not a heap profile: expected an object (at byte 0)");
	parse_fails("{\"samples\": []}", "0: no head: not a heap profile");
	parse_fails("{\"head\": 1}", "1: head is not an object (at byte 9)");
	parse_fails("{\"head\": {\"selfSize\": -1}}",
		    "1: selfSize -1 is not a size in bytes (at byte 22)");
	parse_fails("{\"head\": {\"selfSize\": \"12\"}}",
		    "1: selfSize has the wrong type (at byte 22)");
	parse_fails("{\"head\": {\"children\": [1]}}",
		    "1: a node of the tree is not an object (at byte 23)");
	parse_fails("{\"head\": {\"children\": [{}, 2]}}",
		    "1: a node of the tree is not an object (at byte 27)");
	parse_fails("{\"head\": {\"children\": [{\"selfSize\": 1},\n{\"selfSize\": 2",
		    "2: unexpected end of input");
	parse_fails("{\"head\": {}, \"head\": {}}", "1: a second head (at byte 21)");
}

static void
test_probe(void **state)
{
	static const char *const yes =
		"{\"head\":{\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\","
		"\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"selfSize\":0,\"children\":[";
	static const char *const no[] = {
		/* an old .cpuprofile: the Chrome importer's */
		"{\"head\": {\"functionName\": \"(root)\", \"hitCount\": 0, \"selfSize\": 0}}",
		"{\"nodes\": [{\"id\": 1, \"callFrame\": {}}]}",
		"{\"head\": {\"callFrame\": {}}}",
		"[{\"head\": 1, \"selfSize\": 2}]",
	};

	(void)state;
	assert_int_equal(importer_heapprofile.probe(yes, strlen(yes)), 95);
	/* Above the Chrome importer, which also reads a head. */
	assert_true(importer_chrome.probe(yes, strlen(yes)) < 95);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_true(importer_heapprofile.probe(no[i], strlen(no[i])) < 50);
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
