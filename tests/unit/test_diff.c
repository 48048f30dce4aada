#include "config.h"

#include "tflame/diff.h"

#include <math.h>
#include <stdlib.h>

#include "tflame/error.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

#include "test_util.h"

/* ------------------------------------------------------------ diff_scale */

static void
test_scale(void **state)
{
	(void)state;
	/* floor(w * to / from), exactly, past 64-bit products. */
	assert_int_equal(diff_scale(7, 25, 40), 11);
	assert_int_equal(diff_scale(10, 25, 40), 16);
	assert_int_equal(diff_scale(3, 3, 1), 1);
	assert_int_equal(diff_scale(0, 5, 9), 0);
	assert_int_equal(diff_scale(5, 0, 9), 5);
	assert_true(diff_scale(UINT64_MAX / 2, UINT64_MAX / 2, 3) == 3);
	assert_true(diff_scale(UINT64_MAX, 1, 2) == UINT64_MAX);
}

/* --------------------------------------------------------- diff_functions */

/* A side: a set of "root;...;leaf" stacks of one profile. */
struct side {
	struct profile_set *ps;
	struct func_table ft;
	struct func_stats *stats;
	uint64_t total;
	struct diff_side d;
};

/* A sample of stack, its leaf in module mod, the rest in test_stack()'s "m". */
static void
side_add(struct side *s, const char *mod, const char *stack, uint64_t w)
{
	struct profile *p = s->ps->nr_profiles ? s->ps->profiles[0]
					       : profile_set_profile(s->ps, STR_EMPTY, UNIT_SAMPLES);
	const char *leaf = strrchr(stack, ';');
	char parent[128];
	struct frame f = { 0 };
	stack_id st;

	leaf = leaf ? leaf + 1 : stack;
	snprintf(parent, sizeof(parent), "%.*s", leaf > stack ? (int)(leaf - stack - 1) : 0, stack);
	f.name = ps_str(s->ps, leaf, strlen(leaf));
	f.module = ps_str(s->ps, mod, strlen(mod));
	st = profile_set_stack(s->ps, test_stack(s->ps, parent), profile_set_frame(s->ps, &f));
	assert_int_equal(profile_add_sample(p, st, w, 0, false,
					    profile_set_thread(s->ps, 1, 1, STR_EMPTY), NULL), 0);
}

static void
side_done(struct side *s)
{
	uint64_t *w = xcalloc(s->ps->nr_stacks, sizeof(*w));

	func_table_init(&s->ft, s->ps);
	func_table_mark_outermost(&s->ft, s->ps);
	s->stats = xcalloc(s->ft.nr_funcs ? s->ft.nr_funcs : 1, sizeof(*s->stats));
	s->total = stack_weights(s->ps, s->ps->profiles[0], NULL, w);
	func_stats_compute(&s->ft, s->ps, w, s->stats);
	free(w);
	s->d.ps = s->ps;
	s->d.ft = &s->ft;
	s->d.stats = s->stats;
	s->d.total = s->total;
}

static void
side_release(struct side *s)
{
	func_table_release(&s->ft);
	free(s->stats);
	profile_set_free(s->ps);
}

static const struct diff_row *
row(const struct diff_row *rows, size_t nr, const char *name, const char *module)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(rows[i].name, name) && !strcmp(rows[i].module, module))
			return &rows[i];
	fail_msg("no row %s [%s]", name, module);
	return NULL;
}

