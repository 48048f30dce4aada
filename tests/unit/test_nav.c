#include "config.h"

#include "tflame/nav.h"

#include <stdlib.h>

#include "tflame/calltree.h"
#include "tflame/chart.h"
#include "tflame/functions.h"
#include "tflame/inverted.h"
#include "tflame/layout.h"
#include "tflame/model.h"
#include "tflame/sandwich.h"
#include "tflame/search.h"
#include "tflame/strbuf.h"

#include "test_util.h"

/*
 * The navigation interface, each implementation on small hand-made
 * profiles: the order of children, parents, ranges and rows, what the
 * flame view asks of them (at, next_at, child, first), and the inverted
 * tree that nav_inverted() walks.
 */

struct fixture {
	struct profile_set *ps;
	struct profile *p;
	uint64_t *w;
	struct calltree t;
	struct timeline tl;
	struct inverted inv;
	bool have_tree, have_chart, have_inv;
	char text[512];
};

static void
setup(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	fx->ps = profile_set_new();
	fx->p = profile_set_profile(fx->ps, STR_EMPTY, UNIT_SAMPLES);
}

static void
check_nav(const struct nav *nv)
{
	struct tf_error err = TF_ERROR_INIT;

	if (nav_check(nv, &err))
		fail_msg("nav_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

/*
 * Build fx's tree of the samples of the threads mask keeps (NULL: all),
 * in place of the one before, if any.
 */
static void
build_tree_of(struct fixture *fx, const bool *mask)
{
	struct tf_error err = TF_ERROR_INIT;

	if (fx->have_inv)
		inverted_release(&fx->inv);
	fx->have_inv = false;
	if (fx->have_tree)
		calltree_release(&fx->t);
	free(fx->w);
	fx->w = calloc(fx->ps->nr_stacks, sizeof(*fx->w));
	assert_non_null(fx->w);
	stack_weights(fx->ps, fx->p, &(struct sample_filter){ .threads = mask }, fx->w);
	calltree_build(&fx->t, fx->ps, fx->w);
	fx->have_tree = true;
	if (calltree_check(&fx->t, &err))
		fail_msg("calltree_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

static void
build_tree(struct fixture *fx)
{
	build_tree_of(fx, NULL);
}

static void
build_inverted(struct fixture *fx)
{
	struct tf_error err = TF_ERROR_INIT;

	inverted_build(&fx->inv, &fx->t);
	fx->have_inv = true;
	if (inverted_check(&fx->inv, &fx->t, &err))
		fail_msg("inverted_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

static const struct chart *
build_chart(struct fixture *fx)
{
	struct tf_error err = TF_ERROR_INIT;
	const struct chart *c;

	/* x is cumulative weight in file order: ranges by hand. */
	fx->p->has_time = false;
	timeline_build(&fx->tl, fx->ps, fx->p, NULL);
	fx->have_chart = true;
	c = timeline_merged(&fx->tl);
	if (chart_check(c, &err))
		fail_msg("chart_check: %s", tf_error_text(&err));
	tf_error_release(&err);
	return c;
}

static void
release(struct fixture *fx)
{
	check_profile_set(fx->ps);
	if (fx->have_inv)
		inverted_release(&fx->inv);
	if (fx->have_tree)
		calltree_release(&fx->t);
	if (fx->have_chart)
		timeline_release(&fx->tl);
	free(fx->w);
	profile_set_free(fx->ps);
}

/* The call path of node n, root first, "a;b;c". */
static const char *
path_of(struct fixture *fx, const struct nav *nv, uint32_t n)
{
	if (n == NAV_NONE)
		return "(none)";
	return stack_text(nv->ps, nv->ops->stack(nv, n), fx->text, sizeof(fx->text));
}

/* Assert n's range. */
static void
assert_range(const struct nav *nv, uint32_t n, uint64_t x0, uint64_t x1)
{
	uint64_t a, b;

	assert_int_not_equal(n, NAV_NONE);
	nv->ops->range(nv, n, &a, &b);
	assert_int_equal(a, x0);
	assert_int_equal(b, x1);
}

/* The node of the nav whose path is path (the first valid one), or a failure. */
static uint32_t
node(const struct nav *nv, const char *path)
{
	uint32_t n = nav_find_path(nv, path);

	if (n == NAV_NONE)
		fail_msg("no node %s", path);
	return n;
}

/*
 * m 100: f 50 (g 30, h 20), k 30 (l 30), n 20, recorded in that order,
 * plus a stack with no weight.
 */
static void
sample_tree(struct fixture *fx)
{
	setup(fx);
	test_sample(fx->ps, fx->p, "m;f;g", 30, -1, 1);
	test_sample(fx->ps, fx->p, "m;f;h", 20, -1, 1);
	test_sample(fx->ps, fx->p, "m;k;l", 30, -1, 1);
	test_sample(fx->ps, fx->p, "m;n", 20, -1, 1);
	test_stack(fx->ps, "m;n;never");
}

/* What the tree and the chart of sample_tree() share: one layout of x. */
static void
check_sample_shape(struct fixture *fx, const struct nav *nv)
{
	const struct nav_ops *o = nv->ops;
	uint32_t m = node(nv, "m"), f = node(nv, "m;f"), g = node(nv, "m;f;g");
	uint32_t h = node(nv, "m;f;h"), k = node(nv, "m;k"), l = node(nv, "m;k;l");
	uint32_t n = node(nv, "m;n");

	check_nav(nv);
	assert_int_equal(nv->total, 100);
	assert_int_equal(o->depth(nv), 3);
	/* Heaviest first from the parent's left edge. */
	assert_range(nv, m, 0, 100);
	assert_range(nv, f, 0, 50);
	assert_range(nv, k, 50, 80);
	assert_range(nv, n, 80, 100);
	assert_range(nv, g, 0, 30);
	assert_range(nv, h, 30, 50);
	assert_range(nv, l, 50, 80);
	assert_int_equal(nav_weight(nv, k), 30);
	/* Parents and rows. */
	assert_int_equal(o->parent(nv, m), NAV_NONE);
	assert_int_equal(o->parent(nv, f), m);
	assert_int_equal(o->parent(nv, h), f);
	assert_int_equal(o->parent(nv, l), k);
	assert_int_equal(o->row(nv, m), 0);
	assert_int_equal(o->row(nv, n), 1);
	assert_int_equal(o->row(nv, g), 2);
	assert_string_equal(frame_name(nv->ps, nav_frame(nv, h)), "h");
	/* Self: outside the children's ranges. */
	assert_int_equal(o->self(nv, m), 0);
	assert_int_equal(o->self(nv, f), 0);
	assert_int_equal(o->self(nv, n), 20);
	assert_int_equal(o->self(nv, g), 30);
	/* Children in x order: heaviest first here. */
	assert_int_equal(nav_next_kid(nv, NAV_NONE, NAV_NONE), m);
	assert_int_equal(nav_next_kid(nv, NAV_NONE, m), NAV_NONE);
	assert_int_equal(nav_next_kid(nv, m, NAV_NONE), f);
	assert_int_equal(nav_next_kid(nv, m, f), k);
	assert_int_equal(nav_next_kid(nv, m, k), n);
	assert_int_equal(nav_next_kid(nv, m, n), NAV_NONE);
	assert_int_equal(nav_next_kid(nv, f, g), h);
	assert_int_equal(nav_next_kid(nv, n, NAV_NONE), NAV_NONE);
	/* at: the node of a row over x. */
	assert_int_equal(o->at(nv, 1, 0), f);
	assert_int_equal(o->at(nv, 1, 49), f);
	assert_int_equal(o->at(nv, 1, 50), k);
	assert_int_equal(o->at(nv, 2, 85), NAV_NONE);
	assert_int_equal(o->at(nv, 0, 100), NAV_NONE);
	assert_int_equal(o->at(nv, 3, 10), NAV_NONE);
	/* next_at: across gaps where a subtree is shallower. */
	assert_int_equal(o->next_at(nv, 1, 50, 1), k);
	assert_int_equal(o->next_at(nv, 1, 50, -1), f);
	assert_int_equal(o->next_at(nv, 2, 50, -1), h);
	assert_int_equal(o->next_at(nv, 2, 50, 1), l);
	assert_int_equal(o->next_at(nv, 2, 80, 1), NAV_NONE);
	assert_int_equal(o->next_at(nv, 2, 0, -1), NAV_NONE);
	assert_int_equal(o->next_at(nv, 1, 100, 1), NAV_NONE);
	/* child: the heaviest, or the heaviest in view. */
	assert_int_equal(o->child(nv, m, 0, 100), f);
	assert_int_equal(o->child(nv, m, 60, 100), k);
	assert_int_equal(o->child(nv, f, 0, 100), g);
	assert_int_equal(o->child(nv, g, 0, 100), NAV_NONE);
	assert_int_equal(o->first(nv), m);
	assert_int_equal(o->first_in(nv, 40, 60), m);
	/* find: a stack, where it is. */
	assert_int_equal(o->find(nv, test_stack(fx->ps, "m;k"), 60), k);
	assert_int_equal(o->find(nv, STACK_ROOT, 0), NAV_NONE);
	assert_int_equal(nav_find_path(nv, "m;k;g"), NAV_NONE);
	assert_int_equal(nav_find_path(nv, "m;n;never"), NAV_NONE);
}

/* Lay out through the ops and read the boxes back as paths. */
static void
assert_layout(struct fixture *fx, const struct nav *nv, uint32_t width, const char *want)
{
	struct view v = { 0, nv->total, width, 0, 8, false };
	struct tf_error err = TF_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct layout l;

	layout_init(&l);
	nv->ops->layout(nv, &l, &v);
	if (layout_check(&l, &v, &err))
		fail_msg("layout_check: %s", tf_error_text(&err));
	for (size_t i = 0; i < l.nr; i++)
		strbuf_addf(&sb, "%s%u:%u-%u %s", i ? "\n" : "", l.boxes[i].row, l.boxes[i].col0,
			    l.boxes[i].col1, path_of(fx, nv, l.boxes[i].node));
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
	layout_release(&l);
	tf_error_release(&err);
}

static void
test_tree(void **state)
{
	struct fixture fx;
	struct nav nv;

	(void)state;
	sample_tree(&fx);
	build_tree(&fx);
	nav_tree(&nv, &fx.t);
	assert_true(nv.paths);
	assert_false(nv.inverted);
	assert_null(nv.chart);
	check_sample_shape(&fx, &nv);
	/* Stack ids: the node is the stack. */
	assert_int_equal(node(&nv, "m;k;l"), test_stack(fx.ps, "m;k;l"));
	assert_false(nv.ops->valid(&nv, test_stack(fx.ps, "m;n;never")));
	assert_layout(&fx, &nv, 10,
		      "0:0-10 m\n"
		      "1:0-5 m;f\n1:5-8 m;k\n1:8-10 m;n\n"
		      "2:0-3 m;f;g\n2:3-5 m;f;h\n2:5-8 m;k;l");
	release(&fx);
}

static void
test_chart(void **state)
{
	struct fixture fx;
	const struct chart *c;
	struct nav nv;

	(void)state;
	sample_tree(&fx);
	c = build_chart(&fx);
	nav_chart(&nv, c);
	assert_false(nv.paths);
	assert_ptr_equal(nv.chart, c);
	/* Recorded heaviest first, so the chart is laid out as the tree is. */
	check_sample_shape(&fx, &nv);
	assert_int_equal(nv.end, c->nr_boxes);
	/* Box indexes, by row then x: m, then f k n, then g h l. */
	assert_int_equal(node(&nv, "m"), 0);
	assert_int_equal(node(&nv, "m;n"), 3);
	assert_int_equal(node(&nv, "m;k;l"), 6);
	assert_false(nv.ops->valid(&nv, c->nr_boxes));
	assert_layout(&fx, &nv, 10,
		      "0:0-10 m\n"
		      "1:0-5 m;f\n1:5-8 m;k\n1:8-10 m;n\n"
		      "2:0-3 m;f;g\n2:3-5 m;f;h\n2:5-8 m;k;l");
	release(&fx);
}

/* A chart in file order: the same path twice is two boxes, where they are. */
static void
test_chart_order(void **state)
{
	struct fixture fx;
	const struct chart *c;
	struct nav nv;
	uint32_t a0, a1;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;x", 10, -1, 1);
	test_sample(fx.ps, fx.p, "b", 5, -1, 1);
	test_sample(fx.ps, fx.p, "a;y", 30, -1, 1);
	c = build_chart(&fx);
	nav_chart(&nv, c);
	check_nav(&nv);
	a0 = nv.ops->at(&nv, 0, 0);
	a1 = nv.ops->at(&nv, 0, 20);
	assert_int_not_equal(a0, a1);
	assert_string_equal(path_of(&fx, &nv, a0), "a");
	assert_string_equal(path_of(&fx, &nv, a1), "a");
	assert_range(&nv, a0, 0, 10);
	assert_range(&nv, a1, 15, 45);
	/* The widest box of row 0 comes first, and is what a range shows. */
	assert_int_equal(nv.ops->first(&nv), a1);
	assert_int_equal(nv.ops->first_in(&nv, 0, 12), a0);
	assert_int_equal(nv.ops->find(&nv, test_stack(fx.ps, "a;y"), 20),
			 nv.ops->at(&nv, 1, 20));
	/* The one stack is two places: find() takes the one at x. */
	assert_int_equal(nv.ops->find(&nv, test_stack(fx.ps, "a"), 5), a0);
	assert_int_equal(nv.ops->find(&nv, test_stack(fx.ps, "a"), 40), a1);
	assert_int_equal(nv.ops->next_at(&nv, 0, 10, 1), nv.ops->at(&nv, 0, 12));
	assert_int_equal(nv.ops->next_at(&nv, 0, 15, -1), nv.ops->at(&nv, 0, 12));
	release(&fx);
}

/*
 * The inverted tree of a profile with recursion (expr;expr) and functions
 * at several depths (lex under parse and under expr; alloc under eval and
 * main; main a leaf and the root).
 */
static void
sample_inverted(struct fixture *fx)
{
	setup(fx);
	test_sample(fx->ps, fx->p, "main;parse;lex", 30, -1, 1);
	test_sample(fx->ps, fx->p, "main;parse;expr;expr;lex", 10, -1, 1);
	test_sample(fx->ps, fx->p, "main;eval;expr;expr", 20, -1, 1);
	test_sample(fx->ps, fx->p, "main;eval;alloc", 15, -1, 1);
	test_sample(fx->ps, fx->p, "main;alloc", 5, -1, 1);
	test_sample(fx->ps, fx->p, "main", 5, -1, 1);
	build_tree(fx);
	build_inverted(fx);
}

static void
test_inverted(void **state)
{
	struct fixture fx;
	struct nav nv;
	const struct nav_ops *o;
	uint32_t lex, alloc, expr, main_, n;

	(void)state;
	sample_inverted(&fx);
	nav_inverted(&nv, &fx.inv.tree);
	o = nv.ops;
	check_nav(&nv);
	assert_true(nv.inverted);
	assert_true(nv.paths);
	assert_ptr_equal(nv.ps, &fx.inv.view);
	assert_int_equal(nv.total, 85);
	/* Row 0: what ran, heaviest first (a tie by name); each once. */
	lex = node(&nv, "lex");
	alloc = node(&nv, "alloc");
	expr = node(&nv, "expr");
	main_ = node(&nv, "main");
	assert_range(&nv, lex, 0, 40);
	assert_range(&nv, alloc, 40, 60);
	assert_range(&nv, expr, 60, 80);
	assert_range(&nv, main_, 80, 85);
	assert_int_equal(o->first(&nv), lex);
	/* Below: the callers, heaviest first. */
	n = nav_next_kid(&nv, lex, NAV_NONE);
	assert_int_equal(n, node(&nv, "lex;parse"));
	assert_int_equal(nav_next_kid(&nv, lex, n), node(&nv, "lex;expr"));
	assert_int_equal(nav_next_kid(&nv, lex, node(&nv, "lex;expr")), NAV_NONE);
	assert_int_equal(nav_next_kid(&nv, NAV_NONE, lex), alloc);
	assert_int_equal(nav_next_kid(&nv, NAV_NONE, main_), NAV_NONE);
	assert_range(&nv, node(&nv, "lex;parse"), 0, 30);
	assert_range(&nv, node(&nv, "lex;expr"), 30, 40);
	assert_range(&nv, node(&nv, "lex;parse;main"), 0, 30);
	assert_range(&nv, node(&nv, "alloc;eval"), 40, 55);
	assert_range(&nv, node(&nv, "alloc;main"), 55, 60);
	/* Recursion is kept, read from the leaf. */
	n = node(&nv, "lex;expr;expr;parse;main");
	assert_range(&nv, n, 30, 40);
	assert_int_equal(o->row(&nv, n), 4);
	assert_range(&nv, node(&nv, "expr;expr;eval;main"), 60, 80);
	assert_int_equal(o->parent(&nv, node(&nv, "expr;expr")), expr);
	/* Self: the samples whose outermost frame a node is. */
	assert_int_equal(o->self(&nv, node(&nv, "lex;parse;main")), 30);
	assert_int_equal(o->self(&nv, lex), 0);
	assert_int_equal(o->self(&nv, main_), 5);
	assert_int_equal(o->depth(&nv), 5);
	assert_int_equal(o->child(&nv, lex, 0, 85), node(&nv, "lex;parse"));
	assert_int_equal(o->child(&nv, lex, 35, 85), node(&nv, "lex;expr"));
	assert_int_equal(o->next_at(&nv, 1, 40, 1), node(&nv, "alloc;eval"));
	assert_int_equal(o->at(&nv, 2, 70), node(&nv, "expr;expr;eval"));
	/* The walks: leaf and base spell each stack's path, and the check knows it. */
	n = node(&nv, "lex;expr;expr;parse");
	assert_int_equal(fx.inv.leaf[n], test_stack(fx.ps, "main;parse;expr;expr;lex"));
	assert_int_equal(fx.inv.base[n], test_stack(fx.ps, "main;parse"));
	fx.inv.base[n] = test_stack(fx.ps, "main;parse;expr");
	{
		struct tf_error err = TF_ERROR_INIT;

		assert_int_equal(inverted_check(&fx.inv, &fx.t, &err), -1);
		assert_non_null(strstr(tf_error_text(&err), "walk at"));
		tf_error_release(&err);
	}
	fx.inv.base[n] = test_stack(fx.ps, "main;parse");
	/* Names are the set's frames. */
	n = test_stack(fx.ps, "main;parse;lex");
	assert_int_equal(nav_frame(&nv, lex), fx.ps->stacks[n].frame);
	assert_layout(&fx, &nv, 17,
		      "0:0-8 lex\n0:8-12 alloc\n0:12-16 expr\n0:16-17 main\n"
		      "1:0-6 lex;parse\n1:6-8 lex;expr\n1:8-11 alloc;eval\n1:11-12 alloc;main\n"
		      "1:12-16 expr;expr\n"
		      "2:0-6 lex;parse;main\n2:6-8 lex;expr;expr\n2:8-11 alloc;eval;main\n"
		      "2:12-16 expr;expr;eval\n"
		      "3:6-8 lex;expr;expr;parse\n3:12-16 expr;expr;eval;main\n"
		      "4:6-8 lex;expr;expr;parse;main");
	release(&fx);
}

/* A node written down as frames, found again in another build of the tree. */
static void
test_find_frames(void **state)
{
	struct fixture fx;
	struct nav nv;
	frame_id *path, *gone;
	uint32_t depth, gone_depth, n;
	bool first[2] = { true, false }, second[2] = { false, true };

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "main;parse;lex", 30, -1, 1);
	test_sample(fx.ps, fx.p, "main;parse;expr;expr;lex", 10, -1, 1);
	test_sample(fx.ps, fx.p, "main;eval;alloc", 15, -1, 1);
	test_sample(fx.ps, fx.p, "main;parse;expr;expr;lex", 50, -1, 2);
	build_tree_of(&fx, first);
	build_inverted(&fx);
	nav_inverted(&nv, &fx.inv.tree);
	n = node(&nv, "lex;expr;expr;parse");
	path = nav_frames(&nv, n, &depth);
	assert_int_equal(depth, 4);
	assert_string_equal(frame_name(fx.ps, path[0]), "lex");
	assert_string_equal(frame_name(fx.ps, path[3]), "parse");
	assert_int_equal(nav_find_frames(&nv, path, depth), n);
	assert_int_equal(nav_find_frames(&nv, path, 1), node(&nv, "lex"));
	assert_int_equal(nav_find_frames(&nv, path, 0), NAV_NONE);
	gone = nav_frames(&nv, node(&nv, "alloc;eval"), &gone_depth);
	/* Another build, of the other thread: other ids, the same path. */
	build_tree_of(&fx, second);
	build_inverted(&fx);
	nav_inverted(&nv, &fx.inv.tree);
	check_nav(&nv);
	assert_int_equal(nv.total, 50);
	n = nav_find_frames(&nv, path, depth);
	assert_int_not_equal(n, NAV_NONE);
	assert_string_equal(path_of(&fx, &nv, n), "lex;expr;expr;parse");
	assert_range(&nv, n, 0, 50);
	/* A path the other build does not have. */
	assert_int_equal(nav_find_frames(&nv, gone, gone_depth), NAV_NONE);
	free(path);
	free(gone);
	release(&fx);
}

/* A function at several depths is one node of row 0, and its self is its own. */
static void
test_inverted_several_depths(void **state)
{
	struct fixture fx;
	struct nav nv;
	uint32_t x;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "x", 1, -1, 1);
	test_sample(fx.ps, fx.p, "a;x", 2, -1, 1);
	test_sample(fx.ps, fx.p, "a;b;x", 4, -1, 1);
	test_sample(fx.ps, fx.p, "a;b", 8, -1, 1);
	build_tree(&fx);
	build_inverted(&fx);
	nav_inverted(&nv, &fx.inv.tree);
	check_nav(&nv);
	assert_int_equal(nv.ops->first(&nv), node(&nv, "b"));
	x = node(&nv, "x");
	assert_range(&nv, node(&nv, "b"), 0, 8);
	assert_range(&nv, x, 8, 15);
	assert_int_equal(nv.ops->self(&nv, x), 1);
	/* Its callers, heaviest first: b (from a;b;x), then a; x alone is its self. */
	assert_range(&nv, node(&nv, "x;b"), 8, 12);
	assert_range(&nv, node(&nv, "x;b;a"), 8, 12);
	assert_range(&nv, node(&nv, "x;a"), 12, 14);
	assert_int_equal(nav_find_path(&nv, "a"), NAV_NONE);
	release(&fx);
}

/* No samples: nothing to walk, and nothing to lay out. */
static void
test_inverted_empty(void **state)
{
	struct fixture fx;
	struct nav nv;

	(void)state;
	setup(&fx);
	test_stack(fx.ps, "a;b");
	build_tree(&fx);
	build_inverted(&fx);
	nav_inverted(&nv, &fx.inv.tree);
	check_nav(&nv);
	assert_int_equal(nv.total, 0);
	assert_int_equal(nv.ops->first(&nv), NAV_NONE);
	assert_int_equal(nv.ops->depth(&nv), 0);
	assert_int_equal(nv.ops->at(&nv, 0, 0), NAV_NONE);
	assert_int_equal(fx.inv.view.nr_stacks, 1);
	assert_layout(&fx, &nv, 10, "");
	release(&fx);
}

/*
 * A stack DEPTH frames deep (a;b;a;b...): nothing recurses on it. The
 * invariant checks walk from the root for every node, O(depth^2), so
 * they run on the shallower case only.
 */
static void
inverted_deep(int depth, bool checked)
{
	struct fixture fx;
	struct nav nv;
	struct frame fa = { 0 }, fb = { 0 };
	frame_id a, b;
	stack_id s = STACK_ROOT, leaf;
	uint32_t n;

	setup(&fx);
	fa.name = ps_str(fx.ps, "a", 1);
	fb.name = ps_str(fx.ps, "b", 1);
	a = profile_set_frame(fx.ps, &fa);
	b = profile_set_frame(fx.ps, &fb);
	for (int i = 0; i < depth; i++)
		s = profile_set_stack(fx.ps, s, i % 2 ? b : a);
	leaf = s;
	assert_int_equal(profile_add_sample(fx.p, leaf, 3, 0, false,
					    profile_set_thread(fx.ps, 1, 1, STR_EMPTY), NULL), 0);
	test_sample(fx.ps, fx.p, "a", 1, -1, 1);
	build_tree(&fx);
	if (checked) {
		build_inverted(&fx);
	} else {
		inverted_build(&fx.inv, &fx.t);
		fx.have_inv = true;
	}
	nav_inverted(&nv, &fx.inv.tree);
	if (checked)
		check_nav(&nv);
	assert_int_equal(nv.ops->depth(&nv), depth);
	/* Row 0: the deep leaf (b at an even depth) 3, then a 1. */
	n = nv.ops->first(&nv);
	assert_string_equal(frame_name(nv.ps, nav_frame(&nv, n)), depth % 2 ? "a" : "b");
	assert_int_equal(nav_weight(&nv, n), 3);
	for (int i = 0; i < depth - 1; i++)
		n = nv.ops->child(&nv, n, 0, nv.total);
	assert_string_equal(frame_name(nv.ps, nav_frame(&nv, n)), "a");
	assert_int_equal(nv.ops->row(&nv, n), depth - 1);
	assert_int_equal(nv.ops->child(&nv, n, 0, nv.total), NAV_NONE);
	assert_int_equal(nv.ops->at(&nv, depth - 1, 1), n);
	release(&fx);
}

static void
test_inverted_deep(void **state)
{
	(void)state;
	inverted_deep(2000, true);
	inverted_deep(20000, false);
}

/* Sandwich's trees: callers walked as an inverted tree, callees as a tree. */
static void
test_sandwich(void **state)
{
	struct fixture fx;
	struct func_table ft;
	struct sandwich sw;
	struct nav nv;
	func_id expr = UINT32_MAX;

	(void)state;
	sample_inverted(&fx);
	func_table_init(&ft, fx.ps);
	for (func_id f = 0; f < ft.nr_funcs; f++)
		if (!strcmp(ps_get(fx.ps, ft.funcs[f].name), "expr"))
			expr = f;
	assert_int_not_equal(expr, UINT32_MAX);
	sandwich_build(&sw, &fx.t, &ft, expr);
	nav_inverted(&nv, &sw.callers);
	check_nav(&nv);
	assert_true(nv.inverted);
	assert_int_equal(nv.total, 30);
	assert_range(&nv, node(&nv, "expr;eval;main"), 0, 20);
	assert_range(&nv, node(&nv, "expr;parse;main"), 20, 30);
	nav_tree(&nv, &sw.callees);
	check_nav(&nv);
	assert_false(nv.inverted);
	assert_range(&nv, node(&nv, "expr;expr"), 0, 30);
	assert_range(&nv, node(&nv, "expr;expr;lex"), 0, 10);
	assert_int_equal(nv.ops->self(&nv, node(&nv, "expr;expr")), 20);
	sandwich_release(&sw);
	func_table_release(&ft);
	release(&fx);
}

/* The model's inverted tree: cached, checked, searched as Left Heavy is. */
static void
test_model_inverted(void **state)
{
	struct fixture fx;
	struct model m;
	struct tf_error err = TF_ERROR_INIT;
	struct search_re *re;
	const struct inverted *inv;
	uint64_t builds;
	bool mask[2] = { true, false };

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "main;parse;lex", 30, -1, 1);
	test_sample(fx.ps, fx.p, "main;eval;lex", 10, -1, 2);
	test_sample(fx.ps, fx.p, "main;eval", 5, -1, 2);
	check_profile_set(fx.ps);
	model_init(&m, fx.ps);
	assert_false(m.inverted);
	model_set_inverted(&m, true);
	assert_true(m.inverted);
	inv = model_inverted(&m);
	builds = m.inv_builds;
	assert_ptr_equal(model_inverted(&m), inv);
	assert_int_equal(m.inv_builds, builds);
	assert_int_equal(inv->tree.total[STACK_ROOT], 45);
	re = search_re_new("parse", 5, NULL, &err);
	assert_non_null(re);
	model_set_search(&m, re);
	/* Once per sample, as in Left Heavy: the same weight. */
	assert_int_equal(search_index_matched(model_search_inverted(&m), 0, 45), 30);
	assert_int_equal(model_search_matched(&m), 30);
	assert_int_equal(model_search_inverted(&m)->nr_hits, 1);
	if (model_check(&m, &err))
		fail_msg("model_check: %s", tf_error_text(&err));
	/* Another thread filter: another build, over the threads left. */
	assert_int_equal(m.ps->threads[0].tid, 1);
	model_set_threads(&m, mask);
	inv = model_inverted(&m);
	assert_int_equal(m.inv_builds, builds + 1);
	assert_int_equal(inv->tree.total[STACK_ROOT], 30);
	assert_int_equal(search_index_matched(model_search_inverted(&m), 0, 30), 30);
	if (model_check(&m, &err))
		fail_msg("model_check: %s", tf_error_text(&err));
	tf_error_release(&err);
	model_release(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_chart),
		cmocka_unit_test(test_chart_order),
		cmocka_unit_test(test_inverted),
		cmocka_unit_test(test_find_frames),
		cmocka_unit_test(test_inverted_several_depths),
		cmocka_unit_test(test_inverted_empty),
		cmocka_unit_test(test_inverted_deep),
		cmocka_unit_test(test_sandwich),
		cmocka_unit_test(test_model_inverted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
