#include "config.h"

#include "tflame/import.h"

#define PARSE speedscope_parse
#include "test_json_import.h"

#define SCHEMA "\"$schema\": \"https://www.speedscope.app/file-format-schema.json\""
#define FRAMES "\"shared\": {\"frames\": [{\"name\": \"a\", \"file\": \"a.c\", \"line\": 3}, " \
	       "{\"name\": \"b\"}, {\"name\": \"\"}]}"

static void
test_sampled_units(void **state)
{
	struct profile_set *ps;

	(void)state;
	ps = parse("{" SCHEMA ", " FRAMES ", \"profiles\": ["
		   "{\"type\": \"sampled\", \"name\": \"s\", \"unit\": \"milliseconds\","
		   " \"startValue\": 1.5, \"samples\": [[0, 1], [0], []],"
		   " \"weights\": [2, 0.0000015, 1e-3]},"
		   "{\"type\": \"sampled\", \"name\": \"n\", \"unit\": \"none\","
		   " \"samples\": [[1], [1, 2]], \"weights\": [3, 0.25]},"
		   "{\"type\": \"sampled\", \"name\": \"s\", \"unit\": \"nanoseconds\","
		   " \"samples\": [[2]], \"weights\": [7]}]}");
	/* The two profiles in time are two threads of one. */
	assert_int_equal(ps->nr_profiles, 2);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "time");
	assert_int_equal(ps->profiles[0]->unit, UNIT_NANOSECONDS);
	/*
	 * ms to ns exactly, 1.5 ns rounded up; times follow the weights.
	 * A second profile of the same name is a thread of its own.
	 */
	ASSERT_SAMPLES(ps, 0, "a;b 2000000@1500000|0\na 2@3500000|0\n 1000@3500002|0\n"
			      "(anonymous) 7@0|1\n");
	assert_int_equal(ps->threads[2].tid, 1);
	assert_string_equal(ps_get(ps, ps->threads[2].comm), "s");
	/* Decimals in a unit that is no time: scaled, exactly. */
	assert_string_equal(ps_get(ps, ps->profiles[1]->name), "weight");
	assert_int_equal(ps->profiles[1]->unit, UNIT_NONE);
	assert_int_equal(ps->profiles[1]->weight_decimals, 2);
	ASSERT_SAMPLES(ps, 1, "b 300@-|0\nb;(anonymous) 25@-|0\n");
	/* file and line reach the frame. */
	assert_string_equal(ps_get(ps, ps->frames[ps->stacks[ps->profiles[1]->stack[0]].frame].name), "b");
	{
		const struct frame *f = ps_frame(ps, ps->stacks[ps->profiles[0]->stack[1]].frame);

		assert_string_equal(ps_get(ps, f->file), "a.c");
		assert_int_equal(f->line, 3);
		assert_true(f->flags & FRAME_HAS_LINE);
	}
	profile_set_free(ps);
}

static void
test_evented(void **state)
{
	struct profile_set *ps;

	(void)state;
	/* Sorted keys: events before type and unit, profiles before shared. */
	ps = parse("{\"profiles\": [{\"events\": ["
		   "{\"at\": 1, \"frame\": 0, \"type\": \"O\"},"
		   "{\"at\": 2.5, \"frame\": 1, \"type\": \"O\"},"
		   "{\"at\": 2.5, \"frame\": 2, \"type\": \"O\"},"
		   "{\"at\": 2.5, \"frame\": 2, \"type\": \"C\"},"
		   "{\"at\": 4, \"frame\": 1, \"type\": \"C\"},"
		   "{\"at\": 4, \"frame\": 1, \"type\": \"O\"},"
		   "{\"at\": 5, \"frame\": 1, \"type\": \"C\"},"
		   "{\"at\": 9, \"frame\": 0, \"type\": \"C\"}],"
		   " \"name\": \"e\", \"type\": \"evented\", \"unit\": \"microseconds\"}], "
		   FRAMES "}");
	/* Zero-length frames vanish; times are the real start of each span. */
	ASSERT_SAMPLES(ps, 0, "a 1500@1000|0\na;b 1500@2500|0\na;b 1000@4000|0\na 4000@5000|0\n");
	assert_true(ps->profiles[0]->has_time);
	profile_set_free(ps);
}

