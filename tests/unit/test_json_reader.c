#include "config.h"

#include "tflame/json_reader.h"

#include <stdlib.h>
#include <unistd.h>

#include "test_util.h"
#include "tflame/import.h"
#include "tflame/input.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * The tokens of text, one letter each ({}[] k s n t f z) with the text of
 * keys, strings and numbers after them as k:text, then "." at the end, "~"
 * if truncated or "!msg" on an error.
 */
static char *
tokens(const char *text, size_t len)
{
	struct tf_error err = TF_ERROR_INIT;
	struct json_reader jr;
	struct strbuf sb = STRBUF_INIT;
	enum json_token tok;

	json_reader_init_mem(&jr, text, len);
	for (;;) {
		tok = json_reader_next(&jr, &err);
		switch (tok) {
		case JSON_OBJECT_BEGIN: strbuf_addch(&sb, '{'); continue;
		case JSON_OBJECT_END: strbuf_addch(&sb, '}'); continue;
		case JSON_ARRAY_BEGIN: strbuf_addch(&sb, '['); continue;
		case JSON_ARRAY_END: strbuf_addch(&sb, ']'); continue;
		case JSON_KEY: strbuf_addf(&sb, "k:%s ", json_reader_text(&jr)); continue;
		case JSON_STRING: strbuf_addf(&sb, "s:%s ", json_reader_text(&jr)); continue;
		case JSON_NUMBER: strbuf_addf(&sb, "n:%s ", json_reader_text(&jr)); continue;
		case JSON_TRUE: strbuf_addch(&sb, 't'); continue;
		case JSON_FALSE: strbuf_addch(&sb, 'f'); continue;
		case JSON_NULL: strbuf_addch(&sb, 'z'); continue;
		case JSON_END: strbuf_addch(&sb, '.'); break;
		case JSON_TRUNCATED: strbuf_addch(&sb, '~'); break;
		case JSON_ERROR:
			strbuf_addf(&sb, "!%llu: %s", (unsigned long long)err.line, err.msg);
			break;
		}
		break;
	}
	/* It keeps saying the same at the end. */
	if (tok != JSON_ERROR)
		assert_int_equal(json_reader_next(&jr, &err), tok);
	json_reader_release(&jr);
	tf_error_release(&err);
	return strbuf_detach(&sb, NULL);
}

#define ASSERT_TOKENS(text, want) \
	do { \
		char *got_ = tokens(text, strlen(text)); \
		assert_string_equal(got_, want); \
		free(got_); \
	} while (0)

static void
test_values(void **state)
{
	(void)state;
	ASSERT_TOKENS("{\"a\": [1, -2.5e3, true, false, null, \"x\"], \"b\": {}}",
		      "{k:a [n:1 n:-2.5e3 tfzs:x ]k:b {}}.");
	ASSERT_TOKENS("  42  ", "n:42 .");
	ASSERT_TOKENS("\"s\"", "s:s .");
	ASSERT_TOKENS("[]", "[].");
	ASSERT_TOKENS("[[],[[]]]", "[[][[]]].");
}

static void
test_escapes(void **state)
{
	(void)state;
	ASSERT_TOKENS("[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"]", "[s:a\"b\\c/d\b\f\n\r\t ].");
	ASSERT_TOKENS("[\"\\u0041\\u00e9\\u20ac\"]", "[s:A\xc3\xa9\xe2\x82\xac ].");
	/* A surrogate pair is one code point. */
	ASSERT_TOKENS("[\"\\ud83d\\ude00\"]", "[s:\xf0\x9f\x98\x80 ].");
	/* Unpaired halves become U+FFFD, and the next character survives. */
	ASSERT_TOKENS("[\"\\ud83dx\"]", "[s:\xef\xbf\xbdx ].");
	ASSERT_TOKENS("[\"\\ude00\"]", "[s:\xef\xbf\xbd ].");
	ASSERT_TOKENS("[\"\\ud83d\"]", "[s:\xef\xbf\xbd ].");
	ASSERT_TOKENS("[\"\\ud83d\\ud83d\\ude00\"]", "[s:\xef\xbf\xbd\xf0\x9f\x98\x80 ].");
	ASSERT_TOKENS("[\"\\ud83d\\n\"]", "[s:\xef\xbf\xbd\n ].");
	ASSERT_TOKENS("[\"\\x\"]", "[!1: bad escape in string (at byte 3)");
	ASSERT_TOKENS("[\"\\u12g4\"]", "[!1: bad \\u escape in string (at byte 6)");
	/* Raw UTF-8 passes through. */
	ASSERT_TOKENS("{\"\xc3\xa9\":1}", "{k:\xc3\xa9 n:1 }.");
}

