#include "config.h"

#include "tflame/progress.h"

#include <time.h>

#include "tflame/clock.h"
#include "tflame/render.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

#include "test_util.h"

#define LONG_PATH "/home/someone/projects/tflame/bench/out/perf-1100000000.txt"
#define ELLIPSIS "\xe2\x80\xa6"

/* 45% of 1.1 GB, read at 800 MB/s. */
static const struct progress_info reading = {
	.name = "perf.txt",
	.phase = IMPORT_READING,
	.bytes_done = 495000000,
	.bytes_total = 1100000000,
	.seconds = 0.61875,
};

/*
 * The line's invariant: at most width - 1 columns (the cursor never
 * wraps), no control character, and it says who is talking.
 */
static void
check_line(const char *line, unsigned used, unsigned width)
{
	assert_int_equal(used, render_width(line, strlen(line)));
	if (width < 2) {
		assert_string_equal(line, "");
		return;
	}
	assert_true(used <= width - 1);
	for (const char *p = line; *p; p++)
		assert_false((unsigned char)*p < 0x20 || *p == 0x7f);
	if (width > sizeof("tflame: "))
		assert_memory_equal(line, "tflame: ", 8);
}

/* The line of pi at width, checked, in a static buffer. */
static const char *
line_at(const struct progress_info *pi, unsigned width, bool utf8)
{
	static char buf[512];
	struct strbuf sb = STRBUF_INIT;
	unsigned used;

	used = progress_format(&sb, pi, width, utf8);
	check_line(sb.buf, used, width);
	snprintf(buf, sizeof(buf), "%s", sb.buf);
	strbuf_release(&sb);
	return buf;
}

static void
test_reading_widths(void **state)
{
	(void)state;
	assert_string_equal(line_at(&reading, 80, true),
			    "tflame: perf.txt: 45% of 1.1 GB, 800 MB/s (Ctrl-C cancels)");
	/* 58 columns would take the last one: the speed goes first. */
	assert_string_equal(line_at(&reading, 58, true),
			    "tflame: perf.txt: 45% of 1.1 GB (Ctrl-C cancels)");
	assert_string_equal(line_at(&reading, 59, true),
			    "tflame: perf.txt: 45% of 1.1 GB, 800 MB/s (Ctrl-C cancels)");
	/* Then the hint, then the size. */
	assert_string_equal(line_at(&reading, 40, true), "tflame: perf.txt: 45% of 1.1 GB");
	assert_string_equal(line_at(&reading, 30, true), "tflame: perf.txt: 45%");
	assert_string_equal(line_at(&reading, 22, true), "tflame: perf.txt: 45%");
	/* Narrower: the name shrinks to a glimpse, then goes. */
	assert_string_equal(line_at(&reading, 20, true), "tflame: " ELLIPSIS "f.txt: 45%");
	assert_string_equal(line_at(&reading, 19, true), "tflame: " ELLIPSIS ".txt: 45%");
	assert_string_equal(line_at(&reading, 18, true), "tflame: 45%");
	assert_string_equal(line_at(&reading, 12, true), "tflame: 45%");
	/* Below that, a cut; never past the width. */
	assert_string_equal(line_at(&reading, 11, true), "tflame: 4" ELLIPSIS);
	assert_string_equal(line_at(&reading, 2, true), ELLIPSIS);
	assert_string_equal(line_at(&reading, 1, true), "");
	assert_string_equal(line_at(&reading, 0, true), "");
}

