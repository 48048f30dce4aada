#ifndef TFLAME_EXPORT_H
#define TFLAME_EXPORT_H

/*
 * Export: what a lens shows, written for other tools (`tflame export`,
 * the explorer's x key).
 *
 *  - folded stacks, one "root;...;leaf weight" line per stack with
 *    weight, sorted: what flamegraph.pl and inferno-flamegraph read;
 *  - speedscope JSON (https://www.speedscope.app/file-format-schema.json):
 *    one "sampled" profile per thread, its samples in time order where
 *    the profile has times, with their weights, and shared frames with
 *    file and line;
 *  - SVG: an interactive flame graph after flamegraph.pl's (click zooms,
 *    Search... highlights and says the matched share as it counts it,
 *    hovering says the details), in the explorer's colours (palette.h).
 *    The same folded input gives flamegraph.pl's boxes where it draws
 *    them: the stacks' weights merged into a tree (empty frames at a
 *    stack's end dropped, as its Perl split drops them), a box's own
 *    weight first, then its callees in the order of its sorted lines
 *    (a box split by that order, "a 1", "a-b 1", "a;c 1", is one box
 *    here, where flamegraph.pl draws a twice), boxes narrower than
 *    minwidth left out (with their subtrees) as its --minwidth does,
 *    both edges rounded to 0.1 px so that neighbours tile, titles
 *    "name (1,234 samples, 5.00%)" with the _[k]/_[j]/_[i]/_[w]
 *    annotations stripped from titles and labels.
 *
 * The writers take the lens as the model gives it, not as the command
 * line spelled it: the per-stack weights of the selected samples, the
 * thread mask and a subtree (the zoom). So whatever decides which
 * samples count (threads, time range, transforms) needs no change here:
 * it hands over other weights, or maps each sample to its view stack.
 *
 * Frame names are written as the profile holds them; in folded output a
 * ';' in a name (it would split the frame) becomes ':' and a line break
 * a space. Nothing here recurses on stack depth.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tflame/palette.h"
#include "tflame/profile.h"

struct tf_error;

/* No sample: what export_sample_fn returns for a sample the lens drops. */
#define EXPORT_DROP ((stack_id)UINT32_MAX)

/*
 * The view stack of sample i of the lens's profile (a stack of the lens's
 * set), or EXPORT_DROP. For a lens that maps stacks (transforms) or
 * drops samples by more than their thread (a time range).
 */
typedef stack_id export_sample_fn(void *ctx, size_t i);

struct export_lens {
	const struct profile_set *ps;
	const struct profile *p;   /* whose samples are exported */
	/*
	 * Per stack of ps (ps->nr_stacks): the weight of the selected samples
	 * that end there (model_stack_weights()). Folded and SVG output
	 * read these.
	 */
	const uint64_t *stack_w;
	/*
	 * When p is the views' scaled copy of a wide profile (profile.h:
	 * weight_shift), its samples' exact weights, in p's order: folded
	 * and speedscope output write these, summed in 128 bits. Else NULL.
	 */
	const uint64_t *exact_weight;
	/*
	 * Speedscope reads the samples themselves, in order: thread t's are
	 * kept when threads is NULL or threads[t]; sample_stack (when not
	 * NULL) maps or drops each one further.
	 */
	const bool *threads;
	export_sample_fn *sample_stack;
	void *ctx;
	/*
	 * The zoom: only what lies in this subtree is written, its call path
	 * from the root included (as the explorer shows a zoomed box under
	 * its callers). STACK_ROOT: everything.
	 */
	stack_id zoom;
	const char *title;         /* the document's name (the file), or NULL */
	/*
	 * A differential flame graph (SVG): the profile of ps that p is
	 * compared with (diff.h: diff_other()), or NULL. Its samples, under
	 * the same threads and zoom, weigh each box before; a box is red
	 * where p grew and blue where it shrank, as flamegraph.pl colours
	 * difffolded.pl's output, deeper the more it changed, and its title
	 * says the change. With base_scale, before's weights are first
	 * scaled to p's total (difffolded.pl -n).
	 */
	const struct profile *base;
	bool base_scale;
};

enum export_format {
	EXPORT_FOLDED,
	EXPORT_SPEEDSCOPE,
	EXPORT_SVG,
	EXPORT_NR_FORMATS
};

/* "folded", "speedscope", "svg". */
const char *export_format_name(enum export_format f);
/* The format called name; false if there is none. */
bool export_format_find(const char *name, enum export_format *out);
/* The format a file name asks for: .svg, .json (speedscope), else folded. */
enum export_format export_format_of_path(const char *path);
/* The extension of format f's files: ".folded", ".json", ".svg". */
const char *export_format_extension(enum export_format f);

struct export_svg_options {
	bool icicle;              /* root at the top (flamegraph.pl --inverted) */
	enum color_mode color;
	unsigned width;           /* image width in px; 0: 1200 as flamegraph.pl */
	/*
	 * Leave out boxes narrower than this: minwidth px, or, with
	 * minwidth_percent, that share of the whole width (0.1 for 0.1%).
	 */
	double minwidth;
	bool minwidth_percent;
};

/*
 * flamegraph.pl's default, 0.1 px: every box it draws is there, and so its
 * search's matched share. (--minwidth=0.1% keeps a million stacks to a
 * few MB.)
 */
#define EXPORT_SVG_OPTIONS_INIT { .minwidth = 0.1, .minwidth_percent = false }

/* What a write did, for the user's message. */
struct export_result {
	uint64_t items;   /* folded lines, speedscope samples, SVG boxes */
	uint64_t omitted; /* SVG: boxes left out as narrower than minwidth */
	uint32_t threads; /* speedscope: profiles written */
};

/*
 * Write lens l to out in format f (svg options: NULL for the defaults).
 * Returns 0, or -1 with err set on a write error. res may be NULL.
 */
int export_write(const struct export_lens *l, enum export_format f,
		 const struct export_svg_options *svg, FILE *out, struct export_result *res,
		 struct tf_error *err);

#endif /* TFLAME_EXPORT_H */