static void
test_errors(void **state)
{
	(void)state;
	ASSERT_TOKENS("", "!1: empty document (at byte 0)");
	ASSERT_TOKENS("[1,]", "[n:1 !1: expected a value (at byte 3)");
	ASSERT_TOKENS("[1 2]", "[n:1 !1: expected ',' or ']' (at byte 3)");
	ASSERT_TOKENS("{\"a\" 1}", "{k:a !1: expected ':' (at byte 5)");
	ASSERT_TOKENS("{1:2}", "{!1: expected a key (at byte 1)");
	ASSERT_TOKENS("[1}", "[n:1 !1: mismatched bracket (at byte 2)");
	ASSERT_TOKENS("[01]", "[!1: bad number (at byte 3)");
	ASSERT_TOKENS("[1.]", "[!1: bad number (at byte 3)");
	ASSERT_TOKENS("[tru]", "[!1: unexpected character (at byte 4)");
	ASSERT_TOKENS("[1]\n\n[2]", "[n:1 ]!3: text after the document (at byte 5)");
}

static void
test_truncated(void **state)
{
	(void)state;
	ASSERT_TOKENS("[{\"a\":1},{\"b\"", "[{k:a n:1 }{k:b ~");
	ASSERT_TOKENS("[{\"a\":1},", "[{k:a n:1 }~");
	ASSERT_TOKENS("[{\"a\":1}\n  ", "[{k:a n:1 }~");
	ASSERT_TOKENS("[\"abc", "[~");
	ASSERT_TOKENS("[\"a\\u00", "[~");
	ASSERT_TOKENS("[12", "[~");
	ASSERT_TOKENS("[tr", "[~");
}

static void
test_deep(void **state)
{
	size_t n = 100000;
	char *text = xmalloc(2 * n), *got;
	struct tf_error err = TF_ERROR_INIT;
	struct json_reader jr;
	enum json_token tok;

	(void)state;
	memset(text, '[', n);
	memset(text + n, ']', n);
	/* Rejected at the limit: no recursion, no crash. */
	json_reader_init_mem(&jr, text, 2 * n);
	while ((tok = json_reader_next(&jr, &err)) == JSON_ARRAY_BEGIN)
		;
	assert_int_equal(tok, JSON_ERROR);
	assert_int_equal(json_reader_depth(&jr), JSON_READER_MAX_DEPTH);
	assert_string_equal(err.msg, "nested deeper than 1000 levels (at byte 1000)");
	json_reader_release(&jr);
	tf_error_release(&err);

	/* The limit itself is fine. */
	got = tokens(text + n - JSON_READER_MAX_DEPTH, 2 * JSON_READER_MAX_DEPTH);
	assert_int_equal(got[2 * JSON_READER_MAX_DEPTH], '.');
	free(got);

	/* A tree format raises the limit: all 100,000 levels are read. */
	json_reader_init_mem(&jr, text, 2 * n);
	jr.max_depth = JSON_READER_TREE_DEPTH;
	while ((tok = json_reader_next(&jr, &err)) == JSON_ARRAY_BEGIN)
		;
	assert_int_equal(tok, JSON_ARRAY_END);
	assert_int_equal(json_reader_depth(&jr), n - 1);
	assert_int_equal(json_reader_skip(&jr, JSON_ARRAY_BEGIN, &err), 0);
	json_reader_release(&jr);

	/* A lower limit says which. */
	json_reader_init_mem(&jr, text, 2 * n);
	jr.max_depth = 3;
	while ((tok = json_reader_next(&jr, &err)) == JSON_ARRAY_BEGIN)
		;
	assert_int_equal(tok, JSON_ERROR);
	assert_string_equal(err.msg, "nested deeper than 3 levels (at byte 3)");
	json_reader_release(&jr);
	tf_error_release(&err);
	free(text);
}

