#include "config.h"

#include "tflame/import.h"

#include <stdlib.h>

#include "test_util.h"
#include "tflame/input.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

static const struct import_options default_opts;

/* The path of a file in tests/data/cprofile. */
static char *
data_path(const char *name)
{
	return test_data_path("cprofile", name);
}

/* The bytes of a test file. */
static char *
read_data(const char *name, size_t *len)
{
	char *path = data_path(name);
	struct strbuf sb = STRBUF_INIT;
	FILE *f = fopen(path, "rb");
	char buf[4096];
	size_t n;

	if (!f)
		fail_msg("cannot open %s", path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	free(path);
	return strbuf_detach(&sb, len);
}

/* Load a test file through the importer, as the registry would. */
static struct profile_set *
load(const char *name)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();
	char *path = data_path(name);
	struct input in;

	if (input_open(&in, path, &err) || importer_cprofile.load(&in, &default_opts, ps, &err))
		fail_msg("%s", tf_error_text(&err));
	input_close(&in);
	check_profile_set(ps);
	tf_error_release(&err);
	free(path);
	return ps;
}

/* Parse bytes that must fail with want_msg. */
static void
parse_fail(const char *data, size_t len, const char *want_msg)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();

	assert_int_equal(cprofile_parse(data, len, &default_opts, ps, &err), -1);
	assert_string_equal(err.msg, want_msg);
	check_profile_set(ps);
	profile_set_free(ps);
	tf_error_release(&err);
}

/* Parse bytes that must load; returns the set. */
static struct profile_set *
parse_ok(const char *data, size_t len)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *ps = profile_set_new();

	if (cprofile_parse(data, len, &default_opts, ps, &err))
		fail_msg("cprofile_parse: %s", tf_error_text(&err));
	check_profile_set(ps);
	tf_error_release(&err);
	return ps;
}

/* The summed weight of the samples whose stack is path (root first). */
static uint64_t
self_of(const struct profile_set *ps, const char *path)
{
	const struct profile *p = ps->profiles[0];
	uint64_t sum = 0;
	char buf[4096];

	for (size_t i = 0; i < p->nr_samples; i++)
		if (!strcmp(stack_text(ps, p->stack[i], buf, sizeof(buf)), path))
			sum += p->weight[i];
	return sum;
}

/* The summed weight of the samples at or under path. */
static uint64_t
total_of(const struct profile_set *ps, const char *path)
{
	const struct profile *p = ps->profiles[0];
	size_t n = strlen(path);
	uint64_t sum = 0;
	char buf[4096];

	for (size_t i = 0; i < p->nr_samples; i++) {
		const char *s = stack_text(ps, p->stack[i], buf, sizeof(buf));

		if (!strncmp(s, path, n) && (s[n] == '\0' || s[n] == ';'))
			sum += p->weight[i];
	}
	return sum;
}

#define MAIN "{built-in method builtins.exec};<module> (fib.py:1);main (fib.py:30)"

static void
test_real_file(void **state)
{
	struct profile_set *ps = load("fib.prof");
	const struct profile *p;
	const struct frame *f = NULL;

	(void)state;
	assert_string_equal(ps->format, "cProfile");
	assert_int_equal(ps->nr_profiles, 1);
	p = ps->profiles[0];
	assert_string_equal(ps_get(ps, p->name), "time");
	assert_int_equal(p->unit, UNIT_NANOSECONDS);
	assert_false(p->has_time);
	/* exec's ct plus the profiler's own 'disable' call, in ns */
	assert_int_equal(p->total_weight, 9813417 + 400);
	assert_int_equal(total_of(ps, "{built-in method builtins.exec}"), 9813417);
	assert_int_equal(self_of(ps, "{method 'disable' of '_lsprof.Profiler' objects}"), 400);
	/* One caller: all of fib's ct, recursion folded into one frame. */
	assert_int_equal(self_of(ps, MAIN ";fib (fib.py:3)"), 2734705);
	assert_int_equal(total_of(ps, MAIN ";fib (fib.py:3)"), 2734705);
	/* Two callers: work is split in proportion to each edge's ct. */
	assert_int_equal(total_of(ps, MAIN ";parse (fib.py:22);<listcomp> (fib.py:23);"
				      "work (fib.py:15)"), 2643055);
	/* A node keeps the time it was given: main's ct. */
	assert_int_equal(total_of(ps, MAIN), 9805413);

	for (uint32_t i = 0; i < ps->nr_frames; i++)
		if (!strcmp(frame_name(ps, i), "work (fib.py:15)"))
			f = &ps->frames[i];
	assert_non_null(f);
	assert_string_equal(ps_get(ps, f->file), "fib.py");
	assert_string_equal(ps_get(ps, f->module), "fib.py");
	assert_int_equal(f->line, 15);
	assert_true(f->flags & FRAME_HAS_LINE);
	/* A tree rebuilt from figures: no samples to count. */
	assert_true(p->no_samples);
	profile_set_free(ps);
}

