/*
 * layout-bench: what a keystroke costs in the Left Heavy and Time Order
 * panes on a big profile.
 *
 * usage: bench/layout-bench [FILE]
 *
 * Without FILE it generates, in memory, about 3 M samples of depth ~20 with
 * the locality of a real recording (consecutive samples share most of
 * their stack) over a call tree of more than a million nodes. With FILE it
 * loads that profile instead and uses its largest profile. It then times
 * calltree_build(), timeline_build() and layout_tree() / layout_chart() for
 * 200x60 and 80x24 views at several zooms, and prints medians.
 *
 * Built by `make bench`, never by `make` or `make check`.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tflame/calltree.h"
#include "tflame/chart.h"
#include "tflame/error.h"
#include "tflame/functions.h"
#include "tflame/import.h"
#include "tflame/layout.h"
#include "tflame/profile.h"
#include "tflame/xalloc.h"

#include "bench.h"

#define NR_NAMES 200000u
#define NR_SAMPLES 3000000u
#define MAX_DEPTH 64

/*
 * A profile like a long perf recording: each sample keeps most of the
 * previous one's stack and replaces a few frames at the leaf end. A new
 * frame is one of a few usual callees of its caller most of the time, and
 * any of NR_NAMES functions otherwise, which grows the tree past a million
 * nodes.
 */
static struct profile_set *
generate(void)
{
	struct profile_set *ps = profile_set_new();
	struct profile *p = profile_set_profile(ps, ps_str(ps, "cycles", 6), UNIT_EVENTS);
	frame_id *frames = xmalloc(sizeof(*frames) * NR_NAMES);
	thread_id threads[8];
	stack_id path[MAX_DEPTH + 1];
	uint32_t depth = 0;
	uint64_t seed = 1;
	int64_t t = 1000000000;
	char name[32];

	for (uint32_t i = 0; i < NR_NAMES; i++) {
		struct frame f = { 0 };
		int n = snprintf(name, sizeof(name), "function_%u", i);

		f.name = ps_str(ps, name, (size_t)n);
		f.module = ps_str(ps, "bench", 5);
		frames[i] = profile_set_frame(ps, &f);
	}
	for (int i = 0; i < 8; i++)
		threads[i] = profile_set_thread(ps, 100, 100 + i, ps_str(ps, "bench", 5));
	path[0] = STACK_ROOT;
	for (uint32_t i = 0; i < NR_SAMPLES; i++) {
		uint32_t target = 8 + rnd(&seed) % 25, pop = 1;

		while (pop < 12 && rnd(&seed) % 100 < 60)
			pop++;
		if (rnd(&seed) % 100 < 2)
			pop = depth;
		depth = depth > pop ? depth - pop : 0;
		while (depth < target) {
			stack_id parent = path[depth];
			uint32_t r = rnd(&seed) % 100, f;
			uint32_t usual = r < 92 ? 0 : r < 97 ? 1 : r < 99 ? 2 : 3;

			if (usual < 3)
				f = (uint32_t)((parent * 2654435761u + usual * 40503u) % NR_NAMES);
			else
				f = rnd(&seed) % NR_NAMES;
			path[++depth] = profile_set_stack(ps, parent, frames[f]);
		}
		t += 900 + rnd(&seed) % 200;
		if (profile_add_sample(p, path[depth], 1000 + rnd(&seed) % 1000, t, true,
				       threads[i / 5000 % 8], NULL))
			die("weights overflow");
	}
	free(frames);
	return ps;
}

struct zoom {
	const char *name;
	uint64_t x0, x1;
	uint32_t first_row;
};

/* Time layouts of every zoom at one size; print one line per zoom. */
static void
time_layouts(const char *pane, const struct calltree *t, const struct chart *c,
	     const struct zoom *z, int nr_zooms, uint32_t width, uint32_t rows)
{
	enum { RUNS = 301 };
	double ms[RUNS];
	struct layout l;

	layout_init(&l);
	for (int i = 0; i < nr_zooms; i++) {
		struct view v = { z[i].x0, z[i].x1, width, z[i].first_row, rows, true };
		double max = 0;

		for (int r = 0; r < RUNS; r++) {
			double t0 = now_ms();

			if (t)
				layout_tree(&l, t, &v);
			else
				layout_chart(&l, c, &v);
			ms[r] = now_ms() - t0;
			if (ms[r] > max)
				max = ms[r];
		}
		printf("  %-10s %3ux%-3u %-28s %5zu boxes  median %7.3f ms  max %7.3f ms\n",
		       pane, width, rows, z[i].name, l.nr, median(ms, RUNS), max);
	}
	layout_release(&l);
}

