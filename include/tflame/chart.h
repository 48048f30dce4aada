#ifndef TFLAME_CHART_H
#define TFLAME_CHART_H

/*
 * The flame charts of the Time Order pane: x is time, and every thread has
 * a chart of its own, its lane.
 *
 * A timeline is the selected samples of one profile on one x axis (struct
 * chart_axis), laid out as lanes, one chart per selected thread, heaviest
 * thread first, and a merged chart of the whole selection. x runs over
 * [0, total), x 0 being the first selected sample's time, so every lane of
 * the selection starts and ends on the same scale. How long a sample lasts
 * depends on what the input said:
 *
 *  - CHART_X_TIME, instant samples (perf): a sample lasts until its
 *    thread's next sample, unless that one came more than axis.cap later;
 *    then it lasts axis.period, the typical gap between a thread's
 *    samples, and the rest of the gap is a gap: the thread was idle or off
 *    the CPU. See chart_axis for how period and cap are chosen.
 *  - CHART_X_SPANS, timed intervals (trace events, speedscope's evented
 *    profiles; profile.h's spans): a sample lasts its weight from its time.
 *  - CHART_X_WEIGHT, no times (folded stacks, pprof): x is cumulative
 *    weight in file order, lanes one after the other; the chart says so,
 *    so the ruler does not pretend it is time.
 *
 * A chart holds its samples in time order ("positions"), each the index of
 * a sample of the profile. At each depth, consecutive positions whose
 * stacks share the prefix down to that depth merge into one box, unless
 * time separates them: a gap longer than the cap (CHART_X_TIME), any gap
 * (CHART_X_SPANS), another thread (the merged chart of CHART_X_WEIGHT). A
 * box is the positions [first, end): its x range is from the start of its
 * first sample to the end of its last, worked out from the profile's times
 * when asked for. So that a chart takes less than 16 bytes per sample
 * (about 2.6 boxes a sample on real stacks), a box stores only its first
 * position: per position the chart keeps how many frames its stack shares
 * with the previous one ("shared", 0 after a gap), and a box of row d ends
 * at the first position after its first that shares d frames or fewer,
 * found through the minima of blocks of 64, 4096, ... positions. Its stack
 * is its first sample's, walked up to its depth, and its parent is found
 * by binary search: neither is stored.
 *
 * The merged chart is the selection as one timeline, for a view of
 * several threads at once: one lane at a time owns it while its samples
 * last, a heavier lane taking over whenever one of its samples starts, a
 * lighter one only when the owner has nothing running. So the heaviest
 * thread shows whole wherever it ran, and the others fill its gaps with
 * what they did then, instead of interleaving sample by sample into
 * slivers. Without times the lanes follow one another, as in the lanes.
 *
 * Zero-weight samples are skipped: they neither make nor split boxes. A
 * sample with the empty stack covers its x with no box.
 *
 * Boxes are stored by depth, and within a depth by x, so the boxes of one
 * row in an x-range are found by binary search. Building is O(samples +
 * the frames that change from one sample to the next), plus a merge of
 * sorted runs when samples are out of time order; nothing recurses. A
 * lane does not depend on the selection, only on its thread: a timeline
 * keeps the lanes it built, and a new selection (timeline_select())
 * builds only the lanes of threads it has not seen and the merged chart.
 * A timeline borrows ps and p, which must outlive it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflame/functions.h"
#include "tflame/profile.h"

struct tf_error;

#define CHART_NONE UINT32_MAX

enum chart_x {
	CHART_X_WEIGHT, /* no times: x is cumulative weight */
	CHART_X_TIME,   /* instant samples: each lasts until its thread's next */
	CHART_X_SPANS,  /* timed intervals: each lasts its weight (ns) */
};

struct chart_axis {
	enum chart_x kind;
	int64_t origin;  /* the time at x 0 (not CHART_X_WEIGHT) */
	uint64_t total;  /* x runs over [0, total) */
	/*
	 * CHART_X_TIME: the sampling period, as the data shows it (the lower
	 * quartile of the gaps between a thread's consecutive samples), and
	 * the longest gap a sample lasts across (3 periods): see
	 * chart_axis_period().
	 */
	uint64_t period, cap;
};

struct chart {
	const struct profile_set *ps;
	const struct profile *p;
	struct chart_axis axis;  /* the timeline's, copied */
	uint64_t total;          /* axis.total: x runs over [0, total) */
	bool has_time;           /* axis.kind != CHART_X_WEIGHT */
	thread_id thread;        /* a lane's thread; THREAD_NONE for a merged chart */
	uint64_t weight;         /* of its samples */
	uint64_t x_begin, x_end; /* where its first sample starts, its last ends */