/* The frame named name, or NULL. */
static const struct frame *
frame_named(const struct profile_set *ps, const char *name)
{
	for (uint32_t i = 0; i < ps->nr_frames; i++)
		if (!strcmp(frame_name(ps, i), name))
			return &ps->frames[i];
	return NULL;
}

/*
 * Names as pstats' data gives them, the file shortened below the standard
 * library's lib/pythonX.Y or site-packages, and that short file the
 * module: json's dumps and loads, the script's own decode, a built-in.
 */
static void
test_names(void **state)
{
	static const char *const want[][3] = {
		{ "dumps (json/__init__.py:183)", "json/__init__.py",
		  "/usr/lib/python3.11/json/__init__.py" },
		{ "loads (json/__init__.py:299)", "json/__init__.py",
		  "/usr/lib/python3.11/json/__init__.py" },
		{ "decode (json/decoder.py:332)", "json/decoder.py",
		  "/usr/lib/python3.11/json/decoder.py" },
		{ "decode (jsonwork.py:16)", "jsonwork.py", "jsonwork.py" },
		{ "find_spec (_distutils_hack/__init__.py:89)", "_distutils_hack/__init__.py",
		  "/usr/lib/python3.11/site-packages/_distutils_hack/__init__.py" },
		{ "_find_and_load (<frozen importlib._bootstrap>:1165)",
		  "<frozen importlib._bootstrap>", "<frozen importlib._bootstrap>" },
		{ "{built-in method builtins.exec}", "", "" },
	};
	struct profile_set *ps = load("jsonwork.prof");

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct frame *f = frame_named(ps, want[i][0]);

		if (!f)
			fail_msg("no frame %s", want[i][0]);
		assert_string_equal(ps_get(ps, f->module), want[i][1]);
		assert_string_equal(ps_get(ps, f->file), want[i][2]);
	}
	profile_set_free(ps);
}

/* Mutual recursion never repeats a function on a path. */
static void
test_cycles_cut(void **state)
{
	struct profile_set *ps = load("fib.prof");
	const struct profile *p = ps->profiles[0];

	(void)state;
	for (size_t i = 0; i < p->nr_samples; i++) {
		for (stack_id s = p->stack[i]; s != STACK_ROOT; s = ps->stacks[s].parent)
			for (stack_id t = ps->stacks[s].parent; t != STACK_ROOT;
			     t = ps->stacks[t].parent)
				assert_int_not_equal(ps->stacks[s].frame, ps->stacks[t].frame);
	}
	/* is_even's ct from main stays under main, shared with is_odd. */
	assert_int_equal(total_of(ps, MAIN ";is_even (fib.py:7)"), 309821);
	assert_true(self_of(ps, MAIN ";is_even (fib.py:7);is_odd (fib.py:11)") > 0);
	profile_set_free(ps);
}

/* Older marshal versions of the same data give the same profile. */
static void
test_marshal_versions(void **state)
{
	struct profile_set *a = load("fib.prof");
	const char *names[] = { "v1.prof", "v2.prof" };

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		struct profile_set *b = load(names[k]);
		char s1[4096], s2[4096];

		assert_int_equal(a->profiles[0]->total_weight, b->profiles[0]->total_weight);
		assert_int_equal(a->profiles[0]->nr_samples, b->profiles[0]->nr_samples);
		for (size_t i = 0; i < a->profiles[0]->nr_samples; i++) {
			assert_string_equal(stack_text(a, a->profiles[0]->stack[i], s1, sizeof(s1)),
					    stack_text(b, b->profiles[0]->stack[i], s2, sizeof(s2)));
			assert_int_equal(a->profiles[0]->weight[i], b->profiles[0]->weight[i]);
		}
		profile_set_free(b);
	}
	profile_set_free(a);
}

/* Bare caller counts share a callee's time; recursive calls take none. */
static void
test_count_callers(void **state)
{
	struct profile_set *ps = load("count-callers.prof");

	(void)state;
	assert_int_equal(ps->profiles[0]->total_weight, 9813417 + 400);
	assert_int_equal(total_of(ps, MAIN ";fib (fib.py:3)") > 2000000, 1);
	profile_set_free(ps);
}

/* Longs beyond 64 bits read; a bad entry is skipped with a warning. */
static void
test_bigint_and_bad_entry(void **state)
{
	struct profile_set *ps = load("bigint.prof");

	(void)state;
	assert_int_equal(ps->profiles[0]->total_weight, 2000000000);
	assert_int_equal(self_of(ps, "main (big.py:1);spin (big.py:5)"), 1500000000);
	assert_int_equal(ps->nr_diags, 1);
	assert_non_null(strstr(ps->diags[0].msg, "1 bad pstats entry skipped"));
	profile_set_free(ps);
}

