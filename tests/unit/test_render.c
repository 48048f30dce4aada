#include "config.h"

#include "tflame/render.h"

#include "tflame/strbuf.h"

#include "test_util.h"

static const char *
label(const char *name, unsigned width, bool utf8, unsigned *used)
{
	static char buf[256];
	struct strbuf sb = STRBUF_INIT;

	*used = render_label(&sb, name, strlen(name), width, utf8);
	snprintf(buf, sizeof(buf), "%s", sb.buf);
	strbuf_release(&sb);
	return buf;
}

static void
test_fits_and_cut(void **state)
{
	unsigned used;

	(void)state;
	assert_string_equal(label("main", 10, true, &used), "main");
	assert_int_equal(used, 4);
	assert_string_equal(label("main", 4, true, &used), "main");
	assert_string_equal(label("compress_block", 6, true, &used), "compr\xe2\x80\xa6");
	assert_int_equal(used, 6);
	assert_string_equal(label("compress_block", 6, false, &used), "compr~");
	assert_string_equal(label("compress_block", 1, true, &used), "\xe2\x80\xa6");
	assert_int_equal(used, 1);
	assert_string_equal(label("compress_block", 0, true, &used), "");
	assert_int_equal(used, 0);
}

static void
test_wide_and_escaped(void **state)
{
	unsigned used;

	(void)state;
	/* Two columns a character: a cut never splits one. */
	assert_int_equal(render_width("\xe6\xbc\xa2\xe5\xad\x97", 6), 4);
	assert_string_equal(label("\xe6\xbc\xa2\xe5\xad\x97x", 4, true, &used),
			    "\xe6\xbc\xa2\xe2\x80\xa6");
	assert_int_equal(used, 3);
	assert_string_equal(label("caf\xc3\xa9", 4, true, &used), "caf\xc3\xa9");
	assert_int_equal(used, 4);
	/* Control characters are escaped before measuring. */
	assert_string_equal(label("a\x1b[2Jb", 40, true, &used), "a\\e[2Jb");
	assert_int_equal(used, 7);
	assert_string_equal(label("a\x1b[2Jb", 3, true, &used), "a\\\xe2\x80\xa6");
}

static void
test_cut_escaped(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned used;

	(void)state;
	/* render_label() escapes a backslash; render_cut() takes text as it is. */
	assert_string_equal(label("we\\ird", 20, true, &used), "we\\\\ird");
	used = render_cut(&sb, "we\\ird", 7, 20, true);
	assert_string_equal(sb.buf, "we\\ird");
	assert_int_equal(used, 7);
	strbuf_reset(&sb);
	used = render_cut(&sb, "we\\ird", 7, 4, false);
	assert_string_equal(sb.buf, "we\\~");
	assert_int_equal(used, 4);
	strbuf_reset(&sb);
	assert_int_equal(render_cut(&sb, "x", 1, 0, true), 0);
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
}

/* A path cut in the middle keeps its file name, whole characters on both sides. */
static void
test_cut_middle(void **state)
{
	static const char path[] = "/tmp/build/tflame-0.1.0/_build/sub/../../tests/prog.c";
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	render_cut_middle(&sb, path, strlen(path), 80, true);
	assert_string_equal(sb.buf, path);
	strbuf_reset(&sb);
	render_cut_middle(&sb, path, strlen(path), 30, true);
	assert_int_equal(render_width(sb.buf, sb.len), 30);
	assert_non_null(strstr(sb.buf, "tests/prog.c"));
	assert_int_equal(strncmp(sb.buf, "/tmp/build/", 11), 0);
	assert_non_null(strstr(sb.buf, "\xe2\x80\xa6"));
	strbuf_reset(&sb);
	/* Neither side splits a character (e-acute: two bytes, one column). */
	render_cut_middle(&sb, "a\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9" "b", 12, 5, true);
	assert_int_equal(render_width(sb.buf, sb.len), 5);
	strbuf_release(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits_and_cut),
		cmocka_unit_test(test_wide_and_escaped),
		cmocka_unit_test(test_cut_escaped),
		cmocka_unit_test(test_cut_middle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