	uint32_t nr_samples;
	uint32_t *sample;        /* per position: the sample's index in p */
	uint64_t *cum;           /* CHART_X_WEIGHT: x of each position - cum_base, nr_samples + 1 */
	uint64_t cum_base;
	uint64_t *busy;          /* x covered by positions [0, 64 k), per k */
	/*
	 * Per position, the frames shared with the previous position, then
	 * the minima of each block of 64 of them, of 64 such blocks, and so
	 * on: level l at shared + level_at[l], entries of shared_width bytes
	 * (1, 2 or 4, as the deepest stack needs).
	 */
	void *shared;
	uint32_t level_at[8];
	uint8_t nr_levels, shared_width;

	uint32_t nr_boxes;
	uint32_t *first;         /* per box: its first position */
	uint32_t *row_start;     /* boxes of depth d: [row_start[d], row_start[d + 1]) */
	uint32_t nr_rows;        /* max depth + 1 */
	bool borrowed;           /* the arrays are another chart's (a lane's) */
	struct stack_memo *memo; /* recent chart_stack() answers, its timeline's */
};

struct lane_cache;

struct timeline {
	const struct profile_set *ps;
	const struct profile *p;
	struct chart_axis axis;
	struct chart *lanes;     /* heaviest thread first */
	uint32_t nr_lanes;
	struct chart merged;     /* see timeline_merged() */
	bool merged_built;
	struct lane_cache *cache; /* the lanes of every thread built so far */
};

/*
 * The typical gap between a thread's consecutive samples in p (a thread
 * being all its names' entries of ps: ps_thread(); all of its threads, whatever the selection, so that the lanes keep their shape
 * when it changes), in ns: the lower quartile of the positive gaps, from
 * at most 65536 of them. 0 when p has no times or no thread has two
 * samples at different times.
 */
uint64_t chart_axis_period(const struct profile_set *ps, const struct profile *p);

/*
 * Build the lanes of p's samples that pass filter (NULL: all) on their
 * shared axis. p must belong to ps. Release with timeline_release().
 */
void timeline_build(struct timeline *tl, const struct profile_set *ps, const struct profile *p,
		    const struct sample_filter *filter);
/*
 * The same for another selection of the same ps and p, which must not
 * have changed since: the lanes built before are kept (and the charts of
 * the old selection, the merged chart included, invalid). So a new
 * selection costs the lanes of threads never selected before, and the
 * merged chart.
 */
void timeline_select(struct timeline *tl, const struct sample_filter *filter);
void timeline_release(struct timeline *tl);
/*
 * The merged chart of the selection, built on the first call (the lone
 * lane itself when one thread is selected). Valid until timeline_release().
 */
const struct chart *timeline_merged(struct timeline *tl);
/* Bytes held by the lanes (all threads' built so far), and by the merged chart if built. */
size_t timeline_memory(const struct timeline *tl);

/* ------------------------------------------------------------ one chart */

/* Where position k starts and ends on the x axis. */
static inline uint64_t
chart_pos_x0(const struct chart *c, uint32_t k)
{
	if (c->axis.kind == CHART_X_WEIGHT)
		return c->cum_base + c->cum[k];
	return (uint64_t)c->p->time[c->sample[k]] - (uint64_t)c->axis.origin;
}

uint64_t chart_pos_x1(const struct chart *c, uint32_t k);

/*
 * Box i's x range [x0, x1), row (stack depth - 1), stack, parent (or
 * CHART_NONE). x0 is O(1); x1 and the row are O(log rows) and a scan of
 * the box's positions that skips blocks of 64 (O(64 log_64 positions) at
 * worst); the stack walks up from the leaf of the box's first sample,
 * and the timeline remembers the last few thousand answers (painting asks
 * for a box's stack several times), so chart_stack() is for one thread
 * at a time.
 */
static inline uint64_t
chart_x0(const struct chart *c, uint32_t i)
{
	return chart_pos_x0(c, c->first[i]);
}

uint64_t chart_x1(const struct chart *c, uint32_t i);
/* chart_x1() of box i of row row, known to be its row: no search for the row. */
uint64_t chart_row_x1(const struct chart *c, uint32_t row, uint32_t i);
uint32_t chart_depth(const struct chart *c, uint32_t i);
stack_id chart_stack(const struct chart *c, uint32_t i);
/* Every box's stack into stack[nr_boxes], in O(boxes + samples). */
void chart_stacks(const struct chart *c, stack_id *stack);