/* The importers' error helpers and the probe helpers. */
static void
test_helpers(void **state)
{
	const char *text = "{\n \"a\": [1,\n 2], \"b\": {";
	struct tf_error err = TF_ERROR_INIT;
	struct json_reader jr;
	enum json_token tok;

	(void)state;
	json_reader_init_mem(&jr, text, strlen(text));
	while ((tok = json_reader_next(&jr, &err)) != JSON_NUMBER || strcmp(json_reader_text(&jr), "2"))
		assert_true(tok > JSON_TRUNCATED);
	assert_int_equal(json_reader_badf(&jr, &err, "%s is odd", "2"), -1);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.msg, "2 is odd (at byte 13)");
	tok = json_reader_next(&jr, &err);
	assert_int_equal(tok, JSON_ARRAY_END);
	tok = json_reader_next(&jr, &err);
	assert_int_equal(tok, JSON_KEY);
	tok = json_reader_next(&jr, &err);
	assert_int_equal(json_reader_skip_value(&jr, tok, &err), -1);
	assert_string_equal(err.msg, "unexpected end of input");
	/* The end of a load publishes what json_reader_progress() kept back. */
	{
		struct import_progress pr = { 0 };
		uint64_t reported = 3;

		json_reader_progress_end(&jr, &pr, &reported);
		assert_int_equal(reported, strlen(text));
		assert_int_equal(pr.bytes_done, strlen(text) - 3);
	}
	json_reader_release(&jr);
	tf_error_release(&err);

	assert_true(json_probe_has_key(text, strlen(text), "b"));
	assert_true(json_probe_has_key("{\"mode\" :1", strlen("{\"mode\" :1"), "mode"));
	/* A value is no key, nor a key of which it is a part. */
	assert_false(json_probe_has_key("{\"x\": \"mode\"}", strlen("{\"x\": \"mode\"}"), "mode"));
	assert_false(json_probe_has_key("{\"modes\": 1}", strlen("{\"modes\": 1}"), "mode"));
}

/* What json_reader_tree() called, as text. */
struct tree_log {
	struct json_reader *jr;
	struct tf_error *err;
	struct strbuf sb;
};

static void
tree_begin(void *ctx, int64_t parent, int64_t node)
{
	strbuf_addf(&((struct tree_log *)ctx)->sb, "<%lld:%lld", (long long)node, (long long)parent);
}

static int
tree_member(void *ctx, int64_t node, const char *key, enum json_token tok)
{
	struct tree_log *t = ctx;

	strbuf_addf(&t->sb, " %lld.%s", (long long)node, key);
	return json_reader_skip_value(t->jr, tok, t->err);
}

static int
tree_end(void *ctx, int64_t node)
{
	strbuf_addf(&((struct tree_log *)ctx)->sb, ">%lld", (long long)node);
	return 0;
}

static const struct json_tree_ops tree_log_ops = { tree_begin, tree_member, tree_end };

/* Walk text's root object; the log, or "error: MESSAGE". */
static char *
walk_tree(const char *text)
{
	struct tf_error err = TF_ERROR_INIT;
	struct json_reader jr;
	struct tree_log t = { &jr, &err, STRBUF_INIT };

	json_reader_init_mem(&jr, text, strlen(text));
	jr.max_depth = JSON_READER_TREE_DEPTH;
	assert_int_equal(json_reader_next(&jr, &err), JSON_OBJECT_BEGIN);
	if (json_reader_tree(&jr, "kids", "a node", &tree_log_ops, &t, &err)) {
		strbuf_reset(&t.sb);
		strbuf_addf(&t.sb, "error: %s", err.msg);
	} else {
		assert_int_equal(json_reader_next(&jr, &err), JSON_END);
	}
	json_reader_release(&jr);
	tf_error_release(&err);
	return strbuf_detach(&t.sb, NULL);
}

