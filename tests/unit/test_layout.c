#include "config.h"

#include "tflame/layout.h"

#include <stdlib.h>

#include "tflame/functions.h"

#include "test_util.h"

struct fixture {
	struct profile_set *ps;
	struct profile *p;
	uint64_t *w;
	struct calltree t;
	struct timeline tl;
	struct chart c; /* tl's merged chart, copied */
	bool have_tree, have_chart;
	struct layout l;
	char text[8192];
};

static void
setup(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	fx->ps = profile_set_new();
	fx->p = profile_set_profile(fx->ps, STR_EMPTY, UNIT_SAMPLES);
	layout_init(&fx->l);
}

static void
build_tree(struct fixture *fx)
{
	struct tf_error err = TF_ERROR_INIT;

	fx->w = calloc(fx->ps->nr_stacks, sizeof(*fx->w));
	stack_weights(fx->ps, fx->p, NULL, fx->w);
	calltree_build(&fx->t, fx->ps, fx->w);
	fx->have_tree = true;
	if (calltree_check(&fx->t, &err))
		fail_msg("calltree_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

static void
build_chart(struct fixture *fx)
{
	struct tf_error err = TF_ERROR_INIT;

	/* These tests are about the layout: x is weight, as without times. */
	fx->p->has_time = false;
	timeline_build(&fx->tl, fx->ps, fx->p, NULL);
	fx->c = *timeline_merged(&fx->tl);
	fx->have_chart = true;
	if (chart_check(&fx->c, &err))
		fail_msg("chart_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

static void
check_layout(const struct layout *l, const struct view *v)
{
	struct tf_error err = TF_ERROR_INIT;

	if (layout_check(l, v, &err))
		fail_msg("layout_check: %s", tf_error_text(&err));
	tf_error_release(&err);
}

static void
release(struct fixture *fx)
{
	check_profile_set(fx->ps);
	if (fx->have_tree)
		calltree_release(&fx->t);
	if (fx->have_chart)
		timeline_release(&fx->tl);
	layout_release(&fx->l);
	free(fx->w);
	profile_set_free(fx->ps);
}

static struct view
view(uint64_t x0, uint64_t x1, uint32_t width, uint32_t first_row, uint32_t nr_rows)
{
	struct view v = { x0, x1, width, first_row, nr_rows, false };

	return v;
}

static stack_id
box_stack(const struct fixture *fx, const struct box *b, bool chart)
{
	return chart ? chart_stack(&fx->c, b->node) : b->node;
}

/*
 * The layout as text, one line per row of the window: each cell holds the
 * first letter of its box's frame, '.' if empty.
 */
static const char *
grid(struct fixture *fx, const struct view *v, bool chart)
{
	size_t line = (size_t)v->width + 1;
	char *s = fx->text;

	assert_true(line * v->nr_rows < sizeof(fx->text));
	check_layout(&fx->l, v);
	for (uint32_t r = 0; r < v->nr_rows; r++) {
		memset(s + r * line, '.', v->width);
		s[r * line + v->width] = r + 1 < v->nr_rows ? '\n' : '\0';
	}
	if (!v->nr_rows)
		s[0] = '\0';
	for (size_t i = 0; i < fx->l.nr; i++) {
		const struct box *b = &fx->l.boxes[i];
		char ch = frame_name(fx->ps, fx->ps->stacks[box_stack(fx, b, chart)].frame)[0];

		memset(s + (b->row - v->first_row) * line + b->col0, ch, b->col1 - b->col0);
	}
	return s;
}

static const char *
tree_grid(struct fixture *fx, struct view v)
{
	layout_tree(&fx->l, &fx->t, &v);
	return grid(fx, &v, false);
}

static const char *
chart_grid(struct fixture *fx, struct view v)
{
	layout_chart(&fx->l, &fx->c, &v);
	return grid(fx, &v, true);
}

/* A root m of weight 100: f 50 (g 30, h 20), k 30 (l 30), n 20. */
static void
sample_tree(struct fixture *fx)
{
	setup(fx);
	test_sample(fx->ps, fx->p, "m;n", 20, -1, 1);
	test_sample(fx->ps, fx->p, "m;f;h", 20, -1, 1);
	test_sample(fx->ps, fx->p, "m;k;l", 30, -1, 1);
	test_sample(fx->ps, fx->p, "m;f;g", 30, -1, 1);
	test_stack(fx->ps, "m;n;never");
	build_tree(fx);
}

static void
test_tree_widths_and_order(void **state)
{
	struct fixture fx;

	(void)state;
	sample_tree(&fx);
	assert_string_equal(tree_grid(&fx, view(0, 100, 10, 0, 4)),
			    "mmmmmmmmmm\n"
			    "fffffkkknn\n"
			    "ggghhlll..\n"
			    "..........");
	/* f, k, n: heaviest first, left to right, and they fill m. */
	assert_int_equal(fx.l.nr, 7);
	assert_int_equal(fx.l.boxes[1].col0, 0);
	assert_int_equal(fx.l.boxes[1].col1, 5);
	assert_int_equal(fx.l.boxes[2].col0, 5);
	assert_int_equal(fx.l.boxes[3].col1, 10);
	assert_int_equal(fx.l.boxes[0].node, test_stack(fx.ps, "m"));
	assert_int_equal(fx.l.boxes[4].node, test_stack(fx.ps, "m;f;g"));
	release(&fx);
}

static void
test_tree_rounds_to_nearest_edge(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a", 85, -1, 1);
	test_sample(fx.ps, fx.p, "b", 15, -1, 1);
	test_sample(fx.ps, fx.p, "c;x", 26, -1, 1);
	test_sample(fx.ps, fx.p, "c;y", 14, -1, 1);
	build_tree(&fx);
	/* a ends at 85 of 140 = 6.07 cells, c at 125 = 8.93; y is 1 cell. */
	assert_string_equal(tree_grid(&fx, view(0, 140, 10, 0, 2)),
			    "aaaaaacccb\n"
			    "......xxy.");
	/* Halves round up: 85 of 100 is 8.5 cells. */
	assert_string_equal(tree_grid(&fx, view(0, 100, 10, 0, 1)), "aaaaaaaaac");
	release(&fx);
}

static void
test_tree_narrow_nodes_shown(void **state)
{
	struct fixture fx;
	char path[32];

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "m;a", 870, -1, 1);
	for (int i = 0; i < 130; i++) {
		snprintf(path, sizeof(path), "m;s%d;deep", i);
		test_sample(fx.ps, fx.p, path, 1, -1, 1);
	}
	build_tree(&fx);
	/*
	 * 130 slivers of 0.01 cell: a still has most of cell 8; the first
	 * sliver in cell 9 has it, and its child the cell below.
	 */
	assert_string_equal(tree_grid(&fx, view(0, 1000, 10, 0, 3)),
			    "mmmmmmmmmm\n"
			    "aaaaaaaaas\n"
			    "........dd");
	assert_int_equal(fx.l.nr, 5);
	assert_int_equal(fx.l.boxes[1].flags, 0);
	assert_int_equal(fx.l.boxes[2].flags, BOX_NARROW);
	assert_int_equal(fx.t.x0[fx.l.boxes[2].node], 900);
	/* Under a's cell 8, the slivers from 870 have the row below to themselves. */
	assert_int_equal(fx.l.boxes[3].flags, BOX_NARROW);
	assert_int_equal(fx.t.x0[fx.l.boxes[3].node], 870);
	assert_int_equal(fx.ps->stacks[fx.l.boxes[4].node].parent, fx.l.boxes[2].node);
	/* Wide enough to see them: 1000 cells, one each, and their children. */
	layout_tree(&fx.l, &fx.t, &(struct view){ 0, 1000, 1000, 0, 3, false });
	check_layout(&fx.l, &(struct view){ 0, 1000, 1000, 0, 3, false });
	assert_int_equal(fx.l.nr, 1 + 131 + 130);
	assert_int_equal(fx.l.boxes[fx.l.nr - 1].col1, 1000);
	assert_int_equal(fx.l.boxes[fx.l.nr - 1].flags, 0);
	release(&fx);
}

/* In eighths, a box's edge falls inside the cell, and a sliver gets its eighth. */
static void
test_tree_eighths(void **state)
{
	struct fixture fx;
	struct view v = view(0, 100, 10, 0, 1);
	const struct cell *c;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a", 95, -1, 1);
	test_sample(fx.ps, fx.p, "b", 4, -1, 1);
	test_sample(fx.ps, fx.p, "c", 1, -1, 1);
	build_tree(&fx);
	/* Whole cells: a has most of the last cell. */
	assert_string_equal(tree_grid(&fx, v), "aaaaaaaaaa");
	assert_int_equal(layout_cell(&fx.l, 0, 9)->split, LAYOUT_EIGHTHS);
	v.eighths = true;
	assert_string_equal(tree_grid(&fx, v), "aaaaaaaaaa");
	assert_int_equal(fx.l.sub, LAYOUT_EIGHTHS);
	c = layout_cell(&fx.l, 0, 8);
	assert_int_equal(c->split, LAYOUT_EIGHTHS);
	assert_int_equal(c->left, test_stack(fx.ps, "a"));
	assert_int_equal(c->right, LAYOUT_NONE);
	/* Cell 9 is [90, 100): a to 95 (4 slots of 1.25), b to 99, c. */
	c = layout_cell(&fx.l, 0, 9);
	assert_int_equal(c->left, test_stack(fx.ps, "a"));
	assert_int_equal(c->split, 4);
	assert_int_equal(c->right, test_stack(fx.ps, "b"));
	/* a's label goes in the cells it fills alone. */
	{
		uint32_t c0 = 99, c1 = 99;

		assert_int_equal(fx.l.nr, 1);
		layout_box_whole(&fx.l, &fx.l.boxes[0], &c0, &c1);
		assert_int_equal(c0, 0);
		assert_int_equal(c1, 9);
	}
	/* Past the rows there are no cells. */
	assert_null(layout_cell(&fx.l, 1, 0));
	assert_null(layout_cell(&fx.l, 0, 10));
	release(&fx);
}

/*
 * A stack 150 frames deep and one weight unit wide beside two million:
 * at 80 cells, each of its rows under the first (where big covers the
 * rest of its cell) still has a cell, in whole cells and in eighths, in
 * both panes.
 */
static void
test_deep_sliver_keeps_its_shape(void **state)
{
	struct fixture fx;
	char path[1024];
	size_t pos = 0;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "big", 1000000, 0, 1);
	for (int d = 0; d < 150; d++)
		pos += (size_t)snprintf(path + pos, sizeof(path) - pos, "%sd%d", d ? ";" : "", d);
	test_sample(fx.ps, fx.p, path, 1, 1000000, 1);
	test_sample(fx.ps, fx.p, "big", 1000000, 1000001, 1);
	build_tree(&fx);
	build_chart(&fx);
	for (int eighths = 0; eighths < 2; eighths++) {
		struct view v = view(0, 2000001, 80, 0, 200);

		v.eighths = eighths;
		for (int chart = 0; chart < 2; chart++) {
			uint32_t rows[150] = { 0 };

			if (chart)
				layout_chart(&fx.l, &fx.c, &v);
			else
				layout_tree(&fx.l, &fx.t, &v);
			check_layout(&fx.l, &v);
			assert_int_equal(fx.l.nr_rows, 150);
			for (size_t i = 0; i < fx.l.nr; i++) {
				const struct box *b = &fx.l.boxes[i];
				stack_id st = box_stack(&fx, b, chart);
				const char *name = frame_name(fx.ps, fx.ps->stacks[st].frame);

				if (name[0] != 'd')
					continue;
				assert_int_equal(atoi(name + 1), b->row);
				assert_int_equal(b->flags, BOX_NARROW);
				rows[b->row]++;
			}
			/* On row 0, big has most of d0's cell; alone below, d1... show. */
			assert_int_equal(rows[0], 0);
			for (int r = 1; r < 150; r++)
				assert_int_equal(rows[r], 1);
		}
	}
	release(&fx);
}

/* layout_dominant() over plain spans. */
static void
test_dominant(void **state)
{
	static const struct span spans[] = {
		{ 0, 14, 1 }, { 14, 16, 2 }, { 16, 20, 3 }, { 25, 26, 4 }, { 38, 40, 5 },
	};
	static const struct span tie[] = { { 0, 2, 1 }, { 2, 4, 2 } };
	uint32_t owner[8];
	uint8_t narrow[8];
	struct span crowd[100];

	(void)state;
	/* Slots of 5: 1 has [0, 5) and [5, 10); [10, 15) is 4 of 1, 1 of 2. */
	layout_dominant(spans, 5, 0, 40, 8, 5, owner, narrow);
	assert_int_equal(owner[0], 1);
	assert_int_equal(owner[1], 1);
	assert_int_equal(owner[2], 1);
	/* [15, 20): 3 has 4 of it. */
	assert_int_equal(owner[3], 3);
	assert_true(narrow[3]);
	assert_false(narrow[0]);
	/* [20, 25) is empty; [25, 30) has a sliver of one unit, which wins. */
	assert_int_equal(owner[4], LAYOUT_NONE);
	assert_int_equal(owner[5], 4);
	assert_true(narrow[5]);
	assert_int_equal(owner[6], LAYOUT_NONE);
	assert_int_equal(owner[7], 5);
	/* Zoomed in past a unit: 8 slots over [14, 17) still each have a unit. */
	layout_dominant(spans, 5, 14, 17, 8, 1, owner, NULL);
	for (int i = 0; i < 5; i++)
		assert_int_equal(owner[i], 2);
	assert_int_equal(owner[6], 3);
	assert_int_equal(owner[7], 3);
	/* A tie goes to the first: [0, 2) of 1 and [2, 4) of 2 in one slot. */
	layout_dominant(tie, 2, 0, 4, 1, 4, owner, NULL);
	assert_int_equal(owner[0], 1);
	/*
	 * 99 slivers of one unit, then a span of 101 reaching past the slot:
	 * the crowd is jumped over, and the big one, weighed last, wins.
	 */
	for (int i = 0; i < 99; i++)
		crowd[i] = (struct span){ (uint64_t)i, (uint64_t)i + 1, (uint32_t)i };
	crowd[99] = (struct span){ 99, 200, 99 };
	layout_dominant(crowd, 100, 0, 300, 2, 150, owner, narrow);
	assert_int_equal(owner[0], 99);
	assert_true(narrow[0]);
	assert_int_equal(owner[1], 99);
	/* Without the big one, a sliver of the crowd still has the slot. */
	layout_dominant(crowd, 99, 0, 300, 2, 150, owner, NULL);
	assert_int_equal(owner[0], 0);
	assert_int_equal(owner[1], LAYOUT_NONE);
}

static void
test_tree_zoom_to_node(void **state)
{
	struct fixture fx;
	uint64_t x0 = 1, x1 = 1;

	(void)state;
	sample_tree(&fx);
	assert_true(calltree_node_range(&fx.t, test_stack(fx.ps, "m;k"), &x0, &x1));
	assert_int_equal(x0, 50);
	assert_int_equal(x1, 80);
	/* k fills the width, and so does m above it. */
	assert_string_equal(tree_grid(&fx, view(x0, x1, 6, 0, 3)),
			    "mmmmmm\n"
			    "kkkkkk\n"
			    "llllll");
	assert_true(calltree_node_range(&fx.t, test_stack(fx.ps, "m;f;h"), &x0, &x1));
	assert_int_equal(x0, 30);
	assert_int_equal(x1, 50);
	assert_string_equal(tree_grid(&fx, view(x0, x1, 4, 0, 3)),
			    "mmmm\n"
			    "ffff\n"
			    "hhhh");
	assert_true(calltree_node_range(&fx.t, STACK_ROOT, &x0, &x1));
	assert_int_equal(x0, 0);
	assert_int_equal(x1, 100);
	/* A node with no weight has no range, and x0, x1 are left alone. */
	x0 = x1 = 7;
	assert_false(calltree_node_range(&fx.t, test_stack(fx.ps, "m;n;never"), &x0, &x1));
	assert_int_equal(x0, 7);
	assert_false(calltree_node_range(&fx.t, fx.t.nr_nodes + 5, &x0, &x1));
	release(&fx);
}

static void
test_tree_horizontal_subrange(void **state)
{
	struct fixture fx;

	(void)state;
	sample_tree(&fx);
	/* x 25 to 75 over 10 cells: the right half of f, most of k. */
	assert_string_equal(tree_grid(&fx, view(25, 75, 10, 0, 3)),
			    "mmmmmmmmmm\n"
			    "fffffkkkkk\n"
			    "ghhhhlllll");
	/* g is [0, 30): only 5 of it shows, which rounds to 1 cell. */
	assert_string_equal(tree_grid(&fx, view(25, 75, 10, 2, 1)), "ghhhhlllll");
	/* A range past every node. */
	assert_string_equal(tree_grid(&fx, view(100, 200, 10, 0, 2)),
			    "..........\n"
			    "..........");
	release(&fx);
}

static void
test_tree_row_window(void **state)
{
	struct fixture fx;

	(void)state;
	sample_tree(&fx);
	assert_string_equal(tree_grid(&fx, view(0, 100, 10, 1, 1)), "fffffkkknn");
	assert_int_equal(fx.l.boxes[0].row, 1);
	assert_string_equal(tree_grid(&fx, view(0, 100, 10, 2, 5)),
			    "ggghhlll..\n"
			    "..........\n"
			    "..........\n"
			    "..........\n"
			    "..........");
	assert_string_equal(tree_grid(&fx, view(0, 100, 10, 0, 0)), "");
	assert_int_equal(fx.l.nr, 0);
	/* Rows below the first stop without overflow. */
	layout_tree(&fx.l, &fx.t, &(struct view){ 0, 100, 10, 1, UINT32_MAX, false });
	assert_int_equal(fx.l.nr, 6);
	release(&fx);
}

static void
test_tree_width_one_and_wide(void **state)
{
	struct fixture fx;
	uint64_t sum = 0;

	(void)state;
	sample_tree(&fx);
	/* In one cell: the heaviest of each row; g and l tie, and the first wins. */
	assert_string_equal(tree_grid(&fx, view(0, 100, 1, 0, 3)), "m\nf\ng");
	/* 1000 cells: exact widths, 10 cells per unit. */
	layout_tree(&fx.l, &fx.t, &(struct view){ 0, 100, 1000, 0, 3, false });
	check_layout(&fx.l, &(struct view){ 0, 100, 1000, 0, 3, false });
	assert_int_equal(fx.l.nr, 7);
	for (size_t i = 0; i < fx.l.nr; i++) {
		const struct box *b = &fx.l.boxes[i];

		assert_int_equal(b->col1 - b->col0, fx.t.total[b->node] * 10);
		assert_int_equal(b->col0, fx.t.x0[b->node] * 10);
		if (b->row == 1)
			sum += b->col1 - b->col0;
	}
	assert_int_equal(sum, 1000);
	/* Width 0 and an empty range lay out nothing. */
	layout_tree(&fx.l, &fx.t, &(struct view){ 0, 100, 0, 0, 3, false });
	assert_int_equal(fx.l.nr, 0);
	layout_tree(&fx.l, &fx.t, &(struct view){ 50, 50, 10, 0, 3, false });
	assert_int_equal(fx.l.nr, 0);
	release(&fx);
}

/* A deterministic pseudo-random number generator for the property tests. */
static uint32_t
lcg(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*state >> 33);
}

/*
 * Check a layout of a tree whose inner nodes have no self weight: every
 * box sits under a box, and under every box but a leaf's the row below is
 * covered cell for cell: families fill their parents on screen as they do
 * on x, however narrow.
 */
static void
check_tiling(struct fixture *fx, const struct view *v, char leaf)
{
	uint32_t width = v->width, rows = v->nr_rows;
	uint8_t *covered = calloc((size_t)width * rows, 1);
	uint8_t *is_leaf = calloc((size_t)width * rows, 1);

	check_layout(&fx->l, v);
	for (size_t i = 0; i < fx->l.nr; i++) {
		const struct box *b = &fx->l.boxes[i];
		size_t at = (size_t)(b->row - v->first_row) * width;
		char first = frame_name(fx->ps, fx->ps->stacks[b->node].frame)[0];

		for (uint32_t c = b->col0; c < b->col1; c++) {
			assert_int_equal(covered[at + c], 0);
			covered[at + c] = 1;
			is_leaf[at + c] = first == leaf;
		}
	}
	for (uint32_t r = 0; r + 1 < rows; r++) {
		for (uint32_t c = 0; c < width; c++) {
			uint8_t above = covered[r * width + c];
			uint8_t below = covered[(r + 1) * width + c];

			if (below)
				assert_int_equal(above, 1);
			if (above == 1 && !is_leaf[r * width + c])
				assert_int_not_equal(below, 0);
		}
	}
	free(covered);
	free(is_leaf);
}

/* Random trees, random views: tiling, and the same boxes every time. */
static void
test_tree_families_tile_their_parent(void **state)
{
	uint64_t seed = 42;

	(void)state;
	for (int round = 0; round < 40; round++) {
		struct fixture fx;
		struct layout again;
		struct view v;
		char path[256];
		uint64_t x0, x1;

		setup(&fx);
		for (int i = 0; i < 300; i++) {
			size_t pos = 0;
			int depth = 1 + (int)(lcg(&seed) % 6);

			for (int d = 0; d < depth; d++)
				pos += (size_t)snprintf(path + pos, sizeof(path) - pos, "%s%c",
							d ? ";" : "", 'a' + (int)(lcg(&seed) % 4));
			/* Only leaves z have self weight. */
			snprintf(path + pos, sizeof(path) - pos, ";z");
			test_sample(fx.ps, fx.p, path, 1 + lcg(&seed) % (i % 7 ? 3 : 400), -1, 1);
		}
		build_tree(&fx);
		x1 = fx.t.total[STACK_ROOT];
		x0 = round % 3 ? lcg(&seed) % (x1 / 2) : 0;
		if (round % 4 == 1)
			x1 = x0 + 1 + lcg(&seed) % (x1 - x0);
		v = view(x0, x1, 1 + lcg(&seed) % 150, round % 5 == 2 ? 2 : 0, 9);
		v.eighths = round % 2;
		layout_tree(&fx.l, &fx.t, &v);
		check_tiling(&fx, &v, 'z');

		layout_init(&again);
		layout_tree(&again, &fx.t, &v);
		assert_int_equal(again.nr, fx.l.nr);
		assert_memory_equal(again.boxes, fx.l.boxes, sizeof(*again.boxes) * again.nr);
		layout_release(&again);
		release(&fx);
	}
}

static void
test_tree_deep_stack(void **state)
{
	struct fixture fx;
	thread_id th;
	stack_id s = STACK_ROOT;
	struct frame fa = { 0 };
	frame_id a;

	(void)state;
	setup(&fx);
	th = profile_set_thread(fx.ps, 1, 1, STR_EMPTY);
	fa.name = ps_str(fx.ps, "a", 1);
	a = profile_set_frame(fx.ps, &fa);
	for (int i = 0; i < 100000; i++)
		s = profile_set_stack(fx.ps, s, a);
	profile_add_sample(fx.p, s, 3, 0, false, th, NULL);
	build_tree(&fx);
	assert_string_equal(tree_grid(&fx, view(0, 3, 5, 99998, 4)),
			    "aaaaa\n"
			    "aaaaa\n"
			    ".....\n"
			    ".....");
	assert_int_equal(fx.l.boxes[1].node, s);
	release(&fx);
}

static void
test_tree_many_slivers(void **state)
{
	struct fixture fx;
	thread_id th;
	struct frame f = { 0 };
	char name[16];

	(void)state;
	setup(&fx);
	th = profile_set_thread(fx.ps, 1, 1, STR_EMPTY);
	test_sample(fx.ps, fx.p, "big", 100000, -1, 1);
	/* 100 000 callees of the root, each a thousandth of a cell. */
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		f.name = ps_str(fx.ps, name, strlen(name));
		profile_add_sample(fx.p, profile_set_stack(fx.ps, STACK_ROOT,
							   profile_set_frame(fx.ps, &f)),
				   1, 0, false, th, NULL);
	}
	build_tree(&fx);
	/* Each of their cells goes to one of them: the first in it. */
	assert_string_equal(tree_grid(&fx, view(0, 200000, 200, 0, 1)),
			    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
			    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
			    "ssssssssssssssssssssssssssssssssssssssssssssssssss"
			    "ssssssssssssssssssssssssssssssssssssssssssssssssss");
	assert_int_equal(fx.l.nr, 101);
	for (size_t i = 1; i < fx.l.nr; i++) {
		assert_int_equal(fx.l.boxes[i].flags, BOX_NARROW);
		assert_int_equal(fx.t.x0[fx.l.boxes[i].node], 100000 + 1000 * (i - 1));
	}
	/* Zoomed in on a few of them, they are boxes again. */
	assert_string_equal(tree_grid(&fx, view(100000, 100004, 4, 0, 1)), "ssss");
	release(&fx);
}

