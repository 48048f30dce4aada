/*
 * diff-model-bench: what a keystroke costs in diff mode, through the model.
 *
 * usage: bench/diff-model-bench BASE NEW
 *
 * Loads both files as tflame does (no symbols), joins them (diff_join())
 * and times, as medians of several runs, what the explorer asks the
 * model for after each key of a comparison: the base's per-stack weights,
 * its subtree totals and its function weights (what the colours, the
 * details and the Sandwich table read)
 *
 *  - on opening, after NEW's own tree and functions;
 *  - after the normalisation key (the base scaled, or back);
 *  - after the swap key (the other side's tree and functions, and its
 *    base's), and after swapping back;
 *  - after a thread filter change (half the threads);
 *  - for the Sandwich of the heaviest function: the base's callers and
 *    callees totals;
 *  - for the inverted tree: its base totals.
 *
 * Target (issue 16): any key <= 10 ms, layout aside (layout-bench).
 * Built by `make bench`, never by `make` or `make check`.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/diff.h"
#include "tflame/error.h"
#include "tflame/model.h"
#include "tflame/profile.h"
#include "tflame/xalloc.h"

#include "bench.h"

enum { RUNS = 7 };

/* The base answers of a drawn screen: weights, subtree totals, functions. */
static void
base_screen(struct model *m)
{
	model_tree(m);
	model_func_stats(m);
	model_base_tree_totals(m);
	model_base_func_stats(m);
}

static void
report(const char *what, double *ms)
{
	printf("  %-44s median %7.1f ms\n", what, median(ms, RUNS));
}

int
main(int argc, char **argv)
{
	struct tf_error err = TF_ERROR_INIT;
	struct profile_set *base, *ps;
	struct model m;
	const struct func_stats *st;
	func_id heavy = 0;
	bool *half;
	double ms[RUNS], t0;

	/* malloc()'s heaps in huge pages, as tflame's main() has them */
	xheap_huge_pages();
	if (argc != 3)
		die("usage: %s BASE NEW", argv[0]);
	t0 = now_ms();
	base = bench_load(argv[1]);
	ps = bench_load(argv[2]);
	printf("loaded in %.0f ms: ", now_ms() - t0);
	t0 = now_ms();
	if (diff_join(ps, base, 0, &err))
		die("%s", tf_error_text(&err));
	printf("joined in %.0f ms; %u stacks, %u frames, %u threads\n", now_ms() - t0,
	       ps->nr_stacks, ps->nr_frames, ps->nr_threads);
	profile_set_free(base);
	model_init(&m, ps);

	t0 = now_ms();
	model_tree(&m);
	model_func_stats(&m);
	printf("  %-44s %14.1f ms\n", "NEW's tree and functions, once", now_ms() - t0);
	t0 = now_ms();
	base_screen(&m);
	printf("  %-44s %14.1f ms\n", "the base's on opening, once", now_ms() - t0);

	for (int r = 0; r < RUNS; r++) {
		model_set_diff_normalize(&m, r % 2 == 0);
		t0 = now_ms();
		base_screen(&m);
		ms[r] = now_ms() - t0;
	}
	report("normalisation toggled", ms);
	model_set_diff_normalize(&m, false);

	for (int r = 0; r < RUNS; r++) {
		t0 = now_ms();
		model_swap_diff(&m);
		base_screen(&m);
		ms[r] = now_ms() - t0;
	}
	report("swap (both sides' trees and functions)", ms);
	if (m.lens.profile)
		model_swap_diff(&m);

	half = xcalloc((size_t)ps->nr_threads + 1, sizeof(*half));
	for (uint32_t i = 0; i < ps->nr_threads; i++)
		half[i] = i % 2 == 0;
	for (int r = 0; r < RUNS; r++) {
		model_set_threads(&m, r % 2 ? NULL : half);
		t0 = now_ms();
		base_screen(&m);
		ms[r] = now_ms() - t0;
	}
	report("thread filter change (both sides)", ms);
	model_set_threads(&m, NULL);
	free(half);

	st = model_func_stats(&m);
	for (func_id f = 0; f < model_funcs(&m)->nr_funcs; f++)
		if (!model_funcs(&m)->process[f] && st[f].total > st[heavy].total)
			heavy = f;
	model_sandwich(&m, heavy);
	for (int r = 0; r < RUNS; r++) {
		model_set_diff_normalize(&m, r % 2 == 0);
		t0 = now_ms();
		model_base_sandwich(&m, heavy, false);
		model_base_sandwich(&m, heavy, true);
		ms[r] = now_ms() - t0;
	}
	report("sandwich of the heaviest function, base side", ms);
	model_inverted(&m);
	for (int r = 0; r < RUNS; r++) {
		model_set_diff_normalize(&m, r % 2 != 0);
		t0 = now_ms();
		model_base_inverted_totals(&m);
		ms[r] = now_ms() - t0;
	}
	report("inverted tree, base side", ms);
	model_release(&m);
	return 0;
}