static void
test_tree(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *got;

	(void)state;
	/* Nodes in order of their start, members around the children. */
	got = walk_tree("{\"a\": 1, \"kids\": [{\"b\": [2], \"kids\": []}, {\"kids\": [{}]}],"
			" \"c\": {\"kids\": 5}}");
	assert_string_equal(got, "<0:-1 0.a<1:0 1.b>1<2:0<3:2>3>2 0.c>0");
	free(got);
	got = walk_tree("{\"kids\": [{}, 3]}");
	assert_string_equal(got, "error: a node is not an object (at byte 14)");
	free(got);
	got = walk_tree("{\"kids\": {}}");
	assert_string_equal(got, "error: kids is not an array (at byte 9)");
	free(got);
	got = walk_tree("{\"kids\": [{\"kids\": [");
	assert_string_equal(got, "error: unexpected end of input");
	free(got);

	/* 100,000 levels of nodes: no recursion. */
	for (int i = 0; i < 100000; i++)
		strbuf_addstr(&sb, "{\"kids\":[");
	strbuf_addstr(&sb, "{}");
	for (int i = 0; i < 100000; i++)
		strbuf_addstr(&sb, "]}");
	got = walk_tree(sb.buf);
	assert_true(strstr(got, "<100000:99999>100000>99999") != NULL);
	free(got);
	strbuf_release(&sb);
}

static void
test_skip(void **state)
{
	const char *text = "{\"a\":{\"x\":[1,{\"y\":2}]},\"b\":3}";
	struct tf_error err = TF_ERROR_INIT;
	struct json_reader jr;
	enum json_token tok;

	(void)state;
	json_reader_init_mem(&jr, text, strlen(text));
	assert_int_equal(json_reader_next(&jr, &err), JSON_OBJECT_BEGIN);
	assert_int_equal(json_reader_next(&jr, &err), JSON_KEY);
	tok = json_reader_next(&jr, &err);
	assert_int_equal(tok, JSON_OBJECT_BEGIN);
	assert_int_equal(json_reader_skip(&jr, tok, &err), 0);
	assert_int_equal(json_reader_next(&jr, &err), JSON_KEY);
	assert_string_equal(json_reader_text(&jr), "b");
	tok = json_reader_next(&jr, &err);
	assert_int_equal(json_reader_skip(&jr, tok, &err), 0);
	assert_int_equal(json_reader_next(&jr, &err), JSON_OBJECT_END);
	assert_int_equal(json_reader_next(&jr, &err), JSON_END);

	/* An error or an end is passed on, not skipped over as a value. */
	assert_int_equal(json_reader_skip(&jr, JSON_ERROR, &err), JSON_ERROR);
	assert_int_equal(json_reader_skip(&jr, JSON_END, &err), JSON_TRUNCATED);
	json_reader_release(&jr);

	json_reader_init_mem(&jr, "[[1,2", 5);
	assert_int_equal(json_reader_next(&jr, &err), JSON_ARRAY_BEGIN);
	tok = json_reader_next(&jr, &err);
	assert_int_equal(json_reader_skip(&jr, tok, &err), JSON_TRUNCATED);
	json_reader_release(&jr);
	tf_error_release(&err);
}