/*
 * A thousand slivers in one cell, each with a child, and the 500th (by
 * name) with a chain 60 deep instead: only a few of them are followed
 * down, but the deepest always is, so the chain shows on every row.
 */
static void
test_tree_crowd_keeps_deepest(void **state)
{
	struct fixture fx;
	char path[1024];
	size_t pos;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "big", 1000000, -1, 1);
	for (int i = 0; i < 1000; i++) {
		pos = (size_t)snprintf(path, sizeof(path), "s%03d", i);
		if (i != 500) {
			snprintf(path + pos, sizeof(path) - pos, ";leaf");
		} else {
			for (int d = 0; d < 60; d++)
				pos += (size_t)snprintf(path + pos, sizeof(path) - pos, ";c%d", d);
		}
		test_sample(fx.ps, fx.p, path, 2, -1, 1);
	}
	build_tree(&fx);
	for (int eighths = 0; eighths < 2; eighths++) {
		struct view v = view(0, 1002000, 10, 0, 70);
		uint32_t rows[70] = { 0 };

		v.eighths = eighths;
		layout_tree(&fx.l, &fx.t, &v);
		check_layout(&fx.l, &v);
		assert_int_equal(fx.l.nr_rows, 61);
		for (size_t i = 0; i < fx.l.nr; i++) {
			const struct box *b = &fx.l.boxes[i];
			const char *name = frame_name(fx.ps, fx.ps->stacks[b->node].frame);

			if (name[0] == 'c') {
				assert_int_equal(atoi(name + 1) + 1, b->row);
				rows[b->row]++;
			}
		}
		/* Row 1 is the leaves and c0 side by side: the first leaf has the cell. */
		for (int r = 2; r < 61; r++)
			assert_int_equal(rows[r], 1);
	}
	release(&fx);
}