#define S(lit) (lit), sizeof(lit) - 1

static void
test_bad_marshal(void **state)
{
	(void)state;
	parse_fail(S(""), "byte 0: truncated marshal data");
	parse_fail(S("{"), "byte 1: truncated marshal data");
	parse_fail(S("{)\3"), "byte 1: bad marshal data (container size out of range)");
	parse_fail(S("{)\3NNN"), "byte 6: truncated marshal data");
	parse_fail(S("{i\1\0\0"), "byte 1: truncated marshal data");
	parse_fail(S("{z\5ab"), "byte 1: truncated marshal data");
	parse_fail(S("\x01"), "byte 0: unknown marshal type 0x01");
	parse_fail(S("{c"), "byte 1: unsupported marshal type 'c' (code object)");
	parse_fail(S("{r\0\0\0\0"), "byte 1: bad marshal data (invalid reference)");
	/* A dict flagged as a reference that contains itself. */
	parse_fail(S("\xfbr\0\0\0\0N0"),
		   "byte 1: bad marshal data (reference to an unfinished object)");
	parse_fail(S("(\xff\xff\xff\xff"),
		   "byte 0: bad marshal data (container size out of range)");
	parse_fail(S("(\0\0\0\x10NN"), "byte 0: bad marshal data (container size out of range)");
	parse_fail(S("0"), "byte 0: bad marshal data (unexpected NULL)");
	parse_fail(S("{N0"), "byte 2: bad marshal data (unexpected NULL)");
	parse_fail(S("l\1\0\0\0\0\x80"),
		   "byte 0: bad marshal data (digit out of range in long)");
	parse_fail(S("f\3abc"), "byte 0: bad marshal data (float)");
	parse_fail(S("(\0\0\0\0"), "byte 0: not a pstats file: the marshal data is not a dict");
	parse_fail(S("{NN0"), "byte 1: not a pstats entry: key is not (file, line, function)");
}

/* An empty dict is valid pstats with nothing in it. */
static void
test_empty(void **state)
{
	struct profile_set *ps = parse_ok(S("{0"));

	(void)state;
	assert_int_equal(ps->profiles[0]->nr_samples, 0);
	profile_set_free(ps);
}

/* Every prefix of a real file fails cleanly or loads a consistent set. */
static void
test_truncations(void **state)
{
	size_t len;
	char *data = read_data("fib.prof", &len);

	(void)state;
	for (size_t n = 0; n < len; n++) {
		struct tf_error err = TF_ERROR_INIT;
		struct profile_set *ps = profile_set_new();
		char *copy = xmemdup(data, n); /* so ASan sees reads past n */

		if (cprofile_parse(copy, n, &default_opts, ps, &err) == 0)
			fail_msg("a %zu-byte prefix loaded", n);
		assert_non_null(strstr(err.msg, "byte "));
		check_profile_set(ps);
		profile_set_free(ps);
		tf_error_release(&err);
		free(copy);
	}
	free(data);
}

/* Every single-byte change still fails cleanly or loads. */
static void
test_corruptions(void **state)
{
	size_t len;
	char *data = read_data("fib.prof", &len);

	(void)state;
	for (size_t i = 0; i < len; i++) {
		static const unsigned char vals[] = { 0x00, 0x30, 0x72, 0xff, 0x7b, 0x29 };

		for (size_t k = 0; k < ARRAY_SIZE(vals); k++) {
			struct tf_error err = TF_ERROR_INIT;
			struct profile_set *ps = profile_set_new();
			char *copy = xmemdup(data, len);

			copy[i] = (char)vals[k];
			(void)cprofile_parse(copy, len, &default_opts, ps, &err);
			check_profile_set(ps);
			profile_set_free(ps);
			tf_error_release(&err);
			free(copy);
		}
	}
	free(data);
}

static void
test_probe(void **state)
{
	size_t len, len1;
	char *data = read_data("fib.prof", &len);
	char *v1 = read_data("v1.prof", &len1);

	(void)state;
	assert_int_equal(importer_cprofile.probe(data, len), 95);
	assert_int_equal(importer_cprofile.probe(v1, len1), 95);
	assert_int_equal(importer_cprofile.probe(S("main;f 1\n")), 0);
	assert_int_equal(importer_cprofile.probe(S("{\"a\": 1}")), 0);
	assert_int_equal(importer_cprofile.probe(S("{0")), 0);
	assert_ptr_equal(importer_find("cprofile"), &importer_cprofile);
	free(data);
	free(v1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_file),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cycles_cut),
		cmocka_unit_test(test_marshal_versions),
		cmocka_unit_test(test_count_callers),
		cmocka_unit_test(test_bigint_and_bad_entry),
		cmocka_unit_test(test_bad_marshal),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_corruptions),
		cmocka_unit_test(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
