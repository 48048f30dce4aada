#include "config.h"

#include "tflame/chart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tflame/error.h"
#include "tflame/strbuf.h"
#include "tflame/xalloc.h"

/*
 * Building a chart: a walk over its positions in time order that keeps
 * the open path, the stack open at each depth. A sample's stack is
 * compared with the open path from its leaf upwards, and stacks are
 * interned on (parent, frame), so the first ancestor that is the open
 * stack of its depth ends the comparison: the rest of the path above it
 * is the same. Its depth is what the position shares with the one before
 * it, and boxes open below it. The work per sample is the number of
 * frames that change, never the whole depth, and nothing recurses. A gap
 * in time (chart_gap()) shares nothing.
 *
 * That walk counts the boxes of each depth; then every box has a known
 * slot (row_start[d] plus how many of its depth opened before it), and a
 * second pass, over the shared counts and depths the first one noted,
 * writes each box's first position straight into place: sorted by depth
 * and x, with no sort and no copy.
 */

/* How many positions ahead building a chart asks for its samples' data. */
#define PREFETCH_AHEAD 16
/* Checkpoints of chart.busy: one per this many positions. */
#define BUSY_STEP 64
/* Each level of chart.shared holds the minima of this many entries of the one below. */
#define LEVEL_BITS 6
#define LEVEL_FAN (1u << LEVEL_BITS)

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a * b / c without overflow (c > 0; the result fits when a <= c). */
static uint64_t
mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((unsigned __int128)a * b / c);
}

/* Where position k ends, given where it starts (x) and the next one starts (UINT64_MAX: none). */
static inline uint64_t
pos_end(const struct chart *c, uint32_t k, uint64_t x, uint64_t next)
{
	if (c->axis.kind == CHART_X_WEIGHT)
		return c->cum_base + c->cum[k + 1];
	if (c->axis.kind == CHART_X_SPANS) {
		uint64_t end = sat_add(x, c->p->weight[c->sample[k]]);

		return end < next ? end : next;
	}
	if (next - x <= c->axis.cap)
		return next;
	return sat_add(x, c->axis.period);
}

uint64_t
chart_pos_x1(const struct chart *c, uint32_t k)
{
	if (c->axis.kind == CHART_X_WEIGHT)
		return c->cum_base + c->cum[k + 1];
	return pos_end(c, k, chart_pos_x0(c, k),
		       k + 1 < c->nr_samples ? chart_pos_x0(c, k + 1) : UINT64_MAX);
}

/* Is there a gap between positions k - 1 and k, which no box spans? */
static bool
chart_gap(const struct chart *c, uint32_t k)
{
	if (c->axis.kind == CHART_X_WEIGHT)
		return ps_thread(c->ps, c->p->thread[c->sample[k]]) !=
		       ps_thread(c->ps, c->p->thread[c->sample[k - 1]]);
	return chart_pos_x1(c, k - 1) < chart_pos_x0(c, k);
}

/* ------------------------------------------------------------ shared frames */

static inline uint32_t
shared_at(const struct chart *c, size_t i)
{
	switch (c->shared_width) {
	case 1:
		return ((const uint8_t *)c->shared)[i];
	case 2:
		return ((const uint16_t *)c->shared)[i];
	default:
		return ((const uint32_t *)c->shared)[i];
	}
}

static inline void
shared_set(struct chart *c, size_t i, uint32_t v)
{
	switch (c->shared_width) {
	case 1:
		((uint8_t *)c->shared)[i] = (uint8_t)v;
		break;
	case 2:
		((uint16_t *)c->shared)[i] = (uint16_t)v;
		break;
	default:
		((uint32_t *)c->shared)[i] = v;
	}
}

/* Entries of level l of shared. */
static uint32_t
level_size(const struct chart *c, uint32_t l)
{
	uint64_t unit = (uint64_t)1 << (LEVEL_BITS * l);

	return (uint32_t)(((uint64_t)c->nr_samples + unit - 1) >> (LEVEL_BITS * l));
}

/* Allocate c->shared for nr_samples positions of values up to max, with its levels. */
static void
shared_alloc(struct chart *c, uint32_t max)
{
	size_t total = 0;

	c->shared_width = max <= UINT8_MAX ? 1 : max <= UINT16_MAX ? 2 : 4;
	c->nr_levels = 0;
	do {
		c->level_at[c->nr_levels] = (uint32_t)total;
		total += level_size(c, c->nr_levels);
		c->nr_levels++;
	} while (level_size(c, c->nr_levels - 1) > LEVEL_FAN && c->nr_levels < 8);
	c->shared = xmalloc(c->shared_width * (total + 1));
}

/* Fill the levels above the positions' shared counts. */
static void
shared_levels(struct chart *c)
{
	for (uint32_t l = 1; l < c->nr_levels; l++) {
		size_t below = c->level_at[l - 1], at = c->level_at[l];
		uint32_t n = level_size(c, l - 1);

		for (uint32_t b = 0; b < level_size(c, l); b++) {
			uint32_t lo = b << LEVEL_BITS, hi = lo + LEVEL_FAN < n ? lo + LEVEL_FAN : n;
			uint32_t min = UINT32_MAX;

			for (uint32_t k = lo; k < hi; k++) {
				uint32_t v = shared_at(c, below + k);

				min = v < min ? v : min;
			}
			shared_set(c, at + b, min);
		}
	}
}

/* The first position in [from, to) that shares d frames or fewer, or to. */
static inline uint32_t
scan_positions(const struct chart *c, uint32_t from, uint32_t to, uint32_t d)
{
	switch (c->shared_width) {
	case 1: {
		const uint8_t *v = c->shared;

		while (from < to && v[from] > d)
			from++;
		return from;
	}
	case 2: {
		const uint16_t *v = c->shared;

		while (from < to && v[from] > d)
			from++;
		return from;
	}
	default: {
		const uint32_t *v = c->shared;

		while (from < to && v[from] > d)
			from++;
		return from;
	}
	}
}

/*
 * The first position in [from, limit) that shares d frames or fewer with
 * the one before it, or limit: the positions up to a block boundary
 * first (most boxes end there); then along a level, climbing to the next
 * one at each boundary, until a block's minimum is at most d; then down
 * into that block, to the first such position.
 */
static uint32_t
next_shared_within(const struct chart *c, uint32_t from, uint32_t limit, uint32_t d)
{
	uint32_t stop = from | (LEVEL_FAN - 1), k, l = 1;

	if (from >= limit)
		return limit;
	stop = stop >= limit - 1 ? limit : stop + 1;
	k = scan_positions(c, from, stop, d);
	if (k < stop || stop == limit)
		return k;
	if (c->nr_levels == 1)
		return scan_positions(c, k, limit, d);
	k >>= LEVEL_BITS;
	for (;;) {
		size_t at = c->level_at[l];
		uint32_t n = level_size(c, l);
		bool climb = false;

		while (k < n && shared_at(c, at + k) > d) {
			k++;
			if (((uint64_t)k << (LEVEL_BITS * l)) >= limit)
				return limit;
			if (!(k % LEVEL_FAN) && l + 1 < c->nr_levels) {
				climb = true;
				break;
			}
		}
		if (!climb) {
			if (k >= n)
				return limit;
			break;
		}
		k >>= LEVEL_BITS;
		l++;
	}
	while (l > 1) {
		size_t at;

		l--;
		at = c->level_at[l];
		k <<= LEVEL_BITS;
		while (shared_at(c, at + k) > d)
			k++;
	}
	k = scan_positions(c, k << LEVEL_BITS, limit, d);
	return k;
}

