#include "config.h"

#include "tflame/import.h"

#include "test_util.h"
#include "tflame/lines.h"
#include "tflame/strbuf.h"

/*
 * The indented-text importers: Instruments deep copies, pmcstat call
 * graphs and papyrus logs. One file, since they share the helpers: parse
 * a text, list the samples, expect an error. Expected values are worked
 * out by hand in the comments.
 */

typedef int parse_fn(struct line_reader *lr, const struct import_options *opts,
		     struct profile_set *ps, struct tf_error *err);

static const struct import_options default_opts;

static struct profile_set *
parse_len(parse_fn *fn, const char *text, size_t len)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct line_reader lr;

	line_reader_init_mem(&lr, text, len);
	if (fn(&lr, &default_opts, ps, &err))
		fail_msg("parse: %s", tf_error_text(&err));
	line_reader_release(&lr);
	check_profile_set(ps);
	tf_error_release(&err);
	return ps;
}

static struct profile_set *
parse(parse_fn *fn, const char *text)
{
	return parse_len(fn, text, strlen(text));
}

/* Expect "LINE: message" from parsing text. */
static void
parse_fail(parse_fn *fn, const char *text, const char *want)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	struct line_reader lr;
	char got[256];

	line_reader_init_mem(&lr, text, strlen(text));
	assert_int_equal(fn(&lr, &default_opts, ps, &err), -1);
	snprintf(got, sizeof(got), "%llu: %s", (unsigned long long)err.line, err.msg);
	assert_string_equal(got, want);
	line_reader_release(&lr);
	check_profile_set(ps);
	profile_set_free(ps);
	tf_error_release(&err);
}

/* The samples of profile i as "stack weight[@time]" lines, in order. */
static const char *
samples(const struct profile_set *ps, size_t i, struct strbuf *out)
{
	const struct profile *p = ps->profiles[i];
	char buf[1024];

	strbuf_reset(out);
	for (size_t k = 0; k < p->nr_samples; k++) {
		strbuf_addf(out, "%s %llu", stack_text(ps, p->stack[k], buf, sizeof(buf)),
			    (unsigned long long)p->weight[k]);
		if (p->has_time)
			strbuf_addf(out, "@%lld", (long long)p->time[k]);
		strbuf_addch(out, '\n');
	}
	return out->buf;
}

static void
check(parse_fn *fn, const char *text, const char *want)
{
	struct profile_set *ps = parse(fn, text);
	struct strbuf sb = STRBUF_INIT;

	assert_string_equal(samples(ps, 0, &sb), want);
	strbuf_release(&sb);
	profile_set_free(ps);
}

/* A warning of ps, "LINE: message", for assertions. */
static void
assert_warning(const struct profile_set *ps, const char *want)
{
	char got[256];

	assert_true(ps->nr_diags > 0);
	snprintf(got, sizeof(got), "%llu: %s", (unsigned long long)ps->diags[0].line,
		 ps->diags[0].msg);
	assert_string_equal(got, want);
}

/* ------------------------------------------------------------ Instruments */

static void
test_instruments_tree(void **state)
{
	(void)state;
	/*
	 * main 100 ms holds a 60 and a 30: 10 ms self. b's children add up
	 * to 31 ms, more than its 30: b weighs 31 and has no self time, and
	 * main's self drops to 9. Children come before their parent.
	 */
	check(instruments_parse_lines,
	      "Weight\tSelf Weight\t\tSymbol Name\n"
	      "100.00 ms  100.0%\t0 s\t \tmain\n"
	      "60.00 ms  60.0%\t60.00 ms\t \t a\n"
	      "30.00 ms  30.0%\t0 s\t \t b\n"
	      "20.50 ms  20.0%\t20.50 ms\t \t  c\n"
	      "10.50 ms  10.0%\t10.50 ms\t \t  a\n",
	      "main;a 60000000\nmain;b;c 20500000\nmain;b;a 10500000\nmain 9000000\n");
}

