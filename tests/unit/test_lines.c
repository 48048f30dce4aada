#include "config.h"

#include "tflame/lines.h"

#include <stdlib.h>

#include "test_util.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/* The reader's own invariants: unread data inside the buffer. */
static void
check_reader(const struct line_reader *lr)
{
	assert_true(lr->pos <= lr->end);
	assert_true(lr->end <= lr->cap);
	assert_true(lr->cap == 0 || lr->buf != NULL);
}

/* Read the next line and compare it with want (NULL: the end). */
static void
expect_line(struct line_reader *lr, const char *want, size_t want_len)
{
	struct tf_error err = TF_ERROR_INIT;
	const char *line;
	size_t len;
	int r = line_reader_next(lr, &line, &len, &err);

	if (!want) {
		assert_int_equal(r, 0);
	} else {
		assert_int_equal(r, 1);
		assert_int_equal(len, want_len);
		assert_memory_equal(line, want, want_len);
	}
	check_reader(lr);
	tf_error_release(&err);
}

#define EXPECT(lr, s) expect_line((lr), (s), sizeof(s) - 1)

static void
test_crlf(void **state)
{
	static const char data[] = "a;b 1\r\n\r\nc\r\nd\r\r\n\r";
	struct line_reader lr;

	(void)state;
	line_reader_init_mem(&lr, data, sizeof(data) - 1);
	EXPECT(&lr, "a;b 1");
	EXPECT(&lr, "");
	EXPECT(&lr, "c");
	/* Only the \r right before the \n belongs to the line ending. */
	EXPECT(&lr, "d\r");
	/* A lone \r at the end, with no newline, is a CRLF cut short. */
	EXPECT(&lr, "");
	assert_int_equal(lr.lineno, 5);
	expect_line(&lr, NULL, 0);
	assert_int_equal(lr.bytes, sizeof(data) - 1);
	line_reader_release(&lr);
	check_reader(&lr);
}

static void
test_no_final_newline(void **state)
{
	static const char data[] = "first\nlast";
	struct line_reader lr;

	(void)state;
	line_reader_init_mem(&lr, data, sizeof(data) - 1);
	EXPECT(&lr, "first");
	assert_int_equal(lr.lineno, 1);
	assert_int_equal(lr.bytes, 6);
	EXPECT(&lr, "last");
	assert_int_equal(lr.lineno, 2);
	assert_int_equal(lr.bytes, 10);
	expect_line(&lr, NULL, 0);
	/* The end is sticky. */
	expect_line(&lr, NULL, 0);
	assert_int_equal(lr.lineno, 2);
	line_reader_release(&lr);
}

static void
test_empty_lines(void **state)
{
	struct line_reader lr;

	(void)state;
	line_reader_init_mem(&lr, "\n\n\n", 3);
	EXPECT(&lr, "");
	EXPECT(&lr, "");
	EXPECT(&lr, "");
	expect_line(&lr, NULL, 0);
	assert_int_equal(lr.lineno, 3);
	assert_int_equal(lr.bytes, 3);
	line_reader_release(&lr);

	line_reader_init_mem(&lr, "", 0);
	expect_line(&lr, NULL, 0);
	assert_int_equal(lr.lineno, 0);
	assert_int_equal(lr.bytes, 0);
	line_reader_release(&lr);
}

static void
test_huge_line(void **state)
{
	size_t big = 10 * 1024 * 1024 + 17;
	char *data = xmalloc(big + 20);
	struct line_reader lr;

	(void)state;
	memcpy(data, "x\n", 2);
	for (size_t i = 0; i < big; i++)
		data[2 + i] = (char)('a' + i % 26);
	memcpy(data + 2 + big, "\r\nshort\n", 8);
	line_reader_init_mem(&lr, data, big + 10);
	EXPECT(&lr, "x");
	expect_line(&lr, data + 2, big);
	assert_true(lr.cap >= big);
	EXPECT(&lr, "short");
	expect_line(&lr, NULL, 0);
	assert_int_equal(lr.lineno, 3);
	assert_int_equal(lr.bytes, big + 10);
	line_reader_release(&lr);
	free(data);
}

/*
 * A source that hands out a buffer in pieces whose sizes follow a pattern,
 * so that lines fall across every kind of block boundary.
 */
struct piece_source {
	const char *data;
	size_t len, pos;
	const size_t *sizes;
	size_t nr_sizes, next;
	size_t calls;
	size_t fail_at; /* fail once this many bytes were handed out; 0: never */
};