static void
test_threads(void **state)
{
	struct profile_set *ps;
	const struct thread *t;

	(void)state;
	/*
	 * Names as speedscope gives perf's threads: comm, pid and tid. One
	 * thread twice, and names of no such form, are threads of their own,
	 * numbered in order. activeProfileIndex picks the bytes first.
	 */
	ps = parse("{\"shared\": {\"frames\": [{\"name\": \"f\", \"file\": \"/lib/libx.so\"},"
		   " {\"name\": \"f\", \"file\": \"/lib/liby.so\"}, {\"name\": \"g\","
		   " \"file\": \"g.py\", \"line\": 0}]}, \"profiles\": ["
		   "{\"type\": \"sampled\", \"name\": \"web 1 pid: 10 tid: 11\", \"unit\": \"none\","
		   " \"samples\": [[0]], \"weights\": [1]},"
		   "{\"type\": \"sampled\", \"name\": \"tid: 12\", \"unit\": \"none\","
		   " \"samples\": [[1]], \"weights\": [2]},"
		   "{\"type\": \"sampled\", \"name\": \"web 1 pid: 10 tid: 11\", \"unit\": \"none\","
		   " \"samples\": [[2]], \"weights\": [4]},"
		   "{\"type\": \"sampled\", \"name\": \"pid: 7\", \"unit\": \"bytes\","
		   " \"samples\": [[2]], \"weights\": [8]},"
		   "{\"type\": \"sampled\", \"name\": \"python3\", \"unit\": \"none\","
		   " \"samples\": [[0, 2]], \"weights\": [16]}],"
		   " \"activeProfileIndex\": 3}");
	assert_int_equal(ps->nr_profiles, 2);
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "bytes");
	assert_string_equal(ps_get(ps, ps->profiles[1]->name), "weight");
	ASSERT_SAMPLES(ps, 1, "f 1@-|11\nf 2@-|12\ng 4@-|2\nf;g 16@-|3\n");
	ASSERT_SAMPLES(ps, 0, "g 8@-|-1\n");
	t = &ps->threads[0];
	assert_string_equal(ps_get(ps, t->comm), "web 1");
	assert_int_equal(t->pid, 10);
	assert_int_equal(t->tid, 11);
	t = &ps->threads[1];
	assert_string_equal(ps_get(ps, t->comm), "");
	assert_int_equal(t->pid, -1);
	assert_int_equal(t->tid, 12);
	/* The same thread again: the third profile of its kind. */
	t = &ps->threads[2];
	assert_string_equal(ps_get(ps, t->comm), "web 1 pid: 10 tid: 11");
	assert_int_equal(t->tid, 2);
	t = &ps->threads[3];
	assert_int_equal(t->pid, 7);
	assert_int_equal(t->tid, -1);
	t = &ps->threads[4];
	assert_string_equal(ps_get(ps, t->comm), "python3");
	assert_int_equal(t->pid, -1);
	assert_int_equal(t->tid, 3);
	/* A file with no line is the module: f of libx and f of liby are two. */
	{
		const struct frame *f0 = ps_frame(ps, ps->stacks[ps->profiles[1]->stack[0]].frame);
		const struct frame *f1 = ps_frame(ps, ps->stacks[ps->profiles[1]->stack[1]].frame);
		const struct frame *g = ps_frame(ps, ps->stacks[ps->profiles[1]->stack[2]].frame);

		assert_string_equal(ps_get(ps, f0->module), "/lib/libx.so");
		assert_string_equal(ps_get(ps, f1->module), "/lib/liby.so");
		assert_int_equal(f0->file, STR_EMPTY);
		assert_string_equal(ps_get(ps, g->file), "g.py");
		assert_int_equal(g->module, STR_EMPTY);
	}
	profile_set_free(ps);

	/* An activeProfileIndex out of range, or no index: the file's order. */
	ps = parse("{" FRAMES ", \"profiles\": ["
		   "{\"type\": \"sampled\", \"name\": \"a\", \"unit\": \"none\","
		   " \"samples\": [[0]], \"weights\": [1]},"
		   "{\"type\": \"sampled\", \"name\": \"b\", \"unit\": \"bytes\","
		   " \"samples\": [[0]], \"weights\": [1]}], \"activeProfileIndex\": 2}");
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "weight");
	profile_set_free(ps);
	ps = parse("{" FRAMES ", \"activeProfileIndex\": 0.5, \"profiles\": ["
		   "{\"type\": \"sampled\", \"name\": \"a\", \"unit\": \"none\","
		   " \"samples\": [[0]], \"weights\": [1]},"
		   "{\"type\": \"sampled\", \"name\": \"b\", \"unit\": \"bytes\","
		   " \"samples\": [[0]], \"weights\": [1]}]}");
	assert_string_equal(ps_get(ps, ps->profiles[0]->name), "weight");
	profile_set_free(ps);
}

