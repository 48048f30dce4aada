#include "config.h"

#include "tflame/functions.h"

#include <stdlib.h>

#include "test_util.h"

/*
 * A set built from "a;b;c=w" specs (root first, one thread per tid given).
 * Functions a, b, c... in module "m".
 */
static frame_id
mkframe(struct profile_set *ps, const char *name, uint32_t line)
{
	struct frame f = { 0 };

	f.name = ps_str(ps, name, strlen(name));
	f.module = ps_str(ps, "m", 1);
	f.line = line;
	f.flags = line ? FRAME_HAS_LINE : 0;
	return profile_set_frame(ps, &f);
}

static void
add(struct profile_set *ps, struct profile *p, const char *stack, uint64_t w, int tid)
{
	thread_id t = profile_set_thread(ps, 1, tid, STR_EMPTY);
	stack_id s = STACK_ROOT;
	const char *q = stack;

	while (*q) {
		const char *e = strchr(q, ';');
		size_t n = e ? (size_t)(e - q) : strlen(q);
		char name[64];

		memcpy(name, q, n);
		name[n] = '\0';
		s = profile_set_stack(ps, s, mkframe(ps, name, 0));
		q += n + (e ? 1 : 0);
	}
	assert_int_equal(profile_add_sample(p, s, w, 0, false, t, NULL), 0);
}

static func_id
fn(const struct func_table *ft, const struct profile_set *ps, const char *name)
{
	for (func_id f = 0; f < ft->nr_funcs; f++)
		if (!strcmp(ps_get(ps, ft->funcs[f].name), name))
			return f;
	fail_msg("no function %s", name);
	return 0;
}