static void
test_long_path(void **state)
{
	struct progress_info pi = reading;

	(void)state;
	pi.name = LONG_PATH;
	/* Shortened from the left, from a '/' when one is near. */
	assert_string_equal(line_at(&pi, 80, true),
			    "tflame: " ELLIPSIS "/out/perf-1100000000.txt: "
			    "45% of 1.1 GB, 800 MB/s (Ctrl-C cancels)");
	assert_string_equal(line_at(&pi, 80, false),
			    "tflame: .../out/perf-1100000000.txt: "
			    "45% of 1.1 GB, 800 MB/s (Ctrl-C cancels)");
	/* Wide enough for it all. */
	assert_string_equal(line_at(&pi, 120, true),
			    "tflame: " LONG_PATH ": 45% of 1.1 GB, 800 MB/s (Ctrl-C cancels)");
	/* The path keeps a fair share before the size goes. */
	assert_string_equal(line_at(&pi, 40, true),
			    "tflame: " ELLIPSIS "-1100000000.txt: 45% of 1.1 GB");
	assert_string_equal(line_at(&pi, 40, false),
			    "tflame: ...100000000.txt: 45% of 1.1 GB");
	assert_string_equal(line_at(&pi, 20, true), "tflame: " ELLIPSIS "0.txt: 45%");
	/* "..." takes three columns: the glimpse needs more. */
	assert_string_equal(line_at(&pi, 20, false), "tflame: 45%");
	assert_string_equal(line_at(&pi, 22, false), "tflame: ...0.txt: 45%");
}

static void
test_pipe(void **state)
{
	struct progress_info pi = {
		.name = "-",
		.phase = IMPORT_READING,
		.bytes_done = 12345678,
		.seconds = 3,
	};

	(void)state;
	assert_string_equal(line_at(&pi, 80, true),
			    "tflame: standard input: 12.3 MB read, 4 MB/s (Ctrl-C cancels)");
	assert_string_equal(line_at(&pi, 40, true), "tflame: standard input: 12.3 MB read");
	assert_string_equal(line_at(&pi, 21, true), "tflame: 12.3 MB read");
	assert_string_equal(line_at(&pi, 20, true), "tflame: 12.3 MB");
	/* Small inputs in kB; no time yet, no speed. */
	pi.bytes_done = 65536;
	pi.seconds = 0;
	assert_string_equal(line_at(&pi, 80, true),
			    "tflame: standard input: 66 kB read (Ctrl-C cancels)");
	/* A file that grew past its size stops at 100%. */
	pi = reading;
	pi.bytes_done = pi.bytes_total + 1;
	pi.seconds = 0;
	assert_string_equal(line_at(&pi, 80, true),
			    "tflame: perf.txt: 100% of 1.1 GB (Ctrl-C cancels)");
}

static void
test_symbols_phase(void **state)
{
	struct progress_info pi = reading;

	(void)state;
	pi.phase = IMPORT_SYMBOLS;
	pi.work_done = 450;
	pi.work_total = 1000;
	assert_string_equal(line_at(&pi, 80, true),
			    "tflame: perf.txt: symbols 45% "
			    "(Ctrl-C cancels, --no-symbols skips this)");
	assert_string_equal(line_at(&pi, 60, true),
			    "tflame: perf.txt: symbols 45% (Ctrl-C cancels)");
	assert_string_equal(line_at(&pi, 40, true), "tflame: perf.txt: symbols 45%");
	assert_string_equal(line_at(&pi, 20, true), "tflame: symbols 45%");
	/* Nothing counted yet: no percentage. */
	pi.work_done = pi.work_total = 0;
	assert_string_equal(line_at(&pi, 80, true),
			    "tflame: perf.txt: symbols (Ctrl-C cancels, --no-symbols skips this)");
	assert_string_equal(line_at(&pi, 20, true), "tflame: symbols");
	pi.name = LONG_PATH;
	assert_string_equal(line_at(&pi, 40, true),
			    "tflame: " ELLIPSIS "/perf-1100000000.txt: symbols");
}