static void
test_instruments_versions(void **state)
{
	struct profile_set *ps;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	/* Instruments 7: "Running Time", "1.0ms" with no space. */
	check(instruments_parse_lines,
	      "Running Time\tSelf (ms)\t\tSymbol Name\n"
	      "3.0ms   100.0%\t1\t \tstart\n2.0ms   66.6%\t2\t \t run\n",
	      "start;run 2000000\nstart 1000000\n");
	/*
	 * Instruments 16: "Symbol Names", the first row 3 spaces in, figure
	 * spaces (U+2007) before the share, and us as micro sign.
	 */
	check(instruments_parse_lines,
	      "Weight\tSelf Weight\tSymbol Names\n"
	      "1.50 s  100.0%\t0 s\t   start\n"
	      "2.50 \xc2\xb5s  \xe2\x80\x87" "0.0%\t2.50 \xc2\xb5s\t    tick\n",
	      "start;tick 2500\nstart 1499997500\n");
	/* Thousands separators. */
	check(instruments_parse_lines,
	      "Weight\tSymbol Name\n1,234.50 ms  100.0%\tmain\n1,000 ms  80.0%\t f\n",
	      "main;f 1000000000\nmain 234500000\n");
	/* Counters: cycles, with a process row on top. */
	ps = parse(instruments_parse_lines,
		   "Weight\tSelf Weight\t\tSymbol Name\n1.50 Gc  100.0%\t-\t \tapp (42)\n"
		   "2.00 Kc  0.0%\t-\t \t f\n512 cycles  0.0%\t-\t \t g\n");
	assert_int_equal(ps->profiles[0]->unit, UNIT_EVENTS);
	assert_string_equal(samples(ps, 0, &sb),
			    "app (42);f 2000\napp (42);g 512\napp (42) 1499997488\n");
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_instruments_allocations(void **state)
{
	struct profile_set *ps;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	/*
	 * Bytes in units of 1024, rounded half up: 429.93 MB is
	 * 450814279.68 bytes. Count is a profile of its own.
	 */
	ps = parse(instruments_parse_lines,
		   "Bytes Used\tCount\t\tSymbol Name\n"
		   " 429.93 MB     100.0%\t84671\t \tstart\n"
		   "   1.50 KB       0.0%\t3\t \t malloc\n"
		   "  12 Bytes       0.0%\t1\t \t free\n");
	assert_int_equal(ps->nr_profiles, 2);
	assert_int_equal(ps->profiles[0]->unit, UNIT_BYTES);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "Bytes Used");
	assert_string_equal(samples(ps, 0, &sb),
			    "start;malloc 1536\nstart;free 12\nstart 450812732\n");
	assert_string_equal(ps_get(ps, ps->profiles[1]->name), "Count");
	assert_int_equal(ps->profiles[1]->unit, UNIT_OBJECTS);
	assert_string_equal(samples(ps, 1, &sb), "start;malloc 3\nstart;free 1\nstart 84667\n");
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_instruments_source_path(void **state)
{
	struct profile_set *ps;
	const struct frame *f;

	(void)state;
	/* Frames are told apart by their source path too. */
	ps = parse(instruments_parse_lines,
		   "Weight\tSource Path\tSymbol Name\n3 ms  100%\tmain.c\tmain\n"
		   "1 ms  50%\ta.c\t helper\n1 ms  50%\tb.c\t helper\n");
	assert_int_equal(ps->profiles[0]->nr_samples, 3);
	f = ps_frame(ps, ps_stack(ps, ps->profiles[0]->stack[0])->frame);
	assert_string_equal(ps_get(ps, f->file), "a.c");
	f = ps_frame(ps, ps_stack(ps, ps->profiles[0]->stack[1])->frame);
	assert_string_equal(ps_get(ps, f->file), "b.c");
	profile_set_free(ps);
}

static void
test_instruments_edges(void **state)
{
	struct profile_set *ps;
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;
	const struct profile *p;

	(void)state;
	/* One row, blank lines, a row with no symbol: skipped. */
	check(instruments_parse_lines, "Weight\tSymbol Name\n7 ms  100%\tonly\n\n\t\n",
	      "only 7000000\n");
	/* A weight that cannot be read weighs 0, with a warning. */
	ps = parse(instruments_parse_lines,
		   "Weight\tSymbol Name\n5 ms  100%\tmain\n??\t leaf\n");
	assert_string_equal(samples(ps, 0, &sb), "main 5000000\n");
	assert_warning(ps, "3: 1 row with no readable weight, weighed 0");
	profile_set_free(ps);

	/*
	 * 10001 levels deep (the indent makes it 50 MB): one sample at the
	 * bottom, no recursion.
	 */
	strbuf_addstr(&text, "Weight\tSymbol Name\n");
	for (int i = 0; i < 10001; i++) {
		strbuf_addstr(&text, "1 ms  100%\t");
		strbuf_addchars(&text, ' ', (size_t)i);
		strbuf_addf(&text, "f%d\n", i % 7);
	}
	ps = parse_len(instruments_parse_lines, text.buf, text.len);
	p = ps->profiles[0];
	assert_int_equal(p->nr_samples, 1);
	assert_int_equal(p->weight[0], 1000000);
	assert_int_equal(ps_stack(ps, p->stack[0])->depth, 10001);
	profile_set_free(ps);
	strbuf_release(&text);
	strbuf_release(&sb);
}

static void
test_instruments_errors(void **state)
{
	(void)state;
	parse_fail(instruments_parse_lines, "", "0: empty input: no Instruments header");
	parse_fail(instruments_parse_lines, "Weight\tSelf\n1 ms\t1\n",
		   "1: no \"Symbol Name\" column in the header");
	parse_fail(instruments_parse_lines, "Self\tSymbol Name\n1\tmain\n",
		   "1: no weight column (Weight, Running Time or Bytes Used) in the header");
	parse_fail(instruments_parse_lines, "Weight\tSymbol Name\n",
		   "0: no rows under the Instruments header");
	parse_fail(instruments_parse_lines, "Weight\tSymbol Name\n1 ms\tmain\n1 ms\t  deep\n",
		   "3: symbol at depth 2 under a row at depth 0: a level is missing");
	parse_fail(instruments_parse_lines, "Weight\tSymbol Name\n1 ms\t main\n1 ms\tout\n",
		   "3: symbol indented 0 spaces, less than the first row's 1");
	parse_fail(instruments_parse_lines, "Weight\tSymbol Name\n1 ms\tmain\n1 KB\t f\n",
		   "3: weight \"1 KB\" is in bytes where the rows before are in ns");
	/* A plain count, then a time: not one unit either. */
	parse_fail(instruments_parse_lines, "Weight\tSymbol Name\n??\tmain\n5\t f\n2 ms\t g\n",
		   "4: weight \"2 ms\" is in ns where the rows before are plain counts");
}

/* ---------------------------------------------------------------- pmcstat */

static void
test_pmcstat_chains(void **state)
{
	struct profile_set *ps;
	struct strbuf sb = STRBUF_INIT;
	const struct frame *f;

	(void)state;
	/*
	 * Each chain that ends is a stack, root first here, weighing its last
	 * count; leaf's 10 samples hold 6 + 3 under callers: 1 is left out.
	 * The image stays in force: caller2 is in /bin/app.
	 */
	ps = parse(pmcstat_parse_lines,
		   "@ cycles [12 samples]\n\n"
		   "83.33%  [10]       leaf @ /bin/app\n"
		   " 60.00%  [6]        caller1\n"
		   "  100.0%  [6]         main\n"
		   " 30.00%  [3]        caller2\n"
		   "16.67%  [2]       other one(int) @ /lib/libc.so\n");
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "cycles");
	assert_int_equal(ps->profiles[0]->unit, UNIT_SAMPLES);
	assert_string_equal(samples(ps, 0, &sb),
			    "main;caller1;leaf 6\ncaller2;leaf 3\nother one(int) 2\n");
	f = ps_frame(ps, ps_stack(ps, ps->profiles[0]->stack[1])->frame);
	assert_string_equal(ps_get(ps, f->module), "/bin/app");
	assert_warning(ps, "7: 1 sample under callers pmcstat did not print, left out");
	profile_set_free(ps);

	/* Two events, two profiles; a function keeps its first image. */
	ps = parse(pmcstat_parse_lines,
		   "@ a [1 samples]\n100.0%  [1]  f @ x.so\n"
		   "@ b [2 samples]\n100.0%  [2]  f @ y.so\n bad line\n");
	assert_int_equal(ps->nr_profiles, 2);
	assert_string_equal(samples(ps, 1, &sb), "f 2\n");
	f = ps_frame(ps, ps_stack(ps, ps->profiles[1]->stack[0])->frame);
	assert_string_equal(ps_get(ps, f->module), "x.so");
	assert_warning(ps, "5: 1 line not understood, skipped");
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_pmcstat_edges(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	/* No event line: a profile named "". */
	check(pmcstat_parse_lines, "100.0%  [4]  only\n", "only 4\n");
	/* A caller with no samples still means its callee ends no chain. */
	check(pmcstat_parse_lines, "100.0%  [4]  f\n 0.0%  [0]  g\n50.0%  [2]  h\n", "h 2\n");
	parse_fail(pmcstat_parse_lines, "", "0: no samples found");
	parse_fail(pmcstat_parse_lines, "# comment\nnot pmcstat\n",
		   "1: no pmcstat call graph line (\"12.5%  [42]  function\"), 2 others");
	parse_fail(pmcstat_parse_lines, "100.0%  [4]  f\n   100.0%  [4]  g\n",
		   "2: caller at depth 3 under a line at depth 0: a level is missing");
	/* 10001 callers deep (50 MB of indent). */
	for (int i = 0; i < 10001; i++) {
		strbuf_addchars(&text, ' ', (size_t)i);
		strbuf_addf(&text, "100.0%%  [3]  f%d\n", i % 5);
	}
	ps = parse_len(pmcstat_parse_lines, text.buf, text.len);
	assert_int_equal(ps->profiles[0]->nr_samples, 1);
	assert_int_equal(ps_stack(ps, ps->profiles[0]->stack[0])->depth, 10001);
	profile_set_free(ps);
	strbuf_release(&text);
}

/* ---------------------------------------------------------------- papyrus */

static void
test_papyrus_stacks(void **state)
{
	struct profile_set *ps;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	/*
	 * Times from 500 ms. STACK 1 stays open between f and g (200 ms of
	 * its own); stack 2 starts at 1500 and closes STACK 1 at 1250, its
	 * last event; h's POP at the same time is taken at once; STACK 3
	 * above the bottom closes with k.
	 */
	ps = parse(papyrus_parse_lines,
		   "Script_q log opened (PC)\n"
		   "500:PUSH:1:1:Q (01):q..f\n"
		   "1500:POP:1:1:Q (01):q..f\n"
		   "1700:PUSH:1:2:Q (01):q..g\n"
		   "1750:POP:1:2:Q (01):q..g\n"
		   "2000:PUSH:2:1:None:q..h\n"
		   "2000:PUSH:2:1:None:q..i\n"
		   "2000:POP:2:1:None:q..h\n"
		   "2250:PUSH:3:1:None:q..k\n"
		   "2500:POP:3:1:None:q..k\n"
		   "3000:POP:2:1:None:q..i\n"
		   "Log closed\n");
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "Script_q");
	assert_true(ps->profiles[0]->spans);
	assert_string_equal(samples(ps, 0, &sb),
			    "STACK 1;q..f 1000000000@0\n"
			    "STACK 1 200000000@1000000000\n"
			    "STACK 1;q..g 50000000@1200000000\n"
			    "STACK 2;q..i 250000000@1500000000\n"
			    "STACK 2;q..i;STACK 3;q..k 250000000@1750000000\n"
			    "STACK 2;q..i 500000000@2000000000\n");
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_papyrus_pops(void **state)
{
	struct profile_set *ps;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	/*
	 * A POP before anything happened: run from the start. A POP of a
	 * function that is not innermost later: ignored, with a warning.
	 * A PUSH short of its name is not understood.
	 */
	ps = parse(papyrus_parse_lines,
		   "10:START:7\n10:POP:7:1:None:a\n30:PUSH:7:1:None:b\n40:POP:7:1:None:zz\n"
		   "40:PUSH:7\n50:POP:7:1:None:b\n");
	assert_string_equal(samples(ps, 0, &sb),
			    "STACK 7 20000000@0\nSTACK 7;b 20000000@20000000\n");
	assert_warning(ps, "4: 1 POP line of a function not innermost ignored");
	assert_int_equal(ps->nr_diags, 2);
	profile_set_free(ps);

	/*
	 * The function ends at its ':' (what follows is not its name). c's
	 * POP at c's time would be taken at once, before d starts, but a
	 * line with no fields ends the look-ahead: d starts inside c, and
	 * c's POP, no longer innermost, is ignored.
	 */
	ps = parse(papyrus_parse_lines,
		   "0:PUSH:1:1:F:a:x\n10:PUSH:1:2:F:c\n10:PUSH:1:3:F:d\n??\n10:POP:1:2:F:c:y\n"
		   "20:POP:1:1:F:zz\n");
	assert_string_equal(samples(ps, 0, &sb), "STACK 1;a 10000000@0\n"
						 "STACK 1;a;c;d 10000000@10000000\n");
	profile_set_free(ps);
	ps = parse(papyrus_parse_lines,
		   "0:PUSH:1:1:F:a:x\n10:PUSH:1:2:F:c\n10:PUSH:1:3:F:d\n10:POP:1:2:F:c:y\n"
		   "20:POP:1:1:F:zz\n");
	assert_string_equal(samples(ps, 0, &sb), "STACK 1;a 10000000@0\n"
						 "STACK 1;a;d 10000000@10000000\n");
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_papyrus_edges(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	parse_fail(papyrus_parse_lines, "", "0: no papyrus events");
	parse_fail(papyrus_parse_lines, "X log opened (PC)\nhello\n",
		   "2: not a papyrus log line: no \"time:event:stack\" fields");
	parse_fail(papyrus_parse_lines, "1:PUSH:1:1:N:f\nbye\n",
		   "2: not a papyrus log line: no \"time:event:stack\" fields");
	parse_fail(papyrus_parse_lines, "1:PUSH:x:1:N:f\n", "1: the stack id is not a number");
	parse_fail(papyrus_parse_lines, "t:PUSH:1:1:N:f\n", "1: the time is not a number");
	parse_fail(papyrus_parse_lines, "9:PUSH:1:1:N:f\n5:PUSH:1:1:N:g\n",
		   "2: time goes back (-4 ms after 0)");
	/* 20000 nested calls. */
	for (int i = 0; i < 20000; i++)
		strbuf_addf(&text, "%d:PUSH:1:%d:N:f%d\n", i, i, i % 3);
	for (int i = 19999; i >= 0; i--)
		strbuf_addf(&text, "%d:POP:1:%d:N:f%d\n", 40000 - i, i, i % 3);
	ps = parse_len(papyrus_parse_lines, text.buf, text.len);
	/* STACK 1 plus 20000 calls, the deepest open from 19999 to 20001. */
	assert_int_equal(ps_stack(ps, ps->profiles[0]->stack[19999])->depth, 20001);
	assert_int_equal(ps->profiles[0]->total_weight, (uint64_t)40000 * 1000000);
	profile_set_free(ps);
	strbuf_release(&text);
}

/* ------------------------------------------------------------------ probe */

static int
probe(const struct importer *imp, const char *text)
{
	return imp->probe(text, strlen(text));
}

static void
test_probes(void **state)
{
	(void)state;
	assert_int_equal(probe(&importer_instruments, "Weight\tSelf Weight\t\tSymbol Name\n"), 90);
	assert_int_equal(probe(&importer_instruments, "main;a 1\n"), 0);
	assert_int_equal(probe(&importer_pmcstat, "@ cycles [3 samples]\n\n100.0%  [3]  f\n"),
			 95);
	assert_int_equal(probe(&importer_pmcstat, "main;a 1\n"), 0);
	assert_int_equal(probe(&importer_papyrus, "S log opened (PC)\n1:PUSH:1:1:N:f\n"), 95);
	assert_int_equal(probe(&importer_papyrus, "1:PUSH:1:1:N:f\n"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instruments_tree),
		cmocka_unit_test(test_instruments_versions),
		cmocka_unit_test(test_instruments_allocations),
		cmocka_unit_test(test_instruments_source_path),
		cmocka_unit_test(test_instruments_edges),
		cmocka_unit_test(test_instruments_errors),
		cmocka_unit_test(test_pmcstat_chains),
		cmocka_unit_test(test_pmcstat_edges),
		cmocka_unit_test(test_papyrus_stacks),
		cmocka_unit_test(test_papyrus_pops),
		cmocka_unit_test(test_papyrus_edges),
		cmocka_unit_test(test_probes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
