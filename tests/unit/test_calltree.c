#include "config.h"

#include "tflame/calltree.h"

#include <stdlib.h>

#include "tflame/functions.h"

#include "test_util.h"

struct fixture {
	struct profile_set *ps;
	struct profile *p;
	uint64_t *w;
	struct calltree t;
};

static void
setup(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	fx->ps = profile_set_new();
	fx->p = profile_set_profile(fx->ps, STR_EMPTY, UNIT_SAMPLES);
}

static void
check_tree(const struct calltree *t)
{
	struct tf_error err = TF_ERROR_INIT;

	if (calltree_check(t, &err))
		fail_msg("calltree_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

/* Build the tree of the samples so far, on the threads in keep (NULL: all). */
static void
build(struct fixture *fx, const bool *keep)
{
	struct sample_filter filter = { .threads = keep };

	fx->w = calloc(fx->ps->nr_stacks, sizeof(*fx->w));
	stack_weights(fx->ps, fx->p, &filter, fx->w);
	calltree_build(&fx->t, fx->ps, fx->w);
	check_tree(&fx->t);
}

static void
release(struct fixture *fx)
{
	check_tree(&fx->t);
	check_profile_set(fx->ps);
	calltree_release(&fx->t);
	free(fx->w);
	profile_set_free(fx->ps);
}

/* The node of an existing path (looking it up adds nothing). */
static stack_id
node(struct fixture *fx, const char *path)
{
	uint32_t before = fx->ps->nr_stacks;
	stack_id s = test_stack(fx->ps, path);

	assert_int_equal(fx->ps->nr_stacks, before);
	return s;
}

/* The children of n as "a,b,c", by frame name. */
static const char *
kids_text(const struct fixture *fx, stack_id n, char *buf, size_t size)
{
	uint32_t nr;
	const stack_id *k = calltree_kids(&fx->t, n, &nr);
	size_t pos = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < nr; i++)
		pos += (size_t)snprintf(buf + pos, pos < size ? size - pos : 0, "%s%s",
					i ? "," : "",
					frame_name(fx->ps, fx->ps->stacks[k[i]].frame));
	return buf;
}

static void
test_totals_self_and_order(void **state)
{
	struct fixture fx;
	char buf[256];
	stack_id main_, f, g, h;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "main;f;g", 5, -1, 1);
	test_sample(fx.ps, fx.p, "main;h", 2, -1, 1);
	test_sample(fx.ps, fx.p, "main;f", 3, -1, 1);
	test_sample(fx.ps, fx.p, "main;f;g", 1, -1, 1);
	test_sample(fx.ps, fx.p, "main", 1, -1, 1);
	build(&fx, NULL);
	main_ = node(&fx, "main");
	f = node(&fx, "main;f");
	g = node(&fx, "main;f;g");
	h = node(&fx, "main;h");

	assert_int_equal(fx.t.nr_nodes, fx.ps->nr_stacks);
	assert_int_equal(fx.t.total[STACK_ROOT], 12);
	assert_int_equal(fx.t.self[STACK_ROOT], 0);
	assert_int_equal(fx.t.total[main_], 12);
	assert_int_equal(fx.t.self[main_], 1);
	assert_int_equal(fx.t.total[f], 9);
	assert_int_equal(fx.t.self[f], 3);
	assert_int_equal(fx.t.total[g], 6);
	assert_int_equal(fx.t.self[g], 6);
	assert_int_equal(fx.t.total[h], 2);
	/* h was seen before f, but f is heavier. */
	assert_string_equal(kids_text(&fx, main_, buf, sizeof(buf)), "f,h");
	assert_string_equal(kids_text(&fx, STACK_ROOT, buf, sizeof(buf)), "main");
	assert_string_equal(kids_text(&fx, g, buf, sizeof(buf)), "");
	/* Left edges: children from their parent's left edge, heaviest first. */
	assert_int_equal(fx.t.x0[main_], 0);
	assert_int_equal(fx.t.x0[f], 0);
	assert_int_equal(fx.t.x0[g], 0);
	assert_int_equal(fx.t.x0[h], 9);
	release(&fx);
}