static void
test_functions(void **state)
{
	struct side base = { .ps = profile_set_new() }, now = { .ps = profile_set_new() };
	struct diff_row *rows;
	const struct diff_row *r;
	size_t nr;

	(void)state;
	side_add(&base, "m", "main;parse;tokenize", 40);
	side_add(&base, "m", "main;gone", 7);
	/* Recursion: fib counts once per sample, on each side. */
	side_add(&base, "m", "main;fib;fib;fib", 12);
	side_add(&base, "libc", "main;memcpy", 1);
	side_done(&base);
	side_add(&now, "m", "main;parse;tokenize", 90);
	side_add(&now, "m", "main;fib;fib", 20);
	side_add(&now, "m", "main;fresh", 4);
	/* The same name in another module is another function. */
	side_add(&now, "libc2", "main;memcpy", 3);
	side_done(&now);

	nr = diff_functions(&base.d, &now.d, 0, &rows);
	/* main parse tokenize gone fib fresh, memcpy twice */
	assert_int_equal(nr, 8);
	r = row(rows, nr, "tokenize", "m");
	assert_int_equal(r->base_self, 40);
	assert_int_equal(r->new_self, 90);
	r = row(rows, nr, "gone", "m");
	assert_int_equal(r->base_total, 7);
	assert_int_equal(r->new_total, 0);
	r = row(rows, nr, "fresh", "m");
	assert_int_equal(r->base_total, 0);
	assert_int_equal(r->new_total, 4);
	r = row(rows, nr, "fib", "m");
	assert_int_equal(r->base_total, 12);
	assert_int_equal(r->new_total, 20);
	assert_int_equal(r->base_self, 12);
	r = row(rows, nr, "main", "m");
	assert_int_equal(r->base_total, 60);
	assert_int_equal(r->new_total, 117);
	assert_int_equal(r->base_self, 0);
	row(rows, nr, "memcpy", "libc");
	row(rows, nr, "memcpy", "libc2");
	/* Shares: main is everything on both sides; tokenize 40/60 -> 90/117. */
	assert_true(diff_share_change(row(rows, nr, "main", "m"), 60, 117) == 0.0);
	assert_true(fabs(diff_share_change(row(rows, nr, "tokenize", "m"), 60, 117) -
			 (100.0 * 90 / 117 - 100.0 * 40 / 60)) < 1e-9);
	free(rows);

	/* By name alone the two memcpy meet; normalised, base is scaled to 117/60. */
	nr = diff_functions(&base.d, &now.d, DIFF_IGNORE_MODULE | DIFF_NORMALIZE, &rows);
	assert_int_equal(nr, 7);
	r = row(rows, nr, "memcpy", "");
	assert_int_equal(r->base_total, 1 * 117 / 60);
	assert_int_equal(r->new_total, 3);
	r = row(rows, nr, "tokenize", "");
	assert_int_equal(r->base_self, 40 * 117 / 60);
	assert_int_equal(r->new_self, 90);
	/* Whole against whole: a share change of 0. */
	r = row(rows, nr, "main", "");
	assert_int_equal(r->base_total, 117);
	assert_true(diff_share_change(r, 117, 117) == 0.0);
	free(rows);

	side_release(&base);
	side_release(&now);
}

/* ------------------------------------------------------ diff_folded_write */

static char *
folded(const char *a, const char *b, unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	struct tf_error err = TF_ERROR_INIT;

	assert_non_null(mem);
	assert_int_equal(diff_folded_write(a, strlen(a), b, strlen(b), flags, mem, &err), 0);
	assert_int_equal(fclose(mem), 0);
	return buf;
}

static void
test_folded(void **state)
{
	char *out;

	(void)state;
	/* Union of stacks, sorted, 0 where missing; repeats add up. */
	out = folded("a;b 3\na;c 5\na;b 1\n", "a;c 2\nz 9\n", 0);
	assert_string_equal(out, "a;b 4 0\na;c 5 2\nz 0 9\n");
	free(out);
	/* -n: each base count scaled on its own and rounded down: 9 * 11 / 9 ... */
	out = folded("a 7\nb 2\n", "a 10\nb 1\n", DIFF_NORMALIZE);
	/* totals 9 and 11: a 7 * 11 / 9 = 8.55 -> 8, b 2 * 11 / 9 = 2.44 -> 2 */
	assert_string_equal(out, "a 8 10\nb 2 1\n");
	free(out);
	/* Equal totals: nothing scaled. */
	out = folded("a 3\n", "b 3\n", DIFF_NORMALIZE);
	assert_string_equal(out, "a 3 0\nb 0 3\n");
	free(out);
	/* The count is the number after the last blank; the stack keeps the rest. */
	out = folded("x y;z  12\n", "x y;z  4\n", 0);
	assert_string_equal(out, "x y;z  12 4\n");
	free(out);
	/* Decimals as the script reads them; lines with no count are skipped. */
	out = folded("a 1.5\nno count here\nb .5\nc 1.2.3\n\n", "a 2.\n", 0);
	assert_string_equal(out, "a 1.5 2\n");
	free(out);
	/* A CR line end is dropped; no final newline is needed. */
	out = folded("a 1\r\nb 2", "", 0);
	assert_string_equal(out, "a 1 0\nb 2 0\n");
	free(out);
	/* Nothing on either side: nothing written. */
	out = folded("", "", DIFF_NORMALIZE);
	assert_string_equal(out, "");
	free(out);
}

/* ---------------------------------------------------------------- join */

/* The weight of p's samples on the stack of names path (root first). */
static uint64_t
weight_at(const struct profile_set *ps, const struct profile *p, const char *path)
{
	char buf[256];
	uint64_t w = 0;

	for (size_t i = 0; i < p->nr_samples; i++)
		if (!strcmp(stack_text(ps, p->stack[i], buf, sizeof(buf)), path))
			w += p->weight[i];
	return w;
}

