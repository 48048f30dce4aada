#include "config.h"

#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static void
test_empty_is_printable(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_non_null(sb.buf);
	assert_string_equal(sb.buf, "");
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
	assert_string_equal(sb.buf, "");
}

static void
test_add_and_grow(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (int i = 0; i < 10000; i++)
		strbuf_addch(&sb, 'a' + i % 26);
	assert_int_equal(sb.len, 10000);
	assert_true(sb.alloc > sb.len);
	assert_int_equal(sb.buf[sb.len], '\0');
	assert_int_equal(sb.buf[26], 'a');
	strbuf_addstr(&sb, "xyz");
	assert_memory_equal(sb.buf + 10000, "xyz", 4);
	strbuf_release(&sb);
}

static void
test_addf_long(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char big[5000];

	(void)state;
	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	strbuf_addf(&sb, "<%s|%d>", big, 42);
	assert_int_equal(sb.len, 4999 + 5);
	assert_memory_equal(sb.buf + sb.len - 4, "|42>", 4);
	strbuf_release(&sb);
}

static void
test_embedded_nul_and_setlen(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_add(&sb, "a\0b", 3);
	assert_int_equal(sb.len, 3);
	assert_memory_equal(sb.buf, "a\0b", 4);
	strbuf_setlen(&sb, 1);
	assert_string_equal(sb.buf, "a");
	strbuf_addchars(&sb, '-', 3);
	assert_string_equal(sb.buf, "a---");
	strbuf_reset(&sb);
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
}

static void
test_detach(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;
	char *s;

	(void)state;
	s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);
	strbuf_addstr(&sb, "hello");
	s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "hello");
	assert_int_equal(len, 5);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	free(s);
}

/* A hash table's memory: zero, whatever malloc() handed back before. */
static void
test_zalloc_table(void **state)
{
	size_t n = 1u << 20;
	uint64_t *t;

	(void)state;
	/* Leave non-zero bytes in a freed block of the same size first. */
	t = xmalloc(n * sizeof(*t));
	memset(t, 0xa5, n * sizeof(*t));
	free(t);
	t = xzalloc_table(n, sizeof(*t));
	for (size_t i = 0; i < n; i++)
		if (t[i])
			fail_msg("slot %zu is %#llx", i, (unsigned long long)t[i]);
	t[n - 1] = 1;
	free(t);
	t = xzalloc_table(0, 8);
	assert_non_null(t);
	free(t);
}

static void
test_add_uint(void **state)
{
	static const uint64_t values[] = { 0, 7, 10, 4294967296ULL, UINT64_MAX };
	struct strbuf sb = STRBUF_INIT;
	char want[32];

	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "x=");
		strbuf_add_uint(&sb, values[i]);
		snprintf(want, sizeof(want), "x=%llu", (unsigned long long)values[i]);
		assert_string_equal(sb.buf, want);
		assert_int_equal(sb.len, strlen(want));
	}
	strbuf_release(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_is_printable),
		cmocka_unit_test(test_add_and_grow),
		cmocka_unit_test(test_addf_long),
		cmocka_unit_test(test_embedded_nul_and_setlen),
		cmocka_unit_test(test_detach),
		cmocka_unit_test(test_zalloc_table),
		cmocka_unit_test(test_add_uint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