/* The heaviest path from the root, zoom levels deep. */
static stack_id
heavy_node(const struct calltree *t, int levels)
{
	stack_id n = STACK_ROOT;

	for (int i = 0; i < levels; i++) {
		uint32_t nr;
		const stack_id *k = calltree_kids(t, n, &nr);

		if (!nr)
			break;
		n = k[0];
	}
	return n;
}

int
main(int argc, char **argv)
{
	struct profile_set *ps;
	struct profile *p;
	uint64_t *w;
	struct calltree t;
	struct timeline tl;
	struct chart c;
	double ms[7], t0;
	struct zoom z[12];
	char names[4][40];
	int nz = 0;
	uint64_t total;
	uint32_t nodes = 0, mid;

	/* malloc()'s heaps in huge pages, as tflame's main() has them */
	xheap_huge_pages();
	t0 = now_ms();
	ps = argc > 1 ? bench_load(argv[1]) : generate();
	p = ps->profiles[0];
	for (size_t i = 1; i < ps->nr_profiles; i++)
		if (ps->profiles[i]->nr_samples > p->nr_samples)
			p = ps->profiles[i];
	printf("profile: %zu samples, %u stacks, %u frames (%s in %.0f ms)\n", p->nr_samples,
	       ps->nr_stacks, ps->nr_frames, argc > 1 ? argv[1] : "generated", now_ms() - t0);

	w = xmalloc(sizeof(*w) * ps->nr_stacks);
	for (int i = 0; i < 7; i++) {
		t0 = now_ms();
		stack_weights(ps, p, NULL, w);
		ms[i] = now_ms() - t0;
	}
	printf("stack_weights: median %.1f ms\n", median(ms, 7));
	for (int i = 0; i < 5; i++) {
		t0 = now_ms();
		calltree_build(&t, ps, w);
		ms[i] = now_ms() - t0;
		if (i < 4)
			calltree_release(&t);
	}
	for (uint32_t i = 1; i < t.nr_nodes; i++)
		nodes += t.total[i] != 0;
	printf("calltree_build: %u nodes with weight, median %.1f ms\n", nodes, median(ms, 5));
	for (int i = 0; i < 3; i++) {
		t0 = now_ms();
		timeline_build(&tl, ps, p, NULL);
		c = *timeline_merged(&tl);
		ms[i] = now_ms() - t0;
		if (i < 2)
			timeline_release(&tl);
	}
	printf("timeline_build + merged: %u boxes in %u rows (%.2f per sample, %.0f MiB), "
	       "median %.1f ms\n",
	       c.nr_boxes, c.nr_rows, (double)c.nr_boxes / (double)(p->nr_samples + !p->nr_samples),
	       (double)timeline_memory(&tl) / 1048576.0, median(ms, 3));

	total = t.total[STACK_ROOT];
	z[nz++] = (struct zoom){ "all", 0, total, 0 };
	z[nz++] = (struct zoom){ "all, scrolled to row 12", 0, total, 12 };
	z[nz++] = (struct zoom){ "x range 1/16", total / 2, total / 2 + total / 16, 0 };
	z[nz++] = (struct zoom){ "x range 1/1024", total / 2, total / 2 + total / 1024, 0 };
	for (int lv = 0; lv < 4; lv++) {
		stack_id n = heavy_node(&t, 1 << lv);
		uint64_t a, b;

		if (!calltree_node_range(&t, n, &a, &b))
			continue;
		snprintf(names[lv], sizeof(names[lv]), "zoomed %d deep on the heaviest", 1 << lv);
		z[nz++] = (struct zoom){ names[lv], a, b, 0 };
	}
	printf("Left Heavy (layout_tree, median of 301):\n");
	time_layouts("left-heavy", &t, NULL, z, nz, 200, 60);
	time_layouts("left-heavy", &t, NULL, z, nz, 80, 24);

	nz = 0;
	total = c.total;
	z[nz++] = (struct zoom){ "all", 0, total, 0 };
	z[nz++] = (struct zoom){ "all, scrolled to row 12", 0, total, 12 };
	z[nz++] = (struct zoom){ "x range 1/16", total / 2, total / 2 + total / 16, 0 };
	z[nz++] = (struct zoom){ "x range 1/1024", total / 2, total / 2 + total / 1024, 0 };
	mid = chart_find(&c, 3, total / 2);
	if (mid != CHART_NONE)
		z[nz++] = (struct zoom){ "zoomed on a depth-3 box", chart_x0(&c, mid),
					 chart_x1(&c, mid), 0 };
	printf("Time Order (layout_chart, median of 301):\n");
	time_layouts("time-order", NULL, &c, z, nz, 200, 60);
	time_layouts("time-order", NULL, &c, z, nz, 80, 24);

	timeline_release(&tl);
	calltree_release(&t);
	free(w);
	profile_set_free(ps);
	return 0;
}
