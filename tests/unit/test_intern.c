#include "config.h"

#include "tflame/intern.h"

#include <stdlib.h>

#include "test_util.h"

static void
check_intern(const struct intern *in)
{
	struct tf_error err = TF_ERROR_INIT;

	if (intern_check(in, &err))
		fail_msg("intern_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

static void
test_empty_is_id_zero(void **state)
{
	struct intern in;

	(void)state;
	intern_init(&in);
	assert_int_equal(intern_str(&in, "", 0), STR_EMPTY);
	assert_string_equal(intern_get(&in, STR_EMPTY), "");
	assert_int_equal(intern_count(&in), 1);
	check_intern(&in);
	intern_release(&in);
}

static void
test_same_string_same_id(void **state)
{
	struct intern in;
	char buf[] = "main";
	str_id a, b, c;

	(void)state;
	intern_init(&in);
	a = intern_str(&in, "main", 4);
	b = intern_str(&in, buf, 4);
	c = intern_str(&in, "mains", 5);
	assert_int_equal(a, b);
	assert_int_not_equal(a, c);
	assert_int_equal(intern_str(&in, "mains", 4), a);
	assert_string_equal(intern_get(&in, c), "mains");
	assert_int_equal(intern_len(&in, c), 5);
	assert_int_equal(intern_find(&in, "mains", 5), c);
	assert_int_equal(intern_find(&in, "nope", 4), -1);
	check_intern(&in);
	intern_release(&in);
}

static void
test_embedded_nul(void **state)
{
	struct intern in;
	str_id a, b;

	(void)state;
	intern_init(&in);
	a = intern_str(&in, "a\0b", 3);
	b = intern_str(&in, "a\0c", 3);
	assert_int_not_equal(a, b);
	assert_int_equal(intern_len(&in, a), 3);
	assert_memory_equal(intern_get(&in, b), "a\0c", 4);
	check_intern(&in);
	intern_release(&in);
}

static void
test_many_strings_and_stable_pointers(void **state)
{
	struct intern in;
	const char *first;
	char buf[32];

	(void)state;
	intern_init(&in);
	first = intern_get(&in, intern_str(&in, "first", 5));
	for (int i = 0; i < 200000; i++) {
		int n = snprintf(buf, sizeof(buf), "frame_%d", i);

		assert_int_equal(intern_str(&in, buf, (size_t)n), (str_id)(i + 2));
	}
	assert_int_equal(intern_count(&in), 200002);
	/* Growth never moves a string. */
	assert_ptr_equal(intern_get(&in, 1), first);
	assert_string_equal(intern_get(&in, 12347), "frame_12345");
	assert_int_equal(intern_str(&in, "frame_199999", 12), 200001);
	assert_true(intern_memory(&in) > 200000 * 8);
	check_intern(&in);
	intern_release(&in);
}

static void
test_copy(void **state)
{
	struct intern a, b;
	char buf[32];
	str_id ids[3000];

	(void)state;
	intern_init(&a);
	for (int i = 0; i < 3000; i++) {
		snprintf(buf, sizeof(buf), "name %d", i);
		ids[i] = intern_str(&a, buf, strlen(buf));
	}
	intern_copy(&b, &a);
	check_intern(&b);
	assert_int_equal(intern_count(&b), intern_count(&a));
	for (int i = 0; i < 3000; i++) {
		assert_string_equal(intern_get(&b, ids[i]), intern_get(&a, ids[i]));
		assert_ptr_not_equal(intern_get(&b, ids[i]), intern_get(&a, ids[i]));
	}
	/* They grow apart: a new string in one is not in the other. */
	assert_int_equal(intern_str(&b, "only in b", 9), intern_count(&a));
	assert_int_equal(intern_find(&a, "only in b", 9), -1);
	assert_int_equal(intern_str(&b, "name 7", 6), ids[7]);
	intern_release(&a);
	check_intern(&b);
	assert_string_equal(intern_get(&b, ids[2999]), "name 2999");
	intern_release(&b);
}

static void
test_big_string(void **state)
{
	struct intern in;
	size_t n = 3 * 1024 * 1024;
	char *big = malloc(n);
	str_id id;

	(void)state;
	memset(big, 'x', n);
	intern_init(&in);
	intern_str(&in, "small", 5);
	id = intern_str(&in, big, n);
	assert_int_equal(intern_len(&in, id), n);
	assert_int_equal(intern_str(&in, big, n), id);
	assert_string_equal(intern_get(&in, 1), "small");
	check_intern(&in);
	intern_release(&in);
	free(big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_is_id_zero),
		cmocka_unit_test(test_same_string_same_id),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_many_strings_and_stable_pointers),
		cmocka_unit_test(test_big_string),
		cmocka_unit_test(test_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