static void
test_numbers(void **state)
{
	int64_t v;
	double d;

	(void)state;
	/* Integers are read as they are tokenized: json_reader_int(). */
	{
		const char *text = "[0, -0, 12, -9223372036854775808, 9223372036854775808, 1.0, 1e3, 7]";
		static const int64_t want[] = { 0, 0, 12, INT64_MIN, -1, -1, -1, 7 };
		struct tf_error err = TF_ERROR_INIT;
		struct json_reader jr;

		json_reader_init_mem(&jr, text, strlen(text));
		assert_int_equal(json_reader_next(&jr, &err), JSON_ARRAY_BEGIN);
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			assert_int_equal(json_reader_next(&jr, &err), JSON_NUMBER);
			if (want[i] == -1) {
				assert_false(json_reader_int(&jr, &v));
			} else {
				assert_true(json_reader_int(&jr, &v));
				assert_true(v == want[i]);
			}
		}
		json_reader_release(&jr);
		/* A leading zero is still bad JSON. */
		json_reader_init_mem(&jr, "[007]", 5);
		assert_int_equal(json_reader_next(&jr, &err), JSON_ARRAY_BEGIN);
		assert_int_equal(json_reader_next(&jr, &err), JSON_ERROR);
		json_reader_release(&jr);
		tf_error_release(&err);
	}
	assert_true(json_parse_int("123", 3, &v));
	assert_int_equal(v, 123);
	assert_true(json_parse_int("-9223372036854775808", 20, &v));
	assert_true(v == INT64_MIN);
	assert_false(json_parse_int("9223372036854775808", 19, &v));
	assert_false(json_parse_int("1.0", 3, &v));
	assert_false(json_parse_int("1e3", 3, &v));
	assert_false(json_parse_int("", 0, &v));
	assert_false(json_parse_int("-", 1, &v));

#define SCALED(s, shift, want) \
	do { \
		assert_true(json_parse_scaled(s, strlen(s), shift, &v)); \
		assert_int_equal(v, want); \
	} while (0)
	SCALED("12.345", 3, 12345);
	SCALED("12.3456", 3, 12346);
	SCALED("12.3454", 3, 12345);
	SCALED("-12.3455", 3, -12346);
	SCALED("1.5e2", 3, 150000);
	SCALED("1e-3", 3, 1);
	SCALED("0.00049", 3, 0);
	SCALED("0.0005", 3, 1);
	SCALED("0.00005", 3, 0);
	SCALED("0", 9, 0);
	SCALED("123456789012.345678", 3, 123456789012346);
	SCALED("7", 0, 7);
	SCALED("1500", -3, 2);
	SCALED(" 42", 3, 42000);
	SCALED("+42", 0, 42);
	SCALED("0.000000000000000000000000000000000000000000000001234", 50, 123);
	/* The plain numbers' fast path, at its edges. */
	SCALED("9322348.713", 6, 9322348713000);
	SCALED("1.5930639998987317", 6, 1593064);
	SCALED("-0.0000005", 6, -1);
	SCALED("-0", 6, 0);
	SCALED("12.", 3, 12000);
	SCALED("999999999999999999", 0, 999999999999999999);
	SCALED("9223372036854.775807", 6, INT64_MAX);
	SCALED("9223372036854775807", 0, INT64_MAX);
	SCALED("1234567890123456789.4", 0, 1234567890123456789);
	assert_false(json_parse_scaled("9223372036854.775808", 20, 6, &v));
	assert_false(json_parse_scaled("10000000000000", 14, 6, &v));
	assert_false(json_parse_scaled("01", 2, 0, &v));
	assert_false(json_parse_scaled(".5", 2, 0, &v));
	assert_false(json_parse_scaled("1.2.3", 5, 0, &v));
	assert_false(json_parse_scaled("abc", 3, 3, &v));
	assert_false(json_parse_scaled("", 0, 3, &v));
	assert_false(json_parse_scaled("+", 1, 3, &v));
	assert_false(json_parse_scaled("1e30", 4, 0, &v));
	assert_false(json_parse_scaled("12ms", 4, 0, &v));
#undef SCALED

	assert_true(json_parse_double("2.5e-1", 6, &d));
	assert_true(d == 0.25);
	assert_false(json_parse_double("1e999", 5, &d));
	assert_false(json_parse_double("x", 1, &d));
}

