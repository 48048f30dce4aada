#include "config.h"

#include "tflame/import.h"

#include <stdlib.h>
#include <unistd.h>

#include "test_util.h"
#include "tflame/input.h"
#include "tflame/lines.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

static const struct import_options default_opts;

/* Parse text as folded stacks; the result must be a consistent set. */
static struct profile_set *
parse_opts(const char *text, size_t len, const struct import_options *opts)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct line_reader lr;

	line_reader_init_mem(&lr, text, len);
	if (folded_parse_lines(&lr, opts, ps, &err))
		fail_msg("folded_parse_lines: %s", tf_error_text(&err));
	line_reader_release(&lr);
	check_profile_set(ps);
	tf_error_release(&err);
	return ps;
}

static struct profile_set *
parse(const char *text)
{
	return parse_opts(text, strlen(text), &default_opts);
}

/* Parse text that must fail; returns the error text in a static buffer. */
static void
parse_fail(const char *text, uint64_t want_line, const char *want_msg)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct line_reader lr;

	line_reader_init_mem(&lr, text, strlen(text));
	assert_int_equal(folded_parse_lines(&lr, &default_opts, ps, &err), -1);
	assert_int_equal(err.line, want_line);
	assert_string_equal(err.msg, want_msg);
	line_reader_release(&lr);
	check_profile_set(ps);
	profile_set_free(ps);
	tf_error_release(&err);
}

/* The path of a file in tests/data/folded. */
static char *
data_path(const char *name)
{
	return test_data_path("folded", name);
}

/* Load a file through the importer, as the registry would. */
static struct profile_set *
load_file(const char *path, const struct import_options *opts)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct input in;

	if (input_open(&in, path, &err) || importer_folded.load(&in, opts, ps, &err))
		fail_msg("%s", tf_error_text(&err));
	input_close(&in);
	check_profile_set(ps);
	tf_error_release(&err);
	return ps;
}

static struct profile_set *
load_data(const char *name)
{
	char *path = data_path(name);
	struct profile_set *ps = load_file(path, &default_opts);

	free(path);
	return ps;
}

/* Sample i of p as "stack weight", the weight printed exactly. */
static const char *
sample_text(const struct profile_set *ps, const struct profile *p, size_t i)
{
	static char buf[8192];
	struct strbuf w = STRBUF_INIT;
	size_t n;

	assert_true(i < p->nr_samples);
	stack_text(ps, p->stack[i], buf, sizeof(buf) - 64);
	profile_format_weight(p, p->weight[i], &w);
	n = strlen(buf);
	snprintf(buf + n, sizeof(buf) - n, " %s", w.buf);
	strbuf_release(&w);
	return buf;
}

static const char *
total_text(const struct profile *p)
{
	static char buf[64];
	struct strbuf w = STRBUF_INIT;

	profile_format_weight_sum(p, p->total_weight, &w);
	snprintf(buf, sizeof(buf), "%s", w.buf);
	strbuf_release(&w);
	return buf;
}

static const struct profile *
only_profile(const struct profile_set *ps)
{
	assert_int_equal(ps->nr_profiles, 1);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "");
	return ps->profiles[0];
}