/*
 * An evented profile of events 0.4 * 10^-digits units apart, a over the
 * whole and b open every other interval: times with one more decimal
 * than is kept when digits is what the unit keeps.
 */
static struct profile_set *
parse_fine_events(const char *unit, int digits)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;

	strbuf_addf(&sb, "{" FRAMES ", \"profiles\": [{\"type\": \"evented\", \"name\": \"e\","
		    " \"unit\": \"%s\", \"events\": [{\"type\": \"O\", \"frame\": 0, \"at\": 0}",
		    unit);
	for (int k = 1; k <= 10; k++)
		strbuf_addf(&sb, ", {\"type\": \"%s\", \"frame\": 1, \"at\": %de-%d}",
			    k % 2 ? "O" : "C", 4 * k, digits + 1);
	strbuf_addf(&sb, ", {\"type\": \"C\", \"frame\": 0, \"at\": 4e-%d}]}]}", digits);
	ps = parse(sb.buf);
	strbuf_release(&sb);
	return ps;
}

static void
test_evented_rounding(void **state)
{
	/*
	 * The times round (halves up) to 0 0 1 1 2 2 2 3 3 4 4 4: the
	 * intervals add up to 4, the rounded end less the rounded start,
	 * where rounding each 0.4 on its own would give 0. b's share is
	 * the sum of its rounded closes less its rounded opens, 2.
	 */
	const char *want = "a 0@0|0\na;b 1@0|0\na 0@1|0\na;b 1@1|0\na 0@2|0\n"
			   "a;b 0@2|0\na 1@2|0\na;b 0@3|0\na 1@3|0\na;b 0@4|0\n";
	struct profile_set *ps;

	(void)state;
	ps = parse_fine_events("microseconds", 3);
	assert_int_equal(ps->profiles[0]->total_weight, 4);
	ASSERT_SAMPLES(ps, 0, want);
	/* Each interval lasts its weight: the time range ends at 4 ns. */
	assert_true(ps->profiles[0]->spans);
	assert_int_equal(ps->profiles[0]->time_max, 4);
	profile_set_free(ps);

	/* A unit that is no time keeps 6 decimals: the same rounding. */
	ps = parse_fine_events("none", 6);
	assert_int_equal(ps->profiles[0]->weight_decimals, 6);
	assert_int_equal(ps->profiles[0]->total_weight, 4);
	assert_false(ps->profiles[0]->spans);
	ASSERT_SAMPLES(ps, 0, "a 0@-|0\na;b 1@-|0\na 0@-|0\na;b 1@-|0\na 0@-|0\n"
			      "a;b 0@-|0\na 1@-|0\na;b 0@-|0\na 1@-|0\na;b 0@-|0\n");
	profile_set_free(ps);
}