static void
test_join(void **state)
{
	struct side base = { .ps = profile_set_new() }, now = { .ps = profile_set_new() };
	struct profile *p, *b;
	struct tf_error err = TF_ERROR_INIT;
	uint32_t frames, stacks;
	struct frame f = { 0 };

	(void)state;
	side_add(&base, "m", "main;parse;tokenize", 40);
	side_add(&base, "m", "main;gone", 7);
	side_add(&base, "libc", "main;memcpy", 1);
	/* A frame of base at another line is still the same function. */
	f.name = ps_str(base.ps, "main", 4);
	f.module = ps_str(base.ps, "m", 1);
	f.line = 99;
	f.flags = FRAME_HAS_LINE;
	assert_int_equal(profile_add_sample(base.ps->profiles[0],
					    profile_set_stack(base.ps, STACK_ROOT,
							      profile_set_frame(base.ps, &f)),
					    2, 0, false, 0, NULL), 0);
	side_add(&now, "m", "main;parse;tokenize", 90);
	side_add(&now, "libc2", "main;memcpy", 3);
	frames = now.ps->nr_frames;
	stacks = now.ps->nr_stacks;

	assert_int_equal(diff_join(now.ps, base.ps, 0, &err), 0);
	check_profile_set(now.ps);
	/* Only gone and libc's memcpy are new frames; parse;tokenize is one path. */
	assert_int_equal(now.ps->nr_frames, frames + 2);
	assert_int_equal(now.ps->nr_stacks, stacks + 2);
	assert_int_equal(now.ps->nr_profiles, 2);
	p = now.ps->profiles[0];
	b = diff_other(now.ps, p);
	assert_non_null(b);
	assert_string_equal(ps_get(now.ps, b->name), DIFF_BASE_PREFIX);
	assert_ptr_equal(diff_other(now.ps, b), p);
	assert_int_equal(b->nr_samples, 4);
	assert_int_equal(b->total_weight, 50);
	assert_int_equal(weight_at(now.ps, b, "main;parse;tokenize"), 40);
	assert_int_equal(weight_at(now.ps, p, "main;parse;tokenize"), 90);
	assert_int_equal(weight_at(now.ps, b, "main"), 2);
	assert_int_equal(weight_at(now.ps, b, "main;gone"), 7);
	/* One profile a side pairs whatever the names. */
	b->name = ps_str(now.ps, "base: other", 11);
	assert_ptr_equal(diff_other(now.ps, p), b);
	assert_ptr_equal(diff_other(now.ps, b), p);
	b->name = ps_str(now.ps, DIFF_BASE_PREFIX, strlen(DIFF_BASE_PREFIX));
	/* Joining twice would mix two bases: refused. */
	assert_int_equal(diff_join(now.ps, base.ps, 0, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "base: "));
	tf_error_release(&err);
	side_release(&now);

	/* By name alone, libc's memcpy is libc2's. */
	now.ps = profile_set_new();
	side_add(&now, "m", "main;parse;tokenize", 90);
	side_add(&now, "libc2", "main;memcpy", 3);
	frames = now.ps->nr_frames;
	assert_int_equal(diff_join(now.ps, base.ps, DIFF_IGNORE_MODULE, &err), 0);
	assert_int_equal(now.ps->nr_frames, frames + 1);
	check_profile_set(now.ps);
	profile_set_free(now.ps);
	profile_set_free(base.ps);
}

/*
 * Two builds at two paths: their own functions share no module, so little
 * weight is shared by module and name but most by name; the sides' tables
 * and the sets as loaded say the same.
 */