/* The row of box i: the last row starting at or before it. */
static uint32_t
box_row(const struct chart *c, uint32_t i)
{
	uint32_t lo = 0, hi = c->nr_rows;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->row_start[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The end of box i of row d: the next box of the row starts there or later. */
static uint32_t
box_end(const struct chart *c, uint32_t i, uint32_t d)
{
	uint32_t limit = i + 1 < c->row_start[d + 1] ? c->first[i + 1] : c->nr_samples;

	return next_shared_within(c, c->first[i] + 1, limit, d);
}

uint32_t
chart_depth(const struct chart *c, uint32_t i)
{
	return box_row(c, i);
}

uint64_t
chart_x1(const struct chart *c, uint32_t i)
{
	return chart_pos_x1(c, box_end(c, i, box_row(c, i)) - 1);
}

uint64_t
chart_row_x1(const struct chart *c, uint32_t row, uint32_t i)
{
	uint32_t k = c->first[i] + 1, end;
	uint32_t limit = i + 1 < c->row_start[row + 1] ? c->first[i + 1] : c->nr_samples;
	uint64_t x;

	/* Most boxes are short: their end without a call, and x from what is at hand. */
	if (c->shared_width == 1 && limit - k < LEVEL_FAN) {
		const uint8_t *v = c->shared;

		for (end = k; end < limit && v[end] > row; end++)
			;
	} else {
		end = next_shared_within(c, k, limit, row);
	}
	if (c->axis.kind == CHART_X_WEIGHT)
		return c->cum_base + c->cum[end];
	x = chart_pos_x0(c, end - 1);
	return pos_end(c, end - 1, x, end < c->nr_samples ? chart_pos_x0(c, end) : UINT64_MAX);
}

/* Entries of a timeline's stack_memo: a power of two. */
#define STACK_MEMO 8192

struct stack_memo {
	struct {
		const uint32_t *chart; /* which chart's box: its first[] */
		uint32_t box;
		stack_id stack;
	} e[STACK_MEMO];
};

stack_id
chart_stack(const struct chart *c, uint32_t i)
{
	const struct stack_node *stacks = c->ps->stacks;
	uint32_t depth, slot = (i ^ (uint32_t)((uintptr_t)c->first >> 6)) & (STACK_MEMO - 1);
	stack_id s;

	if (c->memo && c->memo->e[slot].chart == c->first && c->memo->e[slot].box == i)
		return c->memo->e[slot].stack;
	depth = box_row(c, i) + 1;
	s = c->p->stack[c->sample[c->first[i]]];
	while (stacks[s].depth > depth)
		s = stacks[s].parent;
	if (c->memo) {
		c->memo->e[slot].chart = c->first;
		c->memo->e[slot].box = i;
		c->memo->e[slot].stack = s;
	}
	return s;
}

void
chart_stacks(const struct chart *c, stack_id *stack)
{
	const struct stack_node *stacks = c->ps->stacks;
	uint32_t *next = xmalloc(sizeof(*next) * ((size_t)c->nr_rows + 1));

	memcpy(next, c->row_start, sizeof(*next) * c->nr_rows);
	/* The boxes that open at k are its stack's frames below what it shares. */
	for (uint32_t k = 0; k < c->nr_samples; k++) {
		uint32_t keep = shared_at(c, k);

		for (stack_id s = c->p->stack[c->sample[k]]; stacks[s].depth > keep;
		     s = stacks[s].parent)
			stack[next[stacks[s].depth - 1]++] = s;
	}
	free(next);
}

/* ------------------------------------------------------------ the walk */

/* What building charts needs, kept from one chart to the next. */
struct scratch {
	stack_id *open;       /* per depth: the stack open there */
	uint32_t *count;      /* per depth: boxes opened so far */
	uint32_t alloc_depth;
	uint32_t *shared, *depth; /* per position */
	uint32_t alloc_pos;
};

static void
scratch_depth(struct scratch *sc, uint32_t depth)
{
	uint32_t n = sc->alloc_depth ? sc->alloc_depth : 64;

	if (depth <= sc->alloc_depth)
		return;
	while (n < depth)
		n *= 2;
	sc->open = xreallocarray(sc->open, n, sizeof(*sc->open));
	sc->count = xreallocarray(sc->count, n, sizeof(*sc->count));
	memset(sc->count + sc->alloc_depth, 0, sizeof(*sc->count) * (n - sc->alloc_depth));
	sc->alloc_depth = n;
}

static void
scratch_release(struct scratch *sc)
{
	free(sc->open);
	free(sc->count);
	free(sc->shared);
	free(sc->depth);
	memset(sc, 0, sizeof(*sc));
}

/*
 * Make c's boxes, shared counts and busy checkpoints from its positions
 * c->sample[nr_samples] on c->axis (and c->cum), and its weight.
 */
static void
chart_fill(struct chart *c, struct scratch *sc)
{
	const struct stack_node *stacks = c->ps->stacks;
	const struct profile *p = c->p;
	uint32_t n = c->nr_samples, nr_open = 0, max_shared = 0, rows = 0, total = 0;
	uint64_t sum = 0, x = n ? chart_pos_x0(c, 0) : 0, last_end = 0;

	if (n > sc->alloc_pos) {
		sc->shared = xreallocarray(sc->shared, n, sizeof(*sc->shared));
		sc->depth = xreallocarray(sc->depth, n, sizeof(*sc->depth));
		sc->alloc_pos = n;
	}
	c->weight = 0;
	c->busy = xmalloc(sizeof(*c->busy) * ((size_t)n / BUSY_STEP + 1));
	for (uint32_t k = 0; k < n; k++) {
		stack_id s = p->stack[c->sample[k]], u = s;
		uint32_t depth = stacks[s].depth, keep;

		uint64_t next, end;

		/*
		 * A lane's samples are one in every so many of the profile's:
		 * each is a cache miss, and the stack's node another, unless
		 * asked for ahead.
		 */
		if (k + PREFETCH_AHEAD < n) {
			uint32_t ahead = c->sample[k + PREFETCH_AHEAD];

			__builtin_prefetch(&p->stack[ahead]);
			__builtin_prefetch(&p->weight[ahead]);
			if (p->time)
				__builtin_prefetch(&p->time[ahead]);
		}
		if (k + PREFETCH_AHEAD / 2 < n)
			__builtin_prefetch(&stacks[p->stack[c->sample[k + PREFETCH_AHEAD / 2]]]);
		next = k + 1 < n ? chart_pos_x0(c, k + 1) : UINT64_MAX;
		end = pos_end(c, k, x, next);

		if (!(k % BUSY_STEP))
			c->busy[k / BUSY_STEP] = sum;
		sum += end - x;
		c->weight += p->weight[c->sample[k]];
		/* A gap (chart_gap(), with x at hand) shares nothing. */
		if (k && (c->axis.kind == CHART_X_WEIGHT ? chart_gap(c, k) : last_end < x))
			nr_open = 0;
		last_end = end;
		x = next;
		/* The deepest ancestor of s (or s) that is open at its depth. */
		while (stacks[u].depth > nr_open)
			u = stacks[u].parent;
		while (u != STACK_ROOT && sc->open[stacks[u].depth - 1] != u)
			u = stacks[u].parent;
		keep = stacks[u].depth;
		scratch_depth(sc, depth);
		for (u = s; stacks[u].depth > keep; u = stacks[u].parent) {
			sc->open[stacks[u].depth - 1] = u;
			sc->count[stacks[u].depth - 1]++;
		}
		nr_open = depth;
		sc->shared[k] = keep;
		sc->depth[k] = depth;
		max_shared = keep > max_shared ? keep : max_shared;
	}
	if (!(n % BUSY_STEP))
		c->busy[n / BUSY_STEP] = sum;

	for (uint32_t d = 0; d < sc->alloc_depth; d++)
		if (sc->count[d])
			rows = d + 1;
	c->nr_rows = rows;
	c->row_start = xmalloc(sizeof(*c->row_start) * ((size_t)rows + 1));
	for (uint32_t d = 0; d < rows; d++) {
		c->row_start[d] = total;
		if (sc->count[d] > UINT32_MAX - 1 - total)
			die("too many boxes for the flame chart");
		total += sc->count[d];
		sc->count[d] = 0;
	}
	c->row_start[rows] = total;
	c->nr_boxes = total;
	c->first = xmalloc(sizeof(*c->first) * ((size_t)total + 1));
	shared_alloc(c, max_shared);
	for (uint32_t k = 0; k < n; k++) {
		shared_set(c, k, sc->shared[k]);
		for (uint32_t d = sc->shared[k]; d < sc->depth[k]; d++)
			c->first[c->row_start[d] + sc->count[d]++] = k;
	}
	for (uint32_t d = 0; d < rows; d++)
		sc->count[d] = 0;
	shared_levels(c);
}

/* Free what c owns but its positions. */
static void
chart_free_boxes(struct chart *c)
{
	free(c->cum);
	free(c->busy);
	free(c->shared);
	free(c->first);
	free(c->row_start);
}

static size_t
chart_box_memory(const struct chart *c)
{
	size_t shared = 0;

	for (uint32_t l = 0; l < c->nr_levels; l++)
		shared += level_size(c, l);
	return (c->cum ? ((size_t)c->nr_samples + 1) * sizeof(*c->cum) : 0) +
	       ((size_t)c->nr_samples / BUSY_STEP + 1) * sizeof(*c->busy) +
	       shared * c->shared_width + (size_t)c->nr_boxes * sizeof(*c->first) +
	       ((size_t)c->nr_rows + 1) * sizeof(*c->row_start);
}

/* Where c starts and ends on its axis: its first sample, its last one's end. */
static void
chart_place(struct chart *c)
{
	c->x_begin = c->x_end = 0;
	if (c->nr_samples) {
		c->x_begin = chart_pos_x0(c, 0);
		c->x_end = chart_pos_x1(c, c->nr_samples - 1);
	}
}

/* ------------------------------------------------------------ ordering */

/*
 * Sort the sample indices a[n] by time, stably: a merge of the runs
 * already in order, pairwise, so samples in time order cost one pass.
 * tmp has room for n. Returns the sorted array, a or tmp.
 */
static uint32_t *
sort_by_time(const int64_t *time, uint32_t *a, uint32_t *tmp, uint32_t n)
{
	uint32_t *bounds, nr = 0;

	for (uint32_t k = 1; k < n; k++)
		if (time[a[k]] < time[a[k - 1]])
			nr++;
	if (!nr)
		return a;
	bounds = xmalloc(sizeof(*bounds) * ((size_t)nr + 2));
	nr = 0;
	bounds[nr++] = 0;
	for (uint32_t k = 1; k < n; k++)
		if (time[a[k]] < time[a[k - 1]])
			bounds[nr++] = k;
	bounds[nr] = n;
	/* nr runs: [bounds[r], bounds[r + 1]) */
	while (nr > 1) {
		uint32_t out = 0, *swap;

		for (uint32_t r = 0; r < nr; r += 2) {
			/* Runs r and r + 1 (none past the last: bounds[nr] is n). */
			uint32_t lo = bounds[r], mid = bounds[r + 1];
			uint32_t hi = r + 2 <= nr ? bounds[r + 2] : mid;
			uint32_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				tmp[k++] = time[a[j]] < time[a[i]] ? a[j++] : a[i++];
			while (i < mid)
				tmp[k++] = a[i++];
			while (j < hi)
				tmp[k++] = a[j++];
			bounds[out++] = lo;
		}
		bounds[out] = n;
		nr = out;
		swap = a;
		a = tmp;
		tmp = swap;
	}
	free(bounds);
	return a;
}

/*
 * Of samples at the same time, keep the first: the others would last no
 * time. Returns the new count.
 */
static uint32_t
drop_same_time(const int64_t *time, uint32_t *a, uint32_t n)
{
	uint32_t out = 0;

	for (uint32_t k = 0; k < n; k++)
		if (!out || time[a[k]] != time[a[out - 1]])
			a[out++] = a[k];
	return out;
}

/* ------------------------------------------------------------ the axis */

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define PERIOD_GAPS 65536

uint64_t
chart_axis_period(const struct profile_set *ps, const struct profile *p)
{
	/*
	 * Why the lower quartile: a thread that runs all the time has every
	 * gap one period long, but most threads also sleep, and their sleeps
	 * are gaps too. The quartile is still the period as long as a
	 * quarter of all gaps fall inside stretches of running, which holds
	 * for anything sampled often enough to look at, where the median
	 * would already be a sleep for threads that run less than half the
	 * time. Three periods then absorb the jitter of the sampling clock
	 * and a lost sample, so a running thread shows as one stretch, and
	 * any pause longer than that shows as a gap.
	 */
	uint64_t *gaps, period = 0;
	int64_t *last;
	uint8_t *seen;
	size_t nr = 0, stride;
	thread_id max_thread = 0;

	if (!p->has_time || p->nr_samples < 2)
		return 0;
	for (size_t i = 0; i < p->nr_samples; i++)
		if (ps_thread(ps, p->thread[i]) > max_thread)
			max_thread = ps_thread(ps, p->thread[i]);
	last = xmalloc(sizeof(*last) * ((size_t)max_thread + 1));
	seen = xcalloc((size_t)max_thread + 1, 1);
	stride = p->nr_samples / PERIOD_GAPS + 1;
	gaps = xmalloc(sizeof(*gaps) * (PERIOD_GAPS + 1));
	for (size_t i = 0; i < p->nr_samples; i++) {
		thread_id t = ps_thread(ps, p->thread[i]);

		if (!p->weight[i])
			continue;
		if (seen[t] && p->time[i] > last[t] && !(i % stride) && nr < PERIOD_GAPS)
			gaps[nr++] = (uint64_t)p->time[i] - (uint64_t)last[t];
		last[t] = p->time[i];
		seen[t] = 1;
	}
	if (nr) {
		qsort(gaps, nr, sizeof(*gaps), cmp_u64);
		period = gaps[nr / 4];
	}
	free(gaps);
	free(seen);
	free(last);
	return period;
}

/* ------------------------------------------------------------ lanes */

/*
 * The lanes of every thread of one profile, built when first selected,
 * on an axis of the profile's own: x from its first sample, so that a
 * lane's gaps and durations are those of any selection's axis (which only
 * moves the origin, or cum_base without times). kind, period and cap are
 * those of the selection that built them: another selection whose axis
 * differs in those (rare: see make_axis()) starts the cache over.
 */
struct lane_cache {
	struct chart_axis axis;
	bool grouped_built;
	uint32_t *grouped;   /* every thread's positions, thread after thread */
	uint32_t *start;     /* per thread: its positions from grouped + start[t] */
	uint32_t *len;       /* per thread: how many (fewer than its samples: same times) */
	/* per thread, of its samples of non-zero weight: */
	uint32_t *nr;        /* how many */
	uint64_t *weight;    /* their weight */
	uint32_t *first;     /* the first one's index: order of appearance */
	int64_t *lo, *hi;    /* their first and last time */
	uint64_t *span_end;  /* max of time + weight, from the profile's first time */
	int64_t origin;      /* the profile's first time */
	uint64_t period;     /* chart_axis_period(p), UINT64_MAX until needed */
	struct chart *chart; /* per thread; built when chart[t].row_start is set */
	struct scratch scratch;
	struct stack_memo *memo; /* for every chart of the timeline */
};

/* Per-thread sums of p's samples, whatever the selection (a thread's names are one lane). */
static struct lane_cache *
cache_new(const struct profile_set *ps, const struct profile *p)
{
	struct lane_cache *lc = xcalloc(1, sizeof(*lc));
	uint32_t nt = ps->nr_threads;

	lc->nr = xcalloc((size_t)nt + 1, sizeof(*lc->nr));
	lc->weight = xcalloc((size_t)nt + 1, sizeof(*lc->weight));
	lc->first = xmalloc(sizeof(*lc->first) * ((size_t)nt + 1));
	lc->lo = xmalloc(sizeof(*lc->lo) * ((size_t)nt + 1));
	lc->hi = xmalloc(sizeof(*lc->hi) * ((size_t)nt + 1));
	lc->span_end = xcalloc((size_t)nt + 1, sizeof(*lc->span_end));
	lc->start = xmalloc(sizeof(*lc->start) * ((size_t)nt + 1));
	lc->len = xcalloc((size_t)nt + 1, sizeof(*lc->len));
	lc->chart = xcalloc((size_t)nt + 1, sizeof(*lc->chart));
	lc->memo = xcalloc(1, sizeof(*lc->memo));
	lc->period = UINT64_MAX;
	lc->origin = INT64_MAX;
	for (size_t i = 0; i < p->nr_samples && p->has_time; i++)
		if (p->weight[i] && p->time[i] < lc->origin)
			lc->origin = p->time[i];
	for (size_t i = 0; i < p->nr_samples; i++) {
		thread_id t = ps_thread(ps, p->thread[i]);

		if (!p->weight[i])
			continue;
		if (!lc->nr[t]++) {
			lc->first[t] = (uint32_t)i;
			lc->lo[t] = lc->hi[t] = p->has_time ? p->time[i] : 0;
		}
		lc->weight[t] += p->weight[i];
		if (p->has_time) {
			uint64_t e = sat_add((uint64_t)p->time[i] - (uint64_t)lc->origin, p->weight[i]);

			lc->lo[t] = p->time[i] < lc->lo[t] ? p->time[i] : lc->lo[t];
			lc->hi[t] = p->time[i] > lc->hi[t] ? p->time[i] : lc->hi[t];
			lc->span_end[t] = e > lc->span_end[t] ? e : lc->span_end[t];
		}
	}
	return lc;
}

static void
cache_flush(struct lane_cache *lc, uint32_t nr_threads)
{
	for (uint32_t t = 0; t < nr_threads; t++) {
		chart_free_boxes(&lc->chart[t]);
		memset(&lc->chart[t], 0, sizeof(lc->chart[t]));
	}
	free(lc->grouped);
	lc->grouped = NULL;
	lc->grouped_built = false;
	memset(lc->memo, 0, sizeof(*lc->memo));
}

static void
cache_free(struct lane_cache *lc, uint32_t nr_threads)
{
	if (!lc)
		return;
	cache_flush(lc, nr_threads);
	scratch_release(&lc->scratch);
	free(lc->nr);
	free(lc->weight);
	free(lc->first);
	free(lc->lo);
	free(lc->hi);
	free(lc->span_end);
	free(lc->start);
	free(lc->len);
	free(lc->chart);
	free(lc->memo);
	free(lc);
}

/*
 * Every thread's positions, grouped by thread in one counting sort: in
 * file order without times, else in time order, of samples at the same
 * time the first only (the others would last no time).
 */
static void
cache_group(struct lane_cache *lc, const struct profile_set *ps, const struct profile *p)
{
	uint32_t nt = ps->nr_threads, n = 0, *fill, *tmp = NULL, alloc_tmp = 0;

	for (uint32_t t = 0; t < nt; t++) {
		lc->start[t] = n;
		n += lc->nr[t];
	}
	lc->grouped = xmalloc(sizeof(*lc->grouped) * ((size_t)n + 1));
	fill = xmemdup(lc->start, sizeof(*fill) * ((size_t)nt + 1));
	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->weight[i])
			lc->grouped[fill[ps_thread(ps, p->thread[i])]++] = (uint32_t)i;
	for (uint32_t t = 0; t < nt; t++) {
		uint32_t *a = lc->grouped + lc->start[t], m = lc->nr[t];

		lc->len[t] = m;
		if (lc->axis.kind == CHART_X_WEIGHT || !m)
			continue;
		if (m > alloc_tmp) {
			alloc_tmp = m;
			tmp = xreallocarray(tmp, alloc_tmp, sizeof(*tmp));
		}
		{
			uint32_t *sorted = sort_by_time(p->time, a, tmp, m);

			if (sorted != a)
				memcpy(a, sorted, sizeof(*a) * m);
		}
		lc->len[t] = drop_same_time(p->time, a, m);
	}
	free(tmp);
	free(fill);
	lc->grouped_built = true;
}

/* Start chart c of thread (THREAD_NONE: merged) of tl on axis a. */
static void
chart_init(struct chart *c, const struct timeline *tl, const struct chart_axis *a,
	   thread_id thread)
{
	memset(c, 0, sizeof(*c));
	c->ps = tl->ps;
	c->p = tl->p;
	c->axis = *a;
	c->total = a->total;
	c->has_time = a->kind != CHART_X_WEIGHT;
	c->thread = thread;
	c->memo = tl->cache->memo;
}

/* Without times, x is cumulative weight: cum of c's positions from 0. */
static void
chart_cum(struct chart *c)
{
	if (c->axis.kind != CHART_X_WEIGHT)
		return;
	c->cum = xmalloc(sizeof(*c->cum) * ((size_t)c->nr_samples + 1));
	c->cum[0] = 0;
	for (uint32_t k = 0; k < c->nr_samples; k++)
		c->cum[k + 1] = c->cum[k] + c->p->weight[c->sample[k]];
}

/* Build thread t's lane in the cache. */
static void
cache_lane(struct lane_cache *lc, const struct timeline *tl, thread_id t)
{
	struct chart *c = &lc->chart[t];

	chart_init(c, tl, &lc->axis, t);
	c->sample = lc->grouped + lc->start[t];
	c->nr_samples = lc->len[t];
	chart_cum(c);
	chart_fill(c, &lc->scratch);
}

/*
 * Work out tl->axis for the selected threads sel[nr] (of non-zero
 * weight), as if from their samples: x from the first, up to the end of
 * the last; without times (or all at one time), cumulative weight.
 */
static void
make_axis(struct timeline *tl, const thread_id *sel, uint32_t nr)
{
	const struct profile *p = tl->p;
	struct lane_cache *lc = tl->cache;
	struct chart_axis *a = &tl->axis;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint64_t n = 0, end = 0;

	memset(a, 0, sizeof(*a));
	a->kind = CHART_X_WEIGHT;
	for (uint32_t k = 0; k < nr; k++) {
		thread_id t = sel[k];

		n += lc->nr[t];
		lo = lc->lo[t] < lo ? lc->lo[t] : lo;
		hi = lc->hi[t] > hi ? lc->hi[t] : hi;
	}
	if (!n || !p->has_time || (lo == hi && !p->spans)) {
		for (uint32_t k = 0; k < nr; k++)
			a->total += lc->weight[sel[k]];
		return;
	}
	a->origin = lo;
	if (p->spans) {
		a->kind = CHART_X_SPANS;
		for (uint32_t k = 0; k < nr; k++) {
			uint64_t e = lc->span_end[sel[k]];

			if (e == UINT64_MAX) { /* saturated from the profile's origin: again from lo */
				e = 0;
				for (size_t i = 0; i < p->nr_samples; i++)
					if (p->weight[i] &&
					    ps_thread(tl->ps, p->thread[i]) == sel[k]) {
						uint64_t f = sat_add((uint64_t)p->time[i] - (uint64_t)lo,
								     p->weight[i]);

						e = f > e ? f : e;
					}
			} else {
				e -= (uint64_t)lo - (uint64_t)lc->origin;
			}
			end = e > end ? e : end;
		}
		a->total = end;
		return;
	}
	a->kind = CHART_X_TIME;
	if (lc->period == UINT64_MAX)
		lc->period = chart_axis_period(tl->ps, p);
	a->period = lc->period;
	if (!a->period) /* no thread sampled twice: spread the range evenly */
		a->period = ((uint64_t)hi - (uint64_t)lo) / n;
	if (!a->period)
		a->period = 1;
	a->cap = a->period > UINT64_MAX / 3 ? UINT64_MAX : a->period * 3;
	a->total = sat_add((uint64_t)hi - (uint64_t)lo, a->period);
}

/* ------------------------------------------------------------ timelines */

struct lane_key {
	uint64_t weight;
	uint32_t rank; /* order of first appearance */
	thread_id thread;
};

static int
lane_cmp(const void *a, const void *b)
{
	const struct lane_key *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Whether lanes built on axis a serve a selection on axis b. */
static bool
same_lanes(const struct chart_axis *a, const struct chart_axis *b)
{
	return a->kind == b->kind && a->period == b->period && a->cap == b->cap;
}

void
timeline_select(struct timeline *tl, const struct sample_filter *filter)
{
	const struct profile_set *ps = tl->ps;
	const struct profile *p = tl->p;
	const bool *keep = filter ? filter->threads : NULL;
	struct lane_cache *lc = tl->cache;
	struct lane_key *keys;
	thread_id *sel;
	uint32_t nr_sel = 0;
	uint64_t cum = 0;

	if (tl->merged_built && !tl->merged.borrowed) {
		chart_free_boxes(&tl->merged);
		free(tl->merged.sample);
		/* A chart to come may get its first[] where the merged one's was. */
		memset(lc->memo, 0, sizeof(*lc->memo));
	}
	memset(&tl->merged, 0, sizeof(tl->merged));
	tl->merged_built = false;
	free(tl->lanes);
	tl->lanes = NULL;
	tl->nr_lanes = 0;

	sel = xmalloc(sizeof(*sel) * ((size_t)ps->nr_threads + 1));
	for (thread_id t = 0; t < ps->nr_threads; t++)
		if (lc->nr[t] && (!keep || keep[t]))
			sel[nr_sel++] = t;
	make_axis(tl, sel, nr_sel);
	if (lc->grouped_built && !same_lanes(&lc->axis, &tl->axis))
		cache_flush(lc, ps->nr_threads);
	if (!lc->grouped_built) {
		lc->axis = tl->axis;
		lc->axis.origin = lc->axis.kind == CHART_X_WEIGHT ? 0 : lc->origin;
		cache_group(lc, ps, p);
	}

	/* Lanes heaviest first. */
	keys = xmalloc(sizeof(*keys) * ((size_t)nr_sel + 1));
	for (uint32_t l = 0; l < nr_sel; l++) {
		keys[l].weight = lc->weight[sel[l]];
		keys[l].rank = lc->first[sel[l]];
		keys[l].thread = sel[l];
	}
	qsort(keys, nr_sel, sizeof(*keys), lane_cmp);
	tl->lanes = xcalloc((size_t)nr_sel + 1, sizeof(*tl->lanes));
	tl->nr_lanes = nr_sel;
	for (uint32_t l = 0; l < nr_sel; l++) {
		struct chart *c = &tl->lanes[l];
		thread_id t = keys[l].thread;

		if (!lc->chart[t].row_start)
			cache_lane(lc, tl, t);
		*c = lc->chart[t];
		c->borrowed = true;
		c->axis = tl->axis;
		c->total = tl->axis.total;
		c->cum_base = cum;
		chart_place(c);
		cum += c->weight;
	}
	free(keys);
	free(sel);
}

void
timeline_build(struct timeline *tl, const struct profile_set *ps, const struct profile *p,
	       const struct sample_filter *filter)
{
	memset(tl, 0, sizeof(*tl));
	tl->ps = ps;
	tl->p = p;
	if (p->nr_samples >= UINT32_MAX)
		die("too many samples for the flame chart");
	tl->cache = cache_new(ps, p);
	timeline_select(tl, filter);
}

/* A heap of lanes on the time of their next position, then on lane. */
struct merge_entry {
	int64_t time;
	uint32_t lane;
};

static bool
entry_less(const struct merge_entry *a, const struct merge_entry *b)
{
	return a->time < b->time || (a->time == b->time && a->lane < b->lane);
}

static void
heap_down(struct merge_entry *h, uint32_t nr, uint32_t i)
{
	struct merge_entry e = h[i];

	for (;;) {
		uint32_t m = 2 * i + 1;

		if (m >= nr)
			break;
		if (m + 1 < nr && entry_less(&h[m + 1], &h[m]))
			m++;
		if (!entry_less(&h[m], &e))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = e;
}

/*
 * The positions of the merged chart of a timed timeline into out, in time
 * order: the lanes' positions merged, of those at one time the heaviest
 * lane's only; then of those, what the merged chart shows: one lane at a
 * time owns the timeline while its samples last (as they do in its lane);
 * a heavier lane takes it over when one of its samples starts, a lighter
 * one only once the owner's last sample has ended. Returns how many.
 */
static uint32_t
merge_owners(const struct timeline *tl, uint32_t *out)
{
	const int64_t *time = tl->p->time;
	struct merge_entry *h = xmalloc(sizeof(*h) * ((size_t)tl->nr_lanes + 1));
	uint32_t *pos = xcalloc((size_t)tl->nr_lanes + 1, sizeof(*pos));
	uint32_t owner = UINT32_MAX, n = 0, nr = 0;
	uint64_t end = 0;
	int64_t last = 0;
	bool any = false;

	for (uint32_t l = 0; l < tl->nr_lanes; l++)
		if (tl->lanes[l].nr_samples)
			h[nr++] = (struct merge_entry){ time[tl->lanes[l].sample[0]], l };
	for (uint32_t i = nr; i-- > 0;)
		heap_down(h, nr, i);
	while (nr) {
		uint32_t l = h[0].lane, k = pos[l]++;
		const struct chart *c = &tl->lanes[l];
		int64_t t = h[0].time;
		bool more = k + 1 < c->nr_samples;
		int64_t t_next = more ? time[c->sample[k + 1]] : 0;

		if (k + PREFETCH_AHEAD < c->nr_samples)
			__builtin_prefetch(&time[c->sample[k + PREFETCH_AHEAD]]);

		if (!any || t != last) {
			uint64_t x = (uint64_t)t - (uint64_t)tl->axis.origin;

			if (!(l != owner && x < end && l > owner)) {
				owner = l;
				end = pos_end(c, k, x,
					      more ? (uint64_t)t_next - (uint64_t)tl->axis.origin
						   : UINT64_MAX);
				out[n++] = c->sample[k];
			}
		}
		any = true;
		last = t;
		if (more)
			h[0].time = t_next;
		else
			h[0] = h[--nr];
		heap_down(h, nr, 0);
	}
	free(pos);
	free(h);
	return n;
}

const struct chart *
timeline_merged(struct timeline *tl)
{
	struct chart *c = &tl->merged;
	uint32_t n = 0;

	if (tl->merged_built)
		return c;
	tl->merged_built = true;
	if (tl->nr_lanes == 1) {
		*c = tl->lanes[0];
		c->borrowed = true;
		return c;
	}
	for (uint32_t l = 0; l < tl->nr_lanes; l++)
		n += tl->lanes[l].nr_samples;
	chart_init(c, tl, &tl->axis, THREAD_NONE);
	c->sample = xmalloc(sizeof(*c->sample) * ((size_t)n + 1));
	if (tl->axis.kind == CHART_X_WEIGHT) {
		/* The lanes one after the other, as they are laid out. */
		n = 0;
		for (uint32_t l = 0; l < tl->nr_lanes; l++) {
			memcpy(c->sample + n, tl->lanes[l].sample,
			       sizeof(*c->sample) * tl->lanes[l].nr_samples);
			n += tl->lanes[l].nr_samples;
		}
	} else {
		n = merge_owners(tl, c->sample);
		c->sample = xreallocarray(c->sample, (size_t)n + 1, sizeof(*c->sample));
	}
	c->nr_samples = n;
	chart_cum(c);
	chart_fill(c, &tl->cache->scratch);
	chart_place(c);
	return c;
}

void
timeline_release(struct timeline *tl)
{
	if (tl->merged_built && !tl->merged.borrowed) {
		chart_free_boxes(&tl->merged);
		free(tl->merged.sample);
	}
	free(tl->lanes);
	cache_free(tl->cache, tl->ps ? tl->ps->nr_threads : 0);
	memset(tl, 0, sizeof(*tl));
}

size_t
timeline_memory(const struct timeline *tl)
{
	const struct lane_cache *lc = tl->cache;
	size_t sum = sizeof(*tl) + (size_t)tl->nr_lanes * sizeof(*tl->lanes);

	if (lc) {
		uint32_t nt = tl->ps->nr_threads;

		sum += sizeof(*lc) + sizeof(*lc->memo) + (size_t)nt * (sizeof(*lc->start) + sizeof(*lc->len) +
						   sizeof(*lc->nr) + sizeof(*lc->weight) +
						   sizeof(*lc->first) + sizeof(*lc->lo) +
						   sizeof(*lc->hi) + sizeof(*lc->span_end) +
						   sizeof(*lc->chart));
		if (lc->grouped_built)
			for (uint32_t t = 0; t < nt; t++)
				sum += (size_t)lc->nr[t] * sizeof(*lc->grouped) +
				       (lc->chart[t].row_start ? chart_box_memory(&lc->chart[t]) : 0);
	}
	if (tl->merged_built && !tl->merged.borrowed)
		sum += (size_t)tl->merged.nr_samples * sizeof(*tl->merged.sample) +
		       chart_box_memory(&tl->merged);
	return sum;
}

/* ------------------------------------------------------------ queries */

/* The last box of row depth that starts at or before x, or row_start[depth] - 1. */
static uint32_t
last_starting_by(const struct chart *c, uint32_t depth, uint64_t x)
{
	uint32_t lo = c->row_start[depth], hi = c->row_start[depth + 1];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (chart_x0(c, mid) <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

uint32_t
chart_first_after(const struct chart *c, uint32_t depth, uint64_t x)
{
	uint32_t i;

	if (depth >= c->nr_rows)
		return c->nr_boxes;
	/* The boxes of a row are disjoint: only the last one starting by x can end after it. */
	i = last_starting_by(c, depth, x);
	if (i + 1 == c->row_start[depth] || chart_pos_x1(c, box_end(c, i, depth) - 1) <= x)
		return i + 1;
	return i;
}

uint32_t
chart_find(const struct chart *c, uint32_t depth, uint64_t x)
{
	uint32_t i;

	if (depth >= c->nr_rows)
		return CHART_NONE;
	i = last_starting_by(c, depth, x);
	if (i + 1 == c->row_start[depth] || chart_pos_x1(c, box_end(c, i, depth) - 1) <= x)
		return CHART_NONE;
	return i;
}

/* The box of row d - 1 whose positions hold position k: the last to start by it. */
static uint32_t
row_box_at(const struct chart *c, uint32_t d, uint32_t k)
{
	uint32_t lo = c->row_start[d - 1], hi = c->row_start[d];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->first[mid] <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > c->row_start[d - 1] ? lo - 1 : CHART_NONE;
}

uint32_t
chart_parent(const struct chart *c, uint32_t i)
{
	uint32_t d = box_row(c, i);

	return d ? row_box_at(c, d, c->first[i]) : CHART_NONE;
}

void
chart_parents(const struct chart *c, uint32_t *parent)
{
	for (uint32_t d = 0; d < c->nr_rows; d++) {
		uint32_t j = d ? c->row_start[d - 1] : 0;

		for (uint32_t i = c->row_start[d]; i < c->row_start[d + 1]; i++) {
			if (!d) {
				parent[i] = CHART_NONE;
				continue;
			}
			while (j + 1 < c->row_start[d] && c->first[j + 1] <= c->first[i])
				j++;
			parent[i] = j;
		}
	}
}

thread_id
chart_box_thread(const struct chart *c, uint32_t i)
{
	return ps_thread(c->ps, c->p->thread[c->sample[c->first[i]]]);
}

uint32_t
chart_step(const struct chart *c, uint32_t i, int dir)
{
	uint32_t d = box_row(c, i);

	if (dir < 0)
		return i > c->row_start[d] ? i - 1 : CHART_NONE;
	return i + 1 < c->row_start[d + 1] ? i + 1 : CHART_NONE;
}

void
chart_box_span(const struct chart *c, uint32_t i, struct chart_span *out)
{
	double total = c->total ? (double)c->total : 1.0;

	out->x0 = chart_x0(c, i);
	out->x1 = chart_x1(c, i);
	out->t0 = out->t1 = 0;
	if (c->has_time) {
		out->t0 = (int64_t)((uint64_t)c->axis.origin + out->x0);
		out->t1 = (int64_t)((uint64_t)c->axis.origin + out->x1);
	}
	out->pct0 = 100.0 * (double)out->x0 / total;
	out->pct1 = 100.0 * (double)out->x1 / total;
	out->pct = 100.0 * (double)(out->x1 - out->x0) / total;
}

uint64_t
chart_covered(const struct chart *c, uint64_t x)
{
	uint32_t lo = 0, hi = c->nr_samples, j, b;
	uint64_t sum, e;

	/* The number of positions that start before x. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (chart_pos_x0(c, mid) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	j = lo - 1;
	b = j / BUSY_STEP;
	sum = c->busy[b];
	for (uint32_t k = b * BUSY_STEP; k < j; k++)
		sum += chart_pos_x1(c, k) - chart_pos_x0(c, k);
	e = chart_pos_x1(c, j);
	return sum + (e < x ? e : x) - chart_pos_x0(c, j);
}

void
chart_activity(const struct chart *c, uint64_t x0, uint64_t x1, uint32_t cols, float *out)
{
	uint64_t a = x0, cov_a = chart_covered(c, x0);

	for (uint32_t col = 0; col < cols; col++) {
		uint64_t b = x1 > x0 ? x0 + mul_div(x1 - x0, col + 1, cols) : x0;
		uint64_t cov_b = chart_covered(c, b);

		if (b > a)
			out[col] = (float)((double)(cov_b - cov_a) / (double)(b - a));
		else
			out[col] = (float)(chart_covered(c, a + 1) - cov_a);
		a = b;
		cov_a = cov_b;
	}
}

/* ------------------------------------------------------------ checking */

/*
 * The frames positions k - 1 and k share, from their stacks (0 for k 0
 * and after a gap): what chart.shared must say.
 */
static uint32_t
shared_frames(const struct chart *c, uint32_t k)
{
	const struct stack_node *stacks = c->ps->stacks;
	stack_id a, b;

	if (!k || chart_gap(c, k))
		return 0;
	a = c->p->stack[c->sample[k - 1]];
	b = c->p->stack[c->sample[k]];
	while (stacks[a].depth > stacks[b].depth)
		a = stacks[a].parent;
	while (stacks[b].depth > stacks[a].depth)
		b = stacks[b].parent;
	while (a != b) {
		a = stacks[a].parent;
		b = stacks[b].parent;
	}
	return stacks[a].depth;
}

static int
check_box(const struct chart *c, uint32_t d, uint32_t i, const uint32_t *parent,
	  const stack_id *stack, struct tf_error *err)
{
	const struct profile_set *ps = c->ps;
	stack_id s = stack[i];
	uint32_t pa, end = box_end(c, i, d);

	/* chart_stack() walks up from the leaf: checked where that is short. */
	if (ps->stacks[c->p->stack[c->sample[c->first[i]]]].depth <= d + 256 &&
	    s != chart_stack(c, i))
		return tf_error_set(err, "box %u: stacks %u and %u", i, s, chart_stack(c, i));
	if (s == STACK_ROOT || s >= ps->nr_stacks || ps->stacks[s].depth != d + 1)
		return tf_error_set(err, "box %u: stack %u is not of depth %u", i, s, d + 1);
	if (c->first[i] >= end || end > c->nr_samples)
		return tf_error_set(err, "box %u: positions [%u, %u) of %u", i, c->first[i], end,
				    c->nr_samples);
	if (chart_x0(c, i) >= chart_x1(c, i) || chart_x1(c, i) > c->total)
		return tf_error_set(err, "box %u: x [%llu, %llu) in a total of %llu", i,
				    (unsigned long long)chart_x0(c, i),
				    (unsigned long long)chart_x1(c, i),
				    (unsigned long long)c->total);
	for (uint32_t k = c->first[i] + 1; k < end; k++) {
		if (chart_gap(c, k))
			return tf_error_set(err, "box %u spans a gap at position %u", i, k);
		if (shared_at(c, k) <= d)
			return tf_error_set(err, "box %u ends at position %u, not %u", i, k, end);
	}
	if (end < c->nr_samples && shared_at(c, end) > d)
		return tf_error_set(err, "box %u goes on at position %u", i, end);
	if (i > c->row_start[d]) {
		uint32_t prev_end = box_end(c, i - 1, d);

		if (prev_end > c->first[i] || chart_x1(c, i - 1) > chart_x0(c, i))
			return tf_error_set(err, "box %u overlaps or precedes box %u", i, i - 1);
		if (prev_end == c->first[i] && stack[i - 1] == s && !chart_gap(c, c->first[i]))
			return tf_error_set(err, "boxes %u and %u: same stack, not merged", i - 1,
					    i);
	}
	pa = parent[i];
	if (!d)
		return pa == CHART_NONE ? 0 : tf_error_set(err, "box %u: a parent at depth 0", i);
	if (pa != chart_parent(c, i))
		return tf_error_set(err, "box %u: parents %u and %u", i, pa, chart_parent(c, i));
	if (pa < c->row_start[d - 1] || pa >= c->row_start[d])
		return tf_error_set(err, "box %u: parent %u is not one row up", i, pa);
	if (c->first[pa] > c->first[i] || box_end(c, pa, d - 1) < end)
		return tf_error_set(err, "box %u is not inside its parent %u", i, pa);
	if (ps->stacks[s].parent != stack[pa])
		return tf_error_set(err, "box %u: parent box %u is not its caller", i, pa);
	return 0;
}

int
chart_check(const struct chart *c, struct tf_error *err)
{
	uint32_t *parent;
	stack_id *stack;
	int ret = 0;

	for (uint32_t k = 0; k < c->nr_samples; k++) {
		if (c->sample[k] >= c->p->nr_samples || !c->p->weight[c->sample[k]])
			return tf_error_set(err, "position %u: no sample", k);
		if (c->thread != THREAD_NONE &&
		    ps_thread(c->ps, c->p->thread[c->sample[k]]) != c->thread)
			return tf_error_set(err, "position %u: another thread's sample", k);
		if (k && chart_pos_x0(c, k) <= chart_pos_x0(c, k - 1) && c->has_time)
			return tf_error_set(err, "position %u: not after position %u", k, k - 1);
		if (shared_at(c, k) != shared_frames(c, k))
			return tf_error_set(err, "position %u: shares %u frames, not %u", k,
					    shared_at(c, k), shared_frames(c, k));
	}
	for (uint32_t l = 1; l < c->nr_levels; l++) {
		for (uint32_t b = 0; b < level_size(c, l); b++) {
			uint32_t lo = b << LEVEL_BITS, hi = level_size(c, l - 1), min = UINT32_MAX;

			hi = hi - lo > LEVEL_FAN ? lo + LEVEL_FAN : hi;
			for (uint32_t k = lo; k < hi; k++)
				if (shared_at(c, c->level_at[l - 1] + k) < min)
					min = shared_at(c, c->level_at[l - 1] + k);
			if (shared_at(c, c->level_at[l] + b) != min)
				return tf_error_set(err, "level %u, block %u: minimum %u, not %u", l,
						    b, shared_at(c, c->level_at[l] + b), min);
		}
	}
	if (!c->row_start)
		return c->nr_boxes || c->nr_rows ? tf_error_set(err, "boxes but no rows") : 0;
	if (c->row_start[0] != 0 || c->row_start[c->nr_rows] != c->nr_boxes)
		return tf_error_set(err, "rows cover [%u, %u) of %u boxes", c->row_start[0],
				    c->row_start[c->nr_rows], c->nr_boxes);
	parent = xmalloc(sizeof(*parent) * ((size_t)c->nr_boxes + 1));
	stack = xmalloc(sizeof(*stack) * ((size_t)c->nr_boxes + 1));
	chart_parents(c, parent);
	chart_stacks(c, stack);
	for (uint32_t d = 0; d < c->nr_rows && !ret; d++) {
		if (c->row_start[d] >= c->row_start[d + 1])
			ret = tf_error_set(err, "row %u is empty or reversed", d);
		for (uint32_t i = c->row_start[d]; i < c->row_start[d + 1] && !ret; i++)
			ret = check_box(c, d, i, parent, stack, err);
	}
	free(stack);
	free(parent);
	return ret;
}

/* ------------------------------------------------------------ the ruler */

struct unit {
	uint64_t size;
	const char *name, *ascii;
};

static const struct unit time_units[] = {
	{ 1000000000, " s", " s" },
	{ 1000000, " ms", " ms" },
	{ 1000, " \xc2\xb5s", " us" },
	{ 1, " ns", " ns" },
};

static const struct unit count_units[] = {
	{ 1000000000000000000ULL, "E", "E" },
	{ 1000000000000000ULL, "P", "P" },
	{ 1000000000000ULL, "T", "T" },
	{ 1000000000, "G", "G" },
	{ 1000000, "M", "M" },
	{ 1000, "k", "k" },
	{ 1, "", "" },
};

static const struct unit byte_units[] = {
	{ 1000000000000000000ULL, " EB", " EB" },
	{ 1000000000000000ULL, " PB", " PB" },
	{ 1000000000000ULL, " TB", " TB" },
	{ 1000000000, " GB", " GB" },
	{ 1000000, " MB", " MB" },
	{ 1000, " kB", " kB" },
	{ 1, " B", " B" },
};

struct ruler_scale
chart_ruler_scale(const struct timeline *tl)
{
	if (tl->axis.kind != CHART_X_WEIGHT)
		return RULER_TIME;
	return (struct ruler_scale){ tl->p->unit, tl->p->weight_decimals, tl->p->weight_shift,
				     0 };
}

void
chart_format_x(uint64_t x, struct ruler_scale scale, bool ascii, struct strbuf *out)
{
	const struct unit *u = scale.unit == UNIT_NANOSECONDS ? time_units
			     : scale.unit == UNIT_BYTES ? byte_units : count_units;
	weight_sum v = x, ten = 1, size;

	if (!x) {
		strbuf_addch(out, '0');
		return;
	}
	/* An axis past 64 bits counts tens of the unit (chart_ruler()). */
	for (unsigned d = 0; d < scale.tens; d++)
		v *= 10;
	/* Weights kept with decimals: the units are that much larger. */
	for (unsigned d = 0; d < scale.decimals && ten <= UINT64_MAX / 10; d++)
		ten *= 10;
	while (u->size > 1 && u->size * ten > v)
		u++;
	size = u->size * ten;
	weight_sum_format(v / size, out);
	if (v % size) {
		weight_sum frac = v % size, step = size / 10;

		strbuf_addch(out, '.');
		/* Exact digits, trailing zeros dropped. */
		while (frac) {
			strbuf_addch(out, (char)('0' + frac / step));
			frac %= step;
			step /= 10;
		}
	}
	strbuf_addstr(out, ascii ? u->ascii : u->name);
}

/* Cells a label takes: its bytes less the continuation bytes of UTF-8. */
static uint32_t
label_width(const char *s)
{
	uint32_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Fill out with the ticks of step; returns how many, or SIZE_MAX if they touch. */
static size_t
ruler_try(uint64_t x0, uint64_t x1, uint32_t width, uint64_t step, struct ruler_scale scale,
	  bool ascii, struct ruler_tick *out, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t x = x0 % step ? x0 + (step - x0 % step) : x0;
	size_t n = 0;
	bool touch = false;

	if (x < x0) /* wrapped */
		return 0;
	for (; x < x1 && n < max; n++) {
		struct ruler_tick *t = &out[n];

		t->x = x;
		t->col = (uint32_t)mul_div(x - x0, width, x1 - x0);
		if ((unsigned __int128)(x - x0) * width % (x1 - x0) * 2 >= x1 - x0)
			t->col++; /* round halves up, as the layout does */
		strbuf_reset(&sb);
		chart_format_x(x, scale, ascii, &sb);
		snprintf(t->label, sizeof(t->label), "%s", sb.buf);
		t->width = label_width(t->label);
		if (n && out[n - 1].col + out[n - 1].width + 2 > t->col) {
			touch = true;
			break;
		}
		if (x > UINT64_MAX - step)
			x = x1;
		else
			x += step;
	}
	strbuf_release(&sb);
	if (touch)
		return SIZE_MAX;
	/* The last label may not run past the width. */
	while (n && out[n - 1].col + out[n - 1].width > width)
		n--;
	return n;
}

/*
 * The name of a count's unit after the last label: "300 samples", so
 * that a ruler of weight does not read as time. Ticks at the end give
 * way to it; returns how many are left.
 */
static size_t
name_unit(uint32_t width, struct ruler_scale scale, struct ruler_tick *out, size_t n)
{
	const char *name;
	struct ruler_tick *t;
	size_t len, nlen;

	if (!n || scale.unit == UNIT_NANOSECONDS || scale.unit == UNIT_BYTES ||
	    scale.unit == UNIT_NONE)
		return n;
	name = weight_unit_name(scale.unit);
	nlen = strlen(name);
	while (n > 1 && out[n - 1].col + out[n - 1].width + 1 + nlen > width)
		n--;
	t = &out[n - 1];
	len = strlen(t->label);
	if (len + 1 + nlen >= sizeof(t->label) || t->col + t->width + 1 + nlen > width)
		return n;
	/* "1 sample", not "1 samples": the names are plurals in s. */
	snprintf(t->label + len, sizeof(t->label) - len, " %.*s", (int)strlen(name) -
		 (!strcmp(t->label, "1") && name[0] && name[strlen(name) - 1] == 's'), name);
	t->width = label_width(t->label);
	return n;
}

size_t
chart_ruler(uint64_t x0, uint64_t x1, uint32_t width, struct ruler_scale scale, bool ascii,
	    struct ruler_tick *out, size_t max)
{
	static const uint64_t tenths[] = { 10, 20, 25, 50 };

	if (x1 <= x0 || !width || !max)
		return 0;
	if (scale.shift) {
		/*
		 * In the input's units, past 64 bits: counted in 10^tens of
		 * them, the least tens that brings x1 below 2^63. Columns
		 * only depend on the ratios, which this keeps. One level.
		 */
		weight_sum a = (weight_sum)x0 << scale.shift, b = (weight_sum)x1 << scale.shift;
		weight_sum ten = 1;
		unsigned shift = scale.shift;
		size_t n;

		while (b / ten > INT64_MAX) {
			ten *= 10;
			scale.tens++;
		}
		scale.shift = 0;
		if ((uint64_t)(b / ten) <= (uint64_t)(a / ten))
			return 0;
		n = chart_ruler((uint64_t)(a / ten), (uint64_t)(b / ten), width, scale, ascii, out,
				max);
		for (size_t i = 0; i < n; i++)
			out[i].x = (uint64_t)((out[i].x * ten) >> shift);
		return n;
	}
	for (uint64_t pow = 1;; pow *= 10) {
		for (size_t m = 0; m < sizeof(tenths) / sizeof(tenths[0]); m++) {
			uint64_t step;
			size_t n;

			if (pow < 10 && tenths[m] % 10)
				continue; /* no step is 2.5 of the smallest unit */
			step = pow < 10 ? tenths[m] / 10 : pow / 10 * tenths[m];
			n = ruler_try(x0, x1, width, step, scale, ascii, out, max);
			/* Too many ticks for out counts as touching. */
			if (n != SIZE_MAX && (n < max || step >= x1 - x0)) {
				return name_unit(width, scale, out, n);
			}
			if (step >= x1 - x0)
				return 0;
		}
		if (pow > UINT64_MAX / 100)
			return 0;
	}
}