static void
test_errors(void **state)
{
	(void)state;
	parse_fails("{" FRAMES ", \"profiles\": [{\"type\": \"evented\", \"name\": \"p\","
		    " \"unit\": \"none\", \"events\": [{\"type\": \"O\", \"frame\": 0, \"at\": 0},"
		    " {\"type\": \"O\", \"frame\": 1, \"at\": 1}, {\"type\": \"C\", \"frame\": 0, \"at\": 2}]}]}",
		    "1: profile 'p': event 3 closes 'a', but 'b' is open");
	parse_fails("{" FRAMES ", \"profiles\": [{\"type\": \"evented\", \"name\": \"p\","
		    " \"unit\": \"none\", \"events\": [{\"type\": \"O\", \"frame\": 0, \"at\": 0}]}]}",
		    "1: profile 'p': 1 frame is never closed, innermost 'a'");
	parse_fails("{" FRAMES ", \"profiles\": [{\"type\": \"evented\", \"name\": \"p\","
		    " \"unit\": \"none\", \"events\": [{\"type\": \"O\", \"frame\": 0, \"at\": 5},"
		    " {\"type\": \"C\", \"frame\": 0, \"at\": 4}]}]}",
		    "1: profile 'p': event 2 goes back in time");
	parse_fails("{" FRAMES ", \"profiles\": [{\"type\": \"sampled\", \"name\": \"p\","
		    " \"samples\": [[0, 7]], \"weights\": [1]}]}",
		    "1: profile 'p' refers to frame 7, but there are 3 frames");
	parse_fails("{" FRAMES ", \"profiles\": [{\"type\": \"sampled\", \"name\": \"p\","
		    " \"samples\": [[0], [1]], \"weights\": [1]}]}",
		    "1: profile 'p' has 2 samples but 1 weights");
	parse_fails("{" FRAMES ", \"profiles\": [{\"type\": \"sampled\", \"samples\": [[-1]]}]}",
		    "1: a sample's frame is not a frame index (at byte 141)");
	parse_fails("{" FRAMES ", \"profiles\": [{\"type\": \"sampled\", \"samples\": [[1.5]]}]}",
		    "1: a sample's frame is not a frame index (at byte 141)");
	parse_fails("{\"profiles\": [{\"type\": \"sampled\", \"samples\": [[0]]}]}",
		    "0: no shared.frames: the profiles name no frames");
	parse_fails("{" FRAMES ", \"profiles\": [{\"type\": \"sampled\", \"samples\": [[0]",
		    "1: unexpected end of input");
	parse_fails("[1, 2]", "1: not a speedscope file: expected an object (at byte 0)");
	parse_fails("{\"profiles\": [{\"type\": \"weird\"}]}",
		    "1: a profile's type is not \"sampled\" or \"evented\" (at byte 23)");
}

static void
test_weight_samples(void **state)
{
	const struct import_options opts = { .weight = WEIGHT_SAMPLES };
	struct profile_set *ps;
	char errbuf[256];

	(void)state;
	ps = try_parse("{" FRAMES ", \"profiles\": [{\"type\": \"sampled\", \"unit\": \"bytes\","
		       " \"samples\": [[0], [1]], \"weights\": [100, 200]}]}", &opts,
		       errbuf, sizeof(errbuf));
	assert_non_null(ps);
	assert_int_equal(ps->profiles[0]->unit, UNIT_SAMPLES);
	ASSERT_SAMPLES(ps, 0, "a 1@-|0\nb 1@-|0\n");
	profile_set_free(ps);
}

static void
test_deep(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct profile_set *ps;

	(void)state;
	/* A 100 000-frame sample is data like any other: no recursion. */
	strbuf_addstr(&sb, "{" FRAMES ", \"profiles\": [{\"type\": \"sampled\", \"samples\": [[");
	for (int i = 0; i < 100000; i++)
		strbuf_addf(&sb, "%s%d", i ? "," : "", i % 2);
	strbuf_addstr(&sb, "]], \"weights\": [1]}]}");
	ps = parse(sb.buf);
	assert_int_equal(ps->stacks[ps->profiles[0]->stack[0]].depth, 100000);
	profile_set_free(ps);
	strbuf_release(&sb);
}

static void
test_probe(void **state)
{
	const char *yes = "{" SCHEMA ", \"profiles\": []}";
	const char *maybe = "{\"shared\": {\"frames\": []}, \"profiles\": [{\"type\": \"sampled\"";

	(void)state;
	assert_int_equal(importer_speedscope.probe(yes, strlen(yes)), 100);
	assert_int_equal(importer_speedscope.probe(maybe, strlen(maybe)), 80);
	assert_int_equal(importer_speedscope.probe("{\"nodes\": []}", 13), 0);
	assert_int_equal(importer_speedscope.probe("[{\"ph\": \"B\"}]", 13), 0);
	assert_int_equal(importer_speedscope.probe("main;a;b 12\n", 12), 0);
	assert_int_equal(importer_speedscope.probe("", 0), 0);
	/* Folded stacks do not take a speedscope file. */
	assert_true(importer_folded.probe(yes, strlen(yes)) < 20);
	assert_int_equal(importer_perf.probe(yes, strlen(yes)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampled_units),
		cmocka_unit_test(test_evented),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_evented_rounding),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_weight_samples),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