static void
test_ties_by_name_then_id(void **state)
{
	struct fixture fx;
	char buf[256];
	struct frame fr = { 0 };
	stack_id x1, x2;
	uint32_t nr;
	const stack_id *k;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "b", 2, -1, 1);
	test_sample(fx.ps, fx.p, "ab", 2, -1, 1);
	test_sample(fx.ps, fx.p, "c", 3, -1, 1);
	test_sample(fx.ps, fx.p, "a", 2, -1, 1);
	test_sample(fx.ps, fx.p, "B", 2, -1, 1);
	/* Two frames named x in different modules: a tie on name, so by id. */
	fr.name = ps_str(fx.ps, "x", 1);
	fr.module = ps_str(fx.ps, "m2", 2);
	x2 = profile_set_stack(fx.ps, STACK_ROOT, profile_set_frame(fx.ps, &fr));
	fr.module = ps_str(fx.ps, "m1", 2);
	x1 = profile_set_stack(fx.ps, STACK_ROOT, profile_set_frame(fx.ps, &fr));
	profile_add_sample(fx.p, x1, 1, 0, false, 0, NULL);
	profile_add_sample(fx.p, x2, 1, 0, false, 0, NULL);
	build(&fx, NULL);

	/* Bytes: "B" < "a" < "ab" < "b". */
	assert_string_equal(kids_text(&fx, STACK_ROOT, buf, sizeof(buf)), "c,B,a,ab,b,x,x");
	k = calltree_kids(&fx.t, STACK_ROOT, &nr);
	assert_int_equal(nr, 7);
	assert_true(x2 < x1);
	assert_int_equal(k[5], x2);
	assert_int_equal(k[6], x1);
	release(&fx);
}

static void
test_long_family_sorted(void **state)
{
	struct fixture fx;
	char name[32];
	uint32_t nr;
	const stack_id *k;

	(void)state;
	setup(&fx);
	/* Enough siblings for the heapsort path, with many ties on weight. */
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "main;f%04d", (i * 7919) % 1000);
		test_sample(fx.ps, fx.p, name, (uint64_t)(i % 13), -1, 1);
	}
	build(&fx, NULL);
	k = calltree_kids(&fx.t, node(&fx, "main"), &nr);
	/* i % 13 == 0 gives weight 0: 77 of the 1000 have none. */
	assert_int_equal(nr, 1000 - 77);
	assert_int_equal(fx.t.total[k[0]], 12);
	assert_int_equal(fx.t.total[k[nr - 1]], 1);
	for (uint32_t i = 1; i < nr; i++) {
		const char *a = frame_name(fx.ps, fx.ps->stacks[k[i - 1]].frame);
		const char *b = frame_name(fx.ps, fx.ps->stacks[k[i]].frame);

		assert_true(fx.t.total[k[i - 1]] > fx.t.total[k[i]] ||
			    (fx.t.total[k[i - 1]] == fx.t.total[k[i]] && strcmp(a, b) < 0));
	}
	release(&fx);
}

static void
test_weightless_nodes_left_out(void **state)
{
	struct fixture fx;
	char buf[256];
	stack_id lonely, zero;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 4, -1, 1);
	zero = test_sample(fx.ps, fx.p, "a;z", 0, -1, 1);
	lonely = test_stack(fx.ps, "a;b;never");
	test_sample(fx.ps, fx.p, "", 3, -1, 1); /* the empty stack: the root's self */
	build(&fx, NULL);
	assert_int_equal(fx.t.total[zero], 0);
	assert_int_equal(fx.t.total[lonely], 0);
	assert_int_equal(fx.t.nr_kids[node(&fx, "a;b")], 0);
	assert_string_equal(kids_text(&fx, node(&fx, "a"), buf, sizeof(buf)), "b");
	assert_int_equal(fx.t.self[STACK_ROOT], 3);
	assert_int_equal(fx.t.total[STACK_ROOT], 7);
	release(&fx);
}

