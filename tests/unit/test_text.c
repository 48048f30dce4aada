#include "config.h"

#include "tflame/text.h"

#include "tflame/strbuf.h"

#include "test_util.h"

static void
expect(const char *in, size_t len, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	text_escape(&sb, in, len);
	assert_string_equal(sb.buf, want);
	/* Nothing below 0x20 or DEL survives. */
	for (size_t i = 0; i < sb.len; i++)
		assert_true((unsigned char)sb.buf[i] >= 0x20 && sb.buf[i] != 0x7f);
	strbuf_release(&sb);
}

#define EXPECT(in, want) expect((in), sizeof(in) - 1, (want))

static void
test_plain_text_kept(void **state)
{
	(void)state;
	EXPECT("std::vector<int>::push_back(int const&)", "std::vector<int>::push_back(int const&)");
	EXPECT("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5", "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xa5");
	EXPECT("a\\b", "a\\\\b");
}

static void
test_c0_controls(void **state)
{
	(void)state;
	EXPECT("\x1b[31mred\x1b[0m", "\\e[31mred\\e[0m");
	EXPECT("bell\a back\b", "bell\\x07 back\\x08");
	EXPECT("t\tn\nr\r", "t\\tn\\nr\\r");
	EXPECT("nul\0x", "nul\\x00x");
	EXPECT("del\x7f", "del\\x7f");
	/* OSC: ESC ] ... BEL */
	EXPECT("\x1b]0;title\a", "\\e]0;title\\x07");
}

static void
test_c1_and_bidi(void **state)
{
	(void)state;
	EXPECT("\xc2\x9b" "2J", "\\u{009b}2J");            /* C1 CSI */
	EXPECT("abc\xe2\x80\xae" "fed", "abc\\u{202e}fed");  /* RLO */
	EXPECT("\xe2\x81\xa6x\xe2\x81\xa9", "\\u{2066}x\\u{2069}");
	EXPECT("\xe2\x80\x8f", "\\u{200f}");
}

static void
test_invalid_utf8(void **state)
{
	(void)state;
	EXPECT("\xff\xfe", "\\xff\\xfe");
	EXPECT("\xc3", "\\xc3");                 /* truncated */
	EXPECT("\xc0\xaf", "\\xc0\\xaf");        /* overlong */
	EXPECT("\xed\xa0\x80", "\\xed\\xa0\\x80"); /* surrogate */
	EXPECT("ok\xe2\x82", "ok\\xe2\\x82");
}

/* RFC 4648's test vectors, and bytes that are not text (as base64(1) has them). */
static void
test_base64(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
		{ "\033]52\a\xff", "G101Mgf/" },
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strbuf_reset(&sb);
		text_base64(&sb, cases[i].in, strlen(cases[i].in));
		assert_string_equal(sb.buf, cases[i].out);
	}
	strbuf_release(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_kept),
		cmocka_unit_test(test_c0_controls),
		cmocka_unit_test(test_c1_and_bidi),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_base64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