static ssize_t
piece_read(void *arg, char *buf, size_t len, struct tf_error *err)
{
	struct piece_source *s = arg;
	size_t n = s->sizes[s->next++ % s->nr_sizes];

	s->calls++;
	if (s->fail_at && s->pos >= s->fail_at)
		return tf_error_set(err, "source failed");
	if (n > len)
		n = len;
	if (n > s->len - s->pos)
		n = s->len - s->pos;
	memcpy(buf, s->data + s->pos, n);
	s->pos += n;
	return (ssize_t)n;
}

/* About 3 MiB of lines of many lengths, some empty, some CRLF. */
static char *
make_lines(size_t *len_out)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t x = 12345;

	while (sb.len < 3 * 1024 * 1024) {
		size_t n;

		x = x * 1103515245 + 12345;
		n = (x >> 16) % 300;
		if (x % 7 == 0)
			n = 70000 + n; /* now and then a line longer than a block piece */
		for (size_t i = 0; i < n; i++)
			strbuf_addch(&sb, (char)('a' + (i + sb.len) % 26));
		strbuf_addstr(&sb, x % 5 == 0 ? "\r\n" : "\n");
	}
	strbuf_addstr(&sb, "tail");
	return strbuf_detach(&sb, len_out);
}

/* Read data through src and check every line against a plain split. */
static void
check_pieces(const char *data, size_t len, struct piece_source *src)
{
	struct tf_error err = TF_ERROR_INIT;
	struct line_reader lr;
	size_t pos = 0;
	uint64_t lines = 0;

	line_reader_init_fn(&lr, piece_read, src);
	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (data + pos)) : len - pos;
		size_t want = n && data[pos + n - 1] == '\r' ? n - 1 : n;

		expect_line(&lr, data + pos, want);
		lines++;
		assert_int_equal(lr.lineno, lines);
		pos += n + (nl ? 1 : 0);
		assert_int_equal(lr.bytes, pos);
	}
	expect_line(&lr, NULL, 0);
	line_reader_release(&lr);
	tf_error_release(&err);
}

static void
test_one_byte_source(void **state)
{
	static const size_t one[] = { 1 };
	struct piece_source src = { 0 };
	size_t len;
	char *data = make_lines(&len);

	(void)state;
	src.data = data;
	src.len = len;
	src.sizes = one;
	src.nr_sizes = 1;
	check_pieces(data, len, &src);
	assert_true(src.calls > len);
	free(data);
}

static void
test_odd_sizes_source(void **state)
{
	static const size_t odd[] = { 7, 4093, 1, 65537, 1048575, 3, 1048577, 999983 };
	struct piece_source src = { 0 };
	size_t len;
	char *data = make_lines(&len);

	(void)state;
	src.data = data;
	src.len = len;
	src.sizes = odd;
	src.nr_sizes = ARRAY_SIZE(odd);
	check_pieces(data, len, &src);
	free(data);
}

static void
test_block_boundary(void **state)
{
	static const size_t whole[] = { SIZE_MAX };
	struct piece_source src = { 0 };
	size_t len = 3 * 1024 * 1024;
	char *data = xmalloc(len);

	(void)state;
	/* Newlines right before, at and after each 1 MiB boundary. */
	memset(data, 'q', len);
	for (size_t mib = 1; mib < 3; mib++) {
		data[mib * 1024 * 1024 - 1] = '\n';
		data[mib * 1024 * 1024] = '\n';
		data[mib * 1024 * 1024 + 1] = '\n';
		data[mib * 1024 * 1024 + 3] = '\r';
		data[mib * 1024 * 1024 + 4] = '\n';
	}
	src.data = data;
	src.len = len;
	src.sizes = whole;
	src.nr_sizes = 1;
	check_pieces(data, len, &src);
	free(data);
}

static void
test_source_error(void **state)
{
	static const size_t sizes[] = { 5 };
	static const char data[] = "one\ntwo\nthree\nfour\n";
	struct piece_source src = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	struct line_reader lr;
	const char *line;
	size_t len;

	(void)state;
	src.data = data;
	src.len = sizeof(data) - 1;
	src.sizes = sizes;
	src.nr_sizes = 1;
	src.fail_at = 10;
	line_reader_init_fn(&lr, piece_read, &src);
	EXPECT(&lr, "one");
	EXPECT(&lr, "two");
	/* "three" is not complete when the source fails. */
	assert_int_equal(line_reader_next(&lr, &line, &len, &err), -1);
	assert_string_equal(tf_error_text(&err), "source failed");
	check_reader(&lr);
	line_reader_release(&lr);
	tf_error_release(&err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_no_final_newline),
		cmocka_unit_test(test_empty_lines),
		cmocka_unit_test(test_huge_line),
		cmocka_unit_test(test_one_byte_source),
		cmocka_unit_test(test_odd_sizes_source),
		cmocka_unit_test(test_block_boundary),
		cmocka_unit_test(test_source_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
