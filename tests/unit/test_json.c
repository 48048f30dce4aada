#include "config.h"

#include "tflame/json.h"

#include <stdlib.h>

#include "tflame/strbuf.h"

#include "test_util.h"

static void
test_document_shape(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_writer jw;

	(void)state;
	json_init(&jw, f);
	json_object_begin(&jw);
	json_key(&jw, "name");
	json_string(&jw, "x");
	json_key(&jw, "n");
	json_uint(&jw, 18446744073709551615ULL);
	json_key(&jw, "list");
	json_array_begin(&jw);
	json_int(&jw, -3);
	json_raw_number(&jw, "1.5");
	json_bool(&jw, true);
	json_null(&jw);
	json_array_end(&jw);
	json_key(&jw, "empty");
	json_array_begin(&jw);
	json_array_end(&jw);
	json_key(&jw, "pct");
	json_double(&jw, 12.5);
	json_object_end(&jw);
	json_finish(&jw);
	fclose(f);
	assert_string_equal(buf, "{\n"
				 "  \"name\": \"x\",\n"
				 "  \"n\": 18446744073709551615,\n"
				 "  \"list\": [\n"
				 "    -3,\n"
				 "    1.5,\n"
				 "    true,\n"
				 "    null\n"
				 "  ],\n"
				 "  \"empty\": [],\n"
				 "  \"pct\": 12.5\n"
				 "}\n");
	free(buf);
}

static void
test_quote_escapes(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	json_quote(&sb, "a\"b\\c\n\x1b\x7f", 8);
	assert_string_equal(sb.buf, "\"a\\\"b\\\\c\\n\\u001b\\u007f\"");
	strbuf_reset(&sb);
	json_quote(&sb, "caf\xc3\xa9\xff", 6);
	assert_string_equal(sb.buf, "\"caf\xc3\xa9\\ufffd\"");
	strbuf_reset(&sb);
	json_quote(&sb, "nul\0end", 7);
	assert_string_equal(sb.buf, "\"nul\\u0000end\"");
	strbuf_release(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document_shape),
		cmocka_unit_test(test_quote_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