static void
test_overlap(void **state)
{
	struct side base = { .ps = profile_set_new() }, now = { .ps = profile_set_new() };
	struct diff_overlap o, so;

	(void)state;
	side_add(&base, "/a/prog", "main;parse", 60);
	side_add(&base, "/a/prog", "main;render", 30);
	side_add(&base, "libc", "main;memcpy", 10);
	side_add(&now, "/b/prog", "main;parse", 120);
	side_add(&now, "/b/prog", "main;render", 30);
	side_add(&now, "libc", "main;memcpy", 50);
	side_done(&base);
	side_done(&now);
	diff_side_overlap(&base.d, &now.d, &o);
	/* memcpy: min(10%, 25%); by name also parse 60% and render min(30%, 15%). */
	assert_float_equal(o.by_module, 0.10, 1e-9);
	assert_float_equal(o.by_name, 0.85, 1e-9);
	assert_true(diff_overlap_by_name(&o));
	diff_set_overlap(base.ps, now.ps, &so);
	assert_float_equal(so.by_module, o.by_module, 1e-9);
	assert_float_equal(so.by_name, o.by_name, 1e-9);
	/* The other way round, the same. */
	diff_set_overlap(now.ps, base.ps, &so);
	assert_float_equal(so.by_name, 0.85, 1e-9);

	/* Joined so, parse is one function: its base weight is on new's stack. */
	assert_int_equal(diff_join(now.ps, base.ps, DIFF_IGNORE_MODULE | DIFF_NAMES_AUTO, NULL),
			 0);
	assert_int_equal(now.ps->diff_flags, DIFF_IGNORE_MODULE | DIFF_NAMES_AUTO);
	assert_int_equal(weight_at(now.ps, diff_other(now.ps, now.ps->profiles[0]),
				   "main;parse"), 60);
	check_profile_set(now.ps);
	side_release(&base);
	side_release(&now);

	/* One build twice: most shared by module too, so no reason to drop it. */
	base = (struct side){ .ps = profile_set_new() };
	now = (struct side){ .ps = profile_set_new() };
	side_add(&base, "/a/prog", "main;parse", 60);
	side_add(&base, "/a/prog", "main;render", 40);
	side_add(&now, "/a/prog", "main;parse", 50);
	side_add(&now, "/a/prog", "main;other", 50);
	diff_set_overlap(base.ps, now.ps, &o);
	assert_float_equal(o.by_module, 0.5, 1e-9);
	assert_float_equal(o.by_name, 0.5, 1e-9);
	assert_false(diff_overlap_by_name(&o));
	profile_set_free(base.ps);
	profile_set_free(now.ps);

	/* Two programs: little in common either way. */
	base = (struct side){ .ps = profile_set_new() };
	now = (struct side){ .ps = profile_set_new() };
	side_add(&base, "/a/prog", "main;parse", 100);
	side_add(&now, "/b/tool", "main;scan", 90);
	side_add(&now, "/b/tool", "main;parse", 10);
	diff_set_overlap(base.ps, now.ps, &o);
	assert_float_equal(o.by_module, 0, 1e-9);
	assert_float_equal(o.by_name, 0.1, 1e-9);
	assert_false(diff_overlap_by_name(&o));
	profile_set_free(base.ps);
	profile_set_free(now.ps);
}

/* A differential folded file pairs "after" with "before". */
static void
test_other_before_after(void **state)
{
	struct profile_set *ps = profile_set_new();
	struct profile *a, *b, *c;

	(void)state;
	b = profile_set_profile(ps, ps_str(ps, "before", 6), UNIT_NONE);
	a = profile_set_profile(ps, ps_str(ps, "after", 5), UNIT_NONE);
	c = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	assert_ptr_equal(diff_other(ps, a), b);
	assert_ptr_equal(diff_other(ps, b), a);
	assert_null(diff_other(ps, c));
	/* The explorer and dump show "after", compared with "before". */
	assert_int_equal(diff_first_profile(ps), 1);
	profile_set_free(ps);
}

static void
test_change(void **state)
{
	(void)state;
	assert_int_equal(diff_change(5, 5), DIFF_SAME);
	assert_int_equal(diff_change(0, 0), DIFF_SAME);
	assert_int_equal(diff_change(5, 6), DIFF_GREW);
	assert_int_equal(diff_change(6, 5), DIFF_SHRANK);
	assert_int_equal(diff_change(0, 1), DIFF_NEW);
	assert_int_equal(diff_change(1, 0), DIFF_GONE);
	assert_string_equal(diff_change_sign(DIFF_GREW), "+");
	assert_string_equal(diff_change_sign(DIFF_SHRANK), "-");
	assert_string_equal(diff_change_sign(DIFF_NEW), "new");
	assert_string_equal(diff_change_sign(DIFF_GONE), "gone");
	assert_string_equal(diff_change_sign(DIFF_SAME), "=");
}

/*
 * A box of Left Heavy changes as flamegraph.pl colours it, by its self
 * weight, unless it is wholly new or gone (by its total).
 */
static void
test_box_change(void **state)
{
	(void)state;
	/* A caller whose subtree grew and whose own samples did not: the same. */
	assert_int_equal(diff_box_change(50, 100, 10, 10), DIFF_SAME);
	assert_int_equal(diff_box_change(40, 90, 40, 90), DIFF_GREW);
	assert_int_equal(diff_box_change(20, 5, 20, 5), DIFF_SHRANK);
	/* Its subtree shrank, its own samples grew: grew. */
	assert_int_equal(diff_box_change(100, 60, 10, 30), DIFF_GREW);
	/* Wholly new or gone, self 0 or not. */
	assert_int_equal(diff_box_change(0, 25, 0, 0), DIFF_NEW);
	assert_int_equal(diff_box_change(15, 0, 0, 0), DIFF_GONE);
	/* Self from nothing, in a box the base had: grew, not new. */
	assert_int_equal(diff_box_change(12, 20, 0, 20), DIFF_GREW);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_functions),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_other_before_after),
		cmocka_unit_test(test_change),
		cmocka_unit_test(test_box_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