/* O(log boxes of the row above). */
uint32_t chart_parent(const struct chart *c, uint32_t i);
/* Every box's parent into parent[nr_boxes], in O(boxes). */
void chart_parents(const struct chart *c, uint32_t *parent);
/*
 * The thread of box i's first sample (a lane's boxes are all its
 * thread's): its first entry (ps_thread()), whatever name it had then.
 */
thread_id chart_box_thread(const struct chart *c, uint32_t i);

/* Index of the box of row depth that covers x, or CHART_NONE. */
uint32_t chart_find(const struct chart *c, uint32_t depth, uint64_t x);
/* The first box of row depth that ends after x (row_start[depth + 1] if none). */
uint32_t chart_first_after(const struct chart *c, uint32_t depth, uint64_t x);

/*
 * The box before (dir < 0) or after (dir > 0) box i in time on its row,
 * across any gap, or CHART_NONE at the row's end.
 */
uint32_t chart_step(const struct chart *c, uint32_t i, int dir);

/* What the details of a box say about its time. */
struct chart_span {
	uint64_t x0, x1;      /* its x range: ns from the start when timed */
	int64_t t0, t1;       /* the same as times in the profile (timed only) */
	double pct0, pct1;    /* x0 and x1 as percentages of the axis */
	double pct;           /* x1 - x0 as a percentage of the axis */
};

void chart_box_span(const struct chart *c, uint32_t i, struct chart_span *out);

/*
 * x covered by c's samples in [0, x): the time its thread had samples,
 * gaps left out. O(log samples + 64).
 */
uint64_t chart_covered(const struct chart *c, uint64_t x);

/*
 * Activity for a sparkline: split [x0, x1) into cols equal columns and
 * write into out[cols] the share of each column that c's samples cover,
 * from 0 to 1. O(cols x (log samples + 64)).
 */
void chart_activity(const struct chart *c, uint64_t x0, uint64_t x1, uint32_t cols,
		    float *out);

/*
 * Check the invariants: boxes of a row sorted and disjoint, in positions
 * and in x, each inside its parent, whose stack is its caller's, adjacent
 * boxes of a row never the same stack unless time separates them,
 * positions in time order. Returns 0, or -1 with err describing the first
 * violation.
 */
int chart_check(const struct chart *c, struct tf_error *err);

/* ------------------------------------------------------------ the ruler */

struct ruler_tick {
	uint32_t col;    /* where the tick is: the label starts there */
	uint32_t width;  /* the label's width in cells */
	uint64_t x;
	char label[40];
};

/*
 * What a ruler's x means: time in ns (CHART_X_TIME, CHART_X_SPANS), or a
 * profile's cumulative weight (CHART_X_WEIGHT) in its unit, scaled by
 * 10^decimals as the profile keeps it (profile.h).
 */
struct ruler_scale {
	enum weight_unit unit;
	unsigned decimals;
	/*
	 * x counts 2^shift of the unit (a wide profile's scaled weights,
	 * profile.h): the ticks fall on round amounts of the input's units.
	 */
	unsigned shift;
	unsigned tens;  /* chart_format_x(): x counts 10^tens of the unit */
};

#define RULER_TIME ((struct ruler_scale){ UNIT_NANOSECONDS, 0, 0, 0 })

/* The scale of a timeline's axis: time, or its profile's weight. */
struct ruler_scale chart_ruler_scale(const struct timeline *tl);

/*
 * The ticks of a ruler over [x0, x1) across width cells: at the multiples
 * of the smallest step of 1, 2, 2.5 or 5 times a power of ten whose labels
 * leave two blanks at least between them, none past the width.
 * Labels say x in the largest unit it reaches, trailing zeros dropped:
 * in ns, "0", "250 ms", "1.5 s" (ns, us or µs unless ascii, ms, s); in
 * bytes, "0", "500 kB", "1.5 MB" (powers of 1000); in other units, "0",
 * "2.5k", "10M", the last label followed by the unit's name where it has
 * one ("300 samples"), ticks at the end giving way to it. col is
 * round((x - x0) * width / (x1 - x0)) as the layout places boxes. Writes at most max ticks into
 * out and returns how many; 0 when x1 <= x0 or nothing fits.
 */
size_t chart_ruler(uint64_t x0, uint64_t x1, uint32_t width, struct ruler_scale scale,
		   bool ascii, struct ruler_tick *out, size_t max);

/* Append x as a ruler labels it (see chart_ruler()), without a unit name. */
struct strbuf;
void chart_format_x(uint64_t x, struct ruler_scale scale, bool ascii, struct strbuf *out);

#endif /* TFLAME_CHART_H */
