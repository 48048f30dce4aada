#ifndef TFLAME_CHART_H
#define TFLAME_CHART_H

/*
 * The flame chart of the Time Order pane, with speedscope's semantics.
 *
 * The selected samples are taken thread by thread, in the order the threads
 * first appear, and in time order within a thread (input order when the
 * profile has no times). Interleaved threads would otherwise split every
 * box at every sample; this way each thread's timeline reads as speedscope
 * shows a single thread, and the timelines follow one another. x is cumulative
 * weight: sample i covers [x_i, x_i + weight_i). At each depth, consecutive
 * samples whose stacks share the same prefix down to that depth merge into
 * one box, so a box is one uninterrupted stretch of a call path.
 *
 * Zero-weight samples cover no x and are skipped: they neither make nor
 * split boxes. A sample with the empty stack covers its x with no box, so
 * it splits every box around it.
 *
 * Boxes are stored by depth, and within a depth by x, so the boxes of one
 * row in an x-range are found by binary search. Every box records times for
 * the details bar: t0 is the time of its first sample. t1 is where its
 * last sample ended in a profile with spans (profile.h); otherwise samples
 * have no duration, so t1 is the time of the thread's next selected sample
 * after the box, or its last sample's own time for a box that lasts to the
 * end of the thread's timeline. Both are 0 when the profile has no times.
 *
 * Building is O(samples + the frames that change from one sample to the
 * next), plus a sort when the samples are out of time order; nothing
 * recurses. The chart borrows ps, which must outlive it.
 */

#include <stdint.h>

#include "tflame/functions.h"
#include "tflame/profile.h"

struct tf_error;

#define CHART_NONE UINT32_MAX

struct chart_box {
	uint64_t x0, x1;   /* [x0, x1) in cumulative weight */
	int64_t t0, t1;    /* time of the first sample, and of the end of the last (above) */
	stack_id stack;    /* the call path down to this box's frame */
	uint32_t depth;    /* 0 for the outermost frames */
	uint32_t parent;   /* index of the box one row up, CHART_NONE at depth 0 */
	thread_id thread;  /* whose timeline the box is on */
};

struct chart {
	const struct profile_set *ps;
	struct chart_box *boxes; /* by depth, then by x0 */
	uint32_t nr_boxes;
	uint32_t *row_start;     /* boxes of depth d: [row_start[d], row_start[d + 1]) */
	uint32_t nr_rows;        /* max depth + 1 */
	uint64_t total;          /* total weight: x runs over [0, total) */
	bool has_time;
};

/*
 * Build the chart of p's samples that pass filter (NULL: all). p must
 * belong to ps. Release with chart_release().
 */
void chart_build(struct chart *c, const struct profile_set *ps, const struct profile *p,
		 const struct sample_filter *filter);
void chart_release(struct chart *c);

/* Index of the box of row depth that covers x, or CHART_NONE. */
uint32_t chart_find(const struct chart *c, uint32_t depth, uint64_t x);

/*
 * Check the invariants: boxes of a row sorted and disjoint, each inside its
 * parent, parent one row up and on the same thread, adjacent boxes of a
 * row never the same stack of the same thread unless a gap separates them. Returns 0, or -1 with err describing the
 * first violation.
 */
int chart_check(const struct chart *c, struct tf_error *err);

#endif /* TFLAME_CHART_H */