static void
test_integer(void **state)
{
	struct profile_set *ps = parse("a;b;c 1\na;b;c 1\na;b;d 4\na;b;c 3\na;b 5");
	const struct profile *p = only_profile(ps);

	(void)state;
	assert_string_equal(ps->format, "folded stacks");
	assert_int_equal(p->unit, UNIT_NONE);
	assert_int_equal(p->weight_decimals, 0);
	assert_int_equal(p->nr_samples, 5);
	assert_int_equal(p->total_weight, 14);
	assert_false(p->has_time);
	assert_string_equal(sample_text(ps, p, 0), "a;b;c 1");
	assert_string_equal(sample_text(ps, p, 2), "a;b;d 4");
	assert_string_equal(sample_text(ps, p, 4), "a;b 5");
	/* Identical stacks share an id; a;b is a prefix of a;b;c. */
	assert_int_equal(p->stack[0], p->stack[1]);
	assert_int_equal(ps->stacks[p->stack[0]].parent, p->stack[4]);
	/* One thread, unknown, for the whole file. */
	assert_int_equal(ps->nr_threads, 1);
	assert_int_equal(ps->threads[0].pid, -1);
	assert_int_equal(ps->threads[0].tid, -1);
	assert_int_equal(ps->threads[0].comm, STR_EMPTY);
	for (size_t i = 0; i < p->nr_samples; i++)
		assert_int_equal(p->thread[i], 0);
	/* Frames have no module and no flags. */
	for (uint32_t i = 0; i < ps->nr_frames; i++) {
		assert_int_equal(ps->frames[i].module, STR_EMPTY);
		assert_int_equal(ps->frames[i].flags, 0);
	}
	assert_int_equal(ps->nr_frames, 4);
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_decimal(void **state)
{
	struct profile_set *ps = parse("a 6.\nb 1.5\nc 0.25\nd 12\n");
	const struct profile *p = only_profile(ps);

	(void)state;
	/* Scaled by 100 for the two decimals of 0.25, all weights exact. */
	assert_int_equal(p->weight_decimals, 2);
	assert_int_equal(p->weight[0], 600);
	assert_int_equal(p->weight[1], 150);
	assert_int_equal(p->weight[2], 25);
	assert_int_equal(p->weight[3], 1200);
	assert_string_equal(sample_text(ps, p, 1), "b 1.5");
	assert_string_equal(total_text(p), "19.75");
	check_profile_set(ps);
	profile_set_free(ps);

	/* 0.1 ten times is exactly 1, which binary floating point is not. */
	{
		struct strbuf sb = STRBUF_INIT;

		for (int i = 0; i < 10; i++)
			strbuf_addstr(&sb, "x;y 0.1\n");
		strbuf_addstr(&sb, "x;z 0.000000001\nx;z 2.500000000000\n.5 .5\n");
		ps = parse(sb.buf);
		p = only_profile(ps);
		assert_int_equal(p->weight_decimals, 9);
		assert_int_equal(p->nr_samples, 13);
		assert_string_equal(total_text(p), "4.000000001");
		assert_string_equal(sample_text(ps, p, 11), "x;z 2.5");
		assert_string_equal(sample_text(ps, p, 12), ".5 0.5");
		assert_int_equal(ps->nr_diags, 0);
		check_profile_set(ps);
		profile_set_free(ps);
		strbuf_release(&sb);
	}

	/* Quotes and backslashes are escaped, so the excerpt reads back. */
	ps = parse("ok 1\nsay \"hi\" \\ now\n");
	assert_string_equal(ps->diags[0].msg, "1 bad line skipped, first: missing count: "
					      "\"say \\\"hi\\\" \\\\ now\"");
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_bad_counts(void **state)
{
	struct profile_set *ps = parse("ok 1\n"
				       "b 1.2.3\n"
				       "c 1e5\n"
				       "d +4\n"
				       "e -4\n"
				       "f 295147905179352825841\n" /* 16 * (2^64 - 1) + 1 */
				       "g .\n"
				       "h 0x10\n"
				       "ok 2\n");
	const struct profile *p = only_profile(ps);

	(void)state;
	assert_int_equal(p->nr_samples, 2);
	assert_int_equal(p->total_weight, 3);
	assert_int_equal(ps->nr_diags, 1);
	assert_int_equal(ps->diags[0].line, 2);
	assert_string_equal(ps->diags[0].msg,
			    "7 bad lines skipped, first: bad count: \"b 1.2.3\"");
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * Counts past 64 bits are kept exactly, as several samples of their stack
 * (up to 16 of them); the total is exact past 64 bits too.
 */
static void
test_wide_counts(void **state)
{
	struct profile_set *ps = parse("a 295147905179352825840\n" /* 16 * (2^64 - 1) */
				       "b 99999999999999999999\n"
				       "c 1\n");
	const struct profile *p = only_profile(ps);

	(void)state;
	/* 16 pieces, then 5 of 2^64 - 1 and the rest, then one. */
	assert_int_equal(p->nr_samples, 16 + 6 + 1);
	assert_string_equal(total_text(p), "395147905179352825840");
	assert_int_equal(ps->nr_diags, 1);
	assert_string_equal(ps->diags[0].msg, "2 sample weights past 64 bits, each kept exactly "
					      "as several samples of its stack");
	check_profile_set(ps);
	profile_set_free(ps);

	/* A count that fits alone, scaled for another's decimals. */
	ps = parse("a 0.5\nb 18446744073709551615\nc 1\n");
	p = only_profile(ps);
	assert_int_equal(p->nr_samples, 1 + 10 + 1);
	assert_string_equal(total_text(p), "18446744073709551616.5");
	assert_int_equal(ps->nr_diags, 1);
	assert_string_equal(ps->diags[0].msg, "1 sample weight past 64 bits, each kept exactly "
					      "as several samples of its stack");
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * More decimals than a weight keeps (9) are rounded, half up, with a
 * warning, rather than skipping the line; so are the decimals of a count
 * that the profile's weights cannot take (a sample would pass 64 bits).
 */
static void
test_rounded_counts(void **state)
{
	struct profile_set *ps = parse("a 1.1234567894\n"
				       "b 0.0000000005\n"
				       "c 2.9999999999999\n"
				       "d 1.00000000000000000001\n");
	const struct profile *p = only_profile(ps);

	(void)state;
	assert_int_equal(p->nr_samples, 4);
	assert_int_equal(p->weight_decimals, 9);
	assert_int_equal(p->weight[0], 1123456789);
	assert_int_equal(p->weight[1], 1);
	assert_int_equal(p->weight[2], 3000000000);
	assert_int_equal(p->weight[3], 1000000000);
	assert_int_equal(ps->nr_diags, 1);
	assert_int_equal(ps->diags[0].line, 1);
	assert_string_equal(ps->diags[0].msg, "4 counts rounded to 9 decimals, the most a "
					      "weight keeps");
	check_profile_set(ps);
	profile_set_free(ps);

	ps = parse("b 18446744073709551615\na 0.5\nc 0.25\nd 3\n");
	p = only_profile(ps);
	assert_int_equal(p->weight_decimals, 0);
	assert_int_equal(p->weight[1], 1);
	assert_int_equal(p->weight[2], 0);
	assert_string_equal(total_text(p), "18446744073709551619");
	assert_int_equal(ps->nr_diags, 1);
	assert_int_equal(ps->diags[0].line, 2);
	assert_string_equal(ps->diags[0].msg, "2 counts rounded to 0 decimals, the most the "
					      "profile's weights can take");
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_bad_lines(void **state)
{
	struct profile_set *ps = load_data("invalid.txt");
	const struct profile *p = only_profile(ps);

	(void)state;
	/* ";;; 9" is four empty frames, as flamegraph.pl reads it. */
	assert_int_equal(p->nr_samples, 3);
	assert_int_equal(p->total_weight, 12);
	assert_int_equal(ps->nr_diags, 1);
	assert_int_equal(ps->diags[0].line, 1);
	assert_string_equal(ps->diags[0].msg,
			    "4 bad lines skipped, first: missing count: \"# a comment line\"");
	check_profile_set(ps);
	profile_set_free(ps);

	/* Reasons, and an excerpt safe for a terminal. */
	ps = parse("\n\nfine 1\n e\x1b[31m\tred\x7f\xc2\x9b\xff caf\xc3\xa9 1.2.3\n");
	assert_int_equal(ps->nr_diags, 1);
	assert_int_equal(ps->diags[0].line, 4);
	assert_string_equal(ps->diags[0].msg,
			    "1 bad line skipped, first: bad count: "
			    "\" e\\x1b[31m\\tred\\x7f\\xc2\\x9b\\xff caf\xc3\xa9 1.2.3\"");
	check_profile_set(ps);
	profile_set_free(ps);

	/* A long bad line is cut, never in the middle of a character. */
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, "ok 1\nx");
		for (int i = 0; i < 30; i++)
			strbuf_addstr(&sb, "\xc3\xa9");
		strbuf_addstr(&sb, " \"quoted\\\" x\n");
		ps = parse(sb.buf);
		assert_int_equal(ps->nr_diags, 1);
		assert_string_equal(ps->diags[0].msg,
				    "1 bad line skipped, first: missing count: \"x"
				    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"...");
		check_profile_set(ps);
		profile_set_free(ps);
		strbuf_release(&sb);
	}

	/* Quotes and backslashes are escaped, so the excerpt reads back. */
	ps = parse("ok 1\nsay \"hi\" \\ now\n");
	assert_string_equal(ps->diags[0].msg, "1 bad line skipped, first: missing count: "
					      "\"say \\\"hi\\\" \\\\ now\"");
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_all_bad(void **state)
{
	(void)state;
	parse_fail("\nhello world\nsecond line\n", 2,
		   "no valid folded stack line (2 bad), first: missing count: \"hello world\"");
	parse_fail("5\n", 1, "no valid folded stack line (1 bad), first: no frames: \"5\"");
	/* Nothing at all, or only blank lines, is no samples, not bad lines. */
	parse_fail("", 0, "no samples found");
	parse_fail("\n  \n\t\r\n", 0, "no samples found");
}

static void
test_crlf_bom(void **state)
{
	struct profile_set *ps = load_data("bom-crlf.txt");
	const struct profile *p = only_profile(ps);

	(void)state;
	assert_int_equal(p->nr_samples, 3);
	assert_string_equal(sample_text(ps, p, 0), "a;b 1");
	assert_string_equal(sample_text(ps, p, 1), "a;c 2");
	assert_string_equal(sample_text(ps, p, 2), "d 3");
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);

	/* A BOM only counts at the very start. */
	ps = parse("x 1\n\xef\xbb\xbfy 2\n");
	p = only_profile(ps);
	assert_string_equal(sample_text(ps, p, 1), "\xef\xbb\xbfy 2");
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
check_utf16(struct profile_set *ps)
{
	const struct profile *p = only_profile(ps);

	assert_int_equal(p->nr_samples, 3);
	assert_string_equal(sample_text(ps, p, 0), "main;caf\xc3\xa9 2");
	assert_string_equal(sample_text(ps, p, 1), "main;smile_\xf0\x9f\x98\x80 3");
	assert_string_equal(sample_text(ps, p, 2), "main 1");
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_utf16(void **state)
{
	(void)state;
	check_utf16(load_data("utf16le.txt"));
	check_utf16(load_data("utf16be.txt"));
}

/* Write bytes to a temporary file and load it. */
static struct profile_set *
load_bytes(const char *data, size_t len, const struct import_options *opts)
{
	char path[] = "/tmp/tflame-folded-XXXXXX";
	int fd = mkstemp(path);
	struct profile_set *ps;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	ps = load_file(path, opts);
	unlink(path);
	return ps;
}

static void
test_utf16_broken(void **state)
{
	/* LE: a lone high surrogate, a lone low one, then an odd final byte. */
	static const char le[] = "\xff\xfe" "a\0;\0\x00\xd8x\0 \0" "1\0\n\0"
				 "\x00\xdc;\0b\0 \0" "2\0\n\0" "c\0 \0" "3\0" "\n";
	struct profile_set *ps = load_bytes(le, sizeof(le) - 1, &default_opts);
	const struct profile *p = only_profile(ps);

	(void)state;
	assert_int_equal(p->nr_samples, 2);
	assert_string_equal(sample_text(ps, p, 0), "a;\xef\xbf\xbdx 1");
	assert_string_equal(sample_text(ps, p, 1), "\xef\xbf\xbd;b 2");
	/* The odd byte is a replacement character after the count: bad. */
	assert_int_equal(ps->nr_diags, 1);
	assert_int_equal(ps->diags[0].line, 3);
	assert_string_equal(ps->diags[0].msg,
			    "1 bad line skipped, first: bad count: \"c 3\xef\xbf\xbd\"");
	check_profile_set(ps);
	profile_set_free(ps);
}

/* A long UTF-16 file crosses the converter's and reader's block edges. */
static void
test_utf16_large(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;
	size_t n = 0;

	(void)state;
	strbuf_addstr(&sb, "\xfe\xff");
	while (sb.len < 3 * 1024 * 1024) {
		/* "r;\U0001F600é<n> 1\n" in UTF-16BE */
		char num[32];
		int len = snprintf(num, sizeof(num), "%zu", n % 1000);

		strbuf_add(&sb, "\0r\0;\xd8\x3d\xde\x00\0\xe9", 10);
		for (int i = 0; i < len; i++) {
			strbuf_addch(&sb, 0);
			strbuf_addch(&sb, num[i]);
		}
		strbuf_add(&sb, "\0 \0" "1\0\n", 6);
		n++;
	}
	ps = load_bytes(sb.buf, sb.len, &default_opts);
	p = only_profile(ps);
	assert_int_equal(p->nr_samples, n);
	assert_int_equal(p->total_weight, n);
	{
		char want[64];

		snprintf(want, sizeof(want), "r;\xf0\x9f\x98\x80\xc3\xa9%zu 1", (n - 1) % 1000);
		assert_string_equal(sample_text(ps, p, n - 1), want);
	}
	assert_int_equal(ps->nr_frames, 1001);
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_frames(void **state)
{
	struct profile_set *ps = load_data("basic.txt");
	const struct profile *p = only_profile(ps);

	(void)state;
	assert_int_equal(p->nr_samples, 7);
	assert_int_equal(p->total_weight, 23);
	/* Spaces belong to the frame; an empty frame is one too. */
	assert_string_equal(sample_text(ps, p, 1), "main;run;Foo::bar(int, char const*) 5");
	assert_string_equal(sample_text(ps, p, 2), "main;run;;compute 2");
	assert_string_equal(sample_text(ps, p, 3), "main;run;compute 4");
	assert_int_equal(ps->stacks[p->stack[2]].depth, 4);
	/* Annotations set flags, and names stay as written. */
	assert_string_equal(sample_text(ps, p, 4), "swapper;start_kernel_[k];cpu_idle_[k] 7");
	assert_string_equal(sample_text(ps, p, 5), "java;Interpreter_[j];inlined_fn_[i] 1");
	for (uint32_t i = 0; i < ps->nr_frames; i++) {
		const char *name = frame_name(ps, i);
		uint32_t want = strstr(name, "_[k]") ? FRAME_KERNEL
				: strstr(name, "_[j]") ? FRAME_JIT
				: strstr(name, "_[i]") ? FRAME_INLINED
						       : 0;

		assert_int_equal(ps->frames[i].flags, want);
	}
	/* Blank lines are skipped without a word. */
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);

	/* Edge cases of the annotation suffix. */
	ps = parse("_[k] 1\nx_[z];[k];y[k];_[k]_ 1\n");
	for (uint32_t i = 0; i < ps->nr_frames; i++)
		assert_int_equal(ps->frames[i].flags,
				 !strcmp(frame_name(ps, i), "_[k]") ? FRAME_KERNEL : 0);
	assert_int_equal(ps->nr_frames, 5);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_whitespace(void **state)
{
	struct profile_set *ps = parse("a;b\t7\n"
				       "a;b  \t 8 \t \n"
				       "a;c d;e f 9\n"
				       "a;c 3 4\n");
	const struct profile *p = only_profile(ps);

	(void)state;
	assert_int_equal(p->nr_samples, 4);
	assert_string_equal(sample_text(ps, p, 0), "a;b 7");
	assert_string_equal(sample_text(ps, p, 1), "a;b 8");
	assert_string_equal(sample_text(ps, p, 2), "a;c d;e f 9");
	/* Not differential (the first line was not): "c 3" is a frame. */
	assert_string_equal(sample_text(ps, p, 3), "a;c 3 4");
	assert_int_equal(ps->stacks[p->stack[3]].depth, 2);
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * Empty and blank frames are frames, wherever they are (a;;b, a;b;, ;a,
 * ;), as flamegraph.pl draws them and collapse writes them back; the
 * prefix cache tells an empty name from a missing one.
 */
static void
test_empty_frames(void **state)
{
	struct profile_set *ps = parse("a;;b 3\na;b; 4\na; ;c 2\n;x 1\n; 5\na;b 6\na;b;; 7 \n");
	const struct profile *p = only_profile(ps);
	static const char *const want[] = { "a;;b 3", "a;b; 4", "a; ;c 2", ";x 1", "; 5", "a;b 6",
					    "a;b;; 7" };
	static const uint32_t depth[] = { 3, 3, 3, 2, 2, 2, 4 };

	(void)state;
	assert_int_equal(p->nr_samples, 7);
	for (size_t i = 0; i < 7; i++) {
		assert_string_equal(sample_text(ps, p, i), want[i]);
		assert_int_equal(ps->stacks[p->stack[i]].depth, depth[i]);
	}
	/* One empty name, one frame: a;b; and a;b;; share their first three. */
	assert_int_equal(ps->stacks[p->stack[6]].parent, p->stack[1]);
	assert_int_equal(ps->nr_diags, 0);
	check_profile_set(ps);
	profile_set_free(ps);

	/* Differential lines too. */
	ps = parse("a;;b 1 2\n; 3 4\n");
	assert_int_equal(ps->nr_profiles, 2);
	assert_string_equal(sample_text(ps, ps->profiles[1], 0), "a;;b 2");
	assert_string_equal(sample_text(ps, ps->profiles[1], 1), "; 4");
	check_profile_set(ps);
	profile_set_free(ps);
}

/* The prefix cache must never confuse frames that differ. */
static void
test_prefix_reuse(void **state)
{
	struct profile_set *ps = parse("a;b;c 1\na;x;c 1\nb;a 1\na;b;c;d 1\na;bb;c 1\na 1\n"
				       "a;b;c 1\n");
	const struct profile *p = only_profile(ps);
	static const char *const want[] = { "a;b;c 1", "a;x;c 1",   "b;a 1", "a;b;c;d 1",
					    "a;bb;c 1", "a 1", "a;b;c 1" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_string_equal(sample_text(ps, p, i), want[i]);
	assert_int_equal(p->stack[0], p->stack[6]);
	assert_int_equal(ps->nr_frames, 6);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_differential(void **state)
{
	struct profile_set *ps = load_data("diff.txt");
	const struct profile *before, *after;

	(void)state;
	assert_int_equal(ps->nr_profiles, 2);
	before = ps->profiles[0];
	after = ps->profiles[1];
	assert_string_equal(ps_get(ps, before->name), "before");
	assert_string_equal(ps_get(ps, after->name), "after");
	assert_int_equal(before->unit, UNIT_NONE);
	/* Every line is a sample of both, zero weights included. */
	assert_int_equal(before->nr_samples, 3);
	assert_int_equal(after->nr_samples, 3);
	assert_string_equal(sample_text(ps, before, 0), "main;a 10");
	assert_string_equal(sample_text(ps, after, 0), "main;a 12");
	assert_string_equal(sample_text(ps, before, 2), "main;c 0");
	assert_string_equal(sample_text(ps, after, 2), "main;c 3.5");
	assert_int_equal(before->stack[1], after->stack[1]);
	assert_int_equal(before->weight_decimals, 0);
	assert_int_equal(after->weight_decimals, 1);
	assert_string_equal(total_text(before), "15");
	assert_string_equal(total_text(after), "15.5");
	check_profile_set(ps);
	profile_set_free(ps);

	/* Once differential, a line with one count is bad; both or neither. */
	ps = parse("a;b 1 2.5\na;c 5\na;d 0.5 99999999999999999999999\na;e 3 4\n");
	before = ps->profiles[0];
	after = ps->profiles[1];
	assert_int_equal(before->nr_samples, 2);
	assert_int_equal(after->nr_samples, 2);
	assert_int_equal(before->weight_decimals, 0);
	assert_string_equal(total_text(before), "4");
	assert_string_equal(total_text(after), "6.5");
	assert_int_equal(ps->nr_diags, 1);
	assert_int_equal(ps->diags[0].line, 2);
	assert_string_equal(ps->diags[0].msg,
			    "2 bad lines skipped, first: missing second count: \"a;c 5\"");
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_weight_samples(void **state)
{
	struct import_options opts = { .weight = WEIGHT_SAMPLES };
	static const char text[] = "a;b 5\na;c 7.25\nbad\nd 1 2\n";
	struct profile_set *ps = parse_opts(text, sizeof(text) - 1, &opts);
	const struct profile *p = only_profile(ps);

	(void)state;
	assert_int_equal(p->unit, UNIT_SAMPLES);
	assert_int_equal(p->weight_decimals, 0);
	assert_int_equal(p->nr_samples, 3);
	assert_int_equal(p->total_weight, 3);
	for (size_t i = 0; i < p->nr_samples; i++)
		assert_int_equal(p->weight[i], 1);
	/* Counts are still checked. */
	assert_int_equal(ps->nr_diags, 1);
	check_profile_set(ps);
	profile_set_free(ps);

	/* Differential: one sample in each profile per line. */
	ps = parse_opts("x 3 4\ny 0 2\n", 12, &opts);
	assert_int_equal(ps->nr_profiles, 2);
	assert_int_equal(ps->profiles[0]->unit, UNIT_SAMPLES);
	assert_int_equal(ps->profiles[0]->total_weight, 2);
	assert_int_equal(ps->profiles[1]->total_weight, 2);
	check_profile_set(ps);
	profile_set_free(ps);
}

static void
test_deep_stack(void **state)
{
	struct strbuf sb = STRBUF_INIT, st = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;
	stack_id s;
	uint32_t n = 100000;

	(void)state;
	for (uint32_t i = 0; i < n; i++)
		strbuf_addf(&st, "%sf%u", i ? ";" : "", i);
	/* The stack twice, then with one more frame at the bottom. */
	strbuf_addf(&sb, "%s 3\n%s 3\n%s;leaf 1\n", st.buf, st.buf, st.buf);
	ps = parse(sb.buf);
	p = only_profile(ps);
	assert_int_equal(p->nr_samples, 3);
	assert_int_equal(p->stack[0], p->stack[1]);
	assert_int_equal(ps->stacks[p->stack[0]].depth, n);
	assert_int_equal(ps->stacks[p->stack[2]].depth, n + 1);
	assert_int_equal(ps->stacks[p->stack[2]].parent, p->stack[0]);
	assert_int_equal(ps->nr_stacks, n + 2);
	/* Walk up: root first, f0..f99999. */
	s = p->stack[0];
	for (uint32_t i = n; i-- > 0; s = ps->stacks[s].parent) {
		char want[16];

		snprintf(want, sizeof(want), "f%u", i);
		assert_string_equal(frame_name(ps, ps->stacks[s].frame), want);
	}
	assert_int_equal(s, STACK_ROOT);
	check_profile_set(ps);
	profile_set_free(ps);
	strbuf_release(&sb);
	strbuf_release(&st);
}

static void
test_long_line(void **state)
{
	struct strbuf sb = STRBUF_INIT, frame = STRBUF_INIT;
	struct profile_set *ps;
	const struct profile *p;

	(void)state;
	/* 10 MB: 50 000 frames of 200 bytes, with spaces. */
	for (int i = 0; i < 200; i++)
		strbuf_addch(&frame, i % 10 ? (char)('a' + i % 26) : ' ');
	strbuf_addstr(&sb, "short 1\n");
	for (int i = 0; i < 50000; i++) {
		strbuf_addf(&sb, "%s%05d", i ? ";" : "", i);
		strbuf_add(&sb, frame.buf, 194);
	}
	strbuf_addstr(&sb, " 2.5\nafter 1\n");
	assert_true(sb.len > 10 * 1000 * 1000);
	ps = parse(sb.buf);
	p = only_profile(ps);
	assert_int_equal(p->nr_samples, 3);
	assert_int_equal(ps->stacks[p->stack[1]].depth, 50000);
	assert_int_equal(strlen(frame_name(ps, ps->stacks[p->stack[1]].frame)), 199);
	assert_string_equal(total_text(p), "4.5");
	check_profile_set(ps);
	profile_set_free(ps);
	strbuf_release(&sb);
	strbuf_release(&frame);
}

static void
test_progress(void **state)
{
	struct import_progress pr = { 0 };
	struct import_options opts = { .progress = &pr };
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;
	struct line_reader lr;

	(void)state;
	for (int i = 0; sb.len < 3 * 1024 * 1024; i++)
		strbuf_addf(&sb, "main;f%d;g%d %d\n", i % 100, i % 37, i % 5 + 1);
	ps = parse_opts(sb.buf, sb.len, &opts);
	assert_int_equal(atomic_load(&pr.bytes_done), sb.len);
	profile_set_free(ps);

	/* Cancelled: stop with "cancelled", whatever was read so far. */
	atomic_store(&pr.cancel, 1);
	ps = profile_set_new();
	line_reader_init_mem(&lr, sb.buf, sb.len);
	assert_int_equal(folded_parse_lines(&lr, &opts, ps, &err), -1);
	assert_string_equal(tf_error_text(&err), "cancelled");
	assert_true(lr.bytes < sb.len);
	line_reader_release(&lr);
	check_profile_set(ps);
	profile_set_free(ps);
	strbuf_release(&sb);
	tf_error_release(&err);
}

static void
test_probe(void **state)
{
	static const char perf[] =
		"java 12688 [002] 6544038.708352: 235 cpu-clock:\n"
		"\t    7f0c2c2b5e1d Interpreter+0x1d (/tmp/perf-12688.map)\n"
		"\t    7f0c3c4ba0fd call_stub+0x11 (/usr/lib/jvm/libjvm.so)\n"
		"\n"
		"java 12688 [002] 6544038.718352: 235 cpu-clock:\n"
		"\t    7f0c2c2b5e1d Interpreter+0x1d (/tmp/perf-12688.map)\n\n";
	static const char utf16le[] = "\xff\xfe" "a\0;\0b\0 \0" "1\0\r\0\n\0" "a\0;\0c\0 \0" "2\0";
	static const char utf16be[] = "\xfe\xff" "\0a\0;\0b\0 \0" "1\0\n\0a\0;\0c\0 \0" "2";
	int (*probe)(const char *, size_t) = importer_folded.probe;
#define P(s) probe((s), strlen(s))
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_string_equal(importer_folded.name, "folded");
	assert_string_equal(importer_folded.description, "folded stacks");
	assert_int_equal(P("a;b;c 1\na;b;c 1\na;b;d 4\na;b;c 3\na;b 5"), 80);
	/* One line, no newline (the whole file, as tall.txt is). */
	assert_int_equal(P("a;b;c 1"), 80);
	assert_int_equal(P("\xef\xbb\xbf" "a;b 1\r\nc;d 2\r\n"), 80);
	assert_int_equal(probe(utf16le, sizeof(utf16le) - 1), 80);
	assert_int_equal(probe(utf16be, sizeof(utf16be) - 1), 80);
	/* Stacks without ';' are weaker evidence. */
	assert_int_equal(P("alpha 1\nbeta 2\n"), 30);
	/* Some bad lines lower the score but still pick it. */
	assert_int_equal(P("# comment\n// other\na;b 1\na;c 2\nb;c 3\n"), 60);
	/* No. */
	assert_int_equal(probe(perf, sizeof(perf) - 1), 0);
	assert_int_equal(P("hello world\nthis is prose.\n"), 0);
	assert_int_equal(probe("a;b 1\0\0\0\x01", 9), 0);
	assert_int_equal(probe("", 0), 0);
	assert_int_equal(P("\n\n\n"), 0);

	/* Data cut mid-line: the cut line does not count against it. */
	while (sb.len < IMPORT_PROBE_BYTES + 100)
		strbuf_addstr(&sb, "main;some_function;another_one 12345\n");
	assert_int_equal(probe(sb.buf, IMPORT_PROBE_BYTES), 80);
	/* A first line longer than the probe: a weak yes. */
	strbuf_reset(&sb);
	while (sb.len < IMPORT_PROBE_BYTES)
		strbuf_addstr(&sb, "frame;");
	assert_int_equal(probe(sb.buf, IMPORT_PROBE_BYTES), 25);
	strbuf_release(&sb);
#undef P
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integer),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_bad_counts),
		cmocka_unit_test(test_wide_counts),
		cmocka_unit_test(test_rounded_counts),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_all_bad),
		cmocka_unit_test(test_crlf_bom),
		cmocka_unit_test(test_utf16),
		cmocka_unit_test(test_utf16_broken),
		cmocka_unit_test(test_utf16_large),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_whitespace),
		cmocka_unit_test(test_empty_frames),
		cmocka_unit_test(test_prefix_reuse),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_weight_samples),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