static void
test_recursion(void **state)
{
	struct fixture fx;
	char buf[256];

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;a;a", 4, -1, 1);
	test_sample(fx.ps, fx.p, "a;a", 1, -1, 1);
	test_sample(fx.ps, fx.p, "b", 2, -1, 1);
	test_sample(fx.ps, fx.p, "a;b;a", 1, -1, 1);
	build(&fx, NULL);
	/* The tree keeps every level: a path, not a function, is a node. */
	assert_int_equal(fx.t.total[node(&fx, "a")], 6);
	assert_int_equal(fx.t.total[node(&fx, "a;a")], 5);
	assert_int_equal(fx.t.self[node(&fx, "a;a")], 1);
	assert_int_equal(fx.t.total[node(&fx, "a;a;a")], 4);
	assert_int_equal(fx.t.total[node(&fx, "a;b;a")], 1);
	assert_string_equal(kids_text(&fx, STACK_ROOT, buf, sizeof(buf)), "a,b");
	assert_string_equal(kids_text(&fx, node(&fx, "a"), buf, sizeof(buf)), "a,b");
	release(&fx);
}

static void
test_thread_filter(void **state)
{
	struct fixture fx;
	bool keep[4] = { false };
	char buf[256];

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "main;f", 5, -1, 100);
	test_sample(fx.ps, fx.p, "main;g", 3, -1, 200);
	test_sample(fx.ps, fx.p, "main;f", 2, -1, 200);
	test_sample(fx.ps, fx.p, "other", 9, -1, 100);
	keep[profile_set_thread(fx.ps, 1, 200, STR_EMPTY)] = true;
	build(&fx, keep);
	assert_int_equal(fx.t.total[STACK_ROOT], 5);
	assert_int_equal(fx.t.total[node(&fx, "main;f")], 2);
	/* g is heavier than f on this thread only. */
	assert_string_equal(kids_text(&fx, node(&fx, "main"), buf, sizeof(buf)), "g,f");
	/* other has no weight on this thread: it is not a child of the root. */
	assert_string_equal(kids_text(&fx, STACK_ROOT, buf, sizeof(buf)), "main");
	release(&fx);
}

static void
test_empty_profile(void **state)
{
	struct fixture fx;
	uint32_t nr;

	(void)state;
	setup(&fx);
	test_stack(fx.ps, "a;b");
	build(&fx, NULL);
	assert_int_equal(fx.t.total[STACK_ROOT], 0);
	calltree_kids(&fx.t, STACK_ROOT, &nr);
	assert_int_equal(nr, 0);
	release(&fx);
}

static void
test_deep_stack(void **state)
{
	struct fixture fx;
	thread_id th;
	stack_id s = STACK_ROOT, mid = STACK_ROOT;
	struct frame fa = { 0 }, fb = { 0 };
	frame_id a, b;
	uint32_t nr;

	(void)state;
	setup(&fx);
	th = profile_set_thread(fx.ps, 1, 1, STR_EMPTY);
	fa.name = ps_str(fx.ps, "a", 1);
	fb.name = ps_str(fx.ps, "b", 1);
	a = profile_set_frame(fx.ps, &fa);
	b = profile_set_frame(fx.ps, &fb);
	for (int i = 0; i < 100000; i++) {
		s = profile_set_stack(fx.ps, s, i % 2 ? b : a);
		if (i == 49999)
			mid = s;
	}
	profile_add_sample(fx.p, s, 2, 0, false, th, NULL);
	profile_add_sample(fx.p, mid, 5, 0, false, th, NULL);
	build(&fx, NULL);
	assert_int_equal(fx.t.total[STACK_ROOT], 7);
	assert_int_equal(fx.t.total[1], 7);
	assert_int_equal(fx.t.total[mid], 7);
	assert_int_equal(fx.t.self[mid], 5);
	assert_int_equal(fx.t.total[mid + 1], 2);
	assert_int_equal(fx.t.total[s], 2);
	assert_int_equal(fx.t.x0[s], 0);
	calltree_kids(&fx.t, s - 1, &nr);
	assert_int_equal(nr, 1);
	release(&fx);
}