static void
check_ft(const struct func_table *ft, const struct profile_set *ps)
{
	struct tf_error err = TF_ERROR_INIT;

	if (func_table_check(ft, ps, &err))
		fail_msg("func_table_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

struct fixture {
	struct profile_set *ps;
	struct profile *p;
	struct func_table ft;
	uint64_t *w;
	struct func_stats *st;
	uint64_t total;
};

static void
compute(struct fixture *fx, const bool *keep)
{
	struct sample_filter filter = { .threads = keep };

	func_table_init(&fx->ft, fx->ps);
	fx->w = calloc(fx->ps->nr_stacks, sizeof(*fx->w));
	fx->total = stack_weights(fx->ps, fx->p, &filter, fx->w);
	fx->st = calloc(fx->ft.nr_funcs, sizeof(*fx->st));
	func_stats_compute(&fx->ft, fx->ps, fx->w, fx->st);
	check_ft(&fx->ft, fx->ps);
	check_profile_set(fx->ps);
}

static void
release(struct fixture *fx)
{
	func_table_release(&fx->ft);
	free(fx->w);
	free(fx->st);
	profile_set_free(fx->ps);
}

static void
setup(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	fx->ps = profile_set_new();
	fx->p = profile_set_profile(fx->ps, STR_EMPTY, UNIT_SAMPLES);
}

#define SELF(name) fx.st[fn(&fx.ft, fx.ps, name)].self
#define TOTAL(name) fx.st[fn(&fx.ft, fx.ps, name)].total

static void
test_plain_tree(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	add(fx.ps, fx.p, "main;f;g", 5, 1);
	add(fx.ps, fx.p, "main;f", 3, 1);
	add(fx.ps, fx.p, "main;h", 2, 1);
	add(fx.ps, fx.p, "main;f;g", 1, 1);
	compute(&fx, NULL);
	assert_int_equal(fx.total, 11);
	assert_int_equal(TOTAL("main"), 11);
	assert_int_equal(SELF("main"), 0);
	assert_int_equal(TOTAL("f"), 9);
	assert_int_equal(SELF("f"), 3);
	assert_int_equal(TOTAL("g"), 6);
	assert_int_equal(SELF("g"), 6);
	assert_int_equal(TOTAL("h"), 2);
	release(&fx);
}

static void
test_direct_recursion_counted_once(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	add(fx.ps, fx.p, "a;a;a", 4, 1);
	add(fx.ps, fx.p, "a;a", 1, 1);
	add(fx.ps, fx.p, "b", 2, 1);
	compute(&fx, NULL);
	assert_int_equal(TOTAL("a"), 5); /* not 4*3 + 1*2 */
	assert_int_equal(SELF("a"), 5);
	assert_int_equal(TOTAL("b"), 2);
	release(&fx);
}

static void
test_indirect_recursion_counted_once(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	add(fx.ps, fx.p, "main;a;b;a;b;c", 10, 1);
	add(fx.ps, fx.p, "main;a;b", 1, 1);
	add(fx.ps, fx.p, "main;b;a", 7, 1);
	compute(&fx, NULL);
	assert_int_equal(TOTAL("main"), 18);
	assert_int_equal(TOTAL("a"), 18);
	assert_int_equal(TOTAL("b"), 18);
	assert_int_equal(TOTAL("c"), 10);
	assert_int_equal(SELF("b"), 1);
	assert_int_equal(SELF("a"), 7);
	assert_int_equal(SELF("c"), 10);
	release(&fx);
}

static void
test_thread_filter(void **state)
{
	struct fixture fx;
	bool keep[4] = { false };

	(void)state;
	setup(&fx);
	add(fx.ps, fx.p, "main;f", 5, 100);
	add(fx.ps, fx.p, "main;g", 3, 200);
	add(fx.ps, fx.p, "main;f", 2, 200);
	keep[profile_set_thread(fx.ps, 1, 200, STR_EMPTY)] = true;
	compute(&fx, keep);
	assert_int_equal(fx.total, 5);
	assert_int_equal(TOTAL("main"), 5);
	assert_int_equal(TOTAL("f"), 2);
	assert_int_equal(TOTAL("g"), 3);
	release(&fx);
}

static void
test_lines_group_into_one_function(void **state)
{
	struct fixture fx;
	thread_id t;
	stack_id s1, s2;

	(void)state;
	setup(&fx);
	t = profile_set_thread(fx.ps, 1, 1, STR_EMPTY);
	s1 = profile_set_stack(fx.ps, STACK_ROOT, mkframe(fx.ps, "f", 10));
	s2 = profile_set_stack(fx.ps, STACK_ROOT, mkframe(fx.ps, "f", 20));
	profile_add_sample(fx.p, s1, 1, 0, false, t, NULL);
	profile_add_sample(fx.p, s2, 2, 0, false, t, NULL);
	compute(&fx, NULL);
	assert_int_equal(fx.ps->nr_frames, 2);
	assert_int_equal(fx.ft.nr_funcs, 1);
	assert_int_equal(TOTAL("f"), 3);
	assert_int_equal(SELF("f"), 3);
	release(&fx);
}

static void
test_deep_stack_no_recursion(void **state)
{
	struct fixture fx;
	thread_id t;
	stack_id s = STACK_ROOT;
	frame_id a, b;

	(void)state;
	setup(&fx);
	t = profile_set_thread(fx.ps, 1, 1, STR_EMPTY);
	a = mkframe(fx.ps, "a", 0);
	b = mkframe(fx.ps, "b", 0);
	for (int i = 0; i < 100000; i++) {
		s = profile_set_stack(fx.ps, s, i % 2 ? b : a);
		if (i % 1000 == 999)
			profile_add_sample(fx.p, s, 1, 0, false, t, NULL);
	}
	compute(&fx, NULL);
	assert_int_equal(TOTAL("a"), 100);
	assert_int_equal(TOTAL("b"), 100);
	assert_int_equal(SELF("b"), 100);
	release(&fx);
}

static void
test_stack_links(void **state)
{
	struct profile_set *ps = profile_set_new();
	frame_id a = mkframe(ps, "a", 0), b = mkframe(ps, "b", 0);
	stack_id sa = profile_set_stack(ps, STACK_ROOT, a);
	stack_id sb = profile_set_stack(ps, STACK_ROOT, b);
	stack_id sab = profile_set_stack(ps, sa, b);

	(void)state;
	/* Newest first. */
	assert_int_equal(ps_first_child(ps, STACK_ROOT), sb);
	assert_int_equal(ps_next_sibling(ps, sb), sa);
	assert_int_equal(ps_next_sibling(ps, sa), STACK_ROOT);
	assert_int_equal(ps_first_child(ps, sa), sab);
	assert_int_equal(ps_first_child(ps, sab), STACK_ROOT);
	assert_int_equal(ps_first_child(ps, sb), STACK_ROOT);
	check_profile_set(ps);
	profile_set_free(ps);
}

/*
 * Outermost marks kept in the table give the same numbers as the walk
 * func_stats_compute() does without them, and so do subtree sums given
 * from outside.
 */
static void
test_outermost_marks(void **state)
{
	struct fixture fx;
	struct func_stats *again;
	uint64_t *sub;
	uint64_t seed = 3;
	char path[64];
	struct tf_error err = TF_ERROR_INIT;

	(void)state;
	setup(&fx);
	for (int i = 0; i < 500; i++) {
		size_t pos = 0;
		int depth;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		depth = 1 + (int)((seed >> 33) % 6);
		for (int d = 0; d < depth; d++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			pos += (size_t)snprintf(path + pos, sizeof(path) - pos, "%s%c", d ? ";" : "",
						'a' + (int)((seed >> 33) % 4));
		}
		add(fx.ps, fx.p, path, 1 + (seed >> 58), 1 + i % 2);
	}
	add(fx.ps, fx.p, "a;b;a", 1, 1);
	add(fx.ps, fx.p, "a;a", 1, 1);
	compute(&fx, NULL);
	assert_null(fx.ft.outermost);
	func_table_mark_outermost(&fx.ft, fx.ps);
	assert_int_equal(fx.ft.nr_marked, fx.ps->nr_stacks);
	check_ft(&fx.ft, fx.ps);
	/* a;a: the inner a is not outermost; b under a is. */
	assert_false(func_table_outermost(&fx.ft, test_stack(fx.ps, "a;a")));
	assert_true(func_table_outermost(&fx.ft, test_stack(fx.ps, "a;b")));
	assert_false(func_table_outermost(&fx.ft, test_stack(fx.ps, "a;b;a")));
	assert_true(func_table_outermost(&fx.ft, test_stack(fx.ps, "a")));

	again = calloc(fx.ft.nr_funcs, sizeof(*again));
	func_stats_compute(&fx.ft, fx.ps, fx.w, again);
	assert_memory_equal(again, fx.st, sizeof(*again) * fx.ft.nr_funcs);
	sub = malloc(sizeof(*sub) * fx.ps->nr_stacks);
	memcpy(sub, fx.w, sizeof(*sub) * fx.ps->nr_stacks);
	for (uint32_t i = fx.ps->nr_stacks; i-- > 1;)
		sub[fx.ps->stacks[i].parent] += sub[i];
	memset(again, 0, sizeof(*again) * fx.ft.nr_funcs);
	func_stats_compute_sums(&fx.ft, fx.ps, fx.w, sub, again);
	assert_memory_equal(again, fx.st, sizeof(*again) * fx.ft.nr_funcs);
	assert_true(TOTAL("a") <= fx.total);

	/* Marks for fewer stacks than the set has are not used... */
	test_stack(fx.ps, "d;a;d");
	free(fx.w);
	fx.w = calloc(fx.ps->nr_stacks, sizeof(*fx.w));
	stack_weights(fx.ps, fx.p, NULL, fx.w);
	func_stats_compute(&fx.ft, fx.ps, fx.w, again);
	assert_memory_equal(again, fx.st, sizeof(*again) * fx.ft.nr_funcs);
	/* ...and a damaged mark is caught. */
	{
		stack_id s = test_stack(fx.ps, "a;a");

		fx.ft.outermost[s >> 6] |= (uint64_t)1 << (s & 63);
		assert_int_equal(func_table_check(&fx.ft, fx.ps, &err), -1);
		fx.ft.outermost[s >> 6] &= ~((uint64_t)1 << (s & 63));
	}
	tf_error_release(&err);
	free(sub);
	free(again);
	check_ft(&fx.ft, fx.ps);
	check_profile_set(fx.ps);
	release(&fx);
}

/*
 * A set whose links are deferred (profile_set_defer_links(), as the group
 * by process's) is marked as the same stacks linked are: the walk makes
 * its own lists from the parents.
 */
static void
test_outermost_marks_deferred_links(void **state)
{
	struct fixture fx;
	struct profile_set v;
	struct func_table walked, linked;
	stack_id first;

	(void)state;
	setup(&fx);
	add(fx.ps, fx.p, "a;b;a;c", 1, 1);
	add(fx.ps, fx.p, "a;c;c", 1, 1);
	add(fx.ps, fx.p, "b;a;b", 1, 1);
	add(fx.ps, fx.p, "c", 1, 1);
	/* The same stacks in bulk, in a view whose links wait. */
	profile_set_view_init(&v, fx.ps);
	first = profile_set_add_stacks(&v, fx.ps->nr_stacks - 1);
	for (stack_id s = 1; s < fx.ps->nr_stacks; s++) {
		v.stacks[first + s - 1].parent = fx.ps->stacks[s].parent
							 ? first + fx.ps->stacks[s].parent - 1
							 : STACK_ROOT;
		v.stacks[first + s - 1].frame = fx.ps->stacks[s].frame;
	}
	profile_set_defer_links(&v, first);
	assert_int_equal(v.unlinked_from, first);
	check_profile_set(&v);
	func_table_init(&walked, fx.ps);
	func_table_init(&linked, fx.ps);
	func_table_mark_outermost(&walked, &v);
	func_table_mark_outermost(&linked, fx.ps);
	for (stack_id s = 1; s < fx.ps->nr_stacks; s++)
		assert_int_equal(func_table_outermost(&walked, first + s - 1),
				 func_table_outermost(&linked, s));
	/* a;b;a: the inner a is not outermost. */
	assert_false(func_table_outermost(&linked, test_stack(fx.ps, "a;b;a")));
	/* Linked, the view is marked the same again. */
	profile_set_link_stacks(&v, first);
	assert_int_equal(v.unlinked_from, 0);
	check_profile_set(&v);
	free(linked.outermost);
	linked.outermost = NULL;
	func_table_mark_outermost(&linked, &v);
	assert_memory_equal(linked.outermost, walked.outermost,
			    sizeof(*walked.outermost) * (v.nr_stacks / 64 + 1));
	func_table_release(&walked);
	func_table_release(&linked);
	profile_set_view_release(&v);
	release(&fx);
}

/*
 * A process frame (FRAME_PROCESS) and a function of the same name and
 * module are two functions: the table tells them apart by kind, and the
 * check catches a table that mixes them up.
 */
static void
test_process_is_its_own_function(void **state)
{
	struct fixture fx;
	struct frame pf = { 0 };
	struct tf_error err = TF_ERROR_INIT;
	frame_id proc;
	stack_id s;
	func_id f_proc, f_fn;

	(void)state;
	setup(&fx);
	pf.name = ps_str(fx.ps, "main", 4);
	pf.module = ps_str(fx.ps, "m", 1);
	pf.flags = FRAME_PROCESS;
	proc = profile_set_frame(fx.ps, &pf);
	/* main (the process);main;f */
	s = profile_set_stack(fx.ps, STACK_ROOT, proc);
	s = profile_set_stack(fx.ps, s, mkframe(fx.ps, "main", 0));
	s = profile_set_stack(fx.ps, s, mkframe(fx.ps, "f", 0));
	assert_int_equal(profile_add_sample(fx.p, s, 4, 0, false,
					    profile_set_thread(fx.ps, 1, 1, STR_EMPTY), NULL),
			 0);
	add(fx.ps, fx.p, "main;g", 1, 1);
	compute(&fx, NULL);
	assert_int_equal(fx.ft.nr_funcs, 4);
	f_proc = fx.ft.frame_func[proc];
	f_fn = fx.ft.frame_func[fx.ps->stacks[fx.ps->stacks[s].parent].frame];
	assert_true(f_proc != f_fn);
	assert_true(fx.ft.process[f_proc]);
	assert_false(fx.ft.process[f_fn]);
	assert_int_equal(fx.st[f_proc].total, 4);
	assert_int_equal(fx.st[f_fn].total, 5);
	assert_int_equal(fx.st[f_fn].self, 0);

	fx.ft.process[f_proc] = false;
	assert_int_equal(func_table_check(&fx.ft, fx.ps, &err), -1);
	assert_non_null(strstr(tf_error_text(&err), "another kind"));
	fx.ft.process[f_proc] = true;
	release(&fx);
	tf_error_release(&err);
}

/* A frame name in a module, a process frame or not, for test_extend_as_fresh(). */
static frame_id
frame_in(struct profile_set *ps, const char *name, const char *module, uint32_t line,
	 bool process)
{
	struct frame f = { 0 };

	f.name = ps_str(ps, name, strlen(name));
	f.module = ps_str(ps, module, strlen(module));
	f.line = line;
	f.flags = (line ? FRAME_HAS_LINE : 0) | (process ? FRAME_PROCESS : 0);
	return profile_set_frame(ps, &f);
}

/* The same table as a fresh func_table_init() and func_table_rank_names(). */
static void
assert_as_fresh(const struct func_table *ft, const struct profile_set *ps, bool ranked)
{
	struct func_table fresh;

	func_table_init(&fresh, ps);
	if (ranked)
		func_table_rank_names(&fresh, ps);
	assert_int_equal(ft->nr_funcs, fresh.nr_funcs);
	assert_int_equal(ft->nr_frames, ps->nr_frames);
	for (frame_id f = 0; f < ps->nr_frames; f++)
		assert_int_equal(ft->frame_func[f], fresh.frame_func[f]);
	for (func_id fn = 0; fn < ft->nr_funcs; fn++) {
		assert_int_equal(ft->funcs[fn].name, fresh.funcs[fn].name);
		assert_int_equal(ft->funcs[fn].module, fresh.funcs[fn].module);
		assert_int_equal(ft->process[fn], fresh.process[fn]);
		if (ranked)
			assert_int_equal(ft->name_rank[fn], fresh.name_rank[fn]);
	}
	if (!ranked)
		assert_null(ft->name_rank);
	check_ft(ft, ps);
	func_table_release(&fresh);
}

/*
 * Frames added after the table was made (a collapse-module's, the group
 * by process's) join it as they would a fresh one: old ids kept, new
 * functions after them, the name ranks made room in, the lookup grown.
 */
static void
test_extend_as_fresh(void **state)
{
	static const char *modules[] = { "libc.so.6", "m", "" };
	struct profile_set *ps = profile_set_new();
	struct func_table ft, plain;
	uint64_t seed = 11;
	char name[32];

	(void)state;
	for (int i = 0; i < 200; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		snprintf(name, sizeof(name), "f%03u", (unsigned)(seed >> 33) % 300);
		frame_in(ps, name, modules[(seed >> 40) % 3], (uint32_t)(seed >> 50) % 3, false);
	}
	func_table_init(&ft, ps);
	func_table_rank_names(&ft, ps);
	func_table_init(&plain, ps);
	func_table_mark_outermost(&ft, ps);
	assert_non_null(ft.outermost);
	func_table_extend(&ft, ps);  /* nothing new: nothing changes */
	assert_non_null(ft.outermost);
	assert_as_fresh(&ft, ps, true);

	/*
	 * New names before, among and after the old ones; old names on new
	 * lines (old functions); old names as process frames (new ones);
	 * more than the lookup had room for.
	 */
	for (int i = 0; i < 700; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		switch (i % 5) {
		case 0:
			snprintf(name, sizeof(name), "f%03u", (unsigned)(seed >> 33) % 300);
			frame_in(ps, name, modules[(seed >> 40) % 3], 7, false);
			break;
		case 1:
			snprintf(name, sizeof(name), "f%03u", (unsigned)(seed >> 33) % 300);
			frame_in(ps, name, "", 0, true);
			break;
		case 2:
			snprintf(name, sizeof(name), "A%u", (unsigned)(seed >> 33) % 500);
			frame_in(ps, name, "m", 0, false);
			break;
		case 3:
			snprintf(name, sizeof(name), "f%03ux", (unsigned)(seed >> 33) % 300);
			frame_in(ps, name, modules[(seed >> 40) % 3], 0, false);
			break;
		default:
			snprintf(name, sizeof(name), "zz-%u", (unsigned)(seed >> 33) % 500);
			frame_in(ps, name, "[proc]", 0, true);
			break;
		}
	}
	func_table_extend(&ft, ps);
	assert_null(ft.outermost);
	assert_as_fresh(&ft, ps, true);
	func_table_extend(&plain, ps);
	assert_as_fresh(&plain, ps, false);

	/* A second step: a new function, and each old one on a new line. */
	frame_in(ps, "f150y", "m", 0, false);
	for (func_id fn = 0; fn < plain.nr_funcs; fn++) {
		struct frame f = { 0 };

		f.name = plain.funcs[fn].name;
		f.module = plain.funcs[fn].module;
		f.line = 99;
		f.flags = FRAME_HAS_LINE | (plain.process[fn] ? FRAME_PROCESS : 0);
		profile_set_frame(ps, &f);
	}
	func_table_extend(&ft, ps);
	assert_int_equal(ft.nr_funcs, plain.nr_funcs + 1);
	assert_as_fresh(&ft, ps, true);
	func_table_release(&ft);
	func_table_release(&plain);
	profile_set_free(ps);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_tree),
		cmocka_unit_test(test_direct_recursion_counted_once),
		cmocka_unit_test(test_indirect_recursion_counted_once),
		cmocka_unit_test(test_thread_filter),
		cmocka_unit_test(test_lines_group_into_one_function),
		cmocka_unit_test(test_deep_stack_no_recursion),
		cmocka_unit_test(test_stack_links),
		cmocka_unit_test(test_outermost_marks),
		cmocka_unit_test(test_outermost_marks_deferred_links),
		cmocka_unit_test(test_process_is_its_own_function),
		cmocka_unit_test(test_extend_as_fresh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