/* --------------------------------------------------------------- chart */

static void
test_chart_layout(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	test_sample(fx.ps, fx.p, "a;b", 1, 10, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 20, 1);
	test_sample(fx.ps, fx.p, "a;c", 1, 30, 1);
	test_sample(fx.ps, fx.p, "a;b", 1, 40, 1);
	test_sample(fx.ps, fx.p, "", 2, 50, 1);
	test_sample(fx.ps, fx.p, "d;e;f", 2, 60, 1);
	build_chart(&fx);
	assert_string_equal(chart_grid(&fx, view(0, 8, 8, 0, 4)),
			    "aaaa..dd\n"
			    "bbcb..ee\n"
			    "......ff\n"
			    "........");
	/* Zoom on the c box: its ancestor a fills the width. */
	assert_string_equal(chart_grid(&fx, view(2, 3, 3, 0, 2)), "aaa\nccc");
	/* Half the width: c and the second b tie for a cell, and c is first. */
	assert_string_equal(chart_grid(&fx, view(0, 8, 4, 0, 3)),
			    "aa.d\n"
			    "bc.e\n"
			    "...f");
	assert_string_equal(chart_grid(&fx, view(0, 8, 8, 1, 1)), "bbcb..ee");
	/* One cell: a has 4 of 8; on row 1, b (2) ties e and is first. */
	assert_string_equal(chart_grid(&fx, view(0, 8, 1, 0, 3)), "a\nb\nf");
	release(&fx);
}