static void
test_check_catches_damage(void **state)
{
	struct fixture fx;
	struct tf_error err = TF_ERROR_INIT;
	stack_id *k;
	stack_id tmp;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "main;f", 5, -1, 1);
	test_sample(fx.ps, fx.p, "main;g", 3, -1, 1);
	build(&fx, NULL);
	k = fx.t.kids + fx.t.first[node(&fx, "main")];
	tmp = k[0];
	k[0] = k[1];
	k[1] = tmp;
	assert_int_equal(calltree_check(&fx.t, &err), -1);
	/* Swapped siblings are out of place on x, and out of order. */
	assert_non_null(strstr(tf_error_text(&err), "child"));
	k[1] = k[0];
	k[0] = tmp;
	fx.t.self[node(&fx, "main;f")]++;
	assert_int_equal(calltree_check(&fx.t, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "total"));
	fx.t.self[node(&fx, "main;f")]--;
	tf_error_release(&err);
	release(&fx);
}

/* A rebuild over the same set reuses the arrays and gives a fresh build's tree. */
static void
test_rebuild(void **state)
{
	struct fixture fx;
	struct calltree fresh;
	bool keep[2] = { false, true };
	struct sample_filter filter = { .threads = keep };
	uint64_t *self;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "main;f;g", 5, -1, 1);
	test_sample(fx.ps, fx.p, "main;h", 2, -1, 2);
	test_sample(fx.ps, fx.p, "main;f", 3, -1, 2);
	test_sample(fx.ps, fx.p, "other", 4, -1, 1);
	build(&fx, NULL);
	self = fx.t.self;
	stack_weights(fx.ps, fx.p, &filter, fx.w);
	calltree_rebuild(&fx.t, fx.ps, fx.w);
	check_tree(&fx.t);
	assert_ptr_equal(fx.t.self, self);
	calltree_build(&fresh, fx.ps, fx.w);
	assert_int_equal(fx.t.total[STACK_ROOT], 5);
	assert_int_equal(fx.t.total[node(&fx, "other")], 0);
	assert_memory_equal(fx.t.total, fresh.total, sizeof(uint64_t) * fresh.nr_nodes);
	assert_memory_equal(fx.t.x0, fresh.x0, sizeof(uint64_t) * fresh.nr_nodes);
	assert_memory_equal(fx.t.first, fresh.first, sizeof(uint32_t) * fresh.nr_nodes);
	assert_memory_equal(fx.t.nr_kids, fresh.nr_kids, sizeof(uint32_t) * fresh.nr_nodes);
	assert_memory_equal(fx.t.kids, fresh.kids, sizeof(stack_id) * 3);
	calltree_release(&fresh);

	/* A set that grew: the arrays grow to it. */
	test_sample(fx.ps, fx.p, "new;path", 1, -1, 1);
	free(fx.w);
	fx.w = calloc(fx.ps->nr_stacks, sizeof(*fx.w));
	stack_weights(fx.ps, fx.p, NULL, fx.w);
	calltree_rebuild(&fx.t, fx.ps, fx.w);
	assert_int_equal(fx.t.nr_nodes, fx.ps->nr_stacks);
	assert_int_equal(fx.t.total[STACK_ROOT], 15);
	check_tree(&fx.t);
	release(&fx);
}

/*
 * A tree rebuilt for a set past 4 MiB of weights grows its arrays in
 * place of their pages (xgrow_pages()): the 8-byte ones into pages of
 * their own, the 4-byte ones still under that. It must be the tree a
 * fresh build makes, and a rebuild for the small set again, in the big
 * arrays, the small tree.
 */