/* Through an input, in blocks: tokens that span a block boundary. */
static void
test_input(void **state)
{
	char path[] = "/tmp/tflame-json-XXXXXX";
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct json_reader jr;
	struct input in;
	enum json_token tok;
	size_t n = 0, strings = 0;
	int fd;

	(void)state;
	strbuf_addch(&sb, '[');
	while (sb.len < 3 * 1024 * 1024) {
		strbuf_addf(&sb, "%s{\"k\\u00e9y\":\"value %zu \\ud83d\\ude00\",\"n\":%zu.5}",
			    n ? "," : "", n, n);
		n++;
	}
	strbuf_addstr(&sb, "]\n");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, sb.buf, sb.len), (ssize_t)sb.len);
	close(fd);

	assert_int_equal(input_open(&in, path, &err), 0);
	json_reader_init(&jr, &in);
	while ((tok = json_reader_next(&jr, &err)) > JSON_TRUNCATED) {
		if (tok == JSON_STRING) {
			char want[64];

			snprintf(want, sizeof(want), "value %zu \xf0\x9f\x98\x80", strings++);
			assert_string_equal(json_reader_text(&jr), want);
		} else if (tok == JSON_KEY) {
			assert_true(!strcmp(json_reader_text(&jr), "k\xc3\xa9y") ||
				    !strcmp(json_reader_text(&jr), "n"));
		}
	}
	assert_int_equal(tok, JSON_END);
	assert_int_equal(strings, n);
	json_reader_release(&jr);
	input_close(&in);
	unlink(path);
	strbuf_release(&sb);
	tf_error_release(&err);
}

/* The importers' shared errors and progress. */
static void
test_importer_helpers(void **state)
{
	static const char text[] = "{\"a\":\n [1, \"x\"";
	struct import_progress pr = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct json_reader jr;
	enum json_token tok;
	uint64_t reported = 0;
	struct strbuf big = STRBUF_INIT;

	(void)state;
	json_reader_init_mem(&jr, text, strlen(text));
	while ((tok = json_reader_next(&jr, &err)) != JSON_STRING)
		assert_true(tok > JSON_TRUNCATED);
	assert_int_equal(json_reader_bad(&jr, "x is odd", &err), -1);
	assert_string_equal(err.msg, "x is odd (at byte 11)");
	assert_int_equal(err.line, 2);
	tok = json_reader_next(&jr, &err);
	assert_int_equal(tok, JSON_TRUNCATED);
	assert_int_equal(json_reader_fail(&jr, tok, &err), -1);
	assert_string_equal(err.msg, "unexpected end of input");
	/* Below a megabyte read, nothing is published. */
	assert_int_equal(json_reader_progress(&jr, &pr, &reported, &err), 0);
	assert_int_equal(json_reader_progress(&jr, NULL, &reported, &err), 0);
	assert_int_equal(pr.bytes_done, 0);
	json_reader_release(&jr);

	/* Past it: published, and a cancel is an error. */
	strbuf_addch(&big, '[');
	for (int i = 0; i < 300000; i++)
		strbuf_addstr(&big, "1234,");
	strbuf_addstr(&big, "1]");
	json_reader_init_mem(&jr, big.buf, big.len);
	while ((tok = json_reader_next(&jr, &err)) > JSON_TRUNCATED)
		;
	assert_int_equal(json_reader_progress(&jr, &pr, &reported, &err), 0);
	assert_int_equal(pr.bytes_done, big.len);
	assert_int_equal(reported, big.len);
	pr.cancel = 1;
	reported = 0;
	assert_int_equal(json_reader_progress(&jr, &pr, &reported, &err), -1);
	assert_string_equal(err.msg, "cancelled");
	json_reader_release(&jr);
	strbuf_release(&big);
	tf_error_release(&err);

	assert_int_equal(json_first_byte("\xef\xbb\xbf \r\n\t{}", 9), '{');
	assert_int_equal(json_first_byte("  [", 3), '[');
	assert_int_equal(json_first_byte(" \n", 2), 0);
	assert_int_equal(json_first_byte("", 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_input),
		cmocka_unit_test(test_importer_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