static void
test_chart_many_slivers(void **state)
{
	struct fixture fx;
	struct view v = view(0, 300000, 200, 0, 3);

	(void)state;
	setup(&fx);
	/* Alternating leaves: 300 000 one-sample boxes on row 2. */
	for (int i = 0; i < 300000; i++)
		test_sample(fx.ps, fx.p, i % 2 ? "m;w;x" : "m;w;y", 1, i, 1);
	build_chart(&fx);
	assert_int_equal(fx.c.row_start[3] - fx.c.row_start[2], 300000);
	/* Every cell of row 2 goes to a box of its own, the first in the cell. */
	layout_chart(&fx.l, &fx.c, &v);
	check_layout(&fx.l, &v);
	assert_int_equal(fx.l.nr, 2 + 200);
	for (size_t i = 2; i < fx.l.nr; i++) {
		assert_int_equal(fx.l.boxes[i].flags, BOX_NARROW);
		assert_int_equal(fx.l.boxes[i].col0, i - 2);
		assert_int_equal(chart_x0(&fx.c, fx.l.boxes[i].node), 1500 * (i - 2));
	}
	/* Zoomed to 200 samples, one cell each. */
	v = view(1000, 1200, 200, 2, 1);
	assert_string_equal(chart_grid(&fx, v),
			    "yxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyx"
			    "yxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyx"
			    "yxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyx"
			    "yxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyxyx");
	release(&fx);
}