static void
test_rebuild_grows(void **state)
{
	struct fixture fx;
	struct calltree fresh;
	thread_id th;
	stack_id s = STACK_ROOT;
	const uint32_t n = 600000;
	uint64_t *small;
	uint32_t nr_small;

	(void)state;
	setup(&fx);
	th = profile_set_thread(fx.ps, 1, 1, STR_EMPTY);
	test_sample(fx.ps, fx.p, "main;f;g", 5, -1, 1);
	test_sample(fx.ps, fx.p, "main;h", 2, -1, 1);
	build(&fx, NULL);
	nr_small = fx.ps->nr_stacks;
	/* Families of three, each node with its own weight, some weightless. */
	for (uint32_t i = 0; fx.ps->nr_stacks < n; i++) {
		char name[16];
		struct frame f = { 0 };

		snprintf(name, sizeof(name), "f%u", i);
		f.name = ps_str(fx.ps, name, strlen(name));
		s = profile_set_stack(fx.ps, i % 3 ? s : (stack_id)(i / 3 % 1000 + 1),
				      profile_set_frame(fx.ps, &f));
		if (i % 7)
			profile_add_sample(fx.p, s, i % 5 + 1, 0, false, th, NULL);
	}
	free(fx.w);
	fx.w = calloc(fx.ps->nr_stacks, sizeof(*fx.w));
	stack_weights(fx.ps, fx.p, NULL, fx.w);
	calltree_rebuild(&fx.t, fx.ps, fx.w);
	check_tree(&fx.t);
	assert_true(fx.t.alloc_nodes >= n);
	/* The 8-byte arrays are pages of their own now, on a huge page's edge. */
	assert_int_equal((uintptr_t)fx.t.total % ((uintptr_t)2 << 20), 0);
	calltree_build(&fresh, fx.ps, fx.w);
	assert_int_equal(fx.t.nr_nodes, fresh.nr_nodes);
	assert_memory_equal(fx.t.self, fresh.self, sizeof(uint64_t) * fresh.nr_nodes);
	assert_memory_equal(fx.t.total, fresh.total, sizeof(uint64_t) * fresh.nr_nodes);
	assert_memory_equal(fx.t.x0, fresh.x0, sizeof(uint64_t) * fresh.nr_nodes);
	assert_memory_equal(fx.t.first, fresh.first, sizeof(uint32_t) * fresh.nr_nodes);
	assert_memory_equal(fx.t.nr_kids, fresh.nr_kids, sizeof(uint32_t) * fresh.nr_nodes);
	assert_memory_equal(fx.t.height, fresh.height, sizeof(uint32_t) * fresh.nr_nodes);
	assert_memory_equal(fx.t.deepest, fresh.deepest, sizeof(stack_id) * fresh.nr_nodes);
	assert_memory_equal(fx.t.kids, fresh.kids,
			    sizeof(stack_id) * (fresh.first[fresh.nr_nodes - 1] +
						fresh.nr_kids[fresh.nr_nodes - 1]));
	calltree_release(&fresh);

	/* The first two samples' weights alone, in the big arrays. */
	small = calloc(fx.ps->nr_stacks, sizeof(*small));
	small[node(&fx, "main;f;g")] = 5;
	small[node(&fx, "main;h")] = 2;
	calltree_rebuild(&fx.t, fx.ps, small);
	check_tree(&fx.t);
	assert_int_equal(fx.t.total[STACK_ROOT], 7);
	assert_int_equal(fx.t.total[node(&fx, "main;f")], 5);
	assert_int_equal(fx.t.nr_kids[STACK_ROOT], 1);
	for (uint32_t i = nr_small; i < fx.ps->nr_stacks; i++)
		assert_int_equal(fx.t.total[i], 0);
	calltree_rebuild(&fx.t, fx.ps, fx.w);
	check_tree(&fx.t);
	free(small);
	release(&fx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals_self_and_order),
		cmocka_unit_test(test_ties_by_name_then_id),
		cmocka_unit_test(test_long_family_sorted),
		cmocka_unit_test(test_weightless_nodes_left_out),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_thread_filter),
		cmocka_unit_test(test_empty_profile),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_check_catches_damage),
		cmocka_unit_test(test_rebuild),
		cmocka_unit_test(test_rebuild_grows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