static void
test_utf8_path(void **state)
{
	/* Cyrillic takes one column a letter, the CJK two. */
	struct progress_info pi = reading;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	pi.name = "/data/\xd0\xbf\xd1\x80\xd0\xbe\xd1\x84\xd0\xb8\xd0\xbb\xd0\xb8/"
		  "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe3\x83\x95\xe3\x82\xa1"
		  "\xe3\x82\xa4\xe3\x83\xab.txt";
	assert_string_equal(line_at(&pi, 80, true),
			    "tflame: " ELLIPSIS "\xd0\xbf\xd1\x80\xd0\xbe\xd1\x84\xd0\xb8\xd0\xbb"
			    "\xd0\xb8/\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe3\x83"
			    "\x95\xe3\x82\xa1\xe3\x82\xa4\xe3\x83\xab.txt: "
			    "45% of 1.1 GB, 800 MB/s (Ctrl-C cancels)");
	/* 16 columns: the ellipsis, then 14, as 15 would split a wide character. */
	assert_string_equal(line_at(&pi, 40, true),
			    "tflame: " ELLIPSIS "\xe3\x81\xae\xe3\x83\x95\xe3\x82\xa1"
			    "\xe3\x82\xa4\xe3\x83\xab.txt: 45% of 1.1 GB");
	/* Every width fits, whatever the cut. */
	for (unsigned w = 0; w < 100; w++) {
		strbuf_reset(&sb);
		check_line(sb.buf, progress_format(&sb, &pi, w, true), w);
		strbuf_reset(&sb);
		check_line(sb.buf, progress_format(&sb, &pi, w, false), w);
	}
	strbuf_release(&sb);
}

static void
test_control_characters(void **state)
{
	struct progress_info pi = reading;

	(void)state;
	/* A name cannot clear the screen or break the line. */
	pi.name = "evil\x1b[2J\r\nname.txt";
	assert_string_equal(line_at(&pi, 80, true),
			    "tflame: evil\\e[2J\\r\\nname.txt: "
			    "45% of 1.1 GB, 800 MB/s (Ctrl-C cancels)");
	/* Shortened after escaping: a cut escape is plain text. */
	assert_string_equal(line_at(&pi, 40, true),
			    "tflame: " ELLIPSIS "[2J\\r\\nname.txt: 45% of 1.1 GB");
	pi.name = "bad\xff\xfeutf8";
	assert_string_equal(line_at(&pi, 80, true),
			    "tflame: bad\\xff\\xfeutf8: 45% of 1.1 GB, 800 MB/s (Ctrl-C cancels)");
}

static void
test_every_width(void **state)
{
	const char *names[] = { "perf.txt", "-", LONG_PATH, "a", "x\ty" };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t n = 0; n < ARRAY_SIZE(names); n++)
		for (int phase = IMPORT_READING; phase <= IMPORT_SYMBOLS; phase++)
			for (unsigned w = 0; w < 130; w++) {
				struct progress_info pi = reading;

				pi.name = names[n];
				pi.phase = (enum import_phase)phase;
				pi.work_total = 7;
				for (int utf8 = 0; utf8 < 2; utf8++) {
					strbuf_reset(&sb);
					check_line(sb.buf, progress_format(&sb, &pi, w, utf8), w);
				}
			}
	/* It appends: what the buffer held stays. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "\r");
	progress_format(&sb, &reading, 80, true);
	assert_string_equal(sb.buf, "\rtflame: perf.txt: 45% of 1.1 GB, 800 MB/s (Ctrl-C cancels)");
	strbuf_release(&sb);
}

/* clock_ms(), which times the progress line: milliseconds, never backwards. */
static void
test_clock_ms(void **state)
{
	struct timespec nap = { 0, 5000000 };
	double t0, t1;

	(void)state;
	t0 = clock_ms();
	nanosleep(&nap, NULL);
	t1 = clock_ms();
	assert_true(t1 - t0 >= 4.5);
	assert_true(t1 - t0 < 5000.0);
	assert_true(clock_ms() >= t1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reading_widths),
		cmocka_unit_test(test_long_path),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_symbols_phase),
		cmocka_unit_test(test_utf8_path),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_every_width),
		cmocka_unit_test(test_clock_ms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