static void
test_chart_gap_stays_empty(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	/* Under one a: slivers, a gap of 3 cells (a alone), slivers. */
	for (int i = 0; i < 10; i++)
		test_sample(fx.ps, fx.p, i % 2 ? "a;x" : "a;y", 1, i, 1);
	test_sample(fx.ps, fx.p, "a", 30, 10, 1);
	for (int i = 0; i < 10; i++)
		test_sample(fx.ps, fx.p, i % 2 ? "a;x" : "a;y", 1, 20 + i, 1);
	build_chart(&fx);
	assert_string_equal(chart_grid(&fx, view(0, 50, 5, 0, 2)),
			    "aaaaa\n"
			    "y...y");
	release(&fx);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_widths_and_order),
		cmocka_unit_test(test_tree_rounds_to_nearest_edge),
		cmocka_unit_test(test_dominant),
		cmocka_unit_test(test_tree_narrow_nodes_shown),
		cmocka_unit_test(test_tree_eighths),
		cmocka_unit_test(test_tree_zoom_to_node),
		cmocka_unit_test(test_tree_horizontal_subrange),
		cmocka_unit_test(test_tree_row_window),
		cmocka_unit_test(test_tree_width_one_and_wide),
		cmocka_unit_test(test_tree_families_tile_their_parent),
		cmocka_unit_test(test_tree_deep_stack),
		cmocka_unit_test(test_tree_many_slivers),
		cmocka_unit_test(test_tree_crowd_keeps_deepest),
		cmocka_unit_test(test_chart_layout),
		cmocka_unit_test(test_chart_many_slivers),
		cmocka_unit_test(test_chart_gap_stays_empty),
		cmocka_unit_test(test_deep_sliver_keeps_its_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
