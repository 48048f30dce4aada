#include "config.h"

#include "tflame/search.h"

#include <stdlib.h>

#include "tflame/calltree.h"
#include "tflame/chart.h"
#include "tflame/functions.h"
#include "tflame/layout.h"
#include "tflame/xalloc.h"

#include "test_util.h"

static void
check_search(const struct search *s, const struct profile_set *ps,
	     const struct func_table *ft)
{
	struct tf_error err = TF_ERROR_INIT;

	if (search_check(s, ps, ft, &err))
		fail_msg("search_check: %s", tf_error_text(&err));
	tf_error_release(&err);
	check_profile_set(ps);
}

static void
check_index(const struct search_index *ix, const struct search *s)
{
	struct tf_error err = TF_ERROR_INIT;

	if (search_index_check(ix, s, &err))
		fail_msg("search_index_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

static struct search_re *
re_ok(const char *pattern)
{
	struct tf_error err = TF_ERROR_INIT;
	struct search_re *re = search_re_new(pattern, strlen(pattern), NULL, &err);

	if (!re)
		fail_msg("cannot compile %s: %s", pattern, tf_error_text(&err));
	tf_error_release(&err);
	return re;
}

static bool
matches(const char *pattern, const char *subject)
{
	struct search_re *re = re_ok(pattern);
	bool m = search_re_match(re, subject, strlen(subject));

	search_re_free(re);
	return m;
}

/* A search of pattern over ps, with its function table. */
static void
search_for(struct search *s, struct func_table *ft, struct profile_set *ps, const char *pattern)
{
	struct search_re *re = re_ok(pattern);

	func_table_init(ft, ps);
	search_init(s, re, ps, ft);
	search_re_free(re);
	check_search(s, ps, ft);
}

static void
release_search(struct search *s, struct func_table *ft)
{
	search_release(s);
	func_table_release(ft);
}

static stack_id
node(struct profile_set *ps, const char *path)
{
	return test_stack(ps, path);
}

/* ------------------------------------------------------------ smart case */

/*
 * Frames named Alloc, alloc, ALLOC and my_alloc: how many a pattern
 * matches, through a whole search over a set, checked.
 */
static uint32_t
names_matched(const char *pattern)
{
	struct profile_set *ps = profile_set_new();
	struct func_table ft;
	struct search s;
	uint32_t nr;

	test_stack(ps, "Alloc;alloc;ALLOC;my_alloc");
	search_for(&s, &ft, ps, pattern);
	nr = s.frames_matched;
	assert_int_equal(s.names_tried, 4);
	check_search(&s, ps, &ft);
	release_search(&s, &ft);
	check_profile_set(ps);
	profile_set_free(ps);
	return nr;
}

static void
names_check(void)
{
	assert_int_equal(names_matched("alloc"), 4);
	assert_int_equal(names_matched("Alloc"), 1);
	assert_int_equal(names_matched("^\\Walloc"), 0);
	assert_int_equal(names_matched("\\w_alloc"), 1);
	assert_int_equal(names_matched("^\\Salloc"), 0);
	assert_int_equal(names_matched("^\\S+alloc"), 1);
	assert_int_equal(names_matched("\\QALLOC\\E"), 1);
}

static void
test_smart_case(void **state)
{
	static const struct {
		const char *pattern;
		bool caseless;
	} cases[] = {
		{ "foo", true },
		{ "Foo", false },
		{ "fOo", false },
		{ "", true },
		/* Escapes name classes, code points and properties, not letters. */
		{ "\\S+", true },
		{ "\\W\\D\\B\\A\\Z\\G\\K\\R\\X\\H\\V\\N", true },
		{ "\\p{Lu}x", true },
		{ "\\P{Greek}", true },
		{ "\\pL\\PN", true },
		{ "\\x{4A}a", true },
		{ "\\xABz", true },
		{ "\\x4AZ", false },
		{ "\\N{U+00C9}", true },
		{ "\\cAx", true },
		{ "\\o{101}", true },
		/* Group names, references, options and verbs are not text either. */
		{ "(?<Name>a)\\k<Name>", true },
		{ "(?P<Name>a)(?P=Name)(?P>Name)", true },
		{ "(?'Name'a)\\k'Name'\\g{Name}", true },
		{ "(?J)(?U)a", true },
		{ "(?Ui:a)", true },
		{ "(*UTF)(*UCP)foo", true },
		{ "(*MARK:NAME)x(*SKIP)", true },
		{ "(?&Name)", true },
		{ "(?<=a)b(?<!c)", true },
		{ "(?<=A)b", false },
		/* Quoted text and classes are text. */
		{ "\\QFoo\\E", false },
		{ "\\Qfoo\\E", true },
		{ "\\Qfoo", true },
		{ "[A-Z]", false },
		{ "[[:upper:]]", true },
		{ "\\\\S", false },
		/* Unicode upper and title case. */
		{ "\xc3\xa9t\xc3\xa9", true },
		{ "\xc3\x89t\xc3\xa9", false },
		{ "\xc7\x85", false },
		{ "\xff\xfe", true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *p = cases[i].pattern;

		if (search_smart_caseless(p, strlen(p)) != cases[i].caseless)
			fail_msg("smart case of %s: want %s", p,
				 cases[i].caseless ? "caseless" : "case-sensitive");
	}
	names_check();
}

static void
test_smart_case_matching(void **state)
{
	struct search_re *re;

	(void)state;
	assert_true(matches("foo", "FOO::bar"));
	assert_true(matches("foo", "xFoOx"));
	assert_false(matches("Foo", "foo"));
	assert_true(matches("Foo", "a::Foo"));
	/* \S is not an upper-case letter: still caseless. */
	assert_true(matches("\\Sbc", "ABC"));
	assert_true(matches("\\w+_Alloc", "my_Alloc"));
	assert_false(matches("\\w+_Alloc", "my_alloc"));
	/* Code points and properties select UTF mode... */
	assert_true(matches("caf\\x{e9}$", "caf\xc3\xa9"));
	assert_true(matches("\\N{U+00E9}", "caf\xc3\xa9"));
	assert_true(matches("caf\\p{L}$", "caf\xc3\xa9"));
	/* ...while a plain ASCII pattern works on bytes: . is one byte. */
	assert_false(matches("caf.$", "caf\xc3\xa9"));
	assert_true(matches("caf..$", "caf\xc3\xa9"));
	/* Non-ASCII folds too. */
	assert_true(matches("\xc3\xa9t\xc3\xa9", "\xc3\x89T\xc3\x89"));
	assert_false(matches("\xc3\x89t\xc3\xa9", "\xc3\xa9t\xc3\xa9"));
	re = re_ok("Alloc");
	assert_false(search_re_caseless(re));
	assert_string_equal(search_re_pattern(re), "Alloc");
	search_re_free(re);
	re = re_ok("alloc");
	assert_true(search_re_caseless(re));
	search_re_free(re);
	/* The empty pattern matches everything. */
	assert_true(matches("", ""));
	assert_true(matches("", "main"));
	assert_int_equal(names_matched(""), 4);
	names_check();
}

static void
test_subjects_not_utf8(void **state)
{
	struct search_re *re;

	(void)state;
	/* Invalid UTF-8 in a name does not hide the valid text around it. */
	assert_true(matches("foo", "\xff\xfe" "foo"));
	assert_true(matches("foo$", "\xc3" "foo"));
	assert_false(matches("bar", "\xff" "foo"));
	/* A subject with a NUL is searched whole. */
	re = re_ok("b$");
	assert_true(search_re_match(re, "a\0b", 3));
	assert_false(search_re_match(re, "a\0b", 1));
	search_re_free(re);
	names_check();
}

/* -------------------------------------------------------------- errors */

static void
expect_error(const char *pattern, size_t len, const char *msg, size_t offset)
{
	struct tf_error err = TF_ERROR_INIT;
	size_t off = 12345;
	char want[64];
	struct search_re *re = search_re_new(pattern, len, &off, &err);

	assert_null(re);
	if (!strstr(tf_error_text(&err), msg))
		fail_msg("%s: message \"%s\" lacks \"%s\"", pattern, tf_error_text(&err), msg);
	snprintf(want, sizeof(want), " at offset %zu", offset);
	if (!strstr(tf_error_text(&err), want))
		fail_msg("%s: message \"%s\" lacks \"%s\"", pattern, tf_error_text(&err), want);
	assert_int_equal(off, offset);
	tf_error_release(&err);
}

static void
test_bad_patterns(void **state)
{
	(void)state;
	expect_error("(abc", 4, "missing closing parenthesis", 4);
	expect_error("abc)", 4, "unmatched closing parenthesis", 3);
	expect_error("[z-a]", 5, "range out of order", 3);
	expect_error("a{2,1}", 6, "numbers out of order", 5);
	expect_error("x\\", 2, "\\ at end of pattern", 2);
	expect_error("*a", 2, "quantifier does not follow a repeatable item", 0);
	expect_error("(?<n>a)(?<n>b)", 14, "two named subpatterns have the same name", 12);
	expect_error("\\p{Nope}", 8, "unknown property", 8);
	/* A pattern that is not UTF-8 is an error too, not a crash. */
	expect_error("a\xff", 2, "UTF-8 error", 1);
	/* A NUL inside the pattern is just a byte. */
	{
		struct tf_error err = TF_ERROR_INIT;
		struct search_re *re = search_re_new("a\0(", 3, NULL, &err);

		assert_null(re);
		assert_non_null(strstr(tf_error_text(&err), "missing closing parenthesis"));
		tf_error_release(&err);
	}
	names_check();
}

/* --------------------------------------------------------- the bitsets */

static void
test_bitsets(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct func_table ft;
	struct search s;
	struct frame f = { 0 };
	frame_id foo_n, foo_line, bar;

	(void)state;
	test_stack(ps, "main;foo;bar");
	test_stack(ps, "main;food");
	/* foo in another module: another function, same name. */
	f.name = ps_str(ps, "foo", 3);
	f.module = ps_str(ps, "n", 1);
	foo_n = profile_set_frame(ps, &f);
	/* foo of module m at a line: the same function as plain foo. */
	f.module = ps_str(ps, "m", 1);
	f.line = 7;
	f.flags = FRAME_HAS_LINE;
	foo_line = profile_set_frame(ps, &f);
	bar = ps->stacks[test_stack(ps, "main;foo;bar")].frame;

	search_for(&s, &ft, ps, "^foo$");
	/* main, foo, bar, food, and foo three ways: 4 distinct names. */
	assert_int_equal(ps->nr_frames, 6);
	assert_int_equal(s.names_tried, 4);
	assert_int_equal(s.frames_matched, 3);
	assert_int_equal(s.funcs_matched, 2);
	assert_true(search_frame(&s, foo_n));
	assert_true(search_frame(&s, foo_line));
	assert_false(search_frame(&s, bar));
	assert_false(search_frame(&s, ps->stacks[test_stack(ps, "main;food")].frame));
	assert_true(search_func(&s, ft.frame_func[foo_n]));
	assert_true(search_func(&s, ft.frame_func[foo_line]));
	assert_false(search_func(&s, ft.frame_func[bar]));
	/* Out of range is no match, never a read past the end. */
	assert_false(search_frame(&s, FRAME_NONE));
	assert_false(search_func(&s, ft.nr_funcs));
	check_search(&s, ps, &ft);
	release_search(&s, &ft);

	/* One function's frames, for marking it in every pane. */
	func_table_init(&ft, ps);
	search_init_func(&s, ps, &ft, ft.frame_func[foo_line]);
	assert_int_equal(s.frames_matched, 2);
	assert_int_equal(s.funcs_matched, 1);
	assert_false(search_frame(&s, foo_n));
	check_search(&s, ps, &ft);
	/* The checker sees a stray bit. */
	{
		struct tf_error err = TF_ERROR_INIT;

		s.frame_bits[bar >> 6] |= (uint64_t)1 << (bar & 63);
		assert_int_equal(search_check(&s, ps, &ft, &err), -1);
		tf_error_release(&err);
		s.frame_bits[bar >> 6] &= ~((uint64_t)1 << (bar & 63));
	}
	check_search(&s, ps, &ft);
	release_search(&s, &ft);
	profile_set_free(ps);
}

/* -------------------------------------------------- matched weight, n/N */

/*
 * One thread, in time order:
 *   main;foo 5, main;bar;foo 3, main;bar 2, other;foo 1.
 * Left Heavy: main [0,10) over bar [0,5) (over foo [0,3)) and foo [5,10);
 * other [10,11) over foo [10,11).
 */
static struct profile_set *
layout_profile(void)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);

	test_sample(ps, p, "main;foo", 5, 1, 1);
	test_sample(ps, p, "main;bar;foo", 3, 2, 1);
	test_sample(ps, p, "main;bar", 2, 3, 1);
	test_sample(ps, p, "other;foo", 1, 4, 1);
	return ps;
}

static void
build_tree(struct calltree *t, struct profile_set *ps, uint64_t **w)
{
	*w = xmalloc(sizeof(**w) * ps->nr_stacks);
	stack_weights(ps, ps->profiles[0], NULL, *w);
	calltree_build(t, ps, *w);
}

static void
test_tree_matched_and_next(void **state)
{
	struct profile_set *ps = layout_profile();
	struct func_table ft;
	struct search s;
	struct search_index ix;
	struct calltree t;
	uint64_t *w, x0, x1;
	stack_id main_foo, bar_foo, other_foo, main_bar;

	(void)state;
	build_tree(&t, ps, &w);
	search_for(&s, &ft, ps, "foo");
	search_index_tree(&ix, &s, &t);
	check_index(&ix, &s);
	main_foo = node(ps, "main;foo");
	bar_foo = node(ps, "main;bar;foo");
	other_foo = node(ps, "other;foo");
	main_bar = node(ps, "main;bar");
	assert_int_equal(t.x0[bar_foo], 0);
	assert_int_equal(t.x0[main_foo], 5);

	assert_int_equal(ix.total, 11);
	assert_int_equal(ix.nr_spans, 3);
	assert_int_equal(search_index_matched(&ix, 0, 11), 9);
	/* Zoomed into main;bar: 3 of its 5. */
	assert_true(calltree_node_range(&t, main_bar, &x0, &x1));
	assert_int_equal(search_index_matched(&ix, x0, x1), 3);
	/* Ranges that cut spans count the part inside. */
	assert_int_equal(search_index_matched(&ix, 2, 6), 2);
	assert_int_equal(search_index_matched(&ix, 3, 5), 0);
	assert_int_equal(search_index_matched(&ix, 4, 11), 6);
	assert_int_equal(search_index_matched(&ix, 7, 7), 0);
	assert_int_equal(search_index_matched(&ix, 9, 3), 0);
	assert_int_equal(search_index_matched(&ix, 0, UINT64_MAX), 9);

	/* Layout order: row 1 left to right, then row 2, then around. */
	assert_int_equal(ix.nr_hits, 3);
	assert_int_equal(search_index_next(&ix, SEARCH_NONE, 0, UINT64_MAX), main_foo);
	assert_int_equal(search_index_next(&ix, main_foo, 0, UINT64_MAX), other_foo);
	assert_int_equal(search_index_next(&ix, other_foo, 0, UINT64_MAX), bar_foo);
	assert_int_equal(search_index_next(&ix, bar_foo, 0, UINT64_MAX), main_foo);
	assert_int_equal(search_index_prev(&ix, main_foo, 0, UINT64_MAX), bar_foo);
	assert_int_equal(search_index_prev(&ix, bar_foo, 0, UINT64_MAX), other_foo);
	assert_int_equal(search_index_prev(&ix, SEARCH_NONE, 0, UINT64_MAX), bar_foo);
	/* From a node that does not match: the next one after its place. */
	assert_int_equal(search_index_next(&ix, node(ps, "main"), 0, UINT64_MAX), main_foo);
	assert_int_equal(search_index_next(&ix, main_bar, 0, UINT64_MAX), main_foo);
	assert_int_equal(search_index_prev(&ix, main_bar, 0, UINT64_MAX), bar_foo);
	assert_int_equal(search_index_prev(&ix, node(ps, "other"), 0, UINT64_MAX), bar_foo);
	/* Zoomed into main;bar: only its foo, and n stays on it. */
	assert_int_equal(search_index_next(&ix, SEARCH_NONE, 0, 5), bar_foo);
	assert_int_equal(search_index_next(&ix, bar_foo, 0, 5), bar_foo);
	assert_int_equal(search_index_prev(&ix, bar_foo, 0, 5), bar_foo);
	/* Zoomed into main: other;foo is out of view. */
	assert_int_equal(search_index_next(&ix, main_foo, 0, 10), bar_foo);
	assert_int_equal(search_index_prev(&ix, bar_foo, 0, 10), main_foo);
	assert_int_equal(search_index_next(&ix, SEARCH_NONE, 3, 5), SEARCH_NONE);
	check_index(&ix, &s);
	search_index_release(&ix);
	release_search(&s, &ft);

	/* No match at all. */
	search_for(&s, &ft, ps, "nothing");
	search_index_tree(&ix, &s, &t);
	check_index(&ix, &s);
	assert_int_equal(search_index_matched(&ix, 0, 11), 0);
	assert_int_equal(search_index_next(&ix, main_foo, 0, UINT64_MAX), SEARCH_NONE);
	assert_int_equal(search_index_prev(&ix, SEARCH_NONE, 0, UINT64_MAX), SEARCH_NONE);
	search_index_release(&ix);
	release_search(&s, &ft);

	calltree_release(&t);
	free(w);
	check_profile_set(ps);
	profile_set_free(ps);
}

/* The box of the chart at (depth, x). */
static uint32_t
box_at(const struct chart *c, uint32_t depth, uint64_t x)
{
	uint32_t b = chart_find(c, depth, x);

	assert_int_not_equal(b, CHART_NONE);
	return b;
}

static void
test_chart_matched_and_next(void **state)
{
	struct profile_set *ps = layout_profile();
	struct func_table ft;
	struct search s;
	struct search_index ix;
	struct timeline tl;
	struct chart c;
	uint32_t foo0, foo1, foo2, bar;

	(void)state;
	/* x as weight: the searches count weight. */
	ps->profiles[0]->has_time = false;
	timeline_build(&tl, ps, ps->profiles[0], NULL);
	c = *timeline_merged(&tl);
	search_for(&s, &ft, ps, "foo");
	search_index_chart(&ix, &s, &c);
	check_index(&ix, &s);
	/* Row 1: foo [0,5), bar [5,10), foo [10,11); row 2: foo [5,8). */
	foo0 = box_at(&c, 1, 0);
	bar = box_at(&c, 1, 5);
	foo1 = box_at(&c, 1, 10);
	foo2 = box_at(&c, 2, 5);
	assert_int_equal(chart_x1(&c, foo2), 8);
	assert_int_equal(ix.total, 11);
	assert_int_equal(search_index_matched(&ix, 0, 11), 9);
	assert_int_equal(search_index_matched(&ix, chart_x0(&c, bar), chart_x1(&c, bar)), 3);
	assert_int_equal(search_index_matched(&ix, 4, 11), 5);

	assert_int_equal(search_index_next(&ix, SEARCH_NONE, 0, UINT64_MAX), foo0);
	assert_int_equal(search_index_next(&ix, foo0, 0, UINT64_MAX), foo1);
	assert_int_equal(search_index_next(&ix, foo1, 0, UINT64_MAX), foo2);
	assert_int_equal(search_index_next(&ix, foo2, 0, UINT64_MAX), foo0);
	assert_int_equal(search_index_prev(&ix, foo0, 0, UINT64_MAX), foo2);
	assert_int_equal(search_index_prev(&ix, bar, 0, UINT64_MAX), foo0);
	assert_int_equal(search_index_next(&ix, bar, 5, 10), foo2);
	assert_int_equal(search_index_next(&ix, foo2, 5, 10), foo2);
	assert_int_equal(search_index_next(&ix, c.nr_boxes, 0, UINT64_MAX), foo0);
	check_index(&ix, &s);
	search_index_release(&ix);
	release_search(&s, &ft);
	timeline_release(&tl);
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * Matched weight is counted once per sample, however many of its frames
 * match: foo;bar;foo matches three times and weighs 4 once.
 */
static void
test_matched_once_per_sample(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	struct func_table ft;
	struct search s;
	struct search_index ix, cx;
	struct calltree t;
	struct timeline tl;
	struct chart c;
	uint64_t *w;

	(void)state;
	test_sample(ps, p, "main;foo;bar;foo", 4, 1, 1);
	test_sample(ps, p, "main;bar", 2, 2, 2);
	test_sample(ps, p, "main;foo", 5, 3, 1);
	test_sample(ps, p, "baz", 1, 4, 2);
	test_sample(ps, p, "main;bar;foo;baz", 3, 5, 1);
	test_sample(ps, p, "main", 6, 6, 1);
	build_tree(&t, ps, &w);
	p->has_time = false;
	timeline_build(&tl, ps, p, NULL);
	c = *timeline_merged(&tl);

	search_for(&s, &ft, ps, "foo|bar");
	search_index_tree(&ix, &s, &t);
	search_index_chart(&cx, &s, &c);
	check_index(&ix, &s);
	check_index(&cx, &s);
	assert_int_equal(ix.total, 21);
	assert_int_equal(search_index_matched(&ix, 0, ix.total), 14);
	assert_int_equal(search_index_matched(&cx, 0, cx.total), 14);
	/* Of main's 20, the same 14. */
	assert_int_equal(t.total[node(ps, "main")], 20);
	search_index_release(&ix);
	search_index_release(&cx);
	release_search(&s, &ft);

	/* "^ba": bar and baz, again once each sample. */
	search_for(&s, &ft, ps, "^ba");
	search_index_tree(&ix, &s, &t);
	search_index_chart(&cx, &s, &c);
	check_index(&ix, &s);
	check_index(&cx, &s);
	assert_int_equal(search_index_matched(&ix, 0, ix.total), 4 + 2 + 1 + 3);
	assert_int_equal(search_index_matched(&cx, 0, cx.total), 10);
	search_index_release(&ix);
	search_index_release(&cx);
	release_search(&s, &ft);

	timeline_release(&tl);
	calltree_release(&t);
	free(w);
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * n/N agree with what layout shows: walking every match with next visits
 * the hits in the order of layout_tree()'s boxes over the whole tree.
 */
static void
test_next_follows_layout(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	struct func_table ft;
	struct search s;
	struct search_index ix;
	struct calltree t;
	struct layout l;
	struct view v;
	uint64_t *w, seed = 7;
	uint32_t cur = SEARCH_NONE, seen = 0;
	char path[256];

	(void)state;
	for (int i = 0; i < 400; i++) {
		size_t pos = 0;
		int depth = 1 + (int)((seed >> 40) % 6);

		for (int d = 0; d < depth; d++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			pos += (size_t)snprintf(path + pos, sizeof(path) - pos, "%sf%u", d ? ";" : "",
						(unsigned)((seed >> 33) % 5));
		}
		test_sample(ps, p, path, 1 + (seed >> 50) % 50, i, 1);
	}
	build_tree(&t, ps, &w);
	search_for(&s, &ft, ps, "f[13]");
	search_index_tree(&ix, &s, &t);
	check_index(&ix, &s);
	layout_init(&l);
	v.x0 = 0;
	v.x1 = t.total[STACK_ROOT];
	v.width = (uint32_t)t.total[STACK_ROOT]; /* a cell a unit: every node has a box */
	v.first_row = 0;
	v.nr_rows = 16;
	v.eighths = false;
	layout_tree(&l, &t, &v);
	assert_true(ix.nr_hits > 10);
	for (size_t i = 0; i < l.nr; i++) {
		stack_id n = l.boxes[i].node;

		if (!search_frame(&s, ps->stacks[n].frame))
			continue;
		cur = search_index_next(&ix, cur, 0, UINT64_MAX);
		assert_int_equal(cur, n);
		seen++;
	}
	assert_int_equal(seen, ix.nr_hits);
	/* And back again with prev. */
	for (size_t i = l.nr; i-- > 0;) {
		stack_id n = l.boxes[i].node;

		if (!search_frame(&s, ps->stacks[n].frame))
			continue;
		assert_int_equal(cur, n);
		cur = search_index_prev(&ix, cur, 0, UINT64_MAX);
	}
	layout_release(&l);
	search_index_release(&ix);
	release_search(&s, &ft);
	calltree_release(&t);
	free(w);
	check_profile_set(ps);
	profile_set_free(ps);
}

/* -------------------------------------------------- a million names */

static void
test_million_names(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct func_table ft;
	struct search s;
	struct frame f = { 0 };
	char name[32];
	const uint32_t n = 1000000;

	(void)state;
	f.module = ps_str(ps, "libbig.so", 9);
	for (uint32_t i = 0; i < n; i++) {
		int len = snprintf(name, sizeof(name), "ns::fn_%07u", i);

		f.name = ps_str(ps, name, (size_t)len);
		profile_set_frame(ps, &f);
	}
	/* fn_00dddd5: i < 100000 and ending in 5. */
	search_for(&s, &ft, ps, "FN_00\\d{4}5$");
	assert_int_equal(s.names_tried, n);
	assert_int_equal(s.frames_matched, 0); /* upper case: case-sensitive */
	release_search(&s, &ft);
	search_for(&s, &ft, ps, "fn_00\\d{4}5$");
	assert_int_equal(s.names_tried, n);
	assert_int_equal(s.frames_matched, 10000);
	assert_int_equal(s.funcs_matched, 10000);
	assert_true(search_frame(&s, 15));
	assert_true(search_frame(&s, 99995));
	assert_false(search_frame(&s, 100005));
	assert_false(search_frame(&s, 16));
	check_search(&s, ps, &ft);
	release_search(&s, &ft);
	profile_set_free(ps);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smart_case),
		cmocka_unit_test(test_smart_case_matching),
		cmocka_unit_test(test_subjects_not_utf8),
		cmocka_unit_test(test_bad_patterns),
		cmocka_unit_test(test_bitsets),
		cmocka_unit_test(test_tree_matched_and_next),
		cmocka_unit_test(test_chart_matched_and_next),
		cmocka_unit_test(test_matched_once_per_sample),
		cmocka_unit_test(test_next_follows_layout),
		cmocka_unit_test(test_million_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
